//! The parser: states, `verify`, transitions and `select`.
//!
//! Each P4 state becomes an IR state with the same name; a `verify(cond, err)` at a state's top
//! level ends the IR state with a select on `cond` (true: a continuation state named
//! `state$1`, `state$2`, ...; false: reject with `err`), so the statements after it run only when it
//! holds, as P4 defines.

use super::body::Fx;
use super::{Inst, Lw};
use cranelift_entity::PrimaryMap;
use num_bigint::BigInt;
use scenic_frontend::p4::ast::{DeclKind, ExprKind, Local, State, StmtKind};
use scenic_frontend::p4::check::{KeyVal, Method, Res, Target as PTarget, TransitionInfo, Ty};
use scenic_ir::body::{Block, Expr, Pattern, Stmt};
use scenic_ir::entities::*;
use scenic_ir::program::{Parser, ParserState, SelectCase, Target, Transition};
use scenic_ir::types::{Const, Type};

impl Lw<'_> {
    /// Lowers parser declaration `d`; `prologue` is run at the start of `start`.
    pub(crate) fn lower_parser(
        &mut self,
        inst: &Inst,
        d: usize,
        prologue: impl Fn(&mut Self, &mut Fx, &mut Block),
    ) -> Option<Parser> {
        let DeclKind::Parser(p) = &self.ck.program.decls.get(d)?.kind else {
            return None;
        };
        let mut fx = Fx::default();
        let mut states: PrimaryMap<StateId, ParserState> = PrimaryMap::new();
        for s in &p.states {
            states.push(ParserState {
                name: s.name.name.clone(),
                block: Block::default(),
                transition: Transition::Direct(Target::Accept),
                span: self.span(s.span),
            });
        }
        let start = p.states.iter().position(|s| s.name.name == "start")?;
        for (si, s) in p.states.iter().enumerate() {
            let mut block = Block::default();
            if si == start {
                prologue(self, &mut fx, &mut block);
                for local in &p.locals {
                    if let Local::Var(v) = local {
                        if v.init.is_some() {
                            let stmt = scenic_frontend::p4::ast::Stmt {
                                kind: StmtKind::Var(v.clone()),
                                span: v.span,
                            };
                            self.stmt(&mut fx, inst, &stmt, &mut block);
                        }
                    }
                }
            }
            self.state(&mut fx, inst, d, si, s, block, &mut states);
        }
        Some(Parser {
            body: fx.body,
            states,
            start: StateId::from_u32(start as u32),
        })
    }

    /// Lowers one state into `states[si]` and the continuation states its `verify`s need.
    #[allow(clippy::too_many_arguments)]
    fn state(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        d: usize,
        si: usize,
        s: &State,
        mut block: Block,
        states: &mut PrimaryMap<StateId, ParserState>,
    ) {
        let span = self.span(s.span);
        let mut current = StateId::from_u32(si as u32);
        for stmt in &s.stmts {
            let verify = match &stmt.kind {
                StmtKind::Call(e) if self.res_of(e) == Res::Method(Method::Verify) => match &e.kind
                {
                    ExprKind::Call { args, .. } => Some(args),
                    _ => None,
                },
                _ => None,
            };
            let Some(args) = verify else {
                self.stmt(fx, inst, stmt, &mut block);
                continue;
            };
            let exprs: Vec<_> = args
                .iter()
                .filter_map(|a| match a {
                    scenic_frontend::p4::ast::Arg::Expr(e) => Some(e),
                    _ => None,
                })
                .collect();
            let [cond, err] = exprs.as_slice() else {
                continue;
            };
            let on = self.expr(fx, inst, cond, &mut block);
            let Some(error) = self.ck.values.get(err.id.index()).cloned().flatten() else {
                self.unsupported(err.span, "`verify` with an error computed at run time");
                continue;
            };
            let error = usize::try_from(error)
                .ok()
                .and_then(|i| self.error_ids.get(i).copied())
                .unwrap_or(ErrorId::from_u32(0));
            let next = states.push(ParserState {
                name: format!("{}${}", s.name.name, states.len()),
                block: Block::default(),
                transition: Transition::Direct(Target::Accept),
                span,
            });
            let transition = Transition::Select {
                on,
                cases: vec![
                    SelectCase {
                        patterns: vec![Pattern::Value(Const::from_u64(1))],
                        target: Target::State(next),
                    },
                    SelectCase {
                        patterns: vec![Pattern::Any],
                        target: Target::Reject(error),
                    },
                ],
            };
            states[current].block = std::mem::take(&mut block);
            states[current].transition = transition;
            current = next;
        }
        let transition = self.transition(fx, inst, d, si, s, &mut block);
        states[current].block = block;
        states[current].transition = transition;
    }

    fn target(&self, t: PTarget) -> Target {
        match t {
            PTarget::Accept => Target::Accept,
            // An explicit `reject` leaves `parser_error` at NoError, as in BMv2.
            PTarget::Reject => Target::Reject(self.error_named("NoError")),
            PTarget::State(s) => Target::State(StateId::from_u32(s as u32)),
        }
    }

    fn transition(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        d: usize,
        si: usize,
        s: &State,
        block: &mut Block,
    ) -> Transition {
        let info = self.ck.transitions.get(&(d, si)).cloned();
        let (
            Some(TransitionInfo::Select(cases)),
            Some(scenic_frontend::p4::ast::Transition::Select { exprs, span, .. }),
        ) = (info.clone(), s.transition.as_ref())
        else {
            return match info {
                Some(TransitionInfo::Direct(t)) => Transition::Direct(self.target(t)),
                _ => Transition::Direct(self.target(PTarget::Reject)),
            };
        };
        let span = self.span(*span);
        let values: Vec<ExprId> = exprs
            .iter()
            .map(|e| self.expr(fx, inst, e, block))
            .collect();
        let tys: Vec<Ty> = exprs.iter().map(|e| self.ty_of(e)).collect();
        let widths: Vec<u32> = values
            .iter()
            .map(|v| fx.body.types[*v].scalar_width(|_| 32).unwrap_or(0))
            .collect();
        let on = match values.as_slice() {
            [one] => *one,
            _ => {
                let types = values.iter().map(|v| fx.body.types[*v].clone()).collect();
                fx.body
                    .add(Expr::Tuple(values.clone()), Type::Tuple(types), span)
            }
        };
        let cases = cases
            .iter()
            .map(|(keys, t)| {
                let mut patterns: Vec<Pattern> = keys
                    .iter()
                    .zip(&widths)
                    .zip(&tys)
                    .map(|((k, w), ty)| self.pattern(k, *w, ty))
                    .collect();
                let pattern = if patterns.len() == 1 {
                    patterns.remove(0)
                } else {
                    Pattern::Tuple(patterns)
                };
                SelectCase {
                    patterns: vec![pattern],
                    target: self.target(*t),
                }
            })
            .collect();
        Transition::Select { on, cases }
    }

    /// A select pattern for a keyset value of a `width`-bit expression.
    fn pattern(&self, k: &KeyVal, width: u32, ty: &Ty) -> Pattern {
        let c = |v: &BigInt| match ty {
            Ty::Error => {
                let id = usize::try_from(v)
                    .ok()
                    .and_then(|i| self.error_ids.get(i).copied())
                    .unwrap_or(ErrorId::from_u32(0));
                Const::from_u64(u64::from(id.as_u32()))
            }
            _ => Const::from_bigint(v, width),
        };
        match k {
            KeyVal::Exact(v) => Pattern::Value(c(v)),
            KeyVal::Mask(v, m) => Pattern::Mask(c(v), c(m)),
            KeyVal::Range(lo, hi) => Pattern::Range(c(lo), c(hi)),
            KeyVal::Lpm(v, len) => {
                let mask =
                    ((BigInt::from(1) << *len as usize) - 1) << (width - len.min(&width)) as usize;
                Pattern::Mask(c(v), c(&mask))
            }
            KeyVal::Any => Pattern::Any,
        }
    }

    /// Statements for the parser prologue that need the parser body.
    pub(crate) fn push_assign(
        &mut self,
        block: &mut Block,
        place: Option<scenic_ir::body::Place>,
        value: ExprId,
        span: scenic_ir::span::Span,
    ) {
        if let Some(p) = place {
            block.push(Stmt::Assign(p, value), span);
        }
    }
}
