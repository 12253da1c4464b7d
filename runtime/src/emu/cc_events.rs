//! The CC slots' units and the event ring (`docs/device.md` §4.1, §4.3, §4.4), once
//! [`EmuServer::enable_models`] turned the models on.
//!
//! Both CC slots' units live behind **one** lock ([`CcUnits`]): an event is applied to both under
//! it, and a `SWITCH` (with its carry, `cc_carry`) happens under it too, so the switch is
//! always at an event boundary and no event falls between the carry and the switch.
//!
//! Per poll, `EmuServer::serve_cc`:
//! 1. drops the unit of a CC slot whose bank 0 became `EMPTY` (a `FREE`, a reset) and zeroes its
//!    output block; a freshly loaded unit's output block is zeroed too (a flow never seen reads 0);
//! 2. takes up to [`EV_BATCH`] events from the ring (§1.3 acquire/release, `EV_CONS` published after
//!    each event): an event of kind > 8, or of a flow ≥ the bound (the active slot's `FLOWS`; with
//!    no active slot, the first loaded slot's; with none loaded, `SLOTS`' CC flows) is skipped and
//!    counted in `EV_DROPPED` with `E_CC_EVENT` in `ERROR`; any other event is fed, in ring order, to
//!    every loaded unit (active and standby alike) whose `FLOWS` covers its flow, at a time made
//!    non-decreasing (an earlier time is taken as the last one seen);
//! 3. publishes the outputs (§4.4) that changed: the event's flow after each event, and after the
//!    batch every flow of both units (timers of other flows may have fired); then `CC_EVENT_SEQ`
//!    counts the batch's events. So a host that reads `CC_EVENT_SEQ = n` then reads outputs sees
//!    at least the effects of events `0..n`.
//!
//! A ring whose indices are inconsistent stops being served (`E_QUEUE_OVERRUN` in `ERROR`) until the
//! next global reset.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use super::cc_unit::CcUnit;
use super::EmuServer;
use crate::abi::codes::Code;
use crate::abi::global;
use crate::abi::slot::{self, Bank, BankState};
use crate::abi::{self, ErrorWord};
use crate::frame::CcEvent;
use crate::region::{Region, RegionError};
use crate::ring::{Consumer, RingLayout};

/// Most events one poll takes (the other slots' work waits for them).
pub const EV_BATCH: usize = 256;
/// Flows an output block holds (64 KiB of 8-byte words, §4.4).
pub const OUTPUT_WORDS: u64 = 8192;

/// One CC slot's unit and the outputs its block shows.
#[derive(Debug)]
pub struct CcLoaded {
    /// The unit.
    pub unit: CcUnit,
    /// What each flow's output word holds (index = flow), as published.
    shown: Vec<u64>,
    /// The block still shows what a previous unit left: zero it first.
    fresh: bool,
}

/// Both CC slots' units: index 0 is slot A (block 16), 1 is slot B (block 17).
#[derive(Debug, Default)]
pub struct CcPair {
    /// The loaded units.
    pub units: [Option<CcLoaded>; 2],
    /// The active slot (0 A, 1 B), as `CC_ACTIVE` says.
    pub active: Option<usize>,
}

/// The CC slots' units behind their one lock.
pub type CcUnits = Arc<Mutex<CcPair>>;

/// Locks the pair; a poisoned lock still gives the data (the interpreter is whole between events).
pub fn lock(units: &CcUnits) -> MutexGuard<'_, CcPair> {
    units.lock().unwrap_or_else(|e| e.into_inner())
}

/// The index (0 A, 1 B) of CC slot block `k`.
pub fn cc_index(k: u8) -> Option<usize> {
    match k {
        abi::CC_SLOT_A => Some(0),
        abi::CC_SLOT_B => Some(1),
        _ => None,
    }
}

impl CcLoaded {
    /// Publishes every flow's output of CC slot `i` (after a carry changed them all): flows the
    /// unit has, and 0 for flows it no longer has.
    pub fn publish_all(&mut self, r: &Region, i: usize) -> Result<(), RegionError> {
        let mut want = vec![0; self.shown.len()];
        for (flow, out) in self.unit.outputs() {
            if flow < OUTPUT_WORDS {
                let f = flow as usize;
                if want.len() <= f {
                    want.resize(f + 1, 0);
                }
                want[f] = out;
            }
        }
        for (f, out) in want.into_iter().enumerate() {
            show(r, i, self, f as u64, out)?;
        }
        Ok(())
    }
}

impl CcPair {
    /// Installs a loaded unit in CC slot `i` (the loader, before the bank becomes `SHADOW`).
    pub fn install(&mut self, i: usize, unit: CcUnit) {
        if let Some(u) = self.units.get_mut(i) {
            *u = Some(CcLoaded {
                unit,
                shown: Vec::new(),
                fresh: true,
            });
        }
    }

    /// The unit of CC slot `i`.
    pub fn unit(&self, i: usize) -> Option<&CcUnit> {
        self.units.get(i)?.as_ref().map(|l| &l.unit)
    }

    /// The unit of CC slot `i`, mutable.
    pub fn unit_mut(&mut self, i: usize) -> Option<&mut CcUnit> {
        self.units.get_mut(i)?.as_mut().map(|l| &mut l.unit)
    }
}

/// The server's CC state besides the units.
#[derive(Debug, Default)]
pub(super) struct CcService {
    /// The units.
    pub units: CcUnits,
    /// The latest event time seen (§4.3: times are non-decreasing across the ring).
    last_time: u64,
    /// The ring stopped on a protocol error, at this reset generation.
    stopped_at: Option<u64>,
    /// The slot blocks whose output block may hold something.
    shown_any: [bool; 2],
    /// The reset generation the event times belong to.
    generation: u64,
}

fn record_error(r: &Region, code: Code, offset: u64) -> Result<(), RegionError> {
    let old = ErrorWord::decode(r.load(global::ERROR, Ordering::Acquire)?);
    let word = ErrorWord {
        code: code.number(),
        offset: offset as u32,
        count: old.count.wrapping_add(1),
    };
    r.store(global::ERROR, word.encode(), Ordering::Release)
}

fn bump(r: &Region, reg: u64) -> Result<(), RegionError> {
    let n = r.load(reg, Ordering::Acquire)?;
    r.store(reg, n.wrapping_add(1), Ordering::Release)
}

/// The global event ring (§4.3).
pub fn event_ring() -> RingLayout {
    RingLayout {
        base: global::EV_RING_BASE,
        entries: global::EV_RING_ENTRIES,
        entry_bytes: global::EV_ENTRY_BYTES,
        prod_reg: global::EV_PROD,
        cons_reg: global::EV_CONS,
    }
}

fn output_word(i: usize, flow: u64) -> u64 {
    let k = if i == 0 {
        abi::CC_SLOT_A
    } else {
        abi::CC_SLOT_B
    };
    abi::slot_block_unchecked(k) + slot::CC_OUTPUTS + 8 * flow
}

/// Publishes flow `flow`'s output of CC slot `i` when it changed.
fn show(
    r: &Region,
    i: usize,
    loaded: &mut CcLoaded,
    flow: u64,
    value: u64,
) -> Result<(), RegionError> {
    if flow >= OUTPUT_WORDS {
        return Ok(());
    }
    let f = flow as usize;
    if loaded.shown.len() <= f {
        loaded.shown.resize(f + 1, 0);
    }
    if loaded.shown[f] != value {
        r.store(output_word(i, flow), value, Ordering::Release)?;
        loaded.shown[f] = value;
    }
    Ok(())
}

impl EmuServer {
    /// One poll's CC work (module doc); nothing without models or CC slots.
    pub(super) fn serve_cc(&mut self) -> Result<(), RegionError> {
        if self.config.cc_slots != 2 {
            return Ok(());
        }
        let generation = self.resets.load(Ordering::Acquire);
        let loaded_state = [abi::CC_SLOT_A, abi::CC_SLOT_B]
            .map(|k| self.slots[usize::from(k)].bank(Bank::B0) != BankState::Empty);
        let default_flows = u64::from(self.config.cc_flows);
        let region = &*self.region;
        let Some(service) = self.models.as_mut().map(|m| &mut m.cc) else {
            return Ok(());
        };
        let units = Arc::clone(&service.units);
        let mut pair = lock(&units);
        service.reconcile(region, &mut pair, loaded_state)?;
        if service.generation != generation {
            // A global reset: the ring starts again, and so does its time.
            service.generation = generation;
            service.stopped_at = None;
            service.last_time = 0;
        }
        if service.stopped_at.is_none() {
            if let Err(e) = service.take_events(region, &mut pair, default_flows) {
                match e {
                    crate::ring::RingError::Region(r) => return Err(r),
                    _ => {
                        service.stopped_at = Some(generation);
                        record_error(region, Code::QueueOverrun, global::EV_PROD)?;
                    }
                }
            }
        }
        Ok(())
    }
}

impl CcService {
    /// The latest event time seen.
    pub fn last_time(&self) -> u64 {
        self.last_time
    }

    /// Step 1 of the module doc.
    fn reconcile(
        &mut self,
        r: &Region,
        pair: &mut CcPair,
        loaded: [bool; 2],
    ) -> Result<(), RegionError> {
        for (i, loaded) in loaded.into_iter().enumerate() {
            if !loaded {
                pair.units[i] = None;
                if pair.active == Some(i) {
                    pair.active = None;
                }
            }
            let fresh = pair.units[i].as_ref().is_some_and(|l| l.fresh);
            let gone = pair.units[i].is_none() && self.shown_any[i];
            if fresh || gone {
                r.zero(output_word(i, 0), OUTPUT_WORDS * 8)?;
                self.shown_any[i] = false;
            }
            if let Some(l) = pair.units[i].as_mut() {
                if l.fresh {
                    l.shown.clear();
                    l.fresh = false;
                }
                self.shown_any[i] = true;
            }
        }
        Ok(())
    }

    /// The flow bound of step 2.
    fn bound(pair: &CcPair, default_flows: u64) -> u64 {
        pair.active
            .and_then(|i| pair.unit(i))
            .or_else(|| pair.unit(0))
            .or_else(|| pair.unit(1))
            .map_or(default_flows, CcUnit::flows)
    }

    /// Steps 2 and 3 of the module doc.
    fn take_events(
        &mut self,
        r: &Region,
        pair: &mut CcPair,
        default_flows: u64,
    ) -> Result<(), crate::ring::RingError> {
        let mut ring = Consumer::attach(r, event_ring())?;
        let mut raw = [0u8; global::EV_ENTRY_BYTES as usize];
        let (mut took, mut applied) = (0, 0u64);
        while took < EV_BATCH && ring.pop(r, &mut raw)? {
            took += 1;
            let ev = CcEvent::decode(&raw);
            if usize::from(ev.kind) >= crate::cc::EVENT_KINDS.len()
                || u64::from(ev.flow) >= Self::bound(pair, default_flows)
            {
                bump(r, global::EV_DROPPED)?;
                record_error(r, Code::CcEvent, global::EV_PROD)?;
                continue;
            }
            self.last_time = self.last_time.max(ev.time_ns);
            let flow = u64::from(ev.flow);
            for (i, slot) in pair.units.iter_mut().enumerate() {
                let Some(l) = slot.as_mut() else { continue };
                if flow < l.unit.flows() && l.unit.event(&ev, self.last_time).is_ok() {
                    let out = l.unit.output(flow);
                    show(r, i, l, flow, out)?;
                }
            }
            applied += 1;
        }
        if took > 0 {
            for (i, slot) in pair.units.iter_mut().enumerate() {
                let Some(l) = slot.as_mut() else { continue };
                for (flow, out) in l.unit.outputs() {
                    show(r, i, l, flow, out)?;
                }
            }
        }
        if applied > 0 {
            let n = r.load(global::CC_EVENT_SEQ, Ordering::Acquire)?;
            r.store(
                global::CC_EVENT_SEQ,
                n.wrapping_add(applied),
                Ordering::Release,
            )?;
        }
        Ok(())
    }
}
