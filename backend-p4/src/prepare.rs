//! The module the writer works on: the chosen scu, after the passes that P4 needs.
//!
//! P4 has no calls with effects on the pipeline and no loops, so the module is copied and run
//! through `function-inlining`, `loop-unrolling`, `constant-folding` and `dead-code-elimination`
//! (all exact: `ir/opt/tests/passes.rs` checks each against the interpreter), then validated again. Not
//! `table-key-packing`: it would merge keys and change the names the control plane uses for them.

use crate::error::{Construct, Error, Errors};
use crate::Options;
use scenic_ir::{Module, ModuleInfo, ScuId, Validator};
use scenic_opt::PassManager;

/// The passes run before writing, in order.
pub const PASSES: &[&str] = &[
    "function-inlining",
    "loop-unrolling",
    "constant-folding",
    "dead-code-elimination",
];

/// A simplified, validated copy of the module and the scu to write.
#[derive(Debug)]
pub struct Prepared {
    /// The module after [`PASSES`].
    pub module: Module,
    /// Its validation facts.
    pub info: ModuleInfo,
    /// The scu to write.
    pub scu: ScuId,
}

/// Chooses the scu and simplifies the module; congestion controllers are errors unless an scu was
/// named (then the rest of the file is not being built).
pub fn prepare(module: &Module, options: &Options) -> Result<Prepared, Errors> {
    let mut errors = Vec::new();
    if options.scu.is_none() {
        for cc in module.ccs.values() {
            errors.push(Error::Unsupported {
                construct: Construct::CongestionController {
                    name: cc.name.clone(),
                },
                target: options.target,
                span: cc.span,
                related: Vec::new(),
            });
        }
    }
    let scu = match choose(module, options) {
        Ok(scu) => scu,
        Err(err) => {
            if errors.is_empty() || !matches!(err, Error::NoScu { .. }) {
                errors.push(err);
            }
            return Err(Errors(errors));
        }
    };
    if !errors.is_empty() {
        return Err(Errors(errors));
    }
    let mut simplified = module.clone();
    PassManager::with_default_passes()
        .run_named(&mut simplified, PASSES)
        .map_err(|e| Error::Internal(e.to_string()))?;
    let info = Validator::new()
        .validate(&simplified)
        .map_err(|e| Error::Internal(format!("the IR after the P4 passes is invalid: {e}")))?;
    Ok(Prepared {
        module: simplified,
        info,
        scu,
    })
}

fn choose(module: &Module, options: &Options) -> Result<ScuId, Error> {
    let file = module.source_name.clone();
    let names: Vec<String> = module.scus.values().map(|s| s.name.clone()).collect();
    match &options.scu {
        Some(name) => module
            .scus
            .iter()
            .find(|(_, s)| &s.name == name)
            .map(|(id, _)| id)
            .ok_or_else(|| Error::UnknownScu {
                file,
                name: name.clone(),
                names,
            }),
        None => {
            let mut ids = module.scus.keys();
            match (ids.next(), ids.next()) {
                (Some(id), None) => Ok(id),
                (None, _) => Err(Error::NoScu { file }),
                _ => Err(Error::SeveralScus { file, names }),
            }
        }
    }
}
