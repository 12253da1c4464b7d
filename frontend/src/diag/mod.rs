//! Diagnostics: what went wrong, where, and what to do about it.
//!
//! A [`Diagnostic`] is built where the problem is found, with labelled locations, notes and help.
//! Locations made while checking one chunk are chunk-relative ([`Loc::Here`]) so that the result can be
//! reused when other chunks move; [`crate::db`] rebases them to file offsets ([`Loc::File`]) before
//! rendering. [`render`] prints them like rustc (codespan-reporting); [`json`] prints one JSON object per
//! diagnostic; [`explain`] looks up the long explanation of a code in `docs/errors.md`.

pub mod codes;
pub mod explain;
pub mod json;
pub mod render;

pub use codes::{Code, Severity};

use crate::span::Span;
use serde::Serialize;

/// Index of a source file in the [`crate::db::Workspace`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub struct FileId(pub u32);

/// Where a label points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    /// In the chunk whose check produced the diagnostic; relative to its start.
    Here(Span),
    /// In another chunk of some file; relative to that chunk's start.
    Chunk {
        /// The file.
        file: FileId,
        /// The chunk's index in the file.
        chunk: u32,
        /// The span within the chunk.
        span: Span,
    },
    /// A file offset.
    File {
        /// The file.
        file: FileId,
        /// The span within the file.
        span: Span,
    },
}

/// A labelled location.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Where.
    pub loc: Loc,
    /// What is there (may be empty).
    pub message: String,
    /// The primary label is the one the `-->` line points at; a diagnostic has exactly one.
    pub primary: bool,
}

/// One problem found in a program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Error or warning; warnings become errors under `-D warnings`.
    pub severity: Severity,
    /// The code, documented in `docs/errors.md`.
    pub code: Code,
    /// The headline.
    pub message: String,
    /// The primary label first, then secondary ones.
    pub labels: Vec<Label>,
    /// `= note: ...` lines.
    pub notes: Vec<String>,
    /// `= help: ...` lines.
    pub help: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic with `code`'s severity whose primary label is at `span` in the current chunk.
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(code, Loc::Here(span), message)
    }

    /// A diagnostic with `code`'s severity whose primary label is at `loc`.
    pub fn at(code: Code, loc: Loc, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: code.severity(),
            code,
            message: message.into(),
            labels: vec![Label {
                loc,
                message: String::new(),
                primary: true,
            }],
            notes: Vec::new(),
            help: Vec::new(),
        }
    }

    /// Sets the primary label's text.
    pub fn label(mut self, message: impl Into<String>) -> Diagnostic {
        if let Some(primary) = self.labels.iter_mut().find(|l| l.primary) {
            primary.message = message.into();
        }
        self
    }

    /// Adds a secondary label in the current chunk.
    pub fn secondary(self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary_at(Loc::Here(span), message)
    }

    /// Adds a secondary label anywhere.
    pub fn secondary_at(mut self, loc: Loc, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            loc,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Adds a help line.
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }

    /// The primary location.
    pub fn primary_loc(&self) -> Option<Loc> {
        self.labels.iter().find(|l| l.primary).map(|l| l.loc)
    }

    /// Whether this is an error (after `-D warnings` has been applied, if it was).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Rewrites every location with `f` (used to rebase chunk-relative locations).
    pub fn map_locs(mut self, mut f: impl FnMut(Loc) -> Loc) -> Diagnostic {
        for label in &mut self.labels {
            label.loc = f(label.loc);
        }
        self
    }
}
