//! The HLS backend from the command line: `scenicc emit hls FILE [--scu NAME]` prints a kernel's
//! C++, and `scenicc test FILE T.stf --backend hls-csim [--ap-types DIR]` runs STF tests on the
//! C-simulated kernels (`scenic_hls_csim`).
//!
//! Backend errors (a construct it cannot generate, a limit of the device) carry IR spans and are
//! rendered at their source like every other diagnostic.

use crate::compile::{self, Compiled};
use crate::errors::{EmitError, TestError};
use crate::output::{print_stdout, Level, Output};
use crate::EXIT_ERRORS;
use scenic_backend_hls::{Options, SourceLines};
use scenic_hls_csim::{self as csim, CsimDevice};
use scenic_sim::stf::{self, StfReport};
use std::path::Path;
use std::process::ExitCode;

/// The generator's options with the root file's lines (for `// file.sn:LINE` comments).
fn options(file: &Path, compiled: &Compiled) -> Options {
    let mut sources = SourceLines::default();
    sources.add(
        compiled.root.0,
        &file.display().to_string(),
        &compiled.root.1,
    );
    Options {
        sources,
        ..Options::default()
    }
}

fn backend_error(
    file: &Path,
    compiled: &Compiled,
    err: &scenic_backend_hls::Error,
    output: &Output,
) -> ExitCode {
    output.span_error(&compiled.sources, &err.to_string(), err.span());
    output.summary(
        Level::Error,
        &format!(
            "could not generate HLS for `{}` due to 1 previous error",
            file.display()
        ),
    );
    ExitCode::from(EXIT_ERRORS)
}

/// `scenicc emit hls FILE [--scu NAME]`: the kernel `.cpp` of the scu or cc `NAME` (by default the
/// first scu, else the first cc).
pub fn emit(file: &Path, scu: Option<&str>, output: &Output, deny_warnings: bool) -> ExitCode {
    let compiled = match compile::lower_with_sources(file, output, deny_warnings) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let info = match compile::validate(&compiled.module, "lowering", output) {
        Ok(info) => info,
        Err(code) => return code,
    };
    let module = &compiled.module;
    let name = match scu
        .map(str::to_string)
        .or_else(|| module.scus.values().next().map(|s| s.name.clone()))
        .or_else(|| module.ccs.values().next().map(|c| c.name.clone()))
    {
        Some(name) => name,
        None => {
            let file = file.display().to_string();
            return output.fail(&EmitError::NoKernel { file });
        }
    };
    match scenic_backend_hls::write_one(module, &info, &options(file, &compiled), &name) {
        Ok(kernel) => {
            print_stdout(&kernel.cpp);
            ExitCode::SUCCESS
        }
        Err(scenic_backend_hls::Error::NoSuchScu(name)) => {
            output.fail(&EmitError::NoSuchKernel { name })
        }
        Err(err) => backend_error(file, &compiled, &err, output),
    }
}

/// Runs STF files (`(name, text)`) on the C-simulated kernels of `file`; one fresh device per
/// file, as the interpreter gets a fresh machine. `None` after printing why nothing could run.
pub fn run_stf(
    file: &Path,
    texts: &[(String, String)],
    scu: Option<&str>,
    ap_types: Option<&Path>,
    output: &Output,
    deny_warnings: bool,
) -> Result<Vec<(String, StfReport)>, ExitCode> {
    let ap_types =
        csim::ap_types(ap_types).map_err(|source| output.fail(&TestError::ApTypes { source }))?;
    let compiled = compile::lower_with_sources(file, output, deny_warnings)?;
    compile::require_scu(&compiled.module, scu, output)?;
    let info = compile::validate(&compiled.module, "lowering", output)?;
    let files =
        scenic_backend_hls::write_kernel(&compiled.module, &info, &options(file, &compiled))
            .map_err(|err| backend_error(file, &compiled, &err, output))?;
    let mut reports = Vec::new();
    for (name, text) in texts {
        output.progress(&format!("running {name} on hls-csim"));
        let commands = match stf::parse_report(text) {
            Ok(commands) => commands,
            Err(report) => {
                reports.push((name.clone(), report));
                continue;
            }
        };
        let mut device = CsimDevice::new(&compiled.module, &files, &ap_types, &[])
            .map_err(|source| output.fail(&TestError::Csim { source }))?;
        reports.push((name.clone(), stf::run_on(&mut device, &commands, scu)));
    }
    Ok(reports)
}
