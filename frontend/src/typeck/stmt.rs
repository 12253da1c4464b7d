//! Statements: scopes, places, control flow, loops, returns, and the path counts behind the
//! one-apply-per-table rule.

use super::{max_counts, BodyKind, Checker, Local, PathCounts, Typed};
use crate::ast::*;
use crate::consteval::Value;
use crate::diag::{codes, Diagnostic};
use crate::resolve::index::MemberDefKind;
use crate::types::Ty;

/// The most iterations a `for` loop may unroll to.
pub const MAX_ITERATIONS: u64 = 1024;

impl Checker<'_> {
    /// A block in its own scope.
    pub(crate) fn block(&mut self, block: &Block) {
        self.push_scope();
        self.stmts(&block.stmts);
        self.pop_scope();
    }

    /// Statements in the current scope, warning once about code after the path ended.
    pub(crate) fn stmts(&mut self, stmts: &[Stmt]) {
        let mut warned = false;
        for stmt in stmts {
            if self.ended && !warned {
                self.report(
                    Diagnostic::new(codes::W0005, stmt.span, "unreachable statement")
                        .label("never runs")
                        .note("an earlier `return` or `drop()` ends this path"),
                );
                warned = true;
            }
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        crate::stack::grow(|| self.stmt_inner(stmt))
    }

    fn stmt_inner(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            } => self.let_stmt(name, *mutable, ty.as_ref(), init),
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value),
            StmtKind::Expr(e) => self.expr_stmt(e),
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => self.if_stmt(cond, then_block, else_block.as_ref()),
            StmtKind::Match { scrutinee, arms } => self.match_stmt(scrutinee, arms, stmt.span),
            StmtKind::For {
                var,
                start,
                end,
                inclusive,
                body,
            } => self.for_stmt(var, start, end, *inclusive, body),
            StmtKind::Return(value) => self.return_stmt(value.as_ref(), stmt.span),
            StmtKind::Restart(name) => self.restart(name),
            StmtKind::Block(b) => self.block(b),
            StmtKind::Error => {}
        }
    }

    fn let_stmt(&mut self, name: &Ident, mutable: bool, ty: Option<&TypeExpr>, init: &Expr) {
        let ty_span = ty.map_or(init.span, |t| t.span);
        let declared = ty.map(|t| self.resolve_type(t));
        let typed = match &declared {
            Some(t) => self.expect_ty(init, t),
            None => self.expr(init, None),
        };
        let ty = match (declared, &typed.ty) {
            (Some(t), _) => t,
            (None, Ty::IntLit | Ty::DecimalLit) => {
                self.report(
                    Diagnostic::new(
                        codes::E0209,
                        init.span,
                        format!("cannot infer the type of `{}`", name.name),
                    )
                    .label("a constant has no width of its own")
                    .help(format!(
                        "write the type: `let {}: bit<8> = ...;`",
                        name.name
                    )),
                );
                Ty::Error
            }
            (None, Ty::Unit) => {
                self.error(
                    codes::E0201,
                    init.span,
                    "this expression has no value",
                    "returns nothing",
                );
                Ty::Error
            }
            (None, t) => t.clone(),
        };
        let ty = self.no_header_value(ty, ty_span);
        if name.name == "_" {
            return;
        }
        self.declare(Local {
            name: name.name.clone(),
            ty,
            mutable,
            value: None,
            span: name.span,
            used: false,
            what: "variable",
        });
    }

    /// A variable cannot hold a header or a header stack (E0201): headers live in `headers { }`.
    fn no_header_value(&mut self, ty: Ty, span: crate::span::Span) -> Ty {
        let is_header = match &ty {
            Ty::Header(_) => true,
            Ty::Array(elem, _) => matches!(**elem, Ty::Header(_)),
            _ => false,
        };
        if !is_header {
            return ty;
        }
        self.report(
            Diagnostic::new(
                codes::E0201,
                span,
                format!("a variable cannot hold a header (`{ty}`)"),
            )
            .label("header type")
            .note("header instances are declared in `headers { }` and live for one packet")
            .help("copy the fields you need into a struct or into `meta`"),
        );
        Ty::Error
    }

    fn assign(&mut self, target: &Expr, op: Option<BinaryOp>, value: &Expr) {
        if self.kind == BodyKind::Parser && !self.parser_may_assign(target) {
            self.report(
                Diagnostic::new(
                    codes::E0501,
                    target.span,
                    "a parser state can only assign `meta` fields and its own variables",
                )
                .label("not allowed in a parser")
                .note("headers are filled by `extract`; CSRs and other state change in the control")
                .help("keep the value in a `meta` field and use it in the control"),
            );
            self.expr(value, None);
            return;
        }
        let Some(target_ty) = self.place(target) else {
            self.expr(value, None);
            return;
        };
        match op {
            None => {
                self.expect_ty(value, &target_ty);
            }
            Some(op) => {
                let typed = self.binary(
                    op,
                    target,
                    value,
                    target.span.to(value.span),
                    Some(&target_ty),
                );
                if !typed.ty.is_error() && typed.ty != target_ty && typed.ty != Ty::IntLit {
                    self.mismatch(
                        &target_ty,
                        &typed.ty,
                        value.span,
                        &format!("after `{}=`", op.symbol()),
                    );
                }
            }
        }
    }

    /// Whether a parser state may assign `target`: a `meta` field or one of its own variables.
    fn parser_may_assign(&self, target: &Expr) -> bool {
        match &target.kind {
            ExprKind::Field { base, .. }
            | ExprKind::Index { base, .. }
            | ExprKind::Slice { base, .. } => self.parser_may_assign(base),
            ExprKind::Path(p) if p.is_single() => {
                let name = &p.segments[0].name;
                name == "meta" || self.find_local(name).is_some_and(|l| l.what == "variable")
            }
            _ => true,
        }
    }

    /// Checks that `target` can be assigned and returns its type.
    fn place(&mut self, target: &Expr) -> Option<Ty> {
        match &target.kind {
            ExprKind::Path(path) if path.is_single() => self.name_place(&path.segments[0], target),
            ExprKind::Field { base, .. } | ExprKind::Index { base, .. } => {
                self.place_base(base)?;
                let ty = self.expr(target, None).ty;
                (!ty.is_error()).then_some(ty)
            }
            // A slice of a place is a place: `h.flags[0:0] = 1` writes one bit.
            ExprKind::Slice { base, .. } => {
                self.place(base)?;
                let ty = self.expr(target, None).ty;
                (!ty.is_error()).then_some(ty)
            }
            _ => {
                self.expr(target, None);
                self.error(
                    codes::E0212,
                    target.span,
                    "cannot assign to this expression",
                    "not a variable, field or register",
                );
                None
            }
        }
    }

    fn name_place(&mut self, name: &Ident, target: &Expr) -> Option<Ty> {
        if let Some(local) = self.find_local(&name.name).cloned() {
            return self.local_place(&local, target);
        }
        let member_kind = self
            .container()
            .and_then(|c| c.members.get(&name.name))
            .map(|e| e.kind);
        let ty = self.expr(target, None).ty;
        match member_kind {
            Some(MemberDefKind::Csr) if self.kind == BodyKind::Deparser => {
                self.report(
                    Diagnostic::new(
                        codes::E0501,
                        target.span,
                        format!("CSR `{}` cannot be written in a deparser", name.name),
                    )
                    .label("not allowed here")
                    .note("CSRs are written by the control, actions, `stream` and `every`")
                    .help("update it in the control block"),
                );
                None
            }
            Some(MemberDefKind::Csr | MemberDefKind::State) => (!ty.is_error()).then_some(ty),
            Some(kind) if !ty.is_error() => {
                let what = super::name::member_kind_name(kind);
                let help = match kind {
                    MemberDefKind::Param => {
                        "params are set by the host; keep a copy in a `csr` or `state` to change it"
                    }
                    MemberDefKind::Const => "constants never change",
                    _ => "only variables, CSRs, state, metadata and header fields can be assigned",
                };
                self.report(
                    Diagnostic::new(
                        codes::E0212,
                        target.span,
                        format!("cannot assign to {what} `{}`", name.name),
                    )
                    .label("cannot assign")
                    .help(help),
                );
                None
            }
            _ => {
                if !ty.is_error() {
                    self.not_a_place(name, target);
                }
                None
            }
        }
    }

    /// A local as the target of an assignment: only `let mut` variables can change.
    fn local_place(&mut self, local: &Local, target: &Expr) -> Option<Ty> {
        if local.what == "builtin" && !local.mutable {
            self.read_only_builtin(&local.name, target.span);
            return None;
        }
        if local.mutable {
            return Some(local.ty.clone());
        }
        let help = if local.what == "variable" {
            format!("declare it with `let mut {}`", local.name)
        } else {
            format!(
                "copy it into a variable first: `let mut {} = {};`",
                local.name, local.name
            )
        };
        self.report(
            Diagnostic::new(
                codes::E0212,
                target.span,
                format!("cannot assign to immutable {} `{}`", local.what, local.name),
            )
            .label("cannot assign")
            .secondary(local.span, "declared here")
            .help(help),
        );
        None
    }

    /// A name that is neither a local nor a member: a top-level constant, the flow binding, ...
    fn not_a_place(&mut self, name: &Ident, target: &Expr) {
        let is_const = matches!(
            crate::resolve::lookup::lookup_module_name(self.db, self.file, &name.name),
            Some(crate::resolve::lookup::ModuleRes::Item(_, e))
                if e.kind == crate::resolve::index::DefKind::Const
        );
        let (what, help) = if is_const {
            (
                "constant ",
                "constants never change; keep a value that changes in a `csr`, or a `let mut` copy",
            )
        } else if self.is_attach_binding(&name.name) {
            ("the flow binding ", "it names the flow this scu runs for and is read-only; copy it into a `let mut` to change it")
        } else {
            (
                "",
                "only variables, CSRs, state, metadata and header fields can be assigned",
            )
        };
        self.report(
            Diagnostic::new(
                codes::E0212,
                target.span,
                format!("cannot assign to {what}`{}`", name.name),
            )
            .label("not assignable")
            .help(help),
        );
    }

    fn read_only_builtin(&mut self, name: &str, span: crate::span::Span) {
        self.report(
            Diagnostic::new(codes::E0212, span, format!("`{name}` is read-only"))
                .label("cannot assign to its fields")
                .note("packet and beat properties come from the NIC")
                .help("keep a changed copy in a `let mut` variable or a `meta` field"),
        );
    }

    /// The base of a field or index place must itself be assignable storage.
    fn place_base(&mut self, base: &Expr) -> Option<()> {
        match &base.kind {
            ExprKind::Path(path) if path.is_single() => {
                let name = &path.segments[0].name;
                if let Some(local) = self.find_local(name).cloned() {
                    if !local.mutable {
                        self.name_place(&path.segments[0], base)?;
                    }
                    return Some(());
                }
                let kind = self
                    .container()
                    .and_then(|c| c.members.get(name))
                    .map(|e| e.kind);
                match (name.as_str(), kind) {
                    (
                        _,
                        Some(MemberDefKind::HeaderInst | MemberDefKind::Csr | MemberDefKind::State),
                    ) => Some(()),
                    ("meta", None) => Some(()),
                    ("packet" | "beat", None) => {
                        self.read_only_builtin(name, base.span);
                        None
                    }
                    _ => {
                        self.name_place(&path.segments[0], base)?;
                        Some(())
                    }
                }
            }
            ExprKind::Field { base, .. } | ExprKind::Index { base, .. } => self.place_base(base),
            _ => {
                self.expr(base, None);
                let mut diag = Diagnostic::new(
                    codes::E0212,
                    base.span,
                    "cannot assign into this expression",
                )
                .label("not storage");
                if matches!(base.kind, ExprKind::MethodCall { .. }) {
                    diag = diag.help(
                        "a map value is a copy: `let mut v = m.get(k); v.f = x; let _ = m.insert(k, v);`",
                    );
                }
                self.report(diag);
                None
            }
        }
    }

    fn expr_stmt(&mut self, e: &Expr) {
        let typed = self.expr(e, None);
        match &e.kind {
            ExprKind::MethodCall {
                method, receiver, ..
            } if method.name == "insert" && typed.ty == Ty::Bool => {
                let map = match &receiver.kind {
                    ExprKind::Path(p) => p.text(),
                    _ => "the map".into(),
                };
                self.report(
                    Diagnostic::new(codes::W0004, e.span, "the result of `insert` is ignored")
                        .label("returns false when the map is full")
                        .help(format!("handle a full map: `if !{map}.insert(k, v) {{ ... }}`, or write `let _ = {map}.insert(k, v);`")),
                );
            }
            ExprKind::Call { .. } | ExprKind::MethodCall { .. } | ExprKind::Error => {}
            ExprKind::If { .. } if !typed.ty.is_error() => self.report(
                Diagnostic::new(codes::W0004, e.span, "the value of this `if` is thrown away")
                    .label("an `if` expression used as a statement")
                    .help("for an `if` statement, end the statements in its blocks with `;`: `if c { f(); } else { g(); }`"),
            ),
            _ if !typed.ty.is_error() => self.report(
                Diagnostic::new(
                    codes::W0004,
                    e.span,
                    "this value is computed and thrown away",
                )
                .label("statement has no effect")
                .help("assign it, or remove it"),
            ),
            _ => {}
        }
    }

    /// Types an `if` condition, which must be a `bool` (E0201); a poison value otherwise.
    pub(crate) fn condition(&mut self, cond: &Expr) -> Typed {
        let typed = self.expr(cond, None);
        if typed.ty != Ty::Bool && !typed.ty.is_error() {
            let help = if typed.ty.is_integer() {
                "compare it: `x != 0`"
            } else {
                "a condition is a bool"
            };
            self.report(
                Diagnostic::new(
                    codes::E0201,
                    cond.span,
                    format!("expected a bool condition, found `{}`", typed.ty),
                )
                .label("not a bool")
                .help(help),
            );
            return Typed::error();
        }
        typed
    }

    fn if_stmt(&mut self, cond: &Expr, then_block: &Block, else_block: Option<&Block>) {
        self.condition(cond);
        let (before, ended_before) = (self.path.clone(), self.ended);
        self.block(then_block);
        let (then_path, then_ended) = (std::mem::replace(&mut self.path, before), self.ended);
        self.ended = ended_before;
        let else_ended = match else_block {
            Some(b) => {
                self.block(b);
                self.ended
            }
            None => ended_before,
        };
        self.path = max_counts(&then_path, &self.path);
        self.ended = then_ended && else_ended;
    }

    fn match_stmt(&mut self, scrutinee: &Expr, arms: &[MatchArm], span: crate::span::Span) {
        let typed = self.expr(scrutinee, None);
        let (before, ended_before) = (self.path.clone(), self.ended);
        let mut merged: PathCounts = before.clone();
        let mut all_ended = true;
        let mut coverage = super::pattern::Coverage::default();
        for arm in arms {
            self.path = before.clone();
            self.ended = ended_before;
            self.push_scope();
            self.arm_pattern(&arm.pattern, &typed.ty, &mut coverage);
            self.stmts(&arm.body.stmts);
            self.pop_scope();
            merged = max_counts(&merged, &self.path);
            all_ended &= self.ended;
        }
        let exhaustive = self.check_exhaustive(&typed.ty, &coverage, scrutinee.span.to(span));
        self.path = merged;
        self.ended = ended_before || (all_ended && exhaustive && !arms.is_empty());
    }

    fn for_stmt(&mut self, var: &Ident, start: &Expr, end: &Expr, inclusive: bool, body: &Block) {
        let lo = self.loop_bound(start);
        let hi = self.loop_bound(end);
        let (Some(lo), Some(hi)) = (lo, hi) else {
            self.rejected_loop_body(var, 0, body);
            return;
        };
        let last = if inclusive { hi } else { hi - 1 };
        let iterations = if last < lo { 0 } else { (last - lo + 1) as u64 };
        if iterations == 0 {
            self.report(
                Diagnostic::new(
                    codes::E0504,
                    start.span.to(end.span),
                    "this loop never runs",
                )
                .label("empty range")
                .help(if inclusive {
                    "check the bounds"
                } else {
                    "use `..=` to include the last value"
                }),
            );
            self.rejected_loop_body(var, lo, body);
            return;
        }
        if iterations > MAX_ITERATIONS {
            self.report(
                Diagnostic::new(
                    codes::E0504,
                    start.span.to(end.span),
                    format!("this loop unrolls to {iterations} copies"),
                )
                .label(format!("more than {MAX_ITERATIONS} iterations"))
                .note("loops are unrolled into parallel hardware; bound them tightly"),
            );
            self.rejected_loop_body(var, lo, body);
            return;
        }
        let before = self.path.clone();
        self.path = PathCounts::new();
        self.loop_body(var, lo, body);
        let body_counts = std::mem::take(&mut self.path);
        if iterations > 1 {
            let seen: Vec<Diagnostic> = self.diags.clone();
            self.loop_body(var, last, body);
            self.path.clear();
            let mut fresh = self.diags.split_off(seen.len());
            fresh.retain(|d| !seen.contains(d));
            self.diags.extend(fresh);
        }
        self.path = before;
        for (key, n) in body_counts {
            self.count(key, n.saturating_mul(iterations as u32));
        }
    }

    /// The body of a loop that was rejected: names it uses count as used, but what it reports is
    /// dropped, since the loop variable has no meaningful value.
    fn rejected_loop_body(&mut self, var: &Ident, value: i64, body: &Block) {
        let (before, path, ended) = (self.diags.len(), self.path.clone(), self.ended);
        self.loop_body(var, value, body);
        self.diags.truncate(before);
        self.path = path;
        self.ended = ended;
    }

    fn loop_body(&mut self, var: &Ident, value: i64, body: &Block) {
        self.push_scope();
        self.declare(Local {
            name: var.name.clone(),
            ty: Ty::IntLit,
            mutable: false,
            value: Some(Value::int(value)),
            span: var.span,
            used: false,
            what: "loop variable",
        });
        self.stmts(&body.stmts);
        self.pop_scope();
        self.ended = false;
    }

    fn loop_bound(&mut self, e: &Expr) -> Option<i64> {
        let typed = self.expr(e, None);
        match typed.value.as_ref().and_then(super::expr::small_int) {
            Some(v) => Some(v),
            None if typed.ty.is_error() => None,
            None => {
                self.report(
                    Diagnostic::new(codes::E0504, e.span, "loop bounds must be constants")
                        .label("only known at run time")
                        .note(
                            "loops are unrolled at compile time; every iteration becomes hardware",
                        ),
                );
                None
            }
        }
    }

    fn return_stmt(&mut self, value: Option<&Expr>, span: crate::span::Span) {
        let ret = match &self.kind {
            BodyKind::Fn { ret, .. } => ret.clone(),
            BodyKind::Const => {
                self.error(
                    codes::E0501,
                    span,
                    "`return` is not allowed here",
                    "not in a body",
                );
                return;
            }
            _ => Ty::Unit,
        };
        match (value, &ret) {
            (Some(v), Ty::Unit) => {
                self.expr(v, None);
                self.report(
                    Diagnostic::new(
                        codes::E0506,
                        v.span,
                        format!("{} does not return a value", self.body_name()),
                    )
                    .label("unexpected value")
                    .help(if matches!(self.kind, BodyKind::Fn { .. }) {
                        "write `return;`, or give the function a return type: `fn f() -> bit<8>`"
                    } else {
                        "write `return;` (to pass a value on, store it in a CSR or a `meta` field)"
                    }),
                );
            }
            (None, t) if *t != Ty::Unit && !t.is_error() => self.report(
                Diagnostic::new(codes::E0506, span, format!("this function returns `{t}`"))
                    .label("`return` without a value")
                    .help(format!("return a `{t}`: `return value;`")),
            ),
            (Some(v), t) => {
                self.expect_ty(v, t);
            }
            (None, _) => {}
        }
        self.ended = true;
    }

    fn restart(&mut self, name: &Ident) {
        if self.kind != BodyKind::CcHandler
            && !matches!(
                self.kind,
                BodyKind::Fn {
                    in_scu: Some(false),
                    ..
                }
            )
        {
            self.report(
                Diagnostic::new(
                    codes::E0601,
                    name.span,
                    "`restart` is only allowed in congestion controllers",
                )
                .label("not a timer or byte counter of a cc")
                .help("an scu runs periodic work in `every T { }` blocks, which need no restart"),
            );
            return;
        }
        let kind = self
            .container()
            .and_then(|c| c.members.get(&name.name))
            .map(|e| e.kind);
        match kind {
            Some(MemberDefKind::Timer | MemberDefKind::ByteCounter) => self.note_use(&name.name),
            _ => self.report(
                Diagnostic::new(codes::E0601, name.span, format!("`{}` is not a timer or byte counter", name.name))
                    .label("cannot restart this")
                    .help("declare one with `on timer NAME every 55us { }` or `on bytes NAME every 10MB { }`"),
            ),
        }
    }
}
