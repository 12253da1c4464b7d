//! Semantic types: what the checker knows about values.
//!
//! A [`Ty`] is fully resolved: named types carry the definition they came from ([`TypeRef`]) and
//! widths are numbers. Two special types exist only inside the checker: [`Ty::IntLit`], the type of an
//! integer constant that has not met a context yet (it adopts the type of whatever it is combined
//! with), and [`Ty::Error`], the type of anything already reported, which every check accepts silently
//! so that one mistake yields one diagnostic.

use crate::diag::FileId;
use std::fmt;
use std::sync::Arc;

/// Where a named item is defined: a chunk of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefId {
    /// The file.
    pub file: FileId,
    /// The chunk that defines the item.
    pub chunk: u32,
}

/// A reference to a named type: its definition and its name (for messages).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeRef {
    /// Where it is defined.
    pub def: DefId,
    /// Its name.
    pub name: Arc<str>,
}

/// The largest `bit<N>`/`int<N>` width.
pub const MAX_WIDTH: u32 = 1024;

/// A resolved type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `bit<N>`.
    Bit(u32),
    /// `int<N>`.
    Int(u32),
    /// `bool`.
    Bool,
    /// `fixed<I, F>`: integer bits, fraction bits.
    Fixed(u32, u32),
    /// `duration` (nanoseconds).
    Duration,
    /// `size` (bytes).
    Size,
    /// `rate` (bits per second).
    Rate,
    /// A header type.
    Header(TypeRef),
    /// A struct type.
    Struct(TypeRef),
    /// An enum type.
    Enum(TypeRef),
    /// `[T; N]`.
    Array(Box<Ty>, u32),
    /// `(T, U, ...)`.
    Tuple(Vec<Ty>),
    /// An integer constant without a type yet.
    IntLit,
    /// A decimal constant without a type yet.
    DecimalLit,
    /// No value (statements, functions without a return type).
    Unit,
    /// A parser error value (`on parser_error(e)`).
    ParserError,
    /// The result of `t.apply()`: which of table `t`'s actions ran (matched by action name).
    TableAction(TypeRef),
    /// Already reported; accepted everywhere.
    Error,
}

impl Ty {
    /// Whether this is the poison type.
    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }

    /// The bit width of a scalar value type, if it has one.
    pub fn width(&self) -> Option<u32> {
        match self {
            Ty::Bit(n) | Ty::Int(n) => Some(*n),
            Ty::Bool => Some(1),
            Ty::Fixed(i, f) => Some(i + f),
            Ty::Duration | Ty::Size | Ty::Rate => Some(64),
            _ => None,
        }
    }

    /// `bit<N>` or `int<N>`.
    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Bit(_) | Ty::Int(_))
    }

    /// A duration, size or rate.
    pub fn is_unit(&self) -> bool {
        matches!(self, Ty::Duration | Ty::Size | Ty::Rate)
    }

    /// Whether values of this type can be compared with `<`, added, and so on.
    pub fn is_numeric(&self) -> bool {
        self.is_integer() || self.is_unit() || matches!(self, Ty::Fixed(..))
    }

    /// Whether values of this type can be compared with `==`.
    pub fn is_equatable(&self) -> bool {
        self.is_numeric() || matches!(self, Ty::Bool | Ty::Enum(_) | Ty::ParserError)
    }

    /// A value a table key, action parameter or map key may hold.
    pub fn is_scalar(&self) -> bool {
        self.is_numeric() || matches!(self, Ty::Bool | Ty::Enum(_))
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bit(n) => write!(f, "bit<{n}>"),
            Ty::Int(n) => write!(f, "int<{n}>"),
            Ty::Bool => f.write_str("bool"),
            Ty::Fixed(i, fr) => write!(f, "fixed<{i},{fr}>"),
            Ty::Duration => f.write_str("duration"),
            Ty::Size => f.write_str("size"),
            Ty::Rate => f.write_str("rate"),
            Ty::Header(r) | Ty::Struct(r) | Ty::Enum(r) => f.write_str(&r.name),
            Ty::Array(elem, n) => write!(f, "[{elem}; {n}]"),
            Ty::Tuple(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
            Ty::IntLit => f.write_str("integer constant"),
            Ty::DecimalLit => f.write_str("decimal constant"),
            Ty::Unit => f.write_str("()"),
            Ty::ParserError => f.write_str("parser error"),
            Ty::TableAction(t) => write!(f, "action of table `{}`", t.name),
            Ty::Error => f.write_str("{error}"),
        }
    }
}
