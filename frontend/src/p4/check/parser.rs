//! Parsers: parameters, local declarations, states, transitions and `select` keysets.

use super::decls::ones;
use super::expr::normalize;
use super::types::Ty;
use super::{Binding, Checker, Ctx, KeyVal, Owner, Target, TransitionInfo, VarScope};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use num_bigint::BigInt;
use std::collections::HashMap;

impl Checker<'_> {
    /// Declares a block's parameters in a new scope.
    pub(super) fn block_params(&mut self, i: usize, proto: &Proto, ctor: Option<&Vec<Param>>) {
        if !proto.type_params.is_empty() {
            self.unsupported(proto.name.span, "generic parsers and controls");
        }
        if ctor.is_some_and(|c| !c.is_empty()) {
            self.unsupported(
                proto.name.span,
                "constructor parameters of parsers and controls",
            );
        }
        self.scopes.push(HashMap::new());
        for (n, p) in proto.params.iter().enumerate() {
            let ty = self.resolve_type(&p.ty);
            if let Ty::Unsupported(what) = &ty {
                let what = what.clone();
                self.unsupported(p.ty.span, &what);
            }
            self.declare_local(&p.name, Binding::Param(Owner::Block(i), n, ty, p.dir));
        }
    }

    pub(super) fn parser_decl(&mut self, i: usize, p: &ParserDecl) {
        self.block_params(i, &p.proto, p.ctor_params.as_ref());
        self.ctx = Ctx::Parser(i);
        for (li, local) in p.locals.iter().enumerate() {
            match local {
                Local::Const(c, _) => {
                    let binding = self.const_decl(c);
                    self.declare_local(&c.name, binding);
                }
                Local::Var(v) => self.var_decl(v),
                Local::Instance(inst) => self.instance_decl(i, li, inst),
                Local::ValueSet(_, span) => self.unsupported(*span, "value sets"),
                Local::Action(a) => self.unsupported(a.span, "actions in parsers"),
                Local::Table(t) => self.unsupported(t.span, "tables in parsers"),
            }
        }
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (si, s) in p.states.iter().enumerate() {
            if matches!(s.name.name.as_str(), "accept" | "reject") {
                self.error(
                    Diagnostic::new(
                        codes::E0711,
                        s.name.span,
                        format!("a parser cannot declare a state named `{}`", s.name.name),
                    )
                    .label("`accept` and `reject` are the parser's final states"),
                );
            } else if ids.insert(&s.name.name, si).is_some() {
                self.error(
                    Diagnostic::new(
                        codes::E0704,
                        s.name.span,
                        format!("state `{}` is declared more than once", s.name.name),
                    )
                    .label("declared again here"),
                );
            }
        }
        if !ids.contains_key("start") {
            self.error(
                Diagnostic::new(
                    codes::E0711,
                    p.proto.name.span,
                    format!("parser `{}` has no `start` state", p.proto.name.name),
                )
                .label("parsing begins in the state named `start`")
                .help("add `state start { ... transition ...; }`"),
            );
        }
        for (si, s) in p.states.iter().enumerate() {
            self.scopes.push(HashMap::new());
            for stmt in &s.stmts {
                self.stmt(stmt);
            }
            let info = match &s.transition {
                None => TransitionInfo::Direct(Target::Reject),
                Some(Transition::Direct(name)) => TransitionInfo::Direct(self.target(name, &ids)),
                Some(Transition::Select { exprs, cases, .. }) => self.select(exprs, cases, &ids),
            };
            self.out.transitions.insert((i, si), info);
            self.scopes.pop();
        }
        self.scopes.pop();
        self.ctx = Ctx::Top;
    }

    fn target(&mut self, name: &Ident, ids: &HashMap<&str, usize>) -> Target {
        match name.name.as_str() {
            "accept" => Target::Accept,
            "reject" => Target::Reject,
            other => match ids.get(other) {
                Some(&s) => Target::State(s),
                None => {
                    self.error(
                        Diagnostic::new(
                            codes::E0703,
                            name.span,
                            format!("no state named `{}`", name.name),
                        )
                        .label("not a state of this parser"),
                    );
                    Target::Reject
                }
            },
        }
    }

    fn select(
        &mut self,
        exprs: &[Expr],
        cases: &[SelectCase],
        ids: &HashMap<&str, usize>,
    ) -> TransitionInfo {
        let tys: Vec<Ty> = exprs.iter().map(|e| self.expr(e)).collect();
        for (e, t) in exprs.iter().zip(&tys) {
            let ok = matches!(
                t,
                Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Error | Ty::Enum(_) | Ty::Unknown
            );
            if !ok {
                let shown = self.out.env.show(t).to_string();
                self.error(
                    self.type_error(e.span, format!("cannot select on a `{shown}`"))
                        .label("select on fixed-width values"),
                );
            }
        }
        let mut out = Vec::new();
        for case in cases {
            let target = self.target(&case.target, ids);
            let keys = match case.keys.as_slice() {
                [Keyset::Default(_) | Keyset::DontCare(_)] => vec![KeyVal::Any; exprs.len()],
                keys if keys.len() == exprs.len() => keys
                    .iter()
                    .zip(&tys)
                    .map(|(k, t)| self.keyset_value(k, t, "select"))
                    .collect(),
                keys => {
                    self.error(
                        Diagnostic::new(
                            codes::E0711,
                            case.span,
                            format!(
                                "this case has {} value(s), but `select` has {} expression(s)",
                                keys.len(),
                                exprs.len()
                            ),
                        )
                        .label("one value per selected expression"),
                    );
                    continue;
                }
            };
            out.push((keys, target));
        }
        TransitionInfo::Select(out)
    }

    /// The match of one keyset element against a value of type `ty`, for a `select` (`kind` is
    /// "select") or a table key of a match kind.
    pub(super) fn keyset_value(&mut self, k: &Keyset, ty: &Ty, kind: &str) -> KeyVal {
        let width = self.out.env.bit_width(ty).unwrap_or(0);
        let repr = self.repr_type(ty);
        match k {
            Keyset::Default(_) | Keyset::DontCare(_) => KeyVal::Any,
            Keyset::Value(e) => match self.key_const(e, &repr) {
                Some(v) => match kind {
                    "lpm" => KeyVal::Lpm(v, width),
                    "ternary" | "optional" | "field_mask" => KeyVal::Mask(v, ones(width)),
                    "range" => KeyVal::Range(v.clone(), v),
                    _ => KeyVal::Exact(v),
                },
                None => KeyVal::Any,
            },
            Keyset::Mask(v, m) => {
                let (v, m) = (self.key_const(v, &repr), self.key_const(m, &repr));
                match (v, m) {
                    (Some(v), Some(m)) => KeyVal::Mask(v & &m, m),
                    _ => KeyVal::Any,
                }
            }
            Keyset::Range(lo, hi) => {
                let (lo_v, hi_v) = (self.key_const(lo, &repr), self.key_const(hi, &repr));
                match (lo_v, hi_v) {
                    (Some(a), Some(b)) => {
                        let signed = matches!(repr, Ty::Int(_));
                        let (sa, sb) = if signed {
                            (normalize(&a, &repr), normalize(&b, &repr))
                        } else {
                            (a.clone(), b.clone())
                        };
                        if sa > sb {
                            self.error(
                                Diagnostic::new(
                                    codes::E0705,
                                    lo.span.to(hi.span),
                                    "this range is empty",
                                )
                                .label("the low bound is above the high bound"),
                            );
                        }
                        KeyVal::Range(a, b)
                    }
                    _ => KeyVal::Any,
                }
            }
        }
    }

    /// The type keyset constants are written in: a serializable enum's representation, `bit<1>`
    /// for booleans, `bit<8>`-like indices for errors and plain enums.
    fn repr_type(&self, ty: &Ty) -> Ty {
        match ty {
            Ty::Enum(e) => self
                .out
                .env
                .enums
                .get(*e)
                .and_then(|x| x.repr.clone())
                .unwrap_or_else(|| ty.clone()),
            other => other.clone(),
        }
    }

    /// A keyset constant as an unsigned bit pattern of the key's width.
    fn key_const(&mut self, e: &Expr, ty: &Ty) -> Option<BigInt> {
        self.expr_expect(e, ty);
        let v = self.value_of(e.id).cloned();
        if v.is_none() && !self.type_of(e.id).is_unknown() {
            self.error(
                Diagnostic::new(
                    codes::E0708,
                    e.span,
                    "keyset values must be compile-time constants",
                )
                .label("not a constant")
                .note("value sets are not supported yet"),
            );
        }
        let width = self.out.env.bit_width(ty);
        v.map(|v| match width {
            Some(w) if ty.is_fixed_int() => normalize(&v, &Ty::Bits(w)),
            _ => v,
        })
    }

    /// Declares a variable of a parser's or control's top level.
    pub(super) fn block_var(&mut self, block: usize, v: &VarDecl) {
        let before = self.ctx;
        self.ctx = Ctx::Parser(block);
        self.var_decl(v);
        self.ctx = before;
        if let Some(&id) = self.out.var_at.get(&v.span.lo) {
            if let Some(var) = self.out.vars.get_mut(id) {
                var.scope = VarScope::Block(block);
            }
        }
    }
}
