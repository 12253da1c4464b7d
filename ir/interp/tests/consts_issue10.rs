//! Regression tests of issue 10, with values worked out by hand from docs/language.md:
//!
//! - constant expressions are exact (§4.15): arithmetic on typed constants and casts does not wrap
//!   or truncate, the exact value must fit the type where it is used, and saturating operators clamp
//!   at the type the value takes; both as CSR initialisers and inside run-time code;
//! - `&`, `|`, `^` on two bools (§4.4);
//! - an integer literal next to a unit value counts base units (§3.5, §4.11);
//! - assigning a slice changes only its bits (§4.7, §5.2);
//! - `0xFF as int<8>` is -1 and `-128 as int<8>` is -128 (§4.2, §4.9);
//! - an enum named like a hex number keeps `e3::a` a path (§2.9).

use scenic_frontend::Session;
use scenic_interp::Machine;
use scenic_ir::Module;

fn lower(text: &str) -> Result<Module, String> {
    let mut session = Session::new();
    session.add_source("test.sn", text);
    scenic_lower::lower_session(&mut session).map_err(|e| format!("{e}"))
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

const EXACT: &str = "
use std::net::ethernet;
const A: bit<8> = 200;
const LR: rate = line_rate / 3 * 3;
const G: int<8> = 3 |-| 5;
scu s on slow_path {
    csr a: bit<8> = A * 2 / 4;
    csr b: bit<8> = A / 3 * 3;
    csr c: bit<8> = (7 as bit<8>) / 2 * 2;
    csr d: bit<64> = LR as bit<64>;
    csr e: bit<8> = 3 |-| 5;
    csr f: bit<8> = 250 |+| 10;
    csr g: bit<8> = G as bit<8>;
    csr h: bit<8> = A |+| 100;
    csr k: bit<8>;
    csr l: bit<8>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        k = A * 2 / 4;
        l = eth.src[7:0] + A / 3 * 3;
    }
}
";

#[test]
fn typed_constants_are_exact() {
    let module = match lower(EXACT) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    };
    let mut m = Machine::new(&module);
    // §4.15: evaluated exactly in rationals, nothing wraps, `/` is exact; then converted.
    assert_eq!(
        csr(&m, "a"),
        100,
        "200 * 2 / 4 = 100 (not (400 mod 256) / 4 = 36)"
    );
    assert_eq!(
        csr(&m, "b"),
        200,
        "200 / 3 * 3 = 200 exactly (not 66 * 3 = 198)"
    );
    assert_eq!(csr(&m, "c"), 7, "7 / 2 * 2 = 7 exactly (not 3 * 2 = 6)");
    // §4.16: line_rate defaults to 200Gbps = 200 * 10^9 bit/s; / 3 * 3 gives it back exactly.
    assert_eq!(csr(&m, "d"), 200_000_000_000, "line_rate / 3 * 3");
    // §4.3: `3 |-| 5` is 0 in bit<N>; `250 |+| 10` clamps to 255 in bit<8>.
    assert_eq!(csr(&m, "e"), 0, "3 |-| 5 at bit<8>");
    assert_eq!(csr(&m, "f"), 255, "250 |+| 10 at bit<8>");
    // int<8> holds -2; `as bit<8>` reinterprets the bits (§4.9): 0xFE = 254.
    assert_eq!(
        csr(&m, "g"),
        254,
        "3 |-| 5 at int<8> is -2, reinterpreted as bit<8> (§4.9)"
    );
    assert_eq!(csr(&m, "h"), 255, "200 |+| 100 clamps at bit<8>");
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    let mut packet = vec![0u8; 64];
    packet[11] = 5;
    packet[12] = 0x08;
    m.process_packet(scu, &packet, 0, 1_000);
    // The same constant expressions in run-time code are exact too.
    assert_eq!(csr(&m, "k"), 100, "A * 2 / 4 in a control block");
    assert_eq!(csr(&m, "l"), 205, "5 + A / 3 * 3 = 5 + 200");
}

#[test]
fn the_exact_value_must_fit_where_it_is_used() {
    // §4.15: "The exact value is then converted to the required type and must be representable
    // (E0203)": 200 + 100 = 300 does not fit bit<8>.
    let bad = "const F: bit<8> = (200 as bit<8>) + 100;\n";
    let mut session = Session::new();
    session.add_source("test.sn", bad);
    let report = session.check(scenic_frontend::CheckOptions::default());
    assert_eq!(report.error_count(), 1, "{}", report.render_plain());
    assert!(
        report.render_plain().contains("E0203"),
        "{}",
        report.render_plain()
    );
}

const BOOL_BITWISE: &str = "
use std::net::ethernet;
scu s on slow_path {
    csr m: bit<8>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        let p: bool = eth.src[7:0] == 5;
        let q: bool = eth.src[7:0] == 6;
        if p & !q { m = m + 1; }
        if p | q { m = m + 2; }
        if p ^ q { m = m + 4; }
        if p & q { m = m + 8; }
        if p ^ true { m = m + 16; }
    }
}
";

#[test]
fn bitwise_operators_on_bools() {
    let module = match lower(BOOL_BITWISE) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    };
    let mut m = Machine::new(&module);
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    let mut packet = vec![0u8; 64];
    packet[11] = 5;
    packet[12] = 0x08;
    m.process_packet(scu, &packet, 0, 1_000);
    // §4.4: `&`, `|`, `^` on two bools are logical and, or, xor. With p = true, q = false:
    // p & !q (1), p | q (2), p ^ q (4) hold; p & q (8) and p ^ true (16) do not: 1 + 2 + 4 = 7.
    assert_eq!(csr(&m, "m"), 7);
}

const UNIT_LITERALS: &str = "
use std::net::ethernet;
const T: duration = 1us + 1;
const R: rate = 40Mbps - 1;
const Z: bool = 0 < 1B;
scu s on slow_path {
    csr t: bit<64> = T as bit<64>;
    csr r: bit<64> = R as bit<64>;
    csr z: bit<1> = Z as bit<1>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { }
}
";

#[test]
fn an_integer_literal_next_to_a_unit_value_counts_base_units() {
    let module = match lower(UNIT_LITERALS) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    };
    let m = Machine::new(&module);
    // §3.5: `t + 1` is one nanosecond later: 1us = 1000 ns, + 1 = 1001 ns.
    assert_eq!(csr(&m, "t"), 1_001);
    // §4.11: `rate + 1` is 1 bit/s more; 40Mbps = 40_000_000 bit/s, - 1.
    assert_eq!(csr(&m, "r"), 39_999_999);
    // 0 bytes < 1 byte.
    assert_eq!(csr(&m, "z"), 1);
}

const SLICE_ASSIGNMENT: &str = "
use std::net::ethernet;
scu s on slow_path {
    csr c: bit<16> = 0xABCD;
    csr d: bit<16> = 0x00FF;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        c[7:0] = 0x12;
        d[11:4] += 1;
    }
}
";

#[test]
fn assigning_a_slice_changes_only_its_bits() {
    let module = match lower(SLICE_ASSIGNMENT) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    };
    let mut m = Machine::new(&module);
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    let mut packet = vec![0u8; 64];
    packet[12] = 0x08;
    m.process_packet(scu, &packet, 0, 1_000);
    // §4.7/§5.2: `x[hi:lo] = v` replaces bits hi..=lo, the other bits are unchanged:
    // 0xABCD with bits 7..0 := 0x12 is 0xAB12.
    assert_eq!(csr(&m, "c"), 0xAB12);
    // 0x00FF: bits 11..4 are 0x0F; += 1 gives 0x10, so the value is 0x0100 | 0x000F = 0x010F.
    assert_eq!(csr(&m, "d"), 0x010F);
}

const LITERAL_CASTS: &str = "
use std::net::ethernet;
const A: int<8> = 0xFF as int<8>;
const B: int<8> = -128 as int<8>;
const C: bit<16> = (-1 as int<8>) as bit<16>;
const D: int<8> = 200 as int<8>;
scu s on slow_path {
    csr a: bit<1> = (A == -1) as bit<1>;
    csr b: bit<8> = B as bit<8>;
    csr c: bit<16> = C;
    csr d: bit<1> = (D == -56) as bit<1>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { }
}
";

#[test]
fn literal_casts_to_int() {
    let module = match lower(LITERAL_CASTS) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    };
    let m = Machine::new(&module);
    // §4.9: `bit<N>` to `int<N>` reinterprets the bits: `0xFF as int<8>` is -1.
    assert_eq!(csr(&m, "a"), 1, "0xFF as int<8> == -1");
    // §4.2: `-128` is a negative literal, so `-128 as int<8>` is (-128) as int<8>: bits 0x80.
    assert_eq!(csr(&m, "b"), 0x80, "-128 as int<8>");
    // §4.9 table: `-1 as int<8>` to `bit<16>` is 0xFFFF (sign-extended, then reinterpreted).
    assert_eq!(csr(&m, "c"), 0xFFFF, "(-1 as int<8>) as bit<16>");
    // 200 = 0xC8 read as int<8> is 200 - 256 = -56.
    assert_eq!(csr(&m, "d"), 1, "200 as int<8> == -56");
}

const HEX_NAMED_ENUM: &str = "
use std::net::ethernet;
enum e3: bit<4> { a = 5, b = 9 }
const X: bit<4> = e3::b as bit<4>;
const Y: bit<128> = fe80::1;
scu s on slow_path {
    csr x: bit<4> = X;
    csr m: bit<4>;
    csr y: bit<64> = Y[127:64];
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        let v: e3 = e3::a;
        match v {
            e3::a => { m = 1; }
            _ => { m = 2; }
        }
    }
}
";

#[test]
fn an_enum_named_like_a_hex_number_is_a_path() {
    let module = match lower(HEX_NAMED_ENUM) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    };
    let mut m = Machine::new(&module);
    // §2.9: identifiers joined by `::` are a path: `e3::b` is the variant, valued 9 (§3.8).
    assert_eq!(csr(&m, "x"), 9, "e3::b as bit<4>");
    // fe80::1 is still an address: its high 64 bits are 0xfe80_0000_0000_0000.
    assert_eq!(csr(&m, "y"), 0xfe80_0000_0000_0000, "fe80::1");
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    let mut packet = vec![0u8; 64];
    packet[12] = 0x08;
    m.process_packet(scu, &packet, 0, 1_000);
    assert_eq!(
        csr(&m, "m"),
        1,
        "the pattern e3::a matches the variant e3::a"
    );
}

/// E0203's note for a value no `fixed<1,15>` holds prints the nearest one exactly (docs/errors.md
/// E0203: "write that value"): 0.1 → 3277 / 2^15 = 0.100006103515625, and that value, written in
/// the program, checks (§4.10: `fixed<I,F>` holds multiples of 2^-F).
#[test]
fn the_nearest_fixed_value_that_e0203_suggests_is_accepted() {
    let mut session = Session::new();
    session.add_source(
        "test.sn",
        "cc ewma per flow[4] {\n    const GAIN: fixed<1,15> = 0.100006103515625;\n    \
         state alpha: fixed<1,15> = 1.0;\n    state rc: rate = line_rate;\n    output rate rc;\n    \
         on cnp { alpha = (1.0 - GAIN) * alpha + GAIN; }\n}\n",
    );
    let report = session.check(scenic_frontend::CheckOptions::default());
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
}
