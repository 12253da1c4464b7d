//! Lowering tables: keys, actions (declared and inline), the default action and constant entries.

use super::expr::BodyCx;
use super::pattern::prefix_mask;
use super::{Lowerer, ScuCx};
use scenic_frontend::ast::{self, ExprKind, PatternKind, TableDecl};
use scenic_frontend::db::SourceFile;
use scenic_frontend::typeck::signature::{self as sig, sig_of, SigKind};
use scenic_ir::body::Body;
use scenic_ir::entities::*;
use scenic_ir::program::{Action, Entry, KeyMatch, MatchKind, Scu, TableKey};
use scenic_ir::types::Const;

impl Lowerer<'_> {
    pub(crate) fn lower_table(
        &mut self,
        file: SourceFile,
        chunk: u32,
        t: &TableDecl,
        scu: &mut Scu,
        cx: &mut ScuCx,
    ) {
        let Some(&id) = cx.tables.get(&t.name.name) else {
            return;
        };
        let SigKind::Table(tsig) = sig_of(self.db, file, chunk).kind.clone() else {
            return;
        };
        let mut key_cx = BodyCx::new(file, chunk, self.db);
        let mut keys = Vec::new();
        for (key, (_, kind)) in t.keys.iter().flat_map(|(k, _)| k).zip(&tsig.keys) {
            let expr = self.lower_expr(&mut key_cx, &key.expr, None, cx);
            let ty = key_cx.body.types[expr].clone();
            keys.push(TableKey {
                expr,
                kind: match kind {
                    sig::MatchKind::Exact => MatchKind::Exact,
                    sig::MatchKind::Lpm => MatchKind::Lpm,
                    sig::MatchKind::Ternary => MatchKind::Ternary,
                    sig::MatchKind::Range => MatchKind::Range,
                },
                ty,
                name: self.ast_text(file, chunk, key.expr.span),
            });
        }
        let actions: Vec<ActionId> = tsig
            .actions
            .iter()
            .map(|a| self.table_action(a, scu, cx))
            .collect();
        cx.table_actions.insert(id, actions.clone());
        cx.table_action_names
            .insert(id, tsig.actions.iter().map(|a| a.name.clone()).collect());
        let default = self.default_action(file, chunk, t, &tsig, &actions, cx);
        let entries = self.const_entries(file, chunk, t, &keys, cx);
        let is_const = tsig.size.is_none();
        let size = tsig.size.unwrap_or(entries.len() as u64);
        let span = scenic_frontend::db::chunk_span(self.db, file, chunk);
        let table = &mut scu.tables[id];
        table.key_body = key_cx.finish();
        table.keys = keys;
        table.actions = actions;
        table.default = default;
        table.size = size;
        table.const_entries = entries;
        table.is_const = is_const;
        table.span = scenic_ir::span::Span {
            file: crate::ir_file(file.id(self.db)),
            lo: span.lo,
            hi: span.hi,
        };
    }

    fn ast_text(&self, file: SourceFile, chunk: u32, span: scenic_frontend::span::Span) -> String {
        let base = scenic_frontend::db::chunk_span(self.db, file, chunk).lo as usize;
        file.text(self.db)
            .get(base + span.lo as usize..base + span.hi as usize)
            .unwrap_or("")
            .to_string()
    }

    /// The action id for an entry of a table's action list, creating inline actions.
    fn table_action(&mut self, a: &sig::ActionSig, scu: &mut Scu, cx: &mut ScuCx) -> ActionId {
        if a.has_body {
            if let Some(&id) = cx.actions.get(&a.name) {
                return id;
            }
        }
        if a.name == "no_action" {
            if let Some(id) = cx.no_action {
                return id;
            }
        }
        let mut body = Body::default();
        let mut tys = Vec::new();
        for (name, ty) in &a.params {
            let ty = self.lower_ty(ty, cx);
            tys.push(ty.clone());
            let local = body.local(name.clone(), ty, false);
            body.params.push(local);
        }
        let id = scu.actions.push(Action {
            name: a.name.clone(),
            body,
        });
        cx.action_params.insert(id, tys);
        if a.name == "no_action" {
            cx.no_action = Some(id);
        }
        id
    }

    fn default_action(
        &mut self,
        file: SourceFile,
        chunk: u32,
        t: &TableDecl,
        tsig: &sig::TableSig,
        actions: &[ActionId],
        cx: &ScuCx,
    ) -> (ActionId, Vec<Const>) {
        let Some(call) = &t.default else {
            let position = tsig
                .actions
                .iter()
                .position(|a| a.name == "no_action")
                .unwrap_or(0);
            return (
                actions
                    .get(position)
                    .copied()
                    .unwrap_or(ActionId::from_u32(0)),
                Vec::new(),
            );
        };
        let position = tsig
            .actions
            .iter()
            .position(|a| a.name == call.name.name)
            .unwrap_or(0);
        let action = actions
            .get(position)
            .copied()
            .unwrap_or(ActionId::from_u32(0));
        let params = self.action_param_types(cx, action);
        let args = call
            .args
            .iter()
            .zip(&params)
            .map(|(a, ty)| self.init_const(file, chunk, Some(a), ty))
            .collect();
        (action, args)
    }

    fn const_entries(
        &mut self,
        file: SourceFile,
        chunk: u32,
        t: &TableDecl,
        keys: &[TableKey],
        cx: &ScuCx,
    ) -> Vec<Entry> {
        let Some((entries, _)) = &t.entries else {
            return Vec::new();
        };
        let names = cx
            .table_action_names
            .get(cx.tables.get(&t.name.name).unwrap_or(&TableId::from_u32(0)))
            .cloned()
            .unwrap_or_default();
        let actions = cx
            .table_actions
            .get(cx.tables.get(&t.name.name).unwrap_or(&TableId::from_u32(0)))
            .cloned()
            .unwrap_or_default();
        let mut out = Vec::new();
        for (priority, entry) in entries.iter().enumerate() {
            let key_matches = entry
                .keys
                .iter()
                .zip(keys)
                .map(|(p, k)| self.key_match(file, chunk, p, k))
                .collect();
            let position = names
                .iter()
                .position(|n| *n == entry.action.name.name)
                .unwrap_or(0);
            let params = actions
                .get(position)
                .map(|a| self.action_param_types(cx, *a))
                .unwrap_or_default();
            let args = entry
                .action
                .args
                .iter()
                .zip(&params)
                .map(|(a, ty)| self.init_const(file, chunk, Some(a), ty))
                .collect();
            out.push(Entry {
                keys: key_matches,
                action: position as u32,
                args,
                priority: priority as u32,
            });
        }
        out
    }

    fn key_match(
        &self,
        file: SourceFile,
        chunk: u32,
        pattern: &ast::Pattern,
        key: &TableKey,
    ) -> KeyMatch {
        let width = self.width(&key.ty).unwrap_or(0);
        let value = |e: &ast::Expr| self.init_const(file, chunk, Some(e), &key.ty);
        match &pattern.kind {
            PatternKind::Wildcard => KeyMatch::Any,
            PatternKind::Masked { value: v, mask } => KeyMatch::Ternary(value(v), value(mask)),
            PatternKind::Range { lo, hi, inclusive } => {
                let hi_c = value(hi);
                let hi_c = if *inclusive {
                    hi_c
                } else {
                    Const(hi_c.0.clone().max(1u32.into()) - 1u32)
                };
                KeyMatch::Range(value(lo), hi_c)
            }
            PatternKind::Value(e) => match (&e.kind, key.kind) {
                (
                    ExprKind::Lit(ast::Literal::Ipv4 {
                        addr,
                        prefix: Some(len),
                    }),
                    k,
                ) => prefix_match(u128::from(*addr), u32::from(*len), 32, k),
                (
                    ExprKind::Lit(ast::Literal::Ipv6 {
                        addr,
                        prefix: Some(len),
                    }),
                    k,
                ) => prefix_match(*addr, u32::from(*len), 128, k),
                (_, MatchKind::Lpm) => KeyMatch::Lpm(value(e), width),
                (_, MatchKind::Ternary) => KeyMatch::Ternary(value(e), prefix_mask(width, width)),
                (_, MatchKind::Range) => KeyMatch::Range(value(e), value(e)),
                (_, MatchKind::Exact) => KeyMatch::Exact(value(e)),
            },
            _ => KeyMatch::Any,
        }
    }
}

fn prefix_match(addr: u128, len: u32, bits: u32, kind: MatchKind) -> KeyMatch {
    let value = Const(num_bigint::BigUint::from(addr));
    match kind {
        MatchKind::Ternary => KeyMatch::Ternary(value, prefix_mask(len, bits)),
        _ => KeyMatch::Lpm(value, len),
    }
}
