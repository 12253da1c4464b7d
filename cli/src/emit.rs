//! `scenicc emit <WHAT> FILE`: print a compiler artifact to stdout, for goldens and pipes.
//!
//! `ir` prints the textual IR after lowering and, with `--passes a,b,...`, after running those
//! passes (or aliases such as `all`) in order. The IR is validated after lowering and after the
//! passes: IR that fails validation is a bug in scenicc, reported as an internal error (exit 101),
//! never printed as if it were fine.

use crate::compile;
use crate::errors::EmitError;
use crate::output::{print_stdout, Output};
use scenic_opt::PassManager;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `emit` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Artifact {
    /// The textual IR.
    Ir,
    /// The P4_16 program for AMD Vitis Networking P4 (XilinxPipeline).
    VitisP4,
    /// The P4_16 program for v1model (p4c, bmv2).
    V1model,
    /// The SCU package's manifest.json (as `scenicc build` writes it).
    Manifest,
    /// The Vitis HLS kernel (`.cpp`) of an scu (`--scu NAME`; the first by default).
    Hls,
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
    /// Passes or aliases to run first, in order, comma-separated; `help` lists them.
    #[arg(long, value_name = "PASS,...", value_delimiter = ',')]
    pub passes: Vec<String>,
    /// P4 and HLS: the scu to write, when the file has several.
    #[arg(long, value_name = "NAME")]
    pub scu: Option<String>,
}

/// Runs `scenicc emit`.
pub fn run(args: &EmitArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let p4_target = match args.what {
        Artifact::VitisP4 => Some(scenic_backend_p4::Target::VitisP4),
        Artifact::V1model => Some(scenic_backend_p4::Target::V1Model),
        _ => None,
    };
    if args.what == Artifact::Hls {
        return crate::hls::emit(&args.file, args.scu.as_deref(), output, deny_warnings);
    }
    if let Some(target) = p4_target {
        return crate::p4::emit(
            &args.file,
            args.scu.as_deref(),
            target,
            output,
            deny_warnings,
        );
    }
    let manager = PassManager::with_default_passes();
    if args.passes.iter().any(|p| p == "help") {
        print_stdout(&manager.list());
        return ExitCode::SUCCESS;
    }
    let names: Vec<&str> = args.passes.iter().map(|p| p.trim()).collect();
    if names.iter().any(|n| n.is_empty()) {
        return output.fail(&EmitError::EmptyPass);
    }
    // Unknown names are usage errors, found before the program is even read.
    if let Err(source) = manager.expand(&names) {
        return output.fail(&EmitError::Passes { source });
    }
    let mut compiled = match compile::lower_with_sources(&args.file, output, deny_warnings) {
        Ok(compiled) => compiled,
        Err(code) => return code,
    };
    let module = &mut compiled.module;
    let mut info = match compile::validate(module, "lowering", output) {
        Ok(info) => info,
        Err(code) => return code,
    };
    for name in names {
        if let Err(source) = manager.run_named(module, &[name]) {
            return output.fail(&EmitError::Passes { source });
        }
        info = match compile::validate(module, &format!("pass `{name}`"), output) {
            Ok(info) => info,
            Err(code) => return code,
        };
    }
    match args.what {
        Artifact::VitisP4 | Artifact::V1model | Artifact::Hls => {}
        Artifact::Ir => print_stdout(&scenic_ir::print::print_module(module)),
        Artifact::Manifest => {
            match crate::build::package_of(&args.file, &compiled, &info, output) {
                Ok(package) => print_stdout(&package.manifest.to_json_pretty()),
                Err(code) => return code,
            }
        }
    }
    ExitCode::SUCCESS
}
