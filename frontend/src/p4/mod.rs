//! The P4_16 reader: `.p4` programs for v1model and Vitis Networking P4, read into the same
//! checked form the IR lowering takes.
//!
//! The stages mirror the scenic frontend's: [`source`] preprocesses (includes, object-like
//! macros, conditionals) into one expanded text with a map back to the files; [`parse`] reads it
//! with a pest grammar (`p4.pest`) into the [`ast`]; [`check`] resolves names, checks types and
//! the supported subset, and identifies the architecture. Diagnostics use the house codes E0701 to
//! E0712 (docs/errors.md); anything outside the subset is E0702 "not supported yet: ..." with a
//! span, never a panic. `docs/p4.md` ("P4 input") describes the subset and its meaning.
//!
//! The architecture declaration files (`arch/core.p4`, `arch/v1model.p4`, `arch/xsa.p4`) are the
//! project's own, written from the public documentation; `#include <v1model.p4>` finds them
//! without any search path.

pub mod ast;
pub mod check;
pub mod parse;
pub mod source;

use crate::diag::render::SourceMap;
use crate::diag::Diagnostic;
use crate::driver::CheckReport;
use std::sync::Arc;

/// The outcome of reading a P4 program.
pub struct Read {
    /// Every diagnostic, with file locations, sorted.
    pub report: CheckReport,
    /// The checked program (complete when the report has no error).
    pub checked: check::Checked,
}

impl Read {
    /// The checked program, if it has no errors.
    pub fn ok(&self) -> Option<&check::Checked> {
        (self.report.error_count() == 0 && self.checked.arch.is_some()).then_some(&self.checked)
    }
}

/// Reads a P4 program from text; `#include "..."` files come from `loader`.
pub fn read(name: &str, text: &str, loader: &mut dyn source::Loader) -> Read {
    let (expanded, mut diags) = source::expand(name, text, loader);
    let (program, parse_diags) = if diags.iter().any(Diagnostic::is_error) {
        (ast::Program::default(), Vec::new())
    } else {
        parse::parse_program(&expanded.text)
    };
    let had_syntax_errors = parse_diags.iter().any(Diagnostic::is_error);
    diags.extend(parse_diags.into_iter().map(|d| expanded.rebase(d)));
    let (checked, check_diags) = if diags.iter().any(Diagnostic::is_error) || had_syntax_errors {
        let checked = check::Checked {
            sources: expanded,
            ..check::Checked::default()
        };
        (checked, Vec::new())
    } else {
        stack_guarded(|| check::check(program, expanded))
    };
    diags.extend(check_diags.into_iter().map(|d| checked.sources.rebase(d)));
    diags.sort_by_key(|d| match d.primary_loc() {
        Some(crate::diag::Loc::File { file, span }) => (file.0, span.lo, span.hi),
        _ => (u32::MAX, 0, 0),
    });
    diags.dedup();
    let mut sources = SourceMap::default();
    for f in &checked.sources.files {
        sources.insert(f.id, f.name.clone(), Arc::from(f.text.as_str()));
    }
    Read {
        report: CheckReport {
            diagnostics: diags,
            sources,
        },
        checked,
    }
}

/// Reads a P4 file from disk, with `#include "..."` relative to it.
pub fn read_path(path: &std::path::Path) -> Result<Read, crate::driver::LoadError> {
    let bytes = std::fs::read(path).map_err(|source| crate::driver::LoadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(read(
        &path.display().to_string(),
        &text,
        &mut source::DiskLoader,
    ))
}

/// Whether a path names a P4 program (by its extension).
pub fn is_p4_path(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "p4")
}

/// Runs `f` with room to recurse: the checker walks expressions recursively, and the parser
/// bounds their depth, so a generous stack segment is enough.
fn stack_guarded<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, f)
}
