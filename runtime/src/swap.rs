//! [`swap`]: the hitless replacement of a slot's running unit (SYSTEM.md "Hot swap that loses
//! nothing", device.md §3.4 and §7 step 6).
//!
//! Steps: the slot must run a unit this runtime loaded (its journal names the package, whose
//! manifest says the old layouts); the new package's unit is staged and loaded into the other bank
//! (`SHADOW`); with a warm-up, `MIRROR` lets it see every live input for that long while the old
//! unit still acts; `ACTIVATE` with `CARRY` switches at a packet boundary and the device copies
//! the state the two layouts agree on ([`CarryPlan`]) in the same step; the old bank is freed once
//! `QUIESCED`. Nothing is dropped: the device hands each input to exactly one bank.
//!
//! The report lists, from the same plan the device applied, what was carried and what started
//! fresh (and why). The journal moves to the new package, keeping the run-time entries of the
//! tables that were carried (their handles are the device's, carried with them).
//!
//! Invariant: a refusal before `LOAD` leaves the slot as it was; a refused `LOAD` leaves the old
//! unit active and the other bank `EMPTY`.

use std::time::{Duration, Instant};

use scenic_scu_abi::manifest::AttachKind;

use crate::abi::slot::{self, SlotOp};
use crate::carry::CarryPlan;
use crate::container::UnitKind;
use crate::device::Device;
use crate::load::{free_when_quiesced, stage_and_load};
use crate::package::Package;
use crate::scu::{sha_hex, ScuError};
use crate::state::{Journal, StateDir, JOURNAL_FORMAT};

/// How a swap runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapOptions {
    /// Carry state where the layouts agree (`false`: the new unit starts fresh).
    pub carry: bool,
    /// How long the new unit sees the live inputs before the switch (0: no warm-up).
    pub warm_up: Duration,
}

impl Default for SwapOptions {
    fn default() -> Self {
        SwapOptions {
            carry: true,
            warm_up: Duration::ZERO,
        }
    }
}

/// What a swap did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapReport {
    /// The slot.
    pub slot: u8,
    /// The unit that ran before, and its package directory.
    pub old_unit: String,
    /// The unit now running.
    pub new_unit: String,
    /// The bank it runs in.
    pub bank: u8,
    /// `LOAD_NS` of the new unit.
    pub load_ns: u64,
    /// `SWITCH_SEQ`: the first input the new unit took.
    pub switch_seq: u64,
    /// Inputs the new unit saw during warm-up (`MIRRORED` growth).
    pub warmed_inputs: u64,
    /// The plan the device applied (everything fresh without `carry`).
    pub plan: CarryPlan,
    /// The swap call, from staging to the switch (the old bank's drain and free excluded).
    pub switch_time: Duration,
    /// The whole call, drain and free included.
    pub total_time: Duration,
}

fn slot_error(k: u8, problem: String) -> ScuError {
    ScuError::Slot { slot: k, problem }
}

/// Swaps slot `k`'s running unit for unit `unit` of `pkg` (module doc).
pub fn swap(
    dev: &Device,
    k: u8,
    pkg: &Package,
    unit: Option<&str>,
    state: &StateDir,
    options: SwapOptions,
) -> Result<SwapReport, ScuError> {
    let started = Instant::now();
    let (kind, index) = pkg.unit(unit)?;
    if kind != UnitKind::Scu {
        return Err(slot_error(
            k,
            "a swap replaces an scu; CC slots switch with `scenic cc switch`".into(),
        ));
    }
    let base = dev.slot_block(k)?;
    let before = dev.slot_state(k)?;
    if before.active.is_none() {
        return Err(slot_error(
            k,
            "no unit is active: `scenic load` it first".into(),
        ));
    }
    let journal = state.read_journal(k)?.ok_or_else(|| {
        slot_error(k, "this runtime did not load the running unit (no journal): load the package first, then swap".into())
    })?;
    let old_pkg = Package::open(&journal.package)?;
    let (_, old_index) = old_pkg.unit(Some(&journal.unit))?;
    let (Some(old_control), Some(new_control)) =
        (old_pkg.scu_control(old_index), pkg.scu_control(index))
    else {
        return Err(slot_error(
            k,
            "a package lacks the unit's control layout".into(),
        ));
    };
    let mut plan = CarryPlan::between(old_control, new_control);
    if !options.carry {
        for item in &mut plan.items {
            item.from = None;
            item.reason = "a fresh start was asked for".to_string();
        }
    }
    let new_unit = pkg.unit_name(kind, index)?.to_string();
    let staged = stage_and_load(dev, k, pkg, kind, index)?;
    let mirrored_before = dev.read(base + slot::MIRRORED)?;
    if !options.warm_up.is_zero() {
        dev.slot_command(k, SlotOp::Mirror, 1)?;
        std::thread::sleep(options.warm_up);
    }
    let arg = if options.carry {
        slot::ACTIVATE_CARRY
    } else {
        0
    };
    dev.slot_command(k, SlotOp::Activate, arg)?;
    let switch_time = started.elapsed();
    let switch_seq = dev.read(base + slot::SWITCH_SEQ)?;
    let warmed_inputs = dev
        .read(base + slot::MIRRORED)?
        .wrapping_sub(mirrored_before);
    free_when_quiesced(dev, k)?;
    if pkg
        .manifest()
        .scus
        .get(usize::from(index))
        .map(|s| s.attach)
        == Some(AttachKind::SlowPath)
    {
        crate::steering::set_slow_path(dev, Some(k)).map_err(|e| slot_error(k, e.to_string()))?;
    }
    let identity = pkg.identity(kind, index)?;
    let carried: Vec<String> = plan
        .carried()
        .filter(|i| i.kind == "table")
        .map(|i| i.name.clone())
        .collect();
    let mut tables = journal.tables.clone();
    tables.retain(|name, _| carried.contains(name));
    state.write_journal(
        k,
        &Journal {
            format_version: JOURNAL_FORMAT,
            package: pkg.dir().to_path_buf(),
            kind: kind.name().to_string(),
            unit: new_unit.clone(),
            index,
            source_sha256: sha_hex(&identity.source_sha256),
            bank: staged.bank as u8,
            tables,
        },
    )?;
    Ok(SwapReport {
        slot: k,
        old_unit: journal.unit,
        new_unit,
        bank: staged.bank as u8,
        load_ns: staged.load_ns,
        switch_seq,
        warmed_inputs,
        plan,
        switch_time,
        total_time: started.elapsed(),
    })
}
