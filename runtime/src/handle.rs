//! [`SlotHandle`]: an owned handle on one slot for long-lived clients (the Python and C APIs):
//! it attaches to the package the slot's journal names, as every `scenic` command does, and keeps
//! the [`Scu`] beside the device and package it borrows ([`Attached`], a `self_cell`), so repeated
//! operations (a `set_csr` loop) do not re-open the package and re-read the identity block.
//!
//! Invariant: an attachment is used only while the slot's active bank and `SWITCH_COUNT` are the
//! ones it was made under ([`Generation`]); a load or swap by anyone (this process or another)
//! changes them (device.md §3.4: every `ACTIVATE` updates `SWITCH_COUNT`), and the handle then
//! attaches afresh, so the identity check of [`Scu::attach_with`] runs again.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::abi::slot as slot_abi;
use crate::device::{Device, DeviceError};
use crate::load::{load_with, LoadReport};
use crate::package::Package;
use crate::scu::{Scu, ScuError, Which};
use crate::state::StateDir;
use crate::swap::{swap, SwapOptions, SwapReport};

/// What an attachment borrows.
pub struct Owner {
    dev: Arc<Device>,
    pkg: Package,
}

type ScuOf<'a> = Scu<'a>;

self_cell::self_cell!(
    /// A slot's [`Scu`] with the device and package it borrows.
    pub struct Attached {
        owner: Owner,
        #[not_covariant]
        dependent: ScuOf,
    }
);

impl Attached {
    /// Runs `f` on the attached [`Scu`].
    pub fn run<R>(&self, f: impl for<'a> FnOnce(&Scu<'a>) -> R) -> R {
        self.with_dependent(|_, scu| f(scu))
    }
}

impl std::fmt::Debug for Attached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.run(|scu| write!(f, "Attached(slot {}, `{}`)", scu.slot(), scu.name()))
    }
}

/// The active bank and `SWITCH_COUNT` of a slot: an attachment is valid while they stay.
pub type Generation = (Option<u8>, u64);

/// What [`SlotHandle::reconfigure`] did.
#[derive(Debug, Clone)]
pub enum Reconfigured {
    /// The slot had no active unit: a load.
    Loaded(LoadReport),
    /// A unit was active: a swap.
    Swapped(SwapReport),
}

/// An owned handle on slot `k` of a device (module doc).
#[derive(Debug)]
pub struct SlotHandle {
    dev: Arc<Device>,
    state: StateDir,
    k: u8,
    attached: Mutex<Option<(Generation, Arc<Attached>)>>,
}

impl SlotHandle {
    /// A handle on slot `k` (which must exist) of `dev`, with the device's state directory.
    pub fn new(dev: Arc<Device>, state: StateDir, k: u8) -> Result<SlotHandle, DeviceError> {
        dev.slot_block(k)?;
        Ok(SlotHandle {
            dev,
            state,
            k,
            attached: Mutex::new(None),
        })
    }

    /// The slot's index.
    pub fn index(&self) -> u8 {
        self.k
    }

    /// The device the handle is on.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// The device's state directory (journals and locks).
    pub fn state(&self) -> &StateDir {
        &self.state
    }

    fn generation(&self) -> Result<Generation, DeviceError> {
        let active = self.dev.slot_state(self.k)?.active;
        let switches = self.register_at(slot_abi::SWITCH_COUNT)?;
        Ok((active.map(|b| b.index() as u8), switches))
    }

    fn register_at(&self, offset: u64) -> Result<u64, DeviceError> {
        self.dev.read(self.dev.slot_block(self.k)? + offset)
    }

    /// The attachment for the slot's current generation, made afresh when it changed.
    pub fn attachment(&self) -> Result<Arc<Attached>, ScuError> {
        let now = self.generation()?;
        let mut cache = self.attached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((generation, attached)) = cache.as_ref() {
            if *generation == now {
                return Ok(Arc::clone(attached));
            }
        }
        let Some(journal) = self.state.read_journal(self.k)? else {
            return Err(ScuError::Slot {
                slot: self.k,
                problem: format!(
                    "nothing was loaded into it by this runtime (no {}): load a package first",
                    self.state.journal_path(self.k).display()
                ),
            });
        };
        let pkg = Package::open(&journal.package).map_err(|e| ScuError::Slot {
            slot: self.k,
            problem: format!(
                "it was loaded from {}, which cannot be opened now: {e}",
                journal.package.display()
            ),
        })?;
        let owner = Owner {
            dev: Arc::clone(&self.dev),
            pkg,
        };
        let attached = Arc::new(Attached::try_new(owner, |o| {
            Scu::attach_with(
                &o.dev,
                self.k,
                &o.pkg,
                Some(&journal.unit),
                Which::Active,
                self.state.clone(),
            )
        })?);
        *cache = Some((now, Arc::clone(&attached)));
        Ok(attached)
    }

    /// Runs `f` on the slot's attached unit.
    pub fn with_scu<R>(
        &self,
        f: impl for<'a> FnOnce(&Scu<'a>) -> Result<R, ScuError>,
    ) -> Result<R, ScuError> {
        self.attachment()?.run(f)
    }

    /// Loads unit `unit` of the package directory `dir` into the slot ([`load_with`]).
    pub fn load(&self, dir: &Path, unit: Option<&str>) -> Result<LoadReport, ScuError> {
        let pkg = Package::open(dir)?;
        load_with(&self.dev, self.k, &pkg, unit, &self.state)
    }

    /// Swaps the running unit for unit `unit` of `dir` ([`swap`]).
    pub fn swap(
        &self,
        dir: &Path,
        unit: Option<&str>,
        options: SwapOptions,
    ) -> Result<SwapReport, ScuError> {
        let pkg = Package::open(dir)?;
        swap(&self.dev, self.k, &pkg, unit, &self.state, options)
    }

    /// The paper's `reconfigure_app`: a swap (state carried where the layouts agree) when a unit
    /// is active in the slot, else a load.
    pub fn reconfigure(&self, dir: &Path) -> Result<Reconfigured, ScuError> {
        if self.dev.slot_state(self.k)?.active.is_some() {
            Ok(Reconfigured::Swapped(self.swap(
                dir,
                None,
                SwapOptions::default(),
            )?))
        } else {
            Ok(Reconfigured::Loaded(self.load(dir, None)?))
        }
    }

    /// A slot register of device.md §3.2 by name, any case (`PKT_SEQ`, `out_host_pkts`, ...).
    pub fn register(&self, name: &str) -> Result<u64, ScuError> {
        let Some(reg) = slot_abi::SLOT
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
        else {
            let known: Vec<&str> = slot_abi::SLOT.iter().map(|r| r.name).collect();
            return Err(ScuError::Refused(format!(
                "no slot register `{name}` (device.md §3.2: {})",
                known.join(", ")
            )));
        };
        Ok(self.register_at(reg.offset)?)
    }

    /// The count the paper's `get_completed(op)` asks for: pyCoyote's `remote_write`,
    /// `remote_read` and `remote_send` are inputs the slot took (`PKT_SEQ`: in SCENIC a remote
    /// operation reaching an SCU is one input of its slot); any other `op` is a slot register name.
    pub fn completed(&self, op: &str) -> Result<u64, ScuError> {
        match op {
            "remote_write" | "remote_read" | "remote_send" => self.register("PKT_SEQ"),
            other => self.register(other),
        }
    }
}
