//! The main control (v1model `ScuIngress`, Vitis `ScuMatchAction`): CSR registers or counters,
//! counters, control variables, actions, tables and the `apply` block; and v1model's other, empty
//! controls.
//!
//! The `apply` block reads the CSR registers (v1model), sets the default destination, runs the
//! control when the parser accepted and `on parser_error` (or a drop) when it rejected, runs the
//! deparser's computations, and writes the changed CSR registers back.

use super::body::{items, needs_flag, BodyWriter, Kind, Shared};
use super::target::{self, STANDARD_METADATA};
use super::types::{csr_annotation, is_no_action, type_name};
use super::{Code, Ctx};
use crate::analysis::csr::CsrKind;
use crate::analysis::facts::Facts;
use crate::analysis::flow::{walk_block, Site};
use crate::analysis::{control_entry, walk};
use crate::error::Error;
use crate::namer::Namer;
use crate::Target;
use scenic_ir::{ActionId, Attach, Expr, TableId};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Writes the controls between the parser and the deparser.
pub fn write_controls(cx: &Ctx<'_>, out: &mut String, errors: &mut Vec<Error>) {
    if cx.target == Target::V1Model {
        out.push_str("\ncontrol ScuVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {\n    apply { }\n}\n");
    }
    let name = match cx.target {
        Target::VitisP4 => "ScuMatchAction",
        Target::V1Model => "ScuIngress",
    };
    let mut namer = cx.names.control_namer.clone();
    let mut shared = Shared {
        done_flag: cx.names.done_flag.clone(),
        ..Shared::default()
    };
    shared.drops = dropping_actions(cx);
    collect_action_data(cx, &mut namer, &mut shared);
    if cx.target == Target::VitisP4 {
        decide_hoisting(cx, &mut namer, &mut shared);
    }
    let actions = super::table::write_actions(cx, &mut namer, &mut shared, errors);
    let tables = super::table::write_tables(cx, &mut namer, &mut shared, errors, &table_facts(cx));
    let apply = write_apply(cx, &mut namer, &mut shared, errors);
    let _ = writeln!(out, "\ncontrol {name}({}) {{", target::control_params());
    out.push_str(&declarations(cx, &shared));
    out.push_str(&actions);
    out.push_str(&tables);
    out.push_str(&apply);
    out.push_str("}\n");
    if cx.target == Target::V1Model {
        out.push_str("\ncontrol ScuEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {\n    apply { }\n}\n");
        out.push_str("\ncontrol ScuComputeChecksum(inout headers_t hdr, inout metadata_t meta) {\n    apply { }\n}\n");
    }
}

/// Externs and variables of the control.
fn declarations(cx: &Ctx<'_>, shared: &Shared) -> String {
    let mut code = Code::at(1);
    for (id, csr) in cx.scu.csrs.iter() {
        let Some((decl, var)) = cx.names.csrs.get(&id) else {
            continue;
        };
        let ty = type_name(cx, &csr.ty);
        let ann = csr_annotation(cx, id);
        match cx.plan.csrs.get(&id) {
            Some(CsrKind::Register { .. }) => {
                code.line(format!("{ann} register<{ty}>(1) {decl};"));
                code.line(format!("{ty} {var};"));
            }
            Some(CsrKind::Counter) => {
                code.line(format!(
                    "{ann} Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) {decl};"
                ));
            }
            _ => {}
        }
    }
    for (id, counter) in cx.scu.counters.iter() {
        let name = cx.names.counters.get(&id).cloned().unwrap_or_default();
        let kind = match counter.kind {
            scenic_ir::CounterKind::Packets => ("packets", "PACKETS"),
            scenic_ir::CounterKind::Bytes => ("bytes", "BYTES"),
            scenic_ir::CounterKind::PacketsAndBytes => ("packets_and_bytes", "PACKETS_AND_BYTES"),
        };
        match cx.target {
            Target::V1Model => code.line(format!(
                "counter({}, CounterType.{}) {name};",
                counter.size, kind.0
            )),
            Target::VitisP4 => {
                let w = super::stmt::index_width(counter.size);
                code.line(format!(
                    "Counter<bit<64>, bit<{w}>>({}, CounterType_t.{}) {name};",
                    counter.size, kind.1
                ));
            }
        }
    }
    if let Some(unit) = &shared.checksum_unit {
        code.line(format!("InternetChecksum() {unit};"));
    }
    if shared.uses_done_flag {
        code.line(format!("bool {};", shared.done_flag));
    }
    for var in &shared.control_vars {
        code.line(var);
    }
    code.text
}

/// Actions that may drop, directly or through the actions they call.
fn dropping_actions(cx: &Ctx<'_>) -> std::collections::BTreeSet<ActionId> {
    let mut drops = std::collections::BTreeSet::new();
    loop {
        let before = drops.len();
        for (id, action) in cx.scu.actions.iter() {
            let mut d = false;
            walk::visit_stmts(&action.body.block, &mut |s, _| {
                d |= matches!(s, scenic_ir::Stmt::Drop)
            });
            walk::visit_body_exprs(&action.body, &mut |_, e, _| {
                if let Expr::CallAction(a, _) = e {
                    d |= drops.contains(a);
                }
            });
            if d {
                drops.insert(id);
            }
        }
        if drops.len() == before {
            return drops;
        }
    }
}

/// Control variables for the action data that `match` arms read.
fn collect_action_data(cx: &Ctx<'_>, namer: &mut Namer, shared: &mut Shared) {
    for body in cx.scu.control.iter().chain(cx.scu.on_parser_error.iter()) {
        walk::visit_body_exprs(body, &mut |_, e, _| {
            let Expr::ActionData {
                apply,
                action,
                param,
            } = e
            else {
                return;
            };
            let Some(Expr::Apply(t)) = body.exprs.get(*apply) else {
                return;
            };
            let Some(a) = cx
                .scu
                .tables
                .get(*t)
                .and_then(|t| t.actions.get(*action as usize))
                .copied()
            else {
                return;
            };
            add_action_data(cx, namer, shared, a, *param);
        });
    }
}

/// Declares the control variable for parameter `param` of `action`.
pub fn add_action_data(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    action: ActionId,
    param: u32,
) {
    if shared.action_data.contains_key(&(action, param)) {
        return;
    }
    let Some(a) = cx.scu.actions.get(action) else {
        return;
    };
    let Some(local) = a
        .body
        .params
        .get(param as usize)
        .and_then(|p| a.body.locals.get(*p))
    else {
        return;
    };
    let name = namer.helper(&format!("{}_{}", a.name, local.name));
    shared
        .control_vars
        .push(format!("{} {name};", type_name(cx, &local.ty)));
    shared.action_data.insert((action, param), name);
}

/// Vitis: an action whose body needs a conditional runs in the control after its table; decided by
/// writing each body once (callees first, until nothing changes).
fn decide_hoisting(cx: &Ctx<'_>, namer: &mut Namer, shared: &mut Shared) {
    loop {
        let before = shared.hoisted.len();
        for (id, action) in cx.scu.actions.iter() {
            if shared.hoisted.contains(&id) || is_no_action(action) {
                continue;
            }
            let mut scratch_namer = namer.clone();
            let mut scratch_errors = Vec::new();
            let facts = cx
                .plan
                .action_entry
                .get(&id)
                .cloned()
                .unwrap_or_else(Facts::unknown);
            let mut w = BodyWriter::new(
                cx,
                &action.body,
                &mut scratch_namer,
                shared,
                &mut scratch_errors,
                Kind::Action,
                2,
                facts,
            );
            let list = items(&action.body.block);
            let flagged = needs_flag(w.shared, cx, &action.body, &list);
            w.stmts(&list);
            if w.conditional || flagged {
                shared.hoisted.insert(id);
            }
        }
        if shared.hoisted.len() == before {
            break;
        }
    }
    let hoisted: Vec<ActionId> = shared.hoisted.iter().copied().collect();
    for id in hoisted {
        let n = cx.scu.actions.get(id).map_or(0, |a| a.body.params.len());
        for p in 0..n {
            add_action_data(cx, namer, shared, id, p as u32);
        }
    }
}

/// The facts where each table is applied (the meet over its applications).
fn table_facts(cx: &Ctx<'_>) -> BTreeMap<TableId, Facts> {
    let mut out: BTreeMap<TableId, Facts> = BTreeMap::new();
    let parser = cx.plan.parser.as_ref();
    for (body, on_error) in [
        (cx.scu.control.as_ref(), false),
        (cx.scu.on_parser_error.as_ref(), true),
    ] {
        let Some(body) = body else { continue };
        let start = control_entry(cx.scu, parser, on_error);
        walk_block(
            &cx.plan.effects,
            cx.scu,
            body,
            &body.block,
            start,
            &mut |site, facts| {
                if let Site::Table(t) = site {
                    let old = out.remove(&t).unwrap_or_else(Facts::unreachable);
                    out.insert(t, old.meet(facts));
                }
            },
        );
    }
    out
}

/// The `apply` block.
fn write_apply(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
) -> String {
    let mut code = Code::at(1);
    code.open("apply {");
    for (id, _) in cx.scu.csrs.iter() {
        if let (Some(CsrKind::Register { .. }), Some((decl, var))) =
            (cx.plan.csrs.get(&id), cx.names.csrs.get(&id))
        {
            code.line(format!("{decl}.read({var}, 0);"));
        }
    }
    shared.uses_done_flag = !shared.drops.is_empty()
        || [cx.scu.control.as_ref(), cx.scu.on_parser_error.as_ref()]
            .into_iter()
            .flatten()
            .any(|b| needs_flag(shared, cx, b, &items(&b.block)));
    if shared.uses_done_flag {
        code.line(format!("{} = false;", shared.done_flag));
    }
    if cx.scu.attach == Attach::SlowPath {
        code.line("// No destination chosen: a slow-path packet goes to the host.");
        target::to_host_stmts(cx, &mut code);
        if cx.target == Target::VitisP4 {
            code.line(format!("meta.{} = 0;", cx.names.shell.egress_port));
        }
    }
    let parser = cx.plan.parser.as_ref();
    match (&cx.scu.parser, &cx.scu.control) {
        (Some(_), Some(control)) => {
            code.open(format!(
                "if ({} == error.NoError) {{",
                target::parser_error()
            ));
            let facts = control_entry(cx.scu, parser, false);
            code.text.push_str(&body_code(
                cx, namer, shared, errors, control, facts, code.level, None,
            ));
            code.close("} else {");
            code.level += 1;
            match &cx.scu.on_parser_error {
                Some(handler) => {
                    let facts = control_entry(cx.scu, parser, true);
                    let binding = handler.params.first().copied();
                    code.text.push_str(&body_code(
                        cx, namer, shared, errors, handler, facts, code.level, binding,
                    ));
                }
                None => target::drop_stmt(cx, &mut code),
            }
            code.close("}");
        }
        (None, Some(control)) => {
            let facts = Facts::all_invalid(cx.scu);
            code.text.push_str(&body_code(
                cx, namer, shared, errors, control, facts, code.level, None,
            ));
        }
        _ => {}
    }
    code.text.push_str(&super::deparser::moved_code(
        cx, namer, shared, errors, code.level,
    ));
    for (id, _) in cx.scu.csrs.iter() {
        if let (Some(CsrKind::Register { written: true }), Some((decl, var))) =
            (cx.plan.csrs.get(&id), cx.names.csrs.get(&id))
        {
            code.line(format!("{decl}.write(0, {var});"));
        }
    }
    code.close("}");
    code.text
}

/// The code of the control or `on parser_error` (whose binding is the parser error).
#[allow(clippy::too_many_arguments)]
fn body_code(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
    body: &scenic_ir::Body,
    facts: Facts,
    level: usize,
    binding: Option<scenic_ir::LocalId>,
) -> String {
    let mut w = BodyWriter::new(cx, body, namer, shared, errors, Kind::Control, level, facts);
    if let Some(b) = binding {
        let name = w.local(b);
        w.code
            .line(format!("error {name} = {STANDARD_METADATA}.parser_error;"));
    }
    let list = items(&body.block);
    if needs_flag(w.shared, cx, body, &list) {
        w.exit_flag = Some(w.shared.done_flag.clone());
    }
    w.stmts(&list);
    w.code.text
}
