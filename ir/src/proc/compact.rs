//! Compaction: removes the expressions and locals nothing refers to, and renumbers the rest.
//!
//! Survivors keep their relative order, so operands stay older than their users, and parameters
//! are always kept. Like naga's `compact`, this is what lets a rewritten module print like freshly
//! lowered code: the textual IR numbers expressions and locals by position. The validator requires
//! every expression to be used exactly once, so every pass that leaves expressions behind (an
//! `if` folded away, a loop body copied) calls [`compact_code`] on what it changed; the `compact` pass (scenic-opt) runs it on
//! every piece of code.

use super::walk::{
    map_place_local, map_refs, map_stmt_roots, place_local, stmt_roots, visit_stmts,
    visit_stmts_mut, CodeMut,
};
use crate::body::{Block, Body, Expr, Stmt};
use crate::entities::*;
use cranelift_entity::{PrimaryMap, SecondaryMap};

/// Compacts one piece of code; returns whether anything was removed.
pub fn compact_code(mut code: CodeMut<'_>) -> bool {
    let mut roots = Vec::new();
    let mut locals = Vec::new();
    code.for_each_block(&mut |_, b| collect(b, &mut roots, &mut locals));
    code.map_extra_roots(&mut |id| {
        roots.push(id);
        id
    });
    let body = code.body();
    let live = mark(body, roots, &mut locals);
    let mut keep_local: SecondaryMap<LocalId, bool> = SecondaryMap::new();
    for l in locals.into_iter().chain(body.params.iter().copied()) {
        keep_local[l] = true;
    }
    let all_exprs = body.exprs.keys().all(|e| live[e]);
    let all_locals = body.locals.keys().all(|l| keep_local[l]);
    if all_exprs && all_locals {
        return false;
    }
    let (emap, lmap) = rebuild(body, &live, &keep_local);
    code.for_each_block(&mut |_, b| remap_block(b, &emap, &lmap));
    code.map_extra_roots(&mut |id| emap[id].unwrap_or(id));
    true
}

/// The expressions statements use directly, and the locals they declare or assign.
fn collect(b: &Block, roots: &mut Vec<ExprId>, locals: &mut Vec<LocalId>) {
    crate::stack::grow(|| {
        visit_stmts(b, &mut |s| {
            roots.extend(stmt_roots(s));
            match s {
                Stmt::Let(l, _) | Stmt::For { var: l, .. } => locals.push(*l),
                Stmt::Assign(p, _) => locals.extend(place_local(p)),
                _ => {}
            }
        });
    })
}

/// Marks every expression reachable from `roots` (and the tables' applications `ActionData`
/// refers to), adding the locals read to `locals`.
fn mark(body: &Body, roots: Vec<ExprId>, locals: &mut Vec<LocalId>) -> SecondaryMap<ExprId, bool> {
    let mut live: SecondaryMap<ExprId, bool> = SecondaryMap::with_capacity(body.exprs.len());
    let mut stack = roots;
    while let Some(id) = stack.pop() {
        let Some(e) = body.exprs.get(id) else {
            continue;
        };
        if live[id] {
            continue;
        }
        live[id] = true;
        let mut e = e.clone();
        map_refs(&mut e, &mut |o| {
            stack.push(o);
            o
        });
        if let Expr::Local(l) = e {
            locals.push(l);
        }
    }
    live
}

type ExprMap = SecondaryMap<ExprId, Option<ExprId>>;
type LocalMap = SecondaryMap<LocalId, Option<LocalId>>;

/// Rebuilds the arenas of `body` with the live expressions and kept locals, in order.
fn rebuild(
    body: &mut Body,
    live: &SecondaryMap<ExprId, bool>,
    keep: &SecondaryMap<LocalId, bool>,
) -> (ExprMap, LocalMap) {
    let mut lmap: LocalMap = SecondaryMap::new();
    let mut locals = PrimaryMap::new();
    for (id, local) in std::mem::take(&mut body.locals) {
        if keep[id] {
            lmap[id] = Some(locals.push(local));
        }
    }
    let mut emap: ExprMap = SecondaryMap::new();
    let mut exprs = PrimaryMap::new();
    let mut types = SecondaryMap::new();
    let mut spans = SecondaryMap::new();
    for (id, mut e) in std::mem::take(&mut body.exprs) {
        if !live[id] {
            continue;
        }
        map_refs(&mut e, &mut |o| emap[o].unwrap_or(o));
        if let Expr::Local(l) = &mut e {
            *l = lmap[*l].unwrap_or(*l);
        }
        let new = exprs.push(e);
        types[new] = std::mem::take(&mut body.types[id]);
        spans[new] = body.spans[id];
        emap[id] = Some(new);
    }
    for p in &mut body.params {
        *p = lmap[*p].unwrap_or(*p);
    }
    body.locals = locals;
    body.exprs = exprs;
    body.types = types;
    body.spans = spans;
    (emap, lmap)
}

/// Renumbers the expressions and locals a block's statements refer to.
fn remap_block(b: &mut Block, emap: &ExprMap, lmap: &LocalMap) {
    crate::stack::grow(|| {
        visit_stmts_mut(b, &mut |s| {
            map_stmt_roots(s, &mut |e| emap[e].unwrap_or(e));
            let local = |l: LocalId| lmap[l].unwrap_or(l);
            match s {
                Stmt::Let(l, _) | Stmt::For { var: l, .. } => *l = local(*l),
                Stmt::Assign(p, _) => map_place_local(p, &mut |l| local(l)),
                _ => {}
            }
        });
    })
}
