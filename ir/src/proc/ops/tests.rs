//! Hand-computed examples for every operator and cast.

use super::*;
use crate::body::Intrinsic;
use crate::types::Dimension;
use cranelift_entity::EntityRef;

const B8: Type = Type::Bits(8);
const I8: Type = Type::Int(8);
const Q15: Type = Type::Fixed { int: 1, frac: 15 };
const RATE: Type = Type::Quantity(Dimension::Rate);

fn b(w: u32, v: u64) -> Bits {
    Bits::from_u64(w, v)
}

fn i(w: u32, v: i128) -> Bits {
    Bits::from_i128(w, v)
}

fn bin(op: BinaryOp, ty: &Type, l: &Bits, r: &Bits) -> Bits {
    binary(op, ty, l, r)
}

/// A `fixed<1,15>` from its raw pattern.
fn q15(raw: u64) -> Bits {
    b(16, raw)
}

fn no_enums(_: EnumId) -> u32 {
    8
}

#[test]
fn integer_arithmetic() {
    use BinaryOp::*;
    assert_eq!(bin(Add, &B8, &b(8, 255), &b(8, 1)), b(8, 0));
    assert_eq!(bin(Add, &B8, &b(8, 10), &b(8, 250)), b(8, 4));
    assert_eq!(bin(Add, &I8, &i(8, 127), &i(8, 1)), i(8, -128));
    assert_eq!(bin(Sub, &B8, &b(8, 3), &b(8, 5)), b(8, 254));
    assert_eq!(bin(Mul, &B8, &b(8, 16), &b(8, 17)), b(8, 16));
    assert_eq!(bin(Mul, &I8, &i(8, -3), &i(8, 5)), i(8, -15));
    assert_eq!(bin(Div, &B8, &b(8, 200), &b(8, 7)), b(8, 28));
    assert_eq!(bin(Rem, &B8, &b(8, 200), &b(8, 7)), b(8, 4));
    assert_eq!(bin(Div, &I8, &i(8, -7), &i(8, 2)), i(8, -3));
    assert_eq!(bin(Rem, &I8, &i(8, -7), &i(8, 2)), i(8, -1));
    assert_eq!(bin(Rem, &I8, &i(8, 7), &i(8, -2)), i(8, 1));
    assert_eq!(bin(Div, &I8, &i(8, -128), &i(8, -1)), i(8, -128));
    assert_eq!(bin(Rem, &I8, &i(8, -128), &i(8, -1)), i(8, 0));
    // Division by zero gives 0, signed or not, `/` and `%`.
    for ty in [&B8, &I8] {
        assert_eq!(bin(Div, ty, &b(8, 77), &b(8, 0)), b(8, 0));
        assert_eq!(bin(Rem, ty, &b(8, 77), &b(8, 0)), b(8, 0));
    }
    assert_eq!(unary(UnaryOp::Neg, &I8, &i(8, -128)), i(8, -128));
    assert_eq!(unary(UnaryOp::Neg, &I8, &i(8, 5)), i(8, -5));
    assert_eq!(unary(UnaryOp::BitNot, &B8, &b(8, 0x0f)), b(8, 0xf0));
    assert_eq!(unary(UnaryOp::Not, &Type::Bool, &b(1, 1)), b(1, 0));
    assert_eq!(unary(UnaryOp::Not, &Type::Bool, &b(1, 0)), b(1, 1));
}

#[test]
fn saturation() {
    use BinaryOp::*;
    assert_eq!(bin(SatAdd, &B8, &b(8, 10), &b(8, 250)), b(8, 255));
    assert_eq!(bin(SatAdd, &B8, &b(8, 10), &b(8, 240)), b(8, 250));
    assert_eq!(bin(SatSub, &B8, &b(8, 3), &b(8, 5)), b(8, 0));
    assert_eq!(bin(SatAdd, &I8, &i(8, 100), &i(8, 100)), i(8, 127));
    assert_eq!(bin(SatAdd, &I8, &i(8, -100), &i(8, -100)), i(8, -128));
    assert_eq!(bin(SatAdd, &I8, &i(8, -100), &i(8, 100)), i(8, 0));
    assert_eq!(bin(SatSub, &I8, &i(8, -100), &i(8, 100)), i(8, -128));
    assert_eq!(bin(SatSub, &I8, &i(8, 100), &i(8, -100)), i(8, 127));
    assert_eq!(bin(SatSub, &I8, &i(8, 0), &i(8, -128)), i(8, 127));
    let max = Bits::ones(64);
    assert_eq!(bin(SatAdd, &RATE, &max, &b(64, 1)), max);
    assert_eq!(bin(SatSub, &RATE, &b(64, 5), &b(64, 9)), b(64, 0));
    assert_eq!(bin(SatAdd, &Q15, &q15(0xc000), &q15(0x8000)), q15(0xffff));
}

#[test]
fn shifts_by_any_amount() {
    use BinaryOp::*;
    let t16 = Type::Bits(16);
    let x = b(16, 0x8421);
    assert_eq!(bin(Shl, &t16, &x, &b(5, 4)), b(16, 0x4210));
    assert_eq!(bin(Shr, &t16, &x, &b(5, 4)), b(16, 0x0842));
    assert_eq!(bin(Shl, &t16, &x, &b(5, 15)), b(16, 0x8000));
    assert_eq!(bin(Shl, &t16, &x, &b(5, 16)), b(16, 0));
    assert_eq!(bin(Shr, &t16, &x, &b(5, 20)), b(16, 0));
    assert_eq!(bin(Shl, &t16, &x, &b(64, u64::MAX)), b(16, 0));
    let huge = Bits::ones(300);
    assert_eq!(bin(Shl, &t16, &x, &huge), b(16, 0));
    assert_eq!(
        bin(Shr, &t16, &x, &Bits::from_u64(300, 1).shl(299)),
        b(16, 0)
    );
    let i16 = Type::Int(16);
    assert_eq!(bin(Shr, &i16, &i(16, -5), &b(8, 1)), i(16, -3));
    assert_eq!(bin(Shr, &i16, &i(16, -5), &b(8, 15)), i(16, -1));
    assert_eq!(bin(Shr, &i16, &i(16, -5), &b(8, 200)), i(16, -1));
    assert_eq!(bin(Shr, &i16, &i(16, -5), &huge), i(16, -1));
    assert_eq!(bin(Shr, &i16, &i(16, 5), &huge), i(16, 0));
    assert_eq!(bin(Shl, &i16, &i(16, 0x4000), &b(8, 1)), i(16, -0x8000));
    let wide = Type::Bits(1024);
    let one = Bits::from_u64(1024, 1);
    assert!(bin(Shl, &wide, &one, &b(16, 1023)).bit(1023));
    assert!(bin(Shl, &wide, &one, &b(16, 1024)).is_zero());
    assert!(bin(Shl, &wide, &one, &b(64, 1 << 40)).is_zero());
}

#[test]
fn bitwise_concat_and_logic() {
    use BinaryOp::*;
    assert_eq!(bin(And, &B8, &b(8, 0xcc), &b(8, 0xaa)), b(8, 0x88));
    assert_eq!(bin(Or, &B8, &b(8, 0xcc), &b(8, 0xaa)), b(8, 0xee));
    assert_eq!(bin(Xor, &B8, &b(8, 0xcc), &b(8, 0xaa)), b(8, 0x66));
    assert_eq!(bin(Concat, &B8, &b(8, 0xab), &i(4, -1)), b(12, 0xabf));
    let key = bin(
        Concat,
        &Type::Bits(32),
        &b(32, 0x0a000001),
        &b(32, 0x0a000002),
    );
    assert_eq!(key, b(64, 0x0a00_0001_0a00_0002));
    let wide = bin(Concat, &Type::Bits(512), &Bits::ones(512), &b(8, 1));
    assert_eq!(wide.width(), 520);
    assert_eq!(wide.slice(519, 8), Bits::ones(512));
    assert_eq!(bin(LogicalAnd, &Type::Bool, &b(1, 1), &b(1, 0)), b(1, 0));
    assert_eq!(bin(LogicalAnd, &Type::Bool, &b(1, 1), &b(1, 1)), b(1, 1));
    assert_eq!(bin(LogicalOr, &Type::Bool, &b(1, 0), &b(1, 1)), b(1, 1));
    assert_eq!(bin(LogicalOr, &Type::Bool, &b(1, 0), &b(1, 0)), b(1, 0));
}

#[test]
fn comparisons() {
    use BinaryOp::*;
    let t = |op, ty: &Type, l: &Bits, r: &Bits| bin(op, ty, l, r) == b(1, 1);
    assert!(t(Lt, &I8, &i(8, -1), &i(8, 1)));
    assert!(!t(Lt, &B8, &b(8, 255), &b(8, 1)));
    assert!(t(Gt, &B8, &b(8, 255), &b(8, 1)));
    assert!(t(Le, &I8, &i(8, -128), &i(8, -128)));
    assert!(t(Ge, &I8, &i(8, 127), &i(8, -128)));
    assert!(t(Eq, &B8, &b(8, 7), &b(8, 7)));
    assert!(t(Ne, &B8, &b(8, 7), &b(8, 8)));
    assert!(!t(Ne, &B8, &b(8, 7), &b(8, 7)));
    assert!(t(Lt, &Q15, &q15(0x7fff), &q15(0x8000)));
    let (w, big) = (Type::Bits(200), Bits::ones(200));
    assert!(t(Gt, &w, &big, &Bits::from_u64(200, 1)));
    let (s, sbig) = (Type::Int(200), Bits::ones(200));
    assert!(t(Lt, &s, &sbig, &Bits::from_u64(200, 1)));
    assert_eq!(bin(Add, &B8, &b(8, 1), &b(8, 1)).width(), 8);
    assert_eq!(bin(Eq, &B8, &b(8, 1), &b(8, 1)).width(), 1);
    assert!(!compare(Add, &B8, &b(8, 1), &b(8, 1)));
}

#[test]
fn min_and_max() {
    assert_eq!(min(&I8, &i(8, -1), &i(8, 1)), i(8, -1));
    assert_eq!(max(&I8, &i(8, -1), &i(8, 1)), i(8, 1));
    assert_eq!(min(&B8, &b(8, 255), &b(8, 1)), b(8, 1));
    assert_eq!(max(&B8, &b(8, 255), &b(8, 1)), b(8, 255));
    assert_eq!(min(&RATE, &b(64, 200_000_000_000), &b(64, 1)), b(64, 1));
    assert_eq!(max(&Q15, &q15(0x8000), &q15(0x7fff)), q15(0x8000));
}

#[test]
fn dcqcn_alpha_update() {
    use BinaryOp::*;
    // const G: fixed<1,15> = 1 / 256 is exactly 128 · 2^-15; 1.0 is 0x8000.
    let g = q15(128);
    let one = q15(0x8000);
    let one_minus_g = bin(Sub, &Q15, &one, &g);
    assert_eq!(one_minus_g, q15(32640));
    // alpha = (1 - g) · alpha + g, with `*` on fixed<1,15> (== MulScaled(15)).
    let update = |alpha: &Bits| {
        let scaled = bin(Mul, &Q15, &one_minus_g, alpha);
        assert_eq!(scaled, bin(MulScaled(15), &Q15, &one_minus_g, alpha));
        bin(Add, &Q15, &scaled, &g)
    };
    assert_eq!(update(&one), one); // alpha = 1 is the fixed point
    assert_eq!(update(&q15(0x4000)), q15(16448)); // 0.5 → 0.5 + 1/512 exactly
    assert_eq!(update(&q15(0)), g);
    assert_eq!(update(&q15(1)), g); // 32640 · 2^-30 truncates to 0
                                    // Twenty updates from 0 approach 1 - (1 - g)^20 ≈ 0.0753 from below (truncation).
    let mut alpha = q15(0);
    for _ in 0..20 {
        alpha = update(&alpha);
    }
    let exact = 1.0 - (1.0 - 1.0 / 256.0f64).powi(20);
    let got = alpha.to_u64() as f64 / 32768.0;
    assert!(
        got <= exact && exact - got < 20.0 / 32768.0,
        "{got} vs {exact}"
    );
}

#[test]
fn rates_times_and_over_fixed() {
    use BinaryOp::*;
    let rate = b(64, 100_000_000_000);
    // rc = rc · (1 - alpha / 2), alpha = 0.501953125 (16448).
    let alpha = q15(16448);
    let half_alpha = bin(DivScaled(0), &Q15, &alpha, &b(8, 2));
    assert_eq!(half_alpha, q15(8224));
    assert_eq!(bin(Div, &Q15, &alpha, &q15(0x8000) /* 1.0 */), alpha);
    let factor = bin(Sub, &Q15, &q15(0x8000), &half_alpha);
    assert_eq!(factor, q15(24544));
    assert_eq!(
        bin(MulScaled(15), &RATE, &rate, &factor),
        b(64, 74_902_343_750)
    );
    assert_eq!(
        bin(MulScaled(15), &RATE, &rate, &q15(0x4000)),
        b(64, 50_000_000_000)
    );
    assert_eq!(bin(MulScaled(15), &RATE, &b(64, 1), &q15(0x4000)), b(64, 0));
    // (2^64 - 1) · 1.5 = 1.5 · 2^64 - 1.5: truncated, then wrapped to 2^63 - 2.
    assert_eq!(
        bin(MulScaled(15), &RATE, &Bits::ones(64), &q15(0xc000)),
        b(64, (1 << 63) - 2)
    );
    // rate / 2, rate * 5 (an integer right operand of any width).
    assert_eq!(
        bin(DivScaled(0), &RATE, &rate, &b(8, 2)),
        b(64, 50_000_000_000)
    );
    assert_eq!(bin(DivScaled(0), &RATE, &b(64, 7), &b(8, 2)), b(64, 3));
    assert_eq!(bin(DivScaled(0), &RATE, &rate, &b(8, 0)), b(64, 0));
    assert_eq!(
        bin(MulScaled(0), &RATE, &rate, &b(3, 5)),
        b(64, 500_000_000_000)
    );
    assert_eq!(bin(Div, &RATE, &rate, &b(64, 3)), b(64, 33_333_333_333));
    // fixed / fixed and fixed * integer.
    assert_eq!(bin(Div, &Q15, &q15(0x4000), &q15(0xc000)), q15(10922)); // 0.5 / 1.5
    assert_eq!(bin(Div, &Q15, &q15(0xc000), &q15(0x4000)), q15(0x8000)); // 3 wraps to 1
    assert_eq!(bin(Div, &Q15, &q15(0xc000), &q15(0)), q15(0));
    let q412 = Type::Fixed { int: 4, frac: 12 };
    assert_eq!(
        bin(Div, &q412, &b(16, 3 << 12), &b(16, 1 << 11)),
        b(16, 6 << 12)
    );
    assert_eq!(bin(MulScaled(0), &Q15, &q15(0x4000), &b(2, 3)), q15(0xc000));
    assert_eq!(bin(Mul, &Q15, &q15(0xc000), &q15(0xc000)), q15(0x2000)); // 2.25 wraps to 0.25
    assert_eq!(unary(UnaryOp::Neg, &Q15, &q15(0x4000)), q15(0xc000)); // 0 - 0.5 wraps to 1.5
                                                                      // Signed scaled operations truncate toward zero.
    let i16 = Type::Int(16);
    assert_eq!(
        bin(MulScaled(15), &i16, &i(16, -3), &q15(0x4000)),
        i(16, -1)
    );
    assert_eq!(bin(DivScaled(0), &i16, &i(16, -7), &b(8, 2)), i(16, -3));
}

#[test]
fn casts() {
    let c = |v: &Bits, from: &Type, to: &Type| cast(v, from, to, &no_enums);
    let (b16, i16) = (Type::Bits(16), Type::Int(16));
    assert_eq!(c(&b(16, 0x1234), &b16, &B8), b(8, 0x34));
    assert_eq!(c(&b(8, 0xff), &B8, &b16), b(16, 0xff));
    assert_eq!(c(&i(8, -1), &I8, &i16), i(16, -1));
    assert_eq!(c(&i(8, -1), &I8, &b16), b(16, 0xffff));
    assert_eq!(c(&i(16, -2), &i16, &I8), i(8, -2));
    assert_eq!(c(&b(8, 0xff), &B8, &I8), i(8, -1));
    assert_eq!(c(&b(8, 0xff), &B8, &i16), i(16, 255));
    assert_eq!(c(&i(8, -1), &I8, &B8), b(8, 0xff));
    assert_eq!(c(&b(1, 1), &Type::Bool, &Type::Bits(1)), b(1, 1));
    assert_eq!(c(&b(1, 1), &Type::Bits(1), &Type::Bool), b(1, 1));
    assert_eq!(c(&b(64, 12345), &RATE, &Type::Bits(64)), b(64, 12345));
    assert_eq!(c(&b(64, 12345), &Type::Bits(64), &RATE), b(64, 12345));
    assert_eq!(c(&b(8, 9), &B8, &B8), b(8, 9));
    let (q44, q016, q08) = (
        Type::Fixed { int: 4, frac: 4 },
        Type::Fixed { int: 0, frac: 16 },
        Type::Fixed { int: 0, frac: 8 },
    );
    assert_eq!(c(&q15(0xc000), &Q15, &q44), b(8, 24)); // 1.5
    assert_eq!(c(&b(8, 255), &q44, &Q15), q15(63488)); // 15.9375 → 1.9375
    assert_eq!(c(&b(16, 0x01ff), &q016, &q08), b(8, 0x01)); // truncated toward zero
    assert_eq!(c(&b(8, 60), &q44, &B8), b(8, 3)); // 3.75 → 3
    assert_eq!(c(&b(8, 0xf0), &q44, &Type::Bits(2)), b(2, 3)); // 15 wraps to 3
    assert_eq!(c(&b(8, 5), &B8, &Type::Fixed { int: 2, frac: 6 }), b(8, 64)); // 5 mod 4 = 1
    assert_eq!(c(&b(8, 3), &B8, &Q15), q15(0x8000)); // 3 mod 2 = 1
    let fx64 = Type::Fixed { int: 32, frac: 32 };
    assert_eq!(c(&Bits::ones(64), &fx64, &Q15), q15(0xffff));
    let e = Type::Enum(EnumId::new(0));
    assert_eq!(cast(&b(2, 3), &e, &Type::Bits(4), &|_| 2), b(4, 3));
    struct Repr;
    impl EnumInfo for Repr {
        fn enum_width(&self, _: EnumId) -> u32 {
            2
        }
        fn enum_value(&self, _: EnumId, stored: &Bits) -> Bits {
            Bits::from_u64(8, 10 + stored.to_u64())
        }
    }
    assert_eq!(cast(&b(2, 1), &e, &B8, &Repr), b(8, 11));
    assert_eq!(cast(&b(8, 1), &B8, &Type::Unit, &Repr), b(8, 1));
}

const SPEED_N: u32 = 20_000_000;

/// Times `f`, consuming each result as a u64 (summed) so no `Bits` is copied between iterations;
/// prints the best of five rounds (the machine may be shared).
#[inline(always)]
fn time(name: &str, mut f: impl FnMut(u32) -> Bits) {
    use std::time::Instant;
    let (mut best, mut acc) = (f64::MAX, 0u64);
    for _ in 0..5 {
        let start = Instant::now();
        for k in 0..SPEED_N / 5 {
            acc = acc.wrapping_add(f(k).to_u64());
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / f64::from(SPEED_N / 5));
    }
    println!(
        "{name:<44} {best:6.2} ns/op ({:x})",
        std::hint::black_box(acc)
    );
}

/// Times a chain of dependent operations, each result moved into the accumulator.
fn chain(name: &str, op: BinaryOp, ty: &Type, w: u32) {
    use std::time::Instant;
    let mut best = f64::MAX;
    let mut acc = Bits::from_u64(w, 1);
    let step = std::hint::black_box(Bits::from_u64(w, 0x9e37_79b9));
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..SPEED_N / 5 {
            acc = binary(op, ty, &acc, &step);
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / f64::from(SPEED_N / 5));
    }
    println!("{name:<44} {best:6.2} ns/op ({acc:?})");
}

/// Rough timings of the operators; run with
/// `cargo test --release -p scenic-ir --lib interp::ops::tests::speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed_of_operators() {
    use std::hint::black_box;
    let (t32, t16, i16t, t512) = (
        Type::Bits(32),
        Type::Bits(16),
        Type::Int(16),
        Type::Bits(512),
    );
    chain("chained binary(Add, bit<64>)", BinaryOp::Add, &RATE, 64);
    chain("chained binary(Xor, bit<32>)", BinaryOp::Xor, &t32, 32);
    let (x, y) = (b(32, 0x0a00_0001), b(32, 0x0a00_0002));
    let (p, q) = (b(64, 1 << 40), b(64, 12345));
    let (m3, p2, three, factor) = (i(16, -3), i(16, 2), b(5, 3), q15(24544));
    time("baseline (clone of a bit<32>)", |_| black_box(&x).clone());
    time("Bits::wrapping_add bit<32>", |k| {
        black_box(&x).wrapping_add(&Bits::from_u64(32, u64::from(k)))
    });
    let op = |name: &str, op: BinaryOp, ty: &Type, l: &Bits, r: &Bits| {
        time(name, |_| binary(op, ty, black_box(l), black_box(r)));
    };
    op("binary(Add, bit<64>)", BinaryOp::Add, &RATE, &p, &q);
    op("binary(Lt, bit<32>)", BinaryOp::Lt, &t32, &x, &y);
    op("binary(Eq, bit<32>)", BinaryOp::Eq, &t32, &x, &y);
    op("binary(Lt, int<16>)", BinaryOp::Lt, &i16t, &m3, &p2);
    op("binary(Mul, bit<64>)", BinaryOp::Mul, &RATE, &p, &q);
    op("binary(Div, bit<64>)", BinaryOp::Div, &RATE, &p, &q);
    op("binary(Shr, bit<32>)", BinaryOp::Shr, &t32, &x, &three);
    op(
        "binary(MulScaled(15), rate, fixed<1,15>)",
        BinaryOp::MulScaled(15),
        &RATE,
        &p,
        &factor,
    );
    op(
        "binary(Add, bit<512>) (heap)",
        BinaryOp::Add,
        &t512,
        &Bits::ones(512),
        &Bits::ones(512),
    );
    time("cast(bit<32> -> bit<16>)", |_| {
        cast(black_box(&x), &t32, &t16, &no_enums)
    });
    time("cast(fixed<1,15> -> bit<8>)", |_| {
        cast(black_box(&factor), &Q15, &B8, &no_enums)
    });
}

/// Rough timings of header field access and hashes (see [`speed_of_operators`]).
#[test]
#[ignore]
fn speed_of_fields_and_hashes() {
    use crate::proc::bits::{read_bits, write_bits};
    use crate::proc::intrinsics;
    use std::hint::black_box;
    let packet = [0x45u8; 64];
    time("read_bits(16 bits at byte 12)", |_| {
        read_bits(black_box(&packet), 96, 16)
    });
    time("read_bits(13 bits at bit 51)", |_| {
        read_bits(black_box(&packet), 51, 13)
    });
    time("read_bits(128 bits at byte 8)", |_| {
        read_bits(black_box(&packet), 64, 128)
    });
    let mut out = [0u8; 64];
    let ttl = b(8, 63);
    time("write_bits(8 bits at byte 22)", |_| {
        write_bits(black_box(&mut out), 176, black_box(&ttl));
        Bits::zero(1)
    });
    let key = b(32, 0x0a00_0001)
        .concat(&b(32, 0x0a00_0002))
        .concat(&b(8, 6))
        .concat(&b(32, 0x1234_5678));
    let key_ty = Type::Bits(104);
    let one_key = std::slice::from_ref(&key);
    time("crc32 of a bit<104> 5-tuple", |_| {
        intrinsics::call(Intrinsic::Crc32, &key_ty, black_box(one_key))
    });
    let rss = [key.slice(95, 0), Bits::ones(320)];
    time("toeplitz of a bit<96> 4-tuple, 320-bit key", |_| {
        intrinsics::call(Intrinsic::Toeplitz, &key_ty, black_box(&rss))
    });
}
