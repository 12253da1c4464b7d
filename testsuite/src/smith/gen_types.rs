//! The generator's types: the scalar widths it draws from, the enums and structs a program
//! declares (structs nest arrays of structs, the shape the interpreter's index-0 bug lived in),
//! and literals of every scalar type, biased towards edge values (0, 1, the maximum, the sign
//! boundary). Every literal produced fits its type exactly, as language.md §2.6–§2.8 require.

use super::rng::Rng;
use num_bigint::BigUint;

/// A unit type (language.md §3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds.
    Duration,
    /// Bytes.
    Size,
    /// Bits per second.
    Rate,
}

impl Unit {
    /// The type's name.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Duration => "duration",
            Unit::Size => "size",
            Unit::Rate => "rate",
        }
    }

    /// The suffix of its base unit.
    pub fn base_suffix(self) -> &'static str {
        match self {
            Unit::Duration => "ns",
            Unit::Size => "B",
            Unit::Rate => "bps",
        }
    }
}

/// A type of a generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `bit<N>`.
    Bit(u32),
    /// `int<N>`.
    Int(u32),
    /// `bool`.
    Bool,
    /// `fixed<I,F>`.
    Fixed(u32, u32),
    /// `duration`, `size`, `rate`.
    Unit(Unit),
    /// An enum, by index into [`Decls::enums`].
    Enum(usize),
    /// A struct, by index into [`Decls::structs`].
    Struct(usize),
    /// `[T; N]`.
    Array(Box<Ty>, u32),
}

impl Ty {
    /// Whether values of this type are scalars (comparable, usable in `if` expressions freely).
    pub fn is_scalar(&self) -> bool {
        !matches!(self, Ty::Struct(_) | Ty::Array(..))
    }

    /// Whether this is `bit<N>` or `int<N>`.
    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Bit(_) | Ty::Int(_))
    }

    /// The width of a `bit`/`int` type.
    pub fn int_width(&self) -> Option<u32> {
        match self {
            Ty::Bit(n) | Ty::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// Whether a small non-negative constant `v` (a loop variable) is a value of this type.
    pub fn holds_small(&self, v: u64) -> bool {
        match self {
            Ty::Bit(n) => *n >= 64 || v < (1u64 << n),
            Ty::Int(n) => *n > 64 || v < (1u64 << (n - 1)),
            Ty::Fixed(i, _) => *i >= 64 || v < (1u64 << i),
            Ty::Unit(_) => true,
            _ => false,
        }
    }
}

/// An enum declaration.
#[derive(Clone, Debug)]
pub struct EnumDecl {
    /// Its name.
    pub name: String,
    /// Its variants.
    pub variants: Vec<String>,
    /// `: bit<N>` and the variants' values, when it has a representation.
    pub repr: Option<(u32, Vec<u64>)>,
}

/// A struct declaration.
#[derive(Clone, Debug)]
pub struct StructDecl {
    /// Its name.
    pub name: String,
    /// Its fields.
    pub fields: Vec<(String, Ty)>,
}

/// The enums and structs a program declares.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    /// Enums.
    pub enums: Vec<EnumDecl>,
    /// Structs; a struct only contains structs declared before it (no cycles, E0108).
    pub structs: Vec<StructDecl>,
}

impl Decls {
    /// The type as written in source.
    pub fn render(&self, ty: &Ty) -> String {
        match ty {
            Ty::Bit(n) => format!("bit<{n}>"),
            Ty::Int(n) => format!("int<{n}>"),
            Ty::Bool => "bool".into(),
            Ty::Fixed(i, f) => format!("fixed<{i},{f}>"),
            Ty::Unit(u) => u.name().into(),
            Ty::Enum(e) => self.enums[*e].name.clone(),
            Ty::Struct(s) => self.structs[*s].name.clone(),
            Ty::Array(t, n) => format!("[{}; {n}]", self.render(t)),
        }
    }

    /// Whether a value of type `ty` has a part (itself, a field, an element) of type `target`.
    pub fn contains(&self, ty: &Ty, target: &Ty) -> bool {
        ty == target || self.contains_strictly(ty, target)
    }

    /// Whether `ty` has a proper part (a field, an element, or one of theirs) of type `target`.
    pub fn contains_strictly(&self, ty: &Ty, target: &Ty) -> bool {
        match ty {
            Ty::Struct(s) => self.structs[*s]
                .fields
                .iter()
                .any(|(_, f)| self.contains(f, target)),
            Ty::Array(t, _) => self.contains(t, target),
            _ => false,
        }
    }
}

/// Widths of `bit<N>` drawn by the generator: narrow ones (indices, selects, wrap-around) and wide
/// ones (the arbitrary-precision paths beyond 64 bits).
pub const BIT_WIDTHS: [u32; 15] = [1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32, 48, 64, 65, 128];
/// Widths of `int<N>`.
pub const INT_WIDTHS: [u32; 8] = [2, 4, 7, 8, 16, 32, 64, 72];
/// `fixed<I,F>` shapes: I + F ≤ 64, F ≤ 16 so decimals print exactly.
pub const FIXED_SHAPES: [(u32, u32); 6] = [(1, 15), (8, 8), (16, 16), (0, 8), (4, 4), (32, 0)];

/// A random scalar type (no enums when `decls` has none).
pub fn scalar_ty(rng: &mut Rng, decls: &Decls) -> Ty {
    match rng.below(20) {
        0..=8 => Ty::Bit(rng.pick(&BIT_WIDTHS)),
        9..=12 => Ty::Int(rng.pick(&INT_WIDTHS)),
        13 | 14 => Ty::Bool,
        15 | 16 => {
            let (i, f) = rng.pick(&FIXED_SHAPES);
            Ty::Fixed(i, f)
        }
        17 | 18 => Ty::Unit(rng.pick(&[Unit::Duration, Unit::Size, Unit::Rate])),
        _ if !decls.enums.is_empty() => Ty::Enum(rng.index(decls.enums.len())),
        _ => Ty::Bit(8),
    }
}

/// 2^n as a big integer.
pub fn pow2(n: u32) -> BigUint {
    BigUint::from(1u32) << n as usize
}

/// An unsigned value of `width` bits, biased to edges.
pub fn edge_bits(rng: &mut Rng, width: u32) -> BigUint {
    let max = pow2(width) - 1u32;
    let v = match rng.below(10) {
        0 => BigUint::from(0u32),
        1 => BigUint::from(1u32),
        2 => max.clone(),
        3 => pow2(width - 1),
        4 => pow2(width - 1) - 1u32,
        5 => BigUint::from(rng.below(8)),
        _ => {
            let bytes = rng.bytes(width.div_ceil(8) as usize);
            BigUint::from_bytes_be(&bytes)
        }
    };
    v & max
}

/// A literal of an integer type: its text (a negative one starts with `-`, as in patterns), and its
/// value as `width` bits (two's complement).
pub fn int_literal(rng: &mut Rng, ty: &Ty) -> (String, BigUint) {
    match ty {
        Ty::Int(n) => {
            let bits = edge_bits(rng, *n);
            let negative = bits >= pow2(n - 1);
            if negative {
                let magnitude = pow2(*n) - &bits;
                (format!("-{magnitude}"), bits)
            } else {
                (format!("{bits}"), bits)
            }
        }
        Ty::Bit(n) => {
            let bits = edge_bits(rng, *n);
            let text = if *n > 16 && rng.chance(1, 2) {
                format!("0x{bits:x}")
            } else {
                format!("{bits}")
            };
            (text, bits)
        }
        _ => ("0".into(), BigUint::from(0u32)),
    }
}

/// The exact decimal text of k · 2^−f.
pub fn fixed_text(k: u128, f: u32) -> String {
    let whole = k >> f;
    if f == 0 {
        return format!("{whole}");
    }
    let frac = k & ((1u128 << f) - 1);
    let digits = frac * 5u128.pow(f);
    format!("{whole}.{digits:0width$}", width = f as usize)
}

/// A literal of type `ty` (a scalar). Literals of integer types fit; fixed literals are exactly
/// representable; unit literals are quantities.
pub fn literal(rng: &mut Rng, ty: &Ty, decls: &Decls) -> String {
    match ty {
        Ty::Bit(_) | Ty::Int(_) => {
            let text = int_literal(rng, ty).0;
            if text.starts_with('-') {
                format!("({text})")
            } else {
                text
            }
        }
        Ty::Bool => if rng.chance(1, 2) { "true" } else { "false" }.into(),
        Ty::Fixed(i, f) => {
            let bits = i + f;
            let k = u128::from(rng.next_u64()) & ((1u128 << bits) - 1);
            let k = match rng.below(4) {
                0 => 0,
                1 if *i > 0 => 1u128 << f,
                2 => (1u128 << bits) - 1,
                _ => k,
            };
            fixed_text(k, *f)
        }
        Ty::Unit(u) => {
            let v = match rng.below(5) {
                0 => 0,
                1 => 1,
                2 => u64::MAX,
                3 => rng.below(5000),
                _ => rng.next_u64() >> rng.below(64),
            };
            format!("{v}{}", u.base_suffix())
        }
        Ty::Enum(e) => {
            let d = &decls.enums[*e];
            format!("{}::{}", d.name, rng.pick(&d.variants))
        }
        Ty::Struct(_) | Ty::Array(..) => String::new(),
    }
}
