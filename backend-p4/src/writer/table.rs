//! Actions and tables of the control.
//!
//! An action keeps its body unless it was hoisted (Vitis, a body that needs a conditional): then
//! the P4 action only copies its data into control variables and the body runs after the lookup
//! ([`super::apply`]). Either way an action copies a parameter into its control variable when a
//! `match` arm reads it. A table's key uses the source key as its control-plane name
//! (`@name("ip.dst")`); a key whose value needs a computation (a guarded read) is computed into a
//! control variable before each application.

use super::body::{items, needs_flag, BodyWriter, Kind, Shared};
use super::types::{is_no_action, type_name};
use super::{Code, Ctx};
use crate::analysis::facts::Facts;
use crate::conv;
use crate::error::Error;
use crate::namer::Namer;
use num_traits::Zero;
use scenic_ir::{KeyMatch, Table, TableId, Type};
use std::collections::BTreeMap;

/// `@name("source")` when the P4 name differs from the source name.
fn name_annotation(p4: &str, source: &str) -> String {
    if p4 == source {
        String::new()
    } else {
        format!("@name(\"{source}\") ")
    }
}

/// Every action except `no_action` (core.p4's `NoAction`).
pub fn write_actions(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
) -> String {
    let mut code = Code::at(1);
    for (id, action) in cx.scu.actions.iter() {
        if is_no_action(action) {
            continue;
        }
        let name = cx.names.actions.get(&id).cloned().unwrap_or_default();
        let facts = cx
            .plan
            .action_entry
            .get(&id)
            .cloned()
            .unwrap_or_else(Facts::unknown);
        let mut w = BodyWriter::new(
            cx,
            &action.body,
            namer,
            shared,
            errors,
            Kind::Action,
            2,
            facts,
        );
        let params: Vec<String> = action
            .body
            .params
            .iter()
            .map(|&p| {
                let ty = action
                    .body
                    .locals
                    .get(p)
                    .map(|l| l.ty.clone())
                    .unwrap_or_default();
                format!("{} {}", type_name(cx, &ty), w.local(p))
            })
            .collect();
        for (i, &p) in action.body.params.iter().enumerate() {
            if let Some(var) = w.shared.action_data.get(&(id, i as u32)).cloned() {
                let local = w.local(p);
                w.code.line(format!("{var} = {local};"));
            }
        }
        if !w.shared.hoisted.contains(&id) {
            let list = items(&action.body.block);
            if needs_flag(w.shared, cx, &action.body, &list) {
                let ret = w.namer.helper("ret");
                w.code.line(format!("bool {ret} = false;"));
                w.exit_flag = Some(ret);
            }
            w.stmts(&list);
        }
        let body = w.code.text;
        code.line("");
        code.open(format!(
            "{}action {name}({}) {{",
            name_annotation(&name, &action.name),
            params.join(", ")
        ));
        code.text.push_str(&body);
        code.close("}");
    }
    code.text
}

/// Every table.
pub fn write_tables(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
    facts: &BTreeMap<TableId, Facts>,
) -> String {
    let mut code = Code::at(1);
    for (id, table) in cx.scu.tables.iter() {
        let name = cx.names.tables.get(&id).cloned().unwrap_or_default();
        let at = facts.get(&id).cloned().unwrap_or_else(Facts::unknown);
        let keys = key_strings(cx, namer, shared, errors, id, table, at);
        code.line("");
        code.open(format!(
            "{}table {name} {{",
            name_annotation(&name, &table.name)
        ));
        code.open("key = {");
        for (key, text) in table.keys.iter().zip(keys) {
            let kind = conv::match_kind(key.kind);
            code.line(format!("{text}: {kind} @name(\"{}\");", key.name));
        }
        code.close("}");
        let actions: Vec<String> = table
            .actions
            .iter()
            .filter_map(|a| cx.names.actions.get(a).cloned())
            .collect();
        code.line(format!("actions = {{ {}; }}", actions.join("; ")));
        let constant = if table.is_const { "const " } else { "" };
        let (default, args) = &table.default;
        code.line(format!(
            "{constant}default_action = {};",
            action_call(cx, *default, args)
        ));
        // A constant table with no entries has size 0, which P4 does not allow (`size` is a
        // positive number of entries, and the reader refuses 0); such a table is its default.
        if table.size > 0 {
            code.line(format!("size = {};", table.size));
        }
        if !table.const_entries.is_empty() {
            code.open(format!("{constant}entries = {{"));
            for entry in &table.const_entries {
                let keys: Vec<String> = entry
                    .keys
                    .iter()
                    .zip(&table.keys)
                    .map(|(m, k)| key_match(cx, m, &k.ty))
                    .collect();
                let keys = if keys.len() == 1 {
                    keys.concat()
                } else {
                    format!("({})", keys.join(", "))
                };
                let action = table.actions.get(entry.action as usize).copied();
                let call = action
                    .map(|a| action_call(cx, a, &entry.args))
                    .unwrap_or_default();
                code.line(format!("{keys}: {call};"));
            }
            code.close("}");
        }
        code.close("}");
    }
    code.text
}

/// The key expressions of a table; keys that need pre-statements get a control variable.
fn key_strings(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
    id: TableId,
    table: &Table,
    facts: Facts,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut vars = Vec::new();
    for (i, key) in table.keys.iter().enumerate() {
        let mut w = BodyWriter::new(
            cx,
            &table.key_body,
            namer,
            shared,
            errors,
            Kind::Control,
            2,
            facts.clone(),
        );
        w.begin();
        let text = super::body::strip(&w.expr(key.expr));
        if w.pre.text.is_empty() {
            out.push(text);
            vars.push(None);
        } else {
            let var = namer.helper(&format!("key_{}_{i}", table.name));
            shared
                .control_vars
                .push(format!("{} {var};", type_name(cx, &key.ty)));
            out.push(var.clone());
            vars.push(Some(var));
        }
    }
    shared.key_vars.insert(id, vars);
    out
}

/// `action(arg, ...)` with constant arguments.
fn action_call(cx: &Ctx<'_>, action: scenic_ir::ActionId, args: &[scenic_ir::Const]) -> String {
    let name = cx.names.actions.get(&action).cloned().unwrap_or_default();
    let params: Vec<Type> = cx
        .scu
        .actions
        .get(action)
        .map(|a| {
            a.body
                .params
                .iter()
                .filter_map(|p| a.body.locals.get(*p))
                .map(|l| l.ty.clone())
                .collect()
        })
        .unwrap_or_default();
    let args: Vec<String> = args
        .iter()
        .zip(&params)
        .map(|(c, t)| cx.literal(c, t))
        .collect();
    format!("{name}({})", args.join(", "))
}

/// One key of a constant entry.
fn key_match(cx: &Ctx<'_>, m: &KeyMatch, ty: &Type) -> String {
    let width = conv::scalar_width(ty, cx.module).unwrap_or(1).max(1);
    let lit = |c: &scenic_ir::Const| cx.literal(c, ty);
    match m {
        KeyMatch::Exact(c) => lit(c),
        KeyMatch::Lpm(_, 0) | KeyMatch::Any => "_".into(),
        KeyMatch::Lpm(c, len) if *len >= width => lit(c),
        KeyMatch::Lpm(c, len) => format!(
            "{} &&& {}",
            lit(c),
            conv::bits_literal(&conv::prefix_mask(*len, width), width)
        ),
        KeyMatch::Ternary(_, m) if m.0.is_zero() => "_".into(),
        KeyMatch::Ternary(v, m) => format!("{} &&& {}", lit(v), lit(m)),
        KeyMatch::Range(lo, hi) => format!("{} .. {}", lit(lo), lit(hi)),
    }
}
