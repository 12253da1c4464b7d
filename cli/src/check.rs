//! `scenicc check FILE...`: parse and check programs, print diagnostics, build nothing.
//!
//! All files are checked in one frontend session, so modules they share are read once. A file that
//! cannot be read is a usage problem (exit 2) and nothing is checked; otherwise the exit code is 1 when
//! any error was reported (after `-D warnings`) and 0 when not.

use crate::output::{self, Output};
use crate::{EXIT_ERRORS, EXIT_USAGE};
use scenic_frontend::{CheckOptions, Session};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `scenicc check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The `.sn` files to check; the modules they `use` are loaded too.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Runs `scenicc check`.
pub fn run(args: &CheckArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let files = unique(&args.files);
    let mut session = Session::new();
    let mut unreadable = false;
    for path in &files {
        output.progress(&format!("checking {}", path.display()));
        if let Err(err) = session.add_path(path) {
            output.message(output::Level::Error, &err.to_string());
            unreadable = true;
        }
    }
    if unreadable {
        return ExitCode::from(EXIT_USAGE);
    }
    let report = scenic_ir::check::check(&mut session, CheckOptions { deny_warnings });
    output.diagnostics(&report);
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let (errors, warnings) = (report.error_count(), report.warning_count());
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
