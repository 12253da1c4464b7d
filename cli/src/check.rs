//! `scenicc check FILE...`: parse and check programs, print diagnostics, build nothing.
//!
//! `.p4` files are read by the P4 reader (and lowered, so what the IR cannot express is reported
//! too). All `.sn` files are checked in one frontend session, so modules they share are read once.
//! A file that cannot be read is a usage problem (exit 2) and the `.sn` files are not checked;
//! otherwise the exit code is 1 when any error was reported (after `-D warnings`) and 0 when not.

use crate::errors::InputError;
use crate::output::{self, Output};
use crate::{EXIT_ERRORS, EXIT_USAGE};
use scenic_frontend::{CheckOptions, Session};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `scenicc check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The `.sn` files to check (the modules they `use` are loaded too), or `.p4` programs
    /// (v1model or Vitis Networking P4, the subset of docs/p4.md).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Runs `scenicc check`.
pub fn run(args: &CheckArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let files = unique(&args.files);
    let mut session = Session::new();
    let mut unreadable = false;
    // `.p4` files are read one by one by the P4 reader; `.sn` files share one session.
    let (mut p4_errors, mut p4_warnings) = (0, 0);
    for path in files.iter().filter(|p| crate::p4_input::is_p4(p)) {
        match crate::p4_input::check(path, output, deny_warnings) {
            Ok((e, w)) => {
                p4_errors += e;
                p4_warnings += w;
            }
            Err(_) => unreadable = true,
        }
    }
    for path in files.iter().filter(|p| !crate::p4_input::is_p4(p)) {
        output.progress(&format!("checking {}", path.display()));
        if let Err(err) = session.add_path(path) {
            output.fail(&InputError::load(err));
            unreadable = true;
        }
    }
    if unreadable {
        return ExitCode::from(EXIT_USAGE);
    }
    let report = scenic_lower::check::check(&mut session, CheckOptions { deny_warnings });
    output.diagnostics(&report);
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let errors = report.error_count() + p4_errors;
    let warnings = report.warning_count() + p4_warnings;
    if let Some((level, line)) = output::check_summary(&names, errors, warnings) {
        output.summary(level, &line);
    }
    if errors > 0 {
        return ExitCode::from(EXIT_ERRORS);
    }
    output.done(&format!("{} checked", output::count(files.len(), "file")));
    ExitCode::SUCCESS
}

/// The files in command-line order, each once (`check a.sn a.sn` checks `a.sn` once).
fn unique(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = Vec::new();
    for file in files {
        if !seen.contains(file) {
            seen.push(file.clone());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_files_are_checked_once() {
        let files: Vec<PathBuf> = ["a.sn", "b.sn", "a.sn"].iter().map(PathBuf::from).collect();
        assert_eq!(
            unique(&files),
            vec![PathBuf::from("a.sn"), PathBuf::from("b.sn")]
        );
    }
}
