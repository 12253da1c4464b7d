//! The parser: one P4 state per scenic state, `select` transitions, rejections through `verify`.
//!
//! scenic's `start` state is P4's `start`; when a transition leads back to it, a separate entry
//! state `start` zeroes `meta` and goes to it (otherwise the zeroing opens `start`). A `match` arm
//! with several patterns becomes one case per pattern; `_` in every component is `default`. A
//! select that matches no case rejects with `NoMatch` in both languages, so no default is added.
//! `reject(e)` in a transition is `verify(false, error.E)`, directly or in a state of its own
//! (`scenic_reject_E`) when it is a select target.

use super::body::{BodyWriter, Kind, Shared};
use super::{target, Ctx};
use crate::analysis::facts::{after_extracts, Facts};
use crate::error::Error;
use crate::namer::Namer;
use scenic_ir::body::Pattern;
use scenic_ir::{ErrorId, Expr, ExprId, Parser, StateId, Target, Transition, Type};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Writes the parser (an scu without one gets a parser that accepts at once).
pub fn write_parser(cx: &Ctx<'_>, out: &mut String, errors: &mut Vec<Error>) {
    let _ = writeln!(out, "\nparser ScuParser({}) {{", target::parser_params());
    let Some(parser) = &cx.scu.parser else {
        out.push_str("    state start {\n");
        zero_meta(cx, out);
        out.push_str("        transition accept;\n    }\n}\n");
        return;
    };
    let mut namer = Namer::new();
    for name in cx.names.states.values() {
        namer.reserve(name);
    }
    let mut shared = Shared::default();
    let mut rejects: BTreeMap<ErrorId, String> = BTreeMap::new();
    let re_entered = parser
        .states
        .values()
        .any(|s| targets_state(&s.transition, parser.start));
    if re_entered {
        out.push_str("    state start {\n");
        zero_meta(cx, out);
        let first = cx
            .names
            .states
            .get(&parser.start)
            .cloned()
            .unwrap_or_default();
        let _ = writeln!(out, "        transition {first};\n    }}");
    }
    let mut locals = BTreeMap::new();
    for (id, state) in parser.states.iter() {
        let name = cx.names.states.get(&id).cloned().unwrap_or_default();
        let facts = cx
            .plan
            .parser
            .as_ref()
            .and_then(|p| p.entry.get(&id).cloned())
            .unwrap_or_else(Facts::unknown);
        let mut w = BodyWriter::new(
            cx,
            &parser.body,
            &mut namer,
            &mut shared,
            errors,
            Kind::Parser,
            2,
            facts.clone(),
        );
        w.locals = std::mem::take(&mut locals);
        if id == parser.start && !re_entered {
            let mut zero = String::new();
            zero_meta(cx, &mut zero);
            w.code.text.push_str(&zero);
        }
        for (stmt, span) in state.block.stmts.iter().zip(&state.block.spans) {
            w.stmt(stmt, *span);
        }
        w.facts = after_extracts(cx.scu, &facts, &state.block.stmts);
        transition(&mut w, parser, &state.transition, &mut rejects);
        locals = std::mem::take(&mut w.locals);
        let conditional = w.conditional;
        let body = w.code.text;
        if conditional {
            errors.push(parser_branch(cx, state.span));
        }
        let _ = writeln!(out, "    state {name} {{");
        out.push_str(&body);
        out.push_str("    }\n");
    }
    for (err, state) in &rejects {
        let e = cx.names.errors.get(err).cloned().unwrap_or_default();
        let _ = writeln!(out, "    state {state} {{\n        verify(false, error.{e});\n        transition reject;\n    }}");
    }
    out.push_str("}\n");
}

fn parser_branch(cx: &Ctx<'_>, span: scenic_ir::Span) -> Error {
    Error::Unsupported {
        construct: crate::Construct::ParserComputation {
            what: "a computation with a branch (`min`, `max`, a division, an `if` expression)",
        },
        target: cx.target,
        span,
        related: Vec::new(),
    }
}

/// `meta.f = 0;` for every program meta field.
fn zero_meta(cx: &Ctx<'_>, out: &mut String) {
    let Some(meta) = cx.scu.meta.and_then(|m| cx.module.structs.get(m)) else {
        return;
    };
    for (field, name) in meta.fields.iter().zip(&cx.names.meta_fields) {
        let zero = zero_value(cx, &field.ty);
        let _ = writeln!(out, "        meta.{name} = {zero};");
    }
}

fn zero_value(cx: &Ctx<'_>, ty: &Type) -> String {
    match ty {
        Type::Struct(s) => {
            let fields = cx
                .module
                .structs
                .get(*s)
                .map(|l| l.fields.clone())
                .unwrap_or_default();
            let names = cx.names.struct_fields.get(s).cloned().unwrap_or_default();
            let parts: Vec<String> = fields
                .iter()
                .zip(names)
                .map(|(f, n)| format!("{n} = {}", zero_value(cx, &f.ty)))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
        other => cx.literal(&scenic_ir::Const::zero(), other),
    }
}

fn targets_state(t: &Transition, state: StateId) -> bool {
    crate::analysis::facts::targets(t).contains(&Target::State(state))
}

/// The name of a transition target; reject targets get a state of their own.
fn target_name(
    w: &BodyWriter<'_, '_>,
    namer_rejects: &mut BTreeMap<ErrorId, String>,
    t: Target,
) -> String {
    match t {
        Target::Accept => "accept".into(),
        Target::State(s) => w.cx.names.states.get(&s).cloned().unwrap_or_default(),
        Target::Reject(e) => {
            let err = w.cx.names.errors.get(&e).cloned().unwrap_or_default();
            namer_rejects
                .entry(e)
                .or_insert_with(|| format!("scenic_reject_{err}"))
                .clone()
        }
    }
}

fn transition(
    w: &mut BodyWriter<'_, '_>,
    _parser: &Parser,
    t: &Transition,
    rejects: &mut BTreeMap<ErrorId, String>,
) {
    match t {
        Transition::Direct(Target::Reject(e)) => {
            let err = w.cx.names.errors.get(e).cloned().unwrap_or_default();
            w.code.line(format!("verify(false, error.{err});"));
            w.code.line("transition reject;");
        }
        Transition::Direct(target) => {
            let name = target_name(w, rejects, *target);
            w.code.line(format!("transition {name};"));
        }
        Transition::Select { on, cases } => {
            w.begin();
            let parts = select_parts(w, *on);
            w.flush();
            let keys: Vec<String> = parts.iter().map(|(s, _)| super::body::strip(s)).collect();
            w.code
                .open(format!("transition select({}) {{", keys.join(", ")));
            for case in cases {
                let name = target_name(w, rejects, case.target);
                for p in &case.patterns {
                    let keyset = keyset(w, &parts, p);
                    w.code.line(format!("{keyset}: {name};"));
                }
            }
            w.code.close("}");
        }
    }
}

fn select_parts(w: &mut BodyWriter<'_, '_>, on: ExprId) -> Vec<(String, Type)> {
    match w.body.exprs.get(on).cloned() {
        Some(Expr::Tuple(items)) => items.iter().map(|&e| (w.expr(e), w.ty(e))).collect(),
        _ => vec![(w.expr(on), w.ty(on))],
    }
}

fn keyset(w: &BodyWriter<'_, '_>, parts: &[(String, Type)], p: &Pattern) -> String {
    let comps: Vec<&Pattern> = match p {
        Pattern::Tuple(ps) => ps.iter().collect(),
        other => vec![other],
    };
    if comps.iter().all(|c| matches!(c, Pattern::Any)) {
        return "default".into();
    }
    let texts: Vec<String> = comps
        .iter()
        .zip(parts)
        .map(|(c, (_, ty))| {
            let lit = |v: &scenic_ir::Const| w.constant_of(v, ty);
            match c {
                Pattern::Any | Pattern::Tuple(_) => "_".to_string(),
                Pattern::Value(v) => lit(v),
                Pattern::Mask(v, m) => {
                    format!("{} &&& {}", lit(&scenic_ir::Const(&v.0 & &m.0)), lit(m))
                }
                Pattern::Range(lo, hi) => format!("{} .. {}", lit(lo), lit(hi)),
            }
        })
        .collect();
    if texts.len() == 1 {
        texts.concat()
    } else {
        format!("({})", texts.join(", "))
    }
}
