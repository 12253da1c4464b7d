//! The steering tables (device.md §2.3), owned by the datapath thread: `STEER_CMD` and
//! `SLOW_PATH_SLOT` are served between two packets, so every packet is steered entirely by the old
//! or entirely by the new entry. A refused write changes nothing but the result register.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use crate::abi::codes::Code;
use crate::abi::global::{self, SteerOp};
use crate::abi::slot::{self, Bank, BankState};
use crate::abi::{self, CommandWord, ErrorWord, ResultWord};
use crate::region::{Region, RegionError};

/// Entries per table (`STEER_CAPS`: 4096 each on the emulator).
pub const STEER_ENTRIES: usize = 4096;
/// `STEER_VALUE` bit 40: the entry is valid.
const VALID: u64 = 1 << 40;

/// One table: entries by index, and the valid ones by key.
#[derive(Debug, Clone)]
pub struct Table {
    entries: Vec<Option<(u32, u8)>>,
    by_key: HashMap<u32, usize>,
}

impl Table {
    fn new() -> Table {
        Table {
            entries: vec![None; STEER_ENTRIES],
            by_key: HashMap::new(),
        }
    }

    /// The slot a key steers to.
    pub fn lookup(&self, key: u32) -> Option<u8> {
        self.by_key
            .get(&key)
            .and_then(|&i| self.entries[i].map(|(_, s)| s))
    }

    fn set(&mut self, index: usize, entry: Option<(u32, u8)>) {
        if let Some((old, _)) = self.entries[index].take() {
            self.by_key.remove(&old);
        }
        if let Some((key, _)) = entry {
            self.by_key.insert(key, index);
        }
        self.entries[index] = entry;
    }

    fn value(&self, index: usize) -> (u64, u64) {
        match self.entries[index] {
            Some((key, s)) => (u64::from(key), index as u64 | u64::from(s) << 32 | VALID),
            None => (0, index as u64),
        }
    }
}

/// Both tables and the slow-path slot.
#[derive(Debug, Clone)]
pub struct Steering {
    /// RoCE: QPN → slot.
    pub roce: Table,
    /// TCP: flow id → slot.
    pub tcp: Table,
    /// `SLOW_PATH_SLOT`, `0xFF` none.
    pub slow_path: u8,
    scu_slots: u8,
}

impl Steering {
    /// Empty tables for a device with `scu_slots` SCU slots.
    pub fn new(scu_slots: u8) -> Steering {
        Steering {
            roce: Table::new(),
            tcp: Table::new(),
            slow_path: global::SLOW_PATH_NONE as u8,
            scu_slots,
        }
    }

    /// Takes a host write of `SLOW_PATH_SLOT` and a `STEER_CMD`, if any.
    pub fn serve(&mut self, r: &Region) -> Result<(), RegionError> {
        let seen = r.load(global::SLOW_PATH_SLOT, Ordering::Acquire)?;
        if seen != u64::from(self.slow_path) {
            if seen == global::SLOW_PATH_NONE || seen < u64::from(self.scu_slots) {
                self.slow_path = seen as u8;
            } else {
                r.store(
                    global::SLOW_PATH_SLOT,
                    u64::from(self.slow_path),
                    Ordering::Release,
                )?;
                record_error(r, Code::SteerSlot, global::SLOW_PATH_SLOT)?;
            }
        }
        let word = r.swap(global::STEER_CMD, 0, Ordering::AcqRel)?;
        if word == 0 {
            return Ok(());
        }
        let cmd = CommandWord::decode(word);
        let (status, detail) = if cmd.seq == 0 {
            (Code::Seq, 0)
        } else {
            self.command(r, cmd.opcode)?
        };
        let result = ResultWord {
            status: status.number(),
            detail,
            seq: cmd.seq,
        };
        r.store(global::STEER_RESULT, result.encode(), Ordering::Release)
    }

    fn command(&mut self, r: &Region, opcode: u8) -> Result<(Code, u32), RegionError> {
        let key = r.load(global::STEER_KEY, Ordering::Acquire)?;
        let value = r.load(global::STEER_VALUE, Ordering::Acquire)?;
        let index = (value & 0xFFFF_FFFF) as usize;
        let roce = opcode % 2 == 1;
        let key = if roce {
            key & 0xFF_FFFF
        } else {
            key & 0xFFFF_FFFF
        } as u32;
        let op = [
            SteerOp::WriteRoce,
            SteerOp::WriteTcp,
            SteerOp::ReadRoce,
            SteerOp::ReadTcp,
            SteerOp::LookupRoce,
            SteerOp::LookupTcp,
            SteerOp::ClearRoce,
            SteerOp::ClearTcp,
        ]
        .into_iter()
        .find(|op| *op as u8 == opcode);
        let Some(op) = op else {
            return Ok((Code::BadCommand, 0));
        };
        match op {
            SteerOp::WriteRoce | SteerOp::WriteTcp => {
                let slot = (value >> 32) as u8;
                let status = self.write(r, roce, index, key, slot, value & VALID != 0)?;
                Ok((status, 0))
            }
            SteerOp::ReadRoce | SteerOp::ReadTcp => {
                if index >= STEER_ENTRIES {
                    return Ok((Code::SteerIndex, 0));
                }
                self.publish_read(r, roce, index)?;
                Ok((Code::Ok, 0))
            }
            SteerOp::LookupRoce | SteerOp::LookupTcp => {
                let table = if roce { &self.roce } else { &self.tcp };
                match table.by_key.get(&key).copied() {
                    Some(i) => {
                        self.publish_read(r, roce, i)?;
                        Ok((Code::Ok, i as u32))
                    }
                    None => Ok((Code::NotFound, 0)),
                }
            }
            SteerOp::ClearRoce => {
                self.roce = Table::new();
                Ok((Code::Ok, 0))
            }
            SteerOp::ClearTcp => {
                self.tcp = Table::new();
                Ok((Code::Ok, 0))
            }
        }
    }

    fn write(
        &mut self,
        r: &Region,
        roce: bool,
        index: usize,
        key: u32,
        slot: u8,
        valid: bool,
    ) -> Result<Code, RegionError> {
        if index >= STEER_ENTRIES {
            return Ok(Code::SteerIndex);
        }
        if valid {
            if slot >= self.scu_slots {
                return Ok(Code::SteerSlot);
            }
            let want = if roce { 1 } else { 2 };
            if attaches(r, slot)?.into_iter().any(|a| a != want) {
                return Ok(Code::SteerKind);
            }
            let table = if roce { &self.roce } else { &self.tcp };
            if table.by_key.get(&key).is_some_and(|&i| i != index) {
                return Ok(Code::SteerDup);
            }
        }
        let table = if roce { &mut self.roce } else { &mut self.tcp };
        table.set(index, valid.then_some((key, slot)));
        Ok(Code::Ok)
    }

    fn publish_read(&self, r: &Region, roce: bool, index: usize) -> Result<(), RegionError> {
        let table = if roce { &self.roce } else { &self.tcp };
        let (key, value) = table.value(index);
        r.store(global::STEER_RD_KEY, key, Ordering::Relaxed)?;
        r.store(global::STEER_RD_VALUE, value, Ordering::Release)
    }
}

/// The attach kinds of slot `k`'s `ACTIVE` and `SHADOW` banks.
fn attaches(r: &Region, k: u8) -> Result<Vec<u8>, RegionError> {
    let base = abi::slot_block_unchecked(k);
    let state = r.load(base + slot::SLOT_STATE, Ordering::Acquire)?;
    let mut out = Vec::new();
    for bank in [Bank::B0, Bank::B1] {
        let code = (state >> (8 * bank.index())) as u8;
        if code == BankState::Active as u8 || code == BankState::Shadow as u8 {
            let unit = r.load(
                base + slot::identity_block(bank) + slot::UNIT,
                Ordering::Acquire,
            )?;
            out.push((unit >> 16) as u8);
        }
    }
    Ok(out)
}

/// Records a refused global write in `ERROR` (§2.2).
pub fn record_error(r: &Region, code: Code, offset: u64) -> Result<(), RegionError> {
    let old = ErrorWord::decode(r.load(global::ERROR, Ordering::Acquire)?);
    let word = ErrorWord {
        code: code.number(),
        offset: offset as u32,
        count: old.count.wrapping_add(1),
    };
    r.store(global::ERROR, word.encode(), Ordering::Release)
}
