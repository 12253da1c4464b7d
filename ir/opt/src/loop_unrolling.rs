//! `loop-unrolling`: replaces every `for` loop by one copy of its body per iteration.
//!
//! Hardware runs a loop's iterations side by side (docs/language.md: loops are bounded and
//! unrolled), so every backend wants straight-line code. Copy `i` of the body reads the constant
//! `i` (of the loop variable's type, wrapped to its width as the interpreter does) wherever the
//! body read the loop variable, and gets fresh locals for everything the body declares, so copies
//! never share a `let`. Inner loops are unrolled first. A `return` or `drop` in a copy leaves the
//! remaining copies unexecuted, exactly as it leaves the remaining iterations.
//!
//! Afterwards the pass runs `constant-folding` on what it unrolled, so that arithmetic on the
//! loop variable disappears and `SliceDyn` with a now-constant `lo` becomes a plain `Slice`.
//!
//! A loop of more than [`MAX_ITERATIONS`] iterations, or whose copies would exceed
//! [`MAX_COPIED_STATEMENTS`] statements, is left alone (the checker's bounds keep real programs
//! far below both).

use super::constant_folding::fold_code;
use super::copy::{Copier, Src};
use super::{Pass, PassResult};
use num_bigint::BigInt;
use scenic_ir::body::{Block, Body, Stmt};
use scenic_ir::entities::*;
use scenic_ir::proc::compact::compact_code;
use scenic_ir::proc::walk::{child_blocks_mut, for_each_code, visit_stmts, Widths};
use scenic_ir::program::Module;
use scenic_ir::types::Const;
use std::collections::HashMap;

/// The most iterations a loop may have to be unrolled.
pub const MAX_ITERATIONS: i128 = 4096;

/// The most statements all copies of one loop body may have together.
pub const MAX_COPIED_STATEMENTS: i128 = 1 << 16;

/// The `loop-unrolling` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoopUnrolling;

impl Pass for LoopUnrolling {
    fn name() -> &'static str {
        "loop-unrolling"
    }

    fn description() -> &'static str {
        "replace each for loop by a copy of its body per iteration, then fold constants"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let widths = Widths::of(module);
        let mut changed = false;
        for_each_code(module, &mut |mut code| {
            let mut unrolled = false;
            code.for_each_block(&mut |body, block| unrolled |= unroll_block(body, block, &widths));
            if unrolled {
                compact_code(code.reborrow());
                fold_code(code.reborrow(), &widths);
                changed = true;
            }
        });
        PassResult::from_changed(changed)
    }
}

/// The number of statements in a block, nested ones included.
fn size(b: &Block) -> i128 {
    scenic_ir::stack::grow(|| {
        let mut n = 0;
        visit_stmts(b, &mut |_| n += 1);
        n
    })
}

/// Unrolls the loops of a block and of the blocks nested in it.
fn unroll_block(body: &mut Body, block: &mut Block, widths: &Widths) -> bool {
    scenic_ir::stack::grow(|| {
        let mut changed = false;
        let old = std::mem::take(block);
        for (mut s, span) in scenic_ir::proc::walk::pairs(old) {
            for child in child_blocks_mut(&mut s) {
                changed |= unroll_block(body, child, widths);
            }
            match s {
                Stmt::For {
                    var,
                    first,
                    last,
                    body: loop_body,
                } => {
                    let count = (i128::from(last) - i128::from(first) + 1).max(0);
                    if count > MAX_ITERATIONS || count * size(&loop_body) > MAX_COPIED_STATEMENTS {
                        let s = Stmt::For {
                            var,
                            first,
                            last,
                            body: loop_body,
                        };
                        block.push(s, span);
                        continue;
                    }
                    let copies = unroll(body, var, first, last, &loop_body, widths);
                    block.append(copies);
                    changed = true;
                }
                other => block.push(other, span),
            }
        }
        changed
    })
}

/// The copies of `loop_body` for `var` = `first..=last`, one after the other.
fn unroll(
    body: &mut Body,
    var: LocalId,
    first: i64,
    last: i64,
    loop_body: &Block,
    widths: &Widths,
) -> Block {
    let mut declared = Vec::new();
    visit_stmts(loop_body, &mut |s| match s {
        Stmt::Let(l, _) | Stmt::For { var: l, .. } => declared.push(*l),
        _ => {}
    });
    let width = body.locals.get(var).map_or(1, |l| widths.width(&l.ty));
    let mut out = Block::default();
    for i in first..=last {
        let mut locals = HashMap::new();
        for &l in &declared {
            if let Some(local) = body.locals.get(l).cloned() {
                locals.insert(l, body.locals.push(local));
            }
        }
        let consts = HashMap::from([(var, Const::from_bigint(&BigInt::from(i), width))]);
        // Copies read the loop body's expressions from `body` itself (the arena only grows).
        let copy = Copier::new(locals, consts).block(Src::Same, body, loop_body);
        out.append(copy);
    }
    out
}
