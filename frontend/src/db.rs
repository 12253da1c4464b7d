//! The salsa database: inputs, queries, and how results are reused across edits.
//!
//! Inputs are [`SourceFile`]s (name and text) and the [`Workspace`] (which file each module path
//! names). Queries, from the bottom up:
//!
//! - [`file_split`]: a file's chunks. Re-runs on every edit of the file; it is a cheap byte scan.
//! - [`parse_chunk_text`]: keyed by the *text* of a chunk (interned), so a chunk whose text did not
//!   change is never re-parsed, wherever it moved.
//! - [`chunk_ast`]: the parse of chunk N of a file. Re-runs on every edit, but returns the same `Arc`
//!   for unchanged text, so everything that depends on it is reused (salsa backdating).
//! - `resolve::module_index`, `typeck::signature` and `typeck::check_chunk` (in their modules) build
//!   on these; per-chunk results use chunk-relative spans, so they stay equal when the chunk moves.
//! - `file_diagnostics`: everything found in one file, rebased to file offsets.
//!
//! Invariant: no query reads the file system; the driver loads every file the program `use`s into the
//! workspace before checking (see [`crate::driver`]).

use crate::diag::{Diagnostic, FileId, Loc};
use crate::parse::{self, ParsedChunk};
use crate::span::Span;
use crate::split::{self, ChunkKind, SplitFile};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The salsa inputs and interned keys. In a module of their own because the code salsa generates
/// for them (constructors, getters, setters) carries no documentation, which the crate's
/// `deny(missing_docs)` would refuse; the structs and their fields are documented here.
mod salsa_items {
    #![allow(missing_docs)]
    use super::*;

    /// A source file: its display name and its text.
    #[salsa::input(debug)]
    pub struct SourceFile {
        /// The name diagnostics show (the path as given, or `<std>/net.sn`).
        #[returns(ref)]
        pub name: String,
        /// The text.
        #[returns(ref)]
        pub text: String,
        /// The file's index in the source map.
        #[returns(copy)]
        pub id: FileId,
    }

    /// Which file each module path names. Keys are `std::net` for standard modules and the file's path for
    /// user modules (`dir/common.sn` for `use common::...` in `dir/main.sn`).
    #[salsa::input(singleton, debug)]
    pub struct Workspace {
        /// Module key to file.
        #[returns(ref)]
        pub modules: BTreeMap<String, SourceFile>,
    }

    /// The text of one chunk and how to parse it.
    #[salsa::interned(debug)]
    pub struct ChunkText<'db> {
        /// The chunk's source text.
        #[returns(ref)]
        pub text: String,
        /// How to parse it.
        #[returns(copy)]
        pub tag: ChunkTag,
    }

    /// Chunk `index` of `file`.
    #[salsa::interned(debug)]
    pub struct ChunkKey<'db> {
        /// The file.
        #[returns(copy)]
        pub file: SourceFile,
        /// The chunk's index in [`file_split`].
        #[returns(copy)]
        pub index: u32,
    }
}

pub use salsa_items::{ChunkKey, ChunkText, SourceFile, Workspace};

/// The database.
#[salsa::db]
#[derive(Clone, Default)]
pub struct Database {
    storage: salsa::Storage<Self>,
}

#[salsa::db]
impl salsa::Database for Database {}

/// The queries a database executed, by name and key, in order (see [`Database::with_execution_log`]).
pub type ExecutionLog = Arc<std::sync::Mutex<Vec<String>>>;

impl Database {
    /// A database that records every query it executes (not those it reuses), for tests that check
    /// what an edit re-computes.
    pub fn with_execution_log() -> (Database, ExecutionLog) {
        let log: ExecutionLog = Arc::default();
        let sink = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                if let Ok(mut entries) = sink.lock() {
                    entries.push(format!("{database_key:?}"));
                }
            }
        })));
        (Database { storage }, log)
    }
}

/// The kind of a chunk without its position (so equal texts share one parse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkTag {
    /// A top-level item.
    Item,
    /// An `scu` head.
    ScuHead,
    /// A `cc` head.
    CcHead,
    /// An `scu`/`cc` member.
    Member,
}

impl ChunkTag {
    fn of(kind: ChunkKind) -> ChunkTag {
        match kind {
            ChunkKind::Item => ChunkTag::Item,
            ChunkKind::ScuHead => ChunkTag::ScuHead,
            ChunkKind::CcHead => ChunkTag::CcHead,
            ChunkKind::Member { .. } => ChunkTag::Member,
        }
    }

    fn kind(self) -> ChunkKind {
        match self {
            ChunkTag::Item => ChunkKind::Item,
            ChunkTag::ScuHead => ChunkKind::ScuHead,
            ChunkTag::CcHead => ChunkKind::CcHead,
            ChunkTag::Member => ChunkKind::Member { parent: 0 },
        }
    }
}

/// A file cut into chunks.
#[salsa::tracked(returns(clone))]
pub fn file_split(db: &dyn salsa::Database, file: SourceFile) -> Arc<SplitFile> {
    Arc::new(split::split(file.text(db)))
}

/// The parse of one chunk's text.
#[salsa::tracked(returns(clone))]
pub fn parse_chunk_text<'db>(
    db: &'db dyn salsa::Database,
    chunk: ChunkText<'db>,
) -> Arc<ParsedChunk> {
    Arc::new(parse::parse_chunk(chunk.text(db), chunk.tag(db).kind()))
}

/// The parse of chunk `key`; an error node if the index is out of range.
#[salsa::tracked(returns(clone))]
pub fn chunk_ast<'db>(db: &'db dyn salsa::Database, key: ChunkKey<'db>) -> Arc<ParsedChunk> {
    let file = key.file(db);
    let split = file_split(db, file);
    let Some(chunk) = split.chunks.get(key.index(db) as usize) else {
        return Arc::new(parse::parse_chunk("", ChunkKind::Item));
    };
    let text = file.text(db).get(chunk.span.range()).unwrap_or("");
    let interned = ChunkText::new(db, text.to_string(), ChunkTag::of(chunk.kind));
    parse_chunk_text(db, interned)
}

/// The number of chunks in a file.
pub fn chunk_count(db: &dyn salsa::Database, file: SourceFile) -> u32 {
    file_split(db, file).chunks.len() as u32
}

/// Turns chunk-relative locations into file locations.
pub fn rebase(
    db: &dyn salsa::Database,
    file: SourceFile,
    chunk: u32,
    diag: Diagnostic,
) -> Diagnostic {
    let chunk_start = |f: SourceFile, c: u32| -> u32 {
        file_split(db, f)
            .chunks
            .get(c as usize)
            .map_or(0, |ch| ch.span.lo)
    };
    diag.map_locs(|loc| match loc {
        Loc::Here(span) => Loc::File {
            file: file.id(db),
            span: span.shifted(chunk_start(file, chunk)),
        },
        Loc::Chunk {
            file: fid,
            chunk: c,
            span,
        } => {
            let owner = if fid == file.id(db) {
                Some(file)
            } else {
                file_with_id(db, fid)
            };
            Loc::File {
                file: fid,
                span: owner.map_or(span, |f| span.shifted(chunk_start(f, c))),
            }
        }
        file_loc => file_loc,
    })
}

/// The loaded file with id `id`.
pub fn file_with_id(db: &dyn salsa::Database, id: FileId) -> Option<SourceFile> {
    Workspace::get(db)
        .modules(db)
        .values()
        .copied()
        .find(|f| f.id(db) == id)
}

/// Syntax-level diagnostics of a file: splitter errors and parse errors, rebased.
#[salsa::tracked(returns(clone))]
pub fn syntax_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let split = file_split(db, file);
    let mut out: Vec<Diagnostic> = split
        .errors
        .iter()
        .map(|err| {
            split_error(err).map_locs(|loc| match loc {
                Loc::Here(span) => Loc::File {
                    file: file.id(db),
                    span,
                },
                other => other,
            })
        })
        .collect();
    for index in 0..split.chunks.len() as u32 {
        let parsed = chunk_ast(db, ChunkKey::new(db, file, index));
        for diag in &parsed.diagnostics {
            out.push(rebase(db, file, index, diag.clone()));
        }
    }
    Arc::new(out)
}

fn split_error(err: &split::SplitError) -> Diagnostic {
    use crate::diag::codes;
    match err {
        split::SplitError::UnterminatedComment(span) => {
            Diagnostic::new(codes::E0005, *span, "unterminated block comment")
                .label("this `/*` has no matching `*/`")
                .help("close the comment with `*/`; block comments do not nest")
        }
        split::SplitError::UnclosedBrace(span) => {
            Diagnostic::new(codes::E0007, *span, "unclosed `{`")
                .label("this `{` is never closed")
                .help("add the missing `}`")
        }
        split::SplitError::UnexpectedClose(span) => {
            Diagnostic::new(codes::E0007, *span, "unexpected closing bracket")
                .label("nothing to close here")
                .help("remove it, or add the opening bracket it belongs to")
        }
    }
}

/// A span covering the whole of chunk `index` of `file` (file offsets).
pub fn chunk_span(db: &dyn salsa::Database, file: SourceFile, index: u32) -> Span {
    file_split(db, file)
        .chunks
        .get(index as usize)
        .map_or(Span::default(), |c| c.span)
}
