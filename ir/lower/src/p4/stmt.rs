//! Statements of controls, actions, parser states and deparsers.

use super::body::Fx;
use super::{Inst, Lw};
use scenic_frontend::p4::ast::{
    Block as PBlock, Expr as PExpr, ExprKind, Stmt as PStmt, StmtKind, SwitchCase, UnOp,
};
use scenic_frontend::p4::check::{Method, Res, Ty};
use scenic_ir::body::{Block, Case, Expr, Pattern, Place, Stmt};
use scenic_ir::types::{Const, Type};

/// Names of `standard_metadata` fields whose effect the IR cannot reproduce (multicast,
/// cloning, resubmission, priority queues): writing them is refused rather than ignored.
const UNSUPPORTED_STD_WRITES: &[&str] = &["mcast_grp", "egress_rid", "instance_type", "priority"];

impl Lw<'_> {
    /// Lowers a P4 block into a new IR block.
    pub(crate) fn block(&mut self, fx: &mut Fx, inst: &Inst, b: &PBlock) -> Block {
        let mut out = Block::default();
        for s in &b.stmts {
            self.stmt(fx, inst, s, &mut out);
        }
        out
    }

    /// Lowers one statement, appending to `out`.
    pub(crate) fn stmt(&mut self, fx: &mut Fx, inst: &Inst, s: &PStmt, out: &mut Block) {
        let span = self.span(s.span);
        match &s.kind {
            StmtKind::Block(b) => {
                let inner = self.block(fx, inst, b);
                out.push(Stmt::Block(inner), span);
            }
            StmtKind::Empty | StmtKind::Const(_) | StmtKind::Unsupported(_) => {}
            StmtKind::Assign(lhs, rhs) => self.assign(fx, inst, lhs, rhs, out),
            StmtKind::Call(e) => self.call_stmt(fx, inst, e, out),
            StmtKind::If(c, then, otherwise) => {
                if self.hit_condition(fx, inst, c, then, otherwise.as_deref(), out) {
                    return;
                }
                let cond = self.expr(fx, inst, c, out);
                let then = self.sub_block(fx, inst, then);
                let otherwise = otherwise
                    .as_ref()
                    .map(|o| self.sub_block(fx, inst, o))
                    .unwrap_or_default();
                out.push(Stmt::If(cond, then, otherwise), span);
            }
            StmtKind::Switch(on, cases) => self.switch(fx, inst, on, cases, out),
            StmtKind::Return(_) | StmtKind::Exit => out.push(Stmt::Return(None), span),
            StmtKind::Var(v) => {
                let Some(&id) = self.ck.var_at.get(&v.span.lo) else {
                    return;
                };
                let ty = self.ck.vars[id].ty.clone();
                let value = match &v.init {
                    Some(init) => Some(self.expr(fx, inst, init, out)),
                    None => self.zero(&mut fx.body, &ty, span),
                };
                let Some(value) = value else {
                    self.unsupported(v.span, "variables of this type without an initial value");
                    return;
                };
                if let Some(p @ Place::Meta(_)) = self.var_place(fx, inst, id) {
                    out.push(Stmt::Assign(p, value), span);
                    return;
                }
                let ir = self.ir_ty(&ty);
                let local = fx.body.local(v.name.name.clone(), ir, true);
                fx.locals.insert(id, local);
                out.push(Stmt::Let(local, value), span);
            }
        }
    }

    /// A statement as a block of its own (branches of `if`).
    fn sub_block(&mut self, fx: &mut Fx, inst: &Inst, s: &PStmt) -> Block {
        let mut b = Block::default();
        match &s.kind {
            StmtKind::Block(inner) => {
                for x in &inner.stmts {
                    self.stmt(fx, inst, x, &mut b);
                }
            }
            _ => self.stmt(fx, inst, s, &mut b),
        }
        b
    }

    fn assign(&mut self, fx: &mut Fx, inst: &Inst, lhs: &PExpr, rhs: &PExpr, out: &mut Block) {
        let span = self.span(lhs.span.to(rhs.span));
        if let Some(field) = self.std_meta_field(lhs) {
            if UNSUPPORTED_STD_WRITES.contains(&field.as_str()) {
                self.unsupported(
                    lhs.span,
                    format!(
                        "writing `standard_metadata.{field}` (multicast, cloning and priorities)"
                    ),
                );
                return;
            }
        }
        let value = self.expr(fx, inst, rhs, out);
        let Some(bound) = self.path(fx, inst, lhs) else {
            self.unsupported(lhs.span, "assigning to this expression");
            return;
        };
        let Some(place) = self.place(fx, &bound, span) else {
            self.unsupported(lhs.span, "assigning to this expression");
            return;
        };
        out.push(Stmt::Assign(place, value), span);
    }

    /// The field name if `e` is `<standard metadata>.field`.
    fn std_meta_field(&self, e: &PExpr) -> Option<String> {
        let ExprKind::Member(base, name) = &e.kind else {
            return None;
        };
        match self.ty_of(base) {
            Ty::Agg(a) if a == self.arch.std_meta => Some(name.name.clone()),
            _ => None,
        }
    }

    /// `if (t.apply().hit)` (or `.miss`, or negated): a switch on the application.
    fn hit_condition(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        c: &PExpr,
        then: &PStmt,
        otherwise: Option<&PStmt>,
        out: &mut Block,
    ) -> bool {
        let (mut negated, mut cond) = (false, c);
        while let ExprKind::Unary(UnOp::Not, x) = &cond.kind {
            negated = !negated;
            cond = x;
        }
        let (ExprKind::Member(call, _), res @ (Res::Hit | Res::Miss)) =
            (&cond.kind, self.res_of(cond))
        else {
            return false;
        };
        let Res::Method(Method::TableApply(t)) = self.res_of(call) else {
            return false;
        };
        let span = self.span(c.span);
        let table = self.table(inst, t);
        let hits = self.scu.tables[table].actions.len() / 2;
        let want_hit = (res == Res::Hit) != negated;
        let apply = fx
            .body
            .add(Expr::Apply(table), Type::TableResult(table), span);
        let then = self.sub_block(fx, inst, then);
        let otherwise = otherwise
            .map(|o| self.sub_block(fx, inst, o))
            .unwrap_or_default();
        let hit_patterns: Vec<Pattern> = (0..hits)
            .map(|p| Pattern::Value(Const::from_u64(p as u64)))
            .collect();
        let (case_body, default) = if want_hit {
            (then, otherwise)
        } else {
            (otherwise, then)
        };
        let cases = if hit_patterns.is_empty() {
            Vec::new()
        } else {
            vec![Case {
                patterns: hit_patterns,
                body: case_body,
            }]
        };
        out.push(
            Stmt::Switch {
                on: apply,
                cases,
                default,
            },
            span,
        );
        true
    }

    /// `switch (t.apply().action_run) { a: {...} default: {...} }`.
    fn switch(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        on: &PExpr,
        cases: &[SwitchCase],
        out: &mut Block,
    ) {
        let span = self.span(on.span);
        let ExprKind::Member(call, _) = &on.kind else {
            return self.unsupported(on.span, "this `switch`");
        };
        let Res::Method(Method::TableApply(t)) = self.res_of(call) else {
            return self.unsupported(on.span, "this `switch`");
        };
        let table = self.table(inst, t);
        let positions = self.action_positions(inst, t);
        let apply = fx
            .body
            .add(Expr::Apply(table), Type::TableResult(table), span);
        let mut ir_cases = Vec::new();
        let mut pending: Vec<Pattern> = Vec::new();
        let mut default = Block::default();
        for case in cases {
            let label = match &case.label {
                Some(l) => match self.res_of(l) {
                    Res::Action(at) => Some(at),
                    _ => None,
                },
                None => None,
            };
            if let Some(at) = label {
                for p in positions.iter().filter(|(a, _)| *a == at) {
                    pending.push(Pattern::Value(Const::from_u64(p.1 as u64)));
                }
            }
            let Some(body) = &case.body else {
                continue;
            };
            let block = self.block(fx, inst, body);
            if case.label.is_none() {
                default = block;
                pending.clear();
            } else if !pending.is_empty() {
                ir_cases.push(Case {
                    patterns: std::mem::take(&mut pending),
                    body: block,
                });
            }
        }
        out.push(
            Stmt::Switch {
                on: apply,
                cases: ir_cases,
                default,
            },
            span,
        );
    }
}
