//! Printing bodies: parameters, locals and statements as an indented tree.
//!
//! A body prints as `(<params>) {`, one `local` line per local that is not a parameter (in id
//! order, with `mut` and the type), then its statements, then `}`. Statements print one per line;
//! `if`, `switch`, `for` and nested blocks open an indented block (naga's [`Level`]).

use super::{Cx, Level};
use crate::body::{Block, Body, Case, NotifyTarget, Stmt};
use crate::entities::{ExprId, LocalId};
use crate::types::Type;
use std::fmt::{self, Write};

impl Cx<'_> {
    /// Writes `(v0 "x": bit<8>, ...)`: the body's parameters.
    pub(super) fn params(&self, w: &mut impl Write) -> fmt::Result {
        w.write_str("(")?;
        for (i, p) in self.body.params.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            self.local_decl(w, *p)?;
        }
        w.write_str(")")
    }

    /// `mut v1 "n": bit<6>` (or `!v9` for a local that does not exist).
    fn local_decl(&self, w: &mut impl Write, l: LocalId) -> fmt::Result {
        match self.body.locals.get(l) {
            Some(local) => {
                if local.mutable {
                    w.write_str("mut ")?;
                }
                write!(w, "{l} {:?}: {}", local.name, local.ty)
            }
            None => write!(w, "!{l}"),
        }
    }

    /// Writes the locals that are not parameters, one per line at `level`.
    pub(super) fn locals(&self, w: &mut impl Write, level: Level) -> fmt::Result {
        for l in self.body.locals.keys() {
            if !self.body.params.contains(&l) {
                write!(w, "{level}local ")?;
                self.local_decl(w, l)?;
                writeln!(w)?;
            }
        }
        Ok(())
    }

    /// Writes ` {`, the locals and statements at `level.next()`, and `level}` on its own line;
    /// `head` has already been written.
    pub(super) fn body_block(&self, w: &mut impl Write, level: Level) -> fmt::Result {
        writeln!(w, " {{")?;
        self.locals(w, level.next())?;
        self.block(w, &self.body.block, level.next())?;
        writeln!(w, "{level}}}")
    }

    /// Writes the statements of a block, one per line at `level`.
    pub(super) fn block(&self, w: &mut impl Write, block: &Block, level: Level) -> fmt::Result {
        crate::stack::grow(|| {
            for stmt in &block.stmts {
                self.stmt(w, stmt, level)?;
            }
            Ok(())
        })
    }

    /// Writes ` {`, the block at `level.next()` and `level}` (without a newline).
    fn nested(&self, w: &mut impl Write, block: &Block, level: Level) -> fmt::Result {
        writeln!(w, " {{")?;
        self.block(w, block, level.next())?;
        write!(w, "{level}}}")
    }

    /// Writes one statement (and its nested blocks) starting at `level`.
    fn stmt(&self, w: &mut impl Write, stmt: &Stmt, level: Level) -> fmt::Result {
        write!(w, "{level}")?;
        match stmt {
            Stmt::Let(l, e) => {
                write!(w, "let {l} = ")?;
                self.expr(w, *e)?;
            }
            Stmt::Assign(p, e) => {
                self.place(w, p)?;
                w.write_str(" = ")?;
                self.expr(w, *e)?;
            }
            Stmt::Eval(e) => {
                w.write_str("eval ")?;
                self.expr(w, *e)?;
            }
            Stmt::If(c, then, otherwise) => {
                w.write_str("if ")?;
                self.expr(w, *c)?;
                self.nested(w, then, level)?;
                if !otherwise.stmts.is_empty() {
                    w.write_str(" else")?;
                    self.nested(w, otherwise, level)?;
                }
            }
            Stmt::Switch { on, cases, default } => self.switch(w, *on, cases, default, level)?,
            Stmt::For {
                var,
                first,
                last,
                body,
            } => {
                write!(w, "for {var} in {first}..={last}")?;
                self.nested(w, body, level)?;
            }
            Stmt::Block(b) => {
                w.write_str("block")?;
                self.nested(w, b, level)?;
            }
            _ => self.simple_stmt(w, stmt)?,
        }
        writeln!(w)
    }

    /// `switch on { case p | q { ... } default { ... } }`.
    fn switch(
        &self,
        w: &mut impl Write,
        on: ExprId,
        cases: &[Case],
        default: &Block,
        level: Level,
    ) -> fmt::Result {
        w.write_str("switch ")?;
        self.expr(w, on)?;
        writeln!(w, " {{")?;
        let ty = self.body.types.get(on).cloned().unwrap_or(Type::Unit);
        let inner = level.next();
        for case in cases {
            write!(w, "{inner}case ")?;
            for (i, p) in case.patterns.iter().enumerate() {
                if i > 0 {
                    w.write_str(" | ")?;
                }
                self.pattern(w, p, &ty)?;
            }
            self.nested(w, &case.body, inner)?;
            writeln!(w)?;
        }
        write!(w, "{inner}default")?;
        self.nested(w, default, inner)?;
        write!(w, "\n{level}}}")
    }

    /// Statements without nested blocks, other than `let`, assignment and `eval`.
    fn simple_stmt(&self, w: &mut impl Write, stmt: &Stmt) -> fmt::Result {
        match stmt {
            Stmt::Return(None) => w.write_str("return"),
            Stmt::Return(Some(e)) => {
                w.write_str("return ")?;
                self.expr(w, *e)
            }
            Stmt::Drop => w.write_str("drop"),
            Stmt::ToHost => w.write_str("to_host"),
            Stmt::ToNetwork(e) => self.stmt_call(w, "to_network", *e),
            Stmt::ToScu(s) => write!(w, "to_scu({s})"),
            Stmt::Notify(target, e) => {
                let name = match target {
                    NotifyTarget::Host => "notify(host, ",
                    NotifyTarget::Arm => "notify(arm, ",
                };
                w.write_str(name)?;
                self.expr(w, *e)?;
                w.write_str(")")
            }
            Stmt::Pass(e) => self.stmt_call(w, "pass", *e),
            Stmt::Push(out, index, e) => {
                write!(w, "push({out}")?;
                self.opt_index(w, *index)?;
                w.write_str(", ")?;
                self.expr(w, *e)?;
                w.write_str(")")
            }
            Stmt::Count(c, index) => {
                write!(w, "count({c}")?;
                self.opt_index(w, *index)?;
                w.write_str(")")
            }
            Stmt::Extract(i) => write!(w, "extract({i})"),
            Stmt::Emit(i) => write!(w, "emit({i})"),
            Stmt::SetValid(i, index, valid) => {
                write!(
                    w,
                    "{}({i}",
                    if *valid { "set_valid" } else { "set_invalid" }
                )?;
                self.opt_index(w, *index)?;
                w.write_str(")")
            }
            Stmt::Restart(t) => write!(w, "restart({t})"),
            // The statements with blocks, `let`, assignment and `eval` are printed by `stmt`.
            _ => w.write_str("!stmt"),
        }
    }

    /// `name(<e>)`.
    fn stmt_call(&self, w: &mut impl Write, name: &str, e: ExprId) -> fmt::Result {
        write!(w, "{name}(")?;
        self.expr(w, e)?;
        w.write_str(")")
    }

    /// `[<index>]` if there is an index.
    fn opt_index(&self, w: &mut impl Write, index: Option<ExprId>) -> fmt::Result {
        if let Some(index) = index {
            w.write_str("[")?;
            self.expr(w, index)?;
            w.write_str("]")?;
        }
        Ok(())
    }
}

/// Writes a whole body with its parameter list: `(<params>) {`, locals, statements, `}`.
pub(super) fn write_body(w: &mut impl Write, cx: &Cx<'_>, level: Level) -> fmt::Result {
    cx.params(w)?;
    cx.body_block(w, level)
}

/// A context for `body` within `cx`'s unit.
pub(super) fn with_body<'a>(cx: &Cx<'a>, body: &'a Body) -> Cx<'a> {
    Cx { body, ..*cx }
}
