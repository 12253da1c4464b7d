//! Resolving paths and types: locals, then scu/cc members, then builtins, then module items.

use super::{BodyKind, Checker, Local, Typed};
use crate::ast::*;
use crate::consteval::Value;
use crate::db::SourceFile;
use crate::diag::{codes, Diagnostic};
use crate::resolve::index::{DefKind, ItemEntry, MemberDefKind, MemberEntry};
use crate::resolve::lookup::{self, ModuleRes};
use crate::typeck::signature::{sig_of, SigKind};
use crate::types::{DefId, Ty, TypeRef, MAX_WIDTH};
use std::sync::Arc;

/// What a path refers to.
#[derive(Clone, Debug)]
pub enum Res {
    /// A local variable, parameter or loop variable.
    Local(Local),
    /// A member of the enclosing scu/cc.
    Member(String, MemberEntry),
    /// A module-level item.
    Item(SourceFile, String, ItemEntry),
    /// An enum variant: the enum type and the variant's index and value.
    Variant(Ty, u32),
    /// `packet`, `beat`, `meta`, `line_rate`, `min`, `max`, the flow binding, ...
    Builtin(&'static str),
    /// A function of an intrinsic module: `hash::crc32`.
    Intrinsic(&'static str, String),
    /// Already reported.
    Error,
}

/// The default NIC line rate, 200 Gb/s (SCENIC's datapath: 512 bits at 391 MHz, rounded).
pub const LINE_RATE_BPS: u64 = 200_000_000_000;

/// Names the language defines everywhere.
pub(crate) const BUILTINS: &[&str] = &[
    "packet",
    "beat",
    "meta",
    "line_rate",
    "min",
    "max",
    "extract",
    "emit",
    "lookahead",
    "drop",
    "to_host",
    "to_network",
    "to_scu",
    "notify",
    "pass",
    "host",
    "arm",
];

impl Checker<'_> {
    /// Resolves a path used as a value or callee, reporting names that do not exist.
    pub(crate) fn resolve_path(&mut self, path: &Path) -> Res {
        if path.is_single() {
            return self.resolve_single(&path.segments[0]);
        }
        self.resolve_qualified(path)
    }

    fn resolve_single(&mut self, name: &Ident) -> Res {
        if let Some(local) = self.use_local(&name.name) {
            return Res::Local(local);
        }
        if let Some(entry) = self
            .container()
            .and_then(|c| c.members.get(&name.name))
            .cloned()
        {
            self.note_use(&name.name);
            return Res::Member(name.name.clone(), entry);
        }
        if let Some(builtin) = BUILTINS.iter().find(|b| **b == name.name) {
            return Res::Builtin(builtin);
        }
        if self.is_attach_binding(&name.name) {
            return Res::Builtin("flow_id");
        }
        match lookup::lookup_module_name(self.db, self.file, &name.name) {
            Some(ModuleRes::Item(file, entry)) => {
                self.note_use(&name.name);
                Res::Item(file, name.name.clone(), entry)
            }
            Some(ModuleRes::Intrinsic(m)) => {
                self.error(
                    codes::E0109,
                    name.span,
                    format!("`{m}` is a module, not a value"),
                    "module",
                );
                Res::Error
            }
            Some(ModuleRes::Module(_)) => {
                self.error(
                    codes::E0109,
                    name.span,
                    format!("`{}` is a module, not a value", name.name),
                    "module",
                );
                Res::Error
            }
            None => {
                self.unresolved(name);
                Res::Error
            }
        }
    }

    /// Whether `name` is the flow binding of the enclosing scu (`qp` in `rdma(qp)`).
    pub(crate) fn is_attach_binding(&self, name: &str) -> bool {
        let Some(container) = self.container() else {
            return false;
        };
        if container.is_cc {
            return false;
        }
        matches!(&sig_of(self.db, self.file, container.head).kind, SigKind::Scu { binding: Some(b), .. } if b == name)
    }

    fn resolve_qualified(&mut self, path: &Path) -> Res {
        let first = &path.segments[0];
        let rest = &path.segments[1..];
        let module = if first.name == "std" {
            let key = format!("std::{}", rest.first().map_or("", |s| s.as_str()));
            let second = rest.first().map_or("", |s| s.as_str());
            if let Some(module) = crate::stdlib::INTRINSIC_MODULES
                .iter()
                .find(|m| **m == second)
            {
                return self.intrinsic_fn(module, &rest[1..], path);
            }
            match lookup::module_file(self.db, &key) {
                Some(file) => return self.item_in_module(file, &rest[1..], path),
                None => None,
            }
        } else {
            lookup::lookup_module_name(self.db, self.file, &first.name)
        };
        match module {
            Some(ModuleRes::Intrinsic(m)) => self.intrinsic_fn(m, rest, path),
            Some(ModuleRes::Module(file)) => self.item_in_module(file, rest, path),
            Some(ModuleRes::Item(file, entry))
                if entry.kind == DefKind::Enum && rest.len() == 1 =>
            {
                self.note_use(&first.name);
                self.variant(file, &first.name, entry.chunk, &rest[0])
            }
            Some(ModuleRes::Item(..)) => {
                self.error(
                    codes::E0109,
                    path.span,
                    format!("`{}` has no items inside it", first.name),
                    "not a module or an enum",
                );
                Res::Error
            }
            None => {
                self.report(
                    Diagnostic::new(
                        codes::E0103,
                        first.span,
                        format!("cannot find module or enum `{}`", first.name),
                    )
                    .label("unknown module")
                    .help("modules are `std::net`, `hash`, `checksum`, or files you `use`"),
                );
                Res::Error
            }
        }
    }

    fn item_in_module(&mut self, module: SourceFile, rest: &[Ident], path: &Path) -> Res {
        let Some(name) = rest.first() else {
            self.error(codes::E0109, path.span, "a module is not a value", "module");
            return Res::Error;
        };
        match lookup::lookup_in_module(self.db, module, &name.name) {
            Some(ModuleRes::Item(file, entry)) if rest.len() == 1 => {
                Res::Item(file, name.name.clone(), entry)
            }
            Some(ModuleRes::Item(file, entry))
                if entry.kind == DefKind::Enum && rest.len() == 2 =>
            {
                self.variant(file, &name.name, entry.chunk, &rest[1])
            }
            _ => {
                self.report(
                    Diagnostic::new(
                        codes::E0104,
                        name.span,
                        format!(
                            "`{}` is not defined in module `{}`",
                            name.name,
                            module.name(self.db)
                        ),
                    )
                    .label("not in this module"),
                );
                Res::Error
            }
        }
    }

    fn intrinsic_fn(&mut self, module: &'static str, rest: &[Ident], path: &Path) -> Res {
        match rest {
            [name] if super::call::intrinsic_exists(module, &name.name) => {
                Res::Intrinsic(module, name.name.clone())
            }
            [name, ..] => {
                self.report(
                    Diagnostic::new(
                        codes::E0104,
                        name.span,
                        format!("`{}` is not a function of `{module}`", name.name),
                    )
                    .label("unknown function")
                    .note(super::call::intrinsic_list(module)),
                );
                Res::Error
            }
            [] => {
                self.error(
                    codes::E0109,
                    path.span,
                    format!("`{module}` is a module, not a value"),
                    "module",
                );
                Res::Error
            }
        }
    }

    fn variant(&mut self, file: SourceFile, enum_name: &str, chunk: u32, variant: &Ident) -> Res {
        let sig = sig_of(self.db, file, chunk);
        let SigKind::Enum { variants, .. } = &sig.kind else {
            return Res::Error;
        };
        let ty = Ty::Enum(TypeRef {
            def: DefId {
                file: file.id(self.db),
                chunk,
            },
            name: Arc::from(enum_name),
        });
        match variants.iter().position(|(n, _)| *n == variant.name) {
            Some(i) => Res::Variant(ty, i as u32),
            None => {
                let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
                self.report(
                    Diagnostic::new(
                        codes::E0101,
                        variant.span,
                        format!("enum `{enum_name}` has no variant `{}`", variant.name),
                    )
                    .label("unknown variant")
                    .note(format!("its variants are {}", names.join(", "))),
                );
                Res::Error
            }
        }
    }

    /// Resolves a written type.
    pub(crate) fn resolve_type(&mut self, ty: &TypeExpr) -> Ty {
        match &ty.kind {
            TypeExprKind::Named { path, args } => self.named_type(path, args, ty),
            TypeExprKind::Array { elem, len } => {
                let elem_ty = self.resolve_type(elem);
                match self.const_size(len, "an array length") {
                    Some(n) if n <= 65536 => Ty::Array(Box::new(elem_ty), n as u32),
                    Some(n) => {
                        self.error(
                            codes::E0409,
                            len.span,
                            format!("an array of {n} elements is too large"),
                            "at most 65536 elements",
                        );
                        Ty::Error
                    }
                    None => Ty::Error,
                }
            }
            TypeExprKind::Tuple(items) => {
                Ty::Tuple(items.iter().map(|t| self.resolve_type(t)).collect())
            }
            TypeExprKind::Error => Ty::Error,
        }
    }

    fn named_type(&mut self, path: &Path, args: &[GenericArg], ty: &TypeExpr) -> Ty {
        let name = path.text();
        let builtin = match name.as_str() {
            "bool" => Some(Ty::Bool),
            "duration" => Some(Ty::Duration),
            "size" => Some(Ty::Size),
            "rate" => Some(Ty::Rate),
            _ => None,
        };
        if let Some(t) = builtin {
            if !args.is_empty() {
                self.error(
                    codes::E0215,
                    ty.span,
                    format!("`{name}` takes no type arguments"),
                    "unexpected `<...>`",
                );
            }
            return t;
        }
        match name.as_str() {
            "bit" | "int" => return self.width_type(&name, args, ty),
            "fixed" => return self.fixed_type(args, ty),
            _ => {}
        }
        if !args.is_empty() {
            self.error(
                codes::E0215,
                ty.span,
                format!("`{name}` takes no type arguments"),
                "unexpected `<...>`",
            );
        }
        let res = if path.is_single() {
            lookup::lookup_module_name(self.db, self.file, &name)
        } else {
            self.qualified_type(path)
        };
        match res {
            Some(ModuleRes::Item(file, entry)) => self.item_type(path, file, &entry),
            _ => {
                if path.is_single() && self.already_reported(&name) {
                    return Ty::Error;
                }
                self.unknown_type(path, &name);
                Ty::Error
            }
        }
    }

    /// A module item named as a type: a header, struct or enum (E0109 for anything else).
    fn item_type(&mut self, path: &Path, file: SourceFile, entry: &ItemEntry) -> Ty {
        let name = path.last().name.as_str();
        self.note_use(name);
        let tref = TypeRef {
            def: DefId {
                file: file.id(self.db),
                chunk: entry.chunk,
            },
            name: Arc::from(name),
        };
        let what = match entry.kind {
            DefKind::Header => return Ty::Header(tref),
            DefKind::Struct => return Ty::Struct(tref),
            DefKind::Enum => return Ty::Enum(tref),
            DefKind::Const => "a constant",
            DefKind::Fn => "a function",
            DefKind::Scu => "an scu",
            DefKind::Cc => "a congestion controller",
        };
        self.report(
            Diagnostic::new(
                codes::E0109,
                path.span,
                format!("`{}` is not a type", path.text()),
            )
            .label(format!("{what}, used as a type"))
            .help("types are bit<N>, int<N>, bool, fixed<I,F>, duration, size, rate, headers, structs and enums"),
        );
        Ty::Error
    }

    fn qualified_type(&mut self, path: &Path) -> Option<ModuleRes> {
        let segments: Vec<&str> = path.segments.iter().map(|s| s.as_str()).collect();
        let (module, item) = segments.split_at(segments.len() - 1);
        let file = if module.first() == Some(&"std") {
            lookup::module_file(self.db, &module.join("::"))
        } else {
            match lookup::lookup_module_name(self.db, self.file, module[0]) {
                Some(ModuleRes::Module(f)) => Some(f),
                _ => None,
            }
        }?;
        lookup::lookup_in_module(self.db, file, item[0])
    }

    fn width_type(&mut self, name: &str, args: &[GenericArg], ty: &TypeExpr) -> Ty {
        let [arg] = args else {
            self.report(
                Diagnostic::new(
                    codes::E0215,
                    ty.span,
                    format!("`{name}` takes one width: `{name}<N>`"),
                )
                .label(format!("expected `{name}<N>`")),
            );
            return Ty::Error;
        };
        let Some(width) = self.generic_int(arg) else {
            return Ty::Error;
        };
        let min = if name == "int" { 2 } else { 1 };
        if width < min as u64 || width > MAX_WIDTH as u64 {
            self.report(
                Diagnostic::new(
                    codes::E0208,
                    arg.span(),
                    format!("`{name}<{width}>` is not a valid width"),
                )
                .label(format!("widths go from {min} to {MAX_WIDTH}")),
            );
            return Ty::Error;
        }
        if name == "int" {
            Ty::Int(width as u32)
        } else {
            Ty::Bit(width as u32)
        }
    }

    fn fixed_type(&mut self, args: &[GenericArg], ty: &TypeExpr) -> Ty {
        let [int_arg, frac_arg] = args else {
            self.report(
                Diagnostic::new(
                    codes::E0215,
                    ty.span,
                    "`fixed` takes two widths: `fixed<I, F>`",
                )
                .label("expected integer bits and fraction bits")
                .note("`fixed<1,15>` has 1 integer bit and 15 fraction bits"),
            );
            return Ty::Error;
        };
        let (Some(i), Some(f)) = (self.generic_int(int_arg), self.generic_int(frac_arg)) else {
            return Ty::Error;
        };
        if i + f == 0 || i + f > 64 {
            self.report(
                Diagnostic::new(
                    codes::E0208,
                    ty.span,
                    format!("`fixed<{i},{f}>` has {} bits", i + f),
                )
                .label("integer plus fraction bits must be 1 to 64")
                .note("fixed-point values are computed in 64-bit hardware arithmetic"),
            );
            return Ty::Error;
        }
        Ty::Fixed(i as u32, f as u32)
    }

    /// A generic argument that must be an integer: a literal or a constant's name.
    fn generic_int(&mut self, arg: &GenericArg) -> Option<u64> {
        match arg {
            GenericArg::Int(v, _) => Some(*v),
            GenericArg::Type(TypeExpr {
                kind: TypeExprKind::Named { path, args },
                span,
            }) if args.is_empty() => {
                let expr = Expr {
                    id: ExprId(u32::MAX),
                    kind: ExprKind::Path(path.clone()),
                    span: *span,
                };
                self.const_size_allow_zero(&expr, "a width")
            }
            GenericArg::Type(t) => {
                self.error(
                    codes::E0215,
                    t.span,
                    "expected a width, found a type",
                    "not an integer",
                );
                None
            }
        }
    }

    /// The value and type of a resolved name used as a value.
    pub(crate) fn value_of_res(&mut self, res: &Res, span: crate::span::Span, name: &str) -> Typed {
        match res {
            Res::Local(local) => Typed {
                ty: local.ty.clone(),
                value: local.value.clone(),
            },
            Res::Variant(ty, i) => Typed {
                ty: ty.clone(),
                value: Some(Value::Variant(*i)),
            },
            Res::Member(_, entry) => self.member_value(entry, span, name),
            Res::Item(file, _, entry) => self.item_value(*file, entry, span, name),
            Res::Builtin("line_rate") => Typed {
                ty: Ty::Rate,
                value: Some(Value::int(LINE_RATE_BPS)),
            },
            Res::Builtin("flow_id") => Typed::of(self.flow_id_type()),
            Res::Builtin(b @ ("packet" | "beat" | "meta")) => {
                let (what, where_ok) = match *b {
                    "packet" => (
                        "a packet",
                        "the parser, control, actions, `on parser_error` and the deparser",
                    ),
                    "meta" => (
                        "a packet's metadata",
                        "the per-packet code of an scu with a `meta { }` block",
                    ),
                    _ => ("a payload word", "`stream` kernels"),
                };
                self.report(
                    Diagnostic::new(
                        codes::E0501,
                        span,
                        format!("`{b}` is not available in {}", self.body_name()),
                    )
                    .label(format!("no {} here", &what[2..]))
                    .note(format!("`{b}` describes {what}; it exists in {where_ok}")),
                );
                Typed::error()
            }
            Res::Builtin(b) => {
                self.report(
                    Diagnostic::new(
                        codes::E0109,
                        span,
                        format!("`{b}` cannot be used as a value here"),
                    )
                    .label("not a value")
                    .help(builtin_help(b)),
                );
                Typed::error()
            }
            Res::Intrinsic(m, f) => {
                self.error(
                    codes::E0109,
                    span,
                    format!("`{m}::{f}` is a function; call it"),
                    "function",
                );
                Typed::error()
            }
            Res::Error => Typed::error(),
        }
    }

    /// Whether the body being checked processes a packet and so sees its headers.
    pub(crate) fn sees_packet(&self) -> bool {
        self.kind.is_packet() || matches!(self.kind, BodyKind::Parser | BodyKind::Deparser)
    }

    fn flow_id_type(&self) -> Ty {
        let Some(container) = self.container() else {
            return Ty::Error;
        };
        match &sig_of(self.db, self.file, container.head).kind {
            SigKind::Scu {
                attach: Some(crate::typeck::signature::Attach::Rdma),
                ..
            } => Ty::Bit(24),
            _ => Ty::Bit(16),
        }
    }

    fn member_value(&mut self, entry: &MemberEntry, span: crate::span::Span, name: &str) -> Typed {
        let sig = sig_of(self.db, self.file, entry.chunk);
        match (&sig.kind, entry.kind) {
            (SigKind::Csr { ty, .. }, _)
            | (SigKind::State { ty }, _)
            | (SigKind::Param { ty, .. }, _) => Typed::of(ty.clone()),
            (SigKind::Const { ty, value }, _) => Typed {
                ty: ty.clone(),
                value: value.clone(),
            },
            (SigKind::Headers { .. }, _) if !self.sees_packet() => {
                self.report(
                    Diagnostic::new(
                        codes::E0501,
                        span,
                        format!("header `{name}` is not available in {}", self.body_name()),
                    )
                    .label("no packet here")
                    .note("headers belong to the packet being processed: the parser, control, actions, `on parser_error` and the deparser see them"),
                );
                Typed::error()
            }
            (SigKind::Headers { instances }, _) => match instances.get(entry.position as usize) {
                Some(inst) => Typed::of(inst.ty.clone()),
                None => Typed::error(),
            },
            (SigKind::Cycle, _) => Typed::error(),
            (_, kind) => {
                let what = member_kind_name(kind);
                self.report(
                    Diagnostic::new(
                        codes::E0109,
                        span,
                        format!("`{name}` is a {what}, not a value"),
                    )
                    .label(format!("{what} used as a value"))
                    .help(member_help(kind, name)),
                );
                Typed::error()
            }
        }
    }

    fn item_value(
        &mut self,
        file: SourceFile,
        entry: &ItemEntry,
        span: crate::span::Span,
        name: &str,
    ) -> Typed {
        let sig = sig_of(self.db, file, entry.chunk);
        match &sig.kind {
            SigKind::Const { ty, value } => Typed {
                ty: ty.clone(),
                value: value.clone(),
            },
            // Reported once, at the definitions in the cycle (`check_item`).
            SigKind::Cycle => Typed::error(),
            _ => {
                let what = match entry.kind {
                    DefKind::Header | DefKind::Struct | DefKind::Enum => "type",
                    DefKind::Fn => "function",
                    DefKind::Scu => "scu",
                    DefKind::Cc => "congestion controller",
                    DefKind::Const => "constant",
                };
                self.error(
                    codes::E0109,
                    span,
                    format!("`{name}` is a {what}, not a value"),
                    format!("{what} used as a value"),
                );
                Typed::error()
            }
        }
    }
}

/// A short phrase for a member kind.
pub(crate) fn member_kind_name(kind: MemberDefKind) -> &'static str {
    match kind {
        MemberDefKind::Csr => "CSR",
        MemberDefKind::HeaderInst => "header",
        MemberDefKind::Table => "table",
        MemberDefKind::Action => "action",
        MemberDefKind::Map => "map",
        MemberDefKind::Counter => "counter",
        MemberDefKind::Meter => "meter",
        MemberDefKind::Out => "output",
        MemberDefKind::Fn => "function",
        MemberDefKind::Const => "constant",
        MemberDefKind::Param => "param",
        MemberDefKind::State => "state variable",
        MemberDefKind::Timer => "timer",
        MemberDefKind::ByteCounter => "byte counter",
    }
}

fn member_help(kind: MemberDefKind, name: &str) -> String {
    match kind {
        MemberDefKind::Table => format!("apply it with `{name}.apply()`"),
        MemberDefKind::Map => format!("read it with `{name}.get(key)`"),
        MemberDefKind::Counter => format!("count with `{name}.count(index)`"),
        MemberDefKind::Meter => format!("use `{name}[index].exceeds(len)`"),
        MemberDefKind::Out => format!("send words with `{name}.push(word)`"),
        MemberDefKind::Fn | MemberDefKind::Action => format!("call it: `{name}(...)`"),
        MemberDefKind::Timer | MemberDefKind::ByteCounter => {
            format!("restart it with `restart {name};`")
        }
        _ => String::from("use one of its fields or methods"),
    }
}

fn builtin_help(builtin: &str) -> String {
    match builtin {
        "packet" => "use a field: `packet.len`, `packet.port` or `packet.timestamp`".into(),
        "beat" => "use a field: `beat.last` or `beat.keep`".into(),
        "meta" => "use a field of `meta { }`, e.g. `meta.port`".into(),
        "host" | "arm" => "`host` and `arm` name notification targets: `notify(arm, value)`".into(),
        other => format!("`{other}` is a builtin function; call it"),
    }
}

/// Whether `std::net` defines `name` (for "add `use std::net::...`" hints).
pub(crate) fn std_net_has(db: &dyn salsa::Database, name: &str) -> bool {
    lookup::module_file(db, "std::net")
        .is_some_and(|f| lookup::lookup_in_module(db, f, name).is_some())
}
