//! `function-inlining`: replaces every call of a function by the function's code.
//!
//! Hardware has no call stack: a function becomes logic at each place it is called. Callees are
//! inlined before their callers (the call graph has no cycles; a function in a cycle is left
//! alone), so every callee's code is already call-free when it is copied. Each copy gets fresh
//! locals (parameters become `let`s of the arguments), the callee's `return`s become assignments
//! to a result local (`returns`), and the call expression becomes a read of that local, with
//! everything the statement evaluated before the call computed ahead of the callee's code so
//! that evaluation order is unchanged (`hoist`). Calls are inlined into functions (module-,
//! scu- and cc-owned), actions, controls, handlers, deparsers, kernels, `every` blocks and parser
//! states (a call in a select scrutinee puts the callee's code at the end of the state's block).
//! Calls in table keys stay: key expressions have no statements to hold the callee's code.
//!
//! Afterwards no `Call` expression is left outside table keys; functions nobody calls any more
//! are removed by `dead-code-elimination`.

mod hoist;
mod returns;

use super::{Pass, PassResult};
use cranelift_entity::SecondaryMap;
use hoist::{Callees, Hoister};
use scenic_ir::body::{Block, Expr};
use scenic_ir::entities::*;
use scenic_ir::proc::compact::compact_code;
use scenic_ir::proc::walk::{child_blocks_mut, for_each_code, CodeMut};
use scenic_ir::program::{Module, Transition};

/// The `function-inlining` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct FunctionInlining;

impl Pass for FunctionInlining {
    fn name() -> &'static str {
        "function-inlining"
    }

    fn description() -> &'static str {
        "replace every function call by the function's code"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let structs = module.structs.clone();
        let mut callees: Callees = SecondaryMap::new();
        let mut changed = false;
        for f in callee_order(module) {
            let Some(func) = module.functions.get_mut(f) else {
                continue;
            };
            changed |= inline_code(CodeMut::Plain(&mut func.body), &callees);
            callees[f] = returns::prepare(func, &structs);
        }
        for_each_code(module, &mut |code| changed |= inline_code(code, &callees));
        PassResult::from_changed(changed)
    }
}

/// The functions that call others, in an order where every callee comes before its callers
/// (depth-first post-order of the call graph; back edges of cycles are ignored).
fn callee_order(module: &Module) -> Vec<FuncId> {
    let calls = |f: FuncId| -> Vec<FuncId> {
        module.functions[f]
            .body
            .exprs
            .values()
            .filter_map(|e| match e {
                Expr::Call(g, _) if module.functions.get(*g).is_some() => Some(*g),
                _ => None,
            })
            .collect()
    };
    // 0: unvisited, 1: on the stack, 2: done.
    let mut state: SecondaryMap<FuncId, u8> = SecondaryMap::new();
    let mut order = Vec::new();
    for root in module.functions.keys() {
        if state[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, calls(root))];
        state[root] = 1;
        while let Some((f, pending)) = stack.last_mut() {
            match pending.pop() {
                Some(g) if state[g] == 0 => {
                    state[g] = 1;
                    let next = calls(g);
                    stack.push((g, next));
                }
                Some(_) => {}
                None => {
                    state[*f] = 2;
                    order.push(*f);
                    stack.pop();
                }
            }
        }
    }
    order
}

/// Inlines the calls of one piece of code; returns whether any was inlined.
fn inline_code(mut code: CodeMut<'_>, callees: &Callees) -> bool {
    let mut changed = false;
    match &mut code {
        CodeMut::Parser(p) => {
            let mut h = Hoister::new(&mut p.body, callees);
            for state in p.states.values_mut() {
                changed |= inline_block(&mut h, &mut state.block);
                if let Transition::Select { on, .. } = &mut state.transition {
                    if h.needs(*on) {
                        *on = h.root(*on, state.span);
                        for (s, span) in std::mem::take(&mut h.pre) {
                            state.block.push(s, span);
                        }
                        changed = true;
                    }
                }
            }
        }
        CodeMut::Plain(body) => {
            let mut block = std::mem::take(&mut body.block);
            changed |= inline_block(&mut Hoister::new(body, callees), &mut block);
            body.block = block;
        }
        CodeMut::Keys(_) => {}
    }
    if changed {
        compact_code(code);
    }
    changed
}

/// Inlines the calls of a block and of the blocks nested in it.
fn inline_block(h: &mut Hoister<'_>, block: &mut Block) -> bool {
    scenic_ir::stack::grow(|| {
        let mut changed = false;
        let old = std::mem::take(block);
        for (mut s, span) in scenic_ir::proc::walk::pairs(old) {
            for child in child_blocks_mut(&mut s) {
                changed |= inline_block(h, child);
            }
            let kept = h.stmt(s, span);
            changed |= !h.pre.is_empty() || kept.is_none();
            for (pre, pre_span) in std::mem::take(&mut h.pre) {
                block.push(pre, pre_span);
            }
            if let Some(s) = kept {
                block.push(s, span);
            }
        }
        changed
    })
}
