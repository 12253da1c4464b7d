//! The host's per-device state directory: lock files that keep two processes off one slot's rings,
//! and the journal of what was loaded into each slot and which table entries were added through the
//! runtime (the device has no "dump" op, so this is what `scenic table dump` prints).
//!
//! Where: `/run/scenic/NAME/`, or `/tmp/scenic-NAME/` where `/run/scenic` cannot be written (as
//! the NIC's pid file, `nic.rs`), or `$SCENIC_STATE_DIR/NAME/` when that is set. `NAME` is the device's map file name without its `scenic-`
//! prefix (`/dev/shm/scenic-emu0` → `emu0`), so two devices never share a directory.
//!
//! Files: `slotK.lock` (the control queue's lock, held for one request/response), `slotK.nq.lock`
//! (the notification ring's), `slotK.json.lock` (the journal's, held for one read-modify-write),
//! and `slotK.json`, the [`Journal`]. Invariants: the journal is replaced atomically (written to a
//! temporary file, then renamed), so a reader never sees half of it; a lock is an exclusive `flock`
//! released when the [`SlotLock`] is dropped (or the process dies).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::device::Device;

/// Why the state directory could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A file or directory could not be created, read, written or locked.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The journal is not one this runtime wrote.
    #[error("{}: not a slot journal: {message}", path.display())]
    Journal {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The environment variable that moves every device's state directory under another root.
pub const STATE_DIR_ENV: &str = "SCENIC_STATE_DIR";

/// The state directory of one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    path: PathBuf,
}

/// The directory name of a device: its map file's name without `scenic-`.
pub fn device_name(map: &Path) -> String {
    let file = map
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "device".to_string());
    file.strip_prefix("scenic-").unwrap_or(&file).to_string()
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> StateError {
    StateError::Io {
        path: path.to_path_buf(),
        message: format!("{what}: {e}"),
    }
}

/// Removes the slot journals of the device whose map is `map` from every place [`StateDir::of`]
/// may have put them: the device is gone, and a journal must not outlive the units it describes
/// (a device of the same name started later holds nothing). Lock files stay (a client may hold one).
pub fn forget_journals(map: &Path) {
    let name = device_name(map);
    let mut dirs = vec![
        PathBuf::from(format!("/run/scenic/{name}")),
        PathBuf::from(format!("/tmp/scenic-{name}")),
    ];
    if let Some(root) = std::env::var_os(STATE_DIR_ENV) {
        dirs.push(Path::new(&root).join(&name));
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            if file.starts_with("slot") && file.ends_with(".json") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

impl StateDir {
    /// The directory of the device `dev` (module doc), created if needed. `SCENIC_STATE_DIR`, when
    /// set, replaces `/run/scenic` (tests; several runtimes side by side).
    pub fn of(dev: &Device) -> Result<StateDir, StateError> {
        let name = device_name(Path::new(dev.region().path()));
        if let Some(root) = std::env::var_os(STATE_DIR_ENV) {
            return StateDir::at(Path::new(&root).join(name));
        }
        let run = PathBuf::from(format!("/run/scenic/{name}"));
        if std::fs::create_dir_all(&run).is_ok() && writable(&run) {
            return Ok(StateDir { path: run });
        }
        StateDir::at(format!("/tmp/scenic-{name}"))
    }

    /// A directory chosen by the caller (tests, several runtimes side by side), created if needed.
    pub fn at(path: impl Into<PathBuf>) -> Result<StateDir, StateError> {
        let path = path.into();
        std::fs::create_dir_all(&path)
            .map_err(|e| io_error(&path, "cannot create the state directory", e))?;
        Ok(StateDir { path })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The journal file of slot `k`.
    pub fn journal_path(&self, k: u8) -> PathBuf {
        self.path.join(format!("slot{k}.json"))
    }

    /// Takes the exclusive lock `name` (`slot0`, `slot0.nq`), waiting for another holder.
    pub fn lock(&self, name: &str) -> Result<SlotLock, StateError> {
        SlotLock::take(&self.path.join(format!("{name}.lock")))
    }

    /// The journal of slot `k`, if one was written.
    pub fn read_journal(&self, k: u8) -> Result<Option<Journal>, StateError> {
        let path = self.journal_path(k);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path, "cannot read", e)),
        };
        let journal: Journal = serde_json::from_str(&text).map_err(|e| StateError::Journal {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if journal.format_version != JOURNAL_FORMAT {
            return Err(StateError::Journal {
                path,
                message: format!(
                    "format_version {} (this runtime writes {JOURNAL_FORMAT})",
                    journal.format_version
                ),
            });
        }
        Ok(Some(journal))
    }

    /// Replaces slot `k`'s journal atomically.
    pub fn write_journal(&self, k: u8, journal: &Journal) -> Result<(), StateError> {
        let path = self.journal_path(k);
        let tmp = self
            .path
            .join(format!(".slot{k}.json.{}", std::process::id()));
        let text = serde_json::to_string_pretty(journal).map_err(|e| StateError::Journal {
            path: path.clone(),
            message: e.to_string(),
        })?;
        std::fs::write(&tmp, text + "\n").map_err(|e| io_error(&tmp, "cannot write", e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io_error(&path, "cannot replace", e))
    }

    /// Reads slot `k`'s journal, lets `change` edit it, and writes it back, under the journal lock.
    /// With no journal yet, `change` is not called and nothing is written.
    pub fn update_journal(
        &self,
        k: u8,
        change: impl FnOnce(&mut Journal),
    ) -> Result<(), StateError> {
        let _lock = self.lock(&format!("slot{k}.json"))?;
        if let Some(mut journal) = self.read_journal(k)? {
            change(&mut journal);
            self.write_journal(k, &journal)?;
        }
        Ok(())
    }
}

fn writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".probe.{}", std::process::id()));
    let ok = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// An exclusive `flock` on a lock file, released on drop.
#[derive(Debug)]
pub struct SlotLock {
    file: File,
}

impl SlotLock {
    /// Opens (creating) `path` and takes an exclusive lock on it, waiting for another holder.
    #[allow(unsafe_code)]
    pub fn take(path: &Path) -> Result<SlotLock, StateError> {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| io_error(path, "cannot open the lock file", e))?;
        loop {
            // SAFETY: plain system call on a file descriptor this function owns.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if rc == 0 {
                return Ok(SlotLock { file });
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(io_error(path, "cannot lock", err));
            }
        }
    }

    /// The locked file.
    pub fn file(&self) -> &File {
        &self.file
    }
}

/// The journal format this runtime writes.
pub const JOURNAL_FORMAT: u32 = 1;

/// What was loaded into a slot and added through the runtime (`slotK.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// [`JOURNAL_FORMAT`].
    pub format_version: u32,
    /// The package directory, absolute.
    pub package: PathBuf,
    /// `scu` or `cc`.
    pub kind: String,
    /// The unit's name.
    pub unit: String,
    /// The unit's index in `scus[]` or `ccs[]`.
    pub index: u16,
    /// The package's `program.source_sha256` when it was loaded.
    pub source_sha256: String,
    /// The bank it was loaded into.
    pub bank: u8,
    /// Per table, what was added or set through the runtime.
    #[serde(default)]
    pub tables: BTreeMap<String, TableJournal>,
}

/// The run-time state of one table as the runtime changed it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableJournal {
    /// Entries added and not removed, in the order added.
    #[serde(default)]
    pub entries: Vec<JournalEntry>,
    /// The default action set through the runtime, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<JournalAction>,
}

/// One entry added through the runtime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The handle the device gave it.
    pub handle: u32,
    /// The key matches as written (STF `add` syntax).
    pub keys: Vec<String>,
    /// The action and its arguments.
    #[serde(flatten)]
    pub action: JournalAction,
    /// The priority (priority tables; 0 otherwise).
    pub priority: u32,
}

/// An action and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalAction {
    /// The action's name.
    pub action: String,
    /// Its arguments in parameter order, as `0x` hex.
    pub args: Vec<String>,
}

impl Journal {
    /// The table's journal, created empty if needed.
    pub fn table(&mut self, name: &str) -> &mut TableJournal {
        self.tables.entry(name.to_string()).or_default()
    }
}
