//! The ring protocol of `docs/device.md` §1.3–§1.4, for both sides, generic over the entry size.
//!
//! A ring is `N` entries (a power of two) of `entry_bytes` at `base`, plus a producer and a consumer
//! index register. Indices are **free-running 32-bit counters** in bits `[0..32)` of their 64-bit
//! registers (bits `[32..64)` are 0): entry `i` lives at `base + (i mod N) × entry_bytes`, the ring
//! is empty when `prod == cons` and full when `prod − cons == N` (wrapping subtraction), so no entry
//! is wasted. Each index has one writer ([`Producer`] owns the producer index, [`Consumer`] the
//! consumer index) and each side keeps its own copy of the index it writes (it never re-reads it).
//!
//! Ordering (§1.3): the producer writes the whole entry, then stores its index with `Release`; the
//! consumer loads the producer index with `Acquire` before reading entries, and stores its own index
//! with `Release` after it has copied the entry out (so the producer, which loads the consumer index
//! with `Acquire`, never overwrites an entry still being read).
//!
//! A peer index that is more than `N` ahead, or that moved backwards, is a protocol error
//! ([`RingError::Overrun`]): the ring must be reset, nothing is read or written.

use std::sync::atomic::Ordering;

use crate::abi::slot;
use crate::region::{Region, RegionError};

/// Where a ring lives and its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingLayout {
    /// Byte offset of entry 0 in the map.
    pub base: u64,
    /// Entries (`N`), a power of two.
    pub entries: u32,
    /// Bytes per entry.
    pub entry_bytes: u64,
    /// Offset of the producer index register.
    pub prod_reg: u64,
    /// Offset of the consumer index register.
    pub cons_reg: u64,
}

/// Why a ring operation failed.
#[derive(Debug, thiserror::Error)]
pub enum RingError {
    /// The layout is unusable.
    #[error("bad ring layout: {0}")]
    Layout(&'static str),
    /// An index register has bits `[32..64)` set.
    #[error("ring index register {reg:#x} holds {value:#x}: bits 32..64 must be 0")]
    HighBits {
        /// The register.
        reg: u64,
        /// Its value.
        value: u64,
    },
    /// The indices are inconsistent: `prod − cons > N` (or an index moved backwards).
    #[error("ring overrun: producer {prod}, consumer {cons}, {entries} entries")]
    Overrun {
        /// Producer index.
        prod: u32,
        /// Consumer index.
        cons: u32,
        /// Entries.
        entries: u32,
    },
    /// An entry of the wrong size was given.
    #[error("ring entries are {expected} bytes, got {actual}")]
    EntrySize {
        /// The ring's entry size.
        expected: u64,
        /// The buffer's size.
        actual: usize,
    },
    /// A register or entry access failed.
    #[error(transparent)]
    Region(#[from] RegionError),
}

/// Entries in the ring from `cons` to `prod`, or `Overrun` when that exceeds `entries`.
pub fn occupancy(prod: u32, cons: u32, entries: u32) -> Result<u32, RingError> {
    let used = prod.wrapping_sub(cons);
    if used > entries {
        return Err(RingError::Overrun {
            prod,
            cons,
            entries,
        });
    }
    Ok(used)
}

impl RingLayout {
    /// Checks the layout: a power-of-two entry count, non-zero entries.
    pub fn validate(&self) -> Result<(), RingError> {
        if self.entries == 0 || !self.entries.is_power_of_two() {
            return Err(RingError::Layout("entries must be a non-zero power of two"));
        }
        if self.entry_bytes == 0 {
            return Err(RingError::Layout("entry bytes must be non-zero"));
        }
        Ok(())
    }

    /// Slot `k`'s control request ring (§3.6): the host produces, the device consumes.
    pub fn control_requests(k: u8) -> RingLayout {
        let base = crate::abi::slot_block_unchecked(k);
        RingLayout {
            base: base + slot::CQ_REQ_RING,
            entries: slot::CQ_ENTRIES,
            entry_bytes: slot::CQ_ENTRY_BYTES,
            prod_reg: base + slot::CQ_REQ_PROD,
            cons_reg: base + slot::CQ_REQ_CONS,
        }
    }

    /// Slot `k`'s control response ring (§3.6): the device produces, the host consumes.
    pub fn control_responses(k: u8) -> RingLayout {
        let base = crate::abi::slot_block_unchecked(k);
        RingLayout {
            base: base + slot::CQ_RSP_RING,
            entries: slot::CQ_ENTRIES,
            entry_bytes: slot::CQ_ENTRY_BYTES,
            prod_reg: base + slot::CQ_RSP_PROD,
            cons_reg: base + slot::CQ_RSP_CONS,
        }
    }

    /// Slot `k`'s notification ring (§3.7): the device produces, the host consumes.
    pub fn notifications(k: u8) -> RingLayout {
        let base = crate::abi::slot_block_unchecked(k);
        RingLayout {
            base: base + slot::NQ_RING,
            entries: slot::NQ_ENTRIES,
            entry_bytes: slot::NQ_ENTRY_BYTES,
            prod_reg: base + slot::NQ_PROD,
            cons_reg: base + slot::NQ_CONS,
        }
    }

    /// Byte offset of the entry of free-running index `i`.
    pub fn entry_offset(&self, i: u32) -> u64 {
        self.base + u64::from(i & (self.entries - 1)) * self.entry_bytes
    }

    fn read_index(&self, region: &Region, reg: u64) -> Result<u32, RingError> {
        let value = region.load(reg, Ordering::Acquire)?;
        u32::try_from(value).map_err(|_| RingError::HighBits { reg, value })
    }
}

/// The producing side of a ring: writes entries and the producer index.
#[derive(Debug)]
pub struct Producer {
    layout: RingLayout,
    prod: u32,
}

impl Producer {
    /// Attaches to a ring, taking the current producer index as its own.
    pub fn attach(region: &Region, layout: RingLayout) -> Result<Producer, RingError> {
        layout.validate()?;
        let prod = layout.read_index(region, layout.prod_reg)?;
        Ok(Producer { layout, prod })
    }

    /// The layout.
    pub fn layout(&self) -> &RingLayout {
        &self.layout
    }

    /// The producer index as this side last published it.
    pub fn index(&self) -> u32 {
        self.prod
    }

    /// Free entries now.
    pub fn free(&self, region: &Region) -> Result<u32, RingError> {
        let cons = self.layout.read_index(region, self.layout.cons_reg)?;
        Ok(self.layout.entries - occupancy(self.prod, cons, self.layout.entries)?)
    }

    /// Writes one entry and publishes it; `Ok(false)` when the ring is full (nothing written).
    pub fn push(&mut self, region: &Region, entry: &[u8]) -> Result<bool, RingError> {
        if entry.len() as u64 != self.layout.entry_bytes {
            return Err(RingError::EntrySize {
                expected: self.layout.entry_bytes,
                actual: entry.len(),
            });
        }
        if self.free(region)? == 0 {
            return Ok(false);
        }
        region.write_bytes(self.layout.entry_offset(self.prod), entry)?;
        self.prod = self.prod.wrapping_add(1);
        region.store(
            self.layout.prod_reg,
            u64::from(self.prod),
            Ordering::Release,
        )?;
        Ok(true)
    }
}

/// The consuming side of a ring: reads entries and writes the consumer index.
#[derive(Debug)]
pub struct Consumer {
    layout: RingLayout,
    cons: u32,
}

impl Consumer {
    /// Attaches to a ring, taking the current consumer index as its own.
    pub fn attach(region: &Region, layout: RingLayout) -> Result<Consumer, RingError> {
        layout.validate()?;
        let cons = layout.read_index(region, layout.cons_reg)?;
        Ok(Consumer { layout, cons })
    }

    /// The layout.
    pub fn layout(&self) -> &RingLayout {
        &self.layout
    }

    /// The consumer index as this side last published it.
    pub fn index(&self) -> u32 {
        self.cons
    }

    /// Entries ready now.
    pub fn ready(&self, region: &Region) -> Result<u32, RingError> {
        let prod = self.layout.read_index(region, self.layout.prod_reg)?;
        occupancy(prod, self.cons, self.layout.entries)
    }

    /// Copies the next entry into `out` and releases it; `Ok(false)` when the ring is empty.
    pub fn pop(&mut self, region: &Region, out: &mut [u8]) -> Result<bool, RingError> {
        if out.len() as u64 != self.layout.entry_bytes {
            return Err(RingError::EntrySize {
                expected: self.layout.entry_bytes,
                actual: out.len(),
            });
        }
        if self.ready(region)? == 0 {
            return Ok(false);
        }
        region.read_bytes(self.layout.entry_offset(self.cons), out)?;
        self.cons = self.cons.wrapping_add(1);
        region.store(
            self.layout.cons_reg,
            u64::from(self.cons),
            Ordering::Release,
        )?;
        Ok(true)
    }
}
