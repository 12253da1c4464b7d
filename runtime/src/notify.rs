//! The host side of a slot's notification ring (`docs/device.md` §3.7): [`Notifications::poll`]
//! and [`Notifications::wait`].
//!
//! Records are 32 bytes (`frame::Notification`), produced by the device, consumed here. Each carries
//! the slot's notification number `seq`, which counts dropped records too (the device drops the
//! newest when the ring is full), so a gap in `seq` is loss: [`Event::lost_before`] says how many
//! records were lost just before this one. The first record read has no predecessor to compare with.
//!
//! Invariant: one consumer per slot at a time: each poll holds the exclusive lock `slotK.nq` of the
//! device's state directory, and the consumer index is re-read from `NQ_CONS` under it, so two
//! `scenic notify` processes take turns and never read a record twice.

use std::time::{Duration, Instant};

use crate::abi::slot::{self, NQ_ENTRIES, NQ_ENTRY_BYTES};
use crate::control::ControlError;
use crate::device::{Device, DeviceError};
use crate::frame::Notification;
use crate::ring::{Consumer, RingError, RingLayout};
use crate::state::{StateDir, StateError};

/// One notification, with the loss before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The record.
    pub record: Notification,
    /// Records lost between the previous one read and this one (a `seq` gap).
    pub lost_before: u64,
}

/// Why notifications could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// The device failed or went away.
    #[error(transparent)]
    Dev(#[from] DeviceError),
    /// The ring's indices are inconsistent.
    #[error("slot {slot} notification ring: {error}")]
    Ring {
        /// The slot.
        slot: u8,
        /// What is wrong.
        error: RingError,
    },
    /// The lock could not be taken.
    #[error(transparent)]
    State(#[from] StateError),
}

impl From<NotifyError> for ControlError {
    fn from(e: NotifyError) -> ControlError {
        match e {
            NotifyError::Dev(d) => ControlError::Dev(d),
            NotifyError::Ring { slot, error } => ControlError::Ring { slot, error },
            NotifyError::State(s) => ControlError::State(s),
        }
    }
}

/// Records lost between the record numbered `last` (none: nothing read yet) and `seq`.
pub fn lost_between(last: Option<u64>, seq: u64) -> u64 {
    last.map_or(0, |last| {
        seq.wrapping_sub(last)
            .wrapping_sub(1)
            .min(seq.wrapping_sub(last))
    })
}

/// The notification ring of one slot.
#[derive(Debug)]
pub struct Notifications<'d> {
    dev: &'d Device,
    slot: u8,
    layout: RingLayout,
    state: StateDir,
    last_seq: Option<u64>,
}

impl<'d> Notifications<'d> {
    /// The ring of slot `k`, locking through `state`.
    pub fn new(dev: &'d Device, k: u8, state: StateDir) -> Result<Notifications<'d>, NotifyError> {
        let base = dev.slot_block(k)?;
        Ok(Notifications {
            dev,
            slot: k,
            layout: RingLayout {
                base: base + slot::NQ_RING,
                entries: NQ_ENTRIES,
                entry_bytes: NQ_ENTRY_BYTES,
                prod_reg: base + slot::NQ_PROD,
                cons_reg: base + slot::NQ_CONS,
            },
            state,
            last_seq: None,
        })
    }

    /// `NQ_OVERFLOW`: records the device dropped because the ring was full (wraps).
    pub fn overflow(&self) -> Result<u64, NotifyError> {
        let base = self.dev.slot_block(self.slot)?;
        Ok(self.dev.read(base + slot::NQ_OVERFLOW)?)
    }

    fn ring<T>(&self, r: Result<T, RingError>) -> Result<T, NotifyError> {
        r.map_err(|error| match error {
            RingError::Region(e) => NotifyError::Dev(DeviceError::Region(e)),
            error => NotifyError::Ring {
                slot: self.slot,
                error,
            },
        })
    }

    /// Takes up to `max` records now (none waiting: an empty list).
    pub fn poll(&mut self, max: usize) -> Result<Vec<Event>, NotifyError> {
        self.dev.check_alive()?;
        let _lock = self.state.lock(&format!("slot{}.nq", self.slot))?;
        let region = self.dev.region();
        let mut consumer = self.ring(Consumer::attach(region, self.layout))?;
        let mut raw = [0u8; NQ_ENTRY_BYTES as usize];
        let mut out = Vec::new();
        while out.len() < max && self.ring(consumer.pop(region, &mut raw))? {
            let record = Notification::decode(&raw);
            let lost_before = lost_between(self.last_seq, record.seq);
            self.last_seq = Some(record.seq);
            out.push(Event {
                record,
                lost_before,
            });
        }
        Ok(out)
    }

    /// Waits up to `timeout` for at least one record, then takes up to `max`; an empty list when
    /// none came.
    pub fn wait(&mut self, timeout: Duration, max: usize) -> Result<Vec<Event>, NotifyError> {
        let started = Instant::now();
        loop {
            let got = self.poll(max)?;
            if !got.is_empty() || started.elapsed() >= timeout {
                return Ok(got);
            }
            let left = timeout.saturating_sub(started.elapsed());
            std::thread::sleep(left.min(Duration::from_micros(500)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_gaps_are_counted() {
        assert_eq!(
            lost_between(None, 17),
            0,
            "the first record has no predecessor"
        );
        assert_eq!(lost_between(Some(4), 5), 0);
        assert_eq!(lost_between(Some(4), 8), 3);
        assert_eq!(lost_between(Some(u64::MAX), 2), 2, "seq wraps");
        assert_eq!(lost_between(Some(4), 4), 0, "a repeated number is no loss");
    }
}
