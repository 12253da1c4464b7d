//! The second pass over a body: statements in order, with scopes.
//!
//! Checks: every expression a statement uses exists and has no other user (`ExprUses`); every
//! local read or assigned is declared (a parameter, an earlier `Let` of an enclosing block, or an
//! enclosing `For` variable: `LocalNotInScope`); assigned places are assignable
//! (`NotAssignable`: immutable locals, `param` CSRs) and get values of their type
//! (`TypeMismatch`); `If` conditions are `bool`; switch patterns fit the scrutinee; `ActionData`
//! is read only inside a case bound to its action; `For` bounds fit the variable; `Return` matches
//! the function's return type; statement operands have the types the statement needs (`bit<8>`
//! ports, `bit<512>` words, `notify` values of at most 32 bits); every index is in bounds by
//! construction (`IndexBounds`); statements that may run only in some bodies are recorded and
//! checked (`Misplaced`).

use super::body::Checker;
use super::error::{AnyId, Construct, ValidationError};
use crate::body::{Block, Case, Expr, Pattern, Place, Stmt};
use crate::entities::*;
use crate::span::Span;
use crate::types::Type;

type R = Result<(), ValidationError>;

/// The operands of an expression, in evaluation order. `ActionData`'s `apply` is a reference to
/// an expression evaluated earlier, not an operand.
pub(super) fn operands(e: &Expr) -> Vec<ExprId> {
    match e {
        Expr::Header { index, .. }
        | Expr::HeaderField { index, .. }
        | Expr::HeaderValid { index, .. } => index.iter().copied().collect(),
        Expr::Field { base, .. }
        | Expr::Slice { base, .. }
        | Expr::Cast(base)
        | Expr::Unary(_, base) => vec![*base],
        Expr::Index { base, index } => vec![*base, *index],
        Expr::SliceDyn { base, lo, .. } => vec![*base, *lo],
        Expr::Binary(_, a, b) | Expr::MapInsert(_, a, b) => vec![*a, *b],
        Expr::MapGet(_, k) | Expr::MapContains(_, k) | Expr::MapRemove(_, k) => vec![*k],
        Expr::MeterExceeds(_, index, len) => index.iter().copied().chain([*len]).collect(),
        Expr::Call(_, args) | Expr::CallAction(_, args) | Expr::Intrinsic(_, args) => args.clone(),
        Expr::StructLit(items) | Expr::ArrayLit(items) | Expr::Tuple(items) => items.clone(),
        Expr::Select(c, a, b) => vec![*c, *a, *b],
        Expr::Const(_)
        | Expr::Local(_)
        | Expr::Csr(_)
        | Expr::Meta(_)
        | Expr::Packet(_)
        | Expr::Beat(_)
        | Expr::FlowId
        | Expr::CcState(_)
        | Expr::CcParam(_)
        | Expr::Lookahead(_)
        | Expr::Apply(_)
        | Expr::ActionData { .. } => Vec::new(),
    }
}

impl Checker<'_> {
    /// Checks a block in its own scope.
    pub(super) fn block(&mut self, b: &Block) -> R {
        crate::stack::grow(|| {
            self.push_scope();
            self.stmts(b)?;
            self.pop_scope();
            Ok(())
        })
    }

    /// Checks a block's statements in the current scope.
    pub(super) fn stmts(&mut self, b: &Block) -> R {
        for (i, s) in b.stmts.iter().enumerate() {
            self.stmt(s, b.spans.get(i).copied().unwrap_or_default())?;
        }
        Ok(())
    }

    /// Marks `root` as used by a statement (or a table key, or a transition) and checks its tree:
    /// locals in scope, action data bound, indices in bounds.
    pub(super) fn use_expr(&mut self, root: ExprId, span: Span) -> R {
        if self.body.exprs.get(root).is_none() {
            return Err(self.invalid(AnyId::Expr(root), span));
        }
        self.uses[root] += 1;
        if self.uses[root] > 1 {
            let span = self.body.spans[root];
            return Err(ValidationError::ExprUses {
                body: self.at,
                expr: root,
                uses: 2,
                span,
            });
        }
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            let Some(e) = self.body.exprs.get(id) else {
                continue;
            };
            self.node(id, e, self.body.spans[id])?;
            stack.extend(operands(e));
        }
        Ok(())
    }

    /// The checks of one expression that depend on where it is used.
    fn node(&self, id: ExprId, e: &Expr, span: Span) -> R {
        match e {
            Expr::Local(l) if self.declared[*l] == 0 => Err(ValidationError::LocalNotInScope {
                body: self.at,
                local: *l,
                span,
            }),
            Expr::ActionData { apply, action, .. } if !self.bound.contains(&(*apply, *action)) => {
                Err(ValidationError::ActionDataUnbound {
                    body: self.at,
                    expr: id,
                    span,
                })
            }
            Expr::Header {
                inst,
                index: Some(i),
            }
            | Expr::HeaderField {
                inst,
                index: Some(i),
                ..
            }
            | Expr::HeaderValid {
                inst,
                index: Some(i),
            } => self.bounds(*i, self.stack_len(*inst), span),
            Expr::Index { base, index } => match self.body.types[*base] {
                Type::Array(_, n) => self.bounds(*index, u64::from(n), span),
                _ => Ok(()),
            },
            Expr::MeterExceeds(m, Some(i), _) => {
                let size = self
                    .unit
                    .scu
                    .and_then(|(_, s)| s.meters.get(*m))
                    .map_or(0, |m| m.size);
                self.bounds(*i, size, span)
            }
            // In scope, bound, or with no index to bound: nothing that depends on the place of use
            // (the rest of each expression is checked by the first pass, expr.rs).
            Expr::Local(_)
            | Expr::ActionData { .. }
            | Expr::Header { index: None, .. }
            | Expr::HeaderField { index: None, .. }
            | Expr::HeaderValid { index: None, .. }
            | Expr::MeterExceeds(_, None, _)
            | Expr::Const(_)
            | Expr::Csr(_)
            | Expr::Meta(_)
            | Expr::Packet(_)
            | Expr::Beat(_)
            | Expr::FlowId
            | Expr::CcState(_)
            | Expr::CcParam(_)
            | Expr::Field { .. }
            | Expr::Slice { .. }
            | Expr::SliceDyn { .. }
            | Expr::Unary(..)
            | Expr::Binary(..)
            | Expr::Cast(_)
            | Expr::Select(..)
            | Expr::Call(..)
            | Expr::CallAction(..)
            | Expr::Intrinsic(..)
            | Expr::Lookahead(_)
            | Expr::MapGet(..)
            | Expr::MapContains(..)
            | Expr::MapInsert(..)
            | Expr::MapRemove(..)
            | Expr::Apply(_)
            | Expr::StructLit(_)
            | Expr::ArrayLit(_)
            | Expr::Tuple(_) => Ok(()),
        }
    }

    /// The number of elements of a header stack (0 if unknown).
    fn stack_len(&self, inst: InstId) -> u64 {
        self.unit
            .scu
            .and_then(|(_, s)| s.instances.get(inst))
            .and_then(|i| i.stack)
            .map_or(0, u64::from)
    }

    /// Checks that `index` is below `len` for every value it can take.
    fn bounds(&self, index: ExprId, len: u64, span: Span) -> R {
        match self.max_value(index) {
            Some(m) if m < u128::from(len) => Ok(()),
            _ => Err(ValidationError::IndexBounds {
                body: self.at,
                len,
                span,
            }),
        }
    }

    /// The largest value an index expression can take, if known: a constant, a loop variable's
    /// last value (through casts), or the largest value of its `bit<K>` type.
    fn max_value(&self, e: ExprId) -> Option<u128> {
        let ty = &self.body.types[e];
        let type_max = match ty {
            Type::Bits(k) if *k < 128 => Some((1u128 << k) - 1),
            Type::Bool => Some(1),
            _ => None,
        };
        match self.body.exprs.get(e)? {
            Expr::Const(c) => c.to_u64().map(u128::from),
            Expr::Local(l) => match self.loops[*l] {
                Some((first, last)) if first > last => Some(0),
                Some((first, last)) if first >= 0 => u128::try_from(last).ok(),
                _ => type_max,
            },
            Expr::Cast(x) => match (self.max_value(*x), type_max) {
                (Some(m), Some(t)) if m <= t => Some(m),
                (_, t) => t,
            },
            _ => type_max,
        }
    }

    fn stmt(&mut self, s: &Stmt, span: Span) -> R {
        match s {
            Stmt::Let(l, e) => {
                let ty = self
                    .body
                    .locals
                    .get(*l)
                    .ok_or_else(|| self.invalid(AnyId::Local(*l), span))?
                    .ty
                    .clone();
                self.use_expr(*e, span)?;
                self.expect_type(&ty, *e)?;
                self.declare(*l);
                Ok(())
            }
            Stmt::Assign(p, e) => {
                let ty = self.place(p, span)?;
                self.use_expr(*e, span)?;
                self.expect_type(&ty, *e)
            }
            Stmt::Eval(e) => self.use_expr(*e, span),
            Stmt::If(c, then, otherwise) => {
                self.use_expr(*c, span)?;
                let ty = &self.body.types[*c];
                if *ty != Type::Bool {
                    return Err(ValidationError::ConditionNotBool {
                        body: self.at,
                        ty: ty.clone(),
                        span,
                    });
                }
                self.block(then)?;
                self.block(otherwise)
            }
            Stmt::Switch { on, cases, default } => self.switch(*on, cases, default, span),
            Stmt::For {
                var,
                first,
                last,
                body,
            } => self.for_loop(*var, *first, *last, body, span),
            Stmt::Return(e) => self.ret(*e, span),
            Stmt::Block(b) => self.block(b),
            _ => self.effect(s, span),
        }
    }

    fn switch(&mut self, on: ExprId, cases: &[Case], default: &Block, span: Span) -> R {
        self.use_expr(on, span)?;
        let ty = self.body.types[on].clone();
        let applies = matches!(self.body.exprs.get(on), Some(Expr::Apply(_)));
        for case in cases {
            for p in &case.patterns {
                self.pattern(p, &ty, self.loc(), span)?;
            }
            // A case of one action binds that action's data.
            let action = match case.patterns.first() {
                Some(Pattern::Value(v))
                    if applies
                        && case
                            .patterns
                            .iter()
                            .all(|p| *p == Pattern::Value(v.clone())) =>
                {
                    v.to_u64().and_then(|v| u32::try_from(v).ok())
                }
                _ => None,
            };
            if let Some(a) = action {
                self.bound.push((on, a));
            }
            self.block(&case.body)?;
            if action.is_some() {
                self.bound.pop();
            }
        }
        self.block(default)
    }

    fn for_loop(&mut self, var: LocalId, first: i64, last: i64, body: &Block, span: Span) -> R {
        let local = self
            .body
            .locals
            .get(var)
            .ok_or_else(|| self.invalid(AnyId::Local(var), span))?;
        let holds = |v: i64| match local.ty {
            Type::Bits(k) => v >= 0 && (k >= 63 || v < (1i64 << k)),
            Type::Int(k) => k >= 64 || (v >= -(1i64 << (k - 1)) && v < (1i64 << (k - 1))),
            _ => false,
        };
        if !holds(first) || !holds(last) {
            return Err(ValidationError::LoopBounds {
                body: self.at,
                var,
                first,
                last,
                span,
            });
        }
        self.push_scope();
        self.declare(var);
        self.loops[var] = Some((first, last));
        self.block(body)?;
        self.pop_scope();
        Ok(())
    }

    fn ret(&mut self, e: Option<ExprId>, span: Span) -> R {
        let expected = self.ret.cloned().unwrap_or(Type::Unit);
        let found = match e {
            Some(e) => {
                self.use_expr(e, span)?;
                self.body.types[e].clone()
            }
            None => Type::Unit,
        };
        if found != expected {
            return Err(ValidationError::ReturnType {
                body: self.at,
                expected,
                found,
                span,
            });
        }
        Ok(())
    }

    /// Statements with effects on the packet, outputs and timers.
    fn effect(&mut self, s: &Stmt, span: Span) -> R {
        match s {
            Stmt::Drop => self.construct(Construct::Drop, span),
            Stmt::ToHost => self.construct(Construct::ToHost, span),
            Stmt::ToNetwork(e) => {
                self.construct(Construct::ToNetwork, span)?;
                self.use_expr(*e, span)?;
                self.expect_type(&Type::Bits(8), *e)
            }
            Stmt::ToScu(s) => {
                self.construct(Construct::ToScu, span)?;
                match self.types.module.scus.get(*s) {
                    Some(_) => Ok(()),
                    None => Err(self.invalid(AnyId::Scu(*s), span)),
                }
            }
            Stmt::Notify(_, e) => {
                self.use_expr(*e, span)?;
                match &self.body.types[*e] {
                    Type::Bool => Ok(()),
                    Type::Bits(n) | Type::Int(n) if *n <= 32 => Ok(()),
                    ty => Err(ValidationError::NotifyValue {
                        body: self.at,
                        ty: ty.clone(),
                        span,
                    }),
                }
            }
            Stmt::Pass(e) => {
                self.construct(Construct::Pass, span)?;
                self.use_expr(*e, span)?;
                self.expect_type(&Type::Bits(512), *e)
            }
            Stmt::Push(o, index, e) => {
                self.construct(Construct::Push, span)?;
                let scu = self.scu(AnyId::Out(*o), span)?;
                let out = scu
                    .outs
                    .get(*o)
                    .ok_or_else(|| self.invalid(AnyId::Out(*o), span))?;
                self.cell_index(AnyId::Out(*o), *index, out.count.map(u64::from), span)?;
                self.use_expr(*e, span)?;
                self.expect_type(&Type::Bits(512), *e)
            }
            _ => self.header_effect(s, span),
        }
    }

    /// Counters, header validity, extraction, emission and timers.
    fn header_effect(&mut self, s: &Stmt, span: Span) -> R {
        match s {
            Stmt::Count(c, index) => {
                self.construct(Construct::Count, span)?;
                let scu = self.scu(AnyId::Counter(*c), span)?;
                let counter = scu
                    .counters
                    .get(*c)
                    .ok_or_else(|| self.invalid(AnyId::Counter(*c), span))?;
                let cells = index.is_some() || counter.size != 1;
                self.cell_index(
                    AnyId::Counter(*c),
                    *index,
                    cells.then_some(counter.size),
                    span,
                )
            }
            Stmt::Extract(i) | Stmt::Emit(i) => {
                let c = if matches!(s, Stmt::Extract(_)) {
                    Construct::Extract
                } else {
                    Construct::Emit
                };
                self.construct(c, span)?;
                let scu = self.scu(AnyId::Inst(*i), span)?;
                match scu.instances.get(*i) {
                    Some(_) => Ok(()),
                    None => Err(self.invalid(AnyId::Inst(*i), span)),
                }
            }
            Stmt::SetValid(i, index, _) => {
                self.instance(*i, *index, span)?;
                self.cell_index(
                    AnyId::Inst(*i),
                    *index,
                    index.map(|_| self.stack_len(*i)),
                    span,
                )
            }
            Stmt::Restart(t) => {
                self.construct(Construct::Restart, span)?;
                let cc = self.cc(AnyId::Timer(*t), span)?;
                match cc.timers.get(*t) {
                    Some(_) => Ok(()),
                    None => Err(self.invalid(AnyId::Timer(*t), span)),
                }
            }
            // Every other statement is checked by `stmt` or `effect`.
            _ => Ok(()),
        }
    }

    /// Checks the index of an element of `target`: present exactly when it has `cells` (`None`:
    /// a single one), used once and in bounds.
    fn cell_index(
        &mut self,
        target: AnyId,
        index: Option<ExprId>,
        cells: Option<u64>,
        span: Span,
    ) -> R {
        match (index, cells) {
            (None, None) => Ok(()),
            (Some(i), Some(n)) => {
                self.use_expr(i, span)?;
                self.bounds(i, n, span)
            }
            _ => Err(ValidationError::IndexForm {
                body: self.at,
                target,
                span,
            }),
        }
    }

    /// Checks a place (its indices are used here) and returns its type.
    fn place(&mut self, p: &Place, span: Span) -> Result<Type, ValidationError> {
        match p {
            Place::Field(base, f) => {
                let ty = self.place(base, span)?;
                self.field(&ty, *f, span)
            }
            Place::Index(base, i) => match self.place(base, span)? {
                Type::Array(elem, n) => {
                    self.use_expr(*i, span)?;
                    self.bounds(*i, u64::from(n), span)?;
                    Ok(*elem)
                }
                ty => Err(ValidationError::IndexNonArray {
                    body: self.at,
                    ty,
                    span,
                }),
            },
            Place::Slice(base, hi, lo) => match self.place(base, span)? {
                Type::Bits(w) | Type::Int(w) if hi < &w && lo <= hi => Ok(Type::Bits(hi - lo + 1)),
                ty => {
                    let width = self.types.scalar(&ty).unwrap_or(0);
                    Err(ValidationError::SliceBounds {
                        body: self.at,
                        expr: None,
                        hi: *hi,
                        lo: *lo,
                        width,
                        span,
                    })
                }
            },
            _ => self.place_root(p, span),
        }
    }

    /// Checks a place that is not a projection of another.
    fn place_root(&mut self, p: &Place, span: Span) -> Result<Type, ValidationError> {
        match p {
            Place::Local(l) => {
                let local = self
                    .body
                    .locals
                    .get(*l)
                    .ok_or_else(|| self.invalid(AnyId::Local(*l), span))?;
                if self.declared[*l] == 0 {
                    return Err(ValidationError::LocalNotInScope {
                        body: self.at,
                        local: *l,
                        span,
                    });
                }
                if !local.mutable {
                    return Err(ValidationError::NotAssignable {
                        body: self.at,
                        target: AnyId::Local(*l),
                        span,
                    });
                }
                Ok(local.ty.clone())
            }
            Place::Csr(c) => {
                let scu = self.scu(AnyId::Csr(*c), span)?;
                let csr = scu
                    .csrs
                    .get(*c)
                    .ok_or_else(|| self.invalid(AnyId::Csr(*c), span))?;
                if csr.is_param {
                    return Err(ValidationError::NotAssignable {
                        body: self.at,
                        target: AnyId::Csr(*c),
                        span,
                    });
                }
                Ok(csr.ty.clone())
            }
            Place::Meta(f) => self.meta_field(*f, span),
            Place::HeaderField { inst, index, field } => {
                let h = self.instance(*inst, *index, span)?;
                self.cell_index(
                    AnyId::Inst(*inst),
                    *index,
                    index.map(|_| self.stack_len(*inst)),
                    span,
                )?;
                self.field(&Type::Header(h), *field, span)
            }
            Place::Header { inst, index } => {
                let h = self.instance(*inst, *index, span)?;
                self.cell_index(
                    AnyId::Inst(*inst),
                    *index,
                    index.map(|_| self.stack_len(*inst)),
                    span,
                )?;
                Ok(Type::Header(h))
            }
            Place::CcState(s) => {
                let cc = self.cc(AnyId::CcState(*s), span)?;
                let state = cc
                    .state
                    .get(*s)
                    .ok_or_else(|| self.invalid(AnyId::CcState(*s), span))?;
                Ok(state.ty.clone())
            }
            // Projections are checked by `place`.
            Place::Field(..) | Place::Index(..) | Place::Slice(..) => self.place(p, span),
        }
    }
}
