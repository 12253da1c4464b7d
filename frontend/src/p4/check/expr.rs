//! Typing expressions and folding constants.
//!
//! Unsized literals have type `int` ([`Ty::InfInt`]); where they meet a sized value (an operand, an
//! assignment, an argument) they take its type, and a value that does not fit is E0705 (p4c would
//! truncate it with a warning; scenicc prefers to say so). Every expression whose value is known at
//! compile time gets it recorded, normalised to its type (`bit<N>` values in `0..2^N`, `int<N>`
//! values signed), so the lowering emits a constant for it whatever it was written as.

use super::decls::ones;
use super::types::Ty;
use super::{Binding, Checker, Res};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

impl Checker<'_> {
    /// Types an expression; records and returns its type.
    pub(crate) fn expr(&mut self, e: &Expr) -> Ty {
        let ty = self.expr_inner(e);
        self.set_type(e.id, ty.clone());
        ty
    }

    /// Types an expression where a value of type `want` is needed, converting unsized literals.
    pub(crate) fn expr_expect(&mut self, e: &Expr, want: &Ty) {
        if let (ExprKind::StructInit(fields), Ty::Agg(a)) = (&e.kind, want) {
            return self.struct_init(e, fields, *a);
        }
        if let (ExprKind::List(items), Ty::Agg(a)) = (&e.kind, want) {
            return self.list_init(e, items, *a);
        }
        let got = self.expr(e);
        self.coerce(e, &got, want);
    }

    /// Converts `e` (of type `got`) to `want`; a mismatch is E0705.
    pub(crate) fn coerce(&mut self, e: &Expr, got: &Ty, want: &Ty) -> bool {
        if got.is_unknown() || want.is_unknown() || got == want {
            return true;
        }
        let enum_repr = match got {
            Ty::Enum(en) => self.out.env.enums.get(*en).and_then(|x| x.repr.clone()),
            _ => None,
        };
        if enum_repr.as_ref() == Some(want) {
            self.set_type(e.id, want.clone());
            return true;
        }
        if *got == Ty::InfInt && want.is_fixed_int() {
            return self.fit_literal(e, want);
        }
        let (g, w) = (
            self.out.env.show(got).to_string(),
            self.out.env.show(want).to_string(),
        );
        let diag = self
            .type_error(e.span, format!("expected `{w}`, found `{g}`"))
            .label(format!("this is `{g}`"));
        let diag = match (got, want) {
            (Ty::Bits(a) | Ty::Int(a), Ty::Bits(b) | Ty::Int(b)) if a != b => diag.help(format!(
                "P4 does not convert widths implicitly: cast with `({w}) ...`"
            )),
            _ => diag,
        };
        self.error(diag);
        false
    }

    /// Gives an unsized constant the type `want` if its value fits (negative values wrap into
    /// `bit<N>`, as P4 defines for `-1` and the like).
    fn fit_literal(&mut self, e: &Expr, want: &Ty) -> bool {
        let Some(v) = self.value_of(e.id).cloned() else {
            self.set_type(e.id, want.clone());
            return true;
        };
        let w = want.width().unwrap_or(0);
        let fits = match want {
            Ty::Bits(_) => v < (BigInt::one() << w as usize) && v >= -(BigInt::one() << w as usize),
            _ => {
                let half = BigInt::one() << w.saturating_sub(1) as usize;
                v < half && v >= -half
            }
        };
        if !fits {
            let shown = self.out.env.show(want).to_string();
            self.error(
                self.type_error(e.span, format!("{v} does not fit `{shown}`"))
                    .label(format!("out of range for `{shown}`")),
            );
            return false;
        }
        self.set_type(e.id, want.clone());
        self.set_value(e.id, Some(normalize(&v, want)));
        true
    }

    fn expr_inner(&mut self, e: &Expr) -> Ty {
        match &e.kind {
            ExprKind::Int { value, width } => self.int_literal(e, value, *width),
            ExprKind::Bool(b) => {
                self.set_value(e.id, Some(BigInt::from(u8::from(*b))));
                Ty::Bool
            }
            ExprKind::Str(_) => Ty::Str,
            ExprKind::Name(n) => self.name_expr(e, n),
            ExprKind::ErrorMember(n) => match self.out.env.errors.iter().position(|x| *x == n.name)
            {
                Some(i) => {
                    self.set_value(e.id, Some(BigInt::from(i)));
                    self.set_res(e.id, Res::Const);
                    Ty::Error
                }
                None => {
                    self.unknown_name(n, "error");
                    Ty::Unknown
                }
            },
            ExprKind::Member(base, name) => self.member(e, base, name),
            ExprKind::Index(base, index) => self.index(base, index),
            ExprKind::Slice(base, hi, lo) => self.slice(e, base, hi, lo),
            ExprKind::Call { .. } => self.call_expr(e),
            ExprKind::Unary(op, operand) => self.unary(e, *op, operand),
            ExprKind::Binary(op, a, b) => self.binary(e, *op, a, b),
            ExprKind::Ternary(c, a, b) => self.ternary(e, c, a, b),
            ExprKind::Cast(ty, operand) => self.cast(e, ty, operand),
            ExprKind::List(items) => Ty::List(items.iter().map(|i| self.expr(i)).collect()),
            ExprKind::StructInit(_) => {
                self.error(
                    self.type_error(
                        e.span,
                        "the type of this structure-valued expression is not known here".into(),
                    )
                    .label("assign it to a struct or header, or cast it"),
                );
                Ty::Unknown
            }
            ExprKind::This => {
                self.unsupported(e.span, "`this`");
                Ty::Unknown
            }
            ExprKind::Error => Ty::Unknown,
        }
    }

    /// `{f = a, g = b}` for a struct or header of type `a`.
    fn struct_init(&mut self, e: &Expr, fields: &[(Ident, Expr)], a: usize) {
        let Some(agg) = self.out.env.aggregates.get(a).cloned() else {
            return;
        };
        for (name, value) in fields {
            match agg.field(&name.name) {
                Some(i) => self.expr_expect(value, &agg.fields[i].1),
                None => {
                    self.expr(value);
                    self.error(
                        Diagnostic::new(
                            codes::E0703,
                            name.span,
                            format!("`{}` has no field `{}`", agg.name, name.name),
                        )
                        .label("no such field"),
                    );
                }
            }
        }
        let missing: Vec<&str> = agg
            .fields
            .iter()
            .filter(|(n, _)| !fields.iter().any(|(f, _)| f.name == *n))
            .map(|(n, _)| n.as_str())
            .collect();
        if !missing.is_empty() {
            self.error(
                self.type_error(
                    e.span,
                    format!("missing field(s) of `{}`: {}", agg.name, missing.join(", ")),
                )
                .label("every field needs a value"),
            );
        }
        self.set_type(e.id, Ty::Agg(a));
    }

    /// `{a, b}` for a struct or header of type `a`: values in field order.
    fn list_init(&mut self, e: &Expr, items: &[Expr], a: usize) {
        let Some(agg) = self.out.env.aggregates.get(a).cloned() else {
            return;
        };
        if items.len() != agg.fields.len() {
            for i in items {
                self.expr(i);
            }
            self.error(
                self.type_error(
                    e.span,
                    format!(
                        "`{}` has {} fields, but {} values were given",
                        agg.name,
                        agg.fields.len(),
                        items.len()
                    ),
                )
                .label("one value per field"),
            );
            return;
        }
        for (item, (_, ty)) in items.iter().zip(&agg.fields) {
            self.expr_expect(item, ty);
        }
        self.set_type(e.id, Ty::Agg(a));
    }

    fn int_literal(&mut self, e: &Expr, value: &BigInt, width: Option<(u32, bool)>) -> Ty {
        let Some((w, signed)) = width else {
            self.set_value(e.id, Some(value.clone()));
            return Ty::InfInt;
        };
        if w == 0 || w > super::decls::MAX_WIDTH {
            self.error(
                self.type_error(e.span, format!("width {w} is out of range"))
                    .label(format!("widths go from 1 to {}", super::decls::MAX_WIDTH)),
            );
            return Ty::Unknown;
        }
        let ty = if signed { Ty::Int(w) } else { Ty::Bits(w) };
        let limit = if signed {
            BigInt::one() << (w - 1) as usize
        } else {
            BigInt::one() << w as usize
        };
        if *value >= limit {
            let shown = self.out.env.show(&ty).to_string();
            self.error(
                self.type_error(e.span, format!("{value} does not fit `{shown}`"))
                    .label("the value is wider than the literal's width"),
            );
        }
        self.set_value(e.id, Some(normalize(value, &ty)));
        ty
    }

    fn name_expr(&mut self, e: &Expr, n: &Ident) -> Ty {
        match self.lookup(&n.name) {
            Some(Binding::Var(v, ty)) => {
                self.set_res(e.id, Res::Var(v));
                ty
            }
            Some(Binding::Param(owner, i, ty, _)) => {
                self.set_res(e.id, Res::Param(owner, i));
                ty
            }
            Some(Binding::Const(ty, value)) => {
                self.set_res(e.id, Res::Const);
                self.set_value(e.id, value);
                ty
            }
            Some(Binding::Unsupported(what)) => {
                self.unsupported(n.span, &what);
                Ty::Unknown
            }
            Some(Binding::Instance(at, ty)) => {
                self.set_res(e.id, Res::Instance(at));
                ty
            }
            Some(Binding::Table(t)) => {
                self.set_res(e.id, Res::Table(t));
                Ty::Unknown
            }
            Some(_) => {
                self.error(
                    self.type_error(n.span, format!("`{}` is not a value", n.name))
                        .label("a type, block or action cannot be used as a value"),
                );
                Ty::Unknown
            }
            None => {
                self.unknown_name(n, "name");
                Ty::Unknown
            }
        }
    }

    fn member(&mut self, e: &Expr, base: &Expr, name: &Ident) -> Ty {
        // `E.member` of an enum type, and `Type.member` errors.
        if let ExprKind::Name(n) = &base.kind {
            if let Some(Binding::Type(ty)) = self.lookup(&n.name) {
                return self.enum_member(e, &ty, n, name);
            }
        }
        let base_ty = self.expr(base);
        match &base_ty {
            Ty::Agg(a) => self.field_member(e, *a, name),
            Ty::Stack(elem, n) => self.stack_member(e, elem, *n, name),
            Ty::ApplyResult => self.apply_result_member(e, name),
            // Already reported: a type outside the subset is refused once, where it is written.
            Ty::Unknown | Ty::Unsupported(_) => Ty::Unknown,
            other => {
                let shown = self.out.env.show(other).to_string();
                self.error(
                    Diagnostic::new(
                        codes::E0703,
                        name.span,
                        format!("`{shown}` has no member `{}`", name.name),
                    )
                    .label("no such member (methods must be called)"),
                );
                Ty::Unknown
            }
        }
    }

    /// Field `name` of a header, header union or struct (aggregate `a`).
    fn field_member(&mut self, e: &Expr, a: usize, name: &Ident) -> Ty {
        let agg = self.out.env.aggregates.get(a).cloned();
        match agg
            .as_ref()
            .and_then(|g| g.field(&name.name).map(|i| (i, g)))
        {
            Some((i, g)) => {
                self.set_res(e.id, Res::Field(i));
                g.fields[i].1.clone()
            }
            None => {
                let what = agg.map_or(String::new(), |g| g.name);
                self.error(
                    Diagnostic::new(
                        codes::E0703,
                        name.span,
                        format!("`{what}` has no field `{}`", name.name),
                    )
                    .label("no such field"),
                );
                Ty::Unknown
            }
        }
    }

    /// `next` or `size` of a header stack of `n` elements of type `elem`.
    fn stack_member(&mut self, e: &Expr, elem: &Ty, n: u32, name: &Ident) -> Ty {
        match name.name.as_str() {
            "next" => {
                self.set_res(e.id, Res::StackNext);
                elem.clone()
            }
            "size" => {
                self.set_res(e.id, Res::Const);
                self.set_value(e.id, Some(BigInt::from(n)));
                Ty::Bits(32)
            }
            _ => {
                self.unsupported(name.span, &format!("`{}` of a header stack", name.name));
                Ty::Unknown
            }
        }
    }

    /// `hit`, `miss` or `action_run` of a table application.
    fn apply_result_member(&mut self, e: &Expr, name: &Ident) -> Ty {
        match name.name.as_str() {
            "hit" => {
                self.set_res(e.id, Res::Hit);
                Ty::Bool
            }
            "miss" => {
                self.set_res(e.id, Res::Miss);
                Ty::Bool
            }
            "action_run" => {
                self.set_res(e.id, Res::ActionRun);
                Ty::ActionRun
            }
            _ => {
                self.error(
                    Diagnostic::new(
                        codes::E0703,
                        name.span,
                        format!("a table application has no member `{}`", name.name),
                    )
                    .label("expected `hit`, `miss` or `action_run`"),
                );
                Ty::Unknown
            }
        }
    }

    fn enum_member(&mut self, e: &Expr, ty: &Ty, type_name: &Ident, name: &Ident) -> Ty {
        let Ty::Enum(en) = ty else {
            self.error(
                self.type_error(
                    type_name.span,
                    format!("`{}` is a type, not a value", type_name.name),
                )
                .label("only enum types have members here"),
            );
            return Ty::Unknown;
        };
        let value = self
            .out
            .env
            .enums
            .get(*en)
            .and_then(|x| x.members.iter().find(|(m, _)| *m == name.name))
            .map(|(_, v)| v.clone());
        match value {
            Some(v) => {
                self.set_res(e.id, Res::Const);
                self.set_value(e.id, Some(v));
                ty.clone()
            }
            None => {
                self.error(
                    Diagnostic::new(
                        codes::E0703,
                        name.span,
                        format!("enum `{}` has no member `{}`", type_name.name, name.name),
                    )
                    .label("no such member"),
                );
                Ty::Unknown
            }
        }
    }

    fn index(&mut self, base: &Expr, index: &Expr) -> Ty {
        let base_ty = self.expr(base);
        let index_ty = self.expr(index);
        let Ty::Stack(elem, n) = base_ty else {
            if !base_ty.is_unknown() {
                let shown = self.out.env.show(&base_ty).to_string();
                self.error(
                    self.type_error(base.span, format!("`{shown}` cannot be indexed"))
                        .label("only header stacks have elements"),
                );
            }
            return Ty::Unknown;
        };
        if index_ty.is_unknown() {
            return Ty::Unknown;
        }
        match self.value_of(index.id).and_then(ToPrimitive::to_u32) {
            Some(i) if i < n => (*elem).clone(),
            Some(i) => {
                self.error(
                    self.type_error(
                        index.span,
                        format!("index {i} is out of bounds for a stack of {n}"),
                    )
                    .label("out of bounds"),
                );
                Ty::Unknown
            }
            None => {
                self.unsupported(index.span, "header stack indices computed at run time");
                Ty::Unknown
            }
        }
    }

    fn slice(&mut self, e: &Expr, base: &Expr, hi: &Expr, lo: &Expr) -> Ty {
        let base_ty = self.expr(base);
        self.expr(hi);
        self.expr(lo);
        let (h, l) = (
            self.value_of(hi.id).and_then(ToPrimitive::to_u32),
            self.value_of(lo.id).and_then(ToPrimitive::to_u32),
        );
        let Some(width) = base_ty.width().filter(|_| base_ty.is_fixed_int()) else {
            if !base_ty.is_unknown() {
                let shown = self.out.env.show(&base_ty).to_string();
                self.error(
                    self.type_error(base.span, format!("cannot slice a `{shown}`"))
                        .label("only `bit<N>` and `int<N>` values have bit slices"),
                );
            }
            return Ty::Unknown;
        };
        let (Some(h), Some(l)) = (h, l) else {
            self.error(
                Diagnostic::new(
                    codes::E0708,
                    hi.span.to(lo.span),
                    "slice bounds must be compile-time constants",
                )
                .label("not constants"),
            );
            return Ty::Unknown;
        };
        if h < l || h >= width {
            self.error(
                self.type_error(
                    e.span,
                    format!("slice [{h}:{l}] does not fit a {width}-bit value"),
                )
                .label(format!(
                    "bits go from {} down to 0; the high bound comes first",
                    width - 1
                )),
            );
            return Ty::Unknown;
        }
        let ty = Ty::Bits(h - l + 1);
        if let Some(v) = self.value_of(base.id).cloned() {
            let bits = normalize(&v, &Ty::Bits(width));
            self.set_value(e.id, Some((bits >> l as usize) & ones(h - l + 1)));
        }
        ty
    }

    fn unary(&mut self, e: &Expr, op: UnOp, operand: &Expr) -> Ty {
        let ty = self.expr(operand);
        let ok = match op {
            UnOp::Not => ty == Ty::Bool,
            UnOp::BitNot => ty.is_fixed_int(),
            UnOp::Neg | UnOp::Plus => ty.is_fixed_int() || ty == Ty::InfInt,
        };
        if ty.is_unknown() {
            return Ty::Unknown;
        }
        if !ok {
            let shown = self.out.env.show(&ty).to_string();
            let sym = match op {
                UnOp::Not => "!",
                UnOp::BitNot => "~",
                UnOp::Neg => "-",
                UnOp::Plus => "+",
            };
            let mut diag = self
                .type_error(e.span, format!("`{sym}` cannot be applied to `{shown}`"))
                .label(format!("this is `{shown}`"));
            if op == UnOp::BitNot && ty == Ty::InfInt {
                diag = diag.help("give the literal a width: `~8w0`");
            }
            self.error(diag);
            return Ty::Unknown;
        }
        if let Some(v) = self.value_of(operand.id).cloned() {
            let r = match op {
                UnOp::Not => BigInt::from(u8::from(v.is_zero())),
                UnOp::BitNot => -v - 1,
                UnOp::Neg => -v,
                UnOp::Plus => v,
            };
            let r = if ty == Ty::InfInt {
                r
            } else {
                normalize(&r, &ty)
            };
            self.set_value(e.id, Some(r));
        }
        ty
    }

    /// Brings two operands to one type (an unsized side takes the sized side's type; a
    /// serializable enum meets its representation).
    pub(crate) fn unify(&mut self, a: &Expr, ta: &Ty, b: &Expr, tb: &Ty) -> Ty {
        match (ta, tb) {
            (Ty::Unknown, _) | (_, Ty::Unknown) => Ty::Unknown,
            (x, y) if x == y => x.clone(),
            (Ty::InfInt, y) => {
                if self.coerce(a, ta, y) {
                    y.clone()
                } else {
                    Ty::Unknown
                }
            }
            (x, Ty::InfInt) => {
                if self.coerce(b, tb, x) {
                    x.clone()
                } else {
                    Ty::Unknown
                }
            }
            (Ty::Enum(_), y) if self.coerce(a, ta, y) => y.clone(),
            (x, _) => {
                if self.coerce(b, tb, x) {
                    x.clone()
                } else {
                    Ty::Unknown
                }
            }
        }
    }

    fn ternary(&mut self, e: &Expr, c: &Expr, a: &Expr, b: &Expr) -> Ty {
        self.expr_expect(c, &Ty::Bool);
        let (ta, tb) = (self.expr(a), self.expr(b));
        let ty = self.unify(a, &ta, b, &tb);
        if ty == Ty::InfInt {
            self.error(
                self.type_error(e.span, "the branches of `?:` have no width".into())
                    .label("give one of them a width: `8w1`"),
            );
            return Ty::Unknown;
        }
        if let Some(cv) = self.value_of(c.id).cloned() {
            let pick = if cv.is_zero() { b } else { a };
            let v = self.value_of(pick.id).cloned();
            self.set_value(e.id, v);
        }
        ty
    }

    fn cast(&mut self, e: &Expr, ty: &Type, operand: &Expr) -> Ty {
        let to = self.resolve_type(ty);
        let from = self.expr(operand);
        if to.is_unknown() || from.is_unknown() {
            return Ty::Unknown;
        }
        let enum_repr = |s: &Self, t: &Ty| match t {
            Ty::Enum(en) => s.out.env.enums.get(*en).and_then(|x| x.repr.clone()),
            _ => None,
        };
        let ok = match (&from, &to) {
            (a, b) if a == b => true,
            (Ty::Bits(_), Ty::Bits(_)) | (Ty::Int(_), Ty::Int(_)) => true,
            (Ty::Bits(a), Ty::Int(b)) | (Ty::Int(a), Ty::Bits(b)) => a == b,
            (Ty::Bool, Ty::Bits(1)) | (Ty::Bits(1), Ty::Bool) => true,
            (Ty::InfInt, Ty::Bits(_) | Ty::Int(_)) => true,
            (Ty::Enum(_), Ty::Bits(_) | Ty::Int(_)) => enum_repr(self, &from).is_some(),
            (Ty::Bits(_) | Ty::Int(_), Ty::Enum(_)) => enum_repr(self, &to) == Some(from.clone()),
            _ => false,
        };
        if !ok {
            let (f, t) = (
                self.out.env.show(&from).to_string(),
                self.out.env.show(&to).to_string(),
            );
            let mut diag = self
                .type_error(e.span, format!("cannot cast `{f}` to `{t}`"))
                .label("invalid cast");
            if matches!(
                (&from, &to),
                (Ty::Bits(_), Ty::Int(_)) | (Ty::Int(_), Ty::Bits(_))
            ) {
                diag = diag.help(
                    "P4 changes width and signedness in separate casts: `(int<8>)(bit<8>) x`",
                );
            }
            self.error(diag);
            return Ty::Unknown;
        }
        if let Some(v) = self.value_of(operand.id).cloned() {
            let src = match &from {
                Ty::Enum(_) => enum_repr(self, &from).unwrap_or(Ty::InfInt),
                other => other.clone(),
            };
            let raw = match src {
                Ty::Bits(w) | Ty::Int(w) => normalize(&v, &Ty::Bits(w)),
                _ => v.clone(),
            };
            // Signed sources sign-extend; anything else is a bit pattern resized.
            let value = match (&src, &to) {
                (Ty::Int(_), _) | (Ty::InfInt, _) => normalize(&v, &to),
                _ => normalize(&raw, &to),
            };
            self.set_value(e.id, Some(value));
        }
        to
    }
}

/// A value normalised to a type: `bit<N>` in `0..2^N`, `int<N>` signed, `bool` 0/1; other
/// types unchanged.
pub(crate) fn normalize(v: &BigInt, ty: &Ty) -> BigInt {
    match ty {
        Ty::Bits(w) => {
            let m = BigInt::one() << *w as usize;
            ((v % &m) + &m) % &m
        }
        Ty::Int(w) => {
            let m = BigInt::one() << *w as usize;
            let u = ((v % &m) + &m) % &m;
            if u >= (BigInt::one() << (*w - 1) as usize) {
                u - m
            } else {
                u
            }
        }
        Ty::Bool => BigInt::from(u8::from(!v.is_zero())),
        _ => v.clone(),
    }
}

/// Whether a value is negative (for shift amounts and sizes).
pub(crate) fn is_negative(v: &BigInt) -> bool {
    v.is_negative()
}
