//! Expressions: literals, names, fields, indexing, slices, operators, casts, and constant contexts.

use super::{Checker, Typed};
use crate::ast::*;
use crate::consteval::{self, FitError, Value};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::typeck::signature::MAX_ENTRIES;
use crate::types::Ty;
use num_rational::BigRational;
use num_traits::ToPrimitive;

impl Checker<'_> {
    /// Types an expression. `expected` is a hint for literals; callers still check the result.
    pub(crate) fn expr(&mut self, e: &Expr, expected: Option<&Ty>) -> Typed {
        let typed = match &e.kind {
            ExprKind::Lit(lit) => self.literal(lit, e.span),
            ExprKind::Path(path) => {
                let res = self.resolve_path(path);
                self.value_of_res(&res, e.span, &path.text())
            }
            ExprKind::Field { base, field } => self.field(base, field),
            ExprKind::Index { base, index } => self.index(base, index),
            ExprKind::Slice { base, hi, lo } => self.slice(base, hi, lo),
            ExprKind::Call { callee, args } => self.call(callee, args, e.span),
            ExprKind::MethodCall {
                receiver,
                method,
                args,
            } => self.method_call(receiver, method, args, e.span),
            ExprKind::Unary { op, operand } => self.unary(*op, operand, e.span, expected),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, e.span, expected),
            ExprKind::Cast { value, ty } => self.cast(value, ty),
            ExprKind::StructLit { path, fields } => self.struct_lit(path, fields, e.span),
            ExprKind::Tuple(items) => {
                let typed: Vec<Typed> = items.iter().map(|i| self.expr(i, None)).collect();
                Typed::of(Ty::Tuple(typed.into_iter().map(|t| t.ty).collect()))
            }
            ExprKind::Array(items) => self.array_lit(items, e.span, expected),
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => self.cond_expr(cond, then, otherwise, e.span, expected),
            ExprKind::Error => Typed::error(),
        };
        let typed = match (expected, &typed.ty) {
            (Some(target), Ty::IntLit | Ty::DecimalLit) if target.is_numeric() => {
                self.coerce(typed, target, e.span)
            }
            _ => typed,
        };
        self.note_const(e.span, &typed);
        self.record(e, &typed);
        typed
    }

    fn literal(&mut self, lit: &Literal, span: Span) -> Typed {
        let int = |v: u128| Some(Value::int(v));
        match lit {
            Literal::Int(v) => Typed {
                ty: Ty::IntLit,
                value: Some(Value::Num(BigRational::from_integer(v.clone().into()))),
            },
            Literal::Decimal(r) => Typed {
                ty: Ty::DecimalLit,
                value: Some(Value::Num(r.clone())),
            },
            Literal::Bool(b) => Typed {
                ty: Ty::Bool,
                value: Some(Value::Bool(*b)),
            },
            Literal::Quantity(q) => Typed {
                ty: match q.unit {
                    UnitKind::Duration => Ty::Duration,
                    UnitKind::Size => Ty::Size,
                    UnitKind::Rate => Ty::Rate,
                },
                value: int(q.value),
            },
            Literal::Ipv4 { addr, prefix: None } => Typed {
                ty: Ty::Bit(32),
                value: int(u128::from(*addr)),
            },
            Literal::Ipv6 { addr, prefix: None } => Typed {
                ty: Ty::Bit(128),
                value: int(*addr),
            },
            Literal::Mac(m) => Typed {
                ty: Ty::Bit(48),
                value: int(u128::from(*m)),
            },
            Literal::Ipv4 { .. } | Literal::Ipv6 { .. } => {
                self.report(
                    Diagnostic::new(codes::E0415, span, "an address prefix is not a value")
                        .label("prefix used as a value")
                        .help("prefixes match in `match` patterns and table entries; write the address without `/len`, or mask it: `x & 0xff000000`"),
                );
                Typed::error()
            }
        }
    }

    /// Converts `typed` to `target`: constants must fit, other types must be equal.
    pub(crate) fn coerce(&mut self, typed: Typed, target: &Ty, span: Span) -> Typed {
        if typed.ty.is_error() {
            return typed;
        }
        if typed.ty == *target || target.is_error() {
            return Typed {
                ty: target.clone(),
                value: typed.value,
            };
        }
        match (&typed.ty, &typed.value) {
            (Ty::IntLit | Ty::DecimalLit, _) if target.is_unit() => {
                let shown = typed
                    .value
                    .as_ref()
                    .and_then(Value::as_num)
                    .map_or_else(|| "0".to_string(), consteval::display_num);
                self.report(
                    Diagnostic::new(
                        codes::E0207,
                        span,
                        format!("expected a {target}, found a plain number"),
                    )
                    .label(format!("a plain number is not a {target}"))
                    .help(format!(
                        "write it with a unit: `{shown}{}`",
                        super::ops::unit_suffix(target)
                    )),
                );
                Typed::error()
            }
            (Ty::DecimalLit, _) if target.is_integer() => {
                self.mismatch(target, &typed.ty, span, "");
                Typed::error()
            }
            (Ty::IntLit | Ty::DecimalLit, Some(value)) if target.is_numeric() => {
                match consteval::fit(value, target) {
                    Ok(v) => Typed {
                        ty: target.clone(),
                        value: Some(v),
                    },
                    Err(err) => {
                        // Reported here; the poison keeps constant contexts from reporting it again.
                        self.report_fit(value, target, span, err);
                        Typed::error()
                    }
                }
            }
            _ => {
                // Reported here; the poison keeps constant contexts from reporting it again.
                self.mismatch(target, &typed.ty, span, "");
                Typed::error()
            }
        }
    }

    pub(crate) fn report_fit(&mut self, value: &Value, target: &Ty, span: Span, err: FitError) {
        let shown = value
            .as_num()
            .map_or_else(|| "this value".to_string(), consteval::display_num);
        let diag = Diagnostic::new(
            codes::E0203,
            span,
            format!("`{shown}` does not fit in `{target}`"),
        );
        let diag = match err {
            FitError::NotInteger => diag
                .label("not a whole number")
                .note(format!("`{target}` holds whole numbers only")),
            FitError::OutOfRange { min, max } => diag.label("out of range").note(format!(
                "`{target}` holds {} to {}",
                consteval::display_num(&min),
                consteval::display_num(&max)
            )),
            FitError::NotRepresentable { nearest } => diag
                .label("not exactly representable")
                .note(format!(
                    "the nearest `{target}` value is {}",
                    consteval::display_exact(&nearest)
                ))
                .help("write that value, or use more fraction bits"),
            FitError::WrongKind => diag.label("wrong kind of value"),
        };
        self.report(diag);
    }

    /// Reports that `found` was used where `expected` was needed, with the most specific code.
    pub(crate) fn mismatch(&mut self, expected: &Ty, found: &Ty, span: Span, context: &str) {
        if expected.is_error() || found.is_error() {
            return;
        }
        let context = if context.is_empty() {
            String::new()
        } else {
            format!(" {context}")
        };
        let diag = match (expected, found) {
            (Ty::Bit(a) | Ty::Int(a), Ty::Bit(b) | Ty::Int(b)) if a != b => Diagnostic::new(
                codes::E0202,
                span,
                format!("expected `{expected}`{context}, found `{found}`"),
            )
            .label(format!("this is {b} bits wide"))
            .note("scenic never widens or truncates implicitly")
            .help(format!("convert explicitly: `(...) as {expected}`")),
            (a, b) if a.is_unit() && b.is_unit() => Diagnostic::new(
                codes::E0207,
                span,
                format!("expected a {expected}{context}, found a {found}"),
            )
            .label(format!("this is a {found}"))
            .note(format!("a {found} is not a {expected}")),
            (Ty::IntLit, _) | (Ty::DecimalLit, _) => Diagnostic::new(
                codes::E0201,
                span,
                format!("expected a constant{context}, found `{found}`"),
            )
            .label(format!("this is a `{found}`")),
            (_, Ty::IntLit | Ty::DecimalLit) => {
                let a = if *found == Ty::IntLit { "an" } else { "a" };
                let diag = Diagnostic::new(
                    codes::E0201,
                    span,
                    format!("expected `{expected}`{context}, found {a} {found}"),
                )
                .label(format!("{a} {found} is not a `{expected}`"));
                if *expected == Ty::Bool {
                    diag.help("write `true` or `false`")
                } else {
                    diag
                }
            }
            _ => Diagnostic::new(
                codes::E0201,
                span,
                format!("expected `{expected}`{context}, found `{found}`"),
            )
            .label(format!("this is a `{found}`")),
        };
        self.report(diag);
    }

    /// Checks that `typed` has type `target` (converting constants).
    pub(crate) fn expect_ty(&mut self, e: &Expr, target: &Ty) -> Typed {
        let typed = self.expr(e, Some(target));
        self.coerce(typed, target, e.span)
    }

    /// A constant expression: its value must be known at compile time (E0210).
    pub(crate) fn const_value(&mut self, e: &Expr, expected: Option<&Ty>) -> Typed {
        let typed = match expected {
            Some(target) => self.expect_ty(e, target),
            None => self.expr(e, None),
        };
        if self.flush_unfit(Some(e.span)) {
            return Typed::of(typed.ty);
        }
        if typed.value.is_none() && !typed.ty.is_error() {
            self.report(
                Diagnostic::new(codes::E0210, e.span, "this must be a constant")
                    .label("value only known at run time")
                    .note("initialisers, sizes, widths, slice bounds and loop bounds are computed by the compiler"),
            );
        }
        typed
    }

    /// A constant count of at least 1 (sizes, lengths): E0409 when 0 or too large.
    pub(crate) fn const_size(&mut self, e: &Expr, what: &str) -> Option<u64> {
        let value = self.const_size_allow_zero(e, what)?;
        if value == 0 || value > MAX_ENTRIES {
            self.report(
                Diagnostic::new(
                    codes::E0409,
                    e.span,
                    format!("{what} must be between 1 and {MAX_ENTRIES}"),
                )
                .label(format!("this is {value}")),
            );
            return None;
        }
        Some(value)
    }

    /// A constant non-negative integer.
    pub(crate) fn const_size_allow_zero(&mut self, e: &Expr, what: &str) -> Option<u64> {
        let typed = self.const_value(e, None);
        if typed.ty.is_error() {
            return None;
        }
        match typed.value.as_ref().and_then(Value::as_u64) {
            Some(v) if typed.ty.is_integer() || typed.ty == Ty::IntLit => Some(v),
            _ if typed.value.is_some() => {
                self.error(
                    codes::E0201,
                    e.span,
                    format!("{what} must be a non-negative integer"),
                    format!("this is a `{}`", typed.ty),
                );
                None
            }
            _ => None,
        }
    }

    fn field(&mut self, base: &Expr, field: &Ident) -> Typed {
        let base_typed = self.expr(base, None);
        match &base_typed.ty {
            Ty::Error => Typed::error(),
            Ty::Tuple(items) => match field.name.parse::<usize>().ok().and_then(|i| items.get(i)) {
                Some(ty) => Typed::of(ty.clone()),
                None => {
                    self.error(
                        codes::E0105,
                        field.span,
                        format!("no field `{}` on a {}-tuple", field.name, items.len()),
                        "no such position",
                    );
                    Typed::error()
                }
            },
            ty => match self.record_fields(ty) {
                Some(fields) => match fields.iter().find(|(n, _)| *n == field.name) {
                    Some((_, fty)) => Typed::of(fty.clone()),
                    None => {
                        self.no_field(ty, field, &fields);
                        Typed::error()
                    }
                },
                None => {
                    let help = if matches!(ty, Ty::Array(..)) {
                        "index the stack first: `stack[0].field`"
                    } else {
                        "only headers and structs have fields"
                    };
                    self.report(
                        Diagnostic::new(codes::E0105, field.span, format!("`{ty}` has no fields"))
                            .label(format!("no field `{}`", field.name))
                            .help(help),
                    );
                    Typed::error()
                }
            },
        }
    }

    fn no_field(&mut self, ty: &Ty, field: &Ident, fields: &[(String, Ty)]) {
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        let mut diag = Diagnostic::new(
            codes::E0105,
            field.span,
            format!("`{ty}` has no field `{}`", field.name),
        )
        .label("unknown field");
        if let Some(s) = crate::resolve::lookup::similar_name(&field.name, names.iter().copied()) {
            diag = diag.help(format!("did you mean `{s}`?"));
        } else {
            diag = diag.note(format!("its fields are {}", names.join(", ")));
        }
        self.report(diag);
    }

    fn index(&mut self, base: &Expr, index: &Expr) -> Typed {
        // `a[i][j]...` is folded in a loop rather than by recursion, so a long chain cannot
        // overflow the stack.
        let mut chain = vec![(base, index)];
        let mut inner = base;
        while let ExprKind::Index { base, index } = &inner.kind {
            chain.push((&**base, &**index));
            inner = base;
        }
        let mut typed = self.expr(inner, None);
        while let Some((base, index)) = chain.pop() {
            typed = self.index_typed(typed, base, index);
        }
        typed
    }

    /// `base[index]` with `base` already typed as `base_typed`.
    fn index_typed(&mut self, base_typed: Typed, base: &Expr, index: &Expr) -> Typed {
        let (elem, len) = match &base_typed.ty {
            Ty::Array(elem, len) => ((**elem).clone(), *len as u64),
            Ty::Error => {
                self.expr(index, None);
                return Typed::error();
            }
            other => {
                self.report(
                    Diagnostic::new(
                        codes::E0206,
                        base.span,
                        format!("`{other}` cannot be indexed"),
                    )
                    .label("not an array")
                    .help("to take bits of a value, slice it: `x[7:0]`"),
                );
                self.expr(index, None);
                return Typed::error();
            }
        };
        self.check_index(index, len);
        Typed::of(elem)
    }

    /// Checks an index into something with `len` elements: in bounds by construction (E0213).
    pub(crate) fn check_index(&mut self, index: &Expr, len: u64) {
        let typed = self.expr(index, None);
        if let Some(v) = typed.value.as_ref() {
            match v.as_u64() {
                Some(i) if i < len => {}
                _ => self.error(
                    codes::E0213,
                    index.span,
                    format!("index out of bounds: there are {len} elements"),
                    "out of bounds",
                ),
            }
            return;
        }
        match typed.ty {
            Ty::Bit(k) => {
                if k >= 64 || (1u64 << k) > len {
                    self.report(
                        Diagnostic::new(
                            codes::E0213,
                            index.span,
                            format!("a `bit<{k}>` index can reach past the {len} elements"),
                        )
                        .label(format!(
                            "values up to {}",
                            if k >= 64 {
                                "2^64".to_string()
                            } else {
                                ((1u128 << k) - 1).to_string()
                            }
                        ))
                        .note("every access must be in bounds at compile time")
                        .help(index_help(len)),
                    );
                }
            }
            Ty::Error => {}
            other => self.error(
                codes::E0201,
                index.span,
                format!("an index must be a bit<N>, not `{other}`"),
                "not an index",
            ),
        }
    }

    fn slice(&mut self, base: &Expr, hi: &Expr, lo: &Expr) -> Typed {
        let base_typed = self.expr(base, None);
        let hi_v = self.const_size_allow_zero(hi, "a slice bound");
        let lo_v = self.const_size_allow_zero(lo, "a slice bound");
        let width = match &base_typed.ty {
            Ty::Bit(n) | Ty::Int(n) => *n,
            Ty::Error => return Typed::error(),
            other => {
                self.report(
                    Diagnostic::new(
                        codes::E0206,
                        base.span,
                        format!("`{other}` cannot be sliced"),
                    )
                    .label("not a bit<N> or int<N>")
                    .help("cast it to bit<N> first"),
                );
                return Typed::error();
            }
        };
        let (Some(h), Some(l)) = (hi_v, lo_v) else {
            return Typed::error();
        };
        if h < l || h >= width as u64 {
            let why = if h < l {
                format!("{h} is below {l}")
            } else {
                format!("bit {h} does not exist in a {width}-bit value")
            };
            let mut diag = Diagnostic::new(
                codes::E0204,
                hi.span.to(lo.span),
                format!("slice [{h}:{l}] is out of range for `{}`", base_typed.ty),
            )
            .label(why)
            .note(format!(
                "slices are written [high:low] with {} >= high >= low >= 0",
                width.saturating_sub(1)
            ));
            if h < l && l < u64::from(width) {
                diag = diag.help(format!("the high bit comes first: `[{l}:{h}]`"));
            }
            self.report(diag);
            return Typed::error();
        }
        let (h, l) = (h as u32, l as u32);
        let bounds = hi.span.to(lo.span);
        if let Some(before) = self.slice_widths.insert(bounds, h - l + 1) {
            if before != h - l + 1 {
                self.report(
                    Diagnostic::new(
                        codes::E0204,
                        bounds,
                        format!(
                            "this slice is {before} bits wide in one iteration and {} in another",
                            h - l + 1
                        ),
                    )
                    .label("width depends on the loop variable")
                    .note("every iteration of an unrolled loop must give the slice the same type")
                    .help("keep `hi - lo` constant, e.g. `x[i * 8 + 7:i * 8]`"),
                );
                return Typed::error();
            }
        }
        if !self.require_fit(base.span, &base_typed) {
            return Typed::error();
        }
        Typed {
            ty: Ty::Bit(h - l + 1),
            value: base_typed.value.and_then(|v| consteval::slice(&v, h, l)),
        }
    }

    fn struct_lit(&mut self, path: &Path, fields: &[(Ident, Expr)], span: Span) -> Typed {
        let ty = self.resolve_type(&TypeExpr {
            kind: TypeExprKind::Named {
                path: path.clone(),
                args: Vec::new(),
            },
            span: path.span,
        });
        let Some(decl) = self.record_fields(&ty) else {
            if !ty.is_error() {
                self.error(
                    codes::E0201,
                    path.span,
                    format!("`{ty}` is not a struct"),
                    "not a struct",
                );
            }
            for (_, value) in fields {
                self.expr(value, None);
            }
            return Typed::error();
        };
        // The literal's value when every field is a constant (language.md §8: a `state`
        // initialiser), fields in declaration order; a header literal has none (validity).
        let mut slots: Option<Vec<Option<Value>>> =
            matches!(ty, Ty::Struct(_)).then(|| vec![None; decl.len()]);
        // A field already reported (E0203, ...) makes the literal the poison value, so that a
        // constant position does not add E0210 for it.
        let mut poisoned = false;
        for (i, (name, value)) in fields.iter().enumerate() {
            if let Some((first, _)) = fields[..i].iter().find(|(f, _)| f.name == name.name) {
                self.report(
                    Diagnostic::new(
                        codes::E0102,
                        name.span,
                        format!("field `{}` is given twice", name.name),
                    )
                    .label("given again here")
                    .secondary(first.span, "first given here"),
                );
            }
            match decl.iter().find(|(n, _)| *n == name.name) {
                Some((_, fty)) => {
                    let typed = self.expect_ty(value, fty);
                    poisoned |= typed.ty.is_error();
                    if let (Some(v), Some(slot)) = (typed.value, slots.as_mut()) {
                        if let Some(pos) = decl.iter().position(|(n, _)| *n == name.name) {
                            slot[pos] = Some(v);
                        }
                    }
                }
                None => {
                    self.no_field(&ty, name, &decl);
                    self.expr(value, None);
                }
            }
        }
        self.missing_fields(&decl, fields, &ty, span);
        if poisoned {
            return Typed::error();
        }
        let value = slots
            .and_then(|s| s.into_iter().collect::<Option<Vec<Value>>>())
            .map(Value::Struct);
        Typed { ty, value }
    }

    /// E0509 for the fields of `decl` that a struct literal does not give.
    fn missing_fields(
        &mut self,
        decl: &[(String, Ty)],
        fields: &[(Ident, Expr)],
        ty: &Ty,
        span: Span,
    ) {
        let missing: Vec<&str> = decl
            .iter()
            .filter(|(n, _)| !fields.iter().any(|(f, _)| f.name == *n))
            .map(|(n, _)| n.as_str())
            .collect();
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
            let noun = if missing.len() == 1 {
                "field"
            } else {
                "fields"
            };
            self.report(
                Diagnostic::new(
                    codes::E0509,
                    span,
                    format!("missing {noun} {} in `{ty}`", list.join(", ")),
                )
                .label("every field needs a value")
                .help(format!("add `{}: ...`", missing[0])),
            );
        }
    }

    fn array_lit(&mut self, items: &[Expr], span: Span, expected: Option<&Ty>) -> Typed {
        let elem_hint = match expected {
            Some(Ty::Array(elem, _)) => Some((**elem).clone()),
            _ => None,
        };
        let mut elem: Option<Ty> = elem_hint;
        // The elements' values, while every one so far is a constant of the element type.
        let mut values: Option<Vec<Value>> = Some(Vec::with_capacity(items.len()));
        let mut poisoned = false;
        for item in items {
            let typed = self.expr(item, elem.as_ref());
            let typed = match &elem {
                Some(t) => self.coerce(typed, &t.clone(), item.span),
                None if !matches!(typed.ty, Ty::IntLit | Ty::DecimalLit) => {
                    elem = Some(typed.ty.clone());
                    typed
                }
                // An untyped number before the element type is known: no value (not yet fitted).
                None => Typed::of(typed.ty),
            };
            poisoned |= typed.ty.is_error();
            match (typed.value, values.as_mut()) {
                (Some(v), Some(vs)) => vs.push(v),
                _ => values = None,
            }
        }
        match elem {
            // An element already reported: the poison value (no E0210 cascade).
            Some(_) if poisoned => Typed::error(),
            Some(t) if !items.is_empty() => Typed {
                ty: Ty::Array(Box::new(t), items.len() as u32),
                value: values.map(Value::Array),
            },
            _ => {
                self.error(
                    codes::E0209,
                    span,
                    "cannot infer the element type of this array",
                    "annotate the type: `let a: [bit<8>; 4] = ...`",
                );
                Typed::error()
            }
        }
    }
}

fn index_help(len: u64) -> String {
    if len.is_power_of_two() {
        let bits = len.trailing_zeros();
        if bits == 0 {
            "there is one element: index it with `[0]`".into()
        } else {
            format!("slice the index to {bits} bits, e.g. `i[{}:0]`", bits - 1)
        }
    } else {
        format!("check the index against {len} first, or give the array a power-of-two length")
    }
}

/// `v` as an `i64` when it is a small integer constant.
pub(crate) fn small_int(v: &Value) -> Option<i64> {
    v.as_int().and_then(|i| i.to_i64())
}
