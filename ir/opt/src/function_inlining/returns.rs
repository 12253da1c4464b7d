//! Preparing a callee for inlining: its `return`s become assignments to a result local, so that
//! its code can run in the middle of a caller's block.
//!
//! First the returns are moved to tail positions where possible: `if c { return a; } rest`
//! becomes `if c { return a; } else { rest }` (the rest of a block moves into the only branch that
//! does not always end). When every `return` ends the function that way, `return e` becomes
//! `result = e` (a plain `let result = e` when it is the only one and ends the function) and
//! `return` disappears. Otherwise (a return inside a loop, or in a branch both of whose sides go
//! on) a `returned` flag guards everything after each statement that may return.
//!
//! A function that may end without a return yields zero, as in the interpreter, so the result
//! local starts as the zero value of the return type whenever it is not simply the last `let`.
//! Header values have no zero expression: such functions are inlined only in the simple case.

use cranelift_entity::PrimaryMap;
use scenic_ir::body::{Block, Body, Case, Expr, Place, Stmt, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::program::{Function, StructLayout};
use scenic_ir::span::Span;
use scenic_ir::types::{Const, Type};
use std::collections::HashSet;

/// Statements with their spans.
type Stmts = Vec<(Stmt, Span)>;

/// A callee ready to be copied into callers.
#[derive(Clone, Debug, Default)]
pub(super) struct Prepared {
    /// The callee's body, returns rewritten; `params` are bound by the caller with `let`s.
    pub(super) body: Body,
    /// The local holding the result, for functions that return a value.
    pub(super) result: Option<LocalId>,
    /// The locals the callee assigns (parameters among them cannot be replaced by arguments).
    pub(super) assigned: HashSet<LocalId>,
    /// The callee has no effect outside its own locals (it may read state, never change it).
    pub(super) effect_free: bool,
}

/// The deepest nesting of structs and arrays a zero value is built for.
const MAX_ZERO_DEPTH: u32 = 32;

/// Prepares `func`; `None` when it cannot be inlined (a header result that needs a zero value).
pub(super) fn prepare(
    func: &Function,
    structs: &PrimaryMap<StructId, StructLayout>,
) -> Option<Prepared> {
    let mut body = func.body.clone();
    let block = std::mem::take(&mut body.block);
    let span = func.span;
    let result = (func.ret != Type::Unit)
        .then(|| body.local(format!("{}.result", func.name), func.ret.clone(), true));
    let mut result = result;
    let stmts = pairs(block);
    let out = match normalize(stmts.clone()) {
        Some(mut stmts) if simple_tail(&stmts, result.is_some()) => {
            if let Some(l) = tail_local(&body, &mut stmts) {
                result = Some(l);
            }
            tail_let(stmts, result)
        }
        Some(stmts) => {
            let mut out = init(&mut body, result, &func.ret, structs, span)?;
            out.extend(assign_returns(stmts, result));
            out
        }
        None => {
            let flag = body.local(format!("{}.returned", func.name), Type::Bool, true);
            let falsity = body.add(Expr::Const(Const::zero()), Type::Bool, span);
            let mut out = vec![(Stmt::Let(flag, falsity), span)];
            out.extend(init(&mut body, result, &func.ret, structs, span)?);
            out.extend(
                Guard {
                    body: &mut body,
                    flag,
                    result,
                    span,
                }
                .stmts(stmts),
            );
            out
        }
    };
    body.block = block_of(out);
    let mut assigned = HashSet::new();
    scenic_ir::proc::walk::visit_stmts(&body.block, &mut |s| {
        if let Stmt::Assign(p, _) = s {
            assigned.extend(scenic_ir::proc::walk::place_local(p));
        }
    });
    let effect_free = effect_free(&body);
    Some(Prepared {
        body,
        result,
        assigned,
        effect_free,
    })
}

/// Whether a body only computes: its statements write nothing but its locals, and its
/// expressions have no effect.
fn effect_free(body: &Body) -> bool {
    use scenic_ir::proc::walk::{purity, stmt_roots, visit_stmts};
    let pure = purity(body);
    let mut ok = true;
    visit_stmts(&body.block, &mut |s| {
        let kind_ok = match s {
            Stmt::Let(..)
            | Stmt::Eval(_)
            | Stmt::If(..)
            | Stmt::Switch { .. }
            | Stmt::For { .. }
            | Stmt::Return(_)
            | Stmt::Block(_) => true,
            Stmt::Assign(p, _) => scenic_ir::proc::walk::place_local(p).is_some(),
            _ => false,
        };
        ok &= kind_ok && stmt_roots(s).iter().all(|e| pure[*e]);
    });
    ok
}

fn pairs(b: Block) -> Stmts {
    scenic_ir::proc::walk::pairs(b)
}

fn block_of(stmts: Stmts) -> Block {
    let mut b = Block::default();
    for (s, span) in stmts {
        b.push(s, span);
    }
    b
}

/// Whether a statement contains a `return` (at any depth).
fn has_return(s: &Stmt) -> bool {
    matches!(s, Stmt::Return(_))
        || scenic_ir::proc::walk::child_blocks(s)
            .iter()
            .any(|b| b.stmts.iter().any(has_return))
}

/// Whether a block always ends with a `return` or `drop` (on every path through it).
fn always_ends(stmts: &[(Stmt, Span)]) -> bool {
    stmts.last().is_some_and(|(s, _)| ends(s))
}

fn ends(s: &Stmt) -> bool {
    match s {
        Stmt::Return(_) | Stmt::Drop => true,
        Stmt::If(..) | Stmt::Switch { .. } | Stmt::Block(_) => {
            scenic_ir::proc::walk::child_blocks(s)
                .iter()
                .all(|b| b.stmts.last().is_some_and(ends))
        }
        _ => false,
    }
}

/// Moves every `return` to a tail position; `None` when that needs duplicating code.
fn normalize(stmts: Stmts) -> Option<Stmts> {
    scenic_ir::stack::grow(|| {
        let mut out = Vec::new();
        let mut iter = stmts.into_iter();
        while let Some((s, span)) = iter.next() {
            if !has_return(&s) {
                out.push((s, span));
                continue;
            }
            let rest: Stmts = iter.collect();
            match s {
                Stmt::Return(_) => out.push((s, span)),
                Stmt::Block(b) => {
                    let mut inner = pairs(b);
                    inner.extend(rest);
                    out.extend(normalize(inner)?);
                }
                Stmt::If(c, t, e) => {
                    let mut branches = vec![normalize(pairs(t))?, normalize(pairs(e))?];
                    push_rest(&mut branches, rest)?;
                    let e = branches.pop().map(block_of).unwrap_or_default();
                    let t = branches.pop().map(block_of).unwrap_or_default();
                    out.push((Stmt::If(c, t, e), span));
                }
                Stmt::Switch { on, cases, default } => {
                    let mut branches = cases
                        .iter()
                        .map(|c| normalize(pairs(c.body.clone())))
                        .chain(std::iter::once(normalize(pairs(default))))
                        .collect::<Option<Vec<_>>>()?;
                    push_rest(&mut branches, rest)?;
                    let default = branches.pop().map(block_of).unwrap_or_default();
                    let cases = cases
                        .into_iter()
                        .zip(branches)
                        .map(|(c, b)| Case {
                            patterns: c.patterns,
                            body: block_of(b),
                        })
                        .collect();
                    out.push((Stmt::Switch { on, cases, default }, span));
                }
                _ => return None,
            }
            return Some(out);
        }
        Some(out)
    })
}

/// Appends `rest` to the only branch that does not always end (dropping it when all end).
fn push_rest(branches: &mut [Stmts], rest: Stmts) -> Option<()> {
    if rest.is_empty() {
        return Some(());
    }
    let mut open = branches.iter_mut().filter(|b| !always_ends(b));
    match (open.next(), open.next()) {
        (None, _) => Some(()),
        (Some(branch), None) => {
            let mut joined = std::mem::take(branch);
            joined.extend(rest);
            *branch = normalize(joined)?;
            Some(())
        }
        (Some(_), Some(_)) => None,
    }
}

/// Whether no zero value is needed: the only `return` is the last statement (and gives the
/// result), or there is no return and no result.
fn simple_tail(stmts: &[(Stmt, Span)], has_result: bool) -> bool {
    let returns = stmts.iter().filter(|(s, _)| has_return(s)).count();
    match stmts.last() {
        Some((Stmt::Return(value), _)) => returns == 1 && value.is_some() == has_result,
        _ => returns == 0 && !has_result,
    }
}

/// When the function ends with `return l` for a local `l` of its own (not a parameter), that
/// return is removed and `l` is the result: no copy into a separate result local.
fn tail_local(body: &Body, stmts: &mut Stmts) -> Option<LocalId> {
    let Some((Stmt::Return(Some(e)), _)) = stmts.last() else {
        return None;
    };
    let Some(Expr::Local(l)) = body.exprs.get(*e) else {
        return None;
    };
    if body.params.contains(l) {
        return None;
    }
    let l = *l;
    stmts.pop();
    Some(l)
}

/// The simple case: `return e` at the end becomes `let result = e`.
fn tail_let(mut stmts: Stmts, result: Option<LocalId>) -> Stmts {
    if let Some((Stmt::Return(value), span)) = stmts.last().cloned() {
        stmts.pop();
        if let (Some(r), Some(v)) = (result, value) {
            stmts.push((Stmt::Let(r, v), span));
        }
    }
    stmts
}

/// `let result = <zero>` for functions that return a value.
fn init(
    body: &mut Body,
    result: Option<LocalId>,
    ty: &Type,
    structs: &PrimaryMap<StructId, StructLayout>,
    span: Span,
) -> Option<Stmts> {
    let Some(r) = result else {
        return Some(Vec::new());
    };
    let zero = zero(body, ty, structs, span, 0)?;
    Some(vec![(Stmt::Let(r, zero), span)])
}

/// An expression for the zero value of `ty` (all fields zero), if there is one.
fn zero(
    body: &mut Body,
    ty: &Type,
    structs: &PrimaryMap<StructId, StructLayout>,
    span: Span,
    depth: u32,
) -> Option<ExprId> {
    if depth > MAX_ZERO_DEPTH {
        return None;
    }
    let parts = |tys: Vec<Type>, body: &mut Body| {
        tys.iter()
            .map(|t| zero(body, t, structs, span, depth + 1))
            .collect::<Option<Vec<_>>>()
    };
    let e = match ty {
        Type::Header(_) | Type::Unit => return None,
        Type::Struct(s) => {
            let fields = structs
                .get(*s)?
                .fields
                .iter()
                .map(|f| f.ty.clone())
                .collect();
            Expr::StructLit(parts(fields, body)?)
        }
        Type::Array(elem, n) if *n <= 4096 => {
            Expr::ArrayLit(parts(vec![(**elem).clone(); *n as usize], body)?)
        }
        Type::Array(..) => return None,
        Type::Tuple(items) => Expr::Tuple(parts(items.clone(), body)?),
        _ => Expr::Const(Const::zero()),
    };
    Some(body.add(e, ty.clone(), span))
}

/// Tail returns become assignments to the result (`return;` disappears).
fn assign_returns(stmts: Stmts, result: Option<LocalId>) -> Stmts {
    scenic_ir::stack::grow(|| {
        let mut out = Vec::new();
        for (mut s, span) in stmts {
            match s {
                Stmt::Return(Some(v)) => {
                    if let Some(r) = result {
                        out.push((Stmt::Assign(Place::Local(r), v), span));
                    }
                }
                Stmt::Return(None) => {}
                _ => {
                    for child in scenic_ir::proc::walk::child_blocks_mut(&mut s) {
                        *child = block_of(assign_returns(pairs(std::mem::take(child)), result));
                    }
                    out.push((s, span));
                }
            }
        }
        out
    })
}

/// The general case: a flag records that the function returned, and guards what follows.
struct Guard<'a> {
    body: &'a mut Body,
    flag: LocalId,
    result: Option<LocalId>,
    span: Span,
}

impl Guard<'_> {
    /// `!returned`.
    fn not_returned(&mut self) -> ExprId {
        let read = self.body.add(Expr::Local(self.flag), Type::Bool, self.span);
        self.body
            .add(Expr::Unary(UnaryOp::Not, read), Type::Bool, self.span)
    }

    fn block(&mut self, b: Block) -> Block {
        block_of(self.stmts(pairs(b)))
    }

    fn stmts(&mut self, stmts: Stmts) -> Stmts {
        scenic_ir::stack::grow(|| {
            let mut out = Vec::new();
            let mut iter = stmts.into_iter();
            while let Some((s, span)) = iter.next() {
                if !has_return(&s) {
                    out.push((s, span));
                    continue;
                }
                let s = match s {
                    Stmt::Return(value) => {
                        if let (Some(r), Some(v)) = (self.result, value) {
                            out.push((Stmt::Assign(Place::Local(r), v), span));
                        }
                        let truth =
                            self.body
                                .add(Expr::Const(Const::from_u64(1)), Type::Bool, span);
                        out.push((Stmt::Assign(Place::Local(self.flag), truth), span));
                        return out;
                    }
                    Stmt::For {
                        var,
                        first,
                        last,
                        body,
                    } => {
                        let guarded = self.block(body);
                        let cond = self.not_returned();
                        let mut inner = Block::default();
                        inner.push(Stmt::If(cond, guarded, Block::default()), span);
                        Stmt::For {
                            var,
                            first,
                            last,
                            body: inner,
                        }
                    }
                    mut other => {
                        for child in scenic_ir::proc::walk::child_blocks_mut(&mut other) {
                            *child = self.block(std::mem::take(child));
                        }
                        other
                    }
                };
                out.push((s, span));
                let rest: Stmts = iter.collect();
                if !rest.is_empty() {
                    let guarded = block_of(self.stmts(rest));
                    let cond = self.not_returned();
                    out.push((Stmt::If(cond, guarded, Block::default()), span));
                }
                return out;
            }
            out
        })
    }
}
