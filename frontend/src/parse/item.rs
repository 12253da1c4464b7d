//! Top-level items, `scu`/`cc` heads, and members.

use super::{span_of, Builder, Rule};
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use pest::iterators::Pair;

impl<'t> Builder<'t> {
    /// A top-level item pair (or an `scu_head` / `cc_head`).
    pub(crate) fn item(&mut self, pair: Pair<'t, Rule>) -> Item {
        let span = span_of(&pair);
        let kind = match pair.as_rule() {
            Rule::use_item => self.use_item(pair),
            Rule::const_item => self
                .const_decl(pair)
                .map_or(ItemKind::Error, ItemKind::Const),
            Rule::header_item => self.record(pair).map_or(ItemKind::Error, ItemKind::Header),
            Rule::struct_item => self.record(pair).map_or(ItemKind::Error, ItemKind::Struct),
            Rule::enum_item => self.enum_item(pair),
            Rule::fn_item => self.fn_decl(pair).map_or(ItemKind::Error, ItemKind::Fn),
            Rule::scu_head => self.scu_head(pair),
            Rule::cc_head => self.cc_head(pair),
            Rule::bad_item => {
                self.bad_item(pair, false);
                ItemKind::Error
            }
            _ => ItemKind::Error,
        };
        Item { kind, span }
    }

    fn bad_item(&mut self, pair: Pair<'t, Rule>, member: bool) {
        let word_pair = self.children(pair).next();
        let (word, span) = match word_pair {
            Some(p) => (p.as_str().to_string(), span_of(&p)),
            None => (String::new(), Span::default()),
        };
        let suggestion = match word.as_str() {
            "function" | "func" | "def" | "fun" => Some("`fn`"),
            "typedef" | "type" => Some("`struct` or `header`"),
            "import" | "include" | "require" => Some("`use`"),
            "let" | "var" | "static" => Some("`const` (or `csr`/`state` for mutable state)"),
            "register" | "reg" => Some("`csr`"),
            "actions" | "key" | "entries" | "default" | "size" => {
                Some("this inside a `table { ... }`")
            }
            _ => None,
        };
        let (expected, noun) = if member {
            (
                "expected a member such as `csr`, `parser`, `table`, `control`, `on` or `fn`",
                "a member",
            )
        } else {
            (
                "expected an item such as `use`, `const`, `header`, `struct`, `fn`, `scu` or `cc`",
                "an item",
            )
        };
        let mut diag = Diagnostic::new(codes::E0009, span, format!("{expected}, found `{word}`"))
            .label(format!("not the start of {noun}"));
        if let Some(suggestion) = suggestion {
            diag = diag.help(format!("did you mean {suggestion}?"));
        }
        self.diags.push(diag);
    }

    fn use_item(&mut self, pair: Pair<'t, Rule>) -> ItemKind {
        let Some(path) = self.children(pair).next() else {
            return ItemKind::Error;
        };
        let mut module = Vec::new();
        let mut names = UseNames::Module;
        for child in self.children(path).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::use_group => {
                    names = UseNames::List(self.children(child).map(|n| self.ident(n)).collect());
                }
                Rule::use_glob => names = UseNames::Glob(span_of(&child)),
                _ => module.push(self.ident(child)),
            }
        }
        if matches!(names, UseNames::Module) && module.len() > 1 {
            // `use a::b::c;` imports `c` from `a::b`.
            if let Some(last) = module.pop() {
                names = UseNames::List(vec![last]);
            }
        }
        let module_span = match (module.first(), module.last()) {
            (Some(first), Some(last)) => first.span.to(last.span),
            _ => Span::default(),
        };
        ItemKind::Use(UseDecl {
            module,
            names,
            module_span,
        })
    }

    /// `const NAME[: T] = value;` and `param NAME: T = value;`.
    fn const_decl(&mut self, pair: Pair<'t, Rule>) -> Option<ConstDecl> {
        let mut name = None;
        let mut ty = None;
        let mut value = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::ty => ty = Some(self.ty(child)),
                Rule::expr => value = Some(self.expr(child)),
                _ => name = Some(self.ident(child)),
            }
        }
        Some(ConstDecl {
            name: name?,
            ty,
            value: value?,
        })
    }

    fn record(&mut self, pair: Pair<'t, Rule>) -> Option<RecordDecl> {
        let mut children = self.children(pair);
        let name = children.next().map(|n| self.ident(n))?;
        let fields = children
            .next()
            .map(|f| self.field_decls(f))
            .unwrap_or_default();
        Some(RecordDecl { name, fields })
    }

    /// A `field_decls` or `params` pair.
    pub(crate) fn field_decls(&mut self, pair: Pair<'t, Rule>) -> Vec<FieldDecl> {
        self.children(pair)
            .collect::<Vec<_>>()
            .into_iter()
            .filter_map(|field| {
                let mut parts = self.children(field);
                let (name, ty) = (parts.next()?, parts.next()?);
                Some(FieldDecl {
                    name: self.ident(name),
                    ty: self.ty(ty),
                })
            })
            .collect()
    }

    fn enum_item(&mut self, pair: Pair<'t, Rule>) -> ItemKind {
        let mut name = None;
        let mut repr = None;
        let mut variants = Vec::new();
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::ty => repr = Some(self.ty(child)),
                Rule::variant => {
                    let mut parts = self.children(child);
                    if let Some(vname) = parts.next() {
                        let vname = self.ident(vname);
                        let value = parts.next().map(|v| self.expr(v));
                        variants.push((vname, value));
                    }
                }
                _ => name = Some(self.ident(child)),
            }
        }
        match name {
            Some(name) => ItemKind::Enum(EnumDecl {
                name,
                repr,
                variants,
            }),
            None => ItemKind::Error,
        }
    }

    /// `fn name(params) -> T { }` and `action name(params) { }`.
    fn fn_decl(&mut self, pair: Pair<'t, Rule>) -> Option<FnDecl> {
        let mut name = None;
        let mut params = Vec::new();
        let mut ret = None;
        let mut body = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::params => params = self.field_decls(child),
                Rule::ty => ret = Some(self.ty(child)),
                Rule::block => body = Some(self.block(child)),
                _ => name = Some(self.ident(child)),
            }
        }
        Some(FnDecl {
            name: name?,
            params,
            ret,
            body: body?,
        })
    }

    fn scu_head(&mut self, pair: Pair<'t, Rule>) -> ItemKind {
        let mut children = self.children(pair);
        let (Some(name), Some(attach)) = (children.next(), children.next()) else {
            return ItemKind::Error;
        };
        let name = self.ident(name);
        let mut attach_parts = self.children(attach);
        let Some(attach_name) = attach_parts.next() else {
            return ItemKind::Error;
        };
        let attach = self.ident(attach_name);
        let attach_binding = attach_parts.next().map(|b| self.ident(b));
        ItemKind::Scu(ScuHead {
            name,
            attach,
            attach_binding,
        })
    }

    fn cc_head(&mut self, pair: Pair<'t, Rule>) -> ItemKind {
        let mut name = None;
        let mut per = None;
        let mut flows = None;
        let mut budget = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::cc_per => {
                    let mut parts = self.children(child);
                    per = parts.next().map(|p| self.ident(p));
                    flows = parts.next().map(|e| self.expr(e));
                }
                Rule::cc_budget => {
                    let mut parts = self.children(child);
                    if let (Some(value), Some(unit)) = (parts.next(), parts.next()) {
                        budget = Some((self.expr(value), self.ident(unit)));
                    }
                }
                _ => name = Some(self.ident(child)),
            }
        }
        match name {
            Some(name) => ItemKind::Cc(CcHead {
                name,
                per,
                flows,
                budget,
            }),
            None => ItemKind::Error,
        }
    }

    /// A member pair.
    pub(crate) fn member(&mut self, pair: Pair<'t, Rule>) -> Member {
        let span = span_of(&pair);
        let kind = self.member_kind(pair).unwrap_or(MemberKind::Error);
        Member { kind, span }
    }

    fn member_kind(&mut self, pair: Pair<'t, Rule>) -> Option<MemberKind> {
        Some(match pair.as_rule() {
            Rule::csr_decl => MemberKind::Csr(self.csr(pair)?),
            Rule::headers_decl => MemberKind::Headers(self.single_fields(pair)),
            Rule::meta_decl => MemberKind::Meta(self.single_fields(pair)),
            Rule::errors_decl => {
                MemberKind::Errors(self.children(pair).map(|n| self.ident(n)).collect())
            }
            Rule::parser_decl => MemberKind::Parser(self.parser(pair)),
            Rule::table_decl => MemberKind::Table(self.table(pair)?),
            Rule::action_decl => MemberKind::Action(self.fn_decl(pair)?),
            Rule::map_decl => {
                let mut parts = self.children(pair);
                let name = self.ident(parts.next()?);
                let ty = self.ty(parts.next()?);
                let size = self.expr(parts.next()?);
                MemberKind::Map(MapDecl { name, ty, size })
            }
            Rule::counter_decl => {
                let mut parts = self.children(pair);
                let name = self.ident(parts.next()?);
                let kind = self.ident(parts.next()?);
                let size = parts.next().map(|e| self.expr(e));
                MemberKind::Counter(CounterDecl { name, kind, size })
            }
            Rule::meter_decl => MemberKind::Meter(self.meter(pair)?),
            Rule::out_decl => {
                let mut parts = self.children(pair);
                let name = self.ident(parts.next()?);
                let ty = self.ty(parts.next()?);
                let batch = parts.next().map(|e| self.expr(e));
                MemberKind::Out(OutDecl { name, ty, batch })
            }
            Rule::control_decl => MemberKind::Control(self.block(self.children(pair).next()?)),
            Rule::deparser_decl => MemberKind::Deparser(self.block(self.children(pair).next()?)),
            Rule::stream_decl => {
                let mut parts = self.children(pair);
                let params_pair = parts.next()?;
                let head_span = span_of(&params_pair);
                let params = self.field_decls(params_pair);
                let body = self.block(parts.next()?);
                MemberKind::Stream(StreamDecl {
                    params,
                    body,
                    head_span,
                })
            }
            Rule::every_decl => {
                let mut parts = self.children(pair);
                let period = self.expr(parts.next()?);
                let body = self.block(parts.next()?);
                MemberKind::Every(EveryDecl { period, body })
            }
            Rule::on_decl => MemberKind::On(self.handler(pair)?),
            Rule::fn_item => MemberKind::Fn(self.fn_decl(pair)?),
            Rule::const_item => MemberKind::Const(self.const_decl(pair)?),
            Rule::param_decl => MemberKind::Param(self.const_decl(pair)?),
            Rule::state_decl => {
                let mut parts = self.children(pair);
                let name = self.ident(parts.next()?);
                let ty = self.ty(parts.next()?);
                let init = parts.next().map(|e| self.expr(e));
                MemberKind::State(StateDecl { name, ty, init })
            }
            Rule::output_decl => {
                let mut parts = self.children(pair);
                let kind = self.ident(parts.next()?);
                let state = self.ident(parts.next()?);
                MemberKind::Output(OutputDecl { kind, state })
            }
            Rule::bad_item => {
                self.bad_item(pair, true);
                return None;
            }
            _ => return None,
        })
    }

    fn single_fields(&mut self, pair: Pair<'t, Rule>) -> Vec<FieldDecl> {
        match self.children(pair).next() {
            Some(fields) => self.field_decls(fields),
            None => Vec::new(),
        }
    }

    fn csr(&mut self, pair: Pair<'t, Rule>) -> Option<CsrDecl> {
        let mut name = None;
        let mut ty = None;
        let mut readonly = false;
        let mut init = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::ty => ty = Some(self.ty(child)),
                Rule::readonly_kw => readonly = true,
                Rule::expr => init = Some(self.expr(child)),
                _ => name = Some(self.ident(child)),
            }
        }
        Some(CsrDecl {
            name: name?,
            ty: ty?,
            readonly,
            init,
        })
    }

    fn meter(&mut self, pair: Pair<'t, Rule>) -> Option<MeterDecl> {
        let mut parts = self.children(pair);
        let name = self.ident(parts.next()?);
        let kind = self.ident(parts.next()?);
        let mut size = None;
        let mut options = Vec::new();
        for child in parts.collect::<Vec<_>>() {
            if child.as_rule() == Rule::expr {
                size = Some(self.expr(child));
            } else {
                let mut opt = self.children(child);
                if let (Some(key), Some(value)) = (opt.next(), opt.next()) {
                    let key = self.ident(key);
                    let value = self.primary_expr(value);
                    options.push((key, value));
                }
            }
        }
        Some(MeterDecl {
            name,
            kind,
            size,
            options,
        })
    }

    fn handler(&mut self, pair: Pair<'t, Rule>) -> Option<HandlerDecl> {
        let mut parts = self.children(pair);
        let event_pair = self.children(parts.next()?).next()?;
        let body = self.block(parts.next()?);
        let event = match event_pair.as_rule() {
            Rule::periodic_event => {
                let mut e = self.children(event_pair);
                let kind = self.ident(e.next()?);
                let name = self.ident(e.next()?);
                let period = self.expr(e.next()?);
                Event::Periodic { kind, name, period }
            }
            _ => {
                let mut e = self.children(event_pair);
                let name = self.ident(e.next()?);
                let binding = e.next().map(|b| self.ident(b));
                Event::Simple { name, binding }
            }
        };
        Some(HandlerDecl { event, body })
    }

    fn parser(&mut self, pair: Pair<'t, Rule>) -> ParserDecl {
        let states = self
            .children(pair)
            .collect::<Vec<_>>()
            .into_iter()
            .filter_map(|state| self.parser_state(state))
            .collect();
        ParserDecl { states }
    }

    fn parser_state(&mut self, pair: Pair<'t, Rule>) -> Option<ParserState> {
        let span = span_of(&pair);
        let mut parts = self.children(pair).collect::<Vec<_>>().into_iter();
        let name = self.ident(parts.next()?);
        let mut stmts = Vec::new();
        let mut transition = None;
        for child in parts {
            if child.as_rule() == Rule::transition {
                transition = Some(self.transition(child)?);
            } else {
                stmts.push(self.stmt(child));
            }
        }
        Some(ParserState {
            name,
            stmts,
            transition: transition?,
            span,
        })
    }

    fn transition(&mut self, pair: Pair<'t, Rule>) -> Option<Transition> {
        let span = span_of(&pair);
        let inner = pair.into_inner().next()?;
        if inner.as_rule() != Rule::select {
            return Some(Transition::Direct(self.target(inner, span)?));
        }
        let mut parts = self.children(inner);
        let scrutinee = self.expr(parts.next()?);
        let mut arms = Vec::new();
        for arm in parts.collect::<Vec<_>>() {
            let mut arm_parts = self.children(arm);
            let pattern = self.pattern(arm_parts.next()?);
            let target_pair = arm_parts.next()?;
            let target_span = span_of(&target_pair);
            let target = self.target(target_pair.into_inner().next()?, target_span)?;
            arms.push((pattern, target));
        }
        Some(Transition::Select { scrutinee, arms })
    }

    fn target(&mut self, pair: Pair<'t, Rule>, span: Span) -> Option<Target> {
        Some(match pair.as_rule() {
            Rule::kw_accept => Target::Accept(span_of(&pair)),
            Rule::reject_target => {
                let error = self.children(pair.clone()).next().map(|e| self.ident(e));
                Target::Reject(span_of(&pair), error)
            }
            Rule::goto_state => Target::State(self.ident(self.children(pair).next()?)),
            _ => Target::Accept(span),
        })
    }

    fn table(&mut self, pair: Pair<'t, Rule>) -> Option<TableDecl> {
        let mut parts = self.children(pair).collect::<Vec<_>>().into_iter();
        let name = self.ident(parts.next()?);
        let mut table = TableDecl {
            name,
            keys: None,
            actions: None,
            default: None,
            size: None,
            entries: None,
            repeated: Vec::new(),
        };
        for prop in parts {
            self.table_prop(&mut table, prop);
        }
        Some(table)
    }

    fn table_prop(&mut self, table: &mut TableDecl, prop: Pair<'t, Rule>) {
        let span = span_of(&prop);
        let rule = prop.as_rule();
        let children: Vec<Pair<'t, Rule>> = self.children(prop).collect();
        let (what, fresh) = match rule {
            Rule::table_key => ("key", table.keys.is_none()),
            Rule::table_actions => ("actions", table.actions.is_none()),
            Rule::table_default => ("default", table.default.is_none()),
            Rule::table_size => ("size", table.size.is_none()),
            _ => ("entries", table.entries.is_none()),
        };
        if !fresh {
            table.repeated.push((what, span));
            return;
        }
        match rule {
            Rule::table_key => {
                let keys = children
                    .into_iter()
                    .filter_map(|k| self.key_elem(k))
                    .collect();
                table.keys = Some((keys, span));
            }
            Rule::table_actions => {
                let actions = children
                    .into_iter()
                    .filter_map(|a| self.action_ref(a))
                    .collect();
                table.actions = Some((actions, span));
            }
            Rule::table_default => table.default = self.action_call(children, span),
            Rule::table_size => table.size = children.into_iter().next().map(|e| self.expr(e)),
            _ => {
                let entries = children.into_iter().filter_map(|e| self.entry(e)).collect();
                table.entries = Some((entries, span));
            }
        }
    }

    fn key_elem(&mut self, pair: Pair<'t, Rule>) -> Option<KeyElem> {
        let mut parts = self.children(pair);
        let expr = self.expr(parts.next()?);
        let kind = self.ident(parts.next()?);
        Some(KeyElem { expr, kind })
    }

    fn action_ref(&mut self, pair: Pair<'t, Rule>) -> Option<ActionRef> {
        let mut parts = self.children(pair);
        let name = self.ident(parts.next()?);
        let params = parts.next().map(|p| self.field_decls(p));
        Some(ActionRef { name, params })
    }

    fn action_call(&mut self, children: Vec<Pair<'t, Rule>>, span: Span) -> Option<ActionCall> {
        let mut parts = children.into_iter();
        let name = self.ident(parts.next()?);
        let args = parts.next().map(|a| self.call_args(a)).unwrap_or_default();
        Some(ActionCall { name, args, span })
    }

    fn entry(&mut self, pair: Pair<'t, Rule>) -> Option<Entry> {
        let span = span_of(&pair);
        let mut keys = Vec::new();
        let mut rest = Vec::new();
        for child in self.children(pair).collect::<Vec<_>>() {
            if child.as_rule() == Rule::pattern {
                keys.push(self.pattern(child));
            } else {
                rest.push(child);
            }
        }
        let action_span = match (rest.first(), rest.last()) {
            (Some(first), Some(last)) => span_of(first).to(span_of(last)),
            _ => span,
        };
        let action = self.action_call(rest, action_span)?;
        Some(Entry { keys, action, span })
    }

    /// A `primary` used on its own (meter options): an expression from a single primary.
    fn primary_expr(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::path => {
                let path = self.path(pair);
                self.mk_expr(ExprKind::Path(path), span)
            }
            _ => {
                let kind = self.literal(pair);
                self.mk_expr(kind, span)
            }
        }
    }
}
