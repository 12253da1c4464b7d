//! Statements and blocks.

use super::{BinaryOp, Expr, Ident, Pattern, TypeExpr};
use crate::span::Span;

/// `{ stmt* }`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// Dropping a block drops the `else` blocks of its `if`s one after another, not one inside the
/// other: an `else if` chain of N arms nests N blocks (bracket depth stays 1), and the derived drop
/// would recurse N deep and overflow the stack on a long valid chain.
impl Drop for Block {
    fn drop(&mut self) {
        let mut pending: Vec<Block> = Vec::new();
        take_else_blocks(&mut self.stmts, &mut pending);
        // Each popped block has had its own `else` blocks taken before it drops, so its own drop
        // finds none and does not recurse.
        while let Some(mut block) = pending.pop() {
            take_else_blocks(&mut block.stmts, &mut pending);
        }
    }
}

fn take_else_blocks(stmts: &mut [Stmt], pending: &mut Vec<Block>) {
    for stmt in stmts {
        if let StmtKind::If { else_block, .. } = &mut stmt.kind {
            pending.extend(else_block.take());
        }
    }
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    /// What kind of statement.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
}

/// The statement forms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StmtKind {
    /// `let [mut] name[: T] = init;`
    Let {
        /// The new variable.
        name: Ident,
        /// Whether it may be assigned later.
        mutable: bool,
        /// The declared type, if written.
        ty: Option<TypeExpr>,
        /// Its value.
        init: Expr,
    },
    /// `target = value;` or `target op= value;`
    Assign {
        /// The place assigned to.
        target: Expr,
        /// For compound assignment, the operator (`+=` has `Some(Add)`).
        op: Option<BinaryOp>,
        /// The value.
        value: Expr,
    },
    /// An expression evaluated for its effect: a call.
    Expr(Expr),
    /// `if cond { } else if ... else { }`
    If {
        /// The condition, a `bool`.
        cond: Expr,
        /// Taken when true.
        then_block: Block,
        /// Taken when false: a block, or another `if` wrapped in a block.
        else_block: Option<Block>,
    },
    /// `match scrutinee { pattern => body, ... }`
    Match {
        /// The value matched.
        scrutinee: Expr,
        /// The arms in order; the first that matches is taken.
        arms: Vec<MatchArm>,
    },
    /// `for var in start..end { }` or `start..=end`; the bounds are constants.
    For {
        /// The loop variable, a constant in each unrolled iteration.
        var: Ident,
        /// First value.
        start: Expr,
        /// Last value (inclusive) or one past it.
        end: Expr,
        /// Whether `end` is included.
        inclusive: bool,
        /// The body.
        body: Block,
    },
    /// `return;` or `return value;`
    Return(Option<Expr>),
    /// `restart timer_or_counter;` (congestion controllers).
    Restart(Ident),
    /// A nested block.
    Block(Block),
    /// A statement the parser could not read; an error was reported already.
    Error,
}

/// One arm of a `match` statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatchArm {
    /// What the arm matches.
    pub pattern: Pattern,
    /// What it does; a single statement is wrapped in a block.
    pub body: Block,
    /// The whole arm.
    pub span: Span,
}
