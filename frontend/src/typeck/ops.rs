//! Operators and casts: the width, unit and fixed-point rules, and constant folding.

use super::{Checker, Typed};
use crate::ast::*;
use crate::consteval::{self, Value};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::types::Ty;
use num_rational::BigRational;

/// The type hint a prefix operator passes to its operand. `-1` is a negative literal: it takes its
/// type only once negated, so that `-1` into a bit<N> is reported as a value that does not fit.
fn unary_hint(op: UnaryOp, expected: Option<&Ty>) -> Option<Ty> {
    expected
        .filter(|t| t.is_numeric() && op != UnaryOp::Neg)
        .cloned()
}

/// The base unit of a unit type, as written after a number.
pub(crate) fn unit_suffix(ty: &Ty) -> &'static str {
    match ty {
        Ty::Duration => "ns",
        Ty::Size => "B",
        _ => "bps",
    }
}

fn is_scale(ty: &Ty) -> bool {
    ty.is_integer() || matches!(ty, Ty::IntLit | Ty::Fixed(..) | Ty::DecimalLit)
}

impl Checker<'_> {
    pub(crate) fn unary(
        &mut self,
        op: UnaryOp,
        operand: &Expr,
        span: Span,
        expected: Option<&Ty>,
    ) -> Typed {
        // Nested prefix operators (`- - - x`) are applied in a loop rather than by recursion, so
        // that a long run cannot overflow the stack. Each level is typed as `expr` would type it.
        if op == UnaryOp::Neg {
            if let Some(typed) = self.negative_literal_cast(operand, span) {
                return typed;
            }
        }
        let mut levels = vec![(op, operand, span, expected.cloned())];
        let mut hint = unary_hint(op, expected);
        let mut inner = operand;
        while let ExprKind::Unary { op, operand } = &inner.kind {
            levels.push((*op, &**operand, inner.span, hint.clone()));
            hint = unary_hint(*op, hint.as_ref());
            inner = operand;
        }
        let mut typed = self.expr(inner, hint.as_ref());
        while let Some((op, operand, span, expected)) = levels.pop() {
            typed = self.unary_typed(op, typed, operand, span, expected.as_ref());
            match expected {
                // An inner level's constant is converted to its expected type, as `expr` does.
                Some(t) if !levels.is_empty() && t.is_numeric() => {
                    if matches!(typed.ty, Ty::IntLit | Ty::DecimalLit) {
                        typed = self.coerce(typed, &t, span);
                    }
                }
                _ => {}
            }
            self.note_const(span, &typed);
        }
        typed
    }

    /// `op operand` with the operand already typed.
    fn unary_typed(
        &mut self,
        op: UnaryOp,
        mut typed: Typed,
        operand: &Expr,
        span: Span,
        expected: Option<&Ty>,
    ) -> Typed {
        let hint = expected.filter(|t| t.is_numeric() && op != UnaryOp::Neg);
        if op == UnaryOp::BitNot && typed.ty == Ty::IntLit {
            match hint {
                Some(t) if t.is_integer() => typed = self.coerce(typed, t, operand.span),
                _ => {
                    self.error(
                        codes::E0209,
                        span,
                        "`~` needs to know the width of this constant",
                        "unknown width",
                    );
                    return Typed::error();
                }
            }
        }
        let ok = match op {
            UnaryOp::Not => typed.ty == Ty::Bool,
            UnaryOp::BitNot => typed.ty.is_integer(),
            UnaryOp::Neg => matches!(
                typed.ty,
                Ty::Int(_) | Ty::Fixed(..) | Ty::IntLit | Ty::DecimalLit
            ),
        };
        if typed.ty.is_error() {
            return typed;
        }
        if !ok {
            let help = match (op, &typed.ty) {
                (UnaryOp::Not, t) if t.is_integer() => "for bitwise not write `~x`; to test for zero write `x == 0`".to_string(),
                (UnaryOp::Neg, Ty::Bit(n)) => format!("a bit<{n}> is unsigned: write `0 - x` for the wrapping negation, or cast to int<{n}>"),
                (UnaryOp::BitNot, Ty::Bool) => "for a bool write `!b`".to_string(),
                _ => format!("`{}` does not apply to `{}`", op.symbol(), typed.ty),
            };
            self.report(
                Diagnostic::new(
                    codes::E0206,
                    span,
                    format!("cannot apply `{}` to `{}`", op.symbol(), typed.ty),
                )
                .label(format!("this is a `{}`", typed.ty))
                .help(help),
            );
            return Typed::error();
        }
        if op == UnaryOp::BitNot && !self.require_fit(operand.span, &typed) {
            return Typed::error();
        }
        let value = typed
            .value
            .as_ref()
            .and_then(|v| consteval::unary(op, &typed.ty, v));
        Typed {
            ty: typed.ty,
            value,
        }
    }

    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        span: Span,
        expected: Option<&Ty>,
    ) -> Typed {
        // A left-deep chain such as `a + b + c + ...` is folded in a loop rather than by recursion,
        // so that a long chain cannot overflow the stack.
        let mut chain = vec![(op, lhs, rhs, span, expected, None)];
        let mut inner = lhs;
        while let ExprKind::Binary { op, lhs, rhs } = &inner.kind {
            chain.push((*op, &**lhs, &**rhs, inner.span, None, Some(inner)));
            inner = lhs;
        }
        let mut typed = self.expr(inner, None);
        while let Some((op, lhs, rhs, span, expected, node)) = chain.pop() {
            typed = self.binary_typed(op, typed, lhs, rhs, span, expected);
            // Inner links of the chain are typed here, not by `expr`: record them too (the
            // outermost one is recorded by the `expr` call that led here).
            if let Some(node) = node {
                self.note_const(node.span, &typed);
                self.record(node, &typed);
            }
        }
        typed
    }

    /// `lhs op rhs` with `lhs` already typed as `l`.
    fn binary_typed(
        &mut self,
        op: BinaryOp,
        mut l: Typed,
        lhs: &Expr,
        rhs: &Expr,
        span: Span,
        expected: Option<&Ty>,
    ) -> Typed {
        use BinaryOp::*;
        // Operands are typed without the outer hint: constants stay exact until they meet a typed
        // operand (so `1 / 256` is exact), and the result is converted by the caller. The operands
        // of `++` never type each other: a literal there has no width (§4.6, E0209), and an `if`
        // operand is typed on its own branches (§4.17).
        let independent = matches!(op, Shl | Shr | Mul | Div | Concat);
        let partner = Some(&l.ty).filter(|t| t.is_numeric() && !t.is_unit() && !independent);
        let mut r = self.expr(rhs, partner);
        // An integer literal next to a unit value counts base units (§3.5, §4.11): `cwnd > 0`.
        if !matches!(op, Shl | Shr | Mul | Div | Rem | Concat) {
            if l.ty.is_unit() && r.ty == Ty::IntLit {
                r = self.literal_units(r, &l.ty.clone(), rhs.span);
            } else if r.ty.is_unit() && l.ty == Ty::IntLit {
                l = self.literal_units(l, &r.ty.clone(), lhs.span);
            }
        }
        if l.ty == Ty::IntLit && r.ty.is_numeric() && !independent {
            l = self.expr_retyped(lhs, l, &r.ty);
        }
        if l.ty.is_error() || r.ty.is_error() {
            return Typed::error();
        }
        match op {
            And | Or => self.logical(op, l, r, lhs, rhs),
            Eq | Ne | Lt | Le | Gt | Ge => self.comparison(op, l, r, span),
            Shl | Shr | Concat
                if !(self.require_fit(lhs.span, &l) && self.require_fit(rhs.span, &r)) =>
            {
                Typed::error()
            }
            Shl | Shr => self.shift(op, l, r, (lhs, rhs), expected),
            Concat => self.concat(l, r, lhs, rhs),
            Add | Sub | Mul | Div | Rem | SatAdd | SatSub => {
                // A saturating operator on two literals clamps at the type the value takes.
                if let (SatAdd | SatSub, Ty::IntLit, Ty::IntLit, Some(t)) =
                    (op, &l.ty, &r.ty, expected.filter(|t| t.is_numeric()))
                {
                    l = self.coerce(l, t, lhs.span);
                    r = self.coerce(r, t, rhs.span);
                    if l.ty.is_error() || r.ty.is_error() {
                        return Typed::error();
                    }
                }
                if let Some(result) = self.scaled(op, &l, &r, span) {
                    return result;
                }
                if r.ty == Ty::IntLit && l.ty.is_numeric() {
                    r = self.coerce(r, &l.ty.clone(), rhs.span);
                }
                if r.ty.is_error() {
                    return Typed::error();
                }
                if op == Rem && !(self.require_fit(lhs.span, &l) && self.require_fit(rhs.span, &r))
                {
                    return Typed::error();
                }
                self.arith(op, l, r, span)
            }
            BitAnd | BitOr | BitXor => {
                if r.ty == Ty::IntLit && l.ty.is_integer() {
                    r = self.coerce(r, &l.ty.clone(), rhs.span);
                }
                if r.ty.is_error()
                    || !self.require_fit(lhs.span, &l)
                    || !self.require_fit(rhs.span, &r)
                {
                    return Typed::error();
                }
                self.bitwise(op, l, r, span)
            }
        }
    }

    /// An integer literal operand next to a unit value, as a count of the unit's base units.
    fn literal_units(&mut self, typed: Typed, unit: &Ty, span: Span) -> Typed {
        let Some(value) = typed.value.clone() else {
            return typed;
        };
        match consteval::fit(&value, unit) {
            Ok(v) => Typed {
                ty: unit.clone(),
                value: Some(v),
            },
            Err(err) => {
                self.report_fit(&value, unit, span, err);
                Typed::error()
            }
        }
    }

    /// Re-types a constant operand for the other side's type (a literal adopts its partner's type).
    fn expr_retyped(&mut self, e: &Expr, typed: Typed, target: &Ty) -> Typed {
        self.coerce(typed, target, e.span)
    }

    fn logical(&mut self, op: BinaryOp, l: Typed, r: Typed, lhs: &Expr, rhs: &Expr) -> Typed {
        for (t, e) in [(&l, lhs), (&r, rhs)] {
            if t.ty != Ty::Bool {
                self.report(
                    Diagnostic::new(
                        codes::E0206,
                        e.span,
                        format!("`{}` needs bool operands, found `{}`", op.symbol(), t.ty),
                    )
                    .label("not a bool")
                    .help("compare it first, e.g. `x != 0`"),
                );
                return Typed::error();
            }
        }
        let value = match (&l.value, &r.value) {
            (Some(a), Some(b)) => consteval::binary(op, &Ty::Bool, a, b),
            _ => None,
        };
        Typed {
            ty: Ty::Bool,
            value,
        }
    }

    fn comparison(&mut self, op: BinaryOp, l: Typed, r: Typed, span: Span) -> Typed {
        let Some(ty) = self.unify(&l, &r, span, op) else {
            return Typed::error();
        };
        let orderable = ty.is_numeric() || matches!(ty, Ty::IntLit | Ty::DecimalLit);
        let equatable = orderable || ty.is_equatable();
        let ok = if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
            equatable
        } else {
            orderable
        };
        if !ok {
            let (label, help) = if equatable {
                (
                    format!("`{ty}` values have no order"),
                    "compare with `==` or `!=`, or `match` on the value",
                )
            } else {
                (
                    format!("`{ty}` values cannot be compared"),
                    "compare their fields one by one",
                )
            };
            self.report(
                Diagnostic::new(
                    codes::E0206,
                    span,
                    format!("cannot compare `{ty}` values with `{}`", op.symbol()),
                )
                .label(label)
                .help(help),
            );
            return Typed::error();
        }
        let value = match (&l.value, &r.value) {
            (Some(a), Some(b)) => consteval::binary(op, &ty, a, b),
            _ => None,
        };
        Typed {
            ty: Ty::Bool,
            value,
        }
    }

    /// The common type of two operands, or an error (E0201/E0202/E0207).
    fn unify(&mut self, l: &Typed, r: &Typed, span: Span, op: BinaryOp) -> Option<Ty> {
        match (&l.ty, &r.ty) {
            (a, b) if a == b => Some(a.clone()),
            (Ty::IntLit, Ty::DecimalLit) | (Ty::DecimalLit, Ty::IntLit) => Some(Ty::DecimalLit),
            (lit @ (Ty::IntLit | Ty::DecimalLit), t) | (t, lit @ (Ty::IntLit | Ty::DecimalLit))
                if t.is_numeric() =>
            {
                self.literal_operand(lit, t, span, op).then(|| t.clone())
            }
            (a, b) => {
                self.operand_mismatch(a, b, span, op);
                None
            }
        }
    }

    /// Whether a literal of kind `lit` may meet an operand of type `t`: decimals only meet fixed
    /// values, and bare numbers never meet unit values (`0B`, not `0`).
    fn literal_operand(&mut self, lit: &Ty, t: &Ty, span: Span, op: BinaryOp) -> bool {
        let sym = op.symbol();
        if t.is_unit() {
            self.report(
                Diagnostic::new(codes::E0207, span, format!("a {t} {sym} a plain number"))
                    .label(format!("a plain number is not a {t}"))
                    .help(format!(
                        "write the number with a unit, e.g. `0{}`",
                        unit_suffix(t)
                    )),
            );
            return false;
        }
        if *lit == Ty::DecimalLit && t.is_integer() {
            self.report(
                Diagnostic::new(
                    codes::E0201,
                    span,
                    format!("mismatched types: `{t}` {sym} a decimal"),
                )
                .label(format!("a decimal is not a `{t}`"))
                .note("decimals are fixed<I,F> values; integers are whole numbers"),
            );
            return false;
        }
        true
    }

    fn operand_mismatch(&mut self, a: &Ty, b: &Ty, span: Span, op: BinaryOp) {
        let sym = op.symbol();
        let diag = match (a, b) {
            (Ty::Bit(x) | Ty::Int(x), Ty::Bit(y) | Ty::Int(y)) if x != y => {
                let wider = if x > y { a } else { b };
                Diagnostic::new(codes::E0202, span, format!("mismatched widths: `{a}` {sym} `{b}`"))
                    .label(format!("{x} bits {sym} {y} bits"))
                    .note("scenic never widens or truncates implicitly")
                    .help(format!("cast the narrower operand: `(...) as {wider}`"))
            }
            (x, y) if x.is_unit() && y.is_unit() => Diagnostic::new(codes::E0207, span, format!("mismatched units: a {a} {sym} a {b}"))
                .label(format!("a {a} is not a {b}"))
                .note("durations, sizes and rates only combine with their own kind (and scale by plain numbers)"),
            (Ty::Fixed(..), Ty::Fixed(..)) => Diagnostic::new(codes::E0201, span, format!("mismatched fixed-point types: `{a}` {sym} `{b}`"))
                .label("different integer or fraction bits")
                .help(format!("cast one side: `(...) as {a}`")),
            _ => Diagnostic::new(codes::E0201, span, format!("mismatched types: `{a}` {sym} `{b}`"))
                .label(format!("`{sym}` needs two operands of the same type")),
        };
        self.report(diag);
    }

    /// Unit and fixed-point scaling: `rate * fixed`, `size / 2`, `fixed * bit<8>`, ...
    fn scaled(&mut self, op: BinaryOp, l: &Typed, r: &Typed, span: Span) -> Option<Typed> {
        use BinaryOp::*;
        let result = match (op, &l.ty, &r.ty) {
            (Mul | Div, a, b) if a.is_unit() && is_scale(b) => a.clone(),
            (Mul, a, b) if b.is_unit() && is_scale(a) => b.clone(),
            (Mul | Div | Rem, a, b) if a.is_unit() && b.is_unit() => {
                self.report(
                    Diagnostic::new(
                        codes::E0207,
                        span,
                        format!("a {a} {} a {b} has no unit scenic can express", op.symbol()),
                    )
                    .label("unsupported unit arithmetic")
                    .help(format!(
                        "convert to raw numbers first: `(x as bit<64>) {} (y as bit<64>)`",
                        op.symbol()
                    )),
                );
                return Some(Typed::error());
            }
            (Mul | Div, Ty::Fixed(..), b) if b.is_integer() || *b == Ty::IntLit => l.ty.clone(),
            (Mul, a, Ty::Fixed(..)) if a.is_integer() => r.ty.clone(),
            _ => return None,
        };
        let value = match (
            l.value.as_ref().and_then(Value::as_num),
            r.value.as_ref().and_then(Value::as_num),
        ) {
            (Some(a), Some(b)) => {
                let exact = if op == Mul {
                    a * b
                } else if num_traits::Zero::is_zero(b) {
                    BigRational::from_integer(0.into())
                } else {
                    a / b
                };
                Some(Value::Num(exact))
            }
            _ => None,
        };
        Some(Typed { ty: result, value })
    }

    fn arith(&mut self, op: BinaryOp, l: Typed, r: Typed, span: Span) -> Typed {
        let Some(ty) = self.unify(&l, &r, span, op) else {
            return Typed::error();
        };
        if !(ty.is_numeric() || matches!(ty, Ty::IntLit | Ty::DecimalLit)) {
            self.error(
                codes::E0206,
                span,
                format!("cannot apply `{}` to `{ty}`", op.symbol()),
                "not a number",
            );
            return Typed::error();
        }
        if op == BinaryOp::Rem && matches!(ty, Ty::Fixed(..) | Ty::DecimalLit) {
            self.report(
                Diagnostic::new(codes::E0206, span, format!("`%` is not defined for `{ty}`"))
                    .label("fixed-point remainder")
                    .help("subtract whole multiples instead, e.g. `x - period * ((x / period) as bit<8>)`"),
            );
            return Typed::error();
        }
        let value = match (&l.value, &r.value) {
            (Some(a), Some(b)) => consteval::binary(op, &ty, a, b),
            _ => None,
        };
        Typed { ty, value }
    }

    fn bitwise(&mut self, op: BinaryOp, l: Typed, r: Typed, span: Span) -> Typed {
        let Some(ty) = self.unify(&l, &r, span, op) else {
            return Typed::error();
        };
        // `&`, `|`, `^` also take two bools: logical and, or, xor without short circuit (§4.4).
        if !(ty.is_integer() || ty == Ty::IntLit || ty == Ty::Bool) {
            self.report(
                Diagnostic::new(
                    codes::E0206,
                    span,
                    format!("cannot apply `{}` to `{ty}`", op.symbol()),
                )
                .label("bitwise operators take bit<N>, int<N> or bool")
                .help("bitwise operators work on bit<N> and int<N>, and on two bools"),
            );
            return Typed::error();
        }
        let value = match (&l.value, &r.value) {
            (Some(a), Some(b)) => consteval::binary(op, &ty, a, b),
            _ => None,
        };
        Typed { ty, value }
    }

    fn shift(
        &mut self,
        op: BinaryOp,
        mut l: Typed,
        r: Typed,
        (lhs, rhs): (&Expr, &Expr),
        expected: Option<&Ty>,
    ) -> Typed {
        if l.ty == Ty::IntLit && r.value.is_none() {
            // A constant shifted by a run-time amount needs a width to shift within.
            match expected.filter(|t| t.is_integer()) {
                Some(t) => l = self.coerce(l, t, lhs.span),
                None => {
                    self.report(
                        Diagnostic::new(
                            codes::E0209,
                            lhs.span,
                            format!("`{}` needs to know the width of this constant", op.symbol()),
                        )
                        .label("unknown width")
                        .help("give it one: `(1 as bit<32>) << n`"),
                    );
                    return Typed::error();
                }
            }
            if l.ty.is_error() {
                return l;
            }
        }
        if !(l.ty.is_integer() || l.ty == Ty::IntLit) {
            self.error(
                codes::E0206,
                lhs.span,
                format!("cannot shift a `{}`", l.ty),
                "shifts take bit<N> or int<N>",
            );
            return Typed::error();
        }
        let negative = r
            .value
            .as_ref()
            .and_then(Value::as_int)
            .is_some_and(|v| v.sign() == num_bigint::Sign::Minus);
        if r.ty == Ty::IntLit && negative {
            self.report(
                Diagnostic::new(codes::E0203, rhs.span, "a shift amount cannot be negative")
                    .label("negative amount")
                    .help(format!(
                        "shift the other way: `x {} n`",
                        if op == BinaryOp::Shl { ">>" } else { "<<" }
                    )),
            );
            return Typed::error();
        }
        if !(r.ty.is_integer() || r.ty == Ty::IntLit) || matches!(r.ty, Ty::Int(_)) {
            self.error(
                codes::E0206,
                rhs.span,
                format!("a shift amount must be a bit<N>, found `{}`", r.ty),
                "not an unsigned amount",
            );
            return Typed::error();
        }
        let value = match (&l.value, &r.value) {
            (Some(a), Some(b)) if l.ty == Ty::IntLit => {
                let amount = b.as_u64().unwrap_or(0).min(4096) as usize;
                a.as_int().map(|v| {
                    Value::int(if op == BinaryOp::Shl {
                        v << amount
                    } else {
                        v >> amount
                    })
                })
            }
            (Some(a), Some(b)) => consteval::binary(op, &l.ty, a, b),
            _ => None,
        };
        Typed { ty: l.ty, value }
    }

    fn concat(&mut self, l: Typed, r: Typed, lhs: &Expr, rhs: &Expr) -> Typed {
        let mut widths = [0u32; 2];
        for (i, (t, e)) in [(&l, lhs), (&r, rhs)].into_iter().enumerate() {
            match &t.ty {
                Ty::Bit(n) | Ty::Int(n) => widths[i] = *n,
                Ty::IntLit => {
                    self.report(
                        Diagnostic::new(
                            codes::E0209,
                            e.span,
                            "`++` needs to know the width of this constant",
                        )
                        .label("unknown width")
                        .help("give it one: `(5 as bit<8>)`"),
                    );
                    return Typed::error();
                }
                other => {
                    self.error(
                        codes::E0206,
                        e.span,
                        format!("`++` concatenates bit strings, not `{other}`"),
                        "not a bit<N>",
                    );
                    return Typed::error();
                }
            }
        }
        let total = widths[0] + widths[1];
        if total > crate::types::MAX_WIDTH {
            self.error(
                codes::E0208,
                lhs.span.to(rhs.span),
                format!("the concatenation is {total} bits wide"),
                "wider than 1024 bits",
            );
            return Typed::error();
        }
        let value = match (&l.value, &r.value) {
            (Some(a), Some(b)) => consteval::concat(a, b, widths[1]),
            _ => None,
        };
        Typed {
            ty: Ty::Bit(total),
            value,
        }
    }

    pub(crate) fn cast(&mut self, value: &Expr, ty: &TypeExpr) -> Typed {
        let target = self.resolve_type(ty);
        let typed = self.expr(value, None);
        self.cast_typed(typed, (value.span, value.span.to(ty.span)), target)
    }

    /// `-lit as T`: `-` followed by a literal is a negative literal (§4.2), so it is cast as a
    /// whole although postfix `as` binds tighter than a prefix `-` on other operands (§4.1).
    fn negative_literal_cast(&mut self, operand: &Expr, span: Span) -> Option<Typed> {
        let ExprKind::Cast { value, ty } = &operand.kind else {
            return None;
        };
        if !matches!(
            value.kind,
            ExprKind::Lit(Literal::Int(_) | Literal::Decimal(_))
        ) {
            return None;
        }
        let target = self.resolve_type(ty);
        let mut typed = self.expr(value, None);
        typed.value = match typed.value {
            Some(Value::Num(r)) => Some(Value::Num(-r)),
            other => other,
        };
        let lit_span = Span {
            lo: span.lo,
            hi: value.span.hi,
        };
        Some(self.cast_typed(typed, (lit_span, span), target))
    }

    /// `typed as target`; `span` is where the value is written, `whole` the whole cast.
    fn cast_typed(&mut self, typed: Typed, (span, whole): (Span, Span), target: Ty) -> Typed {
        if typed.ty.is_error() || target.is_error() {
            return Typed::of(target);
        }
        if let (Ty::IntLit, Ty::Int(n), Some(v)) = (
            &typed.ty,
            &target,
            typed.value.as_ref().and_then(Value::as_int),
        ) {
            // A literal that fits `bit<N>` but not `int<N>` is read as those bits (§4.9:
            // `0xFF as int<8>` is -1).
            if v >= consteval::pow2(n - 1) && v < consteval::pow2(*n) {
                return Typed {
                    value: Some(Value::int(v - consteval::pow2(*n))),
                    ty: target,
                };
            }
        }
        if matches!(typed.ty, Ty::IntLit | Ty::DecimalLit) {
            return self.coerce(typed, &target, span);
        }
        if !self.require_fit(span, &typed) {
            return Typed::of(target);
        }
        let problem = match &typed.ty {
            Ty::Enum(t) => self.enum_cast_problem(t, &target),
            from => cast_problem(from, &target),
        };
        if let Some((code, why)) = problem {
            let mut diag = Diagnostic::new(code, whole, format!("cannot cast `{}` to `{target}`", typed.ty))
                .label(why)
                .note("casts convert between bit<N>, int<N>, bool (bit<1>), fixed, enums with a representation, and units (bit<64>)");
            if target == Ty::Bool && typed.ty.is_integer() {
                diag = diag.help("test it instead: `x != 0`");
            }
            self.report(diag);
            return Typed::of(target);
        }
        let folded = match (&typed.ty, &typed.value) {
            // A variant of an enum with a representation converts to its value (§3.8).
            (Ty::Enum(t), Some(Value::Variant(i))) if target != typed.ty => {
                match self.enum_sig(t) {
                    crate::typeck::signature::SigKind::Enum { variants, .. } => {
                        variants.get(*i as usize).map(|(_, v)| v.clone())
                    }
                    _ => None,
                }
            }
            (_, value) => value
                .as_ref()
                .and_then(|v| consteval::cast(v, &typed.ty, &target)),
        };
        Typed {
            ty: target,
            value: folded,
        }
    }
}

impl Checker<'_> {
    /// Why `e as to` is not allowed for an enum value `e`: only an enum with a representation
    /// `bit<N>` converts, and only to `bit<N>`.
    fn enum_cast_problem(
        &self,
        t: &crate::types::TypeRef,
        to: &Ty,
    ) -> Option<(crate::diag::Code, String)> {
        let repr = match self.enum_sig(t) {
            crate::typeck::signature::SigKind::Enum { repr, .. } => repr,
            _ => return None,
        };
        match (repr, to) {
            (_, Ty::Enum(u)) if u == t => None,
            (None, _) => Some((
                codes::E0205,
                format!(
                    "`{}` has no representation: declare `enum {}: bit<N>`, or use `match`",
                    t.name, t.name
                ),
            )),
            (Some(r), to) if r == *to || r.is_error() => None,
            (Some(r), _) => Some((
                codes::E0205,
                format!("`{}` is represented as `{r}`: cast to `{r}` first", t.name),
            )),
        }
    }
}

/// Why `from as to` is not allowed, if it is not.
fn cast_problem(from: &Ty, to: &Ty) -> Option<(crate::diag::Code, String)> {
    let ok = match (from, to) {
        (a, b) if a == b => true,
        (Ty::Bit(_) | Ty::Int(_), Ty::Bit(_) | Ty::Int(_)) => true,
        (Ty::Bool, Ty::Bit(1)) | (Ty::Bit(1), Ty::Bool) => true,
        (Ty::Enum(_), Ty::Bit(_)) => true,
        (Ty::Fixed(..), Ty::Fixed(..) | Ty::Bit(_)) | (Ty::Bit(_), Ty::Fixed(..)) => true,
        (u, Ty::Bit(64)) | (Ty::Bit(64), u) if u.is_unit() => true,
        (a, b) if a.is_unit() && b.is_unit() => {
            return Some((codes::E0207, format!("a {a} is not a {b}")));
        }
        (Ty::Bool, Ty::Bit(n)) => {
            return Some((
                codes::E0205,
                format!("a bool converts to bit<1>, not bit<{n}>"),
            ))
        }
        (u, Ty::Bit(n)) if u.is_unit() => {
            return Some((
                codes::E0205,
                format!("units convert to bit<64>, not bit<{n}>"),
            ))
        }
        _ => false,
    };
    if ok {
        None
    } else {
        Some((codes::E0205, "no conversion between these types".into()))
    }
}
