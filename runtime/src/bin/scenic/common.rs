//! What every slot command shares: opening the device (`NAME` is `emu:NAME`, a path when it holds
//! a `/`), its state directory, the package a slot was loaded with (from the slot's journal), and
//! turning errors into a message and an exit code (0 ok, 1 failure, 2 usage or I/O).

use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, Package, PackageError, Scu, ScuError, Which};

/// A failed command: what to print and the exit code.
#[derive(Debug)]
pub struct Failure {
    /// 1 or 2.
    pub code: u8,
    /// The message, without `error: `.
    pub message: String,
}

impl Failure {
    /// A failure with exit code 1.
    pub fn new(message: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            message: message.into(),
        }
    }

    /// A usage failure (exit code 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            message: message.into(),
        }
    }
}

impl From<ScuError> for Failure {
    fn from(e: ScuError) -> Failure {
        Failure {
            code: e.exit_code(),
            message: e.to_string(),
        }
    }
}

impl From<PackageError> for Failure {
    fn from(e: PackageError) -> Failure {
        Failure {
            code: e.exit_code(),
            message: e.to_string(),
        }
    }
}

impl From<scenic_runtime::DeviceError> for Failure {
    fn from(e: scenic_runtime::DeviceError) -> Failure {
        Failure::new(e.to_string())
    }
}

impl From<scenic_runtime::state::StateError> for Failure {
    fn from(e: scenic_runtime::state::StateError) -> Failure {
        ScuError::from(e).into()
    }
}

/// Prints a failure; the exit code.
pub fn finish(r: Result<(), Failure>) -> u8 {
    match r {
        Ok(()) => 0,
        Err(f) => {
            eprintln!("error: {}", f.message);
            f.code
        }
    }
}

/// What `Device::open` takes for a command line's NAME: a path (`/dev/scenic0`) as it is, else
/// the emulator's `emu:NAME`.
pub fn device_spec(name: &str) -> String {
    if name.contains('/') {
        name.to_string()
    } else {
        format!("emu:{name}")
    }
}

/// The device NAME and its state directory (a device that is not there: exit code 2).
pub fn open(name: &str) -> Result<(Device, StateDir), Failure> {
    let dev =
        Device::open(&device_spec(name)).map_err(|e| Failure::usage(format!("{name}: {e}")))?;
    let state = StateDir::of(&dev)?;
    Ok((dev, state))
}

/// The package slot `k` was loaded with, from its journal, and the unit's name.
pub fn slot_package(name: &str, state: &StateDir, k: u8) -> Result<(Package, String), Failure> {
    let Some(journal) = state.read_journal(k)? else {
        return Err(Failure::new(format!(
            "slot {k} of {name}: nothing was loaded into it by this runtime (no {}): \
             `scenic load {name} {k} PKGDIR` first",
            state.journal_path(k).display()
        )));
    };
    let pkg = Package::open(&journal.package).map_err(|e| {
        Failure::new(format!(
            "slot {k} of {name} was loaded from {}, which cannot be opened now: {e}",
            journal.package.display()
        ))
    })?;
    Ok((pkg, journal.unit))
}

/// Attaches to the active bank of slot `k`, which must run the journal's package.
pub fn attach<'a>(
    dev: &'a Device,
    state: &StateDir,
    k: u8,
    pkg: &'a Package,
    unit: &str,
) -> Result<Scu<'a>, Failure> {
    Ok(Scu::attach_with(
        dev,
        k,
        pkg,
        Some(unit),
        Which::Active,
        state.clone(),
    )?)
}

/// Parses an integer argument (decimal, `0x`, `0b`, addresses) that must fit 64 bits.
pub fn parse_u64(what: &str, text: &str) -> Result<u64, Failure> {
    let v = scenic_io::value::parse_uint(text)
        .map_err(|e| Failure::new(format!("{what} `{text}`: {e}")))?;
    u64::try_from(v).map_err(|_| Failure::new(format!("{what} `{text}` does not fit 64 bits")))
}
