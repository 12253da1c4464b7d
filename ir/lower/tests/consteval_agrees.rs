//! The two constant arithmetics agree (issue 11: "one constant evaluator, or a property test proving
//! the two agree"): the frontend folds constants exactly, on rationals
//! (`scenic_frontend::consteval::binary`, docs/language.md §4.15), the interpreter computes on
//! fixed-width bits (`scenic_ir::proc::ops`, §4.3–§4.5). For every integer operator on `bit<N>` and
//! `int<N>` of several widths and 2,000 random operand pairs each (edges included: 0, 1, the
//! maximum, the minimum, −1), the exact result wrapped into the type the way §4.3 says the hardware
//! does (`consteval::wrap`) must be the interpreter's result, and comparisons must give the same
//! `bool`. So a constant the checker accepts (its exact value fits) has the value the program would
//! compute at run time.

use num_bigint::BigInt;
use num_rational::BigRational;
use scenic_frontend::ast::BinaryOp as F;
use scenic_frontend::consteval::{self, Value};
use scenic_frontend::types::Ty;
use scenic_ir::body::BinaryOp as I;
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::ops;
use scenic_ir::Type;

/// xorshift64*: deterministic operands.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const ARITHMETIC: &[(F, I)] = &[
    (F::Add, I::Add),
    (F::Sub, I::Sub),
    (F::Mul, I::Mul),
    (F::Div, I::Div),
    (F::Rem, I::Rem),
    (F::SatAdd, I::SatAdd),
    (F::SatSub, I::SatSub),
    (F::BitAnd, I::And),
    (F::BitOr, I::Or),
    (F::BitXor, I::Xor),
    (F::Shl, I::Shl),
    (F::Shr, I::Shr),
];

const COMPARISONS: &[(F, I)] = &[
    (F::Eq, I::Eq),
    (F::Ne, I::Ne),
    (F::Lt, I::Lt),
    (F::Le, I::Le),
    (F::Gt, I::Gt),
    (F::Ge, I::Ge),
];

/// A value of `width` bits as the type reads it (two's complement for `int<N>`).
fn value_of(bits: &Bits, signed: bool) -> i128 {
    if signed {
        bits.to_i128()
    } else {
        bits.to_u128() as i128
    }
}

/// A random operand: an edge value one time in four, else any value of the width.
fn operand(rng: &mut Rng, width: u32) -> Bits {
    let raw = match rng.next() % 8 {
        0 => 0,
        1 => 1,
        2 => u128::MAX,            // all ones: the maximum of bit<N>, −1 of int<N>
        3 => 1u128 << (width - 1), // the minimum of int<N>
        _ => (u128::from(rng.next()) << 64) | u128::from(rng.next()),
    };
    Bits::from_u128(width, raw)
}

fn exact(v: i128) -> Value {
    Value::Num(BigRational::from_integer(BigInt::from(v)))
}

fn check_pair(rng: &mut Rng, width: u32, signed: bool) {
    let (fty, ity) = if signed {
        (Ty::Int(width), Type::Int(width))
    } else {
        (Ty::Bit(width), Type::Bits(width))
    };
    let (a, b) = (operand(rng, width), operand(rng, width));
    let (x, y) = (value_of(&a, signed), value_of(&b, signed));
    for (f, i) in ARITHMETIC {
        // A shift amount is a `bit<M>` (§4.4): up to a few past the width.
        let (rhs, y) = if matches!(f, F::Shl | F::Shr) {
            let amount = rng.next() % u64::from(width + 3);
            (Bits::from_u64(8, amount), i128::from(amount))
        } else {
            (b.clone(), y)
        };
        let runtime = value_of(&ops::binary(*i, &ity, &a, &rhs), signed);
        let Some(Value::Num(folded)) = consteval::binary(*f, &fty, &exact(x), &exact(y)) else {
            panic!("{f:?} on {fty:?}: {x}, {y} does not fold");
        };
        let wrapped = consteval::wrap(folded.clone(), &fty);
        assert_eq!(
            wrapped,
            BigRational::from_integer(BigInt::from(runtime)),
            "{x} {f:?} {y} as {fty:?}: constant {folded} (wrapped {wrapped}), run time {runtime}"
        );
    }
    for (f, i) in COMPARISONS {
        let runtime = ops::compare(*i, &ity, &a, &b);
        let folded = consteval::binary(*f, &fty, &exact(x), &exact(y));
        assert_eq!(
            folded,
            Some(Value::Bool(runtime)),
            "{x} {f:?} {y} as {fty:?}"
        );
    }
}

#[test]
fn constant_folding_and_run_time_arithmetic_agree_on_every_integer_operator() {
    let mut rng = Rng(0x5eed_c0de_0011_0006);
    for width in [1, 7, 8, 13, 16, 32, 63, 64] {
        for signed in [false, true] {
            if signed && width == 1 {
                continue; // int<1> holds −1 and 0: covered by the wider widths' edges
            }
            for _ in 0..2_000 {
                check_pair(&mut rng, width, signed);
            }
        }
    }
}
