//! Machine-readable diagnostics: one JSON object per line (`--message-format json`).
//!
//! Keys: `severity` (`"error"`/`"warning"`), `code`, `message`, `file`, `line`, `column` (1-based,
//! column in characters), `end_line`, `end_column`, `labels` (each with `file`, `line`, `column`,
//! `end_line`, `end_column`, `message`, `primary`), `notes`, `help`. The location keys describe the
//! primary label. The format is stable; new keys may be added.

use super::render::SourceMap;
use super::{Diagnostic, Loc};
use serde::Serialize;

#[derive(Serialize)]
struct JsonLabel<'a> {
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    primary: bool,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    severity: super::Severity,
    code: &'static str,
    message: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    labels: Vec<JsonLabel<'a>>,
    notes: &'a [String],
    help: &'a [String],
}

/// One diagnostic as a single-line JSON object (no trailing newline).
pub fn to_json_line(diag: &Diagnostic, map: &SourceMap) -> String {
    let labels: Vec<JsonLabel> = diag
        .labels
        .iter()
        .filter_map(|label| {
            let Loc::File { file, span } = label.loc else {
                return None;
            };
            let start = map.line_col(file, span.lo as usize);
            let end = map.line_col(file, span.hi as usize);
            Some(JsonLabel {
                file: map.name(file),
                line: start.line,
                column: start.column,
                end_line: end.line,
                end_column: end.column,
                message: &label.message,
                primary: label.primary,
            })
        })
        .collect();
    let primary = labels.iter().find(|l| l.primary).or(labels.first());
    let (file, line, column, end_line, end_column) = match primary {
        Some(l) => (l.file, l.line, l.column, l.end_line, l.end_column),
        None => ("", 0, 0, 0, 0),
    };
    let json = JsonDiagnostic {
        severity: diag.severity,
        code: diag.code.id,
        message: &diag.message,
        file,
        line,
        column,
        end_line,
        end_column,
        labels,
        notes: &diag.notes,
        help: &diag.help,
    };
    serde_json::to_string(&json).unwrap_or_else(|err| format!("{{\"error\":\"{err}\"}}"))
}
