//! The units loaded in each slot's banks, shared by the server thread (loads, control requests,
//! the CSR window, time, notifications) and the datapath thread (packets), and the datapath's
//! [`SlotEngine`] over them.
//!
//! Each slot has one mutex over its two banks; a packet, a control request or a CSR access holds it
//! for the whole of its work, so a request is applied between two inputs of the bank and never
//! during one (§3.6), and the active bank changes only between two inputs (§3.4). The server makes
//! the store follow the slot's state machine after every command ([`SlotBanks::follow`]): a bank
//! that became `EMPTY` drops its unit, the active bank and `MIRROR` are the state word's.
//!
//! Invariant: `active` names a bank that holds a unit, or is `None`.

use std::sync::{Arc, Mutex, MutexGuard};

use super::unit::Unit;
use crate::abi::slot::{Bank, BankState, SlotStateWord};
use crate::net::{Destination, SlotEngine, SlotInput, Source, Verdict};

/// The two banks of one slot.
#[derive(Debug, Default)]
pub struct BankPair {
    /// The unit of bank 0 and of bank 1.
    pub units: [Option<Unit>; 2],
    /// The bank that takes the slot's inputs.
    pub active: Option<Bank>,
    /// The other bank sees a copy of every input (warm-up).
    pub mirror: bool,
}

/// One slot's banks behind their lock.
#[derive(Debug, Default)]
pub struct SlotBanks {
    pair: Mutex<BankPair>,
}

/// Every slot block's banks, by slot index `k` (absent slots stay empty).
pub type Banks = Arc<Vec<SlotBanks>>;

/// A store of `n` empty slots.
pub fn new_banks(n: usize) -> Banks {
    Arc::new((0..n).map(|_| SlotBanks::default()).collect())
}

impl SlotBanks {
    /// The banks, locked. A poisoned lock (a panic while holding it) still gives the data: the
    /// interpreter's state is whole between two calls.
    pub fn lock(&self) -> MutexGuard<'_, BankPair> {
        self.pair.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes the banks follow the slot's state word: `EMPTY` banks drop their unit; the active
    /// bank and `MIRROR` as the word says.
    pub fn follow(&self, word: &SlotStateWord) {
        let mut pair = self.lock();
        for b in [Bank::B0, Bank::B1] {
            let state = word.banks[b as usize];
            if matches!(state, None | Some(BankState::Empty)) {
                pair.units[b as usize] = None;
            }
        }
        pair.active = word.active.filter(|b| pair.units[*b as usize].is_some());
        pair.mirror = word.mirror;
    }

    /// Installs a loaded unit in bank `b` (the loader, before the bank becomes `SHADOW`).
    pub fn install(&self, b: Bank, unit: Unit) {
        self.lock().units[b as usize] = Some(unit);
    }
}

impl BankPair {
    /// The active unit.
    pub fn active_unit(&mut self) -> Option<&mut Unit> {
        let b = self.active?;
        self.units[b as usize].as_mut()
    }

    /// The unit of the non-active bank (the one `OTHER_BANK` requests address).
    pub fn other_unit(&mut self) -> Option<&mut Unit> {
        match self.active {
            Some(b) => self.units[1 - b as usize].as_mut(),
            None => self.units.iter_mut().flatten().next(),
        }
    }
}

/// The datapath's engine for one slot: the active bank's unit, plus the warm-up copy.
#[derive(Debug)]
pub struct ModelEngine {
    banks: Banks,
    k: usize,
}

impl ModelEngine {
    /// The engine of slot `k`.
    pub fn new(banks: Banks, k: u8) -> ModelEngine {
        ModelEngine {
            banks,
            k: usize::from(k),
        }
    }
}

impl SlotEngine for ModelEngine {
    fn packet(&mut self, input: SlotInput<'_>) -> Verdict {
        let Some(slot) = self.banks.get(self.k) else {
            return unprocessed(&input);
        };
        let mut pair = slot.lock();
        let mirror = pair.mirror;
        let Some(active) = pair.active else {
            // The datapath saw HAS_ACTIVE before the store followed a DEACTIVATE: pass it on.
            return unprocessed(&input);
        };
        let mut verdict = match pair.units[active as usize].as_mut() {
            Some(unit) => unit.packet(&input),
            None => return unprocessed(&input),
        };
        if mirror {
            if let Some(shadow) = pair.units[1 - active as usize].as_mut() {
                // Warm-up: the shadow's state follows the live inputs, its outputs are discarded.
                let _ = shadow.packet(&input);
                verdict.mirrored = true;
            }
        }
        verdict
    }
}

fn unprocessed(input: &SlotInput<'_>) -> Verdict {
    let dest = match input.source {
        Source::Network(_) => Destination::Host,
        Source::Host => Destination::Network(0),
    };
    Verdict {
        outputs: vec![(dest, input.data.to_vec())],
        unprocessed: true,
        ..Verdict::default()
    }
}
