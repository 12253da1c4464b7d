//! Lowering congestion controllers.

use super::expr::BodyCx;
use super::{container_span, Lowerer, ScuCx};
use scenic_frontend::ast::{Event as AstEvent, MemberKind};
use scenic_frontend::db::SourceFile;
use scenic_frontend::resolve::index::Container;
use scenic_frontend::typeck::signature::{sig_of, SigKind};
use scenic_ir::entities::*;
use scenic_ir::program::*;
use scenic_ir::types::{Const, Dimension, Type};

impl Lowerer<'_> {
    pub(crate) fn lower_cc(&mut self, file: SourceFile, container: &Container) {
        let (flows, budget) = match &sig_of(self.db, file, container.head).kind {
            SigKind::Cc { flows, budget } => (*flows, *budget),
            _ => (1024, None),
        };
        let cc_id = CcId::from_u32(self.module.ccs.len() as u32);
        let mut cc = Cc {
            name: container.name.clone(),
            flows,
            budget,
            params: Default::default(),
            state: Default::default(),
            output: (OutputKind::Rate, CcStateId::from_u32(0)),
            timers: Default::default(),
            handlers: Vec::new(),
            span: container_span(self.db, file, container),
        };
        let mut cx = ScuCx {
            cc: Some(cc_id),
            ..ScuCx::default()
        };
        for &chunk in &container.chunks {
            self.declare_cc_member(file, chunk, &mut cc, &mut cx);
        }
        for &chunk in &container.chunks {
            self.define_cc_member(file, chunk, &mut cc, &cx);
        }
        self.module.ccs.push(cc);
    }

    fn declare_cc_member(&mut self, file: SourceFile, chunk: u32, cc: &mut Cc, cx: &mut ScuCx) {
        let parsed = self.ast(file, chunk);
        let scenic_frontend::parse::ChunkAst::Member(member) = &parsed.ast else {
            return;
        };
        let sig = sig_of(self.db, file, chunk);
        match (&member.kind, &sig.kind) {
            (MemberKind::Param(p), SigKind::Param { ty, value }) => {
                let ty = self.lower_ty(ty, cx);
                let default = value
                    .as_ref()
                    .map_or(Const::zero(), |v| self.const_of(v, &ty));
                let id = cc.params.push(CcParam {
                    name: p.name.name.clone(),
                    ty,
                    default,
                });
                cx.cc_params.insert(p.name.name.clone(), id);
            }
            (MemberKind::State(s), SigKind::State { ty }) => {
                let ty = self.lower_ty(ty, cx);
                let init = self.init_const(file, chunk, s.init.as_ref(), &ty);
                let id = cc.state.push(CcState {
                    name: s.name.name.clone(),
                    ty,
                    init,
                });
                cx.cc_state.insert(s.name.name.clone(), id);
            }
            (MemberKind::On(h), _) => {
                if let AstEvent::Periodic { kind, name, period } = &h.event {
                    let dim = if kind.name == "bytes" {
                        Dimension::Size
                    } else {
                        Dimension::Duration
                    };
                    let value = self
                        .expr_value(file, chunk, period)
                        .and_then(|v| v.as_u64())
                        .unwrap_or(1);
                    let id = cc.timers.push(Timer {
                        name: name.name.clone(),
                        period: (dim, value),
                    });
                    cx.timers.insert(name.name.clone(), id);
                }
            }
            (MemberKind::Fn(f), SigKind::Fn { params, ret }) => {
                let id = self.new_function(
                    &f.name.name,
                    Owner::Cc(cx.cc.unwrap_or(CcId::from_u32(0))),
                    params,
                    ret,
                    file,
                    chunk,
                    cx,
                );
                cx.functions.insert(f.name.name.clone(), id);
            }
            _ => {}
        }
    }

    fn define_cc_member(&mut self, file: SourceFile, chunk: u32, cc: &mut Cc, cx: &ScuCx) {
        let parsed = self.ast(file, chunk);
        let scenic_frontend::parse::ChunkAst::Member(member) = &parsed.ast else {
            return;
        };
        match &member.kind {
            MemberKind::Output(o) => {
                let kind = if o.kind.name == "window" {
                    OutputKind::Window
                } else {
                    OutputKind::Rate
                };
                if let Some(&state) = cx.cc_state.get(&o.state.name) {
                    cc.output = (kind, state);
                }
            }
            MemberKind::On(h) => {
                let mut bcx = BodyCx::new(file, chunk, self.db);
                let event = match &h.event {
                    AstEvent::Periodic { name, .. } => {
                        cx.timers.get(&name.name).map(|t| Event::Timer(*t))
                    }
                    AstEvent::Simple { name, binding } => {
                        let (event, data) = match name.name.as_str() {
                            "ack" => (Event::Ack, Some(Type::Struct(self.ack_struct()))),
                            "cnp" => (Event::Cnp, None),
                            "ecn" => (Event::Ecn, None),
                            "loss" => (Event::Loss, None),
                            "timeout" => (Event::Timeout, None),
                            "int" => (Event::Int, Some(Type::Struct(self.int_struct()))),
                            // The checker refused every other name: this is `rtt`.
                            _ => (Event::Rtt, Some(Type::Quantity(Dimension::Duration))),
                        };
                        if let (Some(b), Some(ty)) = (binding, data) {
                            let local = bcx.body.local(b.name.clone(), ty, false);
                            bcx.body.params.push(local);
                            bcx.bind(&b.name, local);
                        }
                        Some(event)
                    }
                };
                let Some(event) = event else { return };
                self.lower_block_into(&mut bcx, &h.body, cx);
                let span = scenic_frontend::db::chunk_span(self.db, file, chunk);
                cc.handlers.push(Handler {
                    event,
                    body: bcx.finish(),
                    span: scenic_ir::span::Span {
                        file: crate::ir_file(file.id(self.db)),
                        lo: span.lo,
                        hi: span.hi,
                    },
                });
            }
            MemberKind::Fn(f) => {
                if let Some(&id) = cx.functions.get(&f.name.name) {
                    self.pending.push((id, file, chunk, Some(cx.clone())));
                }
            }
            _ => {}
        }
    }
}
