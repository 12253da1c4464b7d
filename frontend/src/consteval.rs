//! Constant values and the arithmetic the checker folds.
//!
//! Constants are exact (language.md §4.15): integers and fixed-point values are rationals
//! ([`BigRational`]), so `1/256` as a `fixed<1,15>` is exactly 2^-8. `+`, `-`, `*`, `/` and unary
//! `-` never wrap or truncate, typed or not ([`binary`], [`unary`]): `A * 2 / 4` with
//! `A: bit<8> = 200` is 100. Saturating operators clamp to their type's range, and division by zero
//! gives zero, as at run time. The checker converts the exact result with [`fit`] where the value is
//! used (and where a bit-level operator or a cast looks at its bits), refusing values the type cannot
//! hold (E0203).

use crate::ast::BinaryOp;
use crate::types::Ty;
use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// A constant value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Any number: integers, fixed-point values and quantities in base units.
    Num(BigRational),
    /// `true` / `false`.
    Bool(bool),
    /// An enum variant, by index.
    Variant(u32),
    /// A struct whose fields are all constants (a struct literal of constants, a `const` of struct
    /// type), its fields in declaration order.
    Struct(Vec<Value>),
    /// An array whose elements are all constants, element 0 first.
    Array(Vec<Value>),
}

impl Value {
    /// An integer value.
    pub fn int(v: impl Into<BigInt>) -> Value {
        Value::Num(BigRational::from_integer(v.into()))
    }

    /// The value as an exact integer, if it is one.
    pub fn as_int(&self) -> Option<BigInt> {
        match self {
            Value::Num(r) if r.is_integer() => Some(r.to_integer()),
            _ => None,
        }
    }

    /// The value as a `u64`, if it is a non-negative integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_int().and_then(|i| i.to_u64())
    }

    /// Whether the value is a struct or an array (lowered as a literal of its parts, not as one
    /// bit pattern).
    pub fn is_aggregate(&self) -> bool {
        matches!(self, Value::Struct(_) | Value::Array(_))
    }

    /// The value as a rational, if it is a number.
    pub fn as_num(&self) -> Option<&BigRational> {
        match self {
            Value::Num(r) => Some(r),
            _ => None,
        }
    }
}

/// `2^n` as a big integer.
pub fn pow2(n: u32) -> BigInt {
    BigInt::one() << n as usize
}

/// Why a constant does not fit a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FitError {
    /// An integer type needs a whole number.
    NotInteger,
    /// Outside the type's range `min..=max`.
    OutOfRange {
        /// Smallest value.
        min: Box<BigRational>,
        /// Largest value.
        max: Box<BigRational>,
    },
    /// Between two steps of a fixed-point type; `nearest` is the closest value it can hold.
    NotRepresentable {
        /// The closest representable value.
        nearest: Box<BigRational>,
    },
    /// The value is of another kind (a bool for a number, ...).
    WrongKind,
}

/// The range of an integer-like type, as `(min, max)`.
pub fn range_of(ty: &Ty) -> Option<(BigRational, BigRational)> {
    let int = |v: BigInt| BigRational::from_integer(v);
    Some(match ty {
        Ty::Bit(n) => (int(BigInt::zero()), int(pow2(*n) - 1)),
        Ty::Int(n) => (int(-pow2(n - 1)), int(pow2(n - 1) - 1)),
        Ty::Duration | Ty::Size | Ty::Rate => (int(BigInt::zero()), int(pow2(64) - 1)),
        Ty::Fixed(i, f) => (
            int(BigInt::zero()),
            BigRational::new(pow2(i + f) - 1, pow2(*f)),
        ),
        _ => return None,
    })
}

/// Converts an exact constant to `ty`, refusing values it cannot hold.
pub fn fit(value: &Value, ty: &Ty) -> Result<Value, FitError> {
    match (value, ty) {
        (Value::Bool(_), Ty::Bool) | (Value::Variant(_), Ty::Enum(_)) => Ok(value.clone()),
        (_, Ty::Error) => Ok(value.clone()),
        (Value::Num(r), Ty::Fixed(_, f)) => {
            let scaled = r * BigRational::from_integer(pow2(*f));
            if !scaled.is_integer() {
                let nearest = BigRational::new(scaled.round().to_integer(), pow2(*f));
                return Err(FitError::NotRepresentable {
                    nearest: Box::new(nearest),
                });
            }
            in_range(r, ty).map(|_| value.clone())
        }
        (Value::Num(r), _) if range_of(ty).is_some() => {
            if !r.is_integer() {
                return Err(FitError::NotInteger);
            }
            in_range(r, ty).map(|_| value.clone())
        }
        _ => Err(FitError::WrongKind),
    }
}

fn in_range(r: &BigRational, ty: &Ty) -> Result<(), FitError> {
    let Some((min, max)) = range_of(ty) else {
        return Err(FitError::WrongKind);
    };
    if r < &min || r > &max {
        return Err(FitError::OutOfRange {
            min: Box::new(min),
            max: Box::new(max),
        });
    }
    Ok(())
}

/// Wraps an exact result into `ty` the way the hardware does: modulo 2^N for integers and units,
/// truncation toward zero then modulo 2^I for fixed point.
pub fn wrap(r: BigRational, ty: &Ty) -> BigRational {
    match ty {
        Ty::Bit(n) => BigRational::from_integer(r.trunc().to_integer().mod_floor(&pow2(*n))),
        Ty::Duration | Ty::Size | Ty::Rate => {
            BigRational::from_integer(r.trunc().to_integer().mod_floor(&pow2(64)))
        }
        Ty::Int(n) => {
            let m = r.trunc().to_integer().mod_floor(&pow2(*n));
            let signed = if m >= pow2(n - 1) { m - pow2(*n) } else { m };
            BigRational::from_integer(signed)
        }
        Ty::Fixed(i, f) => {
            let steps = (r * BigRational::from_integer(pow2(*f)))
                .trunc()
                .to_integer();
            BigRational::new(steps.mod_floor(&pow2(i + f)), pow2(*f))
        }
        _ => r,
    }
}

fn saturate(r: BigRational, ty: &Ty) -> BigRational {
    match range_of(ty) {
        Some((min, max)) => r.max(min).min(max),
        None => r,
    }
}

/// Folds `a op b` for two constants of type `ty` (the result type for arithmetic, the operand type
/// for comparisons), exactly: only `|+|` and `|-|` look at `ty` (they clamp to its range), and the
/// bit-level operators, whose operands the checker has first made fit `ty`. `None` when the
/// operation does not apply to these values.
pub fn binary(op: BinaryOp, ty: &Ty, a: &Value, b: &Value) -> Option<Value> {
    use BinaryOp::*;
    if let (Value::Bool(x), Value::Bool(y)) = (a, b) {
        return Some(Value::Bool(match op {
            And => *x && *y,
            Or => *x || *y,
            Eq => x == y,
            Ne => x != y,
            BitAnd => *x & *y,
            BitOr => *x | *y,
            BitXor => *x ^ *y,
            _ => return None,
        }));
    }
    if let (Value::Variant(x), Value::Variant(y)) = (a, b) {
        return match op {
            Eq => Some(Value::Bool(x == y)),
            Ne => Some(Value::Bool(x != y)),
            _ => None,
        };
    }
    let (x, y) = (a.as_num()?, b.as_num()?);
    let result = match op {
        Eq => return Some(Value::Bool(x == y)),
        Ne => return Some(Value::Bool(x != y)),
        Lt => return Some(Value::Bool(x < y)),
        Le => return Some(Value::Bool(x <= y)),
        Gt => return Some(Value::Bool(x > y)),
        Ge => return Some(Value::Bool(x >= y)),
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        SatAdd => return Some(Value::Num(saturate(x + y, ty))),
        SatSub => return Some(Value::Num(saturate(x - y, ty))),
        Div if y.is_zero() => BigRational::zero(),
        Div => x / y,
        Rem if y.is_zero() => BigRational::zero(),
        Rem if x.is_integer() && y.is_integer() => {
            BigRational::from_integer(x.to_integer() % y.to_integer())
        }
        Rem => return None,
        Shl | Shr => return shift(op, ty, x, y),
        BitAnd | BitOr | BitXor => bitwise(op, ty, x, y)?,
        Concat | And | Or => return None,
    };
    Some(Value::Num(result))
}

fn shift(op: BinaryOp, ty: &Ty, x: &BigRational, y: &BigRational) -> Option<Value> {
    let amount = y.to_integer().to_u32().unwrap_or(u32::MAX);
    let value = x.to_integer();
    let width = ty.width().unwrap_or(u32::MAX);
    let result = if op == BinaryOp::Shl {
        if amount >= width {
            BigInt::zero()
        } else {
            value << amount as usize
        }
    } else if amount >= width {
        if value.is_negative() {
            -BigInt::one()
        } else {
            BigInt::zero()
        }
    } else {
        value >> amount as usize
    };
    Some(Value::Num(wrap(BigRational::from_integer(result), ty)))
}

fn bitwise(op: BinaryOp, ty: &Ty, x: &BigRational, y: &BigRational) -> Option<BigRational> {
    if !x.is_integer() || !y.is_integer() || matches!(ty, Ty::Fixed(..)) {
        return None;
    }
    let (x, y) = (x.to_integer(), y.to_integer());
    let r = match op {
        BinaryOp::BitAnd => x & y,
        BinaryOp::BitOr => x | y,
        _ => x ^ y,
    };
    Some(BigRational::from_integer(r))
}

/// `hi ++ lo` for constants whose widths are known.
pub fn concat(hi: &Value, lo: &Value, lo_width: u32) -> Option<Value> {
    let (h, l) = (hi.as_int()?, lo.as_int()?);
    Some(Value::int((h << lo_width as usize) | l))
}

/// `x[hi:lo]` of a constant.
pub fn slice(x: &Value, hi: u32, lo: u32) -> Option<Value> {
    let v = x.as_int()?;
    let width = hi.checked_sub(lo)? + 1;
    let v = if v.sign() == Sign::Minus {
        v.mod_floor(&pow2(hi + 1))
    } else {
        v
    };
    Some(Value::int((v >> lo as usize) & (pow2(width) - 1)))
}

/// `if cond { then } else { otherwise }` on constants: the taken branch's value. (The checker
/// asks for both branches to be constant, as every operand of a constant expression is.)
pub fn select(cond: &Value, then: &Value, otherwise: &Value) -> Option<Value> {
    match cond {
        Value::Bool(true) => Some(then.clone()),
        Value::Bool(false) => Some(otherwise.clone()),
        _ => None,
    }
}

/// Folds a prefix operator on a constant of type `ty`.
pub fn unary(op: crate::ast::UnaryOp, ty: &Ty, x: &Value) -> Option<Value> {
    use crate::ast::UnaryOp::*;
    match (op, x) {
        (Not, Value::Bool(b)) => Some(Value::Bool(!b)),
        (Neg, Value::Num(r)) => Some(Value::Num(-r.clone())),
        (BitNot, Value::Num(r)) if r.is_integer() => {
            let width = ty.width()?;
            let flipped = (pow2(width) - 1) ^ r.to_integer().mod_floor(&pow2(width));
            Some(Value::Num(wrap(BigRational::from_integer(flipped), ty)))
        }
        _ => None,
    }
}

/// Converts a constant for `value as target` (source type `from`).
pub fn cast(value: &Value, from: &Ty, target: &Ty) -> Option<Value> {
    match (value, target) {
        (Value::Bool(b), Ty::Bit(_)) => Some(Value::int(u8::from(*b))),
        (Value::Num(r), Ty::Bool) => Some(Value::Bool(!r.is_zero())),
        (Value::Num(r), _) => {
            let r = match (from, target) {
                (Ty::Int(_), Ty::Bit(n)) => {
                    BigRational::from_integer(r.to_integer().mod_floor(&pow2(*n)))
                }
                _ => r.clone(),
            };
            Some(Value::Num(wrap(r, target)))
        }
        _ => None,
    }
}

/// A rational for messages: an integer, or a decimal with up to 6 fraction digits.
pub fn display_num(r: &BigRational) -> String {
    crate::parse::fmt_rational(r)
}

/// A rational as the exact decimal it is (every digit), when it has one of at most 80 fraction
/// digits: a fixed-point value k / 2^f always has (f digits). Rounded like [`display_num`]
/// otherwise. A value printed this way, written back in a program, is the same value.
pub fn display_exact(r: &BigRational) -> String {
    let (mut rem, den) = (r.numer().abs() % r.denom(), r.denom().clone());
    if rem.is_zero() {
        return r.to_integer().to_string();
    }
    let mut digits = String::new();
    while !rem.is_zero() && digits.len() < 80 {
        rem *= 10;
        digits.push_str(&(&rem / &den).to_string());
        rem %= &den;
    }
    if !rem.is_zero() {
        return display_num(r);
    }
    let sign = if r.is_negative() { "-" } else { "" };
    let whole = r.numer().abs() / r.denom();
    format!("{sign}{whole}.{digits}")
}

/// Whether a rational is a non-negative integer below `2^bits`.
pub fn is_uint_below(r: &BigRational, bits: u32) -> bool {
    r.is_integer() && !r.is_negative() && r.to_integer() < pow2(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    /// The E0203 note for `0.1` in `fixed<1,15>`: 0.1 · 2^15 = 3276.8, nearest 3277, and
    /// 3277 / 32768 = 0.100006103515625 exactly (15 fraction digits), a value `fixed<1,15>` holds.
    #[test]
    fn fixed_point_values_print_exactly_and_fit_when_written_back() {
        let nearest = ratio(3277, 32768);
        let shown = display_exact(&nearest);
        assert_eq!(shown, "0.100006103515625");
        // Read back as a decimal literal reads: its digits over 10^(number of fraction digits).
        let back = BigRational::new(
            BigInt::from(100_006_103_515_625_i64),
            BigInt::from(10).pow(15),
        );
        assert_eq!(back, nearest);
        assert_eq!(display_exact(&ratio(-5, 4)), "-1.25");
        assert_eq!(display_exact(&ratio(7, 1)), "7");
        // No terminating decimal: rounded, as display_num does.
        assert_eq!(display_exact(&ratio(1, 3)), display_num(&ratio(1, 3)));
    }
}
