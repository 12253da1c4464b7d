//! The capture `scenicc sim --in` reads, piece by piece: a regular file is read once to check it
//! and once to run it (and a third time, for its timestamps, only when its largest step of time
//! is too large to allow), holding a buffer of a few hundred KiB, not the file. Anything else
//! (a pipe, `/dev/stdin`) cannot be read twice, so it is read whole into memory first.

use crate::errors::{shown, SimError};
use scenic_io::stream::CaptureStream;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where the capture's bytes are.
pub enum Capture {
    /// A regular file, opened again for each pass.
    File(PathBuf),
    /// The bytes of a source that can be read only once, and its path (for messages).
    Bytes(PathBuf, Vec<u8>),
}

impl Capture {
    /// The capture at `path`, or why it cannot be read.
    pub fn open(path: &Path) -> Result<Capture, SimError> {
        let cannot = |source| SimError::Read {
            path: shown(path),
            source,
        };
        let file = File::open(path).map_err(cannot)?;
        let regular = file.metadata().map_err(cannot)?.is_file();
        if regular {
            return Ok(Capture::File(path.to_path_buf()));
        }
        let mut bytes = Vec::new();
        let mut file = file;
        file.read_to_end(&mut bytes).map_err(cannot)?;
        Ok(Capture::Bytes(path.to_path_buf(), bytes))
    }

    /// The path given for the capture.
    pub fn path(&self) -> &Path {
        match self {
            Capture::File(path) | Capture::Bytes(path, _) => path,
        }
    }

    /// A pass over the capture from its start, its file header checked.
    pub fn stream(&self) -> Result<CaptureStream<Box<dyn Read + '_>>, SimError> {
        let source: Box<dyn Read + '_> = match self {
            Capture::File(path) => Box::new(File::open(path).map_err(|source| SimError::Read {
                path: shown(path),
                source,
            })?),
            Capture::Bytes(_, bytes) => Box::new(bytes.as_slice()),
        };
        CaptureStream::new(source).map_err(|source| SimError::Capture {
            path: shown(self.path()),
            source,
        })
    }

    /// The timestamps of a new pass, read only as they are asked for. A pass that cannot start
    /// or meets an error yields no more: the pass that runs the capture reports it.
    pub fn timestamps(&self) -> impl Iterator<Item = u64> + '_ {
        let mut pass = None;
        std::iter::from_fn(move || {
            if pass.is_none() {
                pass = Some(self.stream().ok()?);
            }
            pass.as_mut()?.next()?.ok().map(|r| r.ts_ns)
        })
    }
}
