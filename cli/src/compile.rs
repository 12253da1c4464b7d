//! The front half every building subcommand shares: read a program, check it, lower it to the IR.
//! A `.p4` file goes through the P4 reader instead (`p4_input`), into the same IR.
//!
//! Diagnostics are printed as `check` prints them; a program with errors stops here with exit code 1
//! (2 when the file cannot be read).

use crate::errors::InputError;
use crate::output::{self, Output};
use crate::EXIT_ERRORS;
use scenic_frontend::{CheckOptions, Session};
use scenic_ir::{Module, ModuleInfo, Validator};
use std::path::Path;
use std::process::ExitCode;

pub use crate::compiled::Compiled;

/// The validator's facts about `module`, as it is after `after` (`lowering`, a pass); an invalid
/// IR is a bug in scenicc, reported as an internal error (exit code 101), never passed on.
pub fn validate(module: &Module, after: &str, output: &Output) -> Result<ModuleInfo, ExitCode> {
    Validator::new().validate(module).map_err(|source| {
        output.fail(&InputError::InvalidIr {
            after: after.to_string(),
            source,
        })
    })
}

/// Checks and lowers `path`; on failure the exit code to return (diagnostics already printed).
pub fn lower(path: &Path, output: &Output, deny_warnings: bool) -> Result<Module, ExitCode> {
    lower_with_sources(path, output, deny_warnings).map(|c| c.module)
}

/// [`lower`], keeping the sources (for stages that report errors at spans: the backends).
pub fn lower_with_sources(
    path: &Path,
    output: &Output,
    deny_warnings: bool,
) -> Result<Compiled, ExitCode> {
    if crate::p4_input::is_p4(path) {
        return crate::p4_input::lower(path, output, deny_warnings);
    }
    let mut session = Session::new();
    output.progress(&format!("compiling {}", path.display()));
    if let Err(err) = session.add_path(path) {
        return Err(output.fail(&InputError::load(err)));
    }
    let report = scenic_lower::check::check(&mut session, CheckOptions { deny_warnings });
    output.diagnostics(&report);
    if report.error_count() > 0 {
        let names = [path.display().to_string()];
        if let Some((level, line)) =
            output::check_summary(&names, report.error_count(), report.warning_count())
        {
            output.summary(level, &line);
        }
        return Err(ExitCode::from(EXIT_ERRORS));
    }
    let root = session.roots()[0];
    match scenic_lower::lower_file(session.db(), root) {
        Ok(module) => Ok(Compiled {
            module,
            sources: report.sources,
            root: (root.id(session.db()).0, root.text(session.db()).clone()),
        }),
        Err(source) => Err(output.fail(&InputError::Lower {
            path: path.display().to_string(),
            source,
        })),
    }
}

/// Checks that `--scu NAME`, when given, names an scu of `module`: a misspelt name is a usage
/// error that lists the program's scus, not a run in which every command fails.
pub fn require_scu(module: &Module, name: Option<&str>, output: &Output) -> Result<(), ExitCode> {
    let Some(name) = name else {
        return Ok(());
    };
    if module.scus.values().any(|s| s.name == name) {
        return Ok(());
    }
    let names: Vec<String> = module
        .scus
        .values()
        .map(|s| format!("`{}`", s.name))
        .collect();
    let known = if names.is_empty() {
        "it defines only congestion controllers".to_string()
    } else {
        format!("its scus: {}", names.join(", "))
    };
    Err(output.fail(&InputError::NoSuchScu {
        name: name.to_string(),
        known,
    }))
}
