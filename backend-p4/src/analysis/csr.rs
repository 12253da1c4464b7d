//! How each CSR (and `param`) becomes P4 on each target.
//!
//! - v1model: a one-cell `register<bit<W>>(1)` named like the CSR, which the host reads and writes
//!   with `register_read`/`register_write`. The ingress control reads every register it uses into
//!   a variable first and writes back the ones the program changed last: a packet's processing is
//!   atomic with respect to the host (docs/language.md §7.11), so this is exact. A CSR read in the
//!   parser cannot be, as the registers live in the ingress control.
//! - Vitis Networking P4 (2023.1) has no register the program can read back. A CSR the program
//!   only reads is a user-metadata input (`csr_NAME`) that the SCENIC shell fills from its CSR file
//!   for every packet. A CSR whose every write adds 1 (`c += 1` or `c |+|= 1`), that starts at 0,
//!   is 64 bits wide and that nothing else reads is a one-cell `Counter` of packets: the host reads
//!   the count where it read the CSR. (The counter saturates at 2^64 − 1 where the CSR would wrap to
//!   0, after 2^64 packets: 2,900 years at 200 Mpacket/s.) Any other written CSR is refused.
//! - A CSR that no per-packet code uses is declared all the same (a register on v1model, an input
//!   on Vitis): the host's register file, offsets included, is the program's whole CSR list.

use super::walk::{stmt_exprs, visit_expr, visit_stmts};
use crate::error::{Construct, Error};
use crate::Target;
use num_traits::{One, Zero};
use scenic_ir::body::BinaryOp;
use scenic_ir::{Block, Body, CsrId, Expr, ExprId, Place, Scu, Span, Stmt, Transition, Type};
use std::collections::BTreeMap;

/// What a CSR becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrKind {
    /// v1model: a register, read at the start of the ingress; `written` ones are written back.
    Register {
        /// The program writes it.
        written: bool,
    },
    /// Vitis: a user-metadata input field.
    MetaInput,
    /// Vitis: a one-cell packet counter (every write adds 1).
    Counter,
}

#[derive(Default)]
struct Usage {
    reads: Vec<(Span, bool)>,
    writes: Vec<(Span, bool)>,
}

/// Plans every CSR; the errors are the CSRs the target cannot hold.
pub fn plan(scu: &Scu, target: Target) -> (BTreeMap<CsrId, CsrKind>, Vec<Error>) {
    let mut usage: BTreeMap<CsrId, Usage> = BTreeMap::new();
    // The parser's code is in its states' blocks and select scrutinees (its body's own block is
    // empty), and a table's keys are expressions outside any block: a CSR read there is a use too
    // (smith seed 10: a CSR read in a parser state was neither refused nor declared).
    if let Some(parser) = &scu.parser {
        for state in parser.states.values() {
            collect(&parser.body, &state.block, true, &mut usage);
            if let Transition::Select { on, .. } = &state.transition {
                collect_reads(&parser.body, *on, state.span, true, None, &mut usage);
            }
        }
    }
    for table in scu.tables.values() {
        for key in &table.keys {
            collect_reads(
                &table.key_body,
                key.expr,
                table.span,
                false,
                None,
                &mut usage,
            );
        }
    }
    for body in super::restrict::packet_bodies(scu)
        .into_iter()
        .skip(usize::from(scu.parser.is_some()))
    {
        collect(body, &body.block, false, &mut usage);
    }
    let mut plan = BTreeMap::new();
    let mut errors = Vec::new();
    for (id, csr) in scu.csrs.iter() {
        let u = usage.remove(&id).unwrap_or_default();
        // A CSR no per-packet code uses is still the host's (its offset and value): a register
        // nobody writes (v1model) or an input the program ignores (Vitis). Leaving it out made
        // `set_csr` fail and left a gap in the offsets the reader refuses (smith seeds 33, 75).
        let kind = if u.reads.is_empty() && u.writes.is_empty() {
            match target {
                Target::V1Model => CsrKind::Register { written: false },
                Target::VitisP4 => CsrKind::MetaInput,
            }
        } else {
            match target {
                Target::V1Model => {
                    if let Some((span, _)) = u.reads.iter().find(|(_, in_parser)| *in_parser) {
                        errors.push(unsupported(
                            Construct::CsrInParser {
                                name: csr.name.clone(),
                            },
                            target,
                            *span,
                        ));
                    }
                    CsrKind::Register {
                        written: !u.writes.is_empty(),
                    }
                }
                Target::VitisP4 => {
                    if u.writes.is_empty() {
                        CsrKind::MetaInput
                    } else {
                        let counter_like = u.reads.is_empty()
                            && u.writes.iter().all(|(_, inc)| *inc)
                            && csr.ty == Type::Bits(64)
                            && csr.init.0.is_zero();
                        if !counter_like {
                            let span = u
                                .writes
                                .iter()
                                .find(|(_, inc)| !inc)
                                .or(u.writes.first())
                                .map(|(s, _)| *s)
                                .unwrap_or(scu.span);
                            errors.push(unsupported(
                                Construct::CsrWritten {
                                    name: csr.name.clone(),
                                },
                                target,
                                span,
                            ));
                        }
                        CsrKind::Counter
                    }
                }
            }
        };
        plan.insert(id, kind);
    }
    (plan, errors)
}

fn unsupported(construct: Construct, target: Target, span: Span) -> Error {
    Error::Unsupported {
        construct,
        target,
        span,
        related: Vec::new(),
    }
}

/// Whether `stmt` is `c = c + 1` or `c = c |+| 1` for the CSR `c`; returns the CSR.
pub fn increment(body: &Body, stmt: &Stmt) -> Option<CsrId> {
    let Stmt::Assign(Place::Csr(c), value) = stmt else {
        return None;
    };
    let Some(Expr::Binary(BinaryOp::Add | BinaryOp::SatAdd, a, b)) = body.exprs.get(*value) else {
        return None;
    };
    let reads_self = matches!(body.exprs.get(*a), Some(Expr::Csr(x)) if x == c);
    let adds_one = matches!(body.exprs.get(*b), Some(Expr::Const(k)) if k.0.is_one());
    (reads_self && adds_one).then_some(*c)
}

/// The CSR that `stmt` assigns, whole or in part (`c[7:0] = v` writes `c` too).
fn assigned_csr(stmt: &Stmt) -> Option<CsrId> {
    let Stmt::Assign(place, _) = stmt else {
        return None;
    };
    // A loop, not a recursion: a place's depth is the program's.
    let mut root = place;
    loop {
        match root {
            Place::Csr(c) => return Some(*c),
            Place::Field(inner, _) | Place::Index(inner, _) | Place::Slice(inner, _, _) => {
                root = inner;
            }
            Place::Local(_)
            | Place::Meta(_)
            | Place::HeaderField { .. }
            | Place::Header { .. }
            | Place::CcState(_) => return None,
        }
    }
}

fn collect(body: &Body, block: &Block, in_parser: bool, usage: &mut BTreeMap<CsrId, Usage>) {
    visit_stmts(block, &mut |stmt, span| {
        let inc = increment(body, stmt);
        if let Some(c) = assigned_csr(stmt) {
            usage
                .entry(c)
                .or_default()
                .writes
                .push((span, inc.is_some()));
        }
        for root in stmt_exprs(stmt) {
            // The read inside an increment is part of the increment.
            let skip = match (inc, body.exprs.get(root)) {
                (Some(_), Some(Expr::Binary(_, a, _))) => Some(*a),
                _ => None,
            };
            collect_reads(body, root, span, in_parser, skip, usage);
        }
    });
}

/// The CSR reads in the expression tree `root` (but `skip`), at their own spans or `span`.
fn collect_reads(
    body: &Body,
    root: ExprId,
    span: Span,
    in_parser: bool,
    skip: Option<ExprId>,
    usage: &mut BTreeMap<CsrId, Usage>,
) {
    visit_expr(body, root, &mut |id, e| {
        if let Expr::Csr(c) = e {
            if Some(id) != skip {
                let at = body
                    .spans
                    .get(id)
                    .copied()
                    .filter(|s| s.is_known())
                    .unwrap_or(span);
                usage.entry(*c).or_default().reads.push((at, in_parser));
            }
        }
    });
}
