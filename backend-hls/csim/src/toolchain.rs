//! What both a kernel's build (`compile`) and the precompiled header (`pch`) use: the g++ flags,
//! the error type, the cache's key hash and the private build directories. A module of its own so
//! that `compile` (which asks `pch` for a header) and `pch` (which builds like `compile`) do not
//! import each other.

use std::path::{Path, PathBuf};

/// The flags every C-simulation build uses (the issue's; `-I` paths are added per build).
pub const CXX_FLAGS: &[&str] = &[
    "-std=c++14",
    "-O2",
    "-Wno-unknown-pragmas",
    "-Wno-maybe-uninitialized",
    "-Wno-uninitialized",
];

/// Why a C-simulation could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum CsimError {
    /// Neither `AP_TYPES` nor `--ap-types` names the ap_types headers.
    #[error("the ap_types headers were not found: set AP_TYPES (or pass --ap-types DIR) to the directory that `scripts/fetch-ap-types.sh` prints")]
    NoApTypes,
    /// The directory given has no `ap_int.h`.
    #[error(
        "{0} does not hold ap_int.h (expected the directory printed by scripts/fetch-ap-types.sh)"
    )]
    BadApTypes(PathBuf),
    /// g++ failed.
    #[error("g++ failed on {dir}:\n{stderr}")]
    Compile {
        /// The build directory (kept for inspection).
        dir: PathBuf,
        /// What g++ said.
        stderr: String,
    },
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CsimError {
    let what = what.into();
    move |source| CsimError::Io { what, source }
}

/// 64-bit FNV-1a: stable across runs and Rust versions, enough to key a cache.
pub(crate) fn fnv(data: &[u8], mut h: u64) -> u64 {
    for b in data {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// A fresh private directory beside `dir` (same parent, so a rename moves it into place).
pub(crate) fn private_dir(dir: &Path, what: &str) -> Result<PathBuf, CsimError> {
    let root = dir.parent().unwrap_or(dir);
    std::fs::create_dir_all(root).map_err(io(format!("creating {}", root.display())))?;
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Ok(root.join(format!(".build-{what}-{}-{nonce}", std::process::id())))
}
