//! The conditional expression `if c { a } else { b }` (docs/language.md §4.17).
//!
//! The condition is a `bool` (E0201, as for an `if` statement). The branches meet like the
//! operands of a binary operator: a literal takes the other branch's type, two literals take the
//! type the context expects. Only the taken branch is evaluated, so the counts of the two
//! branches (table applications, ...) are alternatives, merged as an `if` statement merges them,
//! and the expression is constant when its condition and both branches are (as every operand of
//! a constant expression must be), with the taken branch's value.

use super::{max_counts, Checker, Typed};
use crate::ast::Expr;
use crate::consteval;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::types::Ty;

impl Checker<'_> {
    pub(crate) fn cond_expr(
        &mut self,
        cond: &Expr,
        then: &Expr,
        otherwise: &Expr,
        span: Span,
        expected: Option<&Ty>,
    ) -> Typed {
        let c = self.condition(cond);
        let before = self.path.clone();
        let mut t = self.expr(then, expected);
        let then_path = std::mem::replace(&mut self.path, before);
        let partner = Some(&t.ty)
            .filter(|ty| ty.is_numeric())
            .or(expected)
            .cloned();
        let mut o = self.expr(otherwise, partner.as_ref());
        self.path = max_counts(&then_path, &self.path);
        if c.ty.is_error() || t.ty.is_error() || o.ty.is_error() {
            return Typed::error();
        }
        if matches!(t.ty, Ty::IntLit | Ty::DecimalLit) && o.ty.is_numeric() {
            t = self.coerce(t, &o.ty.clone(), then.span);
            self.record(then, &t);
        } else if matches!(o.ty, Ty::IntLit | Ty::DecimalLit) && t.ty.is_numeric() {
            o = self.coerce(o, &t.ty.clone(), otherwise.span);
            self.record(otherwise, &o);
        }
        let Some(ty) = self.branch_type(&t, &o, then, otherwise) else {
            return Typed::error();
        };
        let value = match (&c.value, &t.value, &o.value) {
            (Some(c), Some(a), Some(b)) => consteval::select(c, a, b),
            _ => None,
        };
        if value.is_none() && matches!(ty, Ty::IntLit | Ty::DecimalLit) {
            self.report(
                Diagnostic::new(
                    codes::E0209,
                    span,
                    "this `if` needs to know the type of its constant branches",
                )
                .label("both branches are constants and the condition is known only at run time")
                .help("give it a type: `let v: bit<8> = if c { 1 } else { 2 };`, type a branch (`1 as bit<8>`), or write the typed operand first (`x + if c { 1 } else { 2 }`)"),
            );
            return Typed::error();
        }
        Typed { ty, value }
    }

    /// The common type of the two branches (after a literal took its partner's type).
    fn branch_type(&mut self, t: &Typed, o: &Typed, then: &Expr, otherwise: &Expr) -> Option<Ty> {
        if t.ty.is_error() || o.ty.is_error() {
            return None;
        }
        match (&t.ty, &o.ty) {
            (a, b) if a == b => Some(a.clone()),
            (Ty::IntLit, Ty::DecimalLit) | (Ty::DecimalLit, Ty::IntLit) => Some(Ty::DecimalLit),
            (a, b) => {
                let code = match (a, b) {
                    (Ty::Bit(x) | Ty::Int(x), Ty::Bit(y) | Ty::Int(y)) if x != y => codes::E0202,
                    _ => codes::E0201,
                };
                self.report(
                    Diagnostic::new(
                        code,
                        otherwise.span,
                        format!("`if` and `else` have different types: `{a}` and `{b}`"),
                    )
                    .label(format!("this is a `{b}`"))
                    .secondary(then.span, format!("this is a `{a}`"))
                    .help("both branches must have the same type: convert one with `as`"),
                );
                None
            }
        }
    }
}
