//! A struct or array `state` of a cc starts each new flow at its constant initialiser
//! (docs/language.md §8.2):
//!
//! > `state name: T = init;` is per-flow state: every flow has its own copy, initialised to the
//! > constant `init` (or the zero value) when the flow starts. T is any scalar, struct or array
//! > type; a struct or array `init` is a literal of constants (§4.15)
//!
//! The expectations are worked out by hand below; the same program runs on the C-simulated HLS
//! kernel in backend-hls/csim/tests/csim_programs.rs.

use scenic_frontend::Session;

fn lower(text: &str) -> scenic_ir::Module {
    let mut session = Session::new();
    session.add_source("test.sn", text);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    }
}

fn run(source: &str, stf: &str) {
    let module = lower(source);
    if let Err(e) = scenic_ir::Validator::new().validate(&module) {
        panic!("the IR after lowering is invalid: {e:?}");
    }
    let report = scenic_sim::stf::run_text(&module, stf, None);
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|f| format!("line {}: {}", f.pos.line, f.message))
        .collect();
    assert!(report.ok(), "{source}\n{}", failures.join("\n"));
    assert!(report.passed >= 2, "nothing was checked");
}

const PAIR: &str = "struct pair { a: bit<8>, b: bit<16> }
cc c per flow[16] {
    state s: pair = pair { b: 7, a: 3 };
    state w: size = 0B;
    output window w;
    on ack(x) {
        s.b = s.b + (s.a as bit<16>);
        w = (s.b as bit<64>) as size;
    }
}
";

/// Flow 1 starts with s = {a: 3, b: 7} (fields given out of order: they are matched by name).
/// First ack: s.b = 7 + 3 = 10, window 10 bytes (`bit<64> as size` counts bytes, §4.9). Second:
/// 13. Flow 2 is new: its own copy starts at the initialiser again, so its first ack gives 10.
#[test]
fn a_struct_state_starts_each_flow_at_its_literal() {
    run(
        PAIR,
        "event c 1 ack bytes=1\ncheck_window c 1 == 10\n\
         event c 1 ack bytes=1\ncheck_window c 1 == 13\n\
         event c 2 ack bytes=1\ncheck_window c 2 == 10\n",
    );
}

/// A nested struct and an array of constants, from named constants and folded operators:
/// o = {p: {a: 3, b: 7}, k: [5, 250]}. Each ack adds k[0] + k[1] = 255 and p.a to p.b:
/// 7 + 255 + 3 = 265, then 523.
#[test]
fn nested_struct_and_array_state_start_at_their_literals() {
    let source = "struct pair { a: bit<8>, b: bit<16> }
struct outer { p: pair, k: [bit<8>; 2] }
const FIVE: bit<8> = 5;
cc c per flow[16] {
    state o: outer = outer { p: pair { a: 3, b: (FIVE as bit<16>) + 2 }, k: [FIVE, 250] };
    state w: size = 0B;
    output window w;
    on ack(x) {
        o.p.b = o.p.b + (o.k[0] as bit<16>) + (o.k[1] as bit<16>) + (o.p.a as bit<16>);
        w = (o.p.b as bit<64>) as size;
    }
}
";
    run(
        source,
        "event c 1 ack bytes=1\ncheck_window c 1 == 265\n\
         event c 1 ack bytes=1\ncheck_window c 1 == 523\n",
    );
}

/// An array `state` of structs: element 1's b (20) plus element 0's a (1) is 21.
#[test]
fn an_array_of_structs_state_starts_at_its_literal() {
    let source = "struct pair { a: bit<8>, b: bit<16> }
cc c per flow[4] {
    state v: [pair; 2] = [pair { a: 1, b: 10 }, pair { a: 2, b: 20 }];
    state w: size = 0B;
    output window w;
    on ack(x) {
        w = ((v[1].b + (v[0].a as bit<16>)) as bit<64>) as size;
    }
}
";
    run(
        source,
        "event c 0 ack bytes=1\ncheck_window c 0 == 21\n\
         event c 3 ack bytes=1\ncheck_window c 3 == 21\n",
    );
}

/// A literal of constants in a body (a `let`) and a `const` of struct type are values like any
/// other: q = {a: 4, b: 9}, K = {a: 1, b: 2}; the window is q.b + K.a = 10.
#[test]
fn constant_struct_literals_in_a_body_are_values() {
    let source = "struct pair { a: bit<8>, b: bit<16> }
const K: pair = pair { a: 1, b: 2 };
cc c per flow[4] {
    state w: size = 0B;
    output window w;
    on ack(x) {
        let q: pair = pair { a: 4, b: 9 };
        w = ((q.b + (K.a as bit<16>)) as bit<64>) as size;
    }
}
";
    run(source, "event c 0 ack bytes=1\ncheck_window c 0 == 10\nevent c 1 ack bytes=1\ncheck_window c 1 == 10\n");
}
