//! The abstract syntax tree of a scenic source file.
//!
//! The AST is what the parser saw, with spans, and nothing more: names are not resolved and types are
//! not known (that is `resolve` and `typeck`). Every span is relative to the start of the chunk the node
//! was parsed from (see [`crate::split`]); [`ExprId`]s number the expressions of one chunk in parse
//! order, so per-chunk side tables (types, resolutions) can be plain vectors.
//!
//! Invariants: every [`Expr::id`] in a chunk is unique and smaller than the chunk's `expr_count`; a
//! node's span covers the spans of its children.

mod expr;
mod item;
mod stmt;

pub use expr::*;
pub use item::*;
pub use stmt::*;

use crate::span::Span;

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The text of the name.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

impl Ident {
    /// The name's text.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

/// `a::b::c`: a name, optionally qualified by modules or by an enum.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    /// The segments, at least one.
    pub segments: Vec<Ident>,
    /// The whole path.
    pub span: Span,
}

impl Path {
    /// The last segment: the name being referred to.
    pub fn last(&self) -> &Ident {
        // The grammar guarantees at least one segment; an empty path is never built.
        &self.segments[self.segments.len() - 1]
    }

    /// Whether the path is a single name.
    pub fn is_single(&self) -> bool {
        self.segments.len() == 1
    }

    /// The path as written, joined with `::`.
    pub fn text(&self) -> String {
        let names: Vec<&str> = self.segments.iter().map(|s| s.as_str()).collect();
        names.join("::")
    }
}

/// A type as written: `bit<8>`, `[bit<8>; 4]`, `(bit<8>, bool)`, `lru_hash<bit<32>, flow>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeExpr {
    /// What kind of type expression.
    pub kind: TypeExprKind,
    /// The whole type.
    pub span: Span,
}

/// The shapes a type can be written in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeExprKind {
    /// A named type with optional generic arguments: `bool`, `bit<8>`, `fixed<1,15>`, `ipv4`.
    Named {
        /// The name.
        path: Path,
        /// The arguments between `<` and `>`.
        args: Vec<GenericArg>,
    },
    /// `[T; N]`.
    Array {
        /// Element type.
        elem: Box<TypeExpr>,
        /// Number of elements: a constant expression.
        len: Box<Expr>,
    },
    /// `(T, U, ...)`.
    Tuple(Vec<TypeExpr>),
    /// A type the parser could not read; an error was reported already.
    Error,
}

/// One argument of a generic type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GenericArg {
    /// An integer such as the `8` in `bit<8>`.
    Int(u64, Span),
    /// A type such as the `bit<32>` in `lru_hash<bit<32>, flow>`, or a constant's name.
    Type(TypeExpr),
}

impl GenericArg {
    /// Where the argument was written.
    pub fn span(&self) -> Span {
        match self {
            GenericArg::Int(_, span) => *span,
            GenericArg::Type(ty) => ty.span,
        }
    }
}
