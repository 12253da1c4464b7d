//! The driver: loads files into the database and runs the checks.
//!
//! A [`Session`] owns one salsa [`Database`]. Files given by the user are *roots*; the driver follows
//! their `use` declarations and loads every user module they name (relative to the importing file)
//! before any query runs, because queries never touch the file system. The standard library is built
//! in. Checking returns every diagnostic of every user file, rebased to file offsets and sorted.

use crate::db::{Database, SourceFile, Workspace};
use crate::diag::codes;
use crate::diag::render::SourceMap;
use crate::diag::{Diagnostic, FileId, Loc, Severity};
use crate::span::Span;
use crate::stdlib;
use salsa::Setter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a file given on the command line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Options for a check.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    /// `-D warnings`: report warnings as errors.
    pub deny_warnings: bool,
}

/// The outcome of a check.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// Every diagnostic, in file then position order, with file locations.
    pub diagnostics: Vec<Diagnostic>,
    /// Names and texts of the files the diagnostics point into.
    pub sources: SourceMap,
}

impl CheckReport {
    /// The number of errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The number of warnings.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }

    /// All diagnostics rendered as plain text, as rustc prints them.
    pub fn render_plain(&self) -> String {
        crate::diag::render::to_plain_string(&self.diagnostics, &self.sources)
    }

    /// All diagnostics as JSON lines.
    pub fn json_lines(&self) -> Vec<String> {
        self.diagnostics
            .iter()
            .map(|d| crate::diag::json::to_json_line(d, &self.sources))
            .collect()
    }
}

/// A compilation session: a database, its files, and which of them the user asked for.
pub struct Session {
    db: Database,
    files: Vec<SourceFile>,
    roots: Vec<SourceFile>,
    /// Paths of user files by module key, for `use` resolution.
    paths: BTreeMap<String, PathBuf>,
    /// UTF-8 problems found while loading, per file.
    load_diags: BTreeMap<FileId, Diagnostic>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session with the standard library loaded.
    pub fn new() -> Session {
        Session::with_database(Database::default())
    }

    /// A session over a given database (e.g. one that logs query executions).
    pub fn with_database(db: Database) -> Session {
        Workspace::new(&db, BTreeMap::new());
        let mut session = Session {
            db,
            files: Vec::new(),
            roots: Vec::new(),
            paths: BTreeMap::new(),
            load_diags: BTreeMap::new(),
        };
        for (module, name, text) in stdlib::MODULES {
            let file = session.new_file(name.to_string(), text.to_string());
            session.register_module(module.to_string(), file);
        }
        session
    }

    /// The files the user gave, in order.
    pub fn roots(&self) -> &[SourceFile] {
        &self.roots
    }

    /// The database, for queries.
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// Reads a root file from disk.
    pub fn add_path(&mut self, path: &Path) -> Result<SourceFile, LoadError> {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let name = path.display().to_string();
        let file = self.add_bytes(name, &bytes);
        self.paths
            .insert(module_key_of_path(path), path.to_path_buf());
        self.register_module(module_key_of_path(path), file);
        self.roots.push(file);
        Ok(file)
    }

    /// Adds a root file from memory (tests, benches, tools); `name` is what diagnostics show.
    pub fn add_source(&mut self, name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let name = name.into();
        let file = self.new_file(name.clone(), text.into());
        self.register_module(module_key_of_path(Path::new(&name)), file);
        self.roots.push(file);
        file
    }

    /// Adds a root file from raw bytes, which need not be UTF-8 (invalid input is reported as E0013).
    pub fn add_source_bytes(&mut self, name: impl Into<String>, bytes: &[u8]) -> SourceFile {
        let name = name.into();
        let file = self.add_bytes(name.clone(), bytes);
        self.register_module(module_key_of_path(Path::new(&name)), file);
        self.roots.push(file);
        file
    }

    /// Replaces a file's text (an edit).
    pub fn set_text(&mut self, file: SourceFile, text: impl Into<String>) {
        file.set_text(&mut self.db).to(text.into());
    }

    /// Checks every root file and the user modules they import.
    pub fn check(&mut self, options: CheckOptions) -> CheckReport {
        self.load_imports();
        let mut diagnostics = Vec::new();
        for file in self.user_files() {
            if let Some(diag) = self.load_diags.get(&file.id(&self.db)) {
                diagnostics.push(diag.clone());
            }
            diagnostics.extend(
                crate::check::file_diagnostics(&self.db, file)
                    .iter()
                    .cloned(),
            );
        }
        if options.deny_warnings {
            for diag in &mut diagnostics {
                if diag.severity == Severity::Warning {
                    diag.severity = Severity::Error;
                    diag.notes.push(format!(
                        "`-D warnings` turns warning {} into an error",
                        diag.code.id
                    ));
                }
            }
        }
        sort_diagnostics(&mut diagnostics);
        CheckReport {
            diagnostics,
            sources: self.source_map(),
        }
    }

    /// The files diagnostics are reported for: everything but the standard library.
    fn user_files(&self) -> Vec<SourceFile> {
        self.files
            .iter()
            .copied()
            .filter(|f| !f.name(&self.db).starts_with(stdlib::STD_PREFIX))
            .collect()
    }

    fn source_map(&self) -> SourceMap {
        let mut map = SourceMap::default();
        for file in &self.files {
            map.insert(
                file.id(&self.db),
                file.name(&self.db).clone(),
                Arc::from(file.text(&self.db).as_str()),
            );
        }
        map
    }

    fn add_bytes(&mut self, name: String, bytes: &[u8]) -> SourceFile {
        // A NUL byte means a binary file (an object file, an image): checking it would echo its
        // bytes back in the source lines of every error. One error, and nothing of it checked.
        if let Some(at) = bytes.iter().position(|b| *b == 0) {
            let file = self.new_file(name, String::new());
            let id = file.id(&self.db);
            let diag = Diagnostic::at(
                codes::E0013,
                Loc::File {
                    file: id,
                    span: Span::new(0, 0),
                },
                "source file is binary, not text",
            )
            .note(format!(
                "it holds a NUL byte at offset {at}; nothing of the file was checked"
            ))
            .help("pass the `.sn` source file, not a compiled or binary file");
            self.load_diags.insert(id, diag);
            return file;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => self.new_file(name, text.to_string()),
            Err(err) => {
                let text = String::from_utf8_lossy(bytes).into_owned();
                let valid = err.valid_up_to();
                let file = self.new_file(name, text);
                let id = file.id(&self.db);
                let diag = Diagnostic::at(
                    codes::E0013,
                    Loc::File {
                        file: id,
                        span: Span::new(valid, valid + 1),
                    },
                    "source file is not valid UTF-8",
                )
                .label("invalid byte sequence here")
                .note("invalid bytes were replaced by U+FFFD for the rest of the check")
                .help("save the file as UTF-8");
                self.load_diags.insert(id, diag);
                file
            }
        }
    }

    fn new_file(&mut self, name: String, text: String) -> SourceFile {
        let id = FileId(self.files.len() as u32);
        let file = SourceFile::new(&self.db, name, text, id);
        self.files.push(file);
        file
    }

    fn register_module(&mut self, key: String, file: SourceFile) {
        let workspace = Workspace::get(&self.db);
        let mut modules = workspace.modules(&self.db).clone();
        modules.insert(key, file);
        workspace.set_modules(&mut self.db).to(modules);
    }

    /// Loads, until nothing changes, every user module that a loaded file `use`s and that exists.
    fn load_imports(&mut self) {
        let mut index = 0;
        while index < self.files.len() {
            let file = self.files[index];
            index += 1;
            for key in crate::resolve::imported_module_keys(&self.db, file) {
                let known = Workspace::get(&self.db)
                    .modules(&self.db)
                    .contains_key(&key);
                if known || key.starts_with("std::") {
                    continue;
                }
                let path = PathBuf::from(&key);
                if let Ok(bytes) = std::fs::read(&path) {
                    let new = self.add_bytes(key.clone(), &bytes);
                    self.paths.insert(key.clone(), path);
                    self.register_module(key, new);
                }
            }
        }
    }
}

pub use crate::resolve::module_key_of_path;

fn sort_diagnostics(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| match d.primary_loc() {
        Some(Loc::File { file, span }) => (file.0, span.lo, span.hi),
        _ => (u32::MAX, 0, 0),
    });
}

/// The frontend's diagnostics of source text held in memory (tests and tools): parsing, names and
/// types only. Not everything `scenicc check` reports: budget errors (E0604) need the IR's timing
/// analysis, which `scenic_ir::check::check_source` adds.
pub fn check_frontend_only(name: &str, text: &str, options: CheckOptions) -> CheckReport {
    let mut session = Session::new();
    session.add_source(name, text);
    session.check(options)
}
