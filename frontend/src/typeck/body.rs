//! The per-chunk check: one salsa query per chunk, dispatching on what the chunk holds.

use super::parser::binding_local;
use super::records::{builtin_ty, Builtin};
use super::{BodyKind, Checker, Local, Summary};
use crate::ast::*;
use crate::db::{chunk_ast, ChunkKey};
use crate::diag::{codes, Diagnostic};
use crate::parse::ChunkAst;
use crate::span::Span;
use crate::typeck::signature::{signature, SigKind};
use crate::types::Ty;
use std::sync::Arc;

/// What checking one chunk found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyCheck {
    /// Problems, chunk-relative.
    pub diags: Vec<Diagnostic>,
    /// What the container checks need.
    pub summary: Summary,
    /// Types and constant values of the chunk's expressions (for lowering).
    pub infos: super::ExprInfos,
}

/// Checks the bodies in chunk `key`.
#[salsa::tracked(returns(clone))]
pub fn check_body<'db>(db: &'db dyn salsa::Database, key: ChunkKey<'db>) -> Arc<BodyCheck> {
    let parsed = chunk_ast(db, key);
    let sig = signature(db, key);
    let mut cx = Checker::new(db, key.file(db), key.index(db), BodyKind::Const);
    match &parsed.ast {
        ChunkAst::Item(item) => cx.check_item(item, &sig.kind),
        ChunkAst::Member(member) => cx.check_member(member, &sig.kind),
    }
    cx.flush_unfit(None);
    cx.summary.counts = std::mem::take(&mut cx.path);
    Arc::new(BodyCheck {
        diags: cx.diags,
        summary: cx.summary,
        infos: cx.infos,
    })
}

impl Checker<'_> {
    fn check_item(&mut self, item: &Item, sig: &SigKind) {
        match (&item.kind, sig) {
            (ItemKind::Fn(f), SigKind::Fn { params, ret }) => self.fn_body(
                f,
                params,
                BodyKind::Fn {
                    ret: ret.clone(),
                    in_scu: None,
                },
            ),
            (ItemKind::Const(c), SigKind::Cycle) => self.cycle(&c.name),
            (ItemKind::Struct(r), SigKind::Struct { fields }) => self.struct_recursion(r, fields),
            _ => {}
        }
    }

    fn cycle(&mut self, name: &Ident) {
        self.report(
            Diagnostic::new(
                codes::E0108,
                name.span,
                format!("`{}` is defined in terms of itself", name.name),
            )
            .label("its value depends on itself")
            .help("give one of the constants in the cycle a literal value"),
        );
    }

    fn fn_body(&mut self, f: &FnDecl, params: &[(String, Ty)], kind: BodyKind) {
        let ret = match &kind {
            BodyKind::Fn { ret, .. } => ret.clone(),
            _ => Ty::Unit,
        };
        self.kind = kind;
        for (decl, (name, ty)) in f.params.iter().zip(params) {
            self.declare(Local {
                name: name.clone(),
                ty: ty.clone(),
                mutable: false,
                value: None,
                span: decl.name.span,
                used: false,
                what: "parameter",
            });
        }
        self.block(&f.body);
        if ret != Ty::Unit && !ret.is_error() && !self.ended {
            let end = Span::new(
                f.body.span.hi.saturating_sub(1) as usize,
                f.body.span.hi as usize,
            );
            self.report(
                Diagnostic::new(
                    codes::E0505,
                    end,
                    format!("`{}` may end without returning a `{ret}`", f.name.name),
                )
                .label("the end of the function is reachable")
                .secondary(f.name.span, format!("returns `{ret}`"))
                .help("add `return value;` on every path"),
            );
        }
        self.pop_scope();
    }

    fn check_member(&mut self, member: &Member, sig: &SigKind) {
        let head = Span::new(member.span.lo as usize, member.span.lo as usize + 6);
        let in_scu = self.container().map(|c| !c.is_cc);
        match (&member.kind, sig) {
            (MemberKind::Control(b), _) => self.packet_body(BodyKind::Control, b),
            (MemberKind::Deparser(b), _) => self.packet_body(BodyKind::Deparser, b),
            (MemberKind::Parser(p), _) => {
                self.declare_packet();
                self.check_parser(p, head);
            }
            (MemberKind::Action(a), SigKind::Action { params }) => {
                self.declare_packet();
                self.fn_body(a, params, BodyKind::Action);
            }
            (MemberKind::Fn(f), SigKind::Fn { params, ret }) => {
                if in_scu == Some(true) {
                    self.declare_packet();
                }
                self.fn_body(
                    f,
                    params,
                    BodyKind::Fn {
                        ret: ret.clone(),
                        in_scu,
                    },
                );
            }
            (MemberKind::Stream(s), _) => self.stream(s),
            (MemberKind::Every(e), _) => {
                self.period(&e.period, &Ty::Duration);
                self.kind = BodyKind::Every;
                self.block(&e.body);
            }
            (MemberKind::On(h), _) => self.handler(h),
            (MemberKind::Table(t), SigKind::Table(tsig)) => {
                self.kind = BodyKind::Control;
                self.check_table(t, tsig);
            }
            (MemberKind::Output(o), _) => self.output(o),
            (MemberKind::Const(c) | MemberKind::Param(c), SigKind::Cycle) => self.cycle(&c.name),
            _ => {}
        }
    }

    /// `packet` is visible in the bodies that process packets.
    pub(crate) fn declare_packet(&mut self) {
        self.scopes[0].push(Local {
            name: "packet".into(),
            ty: builtin_ty(Builtin::Packet),
            mutable: false,
            value: None,
            span: Span::default(),
            used: true,
            what: "builtin",
        });
        if let Some(meta) = self.meta_ty() {
            self.scopes[0].push(Local {
                name: "meta".into(),
                ty: meta,
                mutable: true,
                value: None,
                span: Span::default(),
                used: true,
                what: "builtin",
            });
        }
    }

    fn packet_body(&mut self, kind: BodyKind, block: &Block) {
        self.kind = kind;
        self.declare_packet();
        self.block(block);
    }

    fn stream(&mut self, s: &StreamDecl) {
        self.kind = BodyKind::Stream;
        self.scopes[0].push(Local {
            name: "beat".into(),
            ty: builtin_ty(Builtin::Beat),
            mutable: false,
            value: None,
            span: Span::default(),
            used: true,
            what: "builtin",
        });
        match s.params.as_slice() {
            [word] => {
                let ty = self.resolve_type(&word.ty);
                if ty != Ty::Bit(512) && !ty.is_error() {
                    self.report(
                        Diagnostic::new(
                            codes::E0201,
                            word.ty.span,
                            format!("a stream kernel takes one `bit<512>` word, not `{ty}`"),
                        )
                        .label("expected `bit<512>`")
                        .note(
                            "the datapath is 512 bits wide: one word per clock cycle at 200 Gb/s",
                        ),
                    );
                }
                self.declare(Local {
                    name: word.name.name.clone(),
                    ty: Ty::Bit(512),
                    mutable: false,
                    value: None,
                    span: word.name.span,
                    used: false,
                    what: "parameter",
                });
            }
            params => {
                self.report(
                    Diagnostic::new(
                        codes::E0211,
                        s.head_span,
                        "a stream kernel takes exactly one word: `stream(word: bit<512>)`",
                    )
                    .label(format!("{} parameters", params.len())),
                );
                for p in params {
                    self.resolve_type(&p.ty);
                    let mut local = binding_local(&p.name, Ty::Error);
                    local.used = true;
                    self.declare(local);
                }
            }
        }
        self.block(&s.body);
    }

    fn handler(&mut self, h: &HandlerDecl) {
        let in_cc = self.in_cc();
        self.kind = if in_cc {
            BodyKind::CcHandler
        } else {
            BodyKind::ParserError
        };
        match &h.event {
            Event::Periodic { kind, period, .. } => {
                let ty = match kind.name.as_str() {
                    "timer" => Ty::Duration,
                    "bytes" => Ty::Size,
                    other => {
                        self.error(
                            codes::E0110,
                            kind.span,
                            format!("unknown periodic event `{other}`"),
                            "expected `timer` or `bytes`",
                        );
                        Ty::Error
                    }
                };
                if !in_cc {
                    self.error(
                        codes::E0510,
                        kind.span,
                        "timers and byte counters belong to congestion controllers",
                        "use `every T { }` in an scu",
                    );
                }
                self.period(period, &ty);
            }
            Event::Simple { name, binding } => self.simple_event(name, binding.as_ref(), in_cc),
        }
        self.block(&h.body);
    }

    /// The period of `every`, `on timer` or `on bytes`: a positive constant (E0409).
    fn period(&mut self, period: &Expr, ty: &Ty) {
        let typed = self.const_value(period, Some(ty));
        let zero = typed
            .value
            .as_ref()
            .and_then(crate::consteval::Value::as_u64)
            == Some(0);
        if zero {
            self.report(
                Diagnostic::new(codes::E0409, period.span, "a period of zero")
                    .label("must be positive")
                    .note("periodic work runs every period; a zero period would run without end"),
            );
        }
    }

    fn simple_event(&mut self, name: &Ident, binding: Option<&Ident>, in_cc: bool) {
        let data: Option<Ty> = match (name.name.as_str(), in_cc) {
            ("parser_error", false) => Some(Ty::ParserError),
            ("ack", true) => Some(builtin_ty(Builtin::Ack)),
            ("int", true) => Some(builtin_ty(Builtin::Int)),
            ("rtt", true) => Some(Ty::Duration),
            ("cnp" | "ecn" | "loss" | "timeout", true) => None,
            (other, _) => {
                let events = if in_cc {
                    "`ack(a)`, `cnp`, `ecn`, `loss`, `timeout`, `rtt(sample)`, `int(h)`, `timer NAME every T`, `bytes NAME every S`"
                } else {
                    "`parser_error(e)`"
                };
                self.report(
                    Diagnostic::new(codes::E0110, name.span, format!("unknown event `{other}`"))
                        .label("not an event here")
                        .note(format!(
                            "{} handles {events}",
                            if in_cc { "a cc" } else { "an scu" }
                        )),
                );
                return;
            }
        };
        if !in_cc {
            self.declare_packet();
        }
        match (data, binding) {
            (Some(ty), Some(b)) => self.declare(binding_local(b, ty)),
            (None, Some(b)) => self.error(
                codes::E0211,
                b.span,
                format!("the `{}` event carries no data", name.name),
                "remove the binding",
            ),
            (Some(_), None) | (None, None) => {}
        }
    }

    fn output(&mut self, o: &OutputDecl) {
        let expected = match o.kind.name.as_str() {
            "rate" => Ty::Rate,
            "window" => Ty::Size,
            other => {
                self.report(
                    Diagnostic::new(
                        codes::E0110,
                        o.kind.span,
                        format!("a controller outputs a `rate` or a `window`, not `{other}`"),
                    )
                    .label("unknown output kind")
                    .help("write `output rate rc;` (a rate state) or `output window cwnd;` (a size state)"),
                );
                return;
            }
        };
        let entry = self
            .container()
            .and_then(|c| c.members.get(&o.state.name))
            .cloned();
        if entry.is_some() {
            self.note_use(&o.state.name);
        }
        match entry {
            Some(e) if e.kind == crate::resolve::index::MemberDefKind::State => {
                self.note_use(&o.state.name);
                if let SigKind::State { ty } =
                    &crate::typeck::signature::sig_of(self.db, self.file, e.chunk).kind
                {
                    if *ty != expected && !ty.is_error() {
                        self.report(
                            Diagnostic::new(
                                codes::E0602,
                                o.state.span,
                                format!(
                                    "the {} output must be a `{expected}`, `{}` is a `{ty}`",
                                    o.kind.name, o.state.name
                                ),
                            )
                            .label("wrong type"),
                        );
                    }
                }
            }
            _ => self.report(
                Diagnostic::new(
                    codes::E0602,
                    o.state.span,
                    format!(
                        "`{}` is not a state variable of this controller",
                        o.state.name
                    ),
                )
                .label("not a `state`")
                .help(format!(
                    "declare it: `state {}: {expected} = ...;`",
                    o.state.name
                )),
            ),
        }
    }
}
