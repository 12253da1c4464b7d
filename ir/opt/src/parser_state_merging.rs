//! `parser-state-merging`: merges a parser state into its only predecessor when that predecessor
//! always goes to it.
//!
//! When state A ends in `goto B` (a direct transition) and nothing else reaches B (no other state
//! of those the start state reaches, and B is not the start state), B's statements are appended to
//! A's and A takes B's transition. Each state costs a pipeline stage or a cycle of the parser's
//! state machine in hardware; merged, the two extractions happen in one. Chains merge completely.
//!
//! The interpreter runs a state's block, rejects if an extraction failed, then transitions. A
//! failed extraction in A stops the merged block before B's statements, so the packet rejects
//! with the same error either way. The merge is skipped when A's block contains a `return` or
//! `drop` (they end A's block but not the parse) or a call (a callee can stop a block in ways a
//! state boundary would not).

use super::{Pass, PassResult};
use cranelift_entity::SecondaryMap;
use scenic_ir::body::{Block, Body, Expr, Stmt};
use scenic_ir::entities::*;
use scenic_ir::proc::walk::{
    any_stmt, reachable_states, retain_states, stmt_roots, targets, tree_any,
};
use scenic_ir::program::{Module, Parser, Target, Transition};

/// The `parser-state-merging` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParserStateMerging;

impl Pass for ParserStateMerging {
    fn name() -> &'static str {
        "parser-state-merging"
    }

    fn description() -> &'static str {
        "merge a parser state into its only predecessor when that one goes to it unconditionally"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let mut changed = false;
        for scu in module.scus.values_mut() {
            if let Some(p) = &mut scu.parser {
                changed |= merge_states(p);
            }
        }
        PassResult::from_changed(changed)
    }
}

/// Merges states until no merge applies; returns whether any happened.
fn merge_states(parser: &mut Parser) -> bool {
    let mut merged: SecondaryMap<StateId, bool> = SecondaryMap::new();
    let mut changed = false;
    while let Some((a, b)) = next_merge(parser, &merged) {
        let taken = std::mem::take(&mut parser.states[b].block);
        let transition = std::mem::replace(
            &mut parser.states[b].transition,
            Transition::Direct(Target::Accept),
        );
        let state = &mut parser.states[a];
        state.block.append(taken);
        state.transition = transition;
        merged[b] = true;
        changed = true;
    }
    if changed {
        retain_states(parser, &|s| !merged[s]);
    }
    changed
}

/// A state `a` and its successor `b` that can merge, if any.
fn next_merge(parser: &Parser, merged: &SecondaryMap<StateId, bool>) -> Option<(StateId, StateId)> {
    let reach = reachable_states(parser);
    let mut preds: SecondaryMap<StateId, u32> = SecondaryMap::new();
    for (id, state) in parser.states.iter() {
        if !reach[id] || merged[id] {
            continue;
        }
        for t in targets(&state.transition) {
            if let Target::State(s) = t {
                preds[s] += 1;
            }
        }
    }
    parser.states.iter().find_map(|(a, state)| {
        let Transition::Direct(Target::State(b)) = state.transition else {
            return None;
        };
        let ok = reach[a]
            && !merged[a]
            && b != a
            && b != parser.start
            && preds[b] == 1
            && parser.states.get(b).is_some()
            && mergeable(&parser.body, &state.block);
        ok.then_some((a, b))
    })
}

/// Whether a state's block can be followed by another state's statements in one block.
fn mergeable(body: &Body, block: &Block) -> bool {
    let stops = any_stmt(block, &|s| matches!(s, Stmt::Return(_) | Stmt::Drop));
    let mut calls = false;
    scenic_ir::proc::walk::visit_stmts(block, &mut |s| {
        for root in stmt_roots(s) {
            calls |= has_call(body, root);
        }
    });
    !stops && !calls
}

/// Whether the tree of `root` contains a call.
fn has_call(body: &Body, root: ExprId) -> bool {
    tree_any(body, root, &|e| {
        matches!(e, Expr::Call(..) | Expr::CallAction(..))
    })
}
