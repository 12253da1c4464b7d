//! The deparser's restrictions: P4 deparsers only emit, so its other statements (checksum
//! recomputation, header rewrites) move behind the emits; that is exact only when no computation
//! changes a header after that header's emit and no emit is conditional. [`check`] refuses the
//! rest; `emits` gives the emitted instances in order, which the writer prints.

use super::walk::items;
use crate::error::{Construct, Error};
use crate::Target;
use scenic_ir::{InstId, Place, Scu, Stmt};

/// The deparser's problems: conditional emits and changes after an emit.
pub fn check(scu: &Scu, target: Target) -> Vec<Error> {
    let mut errors = Vec::new();
    let _ = emits(scu, target, &mut errors);
    errors
}

/// The header instances emitted, in order, checking that the rest can move.
pub(crate) fn emits(scu: &Scu, target: Target, errors: &mut Vec<Error>) -> Vec<InstId> {
    let Some(body) = &scu.deparser else {
        return scu.instances.keys().collect();
    };
    let mut out = Vec::new();
    for (stmt, span) in items(&body.block) {
        match stmt {
            Stmt::Emit(inst) => out.push(*inst),
            _ => {
                let mut nested_emit = false;
                super::walk::visit_stmts(
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
    super::walk::visit_stmts(
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
