//! Blocks and statements, including the `bad_*` statement mistakes.

use super::{span_of, Builder, Rule};
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use pest::iterators::Pair;

fn assign_op(text: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    match text {
        "+=" => Some(Add),
        "-=" => Some(Sub),
        "|+|=" => Some(SatAdd),
        "|-|=" => Some(SatSub),
        "*=" => Some(Mul),
        "/=" => Some(Div),
        "%=" => Some(Rem),
        "&=" => Some(BitAnd),
        "|=" => Some(BitOr),
        "^=" => Some(BitXor),
        "<<=" => Some(Shl),
        ">>=" => Some(Shr),
        _ => None,
    }
}

impl<'t> Builder<'t> {
    /// A `block` pair.
    pub(crate) fn block(&mut self, pair: Pair<'t, Rule>) -> Block {
        let span = span_of(&pair);
        let stmts = self.children(pair).map(|p| self.stmt(p)).collect();
        Block { stmts, span }
    }

    /// Any statement pair.
    pub(crate) fn stmt(&mut self, pair: Pair<'t, Rule>) -> Stmt {
        // `else if` chains nest one level per arm without brackets.
        crate::stack::grow(|| self.stmt_inner(pair))
    }

    fn stmt_inner(&mut self, pair: Pair<'t, Rule>) -> Stmt {
        let span = span_of(&pair);
        let rule = pair.as_rule();
        let kind = match rule {
            Rule::let_stmt => self.let_stmt(pair),
            Rule::if_stmt => self.if_stmt(pair),
            Rule::match_stmt => self.match_stmt(pair),
            Rule::for_stmt => self.for_stmt(pair),
            Rule::return_stmt => StmtKind::Return(self.children(pair).next().map(|e| self.expr(e))),
            Rule::restart_stmt => match self.children(pair).next() {
                Some(name) => StmtKind::Restart(self.ident(name)),
                None => StmtKind::Error,
            },
            Rule::block => StmtKind::Block(self.block(pair)),
            Rule::assign_stmt => self.assign(pair),
            Rule::expr_stmt => match self.children(pair).next() {
                Some(expr) => StmtKind::Expr(self.expr(expr)),
                None => StmtKind::Error,
            },
            Rule::bad_if_assign => self.bad_if_assign(pair),
            Rule::bad_elif => self.bad_elif(pair),
            Rule::bad_missing_semi => {
                let end = span.hi;
                let at = crate::span::Span { lo: end, hi: end };
                self.diags.push(
                    Diagnostic::new(codes::E0011, at, "expected `;` after this statement")
                        .label("add `;` here")
                        .secondary(span, "this statement"),
                );
                match self.children(pair).next() {
                    Some(expr) => StmtKind::Expr(self.expr(expr)),
                    None => StmtKind::Error,
                }
            }
            _ => StmtKind::Error,
        };
        Stmt { kind, span }
    }

    /// `elif cond { }`: reported (E0010) and kept as an `if`, so its body is still checked.
    fn bad_elif(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let mut parts = self.children(pair);
        let (Some(keyword), Some(cond), Some(block)) = (parts.next(), parts.next(), parts.next())
        else {
            return StmtKind::Error;
        };
        self.diags.push(
            Diagnostic::new(
                codes::E0010,
                span_of(&keyword),
                format!("`{}` is not a keyword", keyword.as_str()),
            )
            .label("unknown keyword")
            .help("write `} else if condition {`"),
        );
        StmtKind::If {
            cond: self.expr(cond),
            then_block: self.block(block),
            else_block: None,
        }
    }

    fn let_stmt(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let mut mutable = false;
        let mut name = None;
        let mut ty = None;
        let mut init = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::mut_kw => mutable = true,
                Rule::ty => ty = Some(self.ty(child)),
                Rule::expr => init = Some(self.expr(child)),
                _ => name = Some(self.ident(child)),
            }
        }
        match (name, init) {
            (Some(name), Some(init)) => StmtKind::Let {
                name,
                mutable,
                ty,
                init,
            },
            _ => StmtKind::Error,
        }
    }

    /// `if c { } else if d { } ... else { }`: the grammar gives the arms as a flat list; the AST
    /// nests them (each `else if` is an `if` in the `else` block), built from the last arm back so
    /// the builder never recurses once per arm.
    fn if_stmt(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let end = span_of(&pair).hi;
        let mut children = self.children(pair);
        let (Some(cond), Some(then_block)) = (children.next(), children.next()) else {
            return StmtKind::Error;
        };
        let cond = self.expr(cond);
        let then_block = self.block(then_block);
        let mut arms = Vec::new();
        let mut else_block = None;
        for other in children {
            if other.as_rule() == Rule::else_if {
                let start = other.as_span().start();
                let mut parts = self.children(other);
                if let (Some(c), Some(b)) = (parts.next(), parts.next()) {
                    arms.push((self.expr(c), self.block(b), start));
                }
            } else {
                else_block = Some(self.block(other));
            }
        }
        for (cond, then_block, start) in arms.into_iter().rev() {
            let span = crate::span::Span {
                lo: u32::try_from(start).unwrap_or(end),
                hi: end,
            };
            let stmt = Stmt {
                kind: StmtKind::If {
                    cond,
                    then_block,
                    else_block,
                },
                span,
            };
            else_block = Some(Block {
                stmts: vec![stmt],
                span,
            });
        }
        StmtKind::If {
            cond,
            then_block,
            else_block,
        }
    }

    fn bad_if_assign(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let mut children = self.children(pair);
        let (Some(lhs), Some(rhs), Some(block)) =
            (children.next(), children.next(), children.next())
        else {
            return StmtKind::Error;
        };
        let lhs = self.expr(lhs);
        let rhs = self.expr(rhs);
        let gap = &self.text[lhs.span.hi as usize..rhs.span.lo as usize];
        let eq = lhs.span.hi as usize + gap.find('=').unwrap_or(0);
        let between = crate::span::Span::new(eq, eq + 1);
        self.diags.push(
            Diagnostic::new(
                codes::E0008,
                between,
                "`=` assigns; conditions compare with `==`",
            )
            .label("assignment in a condition")
            .help(format!(
                "did you mean `if {} == {} {{`?",
                self.text[lhs.span.range()].trim(),
                self.text[rhs.span.range()].trim()
            )),
        );
        let _ = self.block(block);
        StmtKind::Error
    }

    fn match_stmt(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let mut children = self.children(pair);
        let Some(scrutinee) = children.next() else {
            return StmtKind::Error;
        };
        let scrutinee = self.expr(scrutinee);
        let arms = children.map(|arm| self.match_arm(arm)).collect();
        StmtKind::Match { scrutinee, arms }
    }

    fn match_arm(&mut self, pair: Pair<'t, Rule>) -> MatchArm {
        let span = span_of(&pair);
        let mut children = self.children(pair);
        let pattern = match children.next() {
            Some(p) => self.pattern(p),
            None => Pattern {
                kind: PatternKind::Wildcard,
                span,
            },
        };
        let body = match children.next().and_then(|b| self.children(b).next()) {
            Some(body) => self.arm_body(body),
            None => Block {
                stmts: Vec::new(),
                span,
            },
        };
        MatchArm {
            pattern,
            body,
            span,
        }
    }

    fn arm_body(&mut self, pair: Pair<'t, Rule>) -> Block {
        let span = span_of(&pair);
        match pair.as_rule() {
            Rule::block => self.block(pair),
            Rule::arm_return => {
                let value = self.children(pair).next().map(|e| self.expr(e));
                Block {
                    stmts: vec![Stmt {
                        kind: StmtKind::Return(value),
                        span,
                    }],
                    span,
                }
            }
            Rule::arm_simple => {
                let mut parts = self.children(pair);
                let kind = match (parts.next(), parts.next(), parts.next()) {
                    (Some(target), Some(op), Some(value)) => StmtKind::Assign {
                        target: self.expr(target),
                        op: assign_op(op.as_str()),
                        value: self.expr(value),
                    },
                    (Some(expr), _, _) => StmtKind::Expr(self.expr(expr)),
                    _ => StmtKind::Error,
                };
                Block {
                    stmts: vec![Stmt { kind, span }],
                    span,
                }
            }
            _ => {
                let stmt = self.stmt(pair);
                Block {
                    stmts: vec![stmt],
                    span,
                }
            }
        }
    }

    fn for_stmt(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let mut var = None;
        let mut bounds = Vec::new();
        let mut inclusive = false;
        let mut body = None;
        for child in self.children(pair).collect::<Vec<_>>() {
            match child.as_rule() {
                Rule::range_incl => inclusive = true,
                Rule::range_excl => inclusive = false,
                Rule::expr => bounds.push(self.expr(child)),
                Rule::block => body = Some(self.block(child)),
                _ => var = Some(self.ident(child)),
            }
        }
        let mut bounds = bounds.into_iter();
        match (var, bounds.next(), bounds.next(), body) {
            (Some(var), Some(start), Some(end), Some(body)) => StmtKind::For {
                var,
                start,
                end,
                inclusive,
                body,
            },
            _ => StmtKind::Error,
        }
    }

    fn assign(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let mut parts = self.children(pair);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(target), Some(op), Some(value)) => StmtKind::Assign {
                target: self.expr(target),
                op: assign_op(op.as_str()),
                value: self.expr(value),
            },
            _ => StmtKind::Error,
        }
    }
}
