//! `manifest.json`: what an SCU package tells the runtime, the host software and the hardware
//! engineer about the program it was built from.
//!
//! A [`Manifest`] is built from a validated module ([`Manifest::build`]) with what only the backend
//! knows (kernel names and ports) passed in as [`BackendFacts`]; it embeds the host control
//! interface ([`ControlLayout`]) and repeats its record positions beside each table and map. It is
//! written as pretty JSON ([`Manifest::to_json_pretty`]); [`Manifest::from_json`] reads one back with
//! errors that give the line and column.
//!
//! # Format
//!
//! `format_version` is 1. Within a version, keys keep their meaning and new keys may be added, so
//! readers ignore keys they do not know; a change that alters the meaning of a key bumps the
//! version, and readers refuse versions they do not know.
//!
//! Conventions, field by field below:
//! - sizes, counts, widths, offsets and cycles are JSON numbers;
//! - constants (initial values, defaults, action arguments) are strings, `0x` and lower-case hex
//!   digits, because they may be up to 1024 bits wide, more than a JSON number carries exactly;
//! - a bit position `lo` counts from 0 at the least significant bit of the record it is in (an
//!   action's data, a map's value, a flow's state); a record's first element takes its lowest bits,
//!   as in the records of the host control interface (`scenic_ir::control`) and Vitis HLS aggregates;
//! - enumerations are `snake_case` strings (`"slow_path"`, `"lru_hash"`, `"read_write"`);
//! - every list is in declaration order, and an element's `index` is its position, which is the id
//!   the control interface uses for it.
//!
//! `docs/package.md` describes the package around the manifest.

mod build;
mod types;

pub use build::sha256_hex;
pub use types::*;

use crate::control::ControlLayout;
use serde::{Deserialize, Serialize};

/// The manifest format this compiler writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The manifest of an SCU package.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The format of this document: [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Which program, from which source, by which compiler.
    pub program: Program,
    /// Where CSRs live in Coyote's AXI-Lite control window.
    pub csr_window: CsrWindow,
    /// Every stream compute unit, in declaration order; each is one HLS kernel.
    pub scus: Vec<ScuManifest>,
    /// Every congestion controller, in declaration order.
    pub ccs: Vec<CcManifest>,
    /// The host control interface: the mailbox after each scu's CSRs and the encoding of every
    /// table entry, map, counter and meter record (`scenic_ir::control`, `docs/package.md`).
    pub control: ControlLayout,
    /// Timing estimates of every body (the IR's timing analysis, not synthesis results).
    pub estimates: Estimates,
}

/// Why a manifest could not be built or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The text is not JSON, or not a manifest of this format.
    #[error("manifest.json:{line}:{column}: {message}")]
    Json {
        /// 1-based line of the problem (0 when unknown).
        line: usize,
        /// 1-based column of the problem (0 when unknown).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The document has no `format_version`.
    #[error("manifest.json: no `format_version`; is this an SCU package manifest?")]
    MissingVersion,
    /// The document is of a format this compiler does not know.
    #[error(
        "manifest.json: format_version {found} is not supported (this scenicc reads version {supported}); \
         rebuild the package with this scenicc or use the scenicc that wrote it"
    )]
    UnsupportedVersion {
        /// The version in the document.
        found: u64,
        /// The version this compiler reads.
        supported: u32,
    },
    /// The scus' CSRs and mailboxes do not fit Coyote's user window.
    #[error(
        "the scus' CSRs and control mailboxes need {needed} bytes of the AXI-Lite control space, \
         more than Coyote's {available}-byte user window"
    )]
    CsrWindowFull {
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        available: u64,
    },
    /// The backend described a different number of kernels than the module has scus.
    #[error("the backend described {kernels} kernels for {scus} scus")]
    KernelCount {
        /// Kernels described.
        kernels: usize,
        /// Scus in the module.
        scus: usize,
    },
}

impl Manifest {
    /// The manifest as pretty-printed JSON (two-space indent, keys in declaration order), ending in
    /// a newline. Deterministic: the same manifest always gives the same bytes.
    pub fn to_json_pretty(&self) -> String {
        // Serializing plain structs, strings and numbers into a String cannot fail; if it ever
        // did, an empty object is a visible, harmless result rather than a panic.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string());
        text.push('\n');
        text
    }

    /// Reads a manifest, checking its `format_version` first so that a manifest of another version
    /// is reported as such rather than as a confusing missing key.
    pub fn from_json(text: &str) -> Result<Manifest, ManifestError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        let version = match value.get("format_version") {
            None => return Err(ManifestError::MissingVersion),
            Some(v) => v.as_u64().ok_or_else(|| ManifestError::Json {
                line: 0,
                column: 0,
                message: format!("`format_version` must be a whole number, not {v}"),
            })?,
        };
        if version != u64::from(FORMAT_VERSION) {
            return Err(ManifestError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        // Parse the text again, not the value, so errors keep their line and column.
        serde_json::from_str(text).map_err(json_error)
    }
}

fn json_error(err: serde_json::Error) -> ManifestError {
    let (line, column) = (err.line(), err.column());
    let text = err.to_string();
    // serde_json ends its messages with the position, which the error prints in front already.
    let suffix = format!(" at line {line} column {column}");
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
    ManifestError::Json {
        line,
        column,
        message,
    }
}

#[cfg(test)]
mod tests;
