//! IR types and constants.
//!
//! Types here are the hardware's view: every scalar has a bit width and a value is a bit pattern of
//! that width ([`Const`]). Signedness (`int<N>`), fixed-point scaling (`fixed<I,F>`) and units
//! (durations in ns, sizes in bytes, rates in bit/s, all 64 bits) only decide how operators read the
//! pattern; they never change its width.

use crate::entities::{EnumId, HeaderId, StructId, TableId};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The dimension of a quantity type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dimension {
    /// Nanoseconds.
    Duration,
    /// Bytes.
    Size,
    /// Bits per second.
    Rate,
}

/// A type in the IR.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    /// `bit<N>`: unsigned, wraps modulo 2^N.
    Bits(u32),
    /// `int<N>`: two's complement, wraps.
    Int(u32),
    /// `bool`, one bit.
    Bool,
    /// `fixed<I, F>`: unsigned, value = pattern / 2^F, I + F bits.
    Fixed {
        /// Integer bits.
        int: u32,
        /// Fraction bits.
        frac: u32,
    },
    /// A 64-bit quantity in base units.
    Quantity(Dimension),
    /// An enum, stored as its variant's value (its declared representation, or the variant number
    /// when the enum has none) in [`crate::program::EnumDef::width`] bits.
    Enum(EnumId),
    /// A header value (fields plus a validity bit).
    Header(HeaderId),
    /// A struct value.
    Struct(StructId),
    /// `[T; N]`.
    Array(Box<Type>, u32),
    /// A tuple (only as a `match` scrutinee).
    Tuple(Vec<Type>),
    /// A parser error, stored as its [`crate::entities::ErrorId`] index (8 bits).
    ParserError,
    /// Which action a table application ran, stored as the action's position in the table (8 bits).
    TableResult(TableId),
    /// No value.
    #[default]
    Unit,
}

impl Type {
    /// The width of a scalar type's bit pattern; `None` for aggregates and `Unit`.
    pub fn scalar_width(&self, enum_width: impl Fn(EnumId) -> u32) -> Option<u32> {
        Some(match self {
            Type::Bits(n) | Type::Int(n) => *n,
            Type::Bool => 1,
            Type::Fixed { int, frac } => int + frac,
            Type::Quantity(_) => 64,
            Type::Enum(e) => enum_width(*e),
            Type::ParserError | Type::TableResult(_) => 8,
            _ => return None,
        })
    }

    /// Whether operators read the pattern as two's complement.
    pub fn is_signed(&self) -> bool {
        matches!(self, Type::Int(_))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bits(n) => write!(f, "bit<{n}>"),
            Type::Int(n) => write!(f, "int<{n}>"),
            Type::Bool => f.write_str("bool"),
            Type::Fixed { int, frac } => write!(f, "fixed<{int},{frac}>"),
            Type::Quantity(Dimension::Duration) => f.write_str("duration"),
            Type::Quantity(Dimension::Size) => f.write_str("size"),
            Type::Quantity(Dimension::Rate) => f.write_str("rate"),
            Type::Enum(e) => write!(f, "{e}"),
            Type::Header(h) => write!(f, "{h}"),
            Type::Struct(s) => write!(f, "{s}"),
            Type::Array(elem, n) => write!(f, "[{elem}; {n}]"),
            Type::Tuple(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
            Type::ParserError => f.write_str("error"),
            Type::TableResult(t) => write!(f, "result<{t}>"),
            Type::Unit => f.write_str("()"),
        }
    }
}

/// A constant: a bit pattern of the width of its type (which is stored beside it, not in it).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Const(pub BigUint);

impl Const {
    /// Zero.
    pub fn zero() -> Const {
        Const(BigUint::zero())
    }

    /// A small constant.
    pub fn from_u64(v: u64) -> Const {
        Const(BigUint::from(v))
    }

    /// The low `width` bits of `v` (two's complement for negative values).
    pub fn from_bigint(v: &num_bigint::BigInt, width: u32) -> Const {
        let modulus = BigUint::one() << width as usize;
        let m = num_bigint::BigInt::from(modulus.clone());
        let r = ((v % &m) + &m) % &m;
        Const(r.to_biguint().unwrap_or_default() % modulus)
    }

    /// The value as a `u64`, if it fits.
    pub fn to_u64(&self) -> Option<u64> {
        u64::try_from(&self.0).ok()
    }
}

impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < BigUint::from(256u32) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "0x{:x}", self.0)
        }
    }
}
