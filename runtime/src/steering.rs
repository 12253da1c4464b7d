//! The host side of steering (`docs/device.md` §2.3): which RoCE queue pair or TCP flow goes to
//! which slot, and the slow-path slot, through `STEER_KEY`/`STEER_VALUE`/`STEER_CMD`.
//!
//! An entry is written at an index the runtime picks: the key's home index (its value modulo the
//! table's capacity) or the next free one after it, found with `READ`; a key already present is
//! refused by the device (`E_STEER_DUP`), as are a slot that is not an SCU slot (`E_STEER_SLOT`)
//! and a slot whose unit is attached differently (`E_STEER_KIND`). Removal looks the key up and
//! writes its entry invalid. [`tcp_flow_id`] is the emulator's flow id of a TCP 4-tuple (CRC-32C of
//! source address, destination address, source port, destination port, in packet byte order), so
//! a connection can be steered by its addresses.
//!
//! Invariant: every refusal comes from the device and leaves the tables unchanged; the runtime
//! checks only what it must to pick an index.

use std::net::IpAddr;

use crate::abi::global::{self, SteerOp, SLOW_PATH_NONE};
use crate::command::Channel;
use crate::device::{Device, DeviceError};
use crate::net::classify::Crc32c;

/// The two steering tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SteerTable {
    /// RoCEv2 by destination QPN (24 bits).
    Roce,
    /// TCP by flow id (32 bits).
    Tcp,
}

/// One valid entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SteerEntry {
    /// Its index in the table.
    pub index: u32,
    /// QPN or flow id.
    pub key: u32,
    /// The slot its inputs go to.
    pub slot: u8,
}

const VALID: u64 = 1 << 40;

/// Why a steering operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SteerError {
    /// The device refused (`E_STEER_DUP`, `E_STEER_SLOT`, `E_STEER_KIND`, …) or went away.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The device kept its slow-path slot: the one asked for is not an SCU slot (`E_STEER_SLOT`).
    #[error("the device kept slow-path slot {kept:#x}: {asked:#x} is not one of its SCU slots (E_STEER_SLOT)")]
    SlowPathKept {
        /// What was written.
        asked: u64,
        /// What the register holds.
        kept: u64,
    },
}

impl SteerError {
    /// Exit code: 2 for a device that went away or cannot be read, 1 for a refusal.
    pub fn exit_code(&self) -> i32 {
        match self {
            SteerError::Device(DeviceError::Command(_)) | SteerError::SlowPathKept { .. } => 1,
            SteerError::Device(_) => 2,
        }
    }
}

impl SteerTable {
    /// `roce` or `tcp`.
    pub fn name(self) -> &'static str {
        match self {
            SteerTable::Roce => "roce",
            SteerTable::Tcp => "tcp",
        }
    }

    fn op(self, roce: SteerOp, tcp: SteerOp) -> SteerOp {
        match self {
            SteerTable::Roce => roce,
            SteerTable::Tcp => tcp,
        }
    }

    /// Entries of the table on this device (`STEER_CAPS`).
    pub fn capacity(self, dev: &Device) -> Result<u32, DeviceError> {
        let caps = dev.read(global::STEER_CAPS)?;
        Ok(match self {
            SteerTable::Roce => caps as u32,
            SteerTable::Tcp => (caps >> 32) as u32,
        })
    }

    /// The largest key: a QPN has 24 bits.
    pub fn max_key(self) -> u32 {
        match self {
            SteerTable::Roce => 0xFF_FFFF,
            SteerTable::Tcp => u32::MAX,
        }
    }
}

fn steer(dev: &Device, op: SteerOp, key: u64, value: u64) -> Result<u32, DeviceError> {
    dev.write(global::STEER_KEY, key)?;
    dev.write(global::STEER_VALUE, value)?;
    let channel = Channel {
        cmd: global::STEER_CMD,
        result: global::STEER_RESULT,
    };
    Ok(dev.command(channel, op as u8, 0)?.detail)
}

/// Entry `index`, valid or not.
fn read(dev: &Device, table: SteerTable, index: u32) -> Result<Option<SteerEntry>, DeviceError> {
    steer(
        dev,
        table.op(SteerOp::ReadRoce, SteerOp::ReadTcp),
        0,
        u64::from(index),
    )?;
    let value = dev.read(global::STEER_RD_VALUE)?;
    if value & VALID == 0 {
        return Ok(None);
    }
    Ok(Some(SteerEntry {
        index,
        key: dev.read(global::STEER_RD_KEY)? as u32,
        slot: (value >> 32) as u8,
    }))
}

/// Steers `key` to `slot`; the entry's index. The device refuses a duplicate key, a slot that is not
/// an SCU slot and a unit attached differently.
pub fn add(dev: &Device, table: SteerTable, key: u32, slot: u8) -> Result<u32, SteerError> {
    let capacity = table.capacity(dev)?.max(1);
    let home = key % capacity;
    let mut index = home;
    for step in 0..capacity {
        index = (home + step) % capacity;
        if read(dev, table, index)?.is_none() {
            break;
        }
    }
    let value = u64::from(index) | u64::from(slot) << 32 | VALID;
    steer(
        dev,
        table.op(SteerOp::WriteRoce, SteerOp::WriteTcp),
        u64::from(key),
        value,
    )?;
    Ok(index)
}

/// The entry of `key`, if the table has one.
pub fn lookup(dev: &Device, table: SteerTable, key: u32) -> Result<Option<SteerEntry>, SteerError> {
    let op = table.op(SteerOp::LookupRoce, SteerOp::LookupTcp);
    match steer(dev, op, u64::from(key), 0) {
        Ok(index) => Ok(Some(SteerEntry {
            index,
            key,
            slot: (dev.read(global::STEER_RD_VALUE)? >> 32) as u8,
        })),
        Err(e) if e.code() == Some(crate::abi::codes::Code::NotFound) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Removes the entry of `key`; whether there was one.
pub fn remove(dev: &Device, table: SteerTable, key: u32) -> Result<bool, SteerError> {
    let Some(entry) = lookup(dev, table, key)? else {
        return Ok(false);
    };
    let op = table.op(SteerOp::WriteRoce, SteerOp::WriteTcp);
    steer(dev, op, u64::from(key), u64::from(entry.index))?;
    Ok(true)
}

/// Every valid entry, in index order (one `READ` per entry of the table).
pub fn list(dev: &Device, table: SteerTable) -> Result<Vec<SteerEntry>, SteerError> {
    let mut out = Vec::new();
    for index in 0..table.capacity(dev)? {
        out.extend(read(dev, table, index)?);
    }
    Ok(out)
}

/// Invalidates every entry of the table.
pub fn clear(dev: &Device, table: SteerTable) -> Result<(), SteerError> {
    steer(dev, table.op(SteerOp::ClearRoce, SteerOp::ClearTcp), 0, 0)?;
    Ok(())
}

/// Sets the slow-path slot (`None`: straight to the host), fenced so the next packet sees it; the
/// device refuses a slot that is not an SCU slot and keeps the old value, reported as an error.
pub fn set_slow_path(dev: &Device, slot: Option<u8>) -> Result<(), SteerError> {
    let value = slot.map_or(SLOW_PATH_NONE, u64::from);
    dev.write(global::SLOW_PATH_SLOT, value)?;
    dev.fence()?;
    let kept = dev.read(global::SLOW_PATH_SLOT)?;
    if kept != value {
        return Err(SteerError::SlowPathKept { asked: value, kept });
    }
    Ok(())
}

/// The emulator's flow id of a TCP connection (module doc); both addresses of one family.
pub fn tcp_flow_id(src: (IpAddr, u16), dst: (IpAddr, u16)) -> Option<u32> {
    let mut c = Crc32c::new();
    match (src.0, dst.0) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            c.update(&s.octets());
            c.update(&d.octets());
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            c.update(&s.octets());
            c.update(&d.octets());
        }
        _ => return None,
    }
    c.update(&src.1.to_be_bytes());
    c.update(&dst.1.to_be_bytes());
    Some(c.finish())
}
