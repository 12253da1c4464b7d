//! [`SimError`]: `scenicc sim` failing for a reason of its own: a capture or an entries file that
//! cannot be read or used, an output file that cannot be written, a setup the program refuses.
//! A malformed entries file is shown with its line and the value at fault labelled. The large parts
//! of an error (a file's text, the simulator's reasons) are behind pointers, so that the `Result`s
//! that carry it stay small.

use crate::failure::Failure;
use crate::{EXIT_ERRORS, EXIT_USAGE};
use miette::{Diagnostic, NamedSource, SourceSpan};
use scenic_io::entries::{EntriesError, Problem};
use scenic_io::CaptureError;
use scenic_sim::setup::SetupError;
use std::sync::Arc;

/// `scenicc sim` could not run, or could not write what came out.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum SimError {
    /// A file (`--in`, `--entries`) cannot be read.
    #[error("cannot read `{path}`")]
    #[diagnostic(
        code(scenicc::sim::read),
        help("check that the path names a readable file")
    )]
    Read {
        /// The path as given.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The capture is not one scenicc can run.
    #[error("`{path}` is not a capture scenicc can run")]
    #[diagnostic(
        code(scenicc::sim::capture),
        help("`--in` takes a pcap or pcapng capture of Ethernet frames; the cause says where it goes wrong")
    )]
    Capture {
        /// The capture.
        path: String,
        /// What is wrong, and where.
        #[source]
        source: CaptureError,
    },
    /// The capture read differently the second time.
    #[error("`{path}` changed while being read")]
    #[diagnostic(
        code(scenicc::sim::capture_changed),
        help("do not write to the capture while `scenicc sim` reads it; a pipe is read once, into memory")
    )]
    CaptureChanged {
        /// The capture.
        path: String,
        /// What the second pass met.
        #[source]
        source: CaptureError,
    },
    /// The entries file is malformed.
    #[error("invalid entries in `{path}` at line {line}, column {column}")]
    #[diagnostic(
        code(scenicc::sim::entries),
        help("the format of entries files is in docs/testing.md")
    )]
    Entries {
        /// The file.
        path: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// The file's text (shared: it keeps the error small).
        #[source_code]
        text: Arc<NamedSource<String>>,
        /// Where in it.
        #[label("{at}")]
        span: SourceSpan,
        /// The value at fault (`at tables.acl[2]`), or `here`.
        at: String,
        /// What is wrong.
        #[source]
        source: Box<Problem>,
    },
    /// The program refused the setup (`--scu`, `--entries`, `--csr`) or the capture's time.
    #[error("the simulation cannot go on")]
    #[diagnostic(code(scenicc::sim::setup))]
    Setup {
        /// What the simulator refused.
        #[source]
        source: Box<SetupError>,
        /// What to do about it, by what was refused.
        #[help]
        help: &'static str,
    },
    /// An output file or directory cannot be created or written.
    #[error("cannot {action} `{path}`")]
    #[diagnostic(
        code(scenicc::sim::write),
        help("`--out` and `--out-dir` must be paths you may write")
    )]
    Write {
        /// `create` or `write`.
        action: &'static str,
        /// The file or directory.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A pcap file cannot be written.
    #[error("cannot write `{path}`")]
    #[diagnostic(
        code(scenicc::sim::pcap),
        help("`--out` and `--out-dir` must be paths you may write")
    )]
    Pcap {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: scenic_io::pcap::PcapError,
    },
    /// `--out` is also a file `--out-dir` writes.
    #[error("`--out {path}` is also a file `--out-dir` writes")]
    #[diagnostic(
        code(scenicc::sim::out_collides),
        help("choose another name for `--out`: two writers on one file would interleave their records")
    )]
    OutCollides {
        /// The file.
        path: String,
    },
}

impl SimError {
    /// The simulator refused the setup or the capture's time.
    pub fn setup(source: SetupError) -> SimError {
        let help = match source {
            SetupError::TimeJump { .. } => {
                "fix the capture's timestamps, or split the capture where they jump"
            }
            SetupError::Device(_) => "the simulated device failed; the cause says how",
            _ => "`--scu`, the tables and CSRs of `--entries` and `--csr` must be the program's (`scenicc emit manifest FILE` lists them)",
        };
        let source = Box::new(source);
        SimError::Setup { source, help }
    }

    /// A malformed entries file at `path` whose text is `text`.
    pub fn entries(path: String, text: String, err: EntriesError) -> SimError {
        let offset = offset_of(&text, err.line, err.column);
        let at = if err.path.is_empty() {
            "here".to_string()
        } else {
            format!("at {}", err.path)
        };
        SimError::Entries {
            text: Arc::new(NamedSource::new(path.clone(), text)),
            path,
            line: err.line,
            column: err.column,
            span: SourceSpan::from((offset, 0)),
            at,
            source: Box::new(err.problem),
        }
    }
}

/// The byte offset of 1-based `line` and `column` (serde_json's, in bytes; column 0 is the start of
/// the line) in `text`, kept inside the text and on a character boundary.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl Failure for SimError {
    fn exit_code(&self) -> u8 {
        match self {
            SimError::Setup { .. } => EXIT_ERRORS,
            _ => EXIT_USAGE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::offset_of;

    #[test]
    fn offsets_of_lines_and_columns() {
        let text = "{\n  \"a\": 1,\n  \"é\": x\n}";
        assert_eq!(offset_of(text, 1, 1), 0);
        assert_eq!(offset_of(text, 2, 3), 4);
        assert_eq!(&text[offset_of(text, 3, 9)..][..1], "x");
        assert_eq!(offset_of(text, 3, 0), text.find("  \"é").unwrap_or(0));
        assert_eq!(offset_of(text, 99, 99), text.len());
        // Inside `é` (two bytes): back to its start.
        assert!(text.is_char_boundary(offset_of(text, 3, 5)));
    }
}
