//! The deparser: the emits in order; its other statements (checksum recomputation, header
//! rewrites) move to the end of the control.
//!
//! P4 deparsers (bmv2's, and VNP4's, which allows `InternetChecksum` only in the control) only
//! emit. Moving the computations in front of every emit is exact when no computation changes a
//! header after that header's emit and no emit is conditional; otherwise the program is refused.
//! Without a deparser every header instance is emitted in `headers { }` order.

use super::body::{items, BodyWriter, Kind, Shared};
use super::{target, Ctx};
use crate::analysis::facts::Facts;
use crate::error::{Construct, Error};
use crate::namer::Namer;
use crate::Target;
use scenic_ir::{InstId, Place, Scu, Stmt};
use std::fmt::Write;

/// The deparser's problems: conditional emits and changes after an emit.
pub fn check(scu: &Scu, target: Target) -> Vec<Error> {
    let mut errors = Vec::new();
    let _ = emits(scu, target, &mut errors);
    errors
}

/// The header instances emitted, in order, checking that the rest can move.
fn emits(scu: &Scu, target: Target, errors: &mut Vec<Error>) -> Vec<InstId> {
    let Some(body) = &scu.deparser else {
        return scu.instances.keys().collect();
    };
    let mut out = Vec::new();
    for (stmt, span) in items(&body.block) {
        match stmt {
            Stmt::Emit(inst) => out.push(*inst),
            _ => {
                let mut nested_emit = false;
                crate::analysis::walk::visit_stmts(
                    &scenic_ir::Block {
                        stmts: vec![stmt.clone()],
                        spans: vec![span],
                    },
                    &mut |s, _| {
                        nested_emit |= matches!(s, Stmt::Emit(_) | Stmt::Return(_));
                    },
                );
                if nested_emit {
                    errors.push(unsupported(target, Construct::ConditionalEmit, span));
                    continue;
                }
                for inst in written_headers(stmt) {
                    if out.contains(&inst) {
                        let header = scu
                            .instances
                            .get(inst)
                            .map(|i| i.name.clone())
                            .unwrap_or_default();
                        errors.push(unsupported(
                            target,
                            Construct::WriteAfterEmit { header },
                            span,
                        ));
                    }
                }
            }
        }
    }
    out
}

fn unsupported(target: Target, construct: Construct, span: scenic_ir::Span) -> Error {
    Error::Unsupported {
        construct,
        target,
        span,
        related: Vec::new(),
    }
}

/// Header instances a statement (or the statements in it) may change.
fn written_headers(stmt: &Stmt) -> Vec<InstId> {
    let mut out = Vec::new();
    crate::analysis::walk::visit_stmts(
        &scenic_ir::Block {
            stmts: vec![stmt.clone()],
            spans: vec![Default::default()],
        },
        &mut |s, _| match s {
            Stmt::Assign(p, _) => out.extend(place_header(p)),
            Stmt::SetValid(inst, _, _) => out.push(*inst),
            _ => {}
        },
    );
    out
}

fn place_header(p: &Place) -> Option<InstId> {
    match p {
        Place::HeaderField { inst, .. } | Place::Header { inst, .. } => Some(*inst),
        Place::Field(inner, _) | Place::Slice(inner, _, _) | Place::Index(inner, _) => {
            place_header(inner)
        }
        _ => None,
    }
}

/// The deparser control.
pub fn write_deparser(cx: &Ctx<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "\ncontrol ScuDeparser({}) {{",
        target::deparser_params(cx.target)
    );
    out.push_str("    apply {\n");
    let mut checked = Vec::new();
    for inst in emits(cx.scu, cx.target, &mut checked) {
        let name = cx.names.instances.get(&inst).cloned().unwrap_or_default();
        let _ = writeln!(out, "        packet.emit(hdr.{name});");
    }
    out.push_str("    }\n}\n");
}

/// The deparser's statements other than emits, written at the end of the control's `apply`.
pub fn moved_code(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
    level: usize,
) -> String {
    let Some(body) = &cx.scu.deparser else {
        return String::new();
    };
    let list: Vec<_> = items(&body.block)
        .into_iter()
        .filter(|(s, _)| !matches!(s, Stmt::Emit(_)))
        .collect();
    if list.is_empty() {
        return String::new();
    }
    let mut w = BodyWriter::new(
        cx,
        body,
        namer,
        shared,
        errors,
        Kind::Deparser,
        level,
        Facts::unknown(),
    );
    w.code
        .line("// The deparser's computations (P4 deparsers only emit).");
    w.stmts(&list);
    w.code.text
}
