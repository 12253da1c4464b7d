//! The order of cc timers due at one instant, and a restart by one of them (docs/language.md §8.5):
//!
//! > Timers of one flow that are due by the same instant fire in order of due time, then declaration
//! > order. A restart takes effect at once: when a timer's handler restarts another timer due at
//! > that same instant, the restarted one's next firing is a full period later, so it does not fire
//! > at that instant.
//!
//! Each handler appends its digit to `seq` (`seq = seq * 10 + d`), and the window output shows the
//! firing order; the expected values are worked out below from the rule, by hand.

use scenic_frontend::Session;

fn lower(text: &str) -> scenic_ir::Module {
    let mut session = Session::new();
    session.add_source("test.sn", text);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    }
}

fn program(first: (&str, u32), second: (&str, u32), restart: &str) -> String {
    format!(
        "cc order per flow[4] {{
    state seq: size = 0B;
    output window seq;
    on ack(a) {{ }}
    on timer {} every 10us {{ seq = seq * 10 + {}B; {restart} }}
    on timer {} every 10us {{ seq = seq * 10 + {}B; }}
}}
",
        first.0, first.1, second.0, second.1
    )
}

fn run(source: &str, stf: &str) {
    let module = lower(source);
    let report = scenic_sim::stf::run_text(&module, stf, None);
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|f| format!("line {}: {}", f.pos.line, f.message))
        .collect();
    assert!(report.ok(), "{source}\n{}", failures.join("\n"));
    assert!(report.passed >= 2, "nothing was checked");
}

/// Timer `a` (digit 1, declared first) restarts `b` (digit 2); both every 10 µs from the flow's
/// start at 0. At 10 µs both are due: `a` fires first (declaration order) and moves `b` to 20 µs,
/// so `b` does not fire: seq = 1. At 20 µs the same again: seq = 11. `b` never fires.
#[test]
fn a_timer_restarted_at_its_instant_does_not_fire_then() {
    let source = program(("ta", 1), ("tb", 2), "restart tb;");
    run(
        &source,
        "event order 0 ack\ntime 10us\ncheck_window order 0 == 1\n\
         time 20us\ncheck_window order 0 == 11\n",
    );
}

/// Declared the other way round (`b`, digit 2, first; `a`, digit 1, restarts `b`): at 10 µs `b`
/// fires first (2), then `a` (21) moves `b` to 20 µs; at 20 µs `b` (212) then `a` (2121).
#[test]
fn a_restart_after_the_restarted_timer_fired_only_delays_its_next_firing() {
    let source = "cc order per flow[4] {
    state seq: size = 0B;
    output window seq;
    on ack(a) { }
    on timer tb every 10us { seq = seq * 10 + 2B; }
    on timer ta every 10us { seq = seq * 10 + 1B; restart tb; }
}
";
    run(
        source,
        "event order 0 ack\ntime 10us\ncheck_window order 0 == 21\n\
         time 20us\ncheck_window order 0 == 2121\n",
    );
}

/// Without a restart, both fire at each instant in declaration order: 12, then 1212.
#[test]
fn timers_due_together_fire_in_declaration_order() {
    let source = program(("ta", 1), ("tb", 2), "");
    run(
        &source,
        "event order 0 ack\ntime 10us\ncheck_window order 0 == 12\n\
         time 20us\ncheck_window order 0 == 1212\n",
    );
}
