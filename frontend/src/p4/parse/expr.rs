//! Expressions, literals, arguments and types.

use super::{span_of, Builder, Rule};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use crate::span::Span;
use num_bigint::BigInt;
use num_traits::Num;
use pest::iterators::Pair;

impl<'t> Builder<'t> {
    /// An expression at any precedence level.
    pub(super) fn expr(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::expr | Rule::paren => match pair.into_inner().next() {
                Some(inner) => self.expr(inner),
                None => self.mk_expr(ExprKind::Error, span, &[]),
            },
            Rule::ternary => {
                let mut it = pair.into_inner();
                let Some(cond) = it.next().map(|c| self.expr(c)) else {
                    return self.mk_expr(ExprKind::Error, span, &[]);
                };
                match (it.next(), it.next()) {
                    (Some(a), Some(b)) => {
                        let (a, b) = (self.expr(a), self.expr(b));
                        let ids = [cond.id, a.id, b.id];
                        let kind = ExprKind::Ternary(Box::new(cond), Box::new(a), Box::new(b));
                        self.mk_expr(kind, span, &ids)
                    }
                    _ => cond,
                }
            }
            Rule::lor
            | Rule::land
            | Rule::eq
            | Rule::rel
            | Rule::bor
            | Rule::bxor
            | Rule::band
            | Rule::shift
            | Rule::additive
            | Rule::mult => self.binary_chain(pair),
            Rule::unary => self.unary(pair),
            Rule::postfix => self.postfix(pair),
            Rule::primary => match pair.into_inner().next() {
                Some(inner) => self.primary(inner),
                None => self.mk_expr(ExprKind::Error, span, &[]),
            },
            _ => self.primary(pair),
        }
    }

    pub(super) fn expr_list(&mut self, pair: Pair<'t, Rule>) -> Vec<Expr> {
        pair.into_inner().map(|e| self.expr(e)).collect()
    }

    /// `a op b op c ...`, left-associative.
    fn binary_chain(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let Some(first) = it.next() else {
            return self.mk_expr(ExprKind::Error, span, &[]);
        };
        let mut lhs = self.expr(first);
        while let (Some(op), Some(rhs)) = (it.next(), it.next()) {
            let rhs = self.expr(rhs);
            let op = bin_op(op.as_rule());
            let span = lhs.span.to(rhs.span);
            let ids = [lhs.id, rhs.id];
            lhs = self.mk_expr(
                ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
                &ids,
            );
        }
        lhs
    }

    fn unary(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let Some(first) = it.next() else {
            return self.mk_expr(ExprKind::Error, span, &[]);
        };
        match first.as_rule() {
            Rule::cast => {
                let mut parts = first.into_inner();
                let ty = parts.next().map(|t| self.cast_ty(t));
                let operand = parts.next().map(|e| self.expr(e));
                match (ty, operand) {
                    (Some(ty), Some(e)) => {
                        let ids = [e.id];
                        self.mk_expr(ExprKind::Cast(ty, Box::new(e)), span, &ids)
                    }
                    _ => self.mk_expr(ExprKind::Error, span, &[]),
                }
            }
            Rule::prefix_op => {
                let op = match first.as_str() {
                    "!" => UnOp::Not,
                    "~" => UnOp::BitNot,
                    "-" => UnOp::Neg,
                    _ => UnOp::Plus,
                };
                let Some(operand) = it.next().map(|e| self.expr(e)) else {
                    return self.mk_expr(ExprKind::Error, span, &[]);
                };
                let ids = [operand.id];
                self.mk_expr(ExprKind::Unary(op, Box::new(operand)), span, &ids)
            }
            _ => self.expr(first),
        }
    }

    /// The type of a cast (`builtin_ty` or `named_ty`).
    fn cast_ty(&mut self, pair: Pair<'t, Rule>) -> Type {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::builtin_ty => match pair.into_inner().next() {
                Some(inner) => self.base_ty(inner),
                None => Type {
                    kind: TypeKind::DontCare,
                    span,
                },
            },
            _ => self.base_ty(pair),
        }
    }

    fn postfix(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let mut it = pair.into_inner();
        let Some(first) = it.next() else {
            return self.mk_expr(ExprKind::Error, Span::default(), &[]);
        };
        let mut base = self.expr(first);
        for op in it {
            let Some(op) = op.into_inner().next() else {
                continue;
            };
            let span = base.span.to(span_of(&op));
            base = match op.as_rule() {
                Rule::member => {
                    let name = op
                        .into_inner()
                        .next()
                        .map(|n| self.ident(&n))
                        .unwrap_or(Ident {
                            name: String::new(),
                            span,
                        });
                    let ids = [base.id];
                    self.mk_expr(ExprKind::Member(Box::new(base), name), span, &ids)
                }
                Rule::slice => {
                    let mut parts = op.into_inner();
                    let hi = parts.next().map(|e| self.expr(e));
                    let lo = parts.next().map(|e| self.expr(e));
                    match (hi, lo) {
                        (Some(hi), Some(lo)) => {
                            let ids = [base.id, hi.id, lo.id];
                            let kind = ExprKind::Slice(Box::new(base), Box::new(hi), Box::new(lo));
                            self.mk_expr(kind, span, &ids)
                        }
                        _ => self.mk_expr(ExprKind::Error, span, &[]),
                    }
                }
                Rule::index => match op.into_inner().next().map(|e| self.expr(e)) {
                    Some(index) => {
                        let ids = [base.id, index.id];
                        self.mk_expr(ExprKind::Index(Box::new(base), Box::new(index)), span, &ids)
                    }
                    None => self.mk_expr(ExprKind::Error, span, &[]),
                },
                _ => self.call(base, op, span),
            };
        }
        base
    }

    fn call(&mut self, callee: Expr, op: Pair<'t, Rule>, span: Span) -> Expr {
        let mut type_args = Vec::new();
        let mut args = Vec::new();
        for p in op.into_inner() {
            match p.as_rule() {
                Rule::type_args => type_args = self.type_args(p),
                Rule::args => args = self.args(p),
                _ => {}
            }
        }
        let mut ids = vec![callee.id];
        ids.extend(args.iter().filter_map(|a| match a {
            Arg::Expr(e) | Arg::Named(_, e) => Some(e.id),
            Arg::DontCare(_) => None,
        }));
        let kind = ExprKind::Call {
            callee: Box::new(callee),
            type_args,
            args,
        };
        self.mk_expr(kind, span, &ids)
    }

    pub(super) fn args(&mut self, pair: Pair<'t, Rule>) -> Vec<Arg> {
        pair.into_inner()
            .filter_map(|a| a.into_inner().next())
            .map(|a| match a.as_rule() {
                Rule::dont_care => Arg::DontCare(span_of(&a)),
                Rule::named_arg => {
                    let span = span_of(&a);
                    let mut parts = a.into_inner();
                    let name = parts.next().map(|n| self.ident(&n));
                    let value = parts.next().map(|e| self.expr(e));
                    match (name, value) {
                        (Some(n), Some(v)) => Arg::Named(n, v),
                        _ => Arg::DontCare(span),
                    }
                }
                _ => Arg::Expr(self.expr(a)),
            })
            .collect()
    }

    fn primary(&mut self, pair: Pair<'t, Rule>) -> Expr {
        let span = span_of(&pair);
        let kind = match pair.as_rule() {
            Rule::int_lit => self.int_lit(pair.as_str(), span),
            Rule::bad_int => {
                self.diags.push(
                    Diagnostic::new(
                        codes::E0701,
                        span,
                        format!("malformed number `{}`", pair.as_str()),
                    )
                    .label("not a P4 integer literal")
                    .note("P4 integers are written `42`, `0x2a`, `0b101010`, `0o52`, with an optional width: `8w42`, `8s-1` is `-8s1`"),
                );
                ExprKind::Error
            }
            Rule::kw_true => ExprKind::Bool(true),
            Rule::kw_false => ExprKind::Bool(false),
            Rule::string_lit => {
                let s = pair.as_str();
                ExprKind::Str(
                    s.get(1..s.len().saturating_sub(1))
                        .unwrap_or("")
                        .to_string(),
                )
            }
            Rule::error_member => {
                let name = pair
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::member_name)
                    .map(|n| self.ident(&n));
                name.map_or(ExprKind::Error, ExprKind::ErrorMember)
            }
            Rule::list_expr => return self.list_expr(pair, span),
            Rule::paren => return self.expr(pair),
            Rule::dot_ident | Rule::ident => ExprKind::Name(self.ident(&pair)),
            Rule::this_expr => ExprKind::This,
            Rule::bad_keyword_ident => {
                self.diags.push(
                    Diagnostic::new(
                        codes::E0701,
                        span,
                        format!("expected an expression, found keyword `{}`", pair.as_str()),
                    )
                    .label("a keyword cannot start an expression here"),
                );
                ExprKind::Error
            }
            _ => return self.expr(pair),
        };
        self.mk_expr(kind, span, &[])
    }

    fn list_expr(&mut self, pair: Pair<'t, Rule>, span: Span) -> Expr {
        let Some(inner) = pair.into_inner().next() else {
            return self.mk_expr(ExprKind::List(Vec::new()), span, &[]);
        };
        if inner.as_rule() == Rule::kv_list {
            let mut fields = Vec::new();
            for kv in inner.into_inner() {
                let mut parts = kv.into_inner();
                let name = parts.next().map(|n| self.ident(&n));
                let value = parts.next().map(|e| self.expr(e));
                if let (Some(n), Some(v)) = (name, value) {
                    fields.push((n, v));
                }
            }
            let ids: Vec<ExprId> = fields.iter().map(|(_, e)| e.id).collect();
            return self.mk_expr(ExprKind::StructInit(fields), span, &ids);
        }
        let items = self.expr_list(inner);
        let ids: Vec<ExprId> = items.iter().map(|e| e.id).collect();
        self.mk_expr(ExprKind::List(items), span, &ids)
    }

    /// Reads `[W(w|s)]body`.
    fn int_lit(&mut self, text: &str, span: Span) -> ExprKind {
        let (width, body) = split_width(text);
        let width = match width {
            Some((w, signed)) => match w.parse::<u32>() {
                Ok(w) if w > 0 || !signed => Some((w, signed)),
                _ => {
                    self.diags.push(
                        Diagnostic::new(codes::E0701, span, format!("bad width in `{text}`"))
                            .label("the width must be a positive number"),
                    );
                    return ExprKind::Error;
                }
            },
            None => None,
        };
        match parse_int_body(body) {
            Some(value) => ExprKind::Int { value, width },
            None => {
                self.diags.push(
                    Diagnostic::new(codes::E0701, span, format!("malformed number `{text}`"))
                        .label("not a P4 integer literal"),
                );
                ExprKind::Error
            }
        }
    }

    /// A type (`ty` rule: a base type and stack sizes).
    pub(super) fn ty(&mut self, pair: Pair<'t, Rule>) -> Type {
        let span = span_of(&pair);
        let mut it = pair.into_inner();
        let Some(base) = it.next() else {
            return Type {
                kind: TypeKind::DontCare,
                span,
            };
        };
        let mut ty = match base.into_inner().next() {
            Some(b) => self.base_ty(b),
            None => Type {
                kind: TypeKind::DontCare,
                span,
            },
        };
        for suffix in it {
            if let Some(size) = suffix.into_inner().next() {
                let size = self.expr(size);
                ty = Type {
                    kind: TypeKind::Stack(Box::new(ty), Box::new(size)),
                    span,
                };
            }
        }
        ty
    }

    fn base_ty(&mut self, pair: Pair<'t, Rule>) -> Type {
        let span = span_of(&pair);
        let kind = match pair.as_rule() {
            Rule::bit_ty => {
                let width = pair
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::width)
                    .map(|w| self.width(w))
                    .unwrap_or(Width::Lit(1, span));
                TypeKind::Bit(Box::new(width))
            }
            Rule::int_ty => {
                let width = pair
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::width)
                    .map(|w| Box::new(self.width(w)));
                TypeKind::Int(width)
            }
            Rule::varbit_ty => TypeKind::Varbit,
            Rule::kw_bool => TypeKind::Bool,
            Rule::kw_error => TypeKind::Error,
            Rule::kw_match_kind => TypeKind::MatchKind,
            Rule::kw_string => TypeKind::String,
            Rule::kw_void => TypeKind::Void,
            Rule::dont_care => TypeKind::DontCare,
            Rule::tuple_ty | Rule::list_ty => TypeKind::Tuple(
                pair.into_inner()
                    .filter(|p| p.as_rule() == Rule::ty)
                    .map(|t| self.ty(t))
                    .collect(),
            ),
            Rule::named_ty => {
                let mut name = Ident {
                    name: String::new(),
                    span,
                };
                let mut args = Vec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::dotted_name => name = self.ident(&p),
                        Rule::type_args => args = self.type_args(p),
                        _ => {}
                    }
                }
                TypeKind::Named(name, args)
            }
            _ => TypeKind::DontCare,
        };
        Type { kind, span }
    }

    fn type_args(&mut self, pair: Pair<'t, Rule>) -> Vec<Type> {
        pair.into_inner()
            .filter_map(|a| a.into_inner().next())
            .map(|t| self.ty(t))
            .collect()
    }

    fn width(&mut self, pair: Pair<'t, Rule>) -> Width {
        let span = span_of(&pair);
        let Some(inner) = pair.into_inner().next() else {
            return Width::Lit(0, span);
        };
        match inner.as_rule() {
            Rule::int_lit => {
                let text = inner.as_str();
                match split_width(text) {
                    (None, body) => {
                        match parse_int_body(body).and_then(|v| u32::try_from(v).ok()) {
                            Some(w) => Width::Lit(w, span),
                            None => Width::Expr(self.primary(inner)),
                        }
                    }
                    _ => Width::Expr(self.primary(inner)),
                }
            }
            Rule::name => {
                let id = self.name(inner);
                Width::Expr(self.mk_expr(ExprKind::Name(id), span, &[]))
            }
            _ => Width::Expr(self.expr(inner)),
        }
    }
}

/// Splits `8w5` into `(Some(("8", false)), "5")`.
fn split_width(text: &str) -> (Option<(&str, bool)>, &str) {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    match text.as_bytes().get(digits) {
        Some(b'w') if digits > 0 => (Some((&text[..digits], false)), &text[digits + 1..]),
        Some(b's') if digits > 0 => (Some((&text[..digits], true)), &text[digits + 1..]),
        _ => (None, text),
    }
}

/// The value of an integer literal's digits (with base prefix and `_` separators).
fn parse_int_body(body: &str) -> Option<BigInt> {
    let clean: String = body.chars().filter(|c| *c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let (radix, digits) = match lower.get(..2) {
        Some("0x") => (16, &lower[2..]),
        Some("0b") => (2, &lower[2..]),
        Some("0o") => (8, &lower[2..]),
        Some("0d") => (10, &lower[2..]),
        _ => (10, lower.as_str()),
    };
    if digits.is_empty() {
        return None;
    }
    BigInt::from_str_radix(digits, radix).ok()
}

fn bin_op(rule: Rule) -> BinOp {
    match rule {
        Rule::op_lor => BinOp::Or,
        Rule::op_land => BinOp::And,
        Rule::op_eq => BinOp::Eq,
        Rule::op_ne => BinOp::Ne,
        Rule::op_le => BinOp::Le,
        Rule::op_ge => BinOp::Ge,
        Rule::op_lt => BinOp::Lt,
        Rule::op_gt => BinOp::Gt,
        Rule::op_bor => BinOp::BitOr,
        Rule::op_bxor => BinOp::BitXor,
        Rule::op_band => BinOp::BitAnd,
        Rule::op_shl => BinOp::Shl,
        Rule::op_shr => BinOp::Shr,
        Rule::op_concat => BinOp::Concat,
        Rule::op_sat_add => BinOp::SatAdd,
        Rule::op_sat_sub => BinOp::SatSub,
        Rule::op_add => BinOp::Add,
        Rule::op_sub => BinOp::Sub,
        Rule::op_mul => BinOp::Mul,
        Rule::op_div => BinOp::Div,
        _ => BinOp::Mod,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_read_width_and_base() {
        assert_eq!(split_width("8w0x1F"), (Some(("8", false)), "0x1F"));
        assert_eq!(split_width("16s5"), (Some(("16", true)), "5"));
        assert_eq!(split_width("0x10"), (None, "0x10"));
        assert_eq!(parse_int_body("0x1F"), Some(BigInt::from(31)));
        assert_eq!(parse_int_body("0b1_01"), Some(BigInt::from(5)));
        assert_eq!(parse_int_body("0x"), None);
    }
}
