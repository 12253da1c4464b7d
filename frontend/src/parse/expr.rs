//! Expressions (with operator precedence), types and patterns.
//!
//! Precedence, loosest first: `||`; `&&`; comparisons; `|`; `^`; `&`; `<<` `>>`; `+` `-` `|+|` `|-|`
//! `++`; `*` `/` `%`; prefix `-` `!` `~`; postfix `.field`, `.method()`, `[i]`, `[hi:lo]`, `(args)`,
//! `as T`. All binary operators associate to the left. Comparisons binding looser than bitwise
//! operators means `a & mask == 0` is `(a & mask) == 0`, unlike C. A conditional
//! `if c { a } else { b }` is a primary (see `cond.rs`): its braces delimit it, so
//! `if c { a } else { b } + 1` adds 1 to its value.

use super::{span_of, Builder, Rule};
use crate::ast::*;
use crate::span::Span;
use pest::iterators::Pair;

fn binary_op(rule: Rule) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match rule {
        Rule::or_or => (Or, 1),
        Rule::and_and => (And, 2),
        Rule::eq => (Eq, 3),
        Rule::ne => (Ne, 3),
        Rule::lt => (Lt, 3),
        Rule::le => (Le, 3),
        Rule::gt => (Gt, 3),
        Rule::ge => (Ge, 3),
        Rule::bit_or => (BitOr, 4),
        Rule::bit_xor => (BitXor, 5),
        Rule::bit_and => (BitAnd, 6),
        Rule::shl => (Shl, 7),
        Rule::shr => (Shr, 7),
        Rule::add => (Add, 8),
        Rule::sub => (Sub, 8),
        Rule::sat_add => (SatAdd, 8),
        Rule::sat_sub => (SatSub, 8),
        Rule::concat => (Concat, 8),
        Rule::mul => (Mul, 9),
        Rule::div => (Div, 9),
        Rule::rem => (Rem, 9),
        _ => return None,
    })
}

fn unary_op(rule: Rule) -> Option<UnaryOp> {
    match rule {
        Rule::neg => Some(UnaryOp::Neg),
        Rule::not => Some(UnaryOp::Not),
        Rule::bit_not => Some(UnaryOp::BitNot),
        _ => None,
    }
}

impl<'t> Builder<'t> {
    /// An `expr` pair.
    pub(crate) fn expr(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let mut operands: Vec<Expr> = Vec::new();
        let mut ops: Vec<(BinaryOp, u8)> = Vec::new();
        let mut prefixes: Vec<(UnaryOp, Span)> = Vec::new();
        let mut current: Option<Expr> = None;
        for child in self.children(pair) {
            let rule = child.as_rule();
            if let Some(op) = unary_op(rule) {
                prefixes.push((op, span_of(&child)));
            } else if let Some(op) = binary_op(rule) {
                operands.push(self.close_operand(current.take(), &mut prefixes));
                ops.push(op);
            } else if rule == Rule::bad_ternary {
                let base = self.close_operand(current.take(), &mut prefixes);
                operands.push(base);
                let whole = self.climb(std::mem::take(&mut operands), std::mem::take(&mut ops));
                return self.bad_ternary(&whole, child);
            } else if let Some(base) = current.take() {
                current = Some(self.postfix(base, child));
            } else {
                current = Some(self.primary(child));
            }
        }
        operands.push(self.close_operand(current, &mut prefixes));
        self.climb(operands, ops)
    }

    /// Applies pending prefix operators (innermost last written) to an operand.
    fn close_operand(
        &mut self,
        operand: Option<Expr>,
        prefixes: &mut Vec<(UnaryOp, Span)>,
    ) -> Expr {
        let mut expr = match operand {
            Some(expr) => expr,
            None => self.mk_expr(ExprKind::Error, Span::default()),
        };
        while let Some((op, span)) = prefixes.pop() {
            let span = span.to(expr.span);
            expr = self.mk_expr(
                ExprKind::Unary {
                    op,
                    operand: Box::new(expr),
                },
                span,
            );
        }
        expr
    }

    /// Precedence climbing over a flat `operand (op operand)*` list.
    fn climb(&mut self, operands: Vec<Expr>, ops: Vec<(BinaryOp, u8)>) -> Expr {
        let mut operands = operands.into_iter();
        let mut output: Vec<Expr> = Vec::new();
        let mut stack: Vec<(BinaryOp, u8)> = Vec::new();
        if let Some(first) = operands.next() {
            output.push(first);
        }
        for (op, operand) in ops.into_iter().zip(operands) {
            while stack.last().is_some_and(|top| top.1 >= op.1) {
                self.reduce(&mut output, &mut stack);
            }
            stack.push(op);
            output.push(operand);
        }
        while !stack.is_empty() {
            self.reduce(&mut output, &mut stack);
        }
        output
            .pop()
            .unwrap_or_else(|| self.mk_expr(ExprKind::Error, Span::default()))
    }

    fn reduce(&mut self, output: &mut Vec<Expr>, stack: &mut Vec<(BinaryOp, u8)>) {
        let (Some((op, _)), Some(rhs), Some(lhs)) = (stack.pop(), output.pop(), output.pop())
        else {
            return;
        };
        let span = lhs.span.to(rhs.span);
        let expr = self.mk_expr(
            ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        );
        output.push(expr);
    }

    fn primary(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        let kind = match pair.as_rule() {
            Rule::if_expr => return self.if_expr(pair),
            Rule::path => ExprKind::Path(self.path(pair)),
            Rule::struct_lit => self.struct_lit(pair),
            Rule::paren_or_tuple => {
                let mut items: Vec<Expr> = self.children(pair).map(|p| self.expr(p)).collect();
                if items.len() == 1 {
                    // A parenthesised expression: keep the inner node, widened to the parentheses.
                    let mut inner = items.remove(0);
                    inner.span = span;
                    return inner;
                }
                ExprKind::Tuple(items)
            }
            Rule::array_lit => ExprKind::Array(self.children(pair).map(|p| self.expr(p)).collect()),
            _ => self.literal(pair),
        };
        self.mk_expr(kind, span)
    }

    fn struct_lit(&mut self, pair: Pair<'t, Rule>) -> ExprKind {
        let mut children = self.children(pair);
        let path = children.next().map(|p| self.path(p));
        let mut fields = Vec::new();
        for init in children {
            let mut parts = self.children(init);
            if let (Some(name), Some(value)) = (parts.next(), parts.next()) {
                let name = self.ident(name);
                fields.push((name, self.expr(value)));
            }
        }
        match path {
            Some(path) => ExprKind::StructLit { path, fields },
            None => ExprKind::Error,
        }
    }

    fn postfix(&mut self, base: Expr, pair: Pair<'t, Rule>) -> Expr {
        let span = base.span.to(span_of(&pair));
        let rule = pair.as_rule();
        let mut children: Vec<Pair<'t, Rule>> = self.children(pair).collect();
        let kind = match rule {
            Rule::cast => match children.pop() {
                Some(ty) => ExprKind::Cast {
                    value: Box::new(base),
                    ty: self.ty(ty),
                },
                None => ExprKind::Error,
            },
            Rule::field => match children.pop() {
                Some(name) => ExprKind::Field {
                    base: Box::new(base),
                    field: self.ident(name),
                },
                None => ExprKind::Error,
            },
            Rule::method_call => {
                let mut parts = children.into_iter();
                let method = parts.next().map(|p| self.ident(p));
                let args = parts.next().map(|p| self.call_args(p)).unwrap_or_default();
                match method {
                    Some(method) => ExprKind::MethodCall {
                        receiver: Box::new(base),
                        method,
                        args,
                    },
                    None => ExprKind::Error,
                }
            }
            Rule::slice => {
                let mut parts = children.into_iter().map(|p| self.expr(p));
                match (parts.next(), parts.next()) {
                    (Some(hi), Some(lo)) => ExprKind::Slice {
                        base: Box::new(base),
                        hi: Box::new(hi),
                        lo: Box::new(lo),
                    },
                    _ => ExprKind::Error,
                }
            }
            Rule::index => match children.pop() {
                Some(index) => ExprKind::Index {
                    base: Box::new(base),
                    index: Box::new(self.expr(index)),
                },
                None => ExprKind::Error,
            },
            Rule::call_args => ExprKind::Call {
                callee: Box::new(base),
                args: children.into_iter().map(|p| self.expr(p)).collect(),
            },
            _ => ExprKind::Error,
        };
        self.mk_expr(kind, span)
    }

    /// A `call_args` pair: `(a, b, ...)`.
    pub(crate) fn call_args(&mut self, pair: Pair<'t, Rule>) -> Vec<Expr> {
        self.children(pair).map(|p| self.expr(p)).collect()
    }

    /// A `path` pair.
    pub(crate) fn path(&mut self, pair: Pair<'t, Rule>) -> Path {
        let span = span_of(&pair);
        let segments = self.children(pair).map(|p| self.ident(p)).collect();
        Path { segments, span }
    }

    /// A `ty` (or `named_ty`) pair.
    pub(crate) fn ty(&mut self, pair: Pair<'t, Rule>) -> TypeExpr {
        let span = span_of(&pair);
        let pair = if pair.as_rule() == Rule::ty {
            match self.children(pair).next() {
                Some(inner) => inner,
                None => return error_type(span),
            }
        } else {
            pair
        };
        let rule = pair.as_rule();
        let mut children = self.children(pair);
        let kind = match rule {
            Rule::named_ty => {
                let Some(path) = children.next().map(|p| self.path(p)) else {
                    return error_type(span);
                };
                let args = children
                    .next()
                    .map(|g| self.children(g).map(|a| self.generic_arg(a)).collect())
                    .unwrap_or_default();
                TypeExprKind::Named { path, args }
            }
            Rule::array_ty => {
                let (Some(elem), Some(len)) = (children.next(), children.next()) else {
                    return error_type(span);
                };
                TypeExprKind::Array {
                    elem: Box::new(self.ty(elem)),
                    len: Box::new(self.expr(len)),
                }
            }
            Rule::tuple_ty => TypeExprKind::Tuple(children.map(|t| self.ty(t)).collect()),
            _ => return error_type(span),
        };
        TypeExpr { kind, span }
    }

    fn generic_arg(&mut self, pair: Pair<'t, Rule>) -> GenericArg {
        let span = span_of(&pair);
        if pair.as_rule() == Rule::int_lit {
            let value = super::literal::parse_int_digits(pair.as_str())
                .and_then(|v| u64::try_from(v).ok())
                .unwrap_or(u64::MAX);
            GenericArg::Int(value, span)
        } else {
            GenericArg::Type(self.ty(pair))
        }
    }

    /// A `pattern` pair.
    pub(crate) fn pattern(&mut self, pair: Pair<'t, Rule>) -> Pattern {
        let span = span_of(&pair);
        if pair.as_rule() == Rule::pattern {
            let mut alts: Vec<Pattern> = self.children(pair).map(|p| self.pattern(p)).collect();
            if alts.len() == 1 {
                return alts.remove(0);
            }
            return Pattern {
                kind: PatternKind::Or(alts),
                span,
            };
        }
        let rule = pair.as_rule();
        let children: Vec<Pair<'t, Rule>> = self.children(pair).collect();
        let kind = match rule {
            Rule::wildcard => PatternKind::Wildcard,
            Rule::tuple_pat => {
                PatternKind::Tuple(children.into_iter().map(|p| self.pattern(p)).collect())
            }
            Rule::range_pat => self.range_pattern(children),
            Rule::masked_pat => {
                let mut values = children.into_iter().map(|p| self.pat_value(p));
                match (values.next(), values.next()) {
                    (Some(value), Some(mask)) => PatternKind::Masked { value, mask },
                    _ => PatternKind::Wildcard,
                }
            }
            Rule::ctor_pat => self.ctor_pattern(children),
            Rule::expr_pat => match children.into_iter().next() {
                Some(value) => PatternKind::Value(self.pat_value(value)),
                None => PatternKind::Wildcard,
            },
            _ => PatternKind::Wildcard,
        };
        Pattern { kind, span }
    }

    fn range_pattern(&mut self, children: Vec<Pair<'t, Rule>>) -> PatternKind {
        let mut lo = None;
        let mut hi = None;
        let mut inclusive = false;
        for child in children {
            match child.as_rule() {
                Rule::range_incl => inclusive = true,
                Rule::range_excl => inclusive = false,
                _ if lo.is_none() => lo = Some(self.pat_value(child)),
                _ => hi = Some(self.pat_value(child)),
            }
        }
        match (lo, hi) {
            (Some(lo), Some(hi)) => PatternKind::Range { lo, hi, inclusive },
            _ => PatternKind::Wildcard,
        }
    }

    fn ctor_pattern(&mut self, children: Vec<Pair<'t, Rule>>) -> PatternKind {
        let mut children = children.into_iter();
        let Some(path) = children.next().map(|p| self.path(p)) else {
            return PatternKind::Wildcard;
        };
        let bindings = children
            .map(|binding| {
                let inner = self.children(binding).next()?;
                if inner.as_rule() == Rule::wildcard {
                    None
                } else {
                    Some(self.ident(inner))
                }
            })
            .collect();
        PatternKind::Ctor { path, bindings }
    }

    /// A `pat_value`: an optionally negated literal or path.
    fn pat_value(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        let mut negate = None;
        let mut value = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            if child.as_rule() == Rule::neg {
                negate = Some(span_of(&child));
            } else {
                value = Some(self.primary(child));
            }
        }
        let value = value.unwrap_or_else(|| self.mk_expr(ExprKind::Error, span));
        match negate {
            Some(_) => self.mk_expr(
                ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(value),
                },
                span,
            ),
            None => value,
        }
    }
}

fn error_type(span: Span) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Error,
        span,
    }
}
