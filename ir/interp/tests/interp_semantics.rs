//! Regression tests of the interpreter's semantics where it once differed from the language:
//!
//! - `drop()` in a called function stops the packet at once: the caller's statement is abandoned
//!   (the CSR it assigns keeps its value) and nothing after it runs, as in the inlined code;
//! - a parse error raised inside a function called from the parser only rejects the packet
//!   (`on parser_error` then runs in full); it does not drop it;
//! - a range pattern on an `int` scrutinee compares signed values, in the interpreter and in
//!   constant folding alike;
//! - an assignment to part of a place evaluates each index of the place once.
//!
//! Each program runs as lowered and after the passes that rewrite the construct (function
//! inlining, constant folding, `all`), and both must give the expected result.

use scenic_frontend::Session;
use scenic_interp::{Destination, Machine, PacketOutcome};
use scenic_ir::body::Expr;
use scenic_ir::Module;
use scenic_opt::PassManager;

fn lower(text: &str) -> Module {
    let mut session = Session::new();
    session.add_source("test.sn", text);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    }
}

/// The module as lowered, and after each of `passes`.
fn variants(text: &str, passes: &[&str]) -> Vec<(String, Module)> {
    variants_of(lower(text), passes)
}

/// `module`, and `module` after each of `passes`.
fn variants_of(module: Module, passes: &[&str]) -> Vec<(String, Module)> {
    let pm = PassManager::with_default_passes();
    let mut out = vec![("as lowered".to_string(), module.clone())];
    for pass in passes {
        let mut m = module.clone();
        if let Err(e) = pm.run_named(&mut m, &[pass]) {
            panic!("{pass}: {e}");
        }
        out.push((format!("after {pass}"), m));
    }
    out
}

/// An Ethernet frame of `len` bytes whose source MAC ends in `last`.
fn frame(len: usize, last: u8) -> Vec<u8> {
    let mut p = vec![0u8; len];
    p[11] = last;
    p[12] = 0x08;
    p
}

fn run(m: &mut Machine<'_>, packet: &[u8]) -> PacketOutcome {
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    m.process_packet(scu, packet, 0, 1_000)
}

fn csr(m: &Machine<'_>, name: &str) -> u64 {
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    match m.csr(scu, name) {
        Some(v) => v.to_u64(),
        None => panic!("no csr {name}"),
    }
}

const DROP_IN_FUNCTION: &str = "
use std::net::ethernet;
scu s on slow_path {
    csr c: bit<32> = 7;
    csr d: bit<32>;
    csr after: bit<32>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    fn f() -> bit<32> {
        if eth.src[7:0] == 1 {
            drop();
        }
        return 5;
    }
    fn g() -> bit<32> {
        d += 1;
        return 1;
    }
    control {
        c = f() + g();
        after = 1;
    }
}
";

#[test]
fn drop_in_a_called_function_stops_the_packet_at_once() {
    for (what, module) in variants(DROP_IN_FUNCTION, &["function-inlining", "all"]) {
        let mut m = Machine::new(&module);
        let out = run(&mut m, &frame(64, 1));
        assert_eq!(out.dropped.as_deref(), Some("drop"), "{what}");
        assert!(out.outputs.is_empty(), "{what}");
        assert_eq!(csr(&m, "c"), 7, "{what}: the assignment is abandoned");
        assert_eq!(csr(&m, "d"), 0, "{what}: g never runs");
        assert_eq!(csr(&m, "after"), 0, "{what}: nothing after the drop runs");
        let out = run(&mut m, &frame(64, 2));
        assert_eq!(out.dropped, None, "{what}");
        assert_eq!(
            (csr(&m, "c"), csr(&m, "d"), csr(&m, "after")),
            (6, 1, 1),
            "{what}"
        );
    }
}

const PARSE_ERROR_IN_FUNCTION: &str = "
use std::net::ethernet;
scu s on slow_path {
    csr handled: bit<32>;
    csr seen: bit<32>;
    headers { eth: ethernet }
    meta { next: bit<8> }
    fn peek() -> bit<8> {
        let x: bit<8> = 0x5a;
        return x;
    }
    parser {
        state start {
            extract(eth);
            meta.next = peek();
            accept
        }
    }
    on parser_error(e) {
        match e {
            packet_too_short => handled += 1,
            _ => {}
        }
        seen += 1;
        to_host();
    }
    control { }
}
";

/// `PARSE_ERROR_IN_FUNCTION` with `peek`'s `x` set to `lookahead(8)`, which the checker allows only
/// in parser states (so a source program cannot say it, but the IR can, and a called function
/// must behave as its inlined code).
fn peek_past_the_end() -> Module {
    let mut module = lower(PARSE_ERROR_IN_FUNCTION);
    let Some(peek) = module.functions.values_mut().find(|f| f.name == "peek") else {
        panic!("no function `peek`")
    };
    let consts: Vec<_> = peek
        .body
        .exprs
        .iter()
        .filter(|(_, e)| matches!(e, Expr::Const(_)))
        .map(|(id, _)| id)
        .collect();
    assert_eq!(consts.len(), 1, "peek has one constant");
    peek.body.exprs[consts[0]] = Expr::Lookahead(8);
    module
}

#[test]
fn a_parse_error_in_a_called_function_only_rejects() {
    for (what, module) in variants_of(peek_past_the_end(), &["function-inlining", "all"]) {
        let mut m = Machine::new(&module);
        let out = run(&mut m, &frame(14, 0));
        assert_eq!(out.dropped, None, "{what}: the handler decides, not a drop");
        assert_eq!(out.outputs.len(), 1, "{what}");
        assert_eq!(out.outputs[0].0, Destination::Host, "{what}");
        assert_eq!(out.outputs[0].1.len(), 14, "{what}");
        assert_eq!(csr(&m, "handled"), 1, "{what}");
        assert_eq!(csr(&m, "seen"), 1, "{what}: the handler runs in full");
        let out = run(&mut m, &frame(15, 0));
        assert_eq!(out.outputs.len(), 1, "{what}");
        assert_eq!(csr(&m, "seen"), 1, "{what}: a long enough packet parses");
    }
}

const SIGNED_RANGE: &str = "
use std::net::ethernet;
scu s on slow_path {
    csr r: bit<8>;
    csr k: bit<8>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        let v = eth.src[7:0] as int<8>;
        match v {
            -5..=5 => r = 1,
            6..=100 => r = 2,
            _ => r = 3,
        }
        let w: int<8> = -1;
        match w {
            -5..=5 => k = 1,
            _ => k = 3,
        }
    }
}
";

#[test]
fn range_patterns_on_int_compare_signed() {
    let passes = ["constant-folding", "all"];
    for (what, module) in variants(SIGNED_RANGE, &passes) {
        let mut m = Machine::new(&module);
        for (byte, expected) in [
            (0xffu8, 1u64),
            (0xfb, 1),
            (0xfa, 3),
            (5, 1),
            (6, 2),
            (0x80, 3),
        ] {
            run(&mut m, &frame(64, byte));
            assert_eq!(csr(&m, "r"), expected, "{what}: {byte:#x} as int<8>");
            assert_eq!(csr(&m, "k"), 1, "{what}: -1 is in -5..=5");
        }
    }
}

const NESTED_PLACE: &str = "
use std::net::ethernet;
header vlan { pcp: bit<3>, dei: bit<1>, vid: bit<12>, ether_type: bit<16> }
scu s on slow_path {
    csr calls: bit<32>;
    csr got: bit<8>;
    headers { eth: ethernet, tags: [vlan; 2] }
    parser {
        state start {
            extract(eth);
            match eth.ether_type {
                0x8100 => tag,
                _ => accept,
            }
        }
        state tag {
            extract(tags);
            accept
        }
    }
    fn one() -> bit<1> {
        calls += 1;
        return 1;
    }
    control {
        let mut a: [bit<8>; 2] = [0, 0];
        a[one()] = 9;
        a[one()][3:0] = 5;
        got = a[1];
        tags[one() - 1].vid[3:0] = 0xf;
    }
}
";

#[test]
fn a_nested_place_evaluates_its_indices_once() {
    for (what, module) in variants(NESTED_PLACE, &["function-inlining", "all"]) {
        let mut m = Machine::new(&module);
        let mut p = frame(64, 0);
        p[12] = 0x81;
        p[13] = 0x00;
        let out = run(&mut m, &p);
        assert_eq!(csr(&m, "calls"), 3, "{what}: one call per assignment");
        assert_eq!(csr(&m, "got"), 5, "{what}: 9 with its low bits set to 5");
        assert_eq!(out.outputs.len(), 1, "{what}");
        assert_eq!(out.outputs[0].1[15], 0x0f, "{what}: the tag's low vid bits");
    }
}
