//! The conditional expression `if c { a } else { b }` (docs/language.md §4.17) on the
//! interpreter, as lowered and after the passes that rewrite it (constant folding, function
//! inlining, dead-code elimination, `all`). Every expected value below is worked out by hand from
//! §4.17: the condition is evaluated, then only the taken branch; an `else if` chain is nested
//! `if`s; a literal branch takes the other branch's type; a constant condition makes a constant.
//!
//! One program covers: a two-way choice (`big`, the larger of a and b), an `else if` chain
//! (`chain`), branches calling functions that count their calls in CSRs (`eff`, `calls_f`,
//! `calls_g`: only the taken one runs), a literal branch typed by the other branch (`lit`: 300 is
//! a `bit<16>` there), signed values (`abs_s`, §4.3: `-(-128)` wraps to -128), constants
//! (`consts` = PICK + CHAIN), a parser state (`meta.tag`, and a parser `match` on an `if`), a
//! control `match` scrutinee (`matched`) and a map insert in a branch (`inserted`: the key is in
//! the map only after a packet that took that branch).

use scenic_frontend::Session;
use scenic_interp::{Machine, PacketOutcome};
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

/// The module as lowered, and after each pass.
fn variants(text: &str) -> Vec<(String, Module)> {
    let module = lower(text);
    let pm = PassManager::with_default_passes();
    let mut out = vec![("as lowered".to_string(), module.clone())];
    for pass in [
        "constant-folding",
        "function-inlining",
        "dead-code-elimination",
        "all",
    ] {
        let mut m = module.clone();
        if let Err(e) = pm.run_named(&mut m, &[pass]) {
            panic!("{pass}: {e}");
        }
        out.push((format!("after {pass}"), m));
    }
    out
}

/// An Ethernet frame whose source MAC ends in `b`, `a`.
fn frame(a: u8, b: u8) -> Vec<u8> {
    let mut p = vec![0u8; 64];
    p[10] = b;
    p[11] = a;
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

const PROGRAM: &str = "
use std::net::ethernet;

const LIMIT: bit<8> = 5;
const PICK: bit<8> = if LIMIT > 3 { 10 } else { 20 };
const CHAIN: bit<8> = if LIMIT > 9 { 1 } else if LIMIT > 4 { 2 } else { 3 };

scu s on slow_path {
    csr big: bit<8>;
    csr chain: bit<8>;
    csr calls_f: bit<8>;
    csr calls_g: bit<8>;
    csr eff: bit<8>;
    csr lit: bit<16>;
    csr abs_s: bit<8>;
    csr consts: bit<8>;
    csr tagged: bit<8>;
    csr matched: bit<8>;
    csr inserted: bit<8>;
    map seen: hash<bit<8>, bit<8>>[4];

    headers { eth: ethernet }
    meta { tag: bit<8> }

    parser {
        state start {
            extract(eth);
            meta.tag = if eth.src[7:0] > 4 { 7 } else { 9 };
            match (if eth.src[7:0] == 2 { eth.src[15:8] } else { 0 }) {
                6 => six,
                _ => accept,
            }
        }
        state six {
            meta.tag = meta.tag + 100;
            accept
        }
    }

    fn f() -> bit<8> {
        calls_f += 1;
        return 1;
    }

    fn g() -> bit<8> {
        calls_g += 1;
        return 2;
    }

    control {
        let a: bit<8> = eth.src[7:0];
        let b: bit<8> = eth.src[15:8];
        big = if a > b { a } else { b };
        chain = if a == 1 { 10 } else if a == 2 { 20 } else if a == 3 { 30 } else { 40 };
        eff = if a < 3 { f() } else { g() } + 100;
        lit = if a == 1 { 300 } else { b ++ a };
        let s: int<8> = b as int<8>;
        let n: int<8> = if s < 0 { -s } else { s };
        abs_s = n as bit<8>;
        consts = PICK + CHAIN;
        match (if a == 3 { b } else { a }) {
            5 => matched = 1,
            6 => matched = 2,
            _ => matched = 3,
        }
        tagged = meta.tag;
        let ok: bool = if a == 4 { seen.insert(a, b) } else { false };
        inserted = if ok { 1 } else { 0 };
        inserted += if seen.contains(4) { 10 } else { 0 };
    }
}
";

const NAMES: [&str; 11] = [
    "tagged", "big", "chain", "eff", "calls_f", "calls_g", "lit", "abs_s", "consts", "matched",
    "inserted",
];

/// `(a, b)` of each packet, and the CSRs after it, in the order of `NAMES`:
/// - tagged: the parser sets 7 when a > 4, else 9, and adds 100 in state `six`, reached when
///   `if a == 2 { b } else { 0 }` is 6;
/// - big = the larger of a and b; chain = 10, 20, 30 for a = 1, 2, 3, else 40;
/// - eff = `if a < 3 { f() } else { g() } + 100`: f gives 1 and counts in calls_f, g gives 2 and
///   counts in calls_g (the counts accumulate over the packets);
/// - lit = 300 when a == 1, else b ++ a; abs_s = |b as int<8>| (-(-128) = -128 = 0x80);
/// - consts = PICK + CHAIN = 10 + 2 (LIMIT = 5: 5 > 3; not 5 > 9, but 5 > 4);
/// - matched: `match (if a == 3 { b } else { a })`, 5 => 1, 6 => 2, _ => 3;
/// - inserted: 1 when `if a == 4 { seen.insert(a, b) } else { false }` inserted, plus 10 when key
///   4 is in the map (only after the packet with a = 4).
const CASES: [((u8, u8), [u64; 11]); 5] = [
    ((2, 6), [109, 6, 20, 101, 1, 0, 0x0602, 6, 12, 3, 0]),
    ((4, 0xfb), [9, 0xfb, 40, 102, 1, 1, 0xfb04, 5, 12, 3, 11]),
    ((3, 5), [9, 5, 30, 102, 1, 2, 0x0503, 5, 12, 1, 10]),
    ((1, 0x80), [9, 0x80, 10, 101, 2, 2, 300, 0x80, 12, 3, 10]),
    ((7, 6), [7, 7, 40, 102, 2, 3, 0x0607, 6, 12, 3, 10]),
];

#[test]
fn conditional_expressions_evaluate_the_taken_branch_only() {
    for (what, module) in variants(PROGRAM) {
        let mut m = Machine::new(&module);
        for ((a, b), expected) in CASES {
            let out = run(&mut m, &frame(a, b));
            assert_eq!(out.dropped, None, "{what}: ({a}, {b})");
            for (name, want) in NAMES.iter().zip(expected) {
                assert_eq!(csr(&m, name), want, "{what}: ({a}, {b}): {name}");
            }
        }
    }
}

/// A struct-valued `if` whose taken branch calls a function (an aggregate: function inlining keeps
/// the call in the `Select`), and calls in the condition and in a scalar branch.
const AGGREGATE: &str = "
use std::net::ethernet;
struct pair { x: bit<8>, y: bit<8> }
scu s on slow_path {
    csr calls: bit<8>;
    csr both: bit<16>;
    csr sum: bit<8>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    fn mk(v: bit<8>) -> pair {
        calls += 1;
        return pair { x: v, y: v + 1 };
    }
    fn one() -> bit<8> {
        calls += 10;
        return 1;
    }
    control {
        let a: bit<8> = eth.src[7:0];
        let p: pair = if a > 5 { mk(a) } else { pair { x: 0, y: 0 } };
        both = p.x ++ p.y;
        sum = if one() == 1 && a == 9 { one() + 1 } else { 0 };
    }
}
";

/// Per packet (a): `mk(a)` runs only when a > 5 (calls + 1), giving { a, a + 1 }, else { 0, 0 };
/// `one()` runs once in the condition (calls + 10) and once more in the taken branch when a == 9
/// (calls + 10, sum = 2), else sum = 0. Calls accumulate: 1 + 10; + 1 + 10 + 10; + 10.
const AGGREGATE_CASES: [(u8, [u64; 3]); 3] =
    [(7, [11, 0x0708, 0]), (9, [32, 0x090a, 2]), (3, [42, 0, 0])];

#[test]
fn an_aggregate_if_and_calls_in_the_condition() {
    for (what, module) in variants(AGGREGATE) {
        let mut m = Machine::new(&module);
        for (a, expected) in AGGREGATE_CASES {
            run(&mut m, &frame(a, 0));
            for (name, want) in ["calls", "both", "sum"].iter().zip(expected) {
                assert_eq!(csr(&m, name), want, "{what}: a = {a}: {name}");
            }
        }
    }
}
