//! The conditional expression `if c { a } else if d { b } else { e }`, and `c ? a : b` from C,
//! which scenic does not have (E0015).

use super::{span_of, Builder, Rule};
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use pest::iterators::Pair;

impl<'t> Builder<'t> {
    /// An `if_expr` pair: `(cond, branch)` pairs then an optional `else` branch, folded from the
    /// right into nested [`ExprKind::If`]s. A missing `else` is E0016.
    pub(crate) fn if_expr(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        let mut arms: Vec<(Expr, Expr, Span)> = Vec::new();
        let mut otherwise: Option<Expr> = None;
        let mut cond: Option<(Expr, Span)> = None;
        for child in self.children(pair) {
            match (child.as_rule(), cond.take()) {
                (Rule::if_branch, Some((c, start))) => {
                    let value = self.if_branch(child);
                    arms.push((c, value, start));
                }
                (Rule::if_branch, None) => otherwise = Some(self.if_branch(child)),
                (_, _) => {
                    let start = span_of(&child);
                    cond = Some((self.expr(child), start));
                }
            }
        }
        let mut tail = match otherwise {
            Some(e) => e,
            None => {
                let end = Span {
                    lo: span.hi,
                    hi: span.hi,
                };
                self.diags.push(
                    Diagnostic::new(
                        codes::E0016,
                        end,
                        "an `if` used as a value needs an `else`",
                    )
                    .label("add `else { value }` here")
                    .secondary(span, "this `if` is a value")
                    .help("to run statements only when the condition holds, write the `if` as a statement: `if c { x = a; }`"),
                );
                self.mk_expr(ExprKind::Error, end)
            }
        };
        while let Some((cond, then, start)) = arms.pop() {
            // An `else if` link spans from its condition to the end of the chain; the outermost
            // one from the `if` keyword.
            let lo = if arms.is_empty() { span.lo } else { start.lo };
            let kind = ExprKind::If {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(tail),
            };
            tail = self.mk_expr(kind, Span { lo, hi: span.hi });
        }
        tail
    }

    fn if_branch(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        match self.children(pair).next() {
            Some(e) => self.expr(e),
            None => self.mk_expr(ExprKind::Error, span),
        }
    }

    /// `cond ? a : b`: reported (E0015); the whole expression is an error.
    pub(crate) fn bad_ternary(&mut self, base: &Expr, pair: Pair<'t, Rule>) -> Expr {
        let span = base.span.to(span_of(&pair));
        let mut parts = self.children(pair);
        let shown = |p: Option<Pair<'t, Rule>>, fallback: &str| {
            p.map_or_else(|| fallback.to_string(), |p| p.as_str().trim().to_string())
        };
        let c = self
            .text
            .get(base.span.lo as usize..base.span.hi as usize)
            .map_or_else(|| "c".to_string(), |t| t.trim().to_string());
        let a = shown(parts.next(), "a");
        let b = shown(parts.next(), "b");
        self.diags.push(
            Diagnostic::new(codes::E0015, span, "scenic has no `?:` operator")
                .label("C's conditional operator")
                .help(format!("write `if {c} {{ {a} }} else {{ {b} }}`")),
        );
        self.mk_expr(ExprKind::Error, span)
    }
}
