//! P4 types as the checker sees them, and the program's type declarations.
//!
//! [`Ty`] is the type of an expression after name resolution: typedefs are gone, headers, structs
//! and enums are indices into [`Env`]. `InfInt` is P4's arbitrary-precision `int`, the type of
//! unsized literals; it only exists at compile time and takes the width of what it meets.

use crate::p4::ast::AggregateKind;
use crate::span::Span;
use num_bigint::BigInt;
use std::fmt;

/// The type of a P4 expression or declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ty {
    /// `bit<N>`.
    Bits(u32),
    /// `int<N>`.
    Int(u32),
    /// `bool`.
    Bool,
    /// An unsized integer (compile time only).
    InfInt,
    /// `error`.
    Error,
    /// `match_kind`.
    MatchKind,
    /// `string`.
    Str,
    /// `void`.
    Void,
    /// A header, struct or header union: index into [`Env::aggregates`].
    Agg(usize),
    /// An enum: index into [`Env::enums`].
    Enum(usize),
    /// A header stack `T[n]`.
    Stack(Box<Ty>, u32),
    /// A list or tuple (`{a, b}`, a `select` over several expressions).
    List(Vec<Ty>),
    /// An instance of an extern object (its declaration's name).
    Extern(String),
    /// The result of `t.apply()` (`.hit`, `.miss`, `.action_run`).
    ApplyResult,
    /// `t.apply().action_run`, compared with action names in `switch`.
    ActionRun,
    /// A type the reader does not support, with what to call it in the message.
    Unsupported(String),
    /// Error recovery: the expression already has an error; nothing more is reported about it.
    #[default]
    Unknown,
}

impl Ty {
    /// The width of a scalar bit type (`bit`, `int`, `bool` as 1).
    pub fn width(&self) -> Option<u32> {
        match self {
            Ty::Bits(n) | Ty::Int(n) => Some(*n),
            Ty::Bool => Some(1),
            _ => None,
        }
    }

    /// Whether it is `bit<N>` or `int<N>`.
    pub fn is_fixed_int(&self) -> bool {
        matches!(self, Ty::Bits(_) | Ty::Int(_))
    }

    /// Whether errors about it should be suppressed: it already has one, or its type is outside
    /// the subset (reported where the type is written).
    pub fn is_unknown(&self) -> bool {
        matches!(self, Ty::Unknown | Ty::Unsupported(_))
    }
}

/// A header, struct or header union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aggregate {
    /// Its name.
    pub name: String,
    /// Which kind.
    pub kind: AggregateKind,
    /// Fields in order.
    pub fields: Vec<(String, Ty)>,
    /// Where it is declared.
    pub span: Span,
}

impl Aggregate {
    /// The position of a field.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }
}

/// An enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumInfo {
    /// Its name.
    pub name: String,
    /// The representation type of a serializable enum (`enum bit<8> E`).
    pub repr: Option<Ty>,
    /// Members and their values (the member's position for a plain enum).
    pub members: Vec<(String, BigInt)>,
}

/// The program's type declarations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Env {
    /// Headers, structs and header unions, in declaration order.
    pub aggregates: Vec<Aggregate>,
    /// Enums in declaration order.
    pub enums: Vec<EnumInfo>,
    /// Every `error` member, in declaration order (core.p4's first).
    pub errors: Vec<String>,
    /// Every match kind.
    pub match_kinds: Vec<String>,
}

impl Env {
    /// A displayable view of a type.
    pub fn show<'a>(&'a self, ty: &'a Ty) -> ShowTy<'a> {
        ShowTy { env: self, ty }
    }

    /// The total width in bits of a type that can be serialized (headers and fixed-width scalars),
    /// used for `lookahead` and checksums.
    pub fn bit_width(&self, ty: &Ty) -> Option<u32> {
        match ty {
            Ty::Bits(n) | Ty::Int(n) => Some(*n),
            Ty::Bool => Some(1),
            Ty::Enum(e) => self.enums.get(*e)?.repr.as_ref()?.width(),
            Ty::Agg(a) => {
                let agg = self.aggregates.get(*a)?;
                agg.fields
                    .iter()
                    .try_fold(0u32, |acc, (_, t)| acc.checked_add(self.bit_width(t)?))
            }
            _ => None,
        }
    }

    /// Whether a type is a header.
    pub fn is_header(&self, ty: &Ty) -> bool {
        matches!(ty, Ty::Agg(a) if self.aggregates.get(*a).is_some_and(|g| g.kind == AggregateKind::Header))
    }

    /// Whether a type is a struct.
    pub fn is_struct(&self, ty: &Ty) -> bool {
        matches!(ty, Ty::Agg(a) if self.aggregates.get(*a).is_some_and(|g| g.kind == AggregateKind::Struct))
    }
}

/// A type with the declarations needed to name it.
pub struct ShowTy<'a> {
    env: &'a Env,
    ty: &'a Ty,
}

impl fmt::Display for ShowTy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            Ty::Bits(n) => write!(f, "bit<{n}>"),
            Ty::Int(n) => write!(f, "int<{n}>"),
            Ty::Bool => f.write_str("bool"),
            Ty::InfInt => f.write_str("int"),
            Ty::Error => f.write_str("error"),
            Ty::MatchKind => f.write_str("match_kind"),
            Ty::Str => f.write_str("string"),
            Ty::Void => f.write_str("void"),
            Ty::Agg(a) => match self.env.aggregates.get(*a) {
                Some(agg) => f.write_str(&agg.name),
                None => f.write_str("?"),
            },
            Ty::Enum(e) => match self.env.enums.get(*e) {
                Some(en) => f.write_str(&en.name),
                None => f.write_str("?"),
            },
            Ty::Stack(t, n) => write!(f, "{}[{n}]", self.env.show(t)),
            Ty::List(items) => {
                f.write_str("tuple<")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", self.env.show(t))?;
                }
                f.write_str(">")
            }
            Ty::Extern(name) => f.write_str(name),
            Ty::ApplyResult => f.write_str("the result of apply()"),
            Ty::ActionRun => f.write_str("action_run"),
            Ty::Unsupported(what) => f.write_str(what),
            Ty::Unknown => f.write_str("{unknown}"),
        }
    }
}
