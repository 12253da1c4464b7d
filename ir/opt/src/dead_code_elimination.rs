//! `dead-code-elimination`: removes code that can never run or whose work nobody sees.
//!
//! - Statements after one that always ends the block: `return`, `drop`, or an `if`/`match`/block
//!   all of whose branches end that way.
//! - Statements with nothing left to do: an `if` or `match` whose branches are all empty, an empty
//!   block or loop, an `eval` of an expression without effects. An empty `if` or `match` whose
//!   scrutinee has effects keeps them as an `eval`; `if c {} else { ... }` becomes
//!   `if !c { ... }`; an assignment of a place to itself (`x = x`) goes.
//! - Locals nobody reads (parameters excepted): their `let`s and assignments go when the value
//!   has no effect, and become `eval`s of the value (and of an assigned place's indices) when it
//!   has one.
//! - Parser states the start state cannot reach, and functions no unit calls (directly or through
//!   other functions).
//!
//! "Has no effect" is [`scenic_ir::proc::walk::node_has_effect`]'s conservative notion: calls, action
//! calls, table applications, map accesses, meters and lookahead count as effects. Finally every
//! body is compacted.

use super::{Pass, PassResult};
use cranelift_entity::{PrimaryMap, SecondaryMap};
use scenic_ir::body::{Block, Body, Expr, Place, Stmt, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::proc::compact::compact_code;
use scenic_ir::proc::walk::{
    child_blocks, child_blocks_mut, for_each_code, map_place, place_local, purity,
    reachable_states, retain_states, CodeMut,
};
use scenic_ir::program::Module;
use scenic_ir::types::Type;

/// Rounds of statement cleaning per body (each round removes something).
const MAX_ROUNDS: usize = 64;

/// The `dead-code-elimination` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadCodeElimination;

impl Pass for DeadCodeElimination {
    fn name() -> &'static str {
        "dead-code-elimination"
    }

    fn description() -> &'static str {
        "remove unreachable statements, useless statements, unused locals, unreachable parser \
         states and unused functions"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let mut changed = false;
        for scu in module.scus.values_mut() {
            if let Some(p) = &mut scu.parser {
                let reach = reachable_states(p);
                changed |= retain_states(p, &|s| reach[s]);
            }
        }
        for_each_code(module, &mut |code| changed |= clean_code(code));
        changed |= remove_unused_functions(module);
        PassResult::from_changed(changed)
    }
}

/// Cleans one piece of code until nothing more goes; returns whether anything changed.
fn clean_code(mut code: CodeMut<'_>) -> bool {
    let mut changed = compact_code(code.reborrow());
    for _ in 0..MAX_ROUNDS {
        let pure = purity(code.body());
        let mut round = false;
        code.for_each_block(&mut |body, b| round |= clean_block(body, b, &pure));
        let mut read: SecondaryMap<LocalId, bool> = SecondaryMap::new();
        for e in code.body().exprs.values() {
            if let Expr::Local(l) = e {
                read[*l] = true;
            }
        }
        code.for_each_block(&mut |_, b| round |= drop_unread(b, &read, &pure));
        round |= compact_code(code.reborrow());
        changed |= round;
        if !round {
            break;
        }
    }
    changed
}

/// Whether a statement always ends the block it is in.
fn terminates(s: &Stmt) -> bool {
    match s {
        Stmt::Return(_) | Stmt::Drop => true,
        Stmt::If(..) | Stmt::Switch { .. } | Stmt::Block(_) => child_blocks(s)
            .iter()
            .all(|b| b.stmts.iter().any(terminates)),
        _ => false,
    }
}

/// Whether a statement does nothing: empty branches, loops and blocks, pure evaluations.
fn is_empty(body: &Body, s: &Stmt, pure: &SecondaryMap<ExprId, bool>) -> bool {
    scenic_ir::stack::grow(|| match s {
        Stmt::Eval(e) => pure[*e],
        Stmt::Assign(p, e) => self_assignment(p, body.exprs.get(*e)),
        Stmt::If(c, ..) | Stmt::Switch { on: c, .. } => {
            pure[*c] && child_blocks(s).iter().all(|b| b.stmts.is_empty())
        }
        Stmt::For { body, .. } | Stmt::Block(body) => body.stmts.is_empty(),
        _ => false,
    })
}

/// Whether assigning `value` to `place` writes what the place already holds (`x = x`). A header
/// field counts too: a write to an invalid header is ignored, and its fields read as 0.
fn self_assignment(place: &Place, value: Option<&Expr>) -> bool {
    match (place, value) {
        (Place::Local(a), Some(Expr::Local(b))) => a == b,
        (Place::Csr(a), Some(Expr::Csr(b))) => a == b,
        (Place::Meta(a), Some(Expr::Meta(b))) => a == b,
        (Place::CcState(a), Some(Expr::CcState(b))) => a == b,
        (
            Place::HeaderField {
                inst,
                index: None,
                field,
            },
            Some(Expr::HeaderField {
                inst: i,
                index: None,
                field: f,
            }),
        ) => inst == i && field == f,
        _ => false,
    }
}

/// Removes unreachable and empty statements from a block and the blocks nested in it.
fn clean_block(body: &mut Body, block: &mut Block, pure: &SecondaryMap<ExprId, bool>) -> bool {
    scenic_ir::stack::grow(|| {
        let mut changed = false;
        let old = std::mem::take(block);
        let total = old.stmts.len();
        for (mut s, span) in scenic_ir::proc::walk::pairs(old) {
            for child in child_blocks_mut(&mut s) {
                changed |= clean_block(body, child, pure);
            }
            if is_empty(body, &s, pure) {
                changed = true;
                continue;
            }
            let s = match s {
                Stmt::If(c, t, e) if t.stmts.is_empty() => {
                    changed = true;
                    if e.stmts.is_empty() {
                        Stmt::Eval(c)
                    } else {
                        Stmt::If(negate(body, c), e, Block::default())
                    }
                }
                Stmt::Switch { on, cases, default }
                    if default.stmts.is_empty()
                        && cases.iter().all(|c| c.body.stmts.is_empty()) =>
                {
                    changed = true;
                    Stmt::Eval(on)
                }
                s => s,
            };
            block.push(s, span);
            if block.stmts.last().is_some_and(terminates) {
                break;
            }
        }
        changed | (block.stmts.len() < total && block.stmts.last().is_some_and(terminates))
    })
}

/// `!c`: the operand of `c` when `c` is itself a negation, else a new `not`.
fn negate(body: &mut Body, c: ExprId) -> ExprId {
    match body.exprs.get(c) {
        Some(Expr::Unary(UnaryOp::Not, inner)) => *inner,
        _ => {
            let span = body.spans[c];
            body.add(Expr::Unary(UnaryOp::Not, c), Type::Bool, span)
        }
    }
}

/// Removes the `let`s of and assignments to locals nobody reads, keeping effects.
fn drop_unread(
    block: &mut Block,
    read: &SecondaryMap<LocalId, bool>,
    pure: &SecondaryMap<ExprId, bool>,
) -> bool {
    scenic_ir::stack::grow(|| {
        let mut changed = false;
        let old = std::mem::take(block);
        for (mut s, span) in scenic_ir::proc::walk::pairs(old) {
            for child in child_blocks_mut(&mut s) {
                changed |= drop_unread(child, read, pure);
            }
            let (value, indices) = match &s {
                Stmt::Let(l, v) if !read[*l] => (*v, Vec::new()),
                Stmt::Assign(p, v) if place_local(p).is_some_and(|l| !read[l]) => {
                    (*v, place_indices(p))
                }
                _ => {
                    block.push(s, span);
                    continue;
                }
            };
            changed = true;
            // The local goes (its `let` too), so the assignment cannot stay even when an index
            // has effects (`v.f[g()] = e`, language.md §5.2): keep the effects in their order,
            // the value first, then the indices from the root outwards.
            for e in std::iter::once(value).chain(indices) {
                if !pure[e] {
                    block.push(Stmt::Eval(e), span);
                }
            }
        }
        changed
    })
}

/// The index expressions of a place, from the root outwards (the order they are evaluated in).
fn place_indices(p: &Place) -> Vec<ExprId> {
    let mut out = Vec::new();
    let mut p = p.clone();
    map_place(&mut p, &mut |i| {
        out.push(i);
        i
    });
    out
}

/// Removes the functions no scu or cc code reaches, renumbering calls. Returns whether any went.
fn remove_unused_functions(module: &mut Module) -> bool {
    let mut calls: Vec<(Option<FuncId>, FuncId)> = Vec::new();
    let mut current: Option<FuncId> = None;
    let ids: Vec<FuncId> = module.functions.keys().collect();
    let mut index = 0;
    for_each_code(module, &mut |mut code| {
        // Functions come first, in id order; everything after them is unit code.
        current = ids.get(index).copied();
        index += 1;
        for e in code.body().exprs.values() {
            if let Expr::Call(f, _) = e {
                calls.push((current, *f));
            }
        }
    });
    let mut used: SecondaryMap<FuncId, bool> = SecondaryMap::new();
    let mut stack: Vec<FuncId> = calls
        .iter()
        .filter(|(from, _)| from.is_none())
        .map(|(_, f)| *f)
        .collect();
    while let Some(f) = stack.pop() {
        if used[f] || module.functions.get(f).is_none() {
            continue;
        }
        used[f] = true;
        stack.extend(
            calls
                .iter()
                .filter(|(from, _)| *from == Some(f))
                .map(|(_, g)| *g),
        );
    }
    if module.functions.keys().all(|f| used[f]) {
        return false;
    }
    let mut map: SecondaryMap<FuncId, Option<FuncId>> = SecondaryMap::new();
    let mut kept = PrimaryMap::new();
    for (id, f) in std::mem::take(&mut module.functions) {
        if used[id] {
            map[id] = Some(kept.push(f));
        }
    }
    module.functions = kept;
    for_each_code(module, &mut |mut code| {
        for e in code.body().exprs.values_mut() {
            if let Expr::Call(f, _) = e {
                *f = map[*f].unwrap_or(*f);
            }
        }
    });
    true
}
