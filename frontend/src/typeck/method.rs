//! Methods: `h.valid()`, `t.apply()`, `m.get(k)`, `c.count(i)`, `m[i].exceeds(len)`, `o.push(w)`.

use super::{BodyKind, Checker, PathKey, Typed};
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::resolve::index::{MemberDefKind, MemberEntry};
use crate::span::Span;
use crate::typeck::signature::{sig_of, SigKind};
use crate::types::Ty;

impl Checker<'_> {
    pub(crate) fn method_call(
        &mut self,
        receiver: &Expr,
        method: &Ident,
        args: &[Expr],
        span: Span,
    ) -> Typed {
        if let Some((name, entry, index)) = self.member_receiver(receiver) {
            self.note_use(&name);
            return self.member_method(&name, &entry, index, method, args, span);
        }
        let recv = self.expr(receiver, None);
        match &recv.ty {
            Ty::Header(_) => self.header_method(method, args, span),
            Ty::Error => {
                for a in args {
                    self.expr(a, None);
                }
                Typed::error()
            }
            other => {
                for a in args {
                    self.expr(a, None);
                }
                self.no_method(&format!("`{other}`"), method, &[]);
                Typed::error()
            }
        }
    }

    /// A receiver that names a table, map, counter, meter or output (possibly indexed), if it is one.
    fn member_receiver<'e>(
        &self,
        receiver: &'e Expr,
    ) -> Option<(String, MemberEntry, Option<&'e Expr>)> {
        let (path, index) = match &receiver.kind {
            ExprKind::Path(p) => (p, None),
            ExprKind::Index { base, index } => match &base.kind {
                ExprKind::Path(p) => (p, Some(index.as_ref())),
                _ => return None,
            },
            _ => return None,
        };
        if !path.is_single() || self.find_local(&path.segments[0].name).is_some() {
            return None;
        }
        let name = &path.segments[0].name;
        let entry = self.container()?.members.get(name)?.clone();
        let special = matches!(
            entry.kind,
            MemberDefKind::Table
                | MemberDefKind::Map
                | MemberDefKind::Counter
                | MemberDefKind::Meter
                | MemberDefKind::Out
        );
        special.then(|| (name.clone(), entry, index))
    }

    fn member_method(
        &mut self,
        name: &str,
        entry: &MemberEntry,
        index: Option<&Expr>,
        method: &Ident,
        args: &[Expr],
        span: Span,
    ) -> Typed {
        let sig = sig_of(self.db, self.file, entry.chunk);
        match (&sig.kind, method.name.as_str()) {
            (SigKind::Table(_), "apply") => self.apply(name, entry, index, args, span),
            (SigKind::Map { key, value, .. }, m @ ("get" | "contains" | "insert" | "remove")) => {
                self.no_index(name, index);
                if matches!(self.kind, BodyKind::Parser | BodyKind::Deparser) {
                    self.report(
                        Diagnostic::new(codes::E0501, span, format!("map `{name}` cannot be used in {}", self.body_name()))
                            .label("not allowed here")
                            .note("maps are used from the control, actions, `stream`, `every` and functions"),
                    );
                }
                let (key, value) = (key.clone(), value.clone());
                self.map_method(m, &key, &value, args, span)
            }
            (SigKind::Counter { size }, "count") => {
                let size = *size;
                self.per_packet_only(name, "counter", span);
                self.counter_count(name, size, index, args, span)
            }
            (SigKind::Meter { size }, "exceeds") => {
                let size = *size;
                self.per_packet_only(name, "meter", span);
                self.cell_index(name, size, index, span, "meter");
                self.fixed_method_args("exceeds", args, &[Ty::Bit(16)], span);
                Typed::of(Ty::Bool)
            }
            (SigKind::Out { count, .. }, "push") => {
                let count = *count;
                self.push(name, count, index, args, span)
            }
            (SigKind::Cycle | SigKind::None, _) => Typed::error(),
            (_, _) => {
                let methods: &[&str] = match entry.kind {
                    MemberDefKind::Table => &["apply"],
                    MemberDefKind::Map => &["get", "contains", "insert", "remove"],
                    MemberDefKind::Counter => &["count"],
                    MemberDefKind::Meter => &["exceeds"],
                    _ => &["push"],
                };
                for a in args {
                    self.expr(a, None);
                }
                self.no_method(
                    &format!("{} `{name}`", super::name::member_kind_name(entry.kind)),
                    method,
                    methods,
                );
                Typed::error()
            }
        }
    }

    /// Counters and meters measure packets: they are used only while processing one (E0413).
    fn per_packet_only(&mut self, name: &str, what: &str, span: Span) {
        if self.kind.is_packet() {
            return;
        }
        self.report(
            Diagnostic::new(
                codes::E0413,
                span,
                format!("{what} `{name}` used in {}", self.body_name()),
            )
            .label("no packet here")
            .note(format!("a {what} measures packets: use it in the control block, an action, `on parser_error` or an scu function"))
            .help("to keep a count outside packet processing, use a CSR"),
        );
    }

    fn no_method(&mut self, what: &str, method: &Ident, methods: &[&str]) {
        let mut diag = Diagnostic::new(
            codes::E0106,
            method.span,
            format!("no method `{}` on {what}", method.name),
        )
        .label("unknown method");
        if !methods.is_empty() {
            let list: Vec<String> = methods.iter().map(|m| format!("`{m}`")).collect();
            diag = diag.note(format!("its methods are {}", list.join(", ")));
        }
        self.report(diag);
    }

    fn no_index(&mut self, name: &str, index: Option<&Expr>) {
        if let Some(index) = index {
            self.report(
                Diagnostic::new(
                    codes::E0206,
                    index.span,
                    format!("`{name}` cannot be indexed"),
                )
                .label("unexpected index")
                .help(format!("pass the key to the method: `{name}.get(key)`")),
            );
        }
    }

    fn header_method(&mut self, method: &Ident, args: &[Expr], span: Span) -> Typed {
        let ret = match method.name.as_str() {
            "valid" => Ty::Bool,
            "set_valid" | "set_invalid" => {
                let ok = !matches!(
                    self.kind,
                    BodyKind::Const
                        | BodyKind::Parser
                        | BodyKind::CcHandler
                        | BodyKind::Stream
                        | BodyKind::Every
                );
                if !ok {
                    self.error(
                        codes::E0501,
                        span,
                        format!("`{}` is not allowed in {}", method.name, self.body_name()),
                        "not allowed here",
                    );
                }
                Ty::Unit
            }
            _ => {
                self.no_method("a header", method, &["valid", "set_valid", "set_invalid"]);
                return Typed::error();
            }
        };
        if !args.is_empty() {
            self.arity(&method.name, 0, args.len(), span);
        }
        Typed::of(ret)
    }

    fn apply(
        &mut self,
        name: &str,
        entry: &MemberEntry,
        index: Option<&Expr>,
        args: &[Expr],
        span: Span,
    ) -> Typed {
        self.no_index(name, index);
        let ok = matches!(
            self.kind,
            BodyKind::Control
                | BodyKind::ParserError
                | BodyKind::Fn {
                    in_scu: Some(true),
                    ..
                }
        );
        if !ok {
            self.report(
                Diagnostic::new(codes::E0501, span, format!("table `{name}` cannot be applied in {}", self.body_name()))
                    .label("not allowed here")
                    .note("tables are applied from the control block, a parser error handler or an scu function"),
            );
        }
        if !args.is_empty() {
            self.arity("apply", 0, args.len(), span);
        }
        self.count(PathKey::Apply(name.to_string()), 1);
        let sites = self
            .summary
            .apply_sites
            .entry(name.to_string())
            .or_default();
        // An unrolled loop checks one site several times: keep distinct sites.
        if sites.len() < 2 && !sites.contains(&span) {
            sites.push(span);
        }
        Typed::of(self.table_action_ty(name, entry.chunk))
    }

    fn map_method(
        &mut self,
        method: &str,
        key: &Ty,
        value: &Ty,
        args: &[Expr],
        span: Span,
    ) -> Typed {
        let (params, ret): (Vec<Ty>, Ty) = match method {
            "get" => (vec![key.clone()], value.clone()),
            "contains" | "remove" => (vec![key.clone()], Ty::Bool),
            _ => (vec![key.clone(), value.clone()], Ty::Bool),
        };
        self.fixed_method_args(method, args, &params, span);
        Typed::of(ret)
    }

    fn fixed_method_args(&mut self, method: &str, args: &[Expr], params: &[Ty], span: Span) {
        if args.len() != params.len() {
            self.arity(method, params.len(), args.len(), span);
        }
        for (arg, ty) in args.iter().zip(params) {
            self.expect_ty(arg, ty);
        }
        for arg in args.iter().skip(params.len()) {
            self.expr(arg, None);
        }
    }

    fn counter_count(
        &mut self,
        name: &str,
        size: u64,
        index: Option<&Expr>,
        args: &[Expr],
        span: Span,
    ) -> Typed {
        if let Some(index) = index {
            self.report(
                Diagnostic::new(
                    codes::E0413,
                    index.span,
                    format!("pass the cell to `count`: `{name}.count(i)`"),
                )
                .label("counters are not indexed with `[]`"),
            );
        }
        match (args, size) {
            ([], 1) => {}
            ([i], _) => self.check_index(i, size),
            ([], _) => self.report(
                Diagnostic::new(
                    codes::E0413,
                    span,
                    format!("counter `{name}` has {size} cells: say which one"),
                )
                .label("missing cell index")
                .help(format!("write `{name}.count(index)`")),
            ),
            _ => self.arity("count", if size == 1 { 0 } else { 1 }, args.len(), span),
        }
        Typed::of(Ty::Unit)
    }

    fn cell_index(&mut self, name: &str, size: u64, index: Option<&Expr>, span: Span, what: &str) {
        match index {
            Some(i) => self.check_index(i, size),
            None if size > 1 => self.report(
                Diagnostic::new(
                    codes::E0413,
                    span,
                    format!("{what} `{name}` has {size} cells: say which one"),
                )
                .label("missing index")
                .help(format!("write `{name}[i]`")),
            ),
            None => {}
        }
    }

    fn push(
        &mut self,
        name: &str,
        count: Option<u32>,
        index: Option<&Expr>,
        args: &[Expr],
        span: Span,
    ) -> Typed {
        let ok = matches!(
            self.kind,
            BodyKind::Stream
                | BodyKind::Fn {
                    in_scu: Some(true),
                    ..
                }
        );
        if !ok {
            self.report(
                Diagnostic::new(
                    codes::E0501,
                    span,
                    format!("`{name}.push` is only allowed in stream kernels"),
                )
                .label(format!("not allowed in {}", self.body_name()))
                .note("outputs carry payload words, which only a `stream` kernel sees")
                .help("send packets with `to_host()` / `to_network(port)`"),
            );
        }
        match (count, index) {
            (Some(n), Some(i)) => self.check_index(i, u64::from(n)),
            (Some(n), None) => self.report(
                Diagnostic::new(
                    codes::E0508,
                    span,
                    format!("`{name}` is {n} outputs: say which one"),
                )
                .label("missing index")
                .help(format!("write `{name}[i].push(word)`")),
            ),
            (None, Some(i)) => self.no_index(name, Some(i)),
            (None, None) => {}
        }
        self.fixed_method_args("push", args, &[Ty::Bit(512)], span);
        Typed::of(Ty::Unit)
    }
}
