//! `compact`: removes the expressions and locals nothing refers to, and renumbers the rest.
//!
//! Survivors keep their relative order, so operands stay older than their users, and parameters
//! are always kept. Like naga's `compact`, this is what lets a rewritten module print like freshly
//! lowered code: the textual IR numbers expressions and locals by position. The validator requires
//! every expression to be used exactly once, so every pass that leaves expressions behind (an
//! `if` folded away, a loop body copied) calls [`compact_code`] (in `proc`) on what it changed.

use super::{Pass, PassResult};
use scenic_ir::proc::compact::compact_code;
use scenic_ir::proc::walk::for_each_code;
use scenic_ir::program::Module;

/// The `compact` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compact;

impl Pass for Compact {
    fn name() -> &'static str {
        "compact"
    }

    fn description() -> &'static str {
        "remove unreferenced expressions and locals, renumbering the rest in order"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let mut changed = false;
        for_each_code(module, &mut |code| changed |= compact_code(code));
        PassResult::from_changed(changed)
    }
}
