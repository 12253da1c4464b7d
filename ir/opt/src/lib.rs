//! scenic-opt: the passes over the IR, and the [`PassManager`] that runs them by name (Calyx's
//! `calyx-opt`). The walker and compaction they build on are the core's `scenic_ir::proc`.
//!
//! Each pass lives in its own file, named like the pass in kebab case (`constant_folding.rs` is
//! `constant-folding`), and has a golden test of the same name in `ir/opt/tests/passes/`, as in Calyx.
//! Every pass preserves the program's behaviour exactly as the reference interpreter defines it
//! (`ir/opt/tests/passes.rs` runs the interpreter on the module before and after each pass over
//! generated packets, words and events) and keeps the IR's invariants (`body.rs`): every
//! expression used exactly once, operands older than their users, locals declared before use. A
//! pass that leaves expressions or locals unreferenced removes them with [`compact`] before it
//! returns, so each pass's output validates on its own.
//!
//! The passes:
//!
//! | name | what it does |
//! |---|---|
//! | `compact` | drops unreferenced expressions and locals and renumbers them |
//! | `constant-folding` | evaluates operators, casts, slices and intrinsics on constants with the interpreter's own arithmetic, and branches on constants |
//! | `dead-code-elimination` | removes unreachable and useless statements, unused locals, unreachable parser states and unused functions |
//! | `function-inlining` | replaces every call by the callee's code (hardware has no call stack) |
//! | `loop-unrolling` | replaces every `for` loop by one copy of its body per iteration |
//! | `parser-state-merging` | merges a parser state into its only predecessor when that one always goes to it |
//! | `table-key-packing` | joins adjacent exact-match keys of a table into one wider exact key |
//!
//! Aliases name pipelines: `all` (every optimisation, in the order that exposes the most work to
//! the next: inlining first, so callees' loops and constants meet their callers'; unrolling, which
//! folds the loop variables it substitutes; folding and dead-code elimination; then the parser and
//! table rewrites, which need the simplified code) and `cleanup` (`constant-folding`, then
//! `dead-code-elimination`).

#![deny(missing_docs)]

pub mod compact;
pub mod constant_folding;
pub mod dead_code_elimination;
pub mod function_inlining;
pub mod loop_unrolling;
pub mod parser_state_merging;
pub mod table_key_packing;

mod copy;

pub use compact::Compact;
pub use constant_folding::ConstantFolding;
pub use dead_code_elimination::DeadCodeElimination;
pub use function_inlining::FunctionInlining;
pub use loop_unrolling::LoopUnrolling;
pub use parser_state_merging::ParserStateMerging;
pub use table_key_packing::TableKeyPacking;

use scenic_ir::program::Module;
use std::fmt::Write;

/// Whether a pass changed the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub enum PassResult {
    /// The module is exactly as before.
    Unchanged,
    /// Something was rewritten.
    Changed,
}

impl PassResult {
    /// `Changed` when `changed` is true.
    pub fn from_changed(changed: bool) -> PassResult {
        if changed {
            PassResult::Changed
        } else {
            PassResult::Unchanged
        }
    }

    /// Whether the module changed.
    pub fn changed(self) -> bool {
        self == PassResult::Changed
    }
}

impl std::ops::BitOr for PassResult {
    type Output = PassResult;

    fn bitor(self, rhs: PassResult) -> PassResult {
        PassResult::from_changed(self.changed() || rhs.changed())
    }
}

impl std::ops::BitOrAssign for PassResult {
    fn bitor_assign(&mut self, rhs: PassResult) {
        *self = *self | rhs;
    }
}

/// A rewrite of a module that keeps its behaviour.
pub trait Pass {
    /// The name passes are selected by: kebab case, the stem of the pass's file and golden test.
    fn name() -> &'static str
    where
        Self: Sized;

    /// One line saying what the pass does, for `--passes help`.
    fn description() -> &'static str
    where
        Self: Sized;

    /// Rewrites `module`, reporting whether anything changed.
    fn run(&mut self, module: &mut Module) -> PassResult;
}

/// Why the pass manager refused a request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    /// A name that is neither a pass nor an alias.
    #[error(
        "unknown pass `{name}`; the passes are {}; the aliases are {}",
        passes.join(", "),
        aliases.join(", ")
    )]
    UnknownPass {
        /// The name asked for.
        name: String,
        /// Every registered pass.
        passes: Vec<&'static str>,
        /// Every registered alias.
        aliases: Vec<&'static str>,
    },
    /// A pass or alias registered twice under one name.
    #[error("a pass or alias named `{0}` is already registered")]
    Duplicate(&'static str),
}

/// A registered pass: its name, description and constructor.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// The pass's name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    make: fn() -> Box<dyn Pass>,
}

/// A registered alias: a name for a list of passes.
#[derive(Clone, Debug)]
pub struct AliasInfo {
    /// The alias.
    pub name: &'static str,
    /// What the pipeline is for.
    pub description: &'static str,
    /// The passes it runs, in order (aliases already expanded).
    pub passes: Vec<&'static str>,
}

/// Runs passes by name (Calyx's pass manager): registration, aliases, expansion, listing.
#[derive(Clone, Debug, Default)]
pub struct PassManager {
    passes: Vec<PassInfo>,
    aliases: Vec<AliasInfo>,
}

fn make<P: Pass + Default + 'static>() -> Box<dyn Pass> {
    Box::new(P::default())
}

impl PassManager {
    /// A manager with no passes.
    pub fn new() -> PassManager {
        PassManager::default()
    }

    /// A manager with every pass of this module and the aliases `all` and `cleanup`.
    pub fn with_default_passes() -> PassManager {
        let mut pm = PassManager::new();
        // The names are distinct constants, so registration cannot fail; a failure would only
        // leave a pass out, never panic.
        let _ = pm.register_defaults();
        pm
    }

    fn register_defaults(&mut self) -> Result<(), PassError> {
        self.register::<Compact>()?;
        self.register::<ConstantFolding>()?;
        self.register::<DeadCodeElimination>()?;
        self.register::<FunctionInlining>()?;
        self.register::<LoopUnrolling>()?;
        self.register::<ParserStateMerging>()?;
        self.register::<TableKeyPacking>()?;
        self.register_alias(
            "all",
            "every optimisation, callees first",
            &[
                FunctionInlining::name(),
                LoopUnrolling::name(),
                ConstantFolding::name(),
                DeadCodeElimination::name(),
                ParserStateMerging::name(),
                TableKeyPacking::name(),
            ],
        )?;
        self.register_alias(
            "cleanup",
            "fold constants, then remove the code that became dead",
            &[ConstantFolding::name(), DeadCodeElimination::name()],
        )
    }

    fn is_taken(&self, name: &str) -> bool {
        self.passes.iter().any(|p| p.name == name) || self.aliases.iter().any(|a| a.name == name)
    }

    /// Registers pass `P` under [`Pass::name`].
    pub fn register<P: Pass + Default + 'static>(&mut self) -> Result<(), PassError> {
        if self.is_taken(P::name()) {
            return Err(PassError::Duplicate(P::name()));
        }
        self.passes.push(PassInfo {
            name: P::name(),
            description: P::description(),
            make: make::<P>,
        });
        Ok(())
    }

    /// Registers `name` as the list `passes` (names of passes or of aliases registered before).
    pub fn register_alias(
        &mut self,
        name: &'static str,
        description: &'static str,
        passes: &[&str],
    ) -> Result<(), PassError> {
        if self.is_taken(name) {
            return Err(PassError::Duplicate(name));
        }
        let passes = self.expand(passes)?;
        self.aliases.push(AliasInfo {
            name,
            description,
            passes,
        });
        Ok(())
    }

    /// The registered passes, in registration order.
    pub fn passes(&self) -> &[PassInfo] {
        &self.passes
    }

    /// The registered aliases, in registration order.
    pub fn aliases(&self) -> &[AliasInfo] {
        &self.aliases
    }

    /// The passes that `names` (passes and aliases) stand for, in order.
    pub fn expand(&self, names: &[&str]) -> Result<Vec<&'static str>, PassError> {
        let mut out = Vec::new();
        for name in names {
            if let Some(p) = self.passes.iter().find(|p| p.name == *name) {
                out.push(p.name);
            } else if let Some(a) = self.aliases.iter().find(|a| a.name == *name) {
                out.extend(a.passes.iter().copied());
            } else {
                return Err(self.unknown(name));
            }
        }
        Ok(out)
    }

    fn unknown(&self, name: &str) -> PassError {
        PassError::UnknownPass {
            name: name.to_string(),
            passes: self.passes.iter().map(|p| p.name).collect(),
            aliases: self.aliases.iter().map(|a| a.name).collect(),
        }
    }

    /// Runs one pass (not an alias) on `module`.
    pub fn run_pass(&self, name: &str, module: &mut Module) -> Result<PassResult, PassError> {
        let info = self
            .passes
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| self.unknown(name))?;
        Ok((info.make)().run(module))
    }

    /// Runs the passes and aliases `names` on `module`, in order. Every name is checked before
    /// the first pass runs, so an unknown name leaves the module untouched.
    pub fn run_named(&self, module: &mut Module, names: &[&str]) -> Result<(), PassError> {
        for name in self.expand(names)? {
            let _changed = self.run_pass(name, module)?;
        }
        Ok(())
    }

    /// A listing of the passes and aliases with their descriptions, for `--passes help`.
    pub fn list(&self) -> String {
        let width = self
            .passes
            .iter()
            .map(|p| p.name.len())
            .chain(self.aliases.iter().map(|a| a.name.len()))
            .max()
            .unwrap_or(0);
        let mut out = String::from("passes:\n");
        for p in &self.passes {
            let _ = writeln!(out, "  {:width$}  {}", p.name, p.description);
        }
        out.push_str("aliases:\n");
        for a in &self.aliases {
            let passes = a.passes.join(", ");
            let _ = writeln!(out, "  {:width$}  {passes} ({})", a.name, a.description);
        }
        out
    }
}

#[cfg(test)]
mod tests;
