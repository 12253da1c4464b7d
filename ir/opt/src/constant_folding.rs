//! `constant-folding`: computes at compile time what only depends on constants.
//!
//! Values are computed with the interpreter's own operators ([`scenic_ir::proc::ops`]) and
//! intrinsics ([`scenic_ir::proc::intrinsics`]), on the widths the interpreter gives types, so a
//! folded constant is exactly the value execution would have produced. The pass folds:
//!
//! - unary and binary operators, casts, slices, concatenations and intrinsics whose operands are
//!   all constants; a cast to the operand's own type becomes the operand; an operation with its
//!   neutral element (`x + 0`, `x ^ 0`, `x << 0`, `x & ~0`, `x * 1` on integers...) becomes the
//!   other operand;
//! - `SliceDyn` with a constant `lo` into a `Slice` (the form unrolled loops leave behind);
//! - `&&` and `||` with a constant operand: `false && x` is `false` (x is never evaluated),
//!   `true && x` is `x`, `x && true` is `x`, and `x && false` is `false` when `x` has no effect
//!   (and dually for `||`);
//! - reads of a local that is declared once, by a `let` of a constant, and never assigned;
//! - `if` on a constant into the branch taken, `match` on a constant (or a tuple of constants)
//!   into the arm taken, and a parser `select` on a constant into a direct transition.
//!
//! It iterates until nothing more folds, then compacts what it changed. Statements made useless
//! (the `let` of a propagated constant) are left to `dead-code-elimination`.

use super::{Pass, PassResult};
use cranelift_entity::{EntityRef, SecondaryMap};
use scenic_ir::body::{BinaryOp, Block, Body, Expr, Intrinsic, Pattern, Stmt};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::compact::compact_code;
use scenic_ir::proc::walk::{
    for_each_code, map_refs, place_local, purity, visit_stmts, CodeMut, Widths,
};
use scenic_ir::proc::{intrinsics, ops, pattern};
use scenic_ir::program::{Module, Parser, Target, Transition};
use scenic_ir::types::{Const, Type};

/// The most rounds of folding and propagation per body (each round folds at least one thing).
const MAX_ROUNDS: usize = 64;

/// The `constant-folding` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantFolding;

impl Pass for ConstantFolding {
    fn name() -> &'static str {
        "constant-folding"
    }

    fn description() -> &'static str {
        "evaluate operators, casts, slices and intrinsics on constants; take branches on constants"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let widths = Widths::of(module);
        let mut changed = false;
        for_each_code(module, &mut |code| changed |= fold_code(code, &widths));
        PassResult::from_changed(changed)
    }
}

/// Folds one piece of code; returns whether anything changed.
pub(crate) fn fold_code(mut code: CodeMut<'_>, widths: &Widths) -> bool {
    let mut changed = false;
    for _ in 0..MAX_ROUNDS {
        let mut round = fold_exprs(&mut code, widths);
        round |= propagate_locals(&mut code);
        changed |= round;
        if !round {
            break;
        }
        // Forwarded expressions stay in the arena until compacted; folding them again would
        // count as a change forever.
        compact_code(code.reborrow());
    }
    code.for_each_block(&mut |body, block| changed |= fold_block(body, block, widths));
    if let CodeMut::Parser(p) = &mut code {
        changed |= fold_selects(p, widths);
    }
    if changed {
        compact_code(code);
    }
    changed
}

/// What folding one expression gives.
enum Fold {
    /// Nothing.
    Keep,
    /// A constant.
    Const(Bits),
    /// One of its operands: its users use that one instead.
    Forward(ExprId),
    /// A simpler expression in its place.
    Replace(Expr),
}

/// Folds every expression, in id order (operands first), redirecting users of forwarded ones.
fn fold_exprs(code: &mut CodeMut<'_>, widths: &Widths) -> bool {
    let body = code.body();
    let pure = purity(body);
    let mut forward: SecondaryMap<ExprId, Option<ExprId>> = SecondaryMap::new();
    let mut changed = false;
    let ids: Vec<ExprId> = body.exprs.keys().collect();
    for id in ids {
        let mut e = body.exprs[id].clone();
        map_refs(&mut e, &mut |o| forward[o].unwrap_or(o));
        match fold_expr(body, id, &e, widths, &pure) {
            Fold::Keep => {}
            Fold::Const(bits) => {
                e = Expr::Const(Const(bits.to_biguint()));
                changed = true;
            }
            Fold::Forward(to) => {
                forward[id] = Some(to);
                changed = true;
            }
            Fold::Replace(new) => {
                e = new;
                changed = true;
            }
        }
        body.exprs[id] = e;
    }
    if changed {
        let redirect = &mut |e: ExprId| forward[e].unwrap_or(e);
        code.for_each_block(&mut |_, b| {
            scenic_ir::proc::walk::visit_stmts_mut(b, &mut |s| {
                scenic_ir::proc::walk::map_stmt_roots(s, redirect)
            })
        });
        code.map_extra_roots(redirect);
    }
    changed
}

/// The value of a constant expression, at the width of its type.
fn const_of(body: &Body, id: ExprId, widths: &Widths) -> Option<Bits> {
    match body.exprs.get(id)? {
        Expr::Const(c) => Some(Bits::from_biguint(widths.width(&body.types[id]), &c.0)),
        _ => None,
    }
}

fn is_comparison(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, Eq | Ne | Lt | Le | Gt | Ge)
}

fn is_aggregate(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Header(_) | Type::Struct(_) | Type::Array(..) | Type::Tuple(_) | Type::Unit
    )
}

/// Folds expression `id`, whose (redirected) node is `e`.
fn fold_expr(
    body: &Body,
    id: ExprId,
    e: &Expr,
    widths: &Widths,
    pure: &SecondaryMap<ExprId, bool>,
) -> Fold {
    let k = |x: ExprId| const_of(body, x, widths);
    let ty = &body.types[id];
    let value = match e {
        Expr::Unary(op, a) => k(*a).map(|v| ops::unary(*op, &body.types[*a], &v)),
        Expr::Binary(op @ (BinaryOp::LogicalAnd | BinaryOp::LogicalOr), a, b) => {
            return logical(*op == BinaryOp::LogicalAnd, *a, *b, k(*a), k(*b), pure);
        }
        Expr::Binary(op, a, b) if !is_aggregate(&body.types[*a]) => {
            let op_ty = if is_comparison(*op) {
                &body.types[*a]
            } else {
                ty
            };
            match (k(*a), k(*b)) {
                (Some(va), Some(vb)) => Some(ops::binary(*op, op_ty, &va, &vb)),
                (va, vb) => return identity(body, id, *op, (*a, va), (*b, vb)),
            }
        }
        Expr::Cast(a) if body.types[*a] == *ty => return Fold::Forward(*a),
        Expr::Cast(a) => k(*a).map(|v| ops::cast(&v, &body.types[*a], ty, widths)),
        Expr::Slice { base, hi, lo } => k(*base).map(|v| v.slice(*hi, *lo)),
        Expr::SliceDyn { base, lo, width } => return slice_dyn(body, *base, *lo, *width, widths),
        Expr::Intrinsic(which, args) => intrinsic(*which, ty, args, &k),
        // A known condition: the taken operand (the other one never runs).
        Expr::Select(c, a, b) => match k(*c) {
            Some(v) => return Fold::Forward(if v.is_zero() { *b } else { *a }),
            None => None,
        },
        _ => None,
    };
    match value {
        Some(v) if v.width() == widths.width(ty) && !is_aggregate(ty) => Fold::Const(v),
        _ => Fold::Keep,
    }
}

/// `x + 0`, `x - 0`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0`, `x & ~0`, `x * 1` (integers) and
/// their mirror images are `x`.
fn identity(
    body: &Body,
    id: ExprId,
    op: BinaryOp,
    (a, va): (ExprId, Option<Bits>),
    (b, vb): (ExprId, Option<Bits>),
) -> Fold {
    use BinaryOp::*;
    let ty = &body.types[id];
    let integer = matches!(ty, Type::Bits(_) | Type::Int(_));
    let is_one = |v: &Bits| v.to_u128() == 1 && v.slice(v.width().saturating_sub(1), 0) == *v;
    let neutral = |v: &Bits, mirror: bool| match op {
        Add | Or | Xor | SatAdd => v.is_zero(),
        Sub | SatSub | Shl | Shr => !mirror && v.is_zero(),
        And => v.bit_not().is_zero(),
        Mul => integer && is_one(v),
        _ => false,
    };
    match (va, vb) {
        (None, Some(v)) if body.types[a] == *ty && neutral(&v, false) => Fold::Forward(a),
        (Some(v), None) if body.types[b] == *ty && neutral(&v, true) => Fold::Forward(b),
        _ => Fold::Keep,
    }
}

/// `&&` (`and`) or `||` with operands `a` and `b` and their constant values, if any.
fn logical(
    and: bool,
    a: ExprId,
    b: ExprId,
    va: Option<Bits>,
    vb: Option<Bits>,
    pure: &SecondaryMap<ExprId, bool>,
) -> Fold {
    // The value that decides the result on its own: false for `&&`, true for `||`.
    let decisive = |v: &Bits| v.is_zero() == and;
    match (va, vb) {
        (Some(v), _) if decisive(&v) => Fold::Const(Bits::from_bool(!and)),
        (Some(_), _) => Fold::Forward(b),
        (None, Some(v)) if !decisive(&v) => Fold::Forward(a),
        (None, Some(_)) if pure[a] => Fold::Const(Bits::from_bool(!and)),
        _ => Fold::Keep,
    }
}

/// `SliceDyn` with a constant `lo`: a constant, or a `Slice` when the bits are in range.
fn slice_dyn(body: &Body, base: ExprId, lo: ExprId, width: u32, widths: &Widths) -> Fold {
    let Some(lo_v) = const_of(body, lo, widths) else {
        return Fold::Keep;
    };
    // The interpreter reads `lo` as a u32 (in range by construction).
    let lo = lo_v.to_u128() as u32;
    let Some(hi) = width.checked_sub(1).and_then(|w| lo.checked_add(w)) else {
        return Fold::Keep;
    };
    if let Some(v) = const_of(body, base, widths) {
        return Fold::Const(v.slice(hi, lo));
    }
    match widths.scalar(&body.types[base]) {
        Some(w) if hi < w => Fold::Replace(Expr::Slice { base, hi, lo }),
        _ => Fold::Keep,
    }
}

/// An intrinsic on constant arguments, as the interpreter evaluates it.
fn intrinsic(
    which: Intrinsic,
    ty: &Type,
    args: &[ExprId],
    k: &dyn Fn(ExprId) -> Option<Bits>,
) -> Option<Bits> {
    let values: Option<Vec<Bits>> = args.iter().map(|a| k(*a)).collect();
    let values = values?;
    match (which, values.as_slice()) {
        (Intrinsic::Min, [a, b]) => Some(ops::min(ty, a, b)),
        (Intrinsic::Max, [a, b]) => Some(ops::max(ty, a, b)),
        (Intrinsic::Min | Intrinsic::Max, _) => None,
        (other, values) => Some(intrinsics::call(other, ty, values)),
    }
}

/// Replaces reads of locals declared once by a `let` of a constant and never assigned (nor
/// parameters or loop variables) by the constant.
fn propagate_locals(code: &mut CodeMut<'_>) -> bool {
    let mut lets: SecondaryMap<LocalId, u32> = SecondaryMap::new();
    let mut value: SecondaryMap<LocalId, Option<ExprId>> = SecondaryMap::new();
    let mut blocked: SecondaryMap<LocalId, bool> = SecondaryMap::new();
    code.for_each_block(&mut |_, b| {
        visit_stmts(b, &mut |s| match s {
            Stmt::Let(l, e) => {
                lets[*l] += 1;
                value[*l] = Some(*e);
            }
            Stmt::Assign(p, _) => {
                if let Some(l) = place_local(p) {
                    blocked[l] = true;
                }
            }
            Stmt::For { var, .. } => blocked[*var] = true,
            _ => {}
        })
    });
    let body = code.body();
    for p in &body.params {
        blocked[*p] = true;
    }
    let mut changed = false;
    for id in body.exprs.keys().collect::<Vec<_>>() {
        let Expr::Local(l) = body.exprs[id] else {
            continue;
        };
        if blocked[l] || lets[l] != 1 || l.index() >= body.locals.len() {
            continue;
        }
        let Some(Some(Expr::Const(c))) = value[l].map(|v| body.exprs.get(v)) else {
            continue;
        };
        body.exprs[id] = Expr::Const(c.clone());
        changed = true;
    }
    changed
}

/// A constant scrutinee: a scalar (with whether its type is signed) or a tuple of constants.
enum ConstVal {
    Bits(Bits, bool),
    Tuple(Vec<ConstVal>),
}

fn const_val(body: &Body, id: ExprId, widths: &Widths) -> Option<ConstVal> {
    match body.exprs.get(id)? {
        Expr::Const(_) => const_of(body, id, widths)
            .map(|b| ConstVal::Bits(b, body.types.get(id).is_some_and(Type::is_signed))),
        Expr::Tuple(items) => items
            .iter()
            .map(|i| const_val(body, *i, widths))
            .collect::<Option<Vec<_>>>()
            .map(ConstVal::Tuple),
        _ => None,
    }
}

/// Whether a pattern matches a constant: the interpreter's own [`pattern::scalar_matches`],
/// element-wise for tuples.
fn matches(p: &Pattern, v: &ConstVal) -> bool {
    match (p, v) {
        (Pattern::Any, _) => true,
        (Pattern::Tuple(ps), ConstVal::Tuple(vs)) => ps.iter().zip(vs).all(|(p, v)| matches(p, v)),
        (_, ConstVal::Bits(b, signed)) => pattern::scalar_matches(p, *signed, b),
        _ => false,
    }
}

/// Folds `if` and `match` on constants in a block and the blocks nested in it.
fn fold_block(body: &Body, block: &mut Block, widths: &Widths) -> bool {
    scenic_ir::stack::grow(|| {
        let mut changed = false;
        let old = std::mem::take(block);
        for (mut s, span) in scenic_ir::proc::walk::pairs(old) {
            for child in scenic_ir::proc::walk::child_blocks_mut(&mut s) {
                changed |= fold_block(body, child, widths);
            }
            let taken = match s {
                Stmt::If(c, t, e) => match const_of(body, c, widths) {
                    Some(v) if v.is_zero() => e,
                    Some(_) => t,
                    None => {
                        block.push(Stmt::If(c, t, e), span);
                        continue;
                    }
                },
                Stmt::Switch { on, cases, default } => match const_val(body, on, widths) {
                    Some(v) => cases
                        .into_iter()
                        .find(|c| c.patterns.iter().any(|p| matches(p, &v)))
                        .map_or(default, |c| c.body),
                    None => {
                        block.push(Stmt::Switch { on, cases, default }, span);
                        continue;
                    }
                },
                other => {
                    block.push(other, span);
                    continue;
                }
            };
            changed = true;
            block.append(taken);
        }
        changed
    })
}

/// Turns selects on constants into direct transitions.
fn fold_selects(p: &mut Parser, widths: &Widths) -> bool {
    let mut changed = false;
    for state in p.states.values_mut() {
        let Transition::Select { on, cases } = &state.transition else {
            continue;
        };
        let Some(v) = const_val(&p.body, *on, widths) else {
            continue;
        };
        let target = cases
            .iter()
            .find(|c| c.patterns.iter().any(|pat| matches(pat, &v)))
            .map_or(Target::Reject(ErrorId::new(1)), |c| c.target);
        state.transition = Transition::Direct(target);
        changed = true;
    }
    changed
}
