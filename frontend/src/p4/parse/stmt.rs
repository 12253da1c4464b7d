//! Statements and blocks.

use super::{span_of, Builder, Rule};
use crate::diag::{codes, Diagnostic};
use crate::p4::ast::*;
use pest::iterators::Pair;

impl<'t> Builder<'t> {
    pub(super) fn block(&mut self, pair: Pair<'t, Rule>) -> Block {
        let span = span_of(&pair);
        let stmts = pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::stmt)
            .map(|s| self.stmt(s))
            .collect();
        Block { stmts, span }
    }

    pub(super) fn stmt(&mut self, pair: Pair<'t, Rule>) -> Stmt {
        let span = span_of(&pair);
        let Some(inner) = pair.into_inner().next() else {
            return Stmt {
                kind: StmtKind::Empty,
                span,
            };
        };
        let kind = match inner.as_rule() {
            Rule::block => StmtKind::Block(self.block(inner)),
            Rule::empty_stmt => StmtKind::Empty,
            Rule::if_stmt => self.if_stmt(inner),
            Rule::switch_stmt => self.switch_stmt(inner),
            Rule::return_stmt => StmtKind::Return(
                inner
                    .into_inner()
                    .find(|p| p.as_rule() == Rule::expr)
                    .map(|e| self.expr(e)),
            ),
            Rule::exit_stmt => StmtKind::Exit,
            Rule::const_decl => StmtKind::Const(self.const_decl(inner).1),
            Rule::var_decl => StmtKind::Var(self.var_decl(inner)),
            Rule::for_stmt => StmtKind::Unsupported("`for` loops"),
            Rule::loop_ctl_stmt => StmtKind::Unsupported("`break` and `continue`"),
            Rule::assign_or_call => {
                let mut it = inner.into_inner();
                let target = it.next();
                let tail = it.next().map(|t| t.into_inner());
                match (target, tail) {
                    (Some(lhs), Some(mut tail)) => {
                        let op = tail.next().and_then(|o| compound_op(o.as_str()));
                        match tail.next() {
                            Some(rhs) => self.assignment(lhs, op, rhs, span),
                            None => StmtKind::Empty,
                        }
                    }
                    (Some(e), None) => StmtKind::Call(self.expr(e)),
                    _ => StmtKind::Empty,
                }
            }
            _ => {
                let word = inner.as_str().split_whitespace().next().unwrap_or("");
                self.diags.push(
                    Diagnostic::new(
                        codes::E0701,
                        span,
                        format!("`{word}` cannot start a statement here"),
                    )
                    .label("not a statement")
                    .help(match word {
                        "transition" => "`transition` ends a parser state: it comes last, once",
                        "state" => "states are declared in a parser, after its local declarations",
                        "table" | "action" => {
                            "tables and actions are declared in a control, before `apply`"
                        }
                        _ => "see docs/p4.md for the statements the reader supports",
                    }),
                );
                StmtKind::Empty
            }
        };
        Stmt { kind, span }
    }

    /// `lhs = rhs`, or `lhs op= rhs` as `lhs = lhs op rhs` (P4_16 §12.1: `lhs` is evaluated
    /// once). Reading `lhs` twice is the same only without side effects, so an `lhs` holding a
    /// call (`h[f(x)].a += 1`) is refused here rather than evaluated twice. The second `lhs` is
    /// parsed again from its source so that every expression keeps its own id.
    fn assignment(
        &mut self,
        lhs: Pair<'t, Rule>,
        op: Option<BinOp>,
        rhs: Pair<'t, Rule>,
        span: crate::span::Span,
    ) -> StmtKind {
        let target = self.expr(lhs.clone());
        let value = self.expr(rhs);
        let Some(op) = op else {
            return StmtKind::Assign(target, value);
        };
        if lhs
            .clone()
            .into_inner()
            .flatten()
            .any(|p| p.as_rule() == Rule::call)
        {
            return StmtKind::Unsupported("compound assignments to an l-value with a call in it");
        }
        let read = self.expr(lhs);
        let children = [read.id, value.id];
        let combined = self.mk_expr(
            ExprKind::Binary(op, Box::new(read), Box::new(value)),
            span,
            &children,
        );
        StmtKind::Assign(target, combined)
    }

    fn if_stmt(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let span = span_of(&pair);
        let mut cond = None;
        let mut branches = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => cond = Some(self.expr(p)),
                Rule::stmt => branches.push(self.stmt(p)),
                _ => {}
            }
        }
        let cond = cond.unwrap_or_else(|| self.mk_expr(ExprKind::Error, span, &[]));
        let mut branches = branches.into_iter();
        let then = branches.next().unwrap_or(Stmt {
            kind: StmtKind::Empty,
            span,
        });
        let otherwise = branches.next().map(Box::new);
        StmtKind::If(cond, Box::new(then), otherwise)
    }

    fn switch_stmt(&mut self, pair: Pair<'t, Rule>) -> StmtKind {
        let span = span_of(&pair);
        let mut on = None;
        let mut cases = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => on = Some(self.expr(p)),
                Rule::switch_case => {
                    let case_span = span_of(&p);
                    let mut label = None;
                    let mut body = None;
                    for part in p.into_inner() {
                        match part.as_rule() {
                            Rule::switch_label => {
                                label = part
                                    .into_inner()
                                    .next()
                                    .filter(|l| l.as_rule() == Rule::expr)
                                    .map(|l| self.expr(l));
                            }
                            Rule::block => body = Some(self.block(part)),
                            _ => {}
                        }
                    }
                    cases.push(SwitchCase {
                        label,
                        body,
                        span: case_span,
                    });
                }
                _ => {}
            }
        }
        let on = on.unwrap_or_else(|| self.mk_expr(ExprKind::Error, span, &[]));
        StmtKind::Switch(on, cases)
    }
}

/// The operator of a compound assignment (`+=` → `+`), or `None` for a plain `=`.
fn compound_op(assign_op: &str) -> Option<BinOp> {
    Some(match assign_op.strip_suffix('=')? {
        "" => return None,
        "|+|" => BinOp::SatAdd,
        "|-|" => BinOp::SatSub,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Mod,
        "&" => BinOp::BitAnd,
        "^" => BinOp::BitXor,
        _ => BinOp::BitOr,
    })
}
