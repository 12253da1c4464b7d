//! `scenicc test FILE TEST.stf...`: run STF packet tests on the reference interpreter, or with
//! `--backend hls-csim` on the C-simulated HLS kernels (g++ and AMD's ap_types headers, found by
//! `--ap-types DIR` or the `AP_TYPES` environment variable).
//!
//! Every expectation and check of every file counts; the last line says `N passed, N failed`. Exit 0
//! only when nothing failed, 1 when something did (or the program has errors), 2 on usage or I/O
//! problems. See `docs/testing.md` for the STF format and scenicc's extensions.

use crate::compile;
use crate::errors::TestError;
use crate::output::{print_stdout, Output};
use crate::EXIT_ERRORS;
use scenic_sim::stf;
use std::path::PathBuf;
use std::process::ExitCode;

/// Which engine runs the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// The reference interpreter (the golden semantics).
    Interp,
    /// The generated HLS kernels, compiled with g++ and run (C simulation).
    HlsCsim,
}

/// Arguments of `scenicc test`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// The program: a `.sn` file, or a `.p4` program (v1model or Vitis Networking P4, the subset of
    /// docs/p4.md).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// STF test files.
    #[arg(required = true, value_name = "TEST.stf")]
    pub tests: Vec<PathBuf>,
    /// The engine that runs the tests.
    #[arg(long, value_enum, default_value_t = Backend::Interp)]
    pub backend: Backend,
    /// Interp: passes or aliases to run on the IR first, in order, comma-separated (as `scenicc
    /// emit ir --passes`): the tests then check the optimised program, which must behave exactly
    /// like the original (scenic-smith's reproductions use this, docs/fuzzing.md).
    #[arg(long, value_name = "PASS,...", value_delimiter = ',')]
    pub passes: Vec<String>,
    /// The scu that receives `packet` and `words` commands (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub scu: Option<String>,
    /// hls-csim: the directory of AMD's ap_types headers (default: $AP_TYPES; see
    /// scripts/fetch-ap-types.sh).
    #[arg(long, value_name = "DIR")]
    pub ap_types: Option<PathBuf>,
}

/// Runs `passes` on `module` as `scenicc emit ir --passes` does, validating after each.
fn run_passes(
    mut module: scenic_ir::program::Module,
    passes: &[String],
    output: &Output,
) -> Result<scenic_ir::program::Module, ExitCode> {
    if passes.is_empty() {
        return Ok(module);
    }
    let manager = scenic_opt::PassManager::with_default_passes();
    let names: Vec<&str> = passes.iter().map(|p| p.trim()).collect();
    if let Err(source) = manager.expand(&names) {
        return Err(output.fail(&crate::errors::EmitError::Passes { source }));
    }
    compile::validate(&module, "lowering", output)?;
    for name in names {
        if let Err(source) = manager.run_named(&mut module, &[name]) {
            return Err(output.fail(&crate::errors::EmitError::Passes { source }));
        }
        compile::validate(&module, &format!("pass `{name}`"), output)?;
    }
    Ok(module)
}

/// Runs `scenicc test`.
pub fn run(args: &TestArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let mut texts = Vec::new();
    for path in &args.tests {
        match std::fs::read_to_string(path) {
            Ok(text) => texts.push((path.display().to_string(), text)),
            Err(source) => {
                let path = path.display().to_string();
                return output.fail(&TestError::Read { path, source });
            }
        }
    }
    let reports = match args.backend {
        Backend::Interp => {
            let module = match compile::lower(&args.file, output, deny_warnings) {
                Ok(module) => module,
                Err(code) => return code,
            };
            let module = match run_passes(module, &args.passes, output) {
                Ok(module) => module,
                Err(code) => return code,
            };
            if let Err(code) = compile::require_scu(&module, args.scu.as_deref(), output) {
                return code;
            }
            texts
                .iter()
                .map(|(name, text)| {
                    output.progress(&format!("running {name}"));
                    (
                        name.clone(),
                        stf::run_text(&module, text, args.scu.as_deref()),
                    )
                })
                .collect()
        }
        Backend::HlsCsim => match crate::hls::run_stf(
            &args.file,
            &texts,
            args.scu.as_deref(),
            args.ap_types.as_deref(),
            output,
            deny_warnings,
        ) {
            Ok(reports) => reports,
            Err(code) => return code,
        },
    };
    let (mut passed, mut failed) = (0, 0);
    for (name, report) in &reports {
        passed += report.passed;
        failed += report.failures.len();
        for failure in &report.failures {
            print_stdout(&format!(
                "{name}:{}:{}: {}\n",
                failure.pos.line, failure.pos.column, failure.message
            ));
        }
    }
    print_stdout(&format!("{passed} passed, {failed} failed\n"));
    if failed > 0 {
        ExitCode::from(EXIT_ERRORS)
    } else {
        ExitCode::SUCCESS
    }
}
