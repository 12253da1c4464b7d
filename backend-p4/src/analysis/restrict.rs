//! The constructs a target cannot express, found by scanning every body of the scu.
//!
//! Each problem is reported once per construct and place: a map or meter at its first use, an
//! `every` block, `notify` and `to_scu` at each statement, operators and hash functions at each
//! expression, a signed type or an array once per body.

use super::walk::{stmt_exprs, visit_expr, visit_stmts};
use crate::error::{Construct, Error};
use crate::Target;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use scenic_ir::body::BinaryOp;
use scenic_ir::body::{Intrinsic, PacketField};
use scenic_ir::{Attach, Block, Body, Expr, ExprId, Module, Scu, Span, Stmt, Transition, Type};
use std::collections::BTreeSet;

/// Scans the scu; returns one error per inexpressible construct.
pub fn check(module: &Module, scu: &Scu, target: Target) -> Vec<Error> {
    let mut cx = Scan {
        module,
        target,
        errors: Vec::new(),
        maps: BTreeSet::new(),
        meters: BTreeSet::new(),
    };
    if scu.attach != Attach::SlowPath || scu.stream.is_some() {
        let span = scu
            .stream
            .as_ref()
            .and_then(|b| b.block.spans.first().copied())
            .unwrap_or(scu.span);
        cx.push(
            Construct::StreamKernel {
                scu: scu.name.clone(),
            },
            span,
        );
    }
    for every in &scu.every {
        cx.push(Construct::Every, every.span);
    }
    // `meta` becomes P4's metadata struct whether or not code reads it (the parser zeroes it), so
    // its field types need P4 types too (smith seed 12: an array in `meta` became `bit<8>`).
    if let Some(meta) = scu.meta {
        let ty = Type::Struct(meta);
        if has_array(module, &ty) {
            cx.push(Construct::Array, scu.span);
        }
        if target == Target::VitisP4 && has_signed(module, &ty) {
            cx.push(Construct::SignedInteger, scu.span);
        }
    }
    // The parser's code is in its states' blocks and select scrutinees, and a table's keys are
    // expressions outside any block (smith seed 200109: `packet.timestamp` read in a parser state
    // was not refused on v1model).
    if let Some(parser) = &scu.parser {
        let blocks: Vec<&Block> = parser.states.values().map(|s| &s.block).collect();
        let roots: Vec<(ExprId, Span)> = parser
            .states
            .values()
            .filter_map(|s| match &s.transition {
                Transition::Select { on, .. } => Some((*on, s.span)),
                _ => None,
            })
            .collect();
        cx.code(scu, &parser.body, &blocks, &roots);
    }
    for table in scu.tables.values() {
        let roots: Vec<(ExprId, Span)> = table.keys.iter().map(|k| (k.expr, table.span)).collect();
        cx.code(scu, &table.key_body, &[], &roots);
    }
    for body in [&scu.control, &scu.on_parser_error, &scu.deparser]
        .into_iter()
        .flatten()
        .chain(scu.actions.values().map(|a| &a.body))
    {
        cx.code(scu, body, &[&body.block], &[]);
    }
    cx.errors
}

/// Every per-packet body of the scu: parser, control, `on parser_error`, actions, table keys,
/// deparser.
pub fn packet_bodies(scu: &Scu) -> Vec<&Body> {
    let mut bodies: Vec<&Body> = Vec::new();
    bodies.extend(scu.parser.as_ref().map(|p| &p.body));
    bodies.extend(scu.control.as_ref());
    bodies.extend(scu.on_parser_error.as_ref());
    bodies.extend(scu.actions.values().map(|a| &a.body));
    bodies.extend(scu.tables.values().map(|t| &t.key_body));
    bodies.extend(scu.deparser.as_ref());
    bodies
}

struct Scan<'a> {
    module: &'a Module,
    target: Target,
    errors: Vec<Error>,
    maps: BTreeSet<scenic_ir::MapId>,
    meters: BTreeSet<scenic_ir::MeterId>,
}

impl Scan<'_> {
    fn push(&mut self, construct: Construct, span: Span) {
        self.errors.push(Error::Unsupported {
            construct,
            target: self.target,
            span,
            related: Vec::new(),
        });
    }

    /// Scans the code of `body`: its statements in `blocks` and the expressions `roots`.
    fn code(&mut self, scu: &Scu, body: &Body, blocks: &[&Block], roots: &[(ExprId, Span)]) {
        for block in blocks {
            visit_stmts(block, &mut |stmt, span| match stmt {
                Stmt::Notify(..) => self.push(Construct::Notify, span),
                Stmt::ToScu(_) => self.push(Construct::ToScu, span),
                _ => {}
            });
        }
        // Every expression of the code, with the span of its statement.
        let visit_all = |f: &mut dyn FnMut(ExprId, &Expr, Span)| {
            for block in blocks {
                visit_stmts(block, &mut |stmt, span| {
                    for root in stmt_exprs(stmt) {
                        visit_expr(body, root, &mut |id, e| f(id, e, span));
                    }
                });
            }
            for (root, span) in roots {
                visit_expr(body, *root, &mut |id, e| f(id, e, *span));
            }
        };
        let mut signed: Option<Span> = None;
        let mut array: Option<Span> = None;
        for (_, local) in body.locals.iter() {
            if self.target == Target::VitisP4 && has_signed(self.module, &local.ty) {
                signed = signed.or(Some(Span::default()));
            }
            if has_array(self.module, &local.ty) {
                array = array.or(Some(Span::default()));
            }
        }
        // Stack indices are constants the writer prints as plain numbers, whatever their type.
        let mut indices = BTreeSet::new();
        visit_all(&mut |_, e, _| match e {
            Expr::Header { index: Some(i), .. }
            | Expr::HeaderField { index: Some(i), .. }
            | Expr::HeaderValid { index: Some(i), .. } => {
                indices.insert(*i);
            }
            _ => {}
        });
        for block in blocks {
            visit_stmts(block, &mut |stmt, _| {
                if let Stmt::SetValid(_, Some(i), _) = stmt {
                    indices.insert(*i);
                }
                if let Stmt::Assign(place, _) = stmt {
                    indices.extend(super::walk::place_exprs(place));
                }
            });
        }
        visit_all(&mut |id, e, stmt_span| {
            if indices.contains(&id) {
                return;
            }
            let span = body
                .spans
                .get(id)
                .copied()
                .filter(|s| s.is_known())
                .unwrap_or(stmt_span);
            let ty = body.types.get(id).cloned().unwrap_or_default();
            if self.target == Target::VitisP4 && has_signed(self.module, &ty) {
                signed = Some(signed.filter(|s| s.is_known()).unwrap_or(span));
            }
            if has_array(self.module, &ty) {
                array = Some(array.filter(|s| s.is_known()).unwrap_or(span));
            }
            self.expr(scu, body, e, span);
        });
        if let Some(span) = signed {
            self.push(Construct::SignedInteger, span);
        }
        if let Some(span) = array {
            self.push(Construct::Array, span);
        }
    }

    fn expr(&mut self, scu: &Scu, body: &Body, e: &Expr, span: Span) {
        match e {
            Expr::MapGet(m, _)
            | Expr::MapContains(m, _)
            | Expr::MapInsert(m, _, _)
            | Expr::MapRemove(m, _)
                if self.maps.insert(*m) =>
            {
                if let Some(map) = scu.maps.get(*m) {
                    let construct = Construct::Map {
                        name: map.name.clone(),
                        kind: map.kind,
                    };
                    self.push(construct, span);
                }
            }
            Expr::MeterExceeds(m, _, _) if self.meters.insert(*m) => {
                if let Some(meter) = scu.meters.get(*m) {
                    self.push(
                        Construct::Meter {
                            name: meter.name.clone(),
                        },
                        span,
                    );
                }
            }
            Expr::Packet(PacketField::Timestamp) if self.target == Target::V1Model => {
                self.push(Construct::Timestamp, span);
            }
            Expr::Binary(op @ (BinaryOp::Div | BinaryOp::Rem | BinaryOp::DivScaled(_)), a, b) => {
                let signed = body.types.get(*a).is_some_and(|t| t.is_signed());
                let remainder = *op == BinaryOp::Rem;
                let by_power_of_two = constant(body, *b).is_some_and(|c| is_power_of_two(&c));
                if signed || (self.target == Target::VitisP4 && !by_power_of_two) {
                    self.push(Construct::Division { remainder, signed }, span);
                }
            }
            Expr::Intrinsic(which, _) => {
                let name = match which {
                    Intrinsic::Murmur3 => Some("hash::murmur3_32"),
                    Intrinsic::Toeplitz => Some("hash::toeplitz"),
                    Intrinsic::Crc32 if self.target == Target::VitisP4 => Some("hash::crc32"),
                    Intrinsic::Crc16 if self.target == Target::VitisP4 => Some("hash::crc16"),
                    _ => None,
                };
                if let Some(name) = name {
                    self.push(Construct::Hash { name }, span);
                }
            }
            Expr::Header { index: Some(i), .. }
            | Expr::HeaderField { index: Some(i), .. }
            | Expr::HeaderValid { index: Some(i), .. }
                if constant(body, *i).is_none() =>
            {
                self.push(Construct::RuntimeIndex, span);
            }
            _ => {}
        }
    }
}

/// The value of a constant expression.
pub fn constant(body: &Body, id: scenic_ir::ExprId) -> Option<BigUint> {
    match body.exprs.get(id) {
        Some(Expr::Const(c)) => Some(c.0.clone()),
        _ => None,
    }
}

/// Whether `v` is 2^k for some k ≥ 0.
pub fn is_power_of_two(v: &BigUint) -> bool {
    !v.is_zero() && (v & (v - BigUint::one())).is_zero()
}

fn has_signed(module: &Module, ty: &Type) -> bool {
    match ty {
        Type::Int(_) => true,
        Type::Struct(s) => module
            .structs
            .get(*s)
            .is_some_and(|l| l.fields.iter().any(|f| has_signed(module, &f.ty))),
        Type::Header(h) => module
            .headers
            .get(*h)
            .is_some_and(|l| l.fields.iter().any(|f| has_signed(module, &f.ty))),
        Type::Array(elem, _) => has_signed(module, elem),
        Type::Tuple(items) => items.iter().any(|t| has_signed(module, t)),
        _ => false,
    }
}

fn has_array(module: &Module, ty: &Type) -> bool {
    match ty {
        Type::Array(..) => true,
        Type::Struct(s) => module
            .structs
            .get(*s)
            .is_some_and(|l| l.fields.iter().any(|f| has_array(module, &f.ty))),
        _ => false,
    }
}
