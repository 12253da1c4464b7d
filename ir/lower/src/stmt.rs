//! Lowering statements, places and `match`.

use super::expr::BodyCx;
use super::method::{receiver, Receiver};
use super::{Lowerer, ScuCx};
use scenic_frontend::ast::{self, ExprKind, PatternKind, StmtKind};
use scenic_frontend::consteval::Value;
use scenic_ir::body::{Block, Case, Expr, NotifyTarget, Pattern, Stmt};
use scenic_ir::entities::*;
use scenic_ir::types::{Const, Type};

impl Lowerer<'_> {
    /// Lowers `block` into the body's top-level block.
    pub(crate) fn lower_block_into(&mut self, bcx: &mut BodyCx, block: &ast::Block, cx: &ScuCx) {
        let lowered = self.lower_block(bcx, block, cx);
        bcx.body.block = lowered;
    }

    /// Lowers a block in its own scope.
    pub(crate) fn lower_block(
        &mut self,
        bcx: &mut BodyCx,
        block: &ast::Block,
        cx: &ScuCx,
    ) -> Block {
        // A block nests in a statement of its enclosing block: one level per `else if` arm.
        scenic_ir::stack::grow(|| {
            bcx.push_scope();
            let mut out = Block::default();
            for stmt in &block.stmts {
                self.lower_stmt(bcx, stmt, &mut out, cx);
            }
            bcx.pop_scope();
            out
        })
    }

    pub(crate) fn lower_stmt(
        &mut self,
        bcx: &mut BodyCx,
        stmt: &ast::Stmt,
        out: &mut Block,
        cx: &ScuCx,
    ) {
        let span = bcx.span(self.db, stmt.span);
        let lowered = match &stmt.kind {
            StmtKind::Let { name, init, .. } => self.lower_let(bcx, name, init, cx),
            StmtKind::Assign { target, op, value } => {
                self.lower_assign(bcx, target, *op, value, out, span, cx)
            }
            StmtKind::Expr(e) => self.lower_effect(bcx, e, cx),
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let c = self.lower_expr(bcx, cond, Some(&Type::Bool), cx);
                let t = self.lower_block(bcx, then_block, cx);
                let f = else_block
                    .as_ref()
                    .map(|b| self.lower_block(bcx, b, cx))
                    .unwrap_or_default();
                Some(Stmt::If(c, t, f))
            }
            StmtKind::Match { scrutinee, arms } => Some(self.lower_match(bcx, scrutinee, arms, cx)),
            StmtKind::For {
                var,
                start,
                end,
                inclusive,
                body,
            } => self.lower_for(bcx, var, start, end, *inclusive, body, cx),
            StmtKind::Return(value) => {
                let ret = bcx.ret.clone();
                Some(Stmt::Return(
                    value
                        .as_ref()
                        .map(|v| self.lower_expr(bcx, v, Some(&ret), cx)),
                ))
            }
            StmtKind::Restart(name) => cx.timers.get(&name.name).map(|t| Stmt::Restart(*t)),
            StmtKind::Block(b) => Some(Stmt::Block(self.lower_block(bcx, b, cx))),
            StmtKind::Error => return,
        };
        match lowered {
            Some(s) => out.push(s, span),
            // A checked statement the lowering cannot build is an error, never a statement
            // that silently vanishes.
            None => self.unsupported(bcx.file, "this statement", stmt.span.lo),
        }
    }

    fn lower_let(
        &mut self,
        bcx: &mut BodyCx,
        name: &ast::Ident,
        init: &ast::Expr,
        cx: &ScuCx,
    ) -> Option<Stmt> {
        let ty = bcx
            .info(init)
            .map(|i| self.concrete(&i.ty.clone(), None, cx))
            .unwrap_or(Type::Unit);
        let value = self.lower_expr(bcx, init, Some(&ty), cx);
        if name.name == "_" {
            return Some(Stmt::Eval(value));
        }
        let local = bcx.body.local(name.name.clone(), ty, true);
        bcx.bind(&name.name, local);
        Some(Stmt::Let(local, value))
    }

    /// An expression statement: builtins with effects become statements, the rest `Eval`.
    fn lower_effect(&mut self, bcx: &mut BodyCx, e: &ast::Expr, cx: &ScuCx) -> Option<Stmt> {
        match &e.kind {
            ExprKind::Call { callee, args } => {
                if let ExprKind::Path(p) = &callee.kind {
                    if p.is_single() && bcx.lookup(&p.segments[0].name).is_none() {
                        if let Some(stmt) = self.builtin_stmt(bcx, &p.segments[0].name, args, cx) {
                            return Some(stmt);
                        }
                    }
                }
            }
            ExprKind::MethodCall {
                receiver: recv,
                method,
                args,
            } => {
                if let Some(stmt) = self.method_stmt(bcx, recv, &method.name, args, cx) {
                    return Some(stmt);
                }
            }
            _ => {}
        }
        let id = self.lower_expr(bcx, e, None, cx);
        Some(Stmt::Eval(id))
    }

    fn builtin_stmt(
        &mut self,
        bcx: &mut BodyCx,
        name: &str,
        args: &[ast::Expr],
        cx: &ScuCx,
    ) -> Option<Stmt> {
        if cx.functions.contains_key(name) || cx.actions.contains_key(name) {
            return None;
        }
        Some(match name {
            "drop" => Stmt::Drop,
            "to_host" => Stmt::ToHost,
            "to_network" => {
                Stmt::ToNetwork(self.lower_expr(bcx, args.first()?, Some(&Type::Bits(8)), cx))
            }
            "to_scu" => match &args.first()?.kind {
                ExprKind::Path(p) => Stmt::ToScu(*self.scu_ids.get(&p.last().name)?),
                _ => return None,
            },
            "notify" => {
                let target = match &args.first()?.kind {
                    ExprKind::Path(p) if p.last().name == "arm" => NotifyTarget::Arm,
                    _ => NotifyTarget::Host,
                };
                Stmt::Notify(
                    target,
                    self.lower_expr(bcx, args.get(1)?, Some(&Type::Bits(32)), cx),
                )
            }
            "pass" => Stmt::Pass(self.lower_expr(bcx, args.first()?, Some(&Type::Bits(512)), cx)),
            "extract" | "emit" => {
                let ExprKind::Path(p) = &args.first()?.kind else {
                    return None;
                };
                let inst = *cx.instances.get(&p.last().name)?;
                if name == "extract" {
                    Stmt::Extract(inst)
                } else {
                    Stmt::Emit(inst)
                }
            }
            _ => return None,
        })
    }

    fn method_stmt(
        &mut self,
        bcx: &mut BodyCx,
        recv: &ast::Expr,
        method: &str,
        args: &[ast::Expr],
        cx: &ScuCx,
    ) -> Option<Stmt> {
        match (receiver(bcx, recv, cx)?, method) {
            (Receiver::Counter(c), "count") => {
                let index = args.first().map(|i| self.lower_expr(bcx, i, None, cx));
                Some(Stmt::Count(c, index))
            }
            (Receiver::Out(o, index), "push") => {
                let index = index.map(|i| self.lower_expr(bcx, i, None, cx));
                let word = self.lower_expr(bcx, args.first()?, Some(&Type::Bits(512)), cx);
                Some(Stmt::Push(o, index, word))
            }
            (Receiver::Header(inst, index), m @ ("set_valid" | "set_invalid")) => {
                let index = index.map(|i| self.lower_expr(bcx, i, None, cx));
                Some(Stmt::SetValid(inst, index, m == "set_valid"))
            }
            _ => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_for(
        &mut self,
        bcx: &mut BodyCx,
        var: &ast::Ident,
        start: &ast::Expr,
        end: &ast::Expr,
        inclusive: bool,
        body: &ast::Block,
        cx: &ScuCx,
    ) -> Option<Stmt> {
        let first = bcx
            .info(start)
            .and_then(|i| i.value.clone())
            .and_then(|v| small(&v))?;
        let end_v = bcx
            .info(end)
            .and_then(|i| i.value.clone())
            .and_then(|v| small(&v))?;
        let last = if inclusive { end_v } else { end_v - 1 };
        let ty = if first < 0 {
            Type::Int(64)
        } else {
            Type::Bits(64)
        };
        bcx.push_scope();
        let local = bcx.body.local(var.name.clone(), ty, false);
        bcx.bind(&var.name, local);
        let block = self.lower_block(bcx, body, cx);
        bcx.pop_scope();
        Some(Stmt::For {
            var: local,
            first,
            last,
            body: block,
        })
    }

    fn lower_match(
        &mut self,
        bcx: &mut BodyCx,
        scrutinee: &ast::Expr,
        arms: &[ast::MatchArm],
        cx: &ScuCx,
    ) -> Stmt {
        let on = self.lower_expr(bcx, scrutinee, None, cx);
        let on_ty = bcx.body.types[on].clone();
        let mut cases = Vec::new();
        let mut default = Block::default();
        for (i, arm) in arms.iter().enumerate() {
            bcx.push_scope();
            let mut body = Block::default();
            let patterns = self.arm_patterns(bcx, &arm.pattern, &on_ty, on, &mut body, cx);
            for stmt in &arm.body.stmts {
                self.lower_stmt(bcx, stmt, &mut body, cx);
            }
            bcx.pop_scope();
            let is_last_wildcard =
                i + 1 == arms.len() && matches!(arm.pattern.kind, PatternKind::Wildcard);
            if is_last_wildcard {
                default = body;
            } else {
                cases.push(Case { patterns, body });
            }
        }
        Stmt::Switch { on, cases, default }
    }

    /// The IR patterns of an arm; bindings of table-action data become `Let`s at the top of `body`.
    fn arm_patterns(
        &mut self,
        bcx: &mut BodyCx,
        pattern: &ast::Pattern,
        ty: &Type,
        on: ExprId,
        body: &mut Block,
        cx: &ScuCx,
    ) -> Vec<Pattern> {
        match &pattern.kind {
            PatternKind::Or(alts) => alts
                .iter()
                .flat_map(|a| self.arm_patterns(bcx, a, ty, on, body, cx))
                .collect(),
            PatternKind::Ctor { path, bindings } => {
                let Type::TableResult(t) = ty else {
                    return vec![Pattern::Any];
                };
                let position = self.action_position(cx, *t, &path.last().name);
                self.bind_action_data(bcx, on, *t, position, bindings, body, cx);
                vec![Pattern::Value(Const::from_u64(u64::from(position)))]
            }
            _ => self.pattern_alternatives(bcx, pattern, ty, cx),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_action_data(
        &mut self,
        bcx: &mut BodyCx,
        on: ExprId,
        table: TableId,
        position: u32,
        bindings: &[Option<ast::Ident>],
        body: &mut Block,
        cx: &ScuCx,
    ) {
        let action = cx
            .table_actions
            .get(&table)
            .and_then(|a| a.get(position as usize))
            .copied();
        let params = action
            .map(|a| self.action_param_types(cx, a))
            .unwrap_or_default();
        for (k, (binding, pty)) in bindings.iter().zip(params).enumerate() {
            let Some(b) = binding else { continue };
            let span = bcx.span(self.db, b.span);
            let data = bcx.body.add(
                Expr::ActionData {
                    apply: on,
                    action: position,
                    param: k as u32,
                },
                pty.clone(),
                span,
            );
            let local = bcx.body.local(b.name.clone(), pty, false);
            bcx.bind(&b.name, local);
            body.push(Stmt::Let(local, data), span);
        }
    }

    /// The position of action `name` in table `t`'s action list.
    pub(crate) fn action_position(&self, cx: &ScuCx, t: TableId, name: &str) -> u32 {
        cx.table_action_names
            .get(&t)
            .and_then(|names| names.iter().position(|n| n == name))
            .unwrap_or(0) as u32
    }
}

fn small(v: &Value) -> Option<i64> {
    v.as_int().and_then(|i| i64::try_from(i).ok())
}
