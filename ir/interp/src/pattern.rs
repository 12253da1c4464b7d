//! Patterns of `match` statements and parser selects: whether a value matches one.
//!
//! The scalar case is [`scenic_ir::proc::pattern::scalar_matches`], shared with constant folding so
//! that a folded `match` takes the arm the interpreter would; this module adds tuples and the
//! pre-sized patterns the compiled code tests.

use super::value::Value;
use scenic_ir::body::Pattern;
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::pattern::scalar_matches;
use scenic_ir::types::Type;
use std::cmp::Ordering;

/// Whether `pattern` matches `value`, a value of type `ty` (a scalar, or a tuple matched
/// element-wise).
pub fn matches(pattern: &Pattern, ty: &Type, value: &Value) -> bool {
    match (pattern, ty, value) {
        (Pattern::Any, _, _) => true,
        (Pattern::Tuple(ps), Type::Tuple(tys), Value::Tuple(vs)) => ps
            .iter()
            .zip(tys)
            .zip(vs)
            .all(|((p, t), v)| matches(p, t, v)),
        (_, _, Value::Bits(b)) => scalar_matches(pattern, ty.is_signed(), b),
        _ => false,
    }
}

/// What a compiled scalar pattern tests, its constants already at the scrutinee's width.
#[derive(Clone, Debug)]
enum Test {
    Any,
    Equal(Bits),
    /// `x & mask == value` (the value already masked).
    Mask(Bits, Bits),
    Range(Bits, Bits),
    Never,
}

/// A pattern compiled for scrutinees of one scalar type: [`scalar_matches`] with the constants
/// converted once. A value of another width (which a validated program never has) is matched by
/// [`scalar_matches`] itself.
#[derive(Clone, Debug)]
pub struct Compiled {
    source: Pattern,
    width: u32,
    signed: bool,
    test: Test,
}

impl Compiled {
    /// `pattern` for scrutinees of width `width`, signed or not.
    pub fn new(pattern: &Pattern, width: u32, signed: bool) -> Compiled {
        let constant = |c: &scenic_ir::types::Const| Bits::from_biguint(width, &c.0);
        let test = match pattern {
            Pattern::Any => Test::Any,
            Pattern::Value(c) => Test::Equal(constant(c)),
            Pattern::Mask(v, m) => {
                let m = constant(m);
                Test::Mask(constant(v).bit_and(&m), m)
            }
            Pattern::Range(lo, hi) => Test::Range(constant(lo), constant(hi)),
            Pattern::Tuple(_) => Test::Never,
        };
        Compiled {
            source: pattern.clone(),
            width,
            signed,
            test,
        }
    }

    /// Whether the pattern matches `value`.
    #[inline]
    pub fn matches(&self, value: &Bits) -> bool {
        if value.width() != self.width {
            return scalar_matches(&self.source, self.signed, value);
        }
        let order = |a: &Bits, b: &Bits| {
            if self.signed {
                a.scmp(b)
            } else {
                a.ucmp(b)
            }
        };
        match &self.test {
            Test::Any => true,
            Test::Equal(c) => value == c,
            Test::Mask(v, m) => value.bit_and(m) == *v,
            Test::Range(lo, hi) => {
                order(value, lo) != Ordering::Less && order(value, hi) != Ordering::Greater
            }
            Test::Never => false,
        }
    }
}

/// A compiled pattern on an unsigned scalar of at most 64 bits held as a `u64` (see
/// `compile/narrow.rs`): what [`Compiled::matches`] decides, on the plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowTest {
    /// `_`.
    Any,
    /// The bits under the mask (second) equal the value (first, already masked); a constant is
    /// the mask of all the width's bits.
    Mask(u64, u64),
    /// From the first to the second, inclusive, unsigned.
    Range(u64, u64),
    /// A tuple pattern, which no scalar matches.
    Never,
}

impl NarrowTest {
    /// `pattern` on an unsigned value of `width` bits (1 to 64), constants truncated to the width
    /// as [`Compiled::new`] does.
    pub fn new(pattern: &Pattern, width: u32) -> NarrowTest {
        let constant = |c: &scenic_ir::types::Const| Bits::from_biguint(width, &c.0).to_u64();
        let all = Bits::ones(width).to_u64();
        match pattern {
            Pattern::Any => NarrowTest::Any,
            Pattern::Value(c) => NarrowTest::Mask(constant(c), all),
            Pattern::Mask(v, m) => {
                let m = constant(m);
                NarrowTest::Mask(constant(v) & m, m)
            }
            Pattern::Range(lo, hi) => NarrowTest::Range(constant(lo), constant(hi)),
            Pattern::Tuple(_) => NarrowTest::Never,
        }
    }

    /// Whether `value` matches.
    #[inline]
    pub fn matches(self, value: u64) -> bool {
        match self {
            NarrowTest::Any => true,
            NarrowTest::Mask(v, m) => value & m == v,
            NarrowTest::Range(lo, hi) => lo <= value && value <= hi,
            NarrowTest::Never => false,
        }
    }
}
