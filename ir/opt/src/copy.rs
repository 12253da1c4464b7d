//! Copying code into a body: expression trees, statements and blocks, with locals renamed and some
//! locals replaced by constants. Inlining copies a callee into its caller; unrolling copies a loop
//! body once per iteration within the same body ([`Src::Same`]).
//!
//! Copying within one body reads each source expression just before appending its copy: the arena
//! only grows, so the source ids stay valid and the work is proportional to what is copied. (A
//! snapshot of the whole body per loop made unrolling quadratic after inlining had grown a body
//! with many loops: smith seed 47502.)
//!
//! Copies are appended to the destination's arena operands first, so operands stay older than
//! their users; each source expression is copied once per [`Copier`], so an `ActionData` and the
//! table application it refers to keep referring to each other.

use scenic_ir::body::{Block, Body, Case, Expr, Stmt};
use scenic_ir::entities::*;
use scenic_ir::proc::walk::{map_place_local, map_refs, map_stmt_roots};
use scenic_ir::span::Span;
use scenic_ir::types::{Const, Type};
use std::collections::{HashMap, HashSet};

/// Where the copied code comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Src<'a> {
    /// Another body (a callee).
    Other(&'a Body),
    /// The destination body itself (a loop body copied in place).
    Same,
}

impl Src<'_> {
    /// Expression `x` of the source with its type and span, cloned so the destination can grow.
    fn read(self, dst: &Body, x: ExprId) -> Option<(Expr, Type, Span)> {
        let from = match self {
            Src::Other(b) => b,
            Src::Same => dst,
        };
        let e = from.exprs.get(x)?.clone();
        Some((e, from.types[x].clone(), from.spans[x]))
    }
}

/// Copies code from one body into another.
#[derive(Debug, Default)]
pub(crate) struct Copier {
    /// Source expressions already copied, and their copies.
    exprs: HashMap<ExprId, ExprId>,
    /// Source locals and the destination locals that replace them (others keep their id).
    pub(crate) locals: HashMap<LocalId, LocalId>,
    /// Source locals whose reads become constants.
    pub(crate) consts: HashMap<LocalId, Const>,
}

impl Copier {
    /// A copier renaming `locals` and replacing reads of the locals in `consts`.
    pub(crate) fn new(locals: HashMap<LocalId, LocalId>, consts: HashMap<LocalId, Const>) -> Self {
        Copier {
            exprs: HashMap::new(),
            locals,
            consts,
        }
    }

    fn local(&self, l: LocalId) -> LocalId {
        self.locals.get(&l).copied().unwrap_or(l)
    }

    /// Copies the tree of `id` from `src` into `dst`; returns the copy's id.
    pub(crate) fn expr(&mut self, src: Src<'_>, dst: &mut Body, id: ExprId) -> ExprId {
        let mut todo = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if self.exprs.contains_key(&x) || !seen.insert(x) {
                continue;
            }
            let Some((mut e, _, _)) = src.read(dst, x) else {
                continue;
            };
            todo.push(x);
            map_refs(&mut e, &mut |o| {
                stack.push(o);
                o
            });
        }
        todo.sort_unstable();
        for x in todo {
            let Some((mut e, ty, span)) = src.read(dst, x) else {
                continue;
            };
            map_refs(&mut e, &mut |o| self.exprs.get(&o).copied().unwrap_or(o));
            if let Expr::Local(l) = e {
                e = match self.consts.get(&l) {
                    Some(c) => Expr::Const(c.clone()),
                    None => Expr::Local(self.local(l)),
                };
            }
            let new = dst.add(e, ty, span);
            self.exprs.insert(x, new);
        }
        self.exprs.get(&id).copied().unwrap_or(id)
    }

    /// Copies a block.
    pub(crate) fn block(&mut self, src: Src<'_>, dst: &mut Body, b: &Block) -> Block {
        scenic_ir::stack::grow(|| {
            let mut out = Block::default();
            for (i, s) in b.stmts.iter().enumerate() {
                let span = b.spans.get(i).copied().unwrap_or_default();
                out.push(self.stmt(src, dst, s), span);
            }
            out
        })
    }

    /// Copies a statement and the blocks nested in it.
    pub(crate) fn stmt(&mut self, src: Src<'_>, dst: &mut Body, s: &Stmt) -> Stmt {
        match s {
            Stmt::If(c, t, e) => {
                let c = self.expr(src, dst, *c);
                Stmt::If(c, self.block(src, dst, t), self.block(src, dst, e))
            }
            Stmt::Switch { on, cases, default } => {
                let on = self.expr(src, dst, *on);
                let cases = cases
                    .iter()
                    .map(|c| Case {
                        patterns: c.patterns.clone(),
                        body: self.block(src, dst, &c.body),
                    })
                    .collect();
                let default = self.block(src, dst, default);
                Stmt::Switch { on, cases, default }
            }
            Stmt::For {
                var,
                first,
                last,
                body,
            } => Stmt::For {
                var: self.local(*var),
                first: *first,
                last: *last,
                body: self.block(src, dst, body),
            },
            Stmt::Block(b) => Stmt::Block(self.block(src, dst, b)),
            other => {
                let mut s = other.clone();
                map_stmt_roots(&mut s, &mut |e| self.expr(src, dst, e));
                match &mut s {
                    Stmt::Let(l, _) => *l = self.local(*l),
                    Stmt::Assign(p, _) => map_place_local(p, &mut |l| self.local(l)),
                    _ => {}
                }
                s
            }
        }
    }
}
