//! `.p4` programs as input: `check`, `sim`, `test` and `build` read a file ending in `.p4` with the
//! P4 reader (`scenic_frontend::p4`) and lower it with `scenic_lower::p4` into the same IR a
//! `.sn` program becomes, so every later stage runs unchanged.
//!
//! The reader owns the subset and its diagnostics (E0701–E0712, each at file:line:col; what the
//! lowering cannot express is E0702); this module only prints them the way `check` prints a `.sn`
//! file's, applies `-D warnings`, and maps the outcome to exit codes (1 errors, 2 unreadable file).

use crate::compiled::Compiled;
use crate::errors::InputError;
use crate::output::{self, Output};
use crate::EXIT_ERRORS;
use scenic_frontend::diag::Severity;
use scenic_frontend::CheckReport;
use std::path::Path;
use std::process::ExitCode;

/// Whether `path` is read as P4 (by its extension).
pub fn is_p4(path: &Path) -> bool {
    scenic_frontend::p4::is_p4_path(path)
}

/// Reads, checks and lowers a `.p4` file; prints its diagnostics. `Err` is the exit code (the
/// summary line already printed).
pub fn lower(path: &Path, out: &Output, deny_warnings: bool) -> Result<Compiled, ExitCode> {
    out.progress(&format!("compiling {}", path.display()));
    let (report, module) = read(path, out, deny_warnings)?;
    out.diagnostics(&report);
    let module = match module {
        Some(m) if report.error_count() == 0 => m,
        _ => {
            summary(path, &report, out);
            return Err(ExitCode::from(EXIT_ERRORS));
        }
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    Ok(Compiled {
        module,
        sources: report.sources,
        // The reader numbers the root file 0 and its includes after it.
        root: (0, text),
    })
}

/// `scenicc check` of one `.p4` file: (errors, warnings), diagnostics printed; `Err` when the
/// file cannot be read.
pub fn check(path: &Path, out: &Output, deny_warnings: bool) -> Result<(usize, usize), ExitCode> {
    out.progress(&format!("checking {}", path.display()));
    let (report, _) = read(path, out, deny_warnings)?;
    out.diagnostics(&report);
    Ok((report.error_count(), report.warning_count()))
}

/// The reader and the lowering, with `-D warnings` applied as `check` applies it.
fn read(
    path: &Path,
    out: &Output,
    deny_warnings: bool,
) -> Result<(CheckReport, Option<scenic_ir::Module>), ExitCode> {
    let (mut report, module) = match scenic_lower::p4::compile_path(path) {
        Ok(r) => r,
        Err(err) => return Err(out.fail(&InputError::load(err))),
    };
    if deny_warnings {
        for diag in &mut report.diagnostics {
            if diag.severity == Severity::Warning {
                diag.severity = Severity::Error;
                diag.notes.push(format!(
                    "`-D warnings` turns warning {} into an error",
                    diag.code.id
                ));
            }
        }
    }
    Ok((report, module))
}

fn summary(path: &Path, report: &CheckReport, out: &Output) {
    let names = [path.display().to_string()];
    if let Some((level, line)) =
        output::check_summary(&names, report.error_count(), report.warning_count())
    {
        out.summary(level, &line);
    }
}
