//! Declarations: types, externs, parsers, controls, actions, tables and instances.

use super::{span_of, Builder, Rule};
use crate::p4::ast::*;
use crate::span::Span;
use pest::iterators::Pair;

impl<'t> Builder<'t> {
    /// A top-level declaration; `None` for a stray `;`.
    pub(super) fn decl(&mut self, pair: Pair<'t, Rule>) -> Option<Decl> {
        let span = span_of(&pair);
        let inner = pair.into_inner().next()?;
        let mut annotations = Vec::new();
        let kind = match inner.as_rule() {
            Rule::const_decl => {
                let (anns, c) = self.const_decl(inner);
                annotations = anns;
                DeclKind::Const(c)
            }
            Rule::typedef_decl => {
                let (anns, kind) = self.typedef_decl(inner);
                annotations = anns;
                kind
            }
            Rule::header_decl | Rule::header_union_decl | Rule::struct_decl => {
                let kind = match inner.as_rule() {
                    Rule::header_decl => AggregateKind::Header,
                    Rule::header_union_decl => AggregateKind::HeaderUnion,
                    _ => AggregateKind::Struct,
                };
                let (anns, agg) = self.aggregate(kind, inner);
                annotations = anns;
                agg.map_or(DeclKind::Error_, DeclKind::Aggregate)
            }
            Rule::enum_decl => {
                let (anns, kind) = self.enum_decl(inner);
                annotations = anns;
                kind
            }
            Rule::error_decl => DeclKind::Error(self.name_list(inner)),
            Rule::match_kind_decl => DeclKind::MatchKind(self.name_list(inner)),
            Rule::extern_decl => {
                let (anns, kind) = self.extern_decl(inner);
                annotations = anns;
                kind
            }
            Rule::parser_type_decl | Rule::control_type_decl | Rule::package_decl => {
                let rule = inner.as_rule();
                let (anns, proto) = self.type_decl(inner);
                annotations = anns;
                match rule {
                    Rule::parser_type_decl => DeclKind::ParserType(proto),
                    Rule::control_type_decl => DeclKind::ControlType(proto),
                    _ => DeclKind::Package(proto),
                }
            }
            Rule::parser_decl => self.parser_decl(inner),
            Rule::control_decl => self.control_decl(inner),
            Rule::action_decl => DeclKind::Action(self.action_decl(inner)),
            Rule::value_set_decl => {
                let vs = span_of(&inner);
                self.unsupported(vs, "`value_set`");
                DeclKind::Error_
            }
            Rule::instantiation => DeclKind::Instance(self.instance(inner)),
            Rule::function_decl => {
                let (anns, kind) = self.function_decl(inner);
                annotations = anns;
                kind
            }
            _ => self.not_a_declaration(&inner, span),
        };
        Some(Decl {
            kind,
            annotations,
            span,
        })
    }

    /// `typedef T name;` or `type T name;` (a new type).
    fn typedef_decl(&mut self, pair: Pair<'t, Rule>) -> (Vec<Annotation>, DeclKind) {
        let mut it = pair.into_inner();
        let annotations = self.take_annotations(&mut it);
        let newtype = it.next().is_some_and(|k| k.as_rule() == Rule::kw_type);
        let ty = it.next().map(|t| self.ty(t));
        let name = it.next().map(|n| self.name(n));
        let kind = match (ty, name) {
            (Some(ty), Some(name)) => DeclKind::Typedef { ty, name, newtype },
            _ => DeclKind::Error_,
        };
        (annotations, kind)
    }

    /// A function with a body at the top level.
    fn function_decl(&mut self, pair: Pair<'t, Rule>) -> (Vec<Annotation>, DeclKind) {
        let mut it = pair.into_inner();
        let annotations = self.take_annotations(&mut it);
        let proto = it.next().map(|p| self.function_proto(p));
        let body = it.next().map(|b| self.block(b));
        let kind = match (proto, body) {
            (Some(proto), Some(body)) => DeclKind::Function { proto, body },
            _ => DeclKind::Error_,
        };
        (annotations, kind)
    }

    /// What the grammar accepts at the top level only to report it (a statement, say): an error
    /// naming it.
    fn not_a_declaration(&mut self, inner: &Pair<'t, Rule>, span: Span) -> DeclKind {
        let what = inner
            .clone()
            .into_inner()
            .find(|p| p.as_rule() != Rule::annotations)
            .map_or("?", |p| p.as_str());
        self.diags.push(
            crate::diag::Diagnostic::new(
                crate::diag::codes::E0701,
                span,
                format!("expected a declaration, found `{what}`"),
            )
            .label("not allowed at the top level")
            .help("statements go into an action, a control's `apply` or a parser state"),
        );
        DeclKind::Error_
    }

    /// Leading annotations of a rule's children.
    pub(super) fn take_annotations(
        &self,
        it: &mut pest::iterators::Pairs<'t, Rule>,
    ) -> Vec<Annotation> {
        match it.peek() {
            Some(p) if p.as_rule() == Rule::annotations => {
                let p = it.next();
                p.map(|p| self.annotations(p)).unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }

    pub(super) fn const_decl(&mut self, pair: Pair<'t, Rule>) -> (Vec<Annotation>, ConstDecl) {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let anns = self.take_annotations(&mut it);
        let _kw = it.next();
        let ty = it.next().map(|t| self.ty(t));
        let name = it.next().map(|n| self.name(n));
        let value = it.next().map(|e| self.expr(e));
        let ty = ty.unwrap_or(Type {
            kind: TypeKind::DontCare,
            span,
        });
        let name = name.unwrap_or(Ident {
            name: String::new(),
            span,
        });
        let value = value.unwrap_or_else(|| self.mk_expr(ExprKind::Error, span, &[]));
        (anns, ConstDecl { ty, name, value })
    }

    fn aggregate(
        &mut self,
        kind: AggregateKind,
        pair: Pair<'t, Rule>,
    ) -> (Vec<Annotation>, Option<AggregateDecl>) {
        let mut it = pair.into_inner();
        let anns = self.take_annotations(&mut it);
        let _kw = it.next();
        let Some(name) = it.next().map(|n| self.name(n)) else {
            return (anns, None);
        };
        let mut type_params = Vec::new();
        let mut fields = Vec::new();
        for p in it {
            match p.as_rule() {
                Rule::type_params => type_params = self.type_params(p),
                Rule::field => {
                    let mut f = p.into_inner();
                    let annotations = self.take_annotations(&mut f);
                    let ty = f.next().map(|t| self.ty(t));
                    let name = f.next().map(|n| self.name(n));
                    if let (Some(ty), Some(name)) = (ty, name) {
                        fields.push(FieldDecl {
                            ty,
                            name,
                            annotations,
                        });
                    }
                }
                _ => {}
            }
        }
        let decl = AggregateDecl {
            kind,
            name,
            type_params,
            fields,
        };
        (anns, Some(decl))
    }

    fn enum_decl(&mut self, pair: Pair<'t, Rule>) -> (Vec<Annotation>, DeclKind) {
        let mut it = pair.into_inner();
        let anns = self.take_annotations(&mut it);
        let _kw = it.next();
        let mut repr = None;
        let mut name = None;
        let mut members = Vec::new();
        for p in it {
            match p.as_rule() {
                Rule::enum_repr => repr = p.into_inner().next().map(|t| self.ty(t)),
                Rule::name => name = Some(self.name(p)),
                Rule::enum_members => {
                    for m in p.into_inner() {
                        let mut parts = m.into_inner();
                        let _anns = self.take_annotations(&mut parts);
                        let member = parts.next().map(|n| self.name(n));
                        let value = parts.next().map(|e| self.expr(e));
                        if let Some(member) = member {
                            members.push((member, value));
                        }
                    }
                }
                _ => {}
            }
        }
        match name {
            Some(name) => (
                anns,
                DeclKind::Enum {
                    name,
                    repr,
                    members,
                },
            ),
            None => (anns, DeclKind::Error_),
        }
    }

    fn name_list(&mut self, pair: Pair<'t, Rule>) -> Vec<Ident> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::name_list)
            .flat_map(|l| l.into_inner())
            .map(|n| self.name(n))
            .collect()
    }

    fn type_params(&mut self, pair: Pair<'t, Rule>) -> Vec<Ident> {
        pair.into_inner().map(|n| self.name(n)).collect()
    }

    fn extern_decl(&mut self, pair: Pair<'t, Rule>) -> (Vec<Annotation>, DeclKind) {
        let mut it = pair.into_inner();
        let anns = self.take_annotations(&mut it);
        let _kw = it.next();
        let Some(body) = it.next() else {
            return (anns, DeclKind::Error_);
        };
        if body.as_rule() == Rule::function_proto {
            return (anns, DeclKind::ExternFunction(self.function_proto(body)));
        }
        let mut parts = body.into_inner();
        let Some(name) = parts.next().map(|n| self.name(n)) else {
            return (anns, DeclKind::Error_);
        };
        let mut type_params = Vec::new();
        let mut methods = Vec::new();
        for p in parts {
            match p.as_rule() {
                Rule::type_params => type_params = self.type_params(p),
                Rule::method_proto => {
                    if let Some(m) = self.method_proto(p) {
                        methods.push(m);
                    }
                }
                _ => {}
            }
        }
        let kind = DeclKind::ExternObject {
            name,
            type_params,
            methods,
        };
        (anns, kind)
    }

    fn method_proto(&mut self, pair: Pair<'t, Rule>) -> Option<Proto> {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let _anns = self.take_annotations(&mut it);
        let mut first = it.next()?;
        if first.as_rule() == Rule::kw_abstract {
            first = it.next()?;
        }
        if first.as_rule() == Rule::function_proto {
            return Some(self.function_proto(first));
        }
        // A constructor: `Name(params);`.
        let name = self.name(first);
        let params = it.next().map(|p| self.params(p)).unwrap_or_default();
        Some(Proto {
            ret: Type {
                kind: TypeKind::Void,
                span,
            },
            name,
            type_params: Vec::new(),
            params,
            span,
        })
    }

    pub(super) fn function_proto(&mut self, pair: Pair<'t, Rule>) -> Proto {
        let span = span_of(&pair);
        let mut ret = None;
        let mut name = None;
        let mut type_params = Vec::new();
        let mut params = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ty => ret = Some(self.ty(p)),
                Rule::fn_name => {
                    name = p.into_inner().next().map(|n| match n.as_rule() {
                        Rule::name => self.name(n),
                        _ => self.ident(&n),
                    })
                }
                Rule::type_params => type_params = self.type_params(p),
                Rule::params => params = self.params(p),
                _ => {}
            }
        }
        Proto {
            ret: ret.unwrap_or(Type {
                kind: TypeKind::Void,
                span,
            }),
            name: name.unwrap_or(Ident {
                name: String::new(),
                span,
            }),
            type_params,
            params,
            span,
        }
    }

    /// `parser P<..>(...);`, `control C<..>(...);` and `package P<..>(...);`.
    fn type_decl(&mut self, pair: Pair<'t, Rule>) -> (Vec<Annotation>, Proto) {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let anns = self.take_annotations(&mut it);
        let (name, type_params, params, _) = self.head(it, span);
        let proto = Proto {
            ret: Type {
                kind: TypeKind::Void,
                span,
            },
            name,
            type_params,
            params,
            span,
        };
        (anns, proto)
    }

    /// The name, type parameters, parameters and constructor parameters of a parser, control or
    /// package; the remaining pairs (locals, states, apply) are returned.
    #[allow(clippy::type_complexity)]
    fn head(
        &mut self,
        it: pest::iterators::Pairs<'t, Rule>,
        span: Span,
    ) -> (
        Ident,
        Vec<Ident>,
        Vec<Param>,
        (Option<Vec<Param>>, Vec<Pair<'t, Rule>>),
    ) {
        let mut name = Ident {
            name: String::new(),
            span,
        };
        let mut type_params = Vec::new();
        let mut params = Vec::new();
        let mut ctor = None;
        let mut rest = Vec::new();
        for p in it {
            match p.as_rule() {
                Rule::kw_parser | Rule::kw_control | Rule::kw_package => {}
                Rule::name => name = self.name(p),
                Rule::type_params => type_params = self.type_params(p),
                Rule::params => params = self.params(p),
                Rule::ctor_params => {
                    ctor = Some(
                        p.into_inner()
                            .next()
                            .map(|ps| self.params(ps))
                            .unwrap_or_default(),
                    )
                }
                _ => rest.push(p),
            }
        }
        (name, type_params, params, (ctor, rest))
    }

    fn parser_decl(&mut self, pair: Pair<'t, Rule>) -> DeclKind {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let _anns = self.take_annotations(&mut it);
        let (name, type_params, params, (ctor_params, rest)) = self.head(it, span);
        let mut locals = Vec::new();
        let mut states = Vec::new();
        for p in rest {
            match p.as_rule() {
                Rule::parser_local => {
                    if let Some(local) = p.into_inner().next().and_then(|l| self.local(l)) {
                        locals.push(local);
                    }
                }
                Rule::state_decl => states.push(self.state(p)),
                _ => {}
            }
        }
        DeclKind::Parser(ParserDecl {
            proto: Proto {
                ret: Type {
                    kind: TypeKind::Void,
                    span,
                },
                name,
                type_params,
                params,
                span,
            },
            ctor_params,
            locals,
            states,
        })
    }

    fn control_decl(&mut self, pair: Pair<'t, Rule>) -> DeclKind {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let _anns = self.take_annotations(&mut it);
        let (name, type_params, params, (ctor_params, rest)) = self.head(it, span);
        let mut locals = Vec::new();
        let mut apply = Block::default();
        for p in rest {
            match p.as_rule() {
                Rule::control_local => {
                    if let Some(local) = p.into_inner().next().and_then(|l| self.local(l)) {
                        locals.push(local);
                    }
                }
                Rule::block => apply = self.block(p),
                _ => {}
            }
        }
        DeclKind::Control(ControlDecl {
            proto: Proto {
                ret: Type {
                    kind: TypeKind::Void,
                    span,
                },
                name,
                type_params,
                params,
                span,
            },
            ctor_params,
            locals,
            apply,
        })
    }

    /// A declaration inside a parser or control.
    fn local(&mut self, pair: Pair<'t, Rule>) -> Option<Local> {
        let span = span_of(&pair);
        Some(match pair.as_rule() {
            Rule::const_decl => Local::Const(self.const_decl(pair).1, span),
            Rule::var_decl => Local::Var(self.var_decl(pair)),
            Rule::instantiation => Local::Instance(self.instance(pair)),
            Rule::action_decl => Local::Action(self.action_decl(pair)),
            Rule::table_decl => Local::Table(self.table_decl(pair)),
            Rule::value_set_decl => {
                let name = pair
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::name)
                    .map(|n| self.name(n))?;
                Local::ValueSet(name, span)
            }
            _ => return None,
        })
    }

    pub(super) fn var_decl(&mut self, pair: Pair<'t, Rule>) -> VarDecl {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let _anns = self.take_annotations(&mut it);
        let ty = it.next().map(|t| self.ty(t)).unwrap_or(Type {
            kind: TypeKind::DontCare,
            span,
        });
        let name = it.next().map(|n| self.name(n)).unwrap_or(Ident {
            name: String::new(),
            span,
        });
        let init = it.next().map(|e| self.expr(e));
        VarDecl {
            ty,
            name,
            init,
            span,
        }
    }

    fn instance(&mut self, pair: Pair<'t, Rule>) -> Instance {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let annotations = self.take_annotations(&mut it);
        let ty = it.next().map(|t| self.ty(t)).unwrap_or(Type {
            kind: TypeKind::DontCare,
            span,
        });
        let args = it.next().map(|a| self.args(a)).unwrap_or_default();
        let name = it.next().map(|n| self.name(n)).unwrap_or(Ident {
            name: String::new(),
            span,
        });
        let has_initializer = it.next().is_some();
        Instance {
            ty,
            args,
            name,
            has_initializer,
            annotations,
            span,
        }
    }

    fn action_decl(&mut self, pair: Pair<'t, Rule>) -> ActionDecl {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let annotations = self.take_annotations(&mut it);
        let _kw = it.next();
        let name = it.next().map(|n| self.name(n)).unwrap_or(Ident {
            name: String::new(),
            span,
        });
        let params = it.next().map(|p| self.params(p)).unwrap_or_default();
        let body = it.next().map(|b| self.block(b)).unwrap_or_default();
        ActionDecl {
            name,
            params,
            body,
            annotations,
            span,
        }
    }

    pub(super) fn params(&mut self, pair: Pair<'t, Rule>) -> Vec<Param> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::param)
            .map(|p| {
                let span = span_of(&p);
                let mut dir = Direction::None;
                let mut ty = None;
                let mut name = None;
                let mut default = None;
                for part in p.into_inner() {
                    match part.as_rule() {
                        Rule::direction => {
                            dir = match part.into_inner().next().map(|k| k.as_rule()) {
                                Some(Rule::kw_in) => Direction::In,
                                Some(Rule::kw_out) => Direction::Out,
                                _ => Direction::InOut,
                            }
                        }
                        Rule::ty => ty = Some(self.ty(part)),
                        Rule::name => name = Some(self.name(part)),
                        Rule::expr => default = Some(self.expr(part)),
                        _ => {}
                    }
                }
                Param {
                    dir,
                    ty: ty.unwrap_or(Type {
                        kind: TypeKind::DontCare,
                        span,
                    }),
                    name: name.unwrap_or(Ident {
                        name: String::new(),
                        span,
                    }),
                    default,
                    span,
                }
            })
            .collect()
    }

    fn state(&mut self, pair: Pair<'t, Rule>) -> State {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let _anns = self.take_annotations(&mut it);
        let _kw = it.next();
        let name = it.next().map(|n| self.name(n)).unwrap_or(Ident {
            name: String::new(),
            span,
        });
        let mut stmts = Vec::new();
        let mut transition = None;
        for p in it {
            match p.as_rule() {
                Rule::stmt => stmts.push(self.stmt(p)),
                Rule::transition => transition = self.transition(p),
                _ => {}
            }
        }
        State {
            name,
            stmts,
            transition,
            span,
        }
    }

    fn transition(&mut self, pair: Pair<'t, Rule>) -> Option<Transition> {
        let body = pair
            .into_inner()
            .find(|p| p.as_rule() != Rule::kw_transition)?;
        if body.as_rule() == Rule::name {
            return Some(Transition::Direct(self.name(body)));
        }
        let span = span_of(&body);
        let mut exprs = Vec::new();
        let mut cases = Vec::new();
        for p in body.into_inner() {
            match p.as_rule() {
                Rule::expr_list => exprs = self.expr_list(p),
                Rule::select_case => {
                    let case_span = span_of(&p);
                    let mut parts = p.into_inner();
                    let keys = parts.next().map(|k| self.keyset(k)).unwrap_or_default();
                    let target = parts.next().map(|n| self.name(n));
                    if let Some(target) = target {
                        cases.push(SelectCase {
                            keys,
                            target,
                            span: case_span,
                        });
                    }
                }
                _ => {}
            }
        }
        Some(Transition::Select { exprs, cases, span })
    }

    /// A keyset: one element, or a tuple of elements.
    pub(super) fn keyset(&mut self, pair: Pair<'t, Rule>) -> Vec<Keyset> {
        pair.into_inner().map(|e| self.keyset_elem(e)).collect()
    }

    fn keyset_elem(&mut self, pair: Pair<'t, Rule>) -> Keyset {
        let span = span_of(&pair);
        let Some(inner) = pair.into_inner().next() else {
            return Keyset::DontCare(span);
        };
        match inner.as_rule() {
            Rule::kw_default => Keyset::Default(span),
            Rule::dont_care => Keyset::DontCare(span),
            _ => {
                let mut parts = inner.into_inner();
                let first = match parts.next() {
                    Some(e) => self.expr(e),
                    None => return Keyset::DontCare(span),
                };
                let op = parts.next().map(|o| o.as_rule());
                let second = parts.next().map(|e| self.expr(e));
                match (op, second) {
                    (Some(Rule::mask_op), Some(m)) => Keyset::Mask(first, m),
                    (Some(Rule::range_op), Some(hi)) => Keyset::Range(first, hi),
                    _ => Keyset::Value(first),
                }
            }
        }
    }
}
