//! Source locations in the IR: a file and a byte range in it.
//!
//! Programs may span several files (`use`), so IR spans carry the file. They are stored in side
//! tables beside the nodes they describe, never inside them. The IR numbers files with its own
//! [`FileId`] (lowering converts the frontend's), so nothing here depends on the frontend.

use serde::{Deserialize, Serialize};

/// Index of a source file: the frontend session's file number, carried as is (lowering converts
/// it; diagnostics convert it back). Serialized as the bare number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileId(pub u32);

/// A byte range of a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// The file, as numbered by the frontend session.
    pub file: FileId,
    /// First byte.
    pub lo: u32,
    /// One past the last byte.
    pub hi: u32,
}

impl Default for Span {
    fn default() -> Span {
        Span {
            file: FileId(u32::MAX),
            lo: 0,
            hi: 0,
        }
    }
}

impl Span {
    /// Whether the span points at real source.
    pub fn is_known(&self) -> bool {
        self.file.0 != u32::MAX
    }
}
