//! Human-readable rendering, like rustc: `error[E0201]: ...`, `--> file.sn:12:7`, labelled source.

use super::{Diagnostic, FileId, Loc, Severity};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{self, Files};
use codespan_reporting::term::{self, Chars, Config};
use std::ops::Range;
use std::sync::Arc;

/// The texts and names of the files diagnostics point into.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceEntry>,
}

#[derive(Clone, Debug)]
struct SourceEntry {
    name: String,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

/// A 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

impl SourceMap {
    /// Sets the name and text of `file`, growing the map as needed.
    pub fn insert(&mut self, file: FileId, name: impl Into<String>, text: Arc<str>) {
        let index = file.0 as usize;
        while self.files.len() <= index {
            self.files.push(SourceEntry {
                name: String::new(),
                text: Arc::from(""),
                line_starts: vec![0],
            });
        }
        let line_starts = files::line_starts(&text).collect();
        self.files[index] = SourceEntry {
            name: name.into(),
            text,
            line_starts,
        };
    }

    /// The display name of `file`.
    pub fn name(&self, file: FileId) -> &str {
        self.files
            .get(file.0 as usize)
            .map_or("<unknown>", |f| f.name.as_str())
    }

    /// The 1-based line and column of byte `offset` in `file` (clamped to the text).
    pub fn line_col(&self, file: FileId, offset: usize) -> LineCol {
        let Some(entry) = self.files.get(file.0 as usize) else {
            return LineCol { line: 1, column: 1 };
        };
        let offset = clamp_to_char_boundary(&entry.text, offset);
        let line = match entry.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        };
        let start = entry.line_starts[line];
        let column = entry.text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    fn entry(&self, file: usize) -> Result<&SourceEntry, files::Error> {
        self.files.get(file).ok_or(files::Error::FileMissing)
    }
}

fn clamp_to_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

impl<'a> Files<'a> for SourceMap {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, files::Error> {
        Ok(self.entry(id)?.name.as_str())
    }

    fn source(&'a self, id: usize) -> Result<&'a str, files::Error> {
        Ok(&self.entry(id)?.text)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, files::Error> {
        let starts = &self.entry(id)?.line_starts;
        Ok(match starts.binary_search(&byte_index) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        })
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, files::Error> {
        let entry = self.entry(id)?;
        let start = *entry
            .line_starts
            .get(line_index)
            .ok_or(files::Error::LineTooLarge {
                given: line_index,
                max: entry.line_starts.len().saturating_sub(1),
            })?;
        let end = entry
            .line_starts
            .get(line_index + 1)
            .copied()
            .unwrap_or(entry.text.len());
        Ok(start..end)
    }
}

/// Converts a rebased diagnostic to codespan's form. Labels that are still chunk-relative (a bug in
/// the caller) are dropped rather than pointing at the wrong place.
fn to_codespan(diag: &Diagnostic, map: &SourceMap) -> cs::Diagnostic<usize> {
    let severity = match diag.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
    };
    let labels = diag
        .labels
        .iter()
        .filter_map(|label| {
            let Loc::File { file, span } = label.loc else {
                return None;
            };
            let text_len = map.files.get(file.0 as usize).map_or(0, |f| f.text.len());
            let lo = clamp_to_char_boundary_in(map, file, span.lo as usize, text_len);
            let hi = clamp_to_char_boundary_in(map, file, span.hi as usize, text_len).max(lo);
            let style = if label.primary {
                cs::LabelStyle::Primary
            } else {
                cs::LabelStyle::Secondary
            };
            Some(cs::Label::new(style, file.0 as usize, lo..hi).with_message(label.message.clone()))
        })
        .collect();
    let mut notes: Vec<String> = diag.notes.iter().map(|n| format!("note: {n}")).collect();
    notes.extend(diag.help.iter().map(|h| format!("help: {h}")));
    cs::Diagnostic::new(severity)
        .with_code(diag.code.id)
        .with_message(diag.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

fn clamp_to_char_boundary_in(map: &SourceMap, file: FileId, offset: usize, len: usize) -> usize {
    match map.files.get(file.0 as usize) {
        Some(entry) => clamp_to_char_boundary(&entry.text, offset.min(len)),
        None => 0,
    }
}

/// Renders diagnostics as plain text (no colour), the form golden tests snapshot.
pub fn to_plain_string(diags: &[Diagnostic], map: &SourceMap) -> String {
    let config = config();
    let mut out = String::new();
    for diag in diags {
        let cs_diag = to_codespan(diag, map);
        if term::emit_to_string(&mut out, &config, map, &cs_diag).is_err() {
            out.push_str(&format!(
                "{}[{}]: {}\n",
                severity_word(diag),
                diag.code.id,
                diag.message
            ));
        }
    }
    out
}

/// Writes diagnostics to a terminal stream, in colour when `stream` supports it.
pub fn emit(
    stream: &mut dyn term::WriteStyle,
    diags: &[Diagnostic],
    map: &SourceMap,
) -> std::io::Result<()> {
    let config = config();
    for diag in diags {
        let cs_diag = to_codespan(diag, map);
        if let Err(err) = term::emit_to_write_style(stream, &config, map, &cs_diag) {
            return Err(std::io::Error::other(err.to_string()));
        }
    }
    Ok(())
}

/// rustc's look: `-->` and `|` rather than box-drawing characters.
fn config() -> Config {
    Config {
        chars: Chars::ascii(),
        ..Config::default()
    }
}

fn severity_word(diag: &Diagnostic) -> &'static str {
    match diag.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}
