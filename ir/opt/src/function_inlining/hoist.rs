//! Inlining the calls of one statement: the callee's code is placed before the statement, and the
//! call is replaced by a read of the callee's result local.
//!
//! Evaluation order is kept exactly. Operands evaluate left to right, so whatever a statement
//! evaluates before a call must still be evaluated before the callee's code: such operands are
//! computed into temporaries (`let tmp = ...`) ahead of it, unless they cannot change in between
//! (constants, locals, the packet's fields and pure operators on them; an inlined callee writes
//! only its own fresh locals among the caller's locals). Arguments are bound to the callee's
//! parameters in order, each right after its own calls. A call on the right of `&&` or `||`
//! runs only when the left side does not decide: `let t = a; if t { <b's code>; t = b }`. A call
//! in an operand of a scalar `Select` (`if c { a } else { b }`) runs only on its side:
//! `let c' = c; let mut t = 0; if c' { <a's code>; t = a } else { <b's code>; t = b }`; in a
//! `Select` of an aggregate (no zero to start `t` with) such calls are not inlined: they stay
//! calls, which the `Select` evaluates only on the taken side.

use super::super::copy::{Copier, Src};
use super::returns::Prepared;
use cranelift_entity::SecondaryMap;
use scenic_ir::body::{BinaryOp, Body, Expr, Place, Stmt, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::proc::walk::{
    map_operands, map_stmt_roots, node_has_effect, operands, stmt_roots, tree_any,
};
use scenic_ir::span::Span;
use scenic_ir::types::Type;
use std::collections::HashMap;

/// The callees that can be inlined, by function.
pub(super) type Callees = SecondaryMap<FuncId, Option<Prepared>>;

/// Inlines the calls of the statements of one body.
pub(super) struct Hoister<'a> {
    /// The caller's body.
    pub(super) body: &'a mut Body,
    /// The callees.
    pub(super) callees: &'a Callees,
    /// Statements to place before the one being rewritten.
    pub(super) pre: Vec<(Stmt, Span)>,
    /// Where the statement being rewritten was written.
    span: Span,
    /// Whether each expression's tree contains a call to inline (computed on demand).
    needs: SecondaryMap<ExprId, Option<bool>>,
    /// Every callee inlined for the statement being rewritten is effect-free.
    effect_free: bool,
}

impl<'a> Hoister<'a> {
    /// A hoister for calls in `body`.
    pub(super) fn new(body: &'a mut Body, callees: &'a Callees) -> Self {
        Hoister {
            body,
            callees,
            pre: Vec::new(),
            span: Span::default(),
            needs: SecondaryMap::new(),
            effect_free: false,
        }
    }

    /// The callee of a call expression that can be inlined where a value is needed.
    fn callee(&self, e: &Expr) -> Option<&'a Prepared> {
        match e {
            Expr::Call(f, _) => self.callees.get(*f).and_then(Option::as_ref),
            _ => None,
        }
    }

    /// Whether the tree of `id` contains a call that yields a value and can be inlined.
    pub(super) fn needs(&mut self, id: ExprId) -> bool {
        if let Some(n) = self.needs[id] {
            return n;
        }
        let mut todo = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if self.needs[x].is_some() || self.body.exprs.get(x).is_none() || !seen.insert(x) {
                continue;
            }
            todo.push(x);
            stack.extend(operands(&self.body.exprs[x]));
        }
        todo.sort_unstable();
        for x in todo {
            let e = &self.body.exprs[x];
            let call = self.callee(e).is_some_and(|p| p.result.is_some());
            let inner = |o: &ExprId| *o < x && self.needs[*o] == Some(true);
            let n = call
                || match e {
                    // A `Select` of an aggregate keeps the calls of its operands (see the
                    // module doc): only its condition counts.
                    Expr::Select(c, _, _) if select_zero(&self.body.types[x]).is_none() => inner(c),
                    _ => operands(e).iter().any(inner),
                };
            self.needs[x] = Some(n);
        }
        self.needs[id].unwrap_or(false)
    }

    /// Rewrites one statement; `None` when nothing of it is left (an inlined call statement).
    pub(super) fn stmt(&mut self, mut s: Stmt, span: Span) -> Option<Stmt> {
        self.span = span;
        if let Stmt::Eval(e) = s {
            if let Some(Expr::Call(f, args)) = self.body.exprs.get(e).cloned() {
                if self.callees.get(f).is_some_and(Option::is_some) {
                    self.inline(f, &args, e, None);
                    return None;
                }
            }
        }
        if let Stmt::Let(x, e) = s {
            if let Some(Expr::Call(f, args)) = self.body.exprs.get(e).cloned() {
                if self.can_inline_into(f, x, e) {
                    self.inline(f, &args, e, Some(x));
                    return None;
                }
            }
        }
        let roots = stmt_roots(&s);
        let Some(k) = roots.iter().rposition(|r| self.needs(*r)) else {
            return Some(s);
        };
        self.effect_free = roots.iter().all(|r| self.callees_effect_free(*r));
        let new = self.operands(&roots, k, None);
        let mut it = new.into_iter();
        map_stmt_roots(&mut s, &mut |old| it.next().unwrap_or(old));
        Some(s)
    }

    /// Inlines the calls of an expression used outside statements (a select scrutinee written
    /// at `span`); the expression that replaces it once `pre` has run.
    pub(super) fn root(&mut self, id: ExprId, span: Span) -> ExprId {
        self.span = span;
        self.effect_free = self.callees_effect_free(id);
        self.residual(id)
    }

    /// New operands for `ops` (of expression `parent`, if any), whose last one needing inlining
    /// is `k`. Operands not older than their parent (a malformed body) are left alone.
    fn operands(&mut self, ops: &[ExprId], k: usize, parent: Option<ExprId>) -> Vec<ExprId> {
        let mut new = Vec::with_capacity(ops.len());
        for (i, &o) in ops.iter().enumerate() {
            new.push(match i {
                _ if parent.is_some_and(|p| o >= p) => o,
                i if i < k => {
                    let r = self.residual(o);
                    self.materialize(r)
                }
                i if i == k => self.residual(o),
                _ => o,
            });
        }
        new
    }

    /// An expression giving `id`'s value once `pre` has run.
    fn residual(&mut self, id: ExprId) -> ExprId {
        if !self.needs(id) {
            return id;
        }
        let e = self.body.exprs[id].clone();
        match e {
            Expr::Call(f, ref args) => self.inline(f, args, id, None).unwrap_or(id),
            Expr::Binary(op @ (BinaryOp::LogicalAnd | BinaryOp::LogicalOr), a, b)
                if a < id && b < id && self.needs(b) =>
            {
                self.short_circuit(op == BinaryOp::LogicalAnd, a, b, id)
            }
            Expr::Select(c, a, b) if c < id && a < id && b < id => self.select(c, a, b, id),
            mut e => {
                let ops = operands(&e);
                let k = ops
                    .iter()
                    .rposition(|o| *o < id && self.needs(*o))
                    .unwrap_or(0);
                let new = self.operands(&ops, k, Some(id));
                let mut it = new.into_iter();
                map_operands(&mut e, &mut |old| it.next().unwrap_or(old));
                let (ty, span) = (self.body.types[id].clone(), self.body.spans[id]);
                self.body.add(e, ty, span)
            }
        }
    }

    /// A fresh local.
    fn temp(&mut self, name: &str, ty: Type, mutable: bool) -> LocalId {
        self.body.local(name, ty, mutable)
    }

    /// A read of local `l`.
    fn read(&mut self, l: LocalId, span: Span) -> ExprId {
        let ty = self.body.locals[l].ty.clone();
        self.body.add(Expr::Local(l), ty, span)
    }

    /// Whether every call to inline in the tree of `id` is to an effect-free callee.
    fn callees_effect_free(&self, id: ExprId) -> bool {
        !tree_any(self.body, id, &|e| {
            self.callee(e).is_some_and(|p| !p.effect_free)
        })
    }

    /// Whether the tree of `id` has no effect.
    fn is_pure(&self, id: ExprId) -> bool {
        !tree_any(self.body, id, &node_has_effect)
    }

    /// `id` itself when its value cannot change before the statement runs (it reads nothing a
    /// callee or another operand could change, or it has no effect and every callee inlined for
    /// the statement is effect-free), else a temporary computed now.
    fn materialize(&mut self, id: ExprId) -> ExprId {
        if self.stable(id) || (self.effect_free && self.is_pure(id)) {
            return id;
        }
        let (ty, span) = (self.body.types[id].clone(), self.body.spans[id]);
        let t = self.temp("tmp", ty, false);
        self.pre.push((Stmt::Let(t, id), self.span));
        self.read(t, span)
    }

    /// Whether the tree of `id` reads only constants, locals and per-packet facts.
    fn stable(&self, id: ExprId) -> bool {
        !tree_any(self.body, id, &|e| {
            !matches!(
                e,
                Expr::Const(_)
                    | Expr::Local(_)
                    | Expr::Unary(..)
                    | Expr::Binary(..)
                    | Expr::Cast(_)
                    | Expr::Slice { .. }
                    | Expr::SliceDyn { .. }
                    | Expr::Field { .. }
                    | Expr::Index { .. }
                    | Expr::Intrinsic(..)
                    | Expr::StructLit(_)
                    | Expr::ArrayLit(_)
                    | Expr::Tuple(_)
                    | Expr::Packet(_)
                    | Expr::Beat(_)
                    | Expr::FlowId
                    | Expr::CcParam(_)
                    | Expr::ActionData { .. }
            )
        })
    }

    /// `a && b` (`and`) or `a || b` where `b` has a call: `b`'s code runs only when needed.
    fn short_circuit(&mut self, and: bool, a: ExprId, b: ExprId, id: ExprId) -> ExprId {
        let span = self.body.spans[id];
        let ra = self.residual(a);
        let t = self.temp("tmp", Type::Bool, true);
        self.pre.push((Stmt::Let(t, ra), self.span));
        let outer = std::mem::take(&mut self.pre);
        let rb = self.residual(b);
        let mut inner = std::mem::replace(&mut self.pre, outer);
        inner.push((Stmt::Assign(Place::Local(t), rb), self.span));
        let mut cond = self.read(t, span);
        if !and {
            cond = self
                .body
                .add(Expr::Unary(UnaryOp::Not, cond), Type::Bool, span);
        }
        let mut then = scenic_ir::body::Block::default();
        for (s, sp) in inner {
            then.push(s, sp);
        }
        self.pre.push((
            Stmt::If(cond, then, scenic_ir::body::Block::default()),
            self.span,
        ));
        self.read(t, span)
    }

    /// `if c { a } else { b }` (expression `id`, of a scalar type) where `a` or `b` has a call:
    /// the condition first, then only the taken side's code.
    fn select(&mut self, c: ExprId, a: ExprId, b: ExprId, id: ExprId) -> ExprId {
        let (ty, span) = (self.body.types[id].clone(), self.body.spans[id]);
        let rc = self.residual(c);
        let Some(zero) = select_zero(&ty) else {
            // An aggregate: the condition's calls only; the operands' stay in the `Select`.
            return self.body.add(Expr::Select(rc, a, b), ty, span);
        };
        let tc = self.temp("tmp", Type::Bool, false);
        self.pre.push((Stmt::Let(tc, rc), self.span));
        let zero = self.body.add(zero, ty.clone(), span);
        let t = self.temp("tmp", ty, true);
        self.pre.push((Stmt::Let(t, zero), self.span));
        let mut arms = [
            scenic_ir::body::Block::default(),
            scenic_ir::body::Block::default(),
        ];
        for (arm, side) in arms.iter_mut().zip([a, b]) {
            let outer = std::mem::take(&mut self.pre);
            let r = self.residual(side);
            let mut inner = std::mem::replace(&mut self.pre, outer);
            inner.push((Stmt::Assign(Place::Local(t), r), self.span));
            for (s, sp) in inner {
                arm.push(s, sp);
            }
        }
        let cond = self.read(tc, span);
        let [then, otherwise] = arms;
        self.pre.push((Stmt::If(cond, then, otherwise), self.span));
        self.read(t, span)
    }

    /// Whether `let x = f(...)` (expression `call`) can have the callee compute its result in
    /// `x` itself: `x` is mutable (the result may be assigned) and of the call's type.
    fn can_inline_into(&self, f: FuncId, x: LocalId, call: ExprId) -> bool {
        let has_result = self
            .callees
            .get(f)
            .and_then(Option::as_ref)
            .is_some_and(|p| p.result.is_some());
        let local = self.body.locals.get(x);
        has_result && local.is_some_and(|l| l.mutable && l.ty == self.body.types[call])
    }

    /// Places callee `f`'s code for the call `call` with arguments `args` in `pre`; the read of
    /// its result, for functions that return a value. With `into`, the callee's result local is
    /// that local of the caller (declared by the callee's code) and nothing is read.
    ///
    /// A parameter the callee never assigns is replaced by its argument when that is a constant
    /// or a local (no `let` needed: nothing between the binding and the callee's reads can write a
    /// caller's local); other parameters are bound with a `let`.
    fn inline(
        &mut self,
        f: FuncId,
        args: &[ExprId],
        call: ExprId,
        into: Option<LocalId>,
    ) -> Option<ExprId> {
        let callee = self.callees.get(f).and_then(Option::as_ref)?;
        let mut locals = HashMap::new();
        for (l, local) in callee.body.locals.iter() {
            locals.insert(l, self.body.locals.push(local.clone()));
        }
        if let (Some(x), Some(r)) = (into, callee.result) {
            locals.insert(r, x);
        }
        let mut consts = HashMap::new();
        for (i, &a) in args.iter().enumerate() {
            let r = if a < call { self.residual(a) } else { a };
            let Some(&param) = callee.body.params.get(i) else {
                self.pre.push((Stmt::Eval(r), self.span));
                continue;
            };
            match self.body.exprs.get(r) {
                Some(Expr::Const(c)) if !callee.assigned.contains(&param) => {
                    consts.insert(param, c.clone());
                }
                Some(Expr::Local(l)) if !callee.assigned.contains(&param) => {
                    locals.insert(param, *l);
                }
                _ => {
                    let p = locals.get(&param).copied()?;
                    self.pre.push((Stmt::Let(p, r), self.span));
                }
            }
        }
        let mut copier = Copier::new(locals, consts);
        let block = copier.block(Src::Other(&callee.body), self.body, &callee.body.block);
        self.pre.extend(scenic_ir::proc::walk::pairs(block));
        let result = callee.result.filter(|_| into.is_none())?;
        let local = copier.locals.get(&result).copied()?;
        Some(self.read(local, self.body.spans[call]))
    }
}

/// The zero a `Select`'s result temporary starts with: scalar types only.
fn select_zero(ty: &Type) -> Option<Expr> {
    match ty {
        Type::Bits(_)
        | Type::Int(_)
        | Type::Bool
        | Type::Fixed { .. }
        | Type::Quantity(_)
        | Type::Enum(_) => Some(Expr::Const(scenic_ir::types::Const::zero())),
        Type::Header(_)
        | Type::Struct(_)
        | Type::Array(..)
        | Type::Tuple(_)
        | Type::ParserError
        | Type::TableResult(_)
        | Type::Unit => None,
    }
}
