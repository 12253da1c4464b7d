//! Calls: actions, table and control applications, packet and header methods, and the externs of
//! core.p4, v1model and VNP4 that map exactly onto IR constructs. Any other call is E0702.

use super::types::Ty;
use super::{Binding, Checker, Ctx, DeclRef, HashKind, InstanceInfo, Method, Res};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use crate::span::Span;
use num_traits::ToPrimitive;

impl<'p> Checker<'p> {
    /// Types a call; records what it calls on the call expression.
    pub(super) fn call_expr(&mut self, e: &Expr) -> Ty {
        let ExprKind::Call {
            callee,
            type_args,
            args,
        } = &e.kind
        else {
            return Ty::Unknown;
        };
        let Some(args) = self.positional(args) else {
            return Ty::Unknown;
        };
        let (method, ty) = match &callee.kind {
            ExprKind::Name(n) => self.call_name(e, n, &args),
            ExprKind::Member(base, m) => self.call_member(e, base, m, type_args, &args),
            _ => {
                self.error(
                    self.type_error(callee.span, "this cannot be called".into())
                        .label("not a function, action or method"),
                );
                (None, Ty::Unknown)
            }
        };
        if let Some(m) = method {
            self.set_res(e.id, Res::Method(m));
        }
        ty
    }

    /// Positional arguments; named arguments and `_` are not supported.
    fn positional<'e>(&mut self, args: &'e [Arg]) -> Option<Vec<&'e Expr>> {
        let mut out = Vec::new();
        for a in args {
            match a {
                Arg::Expr(e) => out.push(e),
                Arg::Named(n, _) => {
                    self.unsupported(n.span, "named arguments");
                    return None;
                }
                Arg::DontCare(s) => {
                    self.unsupported(*s, "`_` as an argument");
                    return None;
                }
            }
        }
        Some(out)
    }

    fn arity(&mut self, e: &Expr, what: &str, args: &[&Expr], n: usize) -> bool {
        if args.len() == n {
            return true;
        }
        self.error(
            Diagnostic::new(
                codes::E0706,
                e.span,
                format!(
                    "{what} takes {n} argument(s), but {} were given",
                    args.len()
                ),
            )
            .label(format!("expected {n}")),
        );
        for a in args {
            self.expr(a);
        }
        false
    }

    /// Reports a call in a place that does not allow it.
    fn misplaced(&mut self, span: Span, what: &str, where_: &str) {
        self.error(
            Diagnostic::new(codes::E0709, span, format!("{what} is not allowed here"))
                .label(format!("only {where_}")),
        );
    }

    fn call_name(&mut self, e: &Expr, n: &Ident, args: &[&Expr]) -> (Option<Method>, Ty) {
        match self.lookup(&n.name) {
            Some(Binding::Action(at)) => (self.action_call(e, at, args), Ty::Void),
            Some(Binding::ExternFn(name)) => (self.extern_fn(e, &name, args), Ty::Void),
            Some(Binding::Unsupported(what)) => {
                self.unsupported(n.span, &what);
                (None, Ty::Unknown)
            }
            None => {
                self.unknown_name(n, "function or action");
                (None, Ty::Unknown)
            }
            Some(_) => {
                self.error(
                    self.type_error(n.span, format!("`{}` cannot be called", n.name))
                        .label("not a function or action"),
                );
                (None, Ty::Unknown)
            }
        }
    }

    /// A direct call of an action: its parameters take the arguments in order.
    fn action_call(&mut self, e: &Expr, at: DeclRef, args: &[&Expr]) -> Option<Method> {
        if matches!(self.ctx, Ctx::Parser(_) | Ctx::Top) {
            self.misplaced(
                e.span,
                "calling an action",
                "in a control's `apply` block or in an action",
            );
        }
        let params = self.action_params(at);
        if !self.arity(e, "this action", args, params.len()) {
            return None;
        }
        for (a, (dir, ty)) in args.iter().zip(&params) {
            match dir {
                Direction::None | Direction::In => self.expr_expect(a, ty),
                _ => {
                    self.unsupported(a.span, "`out` and `inout` parameters of actions");
                    self.expr(a);
                }
            }
        }
        Some(Method::Action(at))
    }

    /// The directions and types of an action's parameters.
    pub(super) fn action_params(&mut self, at: DeclRef) -> Vec<(Direction, Ty)> {
        let Some(action) = self.action_decl_at(at) else {
            return Vec::new();
        };
        action
            .params
            .iter()
            .map(|p| (p.dir, self.resolve_type(&p.ty)))
            .collect()
    }

    /// The declaration of an action.
    pub(super) fn action_decl_at(&self, at: DeclRef) -> Option<&'p ActionDecl> {
        let decl = self.prog.decls.get(at.decl)?;
        match (&decl.kind, at.local) {
            (DeclKind::Action(a), None) => Some(a),
            (DeclKind::Control(c), Some(i)) => match c.locals.get(i)? {
                Local::Action(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    fn extern_fn(&mut self, e: &Expr, name: &str, args: &[&Expr]) -> Option<Method> {
        match name {
            "verify" => {
                if !matches!(self.ctx, Ctx::Parser(_)) {
                    self.misplaced(e.span, "`verify`", "in a parser state");
                }
                if !self.arity(e, "`verify`", args, 2) {
                    return None;
                }
                self.expr_expect(args[0], &Ty::Bool);
                self.expr_expect(args[1], &Ty::Error);
                Some(Method::Verify)
            }
            "mark_to_drop" => {
                self.in_control(e, "`mark_to_drop`");
                if !self.arity(e, "`mark_to_drop`", args, 1) {
                    return None;
                }
                self.std_meta_arg(args[0]);
                Some(Method::MarkToDrop)
            }
            "verify_checksum" | "update_checksum" => {
                self.in_control(e, &format!("`{name}`"));
                if !self.arity(e, &format!("`{name}`"), args, 4) {
                    return None;
                }
                self.checksum_call(args, name == "update_checksum");
                Some(if name == "verify_checksum" {
                    Method::VerifyChecksum
                } else {
                    Method::UpdateChecksum
                })
            }
            "hash" => {
                self.in_control(e, "`hash`");
                if !self.arity(e, "`hash`", args, 5) {
                    return None;
                }
                self.hash_call(args).map(Method::Hash)
            }
            _ => {
                self.unsupported(e.span, &format!("the extern function `{name}`"));
                None
            }
        }
    }

    /// `hash(result, HashAlgorithm.A, base, { data }, max)`: the result a `bit<N>` place, A one of
    /// crc32/crc16/csum16 over whole bytes (csum16: 16-bit words), `base` a constant, `max` a
    /// constant power of two (BMv2 computes `base + h % max`, which is then a mask).
    fn hash_call(&mut self, args: &[&Expr]) -> Option<HashKind> {
        let result = self.expr(args[0]);
        self.place(args[0]);
        self.expr(args[1]);
        let base = self.expr(args[2]);
        let data = self.expr(args[3]);
        let max = self.expr(args[4]);
        if !matches!(result, Ty::Bits(_)) && !result.is_unknown() {
            self.unsupported(args[0].span, "a hash result that is not `bit<N>`");
        }
        let kind = match &args[1].kind {
            ExprKind::Member(_, m) => match m.name.as_str() {
                "crc32" => Some(HashKind::Crc32),
                "crc16" => Some(HashKind::Crc16),
                "csum16" => Some(HashKind::Csum16),
                _ => None,
            },
            _ => None,
        };
        let Some(kind) = kind else {
            self.unsupported(
                args[1].span,
                "hash algorithms other than `crc32`, `crc16` and `csum16`",
            );
            return None;
        };
        let constant = |s: &Self, e: &Expr, ty: &Ty| {
            matches!(ty, Ty::Bits(_) | Ty::InfInt) && s.value_of(e.id).is_some()
        };
        if !constant(self, args[2], &base) {
            self.unsupported(args[2].span, "a hash base that is not a constant");
        }
        let power = self
            .value_of(args[4].id)
            .and_then(ToPrimitive::to_u64)
            .is_some_and(u64::is_power_of_two);
        if !constant(self, args[4], &max) || !power {
            self.unsupported(
                args[4].span,
                "a hash `max` that is not a constant power of two",
            );
        }
        let width = match &data {
            Ty::List(items) => items
                .iter()
                .try_fold(0u32, |acc, t| Some(acc + self.out.env.bit_width(t)?)),
            other => self.out.env.bit_width(other),
        };
        let unit = if kind == HashKind::Csum16 { 16 } else { 8 };
        match width {
            Some(w) if w > 0 && w % unit == 0 => {}
            _ if data.is_unknown() => {}
            _ => self.unsupported(
                args[3].span,
                &format!("hashed data that is not fixed-width fields of a multiple of {unit} bits"),
            ),
        }
        Some(kind)
    }

    fn in_control(&mut self, e: &Expr, what: &str) {
        if matches!(self.ctx, Ctx::Parser(_) | Ctx::Top) {
            self.misplaced(e.span, what, "in a control or an action");
        }
    }

    /// `mark_to_drop`'s argument must be the standard metadata.
    fn std_meta_arg(&mut self, a: &Expr) {
        let ty = self.expr(a);
        let is_std = matches!(&ty, Ty::Agg(i) if self.out.env.aggregates.get(*i).is_some_and(|g| g.name == "standard_metadata_t"));
        if !is_std && !ty.is_unknown() {
            self.error(
                self.type_error(
                    a.span,
                    "expected the `standard_metadata_t` parameter".into(),
                )
                .label("pass the block's standard metadata"),
            );
        }
    }

    /// `(condition, data, checksum, HashAlgorithm.csum16)`.
    fn checksum_call(&mut self, args: &[&Expr], update: bool) {
        self.expr_expect(args[0], &Ty::Bool);
        let data = self.expr(args[1]);
        let width = match &data {
            Ty::List(items) => items
                .iter()
                .try_fold(0u32, |acc, t| Some(acc + self.out.env.bit_width(t)?)),
            other => self.out.env.bit_width(other),
        };
        match width {
            Some(w) if w % 16 == 0 => {}
            _ if data.is_unknown() => {}
            Some(w) => self.error(
                self.type_error(
                    args[1].span,
                    format!("the checksummed data is {w} bits, not a whole number of 16-bit words"),
                )
                .label("csum16 sums 16-bit words"),
            ),
            None => self.error(
                self.type_error(
                    args[1].span,
                    "the checksummed data must be a list of fixed-width fields".into(),
                )
                .label("expected `{ f1, f2, ... }`"),
            ),
        }
        self.expr_expect(args[2], &Ty::Bits(16));
        if update {
            self.place(args[2]);
        }
        self.expr(args[3]);
        let csum16 = matches!(&args[3].kind, ExprKind::Member(_, m) if m.name == "csum16");
        if !csum16 {
            self.unsupported(
                args[3].span,
                "checksum algorithms other than `HashAlgorithm.csum16`",
            );
        }
    }

    fn call_member(
        &mut self,
        e: &Expr,
        base: &Expr,
        m: &Ident,
        type_args: &[Type],
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        if let ExprKind::Name(n) = &base.kind {
            match self.lookup(&n.name) {
                Some(Binding::Table(t)) => return self.table_apply(e, base, t, m, args),
                Some(Binding::Instance(at, _)) => {
                    self.set_res(base.id, Res::Instance(at));
                    return self.instance_call(e, at, m, args);
                }
                _ => {}
            }
        }
        let base_ty = self.expr(base);
        match &base_ty {
            Ty::Extern(x) if x == "packet_in" => self.packet_in(e, m, type_args, args),
            Ty::Extern(x) if x == "packet_out" => {
                if m.name != "emit" {
                    return self.no_method(m, "packet_out");
                }
                if !matches!(self.ctx, Ctx::Apply(_)) {
                    self.misplaced(e.span, "`emit`", "in a deparser's `apply` block");
                }
                if !self.arity(e, "`emit`", args, 1) {
                    return (None, Ty::Void);
                }
                let ty = self.expr(args[0]);
                if !self.emittable(&ty) && !ty.is_unknown() {
                    self.error(
                        self.type_error(
                            args[0].span,
                            "`emit` takes a header, a header stack or a struct of them".into(),
                        )
                        .label("not a header"),
                    );
                }
                (Some(Method::Emit), Ty::Void)
            }
            t if self.out.env.is_header(t) => self.header_method(e, base, m, args),
            Ty::Unknown => {
                for a in args {
                    self.expr(a);
                }
                (None, Ty::Unknown)
            }
            other => {
                let shown = self.out.env.show(other).to_string();
                self.no_method(m, &shown)
            }
        }
    }

    fn no_method(&mut self, m: &Ident, on: &str) -> (Option<Method>, Ty) {
        self.error(
            Diagnostic::new(
                codes::E0703,
                m.span,
                format!("`{on}` has no method `{}`", m.name),
            )
            .label("no such method"),
        );
        (None, Ty::Unknown)
    }

    /// Whether `emit` accepts a value of this type.
    fn emittable(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Stack(elem, _) => self.out.env.is_header(elem),
            Ty::Agg(a) => match self.out.env.aggregates.get(*a) {
                Some(g) if g.kind == AggregateKind::Header => true,
                Some(g) if g.kind == AggregateKind::Struct => g
                    .fields
                    .iter()
                    .all(|(_, t)| t.is_unknown() || self.emittable(t)),
                _ => false,
            },
            _ => false,
        }
    }

    fn table_apply(
        &mut self,
        e: &Expr,
        base: &Expr,
        t: DeclRef,
        m: &Ident,
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        self.set_res(base.id, Res::Table(t));
        if m.name != "apply" {
            return self.no_method(m, "a table");
        }
        if !matches!(self.ctx, Ctx::Apply(_)) {
            self.misplaced(e.span, "applying a table", "in a control's `apply` block");
        }
        self.arity(e, "`apply`", args, 0);
        (Some(Method::TableApply(t)), Ty::ApplyResult)
    }

    fn instance_call(
        &mut self,
        e: &Expr,
        at: DeclRef,
        m: &Ident,
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        let Some(info) = self.out.instances.get(&at).cloned() else {
            for a in args {
                self.expr(a);
            }
            return (None, Ty::Unknown);
        };
        if matches!(self.ctx, Ctx::Parser(_)) && !matches!(info, InstanceInfo::InternetChecksum) {
            self.misplaced(e.span, "this extern", "in a control or an action");
        }
        let name = m.name.as_str();
        match (&info, name) {
            (InstanceInfo::Counter { index, .. }, "count") if self.arity(e, "`count`", args, 1) => {
                let index = index.clone();
                self.expr_expect(args[0], &index);
                (Some(Method::Count(at)), Ty::Void)
            }
            (InstanceInfo::Register { ty, .. }, "read") if self.arity(e, "`read`", args, 2) => {
                let ty = ty.clone();
                self.expr_expect(args[0], &ty);
                self.place(args[0]);
                self.expr_expect(args[1], &Ty::Bits(32));
                (Some(Method::RegisterRead(at)), Ty::Void)
            }
            (InstanceInfo::Register { ty, .. }, "write") if self.arity(e, "`write`", args, 2) => {
                let ty = ty.clone();
                self.expr_expect(args[0], &Ty::Bits(32));
                self.expr_expect(args[1], &ty);
                (Some(Method::RegisterWrite(at)), Ty::Void)
            }
            (InstanceInfo::InternetChecksum, _) => self.internet_checksum(e, at, m, args),
            (InstanceInfo::Control(decl), "apply") => self.control_apply(e, at, *decl, args),
            (
                InstanceInfo::Counter { .. } | InstanceInfo::Register { .. },
                "count" | "read" | "write",
            ) => (None, Ty::Unknown),
            _ => self.no_method(m, "this instance"),
        }
    }

    fn internet_checksum(
        &mut self,
        e: &Expr,
        at: DeclRef,
        m: &Ident,
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        let (method, n, ret) = match m.name.as_str() {
            "clear" => (Method::CsumClear(at), 0, Ty::Void),
            "add" => (Method::CsumAdd(at), 1, Ty::Void),
            "subtract" => (Method::CsumSubtract(at), 1, Ty::Void),
            "get" => (Method::CsumGet(at), 0, Ty::Bits(16)),
            "get_state" => (Method::CsumGetState(at), 0, Ty::Bits(16)),
            "set_state" => (Method::CsumSetState(at), 1, Ty::Void),
            _ => return self.no_method(m, "InternetChecksum"),
        };
        if !self.arity(e, &format!("`{}`", m.name), args, n) {
            return (None, ret);
        }
        if let Some(a) = args.first() {
            if m.name == "set_state" {
                self.expr_expect(a, &Ty::Bits(16));
            } else {
                let ty = self.expr(a);
                let width = match &ty {
                    Ty::List(items) => items
                        .iter()
                        .try_fold(0u32, |acc, t| Some(acc + self.out.env.bit_width(t)?)),
                    other => self.out.env.bit_width(other),
                };
                if !ty.is_unknown() && width.is_none_or(|w| w % 16 != 0) {
                    self.error(
                        self.type_error(a.span, "InternetChecksum adds whole 16-bit words".into())
                            .label("the data must be fixed-width fields adding up to a multiple of 16 bits"),
                    );
                }
            }
        }
        (Some(method), ret)
    }

    fn control_apply(
        &mut self,
        e: &Expr,
        at: DeclRef,
        decl: usize,
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        if !matches!(self.ctx, Ctx::Apply(_)) {
            self.misplaced(e.span, "applying a control", "in a control's `apply` block");
        }
        let Some(DeclKind::Control(c)) = self.prog.decls.get(decl).map(|d| &d.kind) else {
            return (None, Ty::Unknown);
        };
        let params: Vec<(Direction, Type)> = c
            .proto
            .params
            .iter()
            .map(|p| (p.dir, p.ty.clone()))
            .collect();
        if !self.arity(e, "this control's `apply`", args, params.len()) {
            return (None, Ty::Void);
        }
        for (a, (dir, ty)) in args.iter().zip(&params) {
            let ty = self.resolve_type(ty);
            self.expr_expect(a, &ty);
            if matches!(dir, Direction::Out | Direction::InOut) {
                self.place(a);
            } else if !self.out.env.is_header(&ty)
                && !self.is_place_expr(a)
                && !matches!(ty, Ty::Extern(_))
            {
                // `in` arguments are copied in; the lowering binds them by reference, which is
                // the same as long as they name storage.
                self.unsupported(
                    a.span,
                    "an `in` argument of a control that is not a variable or field",
                );
            }
        }
        (Some(Method::ControlApply(at)), Ty::Void)
    }

    fn packet_in(
        &mut self,
        e: &Expr,
        m: &Ident,
        type_args: &[Type],
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        if !matches!(self.ctx, Ctx::Parser(_)) {
            self.misplaced(e.span, &format!("`{}`", m.name), "in a parser state");
        }
        match m.name.as_str() {
            "extract" => {
                if args.len() == 2 {
                    self.unsupported(e.span, "`extract` of variable-size headers");
                    return (None, Ty::Void);
                }
                if !self.arity(e, "`extract`", args, 1) {
                    return (None, Ty::Void);
                }
                let ty = self.expr(args[0]);
                if !self.out.env.is_header(&ty) && !ty.is_unknown() {
                    self.error(
                        self.type_error(args[0].span, "`extract` takes a header".into())
                            .label("not a header"),
                    );
                }
                if !matches!(self.out.res.get(args[0].id.index()), Some(Res::StackNext)) {
                    self.place(args[0]);
                }
                (Some(Method::Extract), Ty::Void)
            }
            "lookahead" => {
                self.arity(e, "`lookahead`", args, 0);
                let [t] = type_args else {
                    self.error(
                        Diagnostic::new(
                            codes::E0706,
                            e.span,
                            "`lookahead` needs one type argument",
                        )
                        .label("write `lookahead<bit<8>>()`"),
                    );
                    return (None, Ty::Unknown);
                };
                let ty = self.resolve_type(t);
                if !matches!(ty, Ty::Bits(_)) && !self.out.env.is_header(&ty) && !ty.is_unknown() {
                    self.unsupported(t.span, "`lookahead` of anything but `bit<N>` and headers");
                    return (None, Ty::Unknown);
                }
                (Some(Method::Lookahead), ty)
            }
            "advance" => {
                if !self.arity(e, "`advance`", args, 1) {
                    return (None, Ty::Void);
                }
                self.expr_expect(args[0], &Ty::Bits(32));
                let ok = self
                    .value_of(args[0].id)
                    .is_some_and(|v| (v % 8u32) == 0u32.into() && *v > 0u32.into());
                if !ok {
                    self.unsupported(
                        args[0].span,
                        "`advance` by anything but a constant number of whole bytes",
                    );
                }
                (Some(Method::Advance), Ty::Void)
            }
            _ => {
                self.unsupported(m.span, &format!("`packet_in.{}`", m.name));
                (None, Ty::Unknown)
            }
        }
    }

    fn header_method(
        &mut self,
        e: &Expr,
        base: &Expr,
        m: &Ident,
        args: &[&Expr],
    ) -> (Option<Method>, Ty) {
        let (method, ret) = match m.name.as_str() {
            "isValid" => (Method::IsValid, Ty::Bool),
            "setValid" => (Method::SetValid, Ty::Void),
            "setInvalid" => (Method::SetInvalid, Ty::Void),
            _ => return self.no_method(m, "a header"),
        };
        self.arity(e, &format!("`{}`", m.name), args, 0);
        if !self.is_instance_path(base) {
            self.unsupported(
                base.span,
                "header methods on header variables (use a header of the packet)",
            );
        } else if method != Method::IsValid {
            self.place(base);
        }
        (Some(method), ret)
    }
}
