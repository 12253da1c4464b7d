//! Expressions, literals and patterns.

use super::{Ident, Path, TypeExpr};
use crate::span::Span;
use num_bigint::BigUint;
use num_rational::BigRational;

/// Index of an expression within its chunk; see the module doc of [`crate::ast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    /// The index as a `usize`, for side tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    /// Unique within the chunk.
    pub id: ExprId,
    /// What kind of expression.
    pub kind: ExprKind,
    /// The whole expression.
    pub span: Span,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// A literal.
    Lit(Literal),
    /// A name or a qualified name.
    Path(Path),
    /// `base.field`, or `tuple.0`.
    Field {
        /// The header, struct or tuple.
        base: Box<Expr>,
        /// The field's name (or tuple position as text).
        field: Ident,
    },
    /// `base[index]`.
    Index {
        /// The array, header stack, meter or output array.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `base[hi:lo]`: bits `hi` down to `lo`, both inclusive.
    Slice {
        /// The value being sliced.
        base: Box<Expr>,
        /// Highest bit, a constant.
        hi: Box<Expr>,
        /// Lowest bit, a constant.
        lo: Box<Expr>,
    },
    /// `callee(args)`: a function, builtin or action call.
    Call {
        /// What is called: a path in valid programs.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `receiver.method(args)`.
    MethodCall {
        /// The value the method is called on.
        receiver: Box<Expr>,
        /// The method's name.
        method: Ident,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// A prefix operator.
    Unary {
        /// Which operator.
        op: UnaryOp,
        /// Its operand.
        operand: Box<Expr>,
    },
    /// An infix operator.
    Binary {
        /// Which operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `value as T`.
    Cast {
        /// The value converted.
        value: Box<Expr>,
        /// The target type.
        ty: TypeExpr,
    },
    /// `Name { field: value, ... }`.
    StructLit {
        /// The struct or header type.
        path: Path,
        /// Field initialisers in source order.
        fields: Vec<(Ident, Expr)>,
    },
    /// `(a, b, ...)`; a parenthesised single expression is not a tuple and is not kept.
    Tuple(Vec<Expr>),
    /// `[a, b, ...]`.
    Array(Vec<Expr>),
    /// `if cond { then } else { otherwise }`: only the taken branch is evaluated. An `else if`
    /// chain nests in `otherwise`.
    If {
        /// The condition, a `bool`.
        cond: Box<Expr>,
        /// The value when `cond` holds.
        then: Box<Expr>,
        /// The value otherwise.
        otherwise: Box<Expr>,
    },
    /// Something the parser could not read; an error was reported already.
    Error,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`: two's complement negation (signed and fixed types only).
    Neg,
    /// `!b`: logical not of a `bool`.
    Not,
    /// `~x`: bitwise not.
    BitNot,
}

/// Infix operators, loosest-binding last in `BinaryOp::precedence`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`, wrapping.
    Add,
    /// `-`, wrapping.
    Sub,
    /// `|+|`, saturating.
    SatAdd,
    /// `|-|`, saturating.
    SatSub,
    /// `*`, wrapping.
    Mul,
    /// `/`, truncating.
    Div,
    /// `%`.
    Rem,
    /// `++`, bit concatenation.
    Concat,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `&&`, short-circuit.
    And,
    /// `||`, short-circuit.
    Or,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            SatAdd => "|+|",
            SatSub => "|-|",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Concat => "++",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
        }
    }

    /// Whether the operator compares and yields `bool`.
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }
}

impl UnaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

/// A literal value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// An integer; its type comes from context.
    Int(BigUint),
    /// A decimal fraction such as `0.5`, kept exact; its type is a `fixed<I,F>` from context.
    Decimal(BigRational),
    /// `true` / `false`.
    Bool(bool),
    /// A duration, size or rate, in base units (ns, bytes, bit/s).
    Quantity(Quantity),
    /// An IPv4 address, optionally with a prefix length.
    Ipv4 {
        /// The address as a 32-bit value.
        addr: u32,
        /// `/len`, if written.
        prefix: Option<u8>,
    },
    /// An IPv6 address, optionally with a prefix length.
    Ipv6 {
        /// The address as a 128-bit value.
        addr: u128,
        /// `/len`, if written.
        prefix: Option<u8>,
    },
    /// A MAC address as a 48-bit value.
    Mac(u64),
}

/// A number with a unit, normalised to the unit's base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quantity {
    /// The value in base units.
    pub value: u128,
    /// Which dimension.
    pub unit: UnitKind,
}

/// The dimensions a quantity literal can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitKind {
    /// Nanoseconds.
    Duration,
    /// Bytes.
    Size,
    /// Bits per second.
    Rate,
}

impl UnitKind {
    /// The type name of the dimension.
    pub fn type_name(self) -> &'static str {
        match self {
            UnitKind::Duration => "duration",
            UnitKind::Size => "size",
            UnitKind::Rate => "rate",
        }
    }
}

/// A pattern in a `match` arm, a parser `match` transition or a table entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// What kind of pattern.
    pub kind: PatternKind,
    /// The whole pattern.
    pub span: Span,
}

/// The pattern forms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PatternKind {
    /// `_`: matches anything.
    Wildcard,
    /// A value: a literal (possibly an address prefix), a constant, an enum variant or a bare action
    /// name.
    Value(Expr),
    /// `value &&& mask`: matches when `x & mask == value & mask`.
    Masked {
        /// The value.
        value: Expr,
        /// The mask.
        mask: Expr,
    },
    /// `lo..hi` (half-open) or `lo..=hi` (inclusive).
    Range {
        /// Lower bound, inclusive.
        lo: Expr,
        /// Upper bound.
        hi: Expr,
        /// Whether `hi` is included.
        inclusive: bool,
    },
    /// `limit(class)`: an action with parameters bound to names.
    Ctor {
        /// The action or variant.
        path: Path,
        /// One binding per parameter; `None` for `_`.
        bindings: Vec<Option<Ident>>,
    },
    /// `(p, q, ...)`.
    Tuple(Vec<Pattern>),
    /// `p | q`.
    Or(Vec<Pattern>),
}
