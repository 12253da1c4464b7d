//! Timing estimates: the figures of every example (printed with `--nocapture`, the source of the table
//! in docs/timing.md), the DCQCN budget, and the over-budget diagnostic.

// The helpers below are test code too: a missing example or a program that fails to lower is a failure.
#![allow(clippy::expect_used)]

use scenic_frontend::Session;
use scenic_ir::Module;
use scenic_timing::{BodyKind, Options, TimingError, TimingReport};
use std::path::Path;

const EXAMPLES: [&str; 10] = [
    "firewall",
    "l3_router",
    "flow_monitor",
    "partition",
    "xor_cipher",
    "dcqcn",
    "window_cc",
    "timely",
    "swift",
    "hpcc",
];

fn example(name: &str) -> Module {
    let mut session = Session::new();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}.sn"));
    session.add_path(&path).expect("example exists");
    scenic_lower::lower_session(&mut session).expect("example lowers")
}

fn source(name: &str, text: &str) -> Module {
    let mut session = Session::new();
    session.add_source(name, text);
    let report = session.check(scenic_frontend::CheckOptions::default());
    assert_eq!(report.error_count(), 0, "{name} checks");
    scenic_lower::lower_session(&mut session).expect("source lowers")
}

fn report(module: &Module) -> TimingReport {
    scenic_timing::analyze(module, &Options::default())
}

fn table_rows(report: &TimingReport) -> Vec<String> {
    report
        .bodies
        .iter()
        .map(|b| {
            let ii = match &b.ii_limit {
                Some(l) => format!("{} ({})", b.ii, l.object),
                None => b.ii.to_string(),
            };
            let budget = b.budget.map_or(String::new(), |x| format!(" / {x}"));
            let costly: Vec<String> = b
                .costly
                .iter()
                .map(|o| format!("{} {}", o.what, o.cycles))
                .collect();
            format!(
                "| {} | {}{budget} | {ii} | {} |",
                b.name,
                b.latency,
                costly.join("; ")
            )
        })
        .collect()
}

#[test]
fn figures_for_every_example() {
    println!("| body | latency (cycles) | II | most expensive on the critical path |");
    println!("|---|---|---|---|");
    for name in EXAMPLES {
        let r = report(&example(name));
        assert!(!r.bodies.is_empty(), "{name} has bodies");
        for row in table_rows(&r) {
            println!("{row}");
        }
        for b in &r.bodies {
            for note in &b.notes {
                eprintln!("note: {}: {}", b.name, note.message);
            }
        }
    }
}

#[test]
fn dcqcn_meets_its_65_cycle_budget() {
    let module = example("dcqcn");
    let r = report(&module);
    assert_eq!(r.mtu_budget, 65, "4178 B at 200 Gb/s and 391 MHz");
    let handlers: Vec<_> = r
        .bodies
        .iter()
        .filter(|b| b.kind == BodyKind::CcHandler)
        .collect();
    assert_eq!(handlers.len(), 4);
    for h in &handlers {
        println!("{}: {} of {:?} cycles", h.name, h.latency, h.budget);
        assert_eq!(h.budget, Some(65));
        assert!(
            h.latency > 0 && h.latency <= 65,
            "{} takes {}",
            h.name,
            h.latency
        );
        assert!(!h.over_budget());
    }
    assert!(scenic_timing::check_budgets(&module, &Options::default()).is_empty());
    // Every handler reads the flow's record and writes it back: the next event of the same flow
    // waits for the write, so the II is the whole handler.
    let cnp = r.body("cc dcqcn: on cnp").expect("on cnp");
    let limit = cnp.ii_limit.as_ref().expect("per-flow state recurrence");
    assert!(limit.object.contains("per-flow state"), "{}", limit.object);
    assert!(cnp.costly.iter().any(|o| o.what.starts_with("multiply")));
}

const TINY: &str = "\
cc tiny per flow[64] budget 2 cycles {
    param a: bit<64> = 3;
    param b: bit<64> = 5;
    state x: bit<64> = 1;
    state r: rate = 100Gbps;
    output rate r;

    on cnp {
        x = x * a * b * x;
    }
}
";

#[test]
fn a_multiply_chain_over_a_tiny_budget_names_the_multiplies() {
    let module = source("tiny.sn", TINY);
    let errors = scenic_timing::check_budgets(&module, &Options::default());
    assert_eq!(errors.len(), 1, "{errors:?}");
    let TimingError::OverBudget {
        cc,
        handler,
        estimate,
        budget,
        span,
        costly,
    } = &errors[0];
    assert_eq!(
        (cc.as_str(), handler.as_str(), *budget),
        ("tiny", "on cnp", 2)
    );
    // Three chained 64×64 multiplies (4 cycles each) after the state read (2), then the write-back.
    assert_eq!(*estimate, 2 + 3 * 4 + 1);
    let handler_at = TINY.find("on cnp").expect("handler") as u32;
    assert!(span.is_known() && span.lo <= handler_at && handler_at < span.hi);
    let multiplies: Vec<_> = costly
        .iter()
        .filter(|o| o.what.starts_with("multiply"))
        .collect();
    assert_eq!(multiplies.len(), 3, "{costly:?}");
    // `((x * a) * b) * x`: the three products start where the expression does and end after
    // `a`, `b` and the second `x`.
    let product = TINY.find("x * a").expect("line");
    let mut ends: Vec<&str> = multiplies
        .iter()
        .map(|m| {
            assert_eq!(m.cycles, 4);
            assert_eq!(m.span.lo as usize, product, "{m:?}");
            &TINY[m.span.lo as usize..m.span.hi as usize]
        })
        .collect();
    ends.sort();
    assert_eq!(ends, ["x * a", "x * a * b", "x * a * b * x"]);
    let labels = errors[0].labels();
    assert_eq!(labels.len(), 1 + costly.len());
    assert_eq!(labels[0].0, *span);
    let message = errors[0].to_string();
    assert!(
        message.contains("`on cnp`") && message.contains("`tiny`"),
        "{message}"
    );
    assert!(
        message.contains("15 cycles") && message.contains("budget of 2"),
        "{message}"
    );
    assert!(errors[0].note(&Options::default()).contains("65 cycles"));
}

#[test]
fn a_register_read_modify_write_bounds_the_stream_ii() {
    let module = source(
        "acc.sn",
        "\
scu acc on rdma(qp) {
    csr total: bit<64> = 0;
    stream(word: bit<512>) {
        total = total * 7 + word[63:0];
        pass(word);
    }
}
",
    );
    let r = report(&module);
    let stream = r.body("scu acc: stream").expect("stream");
    // `total * 7` is a DSP multiply (64×3 bits: 3 cycles), then a 64-bit add: 4 cycles from reading
    // `total` to its new value, so a word can only enter every 4 cycles.
    assert_eq!(stream.ii, 4);
    let limit = stream.ii_limit.as_ref().expect("limit");
    assert_eq!(limit.object, "csr `total`");
    assert!(stream
        .notes
        .iter()
        .any(|n| n.message.contains("one word per cycle")));
}

#[test]
fn every_example_has_a_plausible_report_that_survives_json() {
    for name in EXAMPLES {
        let r = report(&example(name));
        for b in &r.bodies {
            assert!(b.ii >= 1, "{}", b.name);
            assert!(b.costly.len() <= 3, "{}", b.name);
            assert!(b.latency < 200, "{}: {}", b.name, b.latency);
            if b.kind.per_packet() {
                assert_eq!(
                    b.line_rate_min_bytes,
                    Some(Options::default().line_rate_min_bytes(b.ii))
                );
            }
        }
        let json = serde_json::to_string(&r).expect("serialises");
        let back: TimingReport = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, r);
    }
}

#[test]
fn the_examples_findings() {
    // window_cc divides by the window on every ACK: with 32-bit operands the divider is about 36
    // cycles (a 64-bit one, about 68, would break the 65-cycle budget).
    let r = report(&example("window_cc"));
    let ack = r.body("cc aimd_window: on ack").expect("on ack");
    assert!(ack
        .notes
        .iter()
        .any(|n| n.message.contains("run-time value")));
    assert_eq!(ack.costly[0].cycles, 36);
    assert!(ack.latency <= 65, "on ack needs {} cycles", ack.latency);
    // The firewall updates its per-subnet statistics in a BRAM map on every packet.
    let r = report(&example("firewall"));
    let control = r.body("scu incast_firewall: control").expect("control");
    let limit = control.ii_limit.as_ref().expect("map recurrence");
    assert_eq!(limit.object, "map `subnets`");
    assert!(control.line_rate_min_bytes > Some(64));
    // The router is a pure pipeline: II 1, line rate for the smallest packets.
    let r = report(&example("l3_router"));
    let control = r.body("scu l3_router: control").expect("control");
    assert_eq!((control.ii, control.line_rate_min_bytes), (1, Some(64)));
    assert!(control.costly[0].what.starts_with("table `routes` lookup"));
    let parser = r.body("scu l3_router: parser").expect("parser");
    assert!(parser.notes[0].message.contains("start → parse_"));
}

#[test]
fn a_parser_loop_counts_once_per_stack_element() {
    let module = source(
        "qinq.sn",
        "\
use std::net::{ethernet, vlan, ETHERTYPE_VLAN};

scu qinq on slow_path {
    headers { eth: ethernet, vlans: [vlan; 2] }
    parser {
        state start {
            extract(eth);
            match eth.ether_type {
                ETHERTYPE_VLAN => parse_vlan,
                _ => accept,
            }
        }
        state parse_vlan {
            let inner = lookahead(32)[15:0];
            extract(vlans);
            match inner {
                ETHERTYPE_VLAN => parse_vlan,
                _ => accept,
            }
        }
    }
    control {
        if vlans[1].valid() {
            drop();
        }
    }
}
",
    );
    let r = report(&module);
    let vlan = r.body("scu qinq: parser state parse_vlan").expect("state");
    // The lookahead and the extraction align in parallel (1), then the 16-bit select (1).
    assert_eq!(vlan.latency, 2);
    let parser = r.body("scu qinq: parser").expect("parser");
    assert_eq!(
        parser.latency,
        2 + 2 * 2,
        "start, then parse_vlan once per stack element"
    );
    assert!(
        parser.notes[0].message.contains("start → parse_vlan (×2)"),
        "{:?}",
        parser.notes
    );
    assert_eq!(parser.ii, 1);
    let deparser = r.body("scu qinq: deparser").expect("default deparser");
    assert_eq!(deparser.latency, 2, "eth, then the stack");
    let packet = r.body("scu qinq: packet").expect("packet");
    assert_eq!(
        packet.latency,
        parser.latency + r.body("scu qinq: control").expect("control").latency + 2
    );
}
