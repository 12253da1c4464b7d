//! Compiling statements and blocks, and the scrutinees of `match` (shared with parser selects).
//!
//! A statement's closure evaluates its expressions, and only if none stopped performs its effect
//! and returns [`Flow::Next`]; a stopped evaluation returns [`Flow::Stop`] and the enclosing blocks
//! return at once. A `match` on a scalar or on a tuple of scalars matches compiled patterns
//! against the scrutinee's parts without building a tuple value.

use super::narrow::Narrow;
use super::{Block, Compiler, Flow, Scalar, Step, R};
use crate::context::Cx;
use crate::pattern::{self, Compiled, NarrowTest};
use crate::value::{width_of, Value};
use cranelift_entity::EntityRef;
use scenic_ir::body::{Block as IrBlock, Expr, Pattern, Stmt};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::types::Type;

/// A compiled scrutinee with its cases: the position of the first case with a matching pattern.
pub(crate) type Select = Box<dyn Fn(&mut Cx<'_>) -> R<Option<usize>> + Send + Sync>;

/// The most parts a tuple scrutinee may have to be matched as narrow values (more go through the
/// general code).
const MAX_NARROW_PARTS: usize = 8;

/// The flow of a statement whose evaluation gave `r`.
#[inline]
pub(crate) fn flow(r: R<()>) -> Flow {
    match r {
        Ok(()) => Flow::Next,
        Err(_) => Flow::Stop,
    }
}

/// Writes a scalar into a local's slot, reusing it.
#[inline]
pub(crate) fn set_scalar(slot: &mut Value, v: Bits) {
    match slot {
        Value::Bits(b) => *b = v,
        other => *other = Value::Bits(v),
    }
}

impl Compiler<'_> {
    /// Compiles a block (on a grown stack: blocks nest as deep as the program's statements do).
    pub fn block(&mut self, block: &IrBlock) -> Block {
        scenic_ir::stack::grow(|| Block(block.stmts.iter().map(|s| self.stmt(s)).collect()))
    }

    fn stmt(&mut self, stmt: &Stmt) -> Step {
        match stmt {
            // A `let` writes its local as an assignment does.
            Stmt::Let(local, value) => self.assign_local(local.index(), *value),
            Stmt::Assign(place, value) => self.assign(place, *value),
            Stmt::Eval(e) => {
                let run = self.eval(*e);
                Box::new(move |cx| flow(run(cx)))
            }
            Stmt::If(cond, then, otherwise) => self.if_(*cond, then, otherwise),
            Stmt::Switch { on, cases, default } => {
                let patterns: Vec<&[Pattern]> =
                    cases.iter().map(|c| c.patterns.as_slice()).collect();
                let select = self.select(*on, &patterns);
                let bodies: Vec<Block> = cases.iter().map(|c| self.block(&c.body)).collect();
                let default = self.block(default);
                Box::new(move |cx| match select(cx) {
                    Ok(Some(i)) => bodies.get(i).map_or(Flow::Next, |b| b.run(cx)),
                    Ok(None) => default.run(cx),
                    Err(_) => Flow::Stop,
                })
            }
            Stmt::For {
                var,
                first,
                last,
                body,
            } => {
                let width = self
                    .body
                    .locals
                    .get(*var)
                    .map_or(1, |l| width_of(&l.ty, self.module));
                let (slot, first, last, body) = (var.index(), *first, *last, self.block(body));
                Box::new(move |cx| {
                    for i in first..=last {
                        if let Some(s) = cx.local_mut(slot) {
                            set_scalar(s, Bits::from_i128(width, i128::from(i)));
                        }
                        match body.run(cx) {
                            Flow::Next => {}
                            other => return other,
                        }
                    }
                    Flow::Next
                })
            }
            Stmt::Return(value) => {
                let value = value.map(|e| self.value(e));
                Box::new(move |cx| {
                    let v = match &value {
                        Some(e) => match e(cx) {
                            Ok(v) => v,
                            Err(_) => return Flow::Stop,
                        },
                        None => Value::Unit,
                    };
                    cx.ret = v;
                    Flow::Return
                })
            }
            Stmt::Block(b) => {
                let b = self.block(b);
                Box::new(move |cx| b.run(cx))
            }
            Stmt::Drop => Box::new(|cx| {
                cx.effects.drop_packet();
                Flow::Stop
            }),
            other => self.effect(other),
        }
    }

    /// `if cond { then } else { otherwise }`.
    fn if_(&mut self, cond: ExprId, then: &IrBlock, otherwise: &IrBlock) -> Step {
        if else_if(otherwise).is_some() {
            return self.if_chain(cond, then, otherwise);
        }
        if self.is_narrow(cond) {
            let (cond, then, otherwise) =
                (self.narrow(cond), self.block(then), self.block(otherwise));
            return Box::new(move |cx| match cond(cx) {
                0 => otherwise.run(cx),
                _ => then.run(cx),
            });
        }
        let (cond, then, otherwise) = (self.scalar(cond), self.block(then), self.block(otherwise));
        Box::new(move |cx| match cond(cx) {
            Ok(c) if !c.is_zero() => then.run(cx),
            Ok(_) => otherwise.run(cx),
            Err(_) => Flow::Stop,
        })
    }

    /// `if c1 { } else if c2 { } ... else { }`: one step that tries the conditions in a loop, so
    /// that running (and compiling) a chain of N arms does not nest N calls.
    fn if_chain(&mut self, cond: ExprId, then: &IrBlock, otherwise: &IrBlock) -> Step {
        let mut arms = vec![(self.condition(cond), self.block(then))];
        let mut rest = otherwise;
        while let Some((c, t, o)) = else_if(rest) {
            arms.push((self.condition(c), self.block(t)));
            rest = o;
        }
        let last = self.block(rest);
        Box::new(move |cx| {
            for (cond, then) in &arms {
                match cond.holds(cx) {
                    Some(true) => return then.run(cx),
                    Some(false) => {}
                    None => return Flow::Stop,
                }
            }
            last.run(cx)
        })
    }

    fn condition(&mut self, cond: ExprId) -> Condition {
        if self.is_narrow(cond) {
            Condition::Narrow(self.narrow(cond))
        } else {
            Condition::Scalar(self.scalar(cond))
        }
    }

    /// An expression evaluated for its effects.
    pub fn eval(&mut self, e: ExprId) -> super::state::Run {
        if let Some(Expr::CallAction(a, args)) = self.body.exprs.get(e) {
            return self.call_action(*a, args);
        }
        if self.is_scalar(e) {
            let e = self.scalar(e);
            return Box::new(move |cx| e(cx).map(|_| ()));
        }
        let e = self.value(e);
        Box::new(move |cx| e(cx).map(|_| ()))
    }

    /// A scrutinee and the alternatives of each case.
    pub fn select(&mut self, on: ExprId, cases: &[&[Pattern]]) -> Select {
        let ty = self.ty(on).clone();
        let width = self.width(on);
        if self.is_scalar(on) && (1..=64).contains(&width) && !ty.is_signed() {
            let cases: Vec<Box<[NarrowTest]>> = cases
                .iter()
                .map(|ps| ps.iter().map(|p| NarrowTest::new(p, width)).collect())
                .collect();
            let position =
                move |v: u64| cases.iter().position(|ps| ps.iter().any(|p| p.matches(v)));
            if self.is_narrow(on) {
                let on = self.narrow(on);
                return Box::new(move |cx| Ok(position(on(cx))));
            }
            // A table application or a map read: it may stop, so it stays a `Scalar`.
            let on = self.scalar(on);
            return Box::new(move |cx| Ok(position(on(cx)?.to_u64())));
        }
        if self.is_scalar(on) {
            let (width, signed) = (width_of(&ty, self.module), ty.is_signed());
            let cases: Vec<Vec<Compiled>> = cases
                .iter()
                .map(|ps| ps.iter().map(|p| Compiled::new(p, width, signed)).collect())
                .collect();
            let on = self.scalar(on);
            return Box::new(move |cx| {
                let v = on(cx)?;
                Ok(cases.iter().position(|ps| ps.iter().any(|p| p.matches(&v))))
            });
        }
        if let (Some(Expr::Tuple(items)), Type::Tuple(tys)) = (self.body.exprs.get(on), &ty) {
            if tys.iter().all(super::is_scalar) {
                return self.select_tuple(items, tys, cases);
            }
        }
        let cases: Vec<Vec<Pattern>> = cases.iter().map(|ps| ps.to_vec()).collect();
        let on = self.value(on);
        Box::new(move |cx| {
            let v = on(cx)?;
            Ok(cases
                .iter()
                .position(|ps| ps.iter().any(|p| pattern::matches(p, &ty, &v))))
        })
    }

    /// A tuple of scalars: its parts are evaluated onto the scalar stack and matched part by
    /// part.
    fn select_tuple(&mut self, items: &[ExprId], tys: &[Type], cases: &[&[Pattern]]) -> Select {
        let narrow = items.len() <= MAX_NARROW_PARTS
            && items
                .iter()
                .zip(tys)
                .all(|(i, t)| self.is_narrow(*i) && !t.is_signed());
        if narrow {
            return self.select_narrow_tuple(items, cases);
        }
        let parts: Vec<_> = items.iter().map(|i| self.scalar(*i)).collect();
        let compile = |p: &Pattern| -> Option<Vec<Compiled>> {
            match p {
                Pattern::Any => Some(Vec::new()),
                Pattern::Tuple(ps) => Some(
                    ps.iter()
                        .zip(tys)
                        .map(|(p, t)| Compiled::new(p, width_of(t, self.module), t.is_signed()))
                        .collect(),
                ),
                _ => None,
            }
        };
        // `None`: a scalar pattern, which never matches a tuple.
        let cases: Vec<Vec<Option<Vec<Compiled>>>> = cases
            .iter()
            .map(|ps| ps.iter().map(compile).collect())
            .collect();
        Box::new(move |cx| {
            let start = cx.frames.scalars.len();
            for part in &parts {
                match part(cx) {
                    Ok(v) => cx.frames.scalars.push(v),
                    Err(halt) => {
                        cx.frames.scalars.truncate(start);
                        return Err(halt);
                    }
                }
            }
            let values = cx.frames.scalars.get(start..).unwrap_or(&[]);
            let found = cases.iter().position(|alternatives| {
                alternatives.iter().any(|alt| match alt {
                    Some(ps) => ps.iter().zip(values).all(|(p, v)| p.matches(v)),
                    None => false,
                })
            });
            cx.frames.scalars.truncate(start);
            Ok(found)
        })
    }

    /// A tuple of unsigned narrow scalars (`match (ip.ihl, ip.protocol)`): its parts are evaluated
    /// into an array on the machine stack and matched part by part.
    fn select_narrow_tuple(&mut self, items: &[ExprId], cases: &[&[Pattern]]) -> Select {
        let widths: Vec<u32> = items.iter().map(|i| self.width(*i)).collect();
        let parts: Vec<Narrow> = items.iter().map(|i| self.narrow(*i)).collect();
        // `None`: a scalar pattern, which never matches a tuple; `Some(empty)`: `_`.
        let compile = |p: &Pattern| -> Option<Box<[NarrowTest]>> {
            match p {
                Pattern::Any => Some(Box::new([])),
                Pattern::Tuple(ps) => Some(
                    ps.iter()
                        .zip(&widths)
                        .map(|(p, w)| NarrowTest::new(p, *w))
                        .collect(),
                ),
                _ => None,
            }
        };
        let cases: Vec<Vec<Option<Box<[NarrowTest]>>>> = cases
            .iter()
            .map(|ps| ps.iter().map(compile).collect())
            .collect();
        Box::new(move |cx| {
            let mut values = [0u64; MAX_NARROW_PARTS];
            for (v, part) in values.iter_mut().zip(&parts) {
                *v = part(cx);
            }
            let found = cases.iter().position(|alternatives| {
                alternatives.iter().any(|alt| match alt {
                    Some(ps) => ps.iter().zip(values).all(|(p, v)| p.matches(v)),
                    None => false,
                })
            });
            Ok(found)
        })
    }
}

/// The `if` that is the whole `else` block of another: an `else if` arm.
fn else_if(block: &IrBlock) -> Option<(ExprId, &IrBlock, &IrBlock)> {
    match block.stmts.as_slice() {
        [Stmt::If(cond, then, otherwise)] => Some((*cond, then, otherwise)),
        _ => None,
    }
}

/// The condition of an arm of an `if` chain.
enum Condition {
    Narrow(Narrow),
    Scalar(Scalar),
}

impl Condition {
    /// Whether it holds; `None` when its evaluation stopped the packet (a table or map access).
    fn holds(&self, cx: &mut Cx<'_>) -> Option<bool> {
        match self {
            Condition::Narrow(c) => Some(c(cx) != 0),
            Condition::Scalar(c) => c(cx).ok().map(|b| !b.is_zero()),
        }
    }
}
