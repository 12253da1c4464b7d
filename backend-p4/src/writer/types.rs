//! Names for every declaration, and the type section: errors, header types, struct types,
//! `headers_t` and the user metadata `metadata_t`.
//!
//! Only the layouts the scu uses are written: the header types of its instances, and the struct
//! types reachable from its code (locals, `meta` fields). `meta` itself is not a P4 struct: its
//! fields are members of `metadata_t`, after the shell's fields on Vitis (see [`super::target`]).
//! A program meta field is zeroed by the parser's first state, as scenic's `meta` is zero at the
//! start of every packet.

use super::target::SHELL_FIELDS;
use super::{Ctx, Names};
use crate::analysis::csr::CsrKind;
use crate::conv;
use crate::namer::Namer;
use crate::Target;
use scenic_ir::{Body, HeaderId, StructId, Type};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The built-in parser errors and their core.p4 names.
const BUILTIN_ERRORS: &[(&str, &str)] = &[
    ("packet_too_short", "PacketTooShort"),
    ("no_match", "NoMatch"),
    ("stack_overflow", "StackOutOfBounds"),
];

/// Chooses every global and member name.
pub fn name_everything(cx: &mut Ctx<'_>) {
    let mut names = Names::default();
    let mut global = Namer::new();
    let headers: BTreeSet<HeaderId> = cx.scu.instances.values().map(|i| i.header).collect();
    for h in headers {
        if let Some(layout) = cx.module.headers.get(h) {
            names
                .header_types
                .insert(h, global.name(&format!("{}_t", layout.name)));
            let mut members = Namer::new();
            let fields = layout
                .fields
                .iter()
                .map(|f| members.name(&f.name))
                .collect();
            names.header_fields.insert(h, fields);
        }
    }
    for s in used_structs(cx) {
        if let Some(layout) = cx.module.structs.get(s) {
            names
                .struct_types
                .insert(s, global.name(&format!("{}_t", layout.name)));
            let mut members = Namer::new();
            let fields = layout
                .fields
                .iter()
                .map(|f| members.name(&f.name))
                .collect();
            names.struct_fields.insert(s, fields);
        }
    }
    let mut members = Namer::new();
    for (id, inst) in cx.scu.instances.iter() {
        names.instances.insert(id, members.name(&inst.name));
    }
    name_metadata(cx, &mut names);
    for (id, err) in cx.scu.errors.iter() {
        let builtin = BUILTIN_ERRORS.iter().find(|(n, _)| *n == err.as_str());
        let name = builtin.map_or_else(|| global.name(err), |(_, p4)| (*p4).to_string());
        names.errors.insert(id, name);
    }
    name_control(cx, &mut names, &global);
    if let Some(parser) = &cx.scu.parser {
        let mut states = Namer::new();
        states.reserve("start");
        let re_entered = parser.states.values().any(|s| {
            crate::analysis::facts::targets(&s.transition)
                .contains(&scenic_ir::Target::State(parser.start))
        });
        for (id, state) in parser.states.iter() {
            let name = if id == parser.start && !re_entered {
                "start".to_string()
            } else {
                states.name(&state.name)
            };
            names.states.insert(id, name);
        }
    }
    cx.names = names;
}

/// Names in the control's scope: tables, actions, counters, CSR declarations and variables, the
/// done flag. The namer is kept for the locals the control's bodies declare later.
fn name_control(cx: &Ctx<'_>, names: &mut Names, global: &Namer) {
    let mut cn = global.clone();
    for (id, table) in cx.scu.tables.iter() {
        names.tables.insert(id, cn.name(&table.name));
    }
    for (id, action) in cx.scu.actions.iter() {
        let name = if is_no_action(action) {
            "NoAction".to_string()
        } else {
            cn.name(&action.name)
        };
        names.actions.insert(id, name);
    }
    for (id, counter) in cx.scu.counters.iter() {
        names.counters.insert(id, cn.name(&counter.name));
    }
    for (id, csr) in cx.scu.csrs.iter() {
        match cx.plan.csrs.get(&id) {
            Some(CsrKind::Register { .. }) => {
                let decl = cn.name(&csr.name);
                let var = cn.helper(&format!("csr_{}", csr.name));
                names.csrs.insert(id, (decl, var));
            }
            Some(CsrKind::Counter) => {
                let decl = cn.name(&csr.name);
                names.csrs.insert(id, (decl.clone(), decl));
            }
            _ => {}
        }
    }
    names.done_flag = cn.helper("done");
    names.control_namer = cn;
}

/// Whether an action is the implicit `no_action` (core.p4's `NoAction`).
pub fn is_no_action(action: &scenic_ir::Action) -> bool {
    action.name == "no_action"
        && action.body.params.is_empty()
        && action.body.block.stmts.is_empty()
}

/// `metadata_t`'s members: the shell's (Vitis), CSR inputs (Vitis), then `meta`.
fn name_metadata(cx: &Ctx<'_>, names: &mut Names) {
    let mut members = Namer::new();
    if cx.target == Target::VitisP4 {
        for (field, _, _) in SHELL_FIELDS {
            members.reserve(field);
        }
        names.shell = super::target::ShellFields {
            ingress_port: "ingress_port".into(),
            packet_length: "packet_length".into(),
            timestamp_ns: "timestamp_ns".into(),
            egress_port: "egress_port".into(),
            to_host: "to_host".into(),
        };
        for (id, csr) in cx.scu.csrs.iter() {
            if cx.plan.csrs.get(&id) == Some(&CsrKind::MetaInput) {
                let field = members.name(&format!("csr_{}", csr.name));
                names.csrs.insert(id, (field.clone(), field));
            }
        }
    }
    if let Some(meta) = cx.scu.meta.and_then(|m| cx.module.structs.get(m)) {
        names.meta_fields = meta.fields.iter().map(|f| members.name(&f.name)).collect();
    }
}

/// Struct types the scu's code uses, members before the structs that contain them.
fn used_structs(cx: &Ctx<'_>) -> Vec<StructId> {
    let mut found: Vec<StructId> = Vec::new();
    let add_type = |ty: &Type, found: &mut Vec<StructId>| add_struct(cx, ty, found);
    let mut bodies: Vec<&Body> = crate::analysis::restrict::packet_bodies(cx.scu);
    bodies.retain(|_| true);
    for body in bodies {
        for local in body.locals.values() {
            add_type(&local.ty, &mut found);
        }
        for ty in body.types.values() {
            add_type(ty, &mut found);
        }
    }
    if let Some(meta) = cx.scu.meta.and_then(|m| cx.module.structs.get(m)) {
        for f in &meta.fields {
            add_type(&f.ty, &mut found);
        }
    }
    found
}

fn add_struct(cx: &Ctx<'_>, ty: &Type, found: &mut Vec<StructId>) {
    let Type::Struct(s) = ty else { return };
    if found.contains(s) || Some(*s) == cx.scu.meta {
        return;
    }
    if let Some(layout) = cx.module.structs.get(*s) {
        for f in &layout.fields {
            add_struct(cx, &f.ty, found);
        }
    }
    if !found.contains(s) {
        found.push(*s);
    }
}

/// The P4 type of any IR type a declaration can have.
pub fn type_name(cx: &Ctx<'_>, ty: &Type) -> String {
    match ty {
        Type::Header(h) => cx
            .names
            .header_types
            .get(h)
            .cloned()
            .unwrap_or_else(|| "bit<8>".into()),
        Type::Struct(s) => cx
            .names
            .struct_types
            .get(s)
            .cloned()
            .unwrap_or_else(|| "bit<8>".into()),
        other => conv::scalar_type(other, cx.module).unwrap_or_else(|| "bit<8>".into()),
    }
}

/// Errors, header types, struct types, `headers_t`, `metadata_t`.
pub fn write_types(cx: &Ctx<'_>, out: &mut String) {
    let declared: Vec<&String> = cx
        .scu
        .errors
        .keys()
        .filter_map(|id| cx.names.errors.get(&id))
        .filter(|n| !BUILTIN_ERRORS.iter().any(|(_, p4)| p4 == n))
        .collect();
    if !declared.is_empty() {
        let list: Vec<&str> = declared.iter().map(|s| s.as_str()).collect();
        let _ = writeln!(out, "\nerror {{ {} }}", list.join(", "));
    }
    for (h, name) in &cx.names.header_types {
        let Some(layout) = cx.module.headers.get(*h) else {
            continue;
        };
        let _ = writeln!(out, "\nheader {name} {{");
        for (i, field) in layout.fields.iter().enumerate() {
            let fname = cx
                .names
                .header_fields
                .get(h)
                .and_then(|f| f.get(i))
                .cloned()
                .unwrap_or_default();
            let _ = writeln!(out, "    {} {fname};", type_name(cx, &field.ty));
        }
        out.push_str("}\n");
    }
    for (s, name) in &cx.names.struct_types {
        let Some(layout) = cx.module.structs.get(*s) else {
            continue;
        };
        let _ = writeln!(out, "\nstruct {name} {{");
        for (i, field) in layout.fields.iter().enumerate() {
            let fname = cx
                .names
                .struct_fields
                .get(s)
                .and_then(|f| f.get(i))
                .cloned()
                .unwrap_or_default();
            let _ = writeln!(out, "    {} {fname};", type_name(cx, &field.ty));
        }
        out.push_str("}\n");
    }
    out.push_str("\nstruct headers_t {\n");
    for (id, inst) in cx.scu.instances.iter() {
        let ty = type_name(cx, &Type::Header(inst.header));
        let name = cx.names.instances.get(&id).cloned().unwrap_or_default();
        match inst.stack {
            Some(n) => {
                let _ = writeln!(out, "    {ty}[{n}] {name};");
            }
            None => {
                let _ = writeln!(out, "    {ty} {name};");
            }
        }
    }
    out.push_str("}\n");
    write_metadata(cx, out);
}

fn write_metadata(cx: &Ctx<'_>, out: &mut String) {
    out.push('\n');
    match cx.target {
        Target::VitisP4 => out.push_str(
            "// User metadata: the SCENIC shell's fields, the CSRs the program reads (filled by the\n\
             // shell for every packet), then the program's `meta`.\n",
        ),
        Target::V1Model => out.push_str("// User metadata: the program's `meta`.\n"),
    }
    out.push_str("struct metadata_t {\n");
    if cx.target == Target::VitisP4 {
        for (field, ty, what) in SHELL_FIELDS {
            let _ = writeln!(out, "    {ty} {field}; // {what}");
        }
        for (id, csr) in cx.scu.csrs.iter() {
            if cx.plan.csrs.get(&id) != Some(&CsrKind::MetaInput) {
                continue;
            }
            let Some((field, _)) = cx.names.csrs.get(&id) else {
                continue;
            };
            let _ = writeln!(
                out,
                "    {} {} {field}; // in: CSR `{}`",
                csr_annotation(cx, id),
                type_name(cx, &csr.ty),
                csr.name
            );
        }
    }
    if let Some(meta) = cx.scu.meta.and_then(|m| cx.module.structs.get(m)) {
        for (field, name) in meta.fields.iter().zip(&cx.names.meta_fields) {
            let _ = writeln!(out, "    {} {name};", type_name(cx, &field.ty));
        }
    }
    out.push_str("}\n");
}

/// `@scenic_csr("name", offset, "access", init)`: what the host sees of a CSR, for tools that read
/// the program back (the reader, the runtime). `access` is `read-write`, `readonly` or `param`.
pub fn csr_annotation(cx: &Ctx<'_>, id: scenic_ir::CsrId) -> String {
    let Some(csr) = cx.scu.csrs.get(id) else {
        return String::new();
    };
    let access = if csr.is_param {
        "param"
    } else if csr.host_readonly {
        "readonly"
    } else {
        "read-write"
    };
    let width = conv::scalar_width(&csr.ty, cx.module).unwrap_or(64).max(1);
    format!(
        "@scenic_csr(\"{}\", {}, \"{access}\", {})",
        csr.name,
        cranelift_entity::EntityRef::index(id),
        conv::bits_literal(&csr.init.0, width)
    )
}
