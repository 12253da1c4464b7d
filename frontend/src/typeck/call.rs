//! Calls: functions, actions, builtins, intrinsics (`hash::`, `checksum::`), and methods on headers,
//! tables, maps, counters, meters and outputs.

use super::name::Res;
use super::{BodyKind, Checker, PathKey, Typed};
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::resolve::index::{MemberDefKind, MemberEntry};
use crate::span::Span;
use crate::typeck::signature::{sig_of, SigKind};
use crate::types::{DefId, Ty, TypeRef};
use std::sync::Arc;

const HASH_FNS: &[&str] = &["crc32", "crc16", "murmur3_32", "toeplitz"];
const CHECKSUM_FNS: &[&str] = &["ones_complement", "update"];

/// Whether intrinsic module `module` has a function `name`.
pub(crate) fn intrinsic_exists(module: &str, name: &str) -> bool {
    match module {
        "hash" => HASH_FNS.contains(&name),
        "checksum" => CHECKSUM_FNS.contains(&name),
        _ => false,
    }
}

/// A note listing an intrinsic module's functions.
pub(crate) fn intrinsic_list(module: &str) -> String {
    let fns = if module == "hash" {
        HASH_FNS
    } else {
        CHECKSUM_FNS
    };
    format!(
        "`{module}` has {}",
        fns.iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

impl Checker<'_> {
    pub(crate) fn call(&mut self, callee: &Expr, args: &[Expr], span: Span) -> Typed {
        let ExprKind::Path(path) = &callee.kind else {
            self.expr(callee, None);
            self.error(
                codes::E0109,
                callee.span,
                "only named functions can be called",
                "not a function",
            );
            return Typed::error();
        };
        let res = self.resolve_path(path);
        let name = path.last().name.clone();
        match res {
            Res::Member(_, entry)
                if matches!(entry.kind, MemberDefKind::Fn | MemberDefKind::Action) =>
            {
                self.member_call(&name, &entry, args, span)
            }
            Res::Item(file, _, entry) if entry.kind == crate::resolve::index::DefKind::Fn => {
                let sig = sig_of(self.db, file, entry.chunk);
                self.summary.calls.push((name.clone(), path.span));
                self.count(PathKey::Call(name.clone()), 1);
                self.check_fn_args(&name, &sig.kind, args, span)
            }
            Res::Builtin(b) => self.builtin_call(b, args, span),
            Res::Intrinsic(module, f) => self.intrinsic_call(module, &f, args, span),
            Res::Error => {
                for a in args {
                    self.expr(a, None);
                }
                Typed::error()
            }
            other => {
                for a in args {
                    self.expr(a, None);
                }
                let (what, help) = match &other {
                    Res::Local(l) => (
                        l.what.to_string(),
                        format!("read it without parentheses: `{name}`"),
                    ),
                    Res::Member(_, e) => {
                        let help = match e.kind {
                            MemberDefKind::Table => format!("apply it with `{name}.apply()`"),
                            MemberDefKind::Map => {
                                format!("use its methods, e.g. `{name}.get(key)`")
                            }
                            MemberDefKind::Counter => format!("count with `{name}.count(index)`"),
                            MemberDefKind::Meter => format!("use `{name}[index].exceeds(len)`"),
                            MemberDefKind::Out => format!("send words with `{name}.push(word)`"),
                            _ => format!("read it without parentheses: `{name}`"),
                        };
                        (super::name::member_kind_name(e.kind).to_string(), help)
                    }
                    _ => (
                        "value".to_string(),
                        format!("read it without parentheses: `{name}`"),
                    ),
                };
                self.report(
                    Diagnostic::new(
                        codes::E0109,
                        callee.span,
                        format!("`{name}` is a {what}, not a function"),
                    )
                    .label("cannot be called")
                    .help(help),
                );
                Typed::error()
            }
        }
    }

    fn member_call(&mut self, name: &str, entry: &MemberEntry, args: &[Expr], span: Span) -> Typed {
        let sig = sig_of(self.db, self.file, entry.chunk);
        self.summary.calls.push((name.to_string(), span));
        self.count(PathKey::Call(name.to_string()), 1);
        if entry.kind == MemberDefKind::Action
            && !matches!(
                self.kind,
                BodyKind::Control
                    | BodyKind::ParserError
                    | BodyKind::Action
                    | BodyKind::Fn {
                        in_scu: Some(true),
                        ..
                    }
            )
        {
            self.error(
                codes::E0501,
                span,
                format!("action `{name}` can only run while processing a packet"),
                "not allowed here",
            );
        }
        let kind = match &sig.kind {
            SigKind::Action { params } => SigKind::Fn {
                params: params.clone(),
                ret: Ty::Unit,
            },
            other => other.clone(),
        };
        self.check_fn_args(name, &kind, args, span)
    }

    fn check_fn_args(&mut self, name: &str, sig: &SigKind, args: &[Expr], span: Span) -> Typed {
        let SigKind::Fn { params, ret } = sig else {
            for a in args {
                self.expr(a, None);
            }
            return Typed::error();
        };
        if params.len() != args.len() {
            self.arity(name, params.len(), args.len(), span);
        }
        for (arg, (_, ty)) in args.iter().zip(params) {
            self.expect_ty(arg, ty);
        }
        for arg in args.iter().skip(params.len()) {
            self.expr(arg, None);
        }
        Typed::of(ret.clone())
    }

    pub(crate) fn arity(&mut self, name: &str, expected: usize, found: usize, span: Span) {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        self.error(
            codes::E0211,
            span,
            format!(
                "`{name}` takes {expected} argument{}, but {found} {} given",
                s(expected),
                if found == 1 { "was" } else { "were" }
            ),
            format!("expected {expected} argument{}", s(expected)),
        );
    }

    /// Checks that the current body may use `what`; reports E0501 otherwise.
    fn allowed(&mut self, ok: bool, what: &str, where_ok: &str, span: Span) -> bool {
        if !ok {
            self.report(
                Diagnostic::new(codes::E0501, span, format!("`{what}` is not allowed here"))
                    .label(format!("not allowed in {}", self.body_name()))
                    .note(format!("`{what}` may be used in {where_ok}")),
            );
        }
        ok
    }

    pub(crate) fn body_name(&self) -> &'static str {
        match &self.kind {
            BodyKind::Const => "a constant expression",
            BodyKind::Fn { in_scu: None, .. } => "a top-level function",
            BodyKind::Fn {
                in_scu: Some(true), ..
            } => "an scu function",
            BodyKind::Fn { .. } => "a cc function",
            BodyKind::Control => "a control block",
            BodyKind::Parser => "a parser",
            BodyKind::Deparser => "a deparser",
            BodyKind::Action => "an action",
            BodyKind::Stream => "a stream kernel",
            BodyKind::Every => "an `every` block",
            BodyKind::ParserError => "a parser error handler",
            BodyKind::CcHandler => "a congestion-control handler",
        }
    }

    fn builtin_call(&mut self, builtin: &str, args: &[Expr], span: Span) -> Typed {
        let packet = self.kind.is_packet();
        match builtin {
            "min" | "max" => self.min_max(builtin, args, span),
            "extract" => self.extract_call(args, span),
            "emit" => {
                self.allowed(
                    self.kind == BodyKind::Deparser,
                    "emit",
                    "the deparser",
                    span,
                );
                self.header_arg("emit", args, span, false)
            }
            "lookahead" => self.lookahead(args, span),
            "drop" | "to_host" => {
                self.allowed(
                    packet,
                    builtin,
                    "control blocks, actions, scu functions and parser error handlers",
                    span,
                );
                if !args.is_empty() {
                    self.arity(builtin, 0, args.len(), span);
                }
                if builtin == "drop" {
                    self.ended = true;
                }
                Typed::of(Ty::Unit)
            }
            "to_network" => {
                self.allowed(
                    packet,
                    builtin,
                    "control blocks, actions, scu functions and parser error handlers",
                    span,
                );
                self.fixed_args(builtin, args, &[Ty::Bit(8)], span)
            }
            "pass" => {
                let ok = matches!(
                    self.kind,
                    BodyKind::Stream
                        | BodyKind::Fn {
                            in_scu: Some(true),
                            ..
                        }
                );
                self.allowed(ok, "pass", "stream kernels and scu functions", span);
                self.pass_once(span);
                self.fixed_args(builtin, args, &[Ty::Bit(512)], span)
            }
            "notify" => self.notify(args, span),
            "to_scu" => {
                self.allowed(
                    packet,
                    builtin,
                    "control blocks, actions, scu functions and parser error handlers",
                    span,
                );
                self.send_to_scu(args, span)
            }
            _ => {
                for a in args {
                    self.expr(a, None);
                }
                self.error(
                    codes::E0109,
                    span,
                    format!("`{builtin}` is not a function"),
                    "cannot be called",
                );
                Typed::error()
            }
        }
    }

    /// `pass(w)` at most once on a path through one word's processing (E0501).
    fn pass_once(&mut self, span: Span) {
        let key = PathKey::Call("pass".to_string());
        self.count(key.clone(), 1);
        if self.path.get(&key).copied().unwrap_or(0) > 1 {
            self.report(
                Diagnostic::new(
                    codes::E0501,
                    span,
                    "the word is already passed on this path",
                )
                .label("second `pass`")
                .note("`pass` sends the word on to its destination once")
                .help("to send data to more places, `push` it to an `out`"),
            );
        }
    }

    /// `to_scu(name)`: a copy of the packet to another scu of the file.
    fn send_to_scu(&mut self, args: &[Expr], span: Span) -> Typed {
        let [arg] = args else {
            self.arity("to_scu", 1, args.len(), span);
            return Typed::of(Ty::Unit);
        };
        let known = match &arg.kind {
            ExprKind::Path(p) if p.is_single() => {
                let name = &p.segments[0].name;
                let scu = self.find_local(name).is_none()
                    && self
                        .container()
                        .is_none_or(|c| !c.members.contains_key(name))
                    && self.index.items.get(name).map(|e| e.kind)
                        == Some(crate::resolve::index::DefKind::Scu);
                if scu {
                    self.note_use(name);
                    return Typed::of(Ty::Unit);
                }
                !matches!(self.resolve_path(p), Res::Error)
            }
            _ => {
                self.expr(arg, None);
                true
            }
        };
        if known {
            self.report(
                Diagnostic::new(codes::E0109, arg.span, "`to_scu` takes the name of an scu")
                    .label("not an scu of this file")
                    .help("write `to_scu(name)` with the name of another `scu` item"),
            );
        }
        Typed::of(Ty::Unit)
    }

    fn fixed_args(&mut self, name: &str, args: &[Expr], params: &[Ty], span: Span) -> Typed {
        if args.len() != params.len() {
            self.arity(name, params.len(), args.len(), span);
        }
        for (arg, ty) in args.iter().zip(params) {
            self.expect_ty(arg, ty);
        }
        Typed::of(Ty::Unit)
    }

    fn min_max(&mut self, name: &str, args: &[Expr], span: Span) -> Typed {
        let [a, b] = args else {
            self.arity(name, 2, args.len(), span);
            return Typed::error();
        };
        let op = if name == "min" {
            BinaryOp::Lt
        } else {
            BinaryOp::Gt
        };
        let cmp = self.binary(op, a, b, span, None);
        if cmp.ty.is_error() {
            return Typed::error();
        }
        let ta = self.expr(a, None);
        let tb = self.expr(b, Some(&ta.ty));
        let ty = if ta.ty == Ty::IntLit {
            tb.ty.clone()
        } else {
            ta.ty.clone()
        };
        let value = match (&ta.value, &tb.value, &cmp.value) {
            (Some(x), Some(y), Some(crate::consteval::Value::Bool(first))) => {
                Some(if *first { x.clone() } else { y.clone() })
            }
            _ => None,
        };
        Typed { ty, value }
    }

    fn extract_call(&mut self, args: &[Expr], span: Span) -> Typed {
        self.allowed(
            self.kind == BodyKind::Parser,
            "extract",
            "parser states",
            span,
        );
        self.header_arg("extract", args, span, true)
    }

    /// `extract(h)` / `emit(h)`: one header instance or stack.
    fn header_arg(&mut self, name: &str, args: &[Expr], span: Span, extract: bool) -> Typed {
        let [arg] = args else {
            self.arity(name, 1, args.len(), span);
            return Typed::of(Ty::Unit);
        };
        let instance = match &arg.kind {
            ExprKind::Path(p) if p.is_single() => self
                .container()
                .and_then(|c| c.members.get(&p.segments[0].name))
                .filter(|e| e.kind == MemberDefKind::HeaderInst)
                .map(|_| p.segments[0].name.clone()),
            _ => None,
        };
        if instance.is_none() && self.header_type_arg(name, arg) {
            return Typed::of(Ty::Unit);
        }
        let typed = self.expr(arg, None);
        match (&instance, &typed.ty) {
            (Some(inst), Ty::Header(_)) | (Some(inst), Ty::Array(..)) => {
                self.summary.headers.insert(inst.clone());
            }
            (_, Ty::Error) => {}
            _ => {
                self.report(
                    Diagnostic::new(
                        codes::E0303,
                        arg.span,
                        format!("`{name}` takes a header instance from `headers {{ }}`"),
                    )
                    .label(format!("this is a `{}`", typed.ty))
                    .help(if extract {
                        "declare it in the scu's `headers { }` block and extract it by name"
                    } else {
                        "emit header instances by name"
                    }),
                );
            }
        }
        Typed::of(Ty::Unit)
    }

    /// `extract(ethernet)`: a header type where an instance was meant (E0303); true if reported.
    fn header_type_arg(&mut self, name: &str, arg: &Expr) -> bool {
        let ExprKind::Path(p) = &arg.kind else {
            return false;
        };
        let is_header_type = matches!(
            crate::resolve::lookup::lookup_module_name(self.db, self.file, &p.text()),
            Some(crate::resolve::lookup::ModuleRes::Item(_, e))
                if e.kind == crate::resolve::index::DefKind::Header
        ) && self.find_local(&p.text()).is_none();
        if !is_header_type {
            return false;
        }
        let instances: Vec<String> = self.instances_of(&p.text());
        if let [only] = instances.as_slice() {
            // The instance that was meant: not reported again as unused.
            self.note_use(only);
        }
        let help = match instances.first() {
            Some(inst) => format!("{name} the instance: `{name}({inst})`"),
            None => format!(
                "declare an instance in `headers {{ h: {} }}` and {name} it by name",
                p.text()
            ),
        };
        self.report(
            Diagnostic::new(
                codes::E0303,
                arg.span,
                format!(
                    "`{name}` takes a header instance, not the header type `{}`",
                    p.text()
                ),
            )
            .label("a header type")
            .help(help),
        );
        true
    }

    /// The header instances of the current scu whose type is the header named `ty`.
    fn instances_of(&self, ty: &str) -> Vec<String> {
        let Some(chunk) = self.container().and_then(|c| c.parts.headers) else {
            return Vec::new();
        };
        match &sig_of(self.db, self.file, chunk).kind {
            SigKind::Headers { instances } => instances
                .iter()
                .filter(|i| match &i.ty {
                    Ty::Header(t) => &*t.name == ty,
                    Ty::Array(elem, _) => matches!(&**elem, Ty::Header(t) if &*t.name == ty),
                    _ => false,
                })
                .map(|i| i.name.clone())
                .collect(),
            _ => Vec::new(),
        }
    }

    fn lookahead(&mut self, args: &[Expr], span: Span) -> Typed {
        self.allowed(
            self.kind == BodyKind::Parser,
            "lookahead",
            "parser states",
            span,
        );
        let [arg] = args else {
            self.arity("lookahead", 1, args.len(), span);
            return Typed::error();
        };
        let width = self.expr(arg, None);
        if width.ty.is_error() {
            return Typed::error();
        }
        if width.value.is_none() {
            self.report(
                Diagnostic::new(
                    codes::E0304,
                    arg.span,
                    "the lookahead width must be a constant",
                )
                .label("only known at run time")
                .note("`lookahead(N)` returns a `bit<N>`, so N fixes its type")
                .help(
                    "look ahead the largest width you need and slice it, e.g. `lookahead(32)[7:0]`",
                ),
            );
            return Typed::error();
        }
        match self.const_size_allow_zero(arg, "the lookahead width") {
            Some(n) if (1..=512).contains(&n) => Typed::of(Ty::Bit(n as u32)),
            Some(n) => {
                self.error(
                    codes::E0304,
                    arg.span,
                    format!("cannot look ahead {n} bits"),
                    "between 1 and 512 bits",
                );
                Typed::error()
            }
            None => Typed::error(),
        }
    }

    fn notify(&mut self, args: &[Expr], span: Span) -> Typed {
        let ok = !matches!(
            self.kind,
            BodyKind::Const
                | BodyKind::Parser
                | BodyKind::Deparser
                | BodyKind::Fn { in_scu: None, .. }
        );
        self.allowed(
            ok,
            "notify",
            "control blocks, handlers, `every` blocks, stream kernels and scu/cc functions",
            span,
        );
        let [target, value] = args else {
            self.arity("notify", 2, args.len(), span);
            return Typed::of(Ty::Unit);
        };
        let target_ok = matches!(&target.kind, ExprKind::Path(p) if p.is_single() && matches!(p.segments[0].name.as_str(), "host" | "arm"));
        if !target_ok {
            self.report(
                Diagnostic::new(
                    codes::E0508,
                    target.span,
                    "notifications go to `host` or `arm`",
                )
                .label("unknown target")
                .help("write `notify(host, value)` or `notify(arm, value)`"),
            );
        }
        let typed = self.expr(value, None);
        if matches!(typed.ty, Ty::IntLit | Ty::DecimalLit) {
            self.report(
                Diagnostic::new(
                    codes::E0209,
                    value.span,
                    "`notify` needs to know the width of this constant",
                )
                .label("a constant has no width of its own")
                .help("give it one: `notify(host, 1 as bit<32>)`"),
            );
            return Typed::of(Ty::Unit);
        }
        let fits = match &typed.ty {
            Ty::Bit(n) | Ty::Int(n) => *n <= 32,
            Ty::Bool | Ty::Error => true,
            _ => false,
        };
        if !fits {
            self.report(
                Diagnostic::new(codes::E0508, value.span, format!("a notification carries at most 32 bits, this is `{}`", typed.ty))
                    .label("too wide")
                    .note("notifications are Coyote interrupts with a 32-bit value")
                    .help("send an index or a summary, and let the host read the rest through CSRs or counters"),
            );
        }
        Typed::of(Ty::Unit)
    }

    fn intrinsic_call(&mut self, module: &str, name: &str, args: &[Expr], span: Span) -> Typed {
        let full = format!("{module}::{name}");
        let arg_tys: Vec<Typed> = args.iter().map(|a| self.expr(a, None)).collect();
        let (arity, ret) = match name {
            "crc32" | "murmur3_32" | "toeplitz" => {
                (if name == "crc32" { 1 } else { 2 }, Ty::Bit(32))
            }
            "crc16" | "ones_complement" => (1, Ty::Bit(16)),
            _ => (3, Ty::Bit(16)),
        };
        if args.len() != arity {
            self.arity(&full, arity, args.len(), span);
            return Typed::of(ret);
        }
        let data_width = match &arg_tys[0].ty {
            Ty::Bit(n) => Some(*n),
            Ty::Error => None,
            Ty::IntLit => {
                self.report(
                    Diagnostic::new(
                        codes::E0209,
                        args[0].span,
                        format!("`{full}` needs to know the width of this constant"),
                    )
                    .label("a constant has no width of its own")
                    .help(
                        "give it one: `(x as bit<32>)`; the width decides which bytes are hashed",
                    ),
                );
                None
            }
            other => {
                self.error(
                    codes::E0201,
                    args[0].span,
                    format!("`{full}` hashes a bit<N>, not `{other}`"),
                    "not a bit string",
                );
                None
            }
        };
        let unit = if name == "ones_complement" { 16 } else { 8 };
        if let Some(n) = data_width.filter(|n| n % unit != 0 && name != "update") {
            self.report(
                Diagnostic::new(
                    codes::E0208,
                    args[0].span,
                    format!(
                        "`{full}` works on whole {}, but this is {n} bits",
                        if unit == 16 { "16-bit words" } else { "bytes" }
                    ),
                )
                .label(format!("{n} bits"))
                .help(format!("pad it: `(x as bit<{}>)`", n.div_ceil(unit) * unit)),
            );
        }
        match name {
            "murmur3_32" => self.expect_arg(&args[1], arg_tys[1].clone(), &Ty::Bit(32)),
            "toeplitz" => self.toeplitz_key(&args[1], &arg_tys[1], data_width),
            "update" => {
                for (a, t) in args.iter().zip(arg_tys) {
                    self.expect_arg(a, t, &Ty::Bit(16));
                }
            }
            _ => {}
        }
        Typed::of(ret)
    }

    fn expect_arg(&mut self, arg: &Expr, typed: Typed, ty: &Ty) {
        self.coerce(typed, ty, arg.span);
    }

    fn toeplitz_key(&mut self, arg: &Expr, key: &Typed, data: Option<u32>) {
        match (&key.ty, data) {
            (Ty::Bit(m), Some(n)) if *m < n + 32 => self.report(
                Diagnostic::new(
                    codes::E0208,
                    arg.span,
                    format!(
                        "a Toeplitz key for {n} bits of data needs at least {} bits",
                        n + 32
                    ),
                )
                .label(format!("this key is {m} bits")),
            ),
            (Ty::Bit(_) | Ty::Error, _) => {}
            (other, _) => self.error(
                codes::E0201,
                arg.span,
                format!("a Toeplitz key is a bit<N>, not `{other}`"),
                "not a key",
            ),
        }
    }

    /// The table-action type of table `name` defined in `chunk`.
    pub(crate) fn table_action_ty(&self, name: &str, chunk: u32) -> Ty {
        Ty::TableAction(TypeRef {
            def: DefId {
                file: self.file.id(self.db),
                chunk,
            },
            name: Arc::from(name),
        })
    }
}
