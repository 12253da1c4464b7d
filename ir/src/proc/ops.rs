//! The IR's operators and casts on typed values: [`unary`], [`binary`], [`cast`], [`min`], [`max`].
//!
//! Values are [`Bits`]; the operand [`Type`] decides how the pattern is read: `int<N>` is two's
//! complement (signed division, comparisons, saturation and `>>`), `fixed<I,F>` is an unsigned
//! pattern scaled by 2^-F, and everything else (bit, bool, units, enums) is unsigned. Every result
//! wraps to its width, as `docs/language.md` §4 defines.
//!
//! Preconditions (guaranteed by a validated program): operands of a binary operator have the width
//! of the operand type, except where [`BinaryOp`] says otherwise (shift amounts, `++`, the right
//! operand of `MulScaled`/`DivScaled`). Nothing here panics when they do not hold; the results are
//! then unspecified but of the left operand's width.

use super::bits::Bits;
use crate::body::{BinaryOp, UnaryOp};
use crate::entities::EnumId;
use crate::types::Type;
use std::cmp::Ordering;

/// What casts need to know about enums, so this module does not need the `Module`.
///
/// Any `Fn(EnumId) -> u32` returning the enum's width is an `EnumInfo` whose stored values are
/// the values `enum as bit<N>` yields.
pub trait EnumInfo {
    /// The width of an enum's stored value ([`crate::program::EnumDef::width`]).
    fn enum_width(&self, e: EnumId) -> u32;

    /// The value `e as bit<N>` converts from (before resizing to N), given the stored value. By
    /// default the stored value itself; override it if values are stored as variant numbers while
    /// the representation differs.
    fn enum_value(&self, e: EnumId, stored: &Bits) -> Bits {
        let _ = e;
        stored.clone()
    }
}

/// A module knows its enums' widths (8 bits for an id it does not hold, which a validated module
/// never asks about).
impl EnumInfo for crate::program::Module {
    fn enum_width(&self, e: EnumId) -> u32 {
        self.enums.get(e).map_or(8, |d| d.width)
    }
}

impl<F: Fn(EnumId) -> u32> EnumInfo for F {
    fn enum_width(&self, e: EnumId) -> u32 {
        self(e)
    }
}

/// A prefix operator on a value of type `ty`: `Neg` is wrapping two's complement negation (for
/// fixed values `0 - x`, wrapped), `BitNot` flips every bit, `Not` is the logical not of a bool (a
/// 1-bit result: 1 when the operand is zero).
#[inline]
pub fn unary(op: UnaryOp, ty: &Type, value: &Bits) -> Bits {
    let _ = ty;
    match op {
        UnaryOp::Neg => value.wrapping_neg(),
        UnaryOp::BitNot => value.bit_not(),
        UnaryOp::Not => Bits::from_bool(value.is_zero()),
    }
}

/// A binary operator; `ty` is the type of `lhs` (and of `rhs`, unless [`BinaryOp`] says otherwise).
///
/// The result has `lhs`'s width, except comparisons and `LogicalAnd`/`LogicalOr` (1 bit) and
/// `Concat` (the sum of the widths). `Mul` and `Div` on a `fixed<I,F>` type are the fixed-point
/// product and quotient (the same as `MulScaled(F)` and `DivScaled(F)`). `LogicalAnd` and
/// `LogicalOr` evaluate nothing: short-circuiting is the caller's business.
#[inline]
pub fn binary(op: BinaryOp, ty: &Type, lhs: &Bits, rhs: &Bits) -> Bits {
    kernel(op, ty).apply(lhs, rhs)
}

/// A binary operator resolved for its operand type: what [`binary`] computes, with the type's
/// part of the decision (signed or not, fixed-point or not) taken once. The interpreter resolves
/// each operator when it compiles a body; [`binary`] resolves it on every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Wrapping `+`.
    Add,
    /// Wrapping `-`.
    Sub,
    /// `|+|` on `int`.
    SatAddSigned,
    /// `|+|` otherwise.
    SatAdd,
    /// `|-|` on `int`.
    SatSubSigned,
    /// `|-|` otherwise.
    SatSub,
    /// Wrapping `*` on integers.
    Mul,
    /// `/` on `int`.
    DivSigned,
    /// `/` otherwise.
    Div,
    /// `%` on `int`.
    RemSigned,
    /// `%` otherwise.
    Rem,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<`.
    Shl,
    /// `>>` on `int`.
    ShrSigned,
    /// `>>` otherwise.
    Shr,
    /// `++`.
    Concat,
    /// A comparison (`op` is `Eq` ..= `Ge`), signed for `int`.
    Compare {
        /// The comparison.
        op: BinaryOp,
        /// Whether the operands are read as two's complement.
        signed: bool,
    },
    /// `&&` of two evaluated operands.
    LogicalAnd,
    /// `||` of two evaluated operands.
    LogicalOr,
    /// Fixed-point product ([`mul_scaled`]).
    MulScaled {
        /// Whether `lhs` is an `int`.
        signed: bool,
        /// Fraction bits of `rhs`.
        frac: u32,
    },
    /// Fixed-point quotient ([`div_scaled`]).
    DivScaled {
        /// Whether `lhs` is an `int`.
        signed: bool,
        /// Fraction bits.
        frac: u32,
    },
}

/// Resolves `op` on operands of type `ty` (see [`binary`]).
pub fn kernel(op: BinaryOp, ty: &Type) -> Kernel {
    let signed = ty.is_signed();
    let fixed = match ty {
        Type::Fixed { frac, .. } => Some(*frac),
        _ => None,
    };
    match op {
        BinaryOp::Add => Kernel::Add,
        BinaryOp::Sub => Kernel::Sub,
        BinaryOp::SatAdd if signed => Kernel::SatAddSigned,
        BinaryOp::SatAdd => Kernel::SatAdd,
        BinaryOp::SatSub if signed => Kernel::SatSubSigned,
        BinaryOp::SatSub => Kernel::SatSub,
        BinaryOp::Mul => match fixed {
            Some(frac) => Kernel::MulScaled { signed, frac },
            None => Kernel::Mul,
        },
        BinaryOp::Div => match fixed {
            Some(frac) => Kernel::DivScaled { signed, frac },
            None if signed => Kernel::DivSigned,
            None => Kernel::Div,
        },
        BinaryOp::Rem if signed => Kernel::RemSigned,
        BinaryOp::Rem => Kernel::Rem,
        BinaryOp::And => Kernel::And,
        BinaryOp::Or => Kernel::Or,
        BinaryOp::Xor => Kernel::Xor,
        BinaryOp::Shl => Kernel::Shl,
        BinaryOp::Shr if signed => Kernel::ShrSigned,
        BinaryOp::Shr => Kernel::Shr,
        BinaryOp::Concat => Kernel::Concat,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            Kernel::Compare { op, signed }
        }
        BinaryOp::LogicalAnd => Kernel::LogicalAnd,
        BinaryOp::LogicalOr => Kernel::LogicalOr,
        BinaryOp::MulScaled(frac) => Kernel::MulScaled { signed, frac },
        BinaryOp::DivScaled(frac) => Kernel::DivScaled { signed, frac },
    }
}

impl Kernel {
    /// The operator on two values.
    #[inline]
    pub fn apply(self, lhs: &Bits, rhs: &Bits) -> Bits {
        match self {
            Kernel::Add => lhs.wrapping_add(rhs),
            Kernel::Sub => lhs.wrapping_sub(rhs),
            Kernel::SatAddSigned => lhs.sadd_sat(rhs),
            Kernel::SatAdd => lhs.uadd_sat(rhs),
            Kernel::SatSubSigned => lhs.ssub_sat(rhs),
            Kernel::SatSub => lhs.usub_sat(rhs),
            Kernel::Mul => lhs.wrapping_mul(rhs),
            Kernel::DivSigned => lhs.sdiv(rhs),
            Kernel::Div => lhs.udiv(rhs),
            Kernel::RemSigned => lhs.srem(rhs),
            Kernel::Rem => lhs.urem(rhs),
            Kernel::And => lhs.bit_and(rhs),
            Kernel::Or => lhs.bit_or(rhs),
            Kernel::Xor => lhs.bit_xor(rhs),
            Kernel::Shl => lhs.shl(rhs.to_u32_saturating()),
            Kernel::ShrSigned => lhs.ashr(rhs.to_u32_saturating()),
            Kernel::Shr => lhs.lshr(rhs.to_u32_saturating()),
            Kernel::Concat => lhs.concat(rhs),
            Kernel::Compare { op, signed } => {
                let ord = if signed { lhs.scmp(rhs) } else { lhs.ucmp(rhs) };
                Bits::from_bool(holds(op, ord))
            }
            Kernel::LogicalAnd => Bits::from_bool(!lhs.is_zero() && !rhs.is_zero()),
            Kernel::LogicalOr => Bits::from_bool(!lhs.is_zero() || !rhs.is_zero()),
            Kernel::MulScaled { signed, frac } => mul_scaled_as(signed, lhs, rhs, frac),
            Kernel::DivScaled { signed, frac } => div_scaled_as(signed, lhs, rhs, frac),
        }
    }
}

/// Whether comparison `op` holds for two values in order `ord` (false for other operators).
#[inline]
fn holds(op: BinaryOp, ord: Ordering) -> bool {
    match op {
        BinaryOp::Eq => ord == Ordering::Equal,
        BinaryOp::Ne => ord != Ordering::Equal,
        BinaryOp::Lt => ord == Ordering::Less,
        BinaryOp::Le => ord != Ordering::Greater,
        BinaryOp::Gt => ord == Ordering::Greater,
        BinaryOp::Ge => ord != Ordering::Less,
        _ => false,
    }
}

/// The order of two values of type `ty` (signed for `int<N>`, unsigned otherwise).
#[inline]
pub fn order(ty: &Type, lhs: &Bits, rhs: &Bits) -> Ordering {
    if ty.is_signed() {
        lhs.scmp(rhs)
    } else {
        lhs.ucmp(rhs)
    }
}

/// A comparison operator (`Eq`, `Ne`, `Lt`, `Le`, `Gt`, `Ge`) as a `bool`; any other operator
/// gives `false`.
#[inline]
pub fn compare(op: BinaryOp, ty: &Type, lhs: &Bits, rhs: &Bits) -> bool {
    holds(op, order(ty, lhs, rhs))
}

/// `min(a, b)` for two values of type `ty` (signed for `int<N>`).
#[inline]
pub fn min(ty: &Type, a: &Bits, b: &Bits) -> Bits {
    if order(ty, b, a) == Ordering::Less {
        b.clone()
    } else {
        a.clone()
    }
}

/// `max(a, b)` for two values of type `ty` (signed for `int<N>`).
#[inline]
pub fn max(ty: &Type, a: &Bits, b: &Bits) -> Bits {
    if order(ty, b, a) == Ordering::Greater {
        b.clone()
    } else {
        a.clone()
    }
}

/// `MulScaled(frac)`: `(lhs * rhs) >> frac`, computed exactly, truncated toward zero and wrapped to
/// `lhs`'s width. `ty` is `lhs`'s type; `rhs` (any width) is unsigned. For a signed `lhs` the
/// magnitude is scaled and the sign restored, so the truncation is toward zero too.
pub fn mul_scaled(ty: &Type, lhs: &Bits, rhs: &Bits, frac: u32) -> Bits {
    mul_scaled_as(ty.is_signed(), lhs, rhs, frac)
}

/// [`mul_scaled`] with `lhs`'s signedness given.
fn mul_scaled_as(signed: bool, lhs: &Bits, rhs: &Bits, frac: u32) -> Bits {
    let lw = lhs.width();
    let neg = signed && lhs.is_negative();
    let full = lw.saturating_add(rhs.width());
    if full <= 128 {
        // The exact product fits a u128.
        let mag = magnitude(lhs, neg);
        let scaled = mag
            .wrapping_mul(rhs.to_u128())
            .checked_shr(frac)
            .unwrap_or(0);
        return Bits::from_u128(lw, restore_sign(scaled, neg));
    }
    let mag = if neg { lhs.wrapping_neg() } else { lhs.clone() };
    let product = mag
        .zext(full)
        .wrapping_mul(&rhs.zext(full))
        .lshr(frac)
        .trunc(lw);
    if neg {
        product.wrapping_neg()
    } else {
        product
    }
}

/// The magnitude of a value of at most 128 bits, negated first when `neg`.
#[inline]
fn magnitude(v: &Bits, neg: bool) -> u128 {
    if neg {
        Bits::from_u128(v.width(), v.to_u128().wrapping_neg()).to_u128()
    } else {
        v.to_u128()
    }
}

/// `mag` negated (two's complement, wrapped later to the result width) when `neg`.
#[inline]
fn restore_sign(mag: u128, neg: bool) -> u128 {
    if neg {
        mag.wrapping_neg()
    } else {
        mag
    }
}

/// `DivScaled(frac)`: `(lhs << frac) / rhs`, computed exactly, truncated toward zero and wrapped to
/// `lhs`'s width; division by zero gives 0. `ty` is `lhs`'s type; `rhs` (any width) is unsigned;
/// a signed `lhs` divides its magnitude, as in [`mul_scaled`].
pub fn div_scaled(ty: &Type, lhs: &Bits, rhs: &Bits, frac: u32) -> Bits {
    div_scaled_as(ty.is_signed(), lhs, rhs, frac)
}

/// [`div_scaled`] with `lhs`'s signedness given.
fn div_scaled_as(signed: bool, lhs: &Bits, rhs: &Bits, frac: u32) -> Bits {
    let lw = lhs.width();
    let neg = signed && lhs.is_negative();
    let w = lw.saturating_add(frac).max(rhs.width());
    if w <= 128 {
        // The shifted dividend fits a u128.
        let num = magnitude(lhs, neg).checked_shl(frac).unwrap_or(0);
        let quotient = num.checked_div(rhs.to_u128()).unwrap_or(0);
        return Bits::from_u128(lw, restore_sign(quotient, neg));
    }
    let mag = if neg { lhs.wrapping_neg() } else { lhs.clone() };
    let quotient = mag.zext(w).shl(frac).udiv(&rhs.zext(w)).trunc(lw);
    if neg {
        quotient.wrapping_neg()
    } else {
        quotient
    }
}

/// `value as to`, where `value` has type `from` (`docs/language.md` §4.9):
///
/// - `fixed<I,F>` → `fixed<J,G>`: the fraction truncated toward zero, the integer part wrapped;
/// - `fixed<I,F>` → an integer type: the integer part, wrapped;
/// - an integer type → `fixed<I,F>`: the integer value, wrapped modulo 2^I;
/// - otherwise the pattern is sign-extended (from `int<N>`) or zero-extended (from anything else)
///   or truncated to the target's width: bit↔bit, int↔int, bit↔int, bool↔`bit<1>` (a wider value
///   cast to `bool` keeps its low bit), units ↔ `bit<64>`, enum → bit (through
///   [`EnumInfo::enum_value`]).
///
/// A cast to a non-scalar type returns the value unchanged.
#[inline]
pub fn cast(value: &Bits, from: &Type, to: &Type, enums: &impl EnumInfo) -> Bits {
    cast_plan(from, to).apply(value, from, to, enums)
}

/// How [`cast`] converts between two types, decided once: the common cases need only a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastPlan {
    /// Zero-extend or truncate to this width.
    Resize(u32),
    /// Sign-extend or truncate to this width.
    Sext(u32),
    /// `fixed<_,frac>` to `bit<n>`.
    FixedToBits {
        /// Fraction bits of the source.
        frac: u32,
        /// The target width.
        n: u32,
    },
    /// `bit<_>` to `fixed<int,frac>`.
    BitsToFixed {
        /// Integer bits of the target.
        int: u32,
        /// Fraction bits of the target.
        frac: u32,
    },
    /// Anything else (fixed-point, enum, bool and unit types).
    General,
}

/// Resolves a cast from `from` to `to` (see [`cast`]).
pub fn cast_plan(from: &Type, to: &Type) -> CastPlan {
    match (from, to) {
        (Type::Bits(_) | Type::Bool | Type::Quantity(_), Type::Bits(n) | Type::Int(n)) => {
            CastPlan::Resize(*n)
        }
        (Type::Int(_), Type::Bits(n) | Type::Int(n)) => CastPlan::Sext(*n),
        (Type::Fixed { frac, .. }, Type::Bits(n)) => CastPlan::FixedToBits { frac: *frac, n: *n },
        (Type::Bits(_), Type::Fixed { int, frac }) => CastPlan::BitsToFixed {
            int: *int,
            frac: *frac,
        },
        _ => CastPlan::General,
    }
}

impl CastPlan {
    /// The cast of `value` (of type `from`, to type `to`: the types this plan was made for).
    #[inline]
    pub fn apply(self, value: &Bits, from: &Type, to: &Type, enums: &impl EnumInfo) -> Bits {
        match self {
            CastPlan::Resize(n) => value.resize(n),
            CastPlan::Sext(n) => value.sext(n),
            CastPlan::FixedToBits { frac, n } if value.width() <= 128 => {
                Bits::from_u128(n, value.to_u128().checked_shr(frac).unwrap_or(0))
            }
            CastPlan::BitsToFixed { int, frac } if value.width() <= 128 => {
                // (v << frac) mod 2^(int+frac) == (v mod 2^int) << frac
                let shifted = value.to_u128().checked_shl(frac).unwrap_or(0);
                Bits::from_u128(int.saturating_add(frac), shifted)
            }
            _ => cast_general(value, from, to, enums),
        }
    }
}

/// [`cast`] from or to fixed-point, enum, bool and unit types.
fn cast_general(value: &Bits, from: &Type, to: &Type, enums: &impl EnumInfo) -> Bits {
    let Some(to_w) = to.scalar_width(|e| enums.enum_width(e)) else {
        return value.clone();
    };
    if let (Type::Fixed { frac: f, .. }, Type::Fixed { frac: g, .. }) = (from, to) {
        // (k·2^(g-f)) mod 2^to_w: the bits that shift past to_w are dropped either way.
        return if g >= f {
            value.resize(to_w).shl(g - f)
        } else {
            value.lshr(f - g).resize(to_w)
        };
    }
    let resized = match from {
        Type::Fixed { frac, .. } => value.lshr(*frac).resize(to_w),
        Type::Enum(e) => enums.enum_value(*e, value).resize(to_w),
        Type::Int(_) => value.sext(to_w),
        _ => value.resize(to_w),
    };
    match to {
        Type::Fixed { frac, .. } => resized.shl(*frac),
        _ => resized,
    }
}

#[cfg(test)]
mod tests;
