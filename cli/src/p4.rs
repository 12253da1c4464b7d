//! `scenicc emit vitis-p4|v1model FILE`: the P4_16 program of a file's scu (a `.sn` file, or a `.p4`
//! one, which this translates between P4 targets), or every reason it has none, rendered like the compiler's other diagnostics (`error[P0003]: ...`, `--> file:line:col`).
//!
//! The backend (`scenic_backend_p4`) knows nothing of the frontend's diagnostics; its errors carry IR
//! spans, which [`to_diagnostic`] turns into labelled diagnostics over the session's sources.

use crate::compile;
use crate::output::{self, print_stdout, Level, Output};
use crate::{EXIT_ERRORS, EXIT_INTERNAL};
use scenic_backend_p4::{write_p4, Error, Options, Target};
use scenic_frontend::diag::{Code, Diagnostic, Loc};
use scenic_frontend::span::Span as FileSpan;
use scenic_frontend::CheckReport;
use std::path::Path;
use std::process::ExitCode;

/// Checks, lowers and writes `file` (a `.sn` program, or a `.p4` one read by the P4 reader) as P4
/// for `target`; prints the program on stdout.
pub fn emit(
    file: &Path,
    scu: Option<&str>,
    target: Target,
    output: &Output,
    deny_warnings: bool,
) -> ExitCode {
    let compiled = match compile::lower_with_sources(file, output, deny_warnings) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let module = &compiled.module;
    let info = match compile::validate(&compiled.module, "lowering", output) {
        Ok(info) => info,
        Err(code) => return code,
    };
    let mut options = Options::new(target);
    options.scu = scu.map(str::to_string);
    match write_p4(module, &info, &options) {
        Ok(text) => {
            print_stdout(&text);
            ExitCode::SUCCESS
        }
        Err(errors) => {
            let report = CheckReport {
                diagnostics: Vec::new(),
                sources: compiled.sources,
            };
            report_errors(&errors.0, report, output);
            let internal = errors.0.iter().any(|e| matches!(e, Error::Internal(_)));
            output.summary(
                Level::Error,
                &format!(
                    "could not write `{}` for {target} due to {}",
                    file.display(),
                    output::count(errors.0.len(), "previous error")
                ),
            );
            ExitCode::from(if internal { EXIT_INTERNAL } else { EXIT_ERRORS })
        }
    }
}

/// Prints the backend's errors: those with a span as diagnostics over `report`'s sources, the
/// others as plain messages.
pub fn report_errors(errors: &[Error], report: CheckReport, output: &Output) {
    let mut diagnostics = Vec::new();
    for err in errors {
        match to_diagnostic(err) {
            Some(diag) => diagnostics.push(diag),
            None => {
                let mut text = err.to_string();
                for help in err.help() {
                    text.push_str(&format!("\n  = help: {help}"));
                }
                output.message(Level::Error, &text);
            }
        }
    }
    if !diagnostics.is_empty() {
        output.diagnostics(&CheckReport {
            diagnostics,
            sources: report.sources,
        });
    }
}

/// A backend error as a diagnostic, when it points into the source.
pub fn to_diagnostic(err: &Error) -> Option<Diagnostic> {
    let span = err.span()?;
    let code = Code {
        id: err.code(),
        title: "not expressible on this target",
    };
    let mut diag = Diagnostic::at(code, loc(span), err.to_string()).label(err.label());
    for (span, label) in err.related() {
        diag = diag.secondary_at(loc(*span), label.clone());
    }
    for note in err.notes() {
        diag = diag.note(note);
    }
    for help in err.help() {
        diag = diag.help(help);
    }
    Some(diag)
}

fn loc(span: scenic_ir::Span) -> Loc {
    Loc::File {
        file: scenic_frontend::diag::FileId(span.file.0),
        span: FileSpan {
            lo: span.lo,
            hi: span.hi,
        },
    }
}
