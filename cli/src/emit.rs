//! `scenicc emit <WHAT> FILE`: print a compiler artifact to stdout, for goldens and pipes.
//!
//! `ir` prints the textual IR after lowering (and after `--passes`, when given).

use crate::compile;
use crate::output::{print_stdout, Output};
use std::path::PathBuf;
use std::process::ExitCode;

/// What `emit` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Artifact {
    /// The textual IR.
    Ir,
}

/// Arguments of `scenicc emit`.
#[derive(Debug, clap::Args)]
pub struct EmitArgs {
    /// What to print.
    #[arg(value_enum)]
    pub what: Artifact,
    /// The program.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Runs `scenicc emit`.
pub fn run(args: &EmitArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let module = match compile::lower(&args.file, output, deny_warnings) {
        Ok(module) => module,
        Err(code) => return code,
    };
    match args.what {
        Artifact::Ir => print_stdout(&scenic_ir::print::print_module(&module)),
    }
    ExitCode::SUCCESS
}
