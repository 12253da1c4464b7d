//! Byte spans.
//!
//! A [`Span`] is a half-open byte range. Inside the AST and the per-chunk check results, spans are
//! *relative to the start of their chunk* (see [`crate::split`]), so that an edit in one item does not
//! change the AST of any other item and salsa can reuse their results. [`Span::shifted`] turns a chunk
//! span into a file span when diagnostics are rendered.

use serde::{Deserialize, Serialize};

/// A half-open byte range `lo..hi`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    /// First byte.
    pub lo: u32,
    /// One past the last byte.
    pub hi: u32,
}

impl Span {
    /// A span from two byte offsets.
    pub fn new(lo: usize, hi: usize) -> Span {
        Span {
            lo: clamp_u32(lo),
            hi: clamp_u32(hi.max(lo)),
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// The same range moved `by` bytes to the right.
    pub fn shifted(self, by: u32) -> Span {
        Span {
            lo: self.lo.saturating_add(by),
            hi: self.hi.saturating_add(by),
        }
    }

    /// The byte range as `usize`s, for slicing source text.
    pub fn range(self) -> std::ops::Range<usize> {
        self.lo as usize..self.hi as usize
    }

    /// Number of bytes covered.
    pub fn len(self) -> u32 {
        self.hi - self.lo
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.hi == self.lo
    }
}

fn clamp_u32(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// A value with the span it came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    /// The value.
    pub node: T,
    /// Where it was written.
    pub span: Span,
}
