//! `scenicc explain CODE` and `scenicc explain --list`: the long explanations of diagnostic codes.
//!
//! The text comes from `docs/errors.md`, embedded in the frontend (`scenic_frontend::diag::explain`);
//! the list comes from the code catalogue (`scenic_frontend::diag::codes`). A code that is in the
//! catalogue but not yet documented prints its title and says so; a code that is in neither is a usage
//! error (exit 2).

use crate::errors::ExplainError;
use crate::output::{self, Output};
use scenic_frontend::diag::{codes, explain};
use std::process::ExitCode;

/// Arguments of `scenicc explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The diagnostic code, such as `E0202` (case does not matter).
    #[arg(
        value_name = "CODE",
        required_unless_present = "list",
        conflicts_with = "list"
    )]
    pub code: Option<String>,
    /// List every code with its title, one per line.
    #[arg(long)]
    pub list: bool,
}

/// Runs `scenicc explain`.
pub fn run(args: &ExplainArgs, out: &Output) -> ExitCode {
    match &args.code {
        Some(code) if !args.list => explain_code(code, out),
        _ => {
            output::print_stdout(&list());
            ExitCode::SUCCESS
        }
    }
}

fn explain_code(code: &str, out: &Output) -> ExitCode {
    if let Some(text) = explain::explanation(code) {
        output::print_stdout(&format!("{text}\n"));
        return ExitCode::SUCCESS;
    }
    match codes::lookup(code.trim()) {
        Some(known) => {
            output::print_stdout(&format!(
                "## {}: {}\n\nThis code has no long explanation yet (see docs/errors.md).\n",
                known.id, known.title
            ));
            ExitCode::SUCCESS
        }
        None => out.fail(&ExplainError::UnknownCode(code.trim().to_string())),
    }
}

/// `E0001: syntax error`, one line per code, in catalogue order.
fn list() -> String {
    codes::ALL
        .iter()
        .map(|code| format!("{}: {}\n", code.id, code.title))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_has_every_code_once() {
        let text = list();
        assert_eq!(text.lines().count(), codes::ALL.len());
        assert!(text.lines().any(|line| line == "E0001: syntax error"));
    }
}
