//! Scalar pattern matching: whether a value matches a `match` arm's or a select's pattern.
//!
//! This is the one definition of pattern matching on scalars: the interpreter uses it, and constant
//! folding calls [`scalar_matches`] so that a folded `match` takes the arm the interpreter would. A
//! range `lo..=hi` compares as the scrutinee's type reads its pattern: signed for `int<N>`, unsigned
//! otherwise (`docs/language.md` §5.4). Constants are the patterns of the scrutinee's width (an
//! `int` constant is its two's complement), so they are resized to the value's width first.

use super::bits::Bits;
use crate::body::Pattern;
use std::cmp::Ordering;

/// Whether `pattern` matches the scalar `value`; `signed` when the scrutinee is an `int<N>`. A
/// tuple pattern never matches a scalar.
pub fn scalar_matches(pattern: &Pattern, signed: bool, value: &Bits) -> bool {
    let constant = |c: &crate::types::Const| Bits::from_biguint(value.width(), &c.0);
    match pattern {
        Pattern::Any => true,
        Pattern::Value(c) => *value == constant(c),
        Pattern::Mask(v, m) => {
            let m = constant(m);
            value.bit_and(&m) == constant(v).bit_and(&m)
        }
        Pattern::Range(lo, hi) => {
            let order = |a: &Bits, b: &Bits| if signed { a.scmp(b) } else { a.ucmp(b) };
            order(value, &constant(lo)) != Ordering::Less
                && order(value, &constant(hi)) != Ordering::Greater
        }
        Pattern::Tuple(_) => false,
    }
}
