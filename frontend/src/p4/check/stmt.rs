//! Statements, local declarations and places (what can be assigned).

use super::types::Ty;
use super::{Binding, Checker, Ctx, Method, Owner, Res, VarScope};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use num_bigint::BigInt;

impl Checker<'_> {
    /// Checks a block in a scope of its own.
    pub(super) fn block(&mut self, b: &Block) {
        self.scopes.push(Default::default());
        for s in &b.stmts {
            self.stmt(s);
        }
        self.scopes.pop();
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::Empty => {}
            StmtKind::Assign(lhs, rhs) => {
                let ty = self.expr(lhs);
                self.place(lhs);
                self.expr_expect(rhs, &ty);
            }
            StmtKind::Call(e) => {
                if !matches!(e.kind, ExprKind::Call { .. }) {
                    self.error(
                        Diagnostic::new(
                            codes::E0701,
                            e.span,
                            "this expression does nothing as a statement",
                        )
                        .label("expected a call or an assignment"),
                    );
                }
                self.expr(e);
            }
            StmtKind::If(c, then, otherwise) => {
                self.expr_expect(c, &Ty::Bool);
                self.scoped(then);
                if let Some(o) = otherwise {
                    self.scoped(o);
                }
            }
            StmtKind::Switch(on, cases) => self.switch(on, cases),
            StmtKind::Return(value) => self.return_stmt(s, value.as_ref()),
            StmtKind::Exit => {
                if !matches!(self.ctx, Ctx::Apply(_)) {
                    self.unsupported(s.span, "`exit` outside a control's `apply` block");
                }
            }
            StmtKind::Var(v) => self.var_decl(v),
            StmtKind::Const(c) => {
                let binding = self.const_decl(c);
                self.declare_local(&c.name, binding);
            }
            StmtKind::Unsupported(what) => self.unsupported(s.span, what),
        }
    }

    /// A statement in a scope of its own (the branches of `if`).
    fn scoped(&mut self, s: &Stmt) {
        self.scopes.push(Default::default());
        self.stmt(s);
        self.scopes.pop();
    }

    fn return_stmt(&mut self, s: &Stmt, value: Option<&Expr>) {
        if let Some(v) = value {
            self.expr(v);
            self.error(
                self.type_error(v.span, "actions and controls return no value".into())
                    .label("remove the value"),
            );
        }
        match self.ctx {
            Ctx::Apply(_) | Ctx::Action(_) => {}
            _ => self.error(
                Diagnostic::new(codes::E0709, s.span, "`return` is not allowed here")
                    .label("only in an action or a control's `apply` block"),
            ),
        }
    }

    /// `T x [= e];`: a variable of the block (parsers and controls keep it for the packet) or of
    /// the statement block.
    pub(super) fn var_decl(&mut self, v: &VarDecl) {
        let ty = self.resolve_type(&v.ty);
        let ok = matches!(
            ty,
            Ty::Bits(_)
                | Ty::Int(_)
                | Ty::Bool
                | Ty::Error
                | Ty::Enum(_)
                | Ty::Agg(_)
                | Ty::Unknown
        );
        if let Ty::Unsupported(what) = &ty {
            let what = what.clone();
            self.unsupported(v.ty.span, &what);
        } else if !ok {
            let shown = self.out.env.show(&ty).to_string();
            self.unsupported(v.ty.span, &format!("variables of type `{shown}`"));
        }
        if let Some(init) = &v.init {
            self.expr_expect(init, &ty);
        }
        // Parser variables outlive their state (a state may be split at `verify`, and states
        // share nothing else), so they live in the packet's metadata like block-level ones.
        let scope = match self.ctx {
            Ctx::Parser(p) => VarScope::Block(p),
            _ => VarScope::Local,
        };
        let id = self.new_var(&v.name.name, ty.clone(), scope, v.span);
        self.out.var_at.insert(v.span.lo, id);
        self.declare_local(&v.name, Binding::Var(id, ty));
    }

    fn switch(&mut self, on: &Expr, cases: &[SwitchCase]) {
        let ty = self.expr(on);
        let table = match (&on.kind, &ty) {
            (ExprKind::Member(call, _), Ty::ActionRun) => match self.out.res.get(call.id.index()) {
                Some(Res::Method(Method::TableApply(t))) => Some(*t),
                _ => None,
            },
            _ => None,
        };
        let actions = table
            .and_then(|t| self.out.tables.get(&t))
            .map(|t| t.actions.clone())
            .unwrap_or_default();
        let mut seen: Vec<BigInt> = Vec::new();
        for case in cases {
            if let Some(label) = &case.label {
                if ty == Ty::ActionRun {
                    self.action_label(label, &actions, &mut seen);
                } else if !ty.is_unknown() {
                    self.unsupported(label.span, "`switch` on values other than `action_run`");
                }
            }
            if let Some(body) = &case.body {
                self.block(body);
            }
        }
        if !matches!(ty, Ty::ActionRun | Ty::Unknown) && cases.is_empty() {
            self.unsupported(on.span, "`switch` on values other than `action_run`");
        }
    }

    /// A `switch (t.apply().action_run)` label: an action of the table.
    fn action_label(&mut self, label: &Expr, actions: &[super::DeclRef], seen: &mut Vec<BigInt>) {
        let ExprKind::Name(n) = &label.kind else {
            self.error(
                self.type_error(
                    label.span,
                    "expected the name of one of the table's actions".into(),
                )
                .label("not an action name"),
            );
            return;
        };
        match self.lookup(&n.name) {
            Some(Binding::Action(at)) => match actions.iter().position(|a| *a == at) {
                Some(pos) => {
                    self.set_res(label.id, Res::Action(at));
                    let p = BigInt::from(pos);
                    if seen.contains(&p) {
                        self.error(
                            Diagnostic::new(
                                codes::E0704,
                                label.span,
                                format!("action `{}` has two cases", n.name),
                            )
                            .label("already handled above"),
                        );
                    }
                    seen.push(p);
                }
                None => self.error(
                    Diagnostic::new(
                        codes::E0710,
                        label.span,
                        format!("`{}` is not an action of this table", n.name),
                    )
                    .label("not in the table's `actions`"),
                ),
            },
            Some(_) => self.error(
                self.type_error(label.span, format!("`{}` is not an action", n.name))
                    .label("expected an action name"),
            ),
            None => self.unknown_name(n, "action"),
        }
    }

    /// Checks that an expression can be assigned (E0712 otherwise).
    pub(super) fn place(&mut self, e: &Expr) {
        if let Err(why) = self.place_ok(e) {
            if why.is_empty() {
                return;
            }
            self.error(
                Diagnostic::new(codes::E0712, e.span, "cannot assign to this expression")
                    .label(why),
            );
        }
    }

    /// `Ok` for a place; `Err("")` when an error was already reported about it.
    fn place_ok(&self, e: &Expr) -> Result<(), String> {
        match &e.kind {
            ExprKind::Name(n) => match self.lookup(&n.name) {
                Some(Binding::Var(..)) => Ok(()),
                Some(Binding::Param(_, _, _, Direction::Out | Direction::InOut)) => Ok(()),
                Some(Binding::Param(Owner::Action(_), _, _, _)) => {
                    Err("action data cannot be assigned".into())
                }
                Some(Binding::Param(..)) => Err(format!("`{}` is an `in` parameter", n.name)),
                Some(Binding::Const(..)) => Err(format!("`{}` is a constant", n.name)),
                None => Err(String::new()),
                Some(_) => Err(format!("`{}` is not a variable", n.name)),
            },
            ExprKind::Member(base, _) => match self.out.res.get(e.id.index()) {
                Some(Res::Field(_)) => self.place_ok(base),
                Some(Res::None) | None => Err(String::new()),
                _ => Err("not a field".into()),
            },
            ExprKind::Index(base, _) | ExprKind::Slice(base, _, _) => self.place_ok(base),
            ExprKind::Error => Err(String::new()),
            _ if self.type_of(e.id).is_unknown() => Err(String::new()),
            _ => Err("not a variable, parameter or field".into()),
        }
    }

    /// Whether an expression names storage (a variable, parameter or field of one).
    pub(super) fn is_place_expr(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(_) => matches!(
                self.out.res.get(e.id.index()),
                Some(Res::Var(_) | Res::Param(..))
            ),
            ExprKind::Member(base, _) => {
                matches!(self.out.res.get(e.id.index()), Some(Res::Field(_)))
                    && self.is_place_expr(base)
            }
            ExprKind::Index(base, _) | ExprKind::Slice(base, _, _) => self.is_place_expr(base),
            _ => false,
        }
    }

    /// Whether a header expression denotes a header of the packet: a path of fields and stack
    /// elements from a parser's or control's parameter.
    pub(super) fn is_instance_path(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(_) => matches!(
                self.out.res.get(e.id.index()),
                Some(Res::Param(Owner::Block(_), _))
            ),
            ExprKind::Member(base, _) => {
                matches!(self.out.res.get(e.id.index()), Some(Res::Field(_)))
                    && self.is_instance_path(base)
            }
            ExprKind::Index(base, _) => self.is_instance_path(base),
            _ => false,
        }
    }
}
