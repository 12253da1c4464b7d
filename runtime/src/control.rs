//! The host side of a slot's control queue (`docs/device.md` §3.6): one `scenic_ir::control`
//! request in, its response out.
//!
//! [`ControlQueue::call`] frames the request as a 256-byte entry (op, flags, target, index, a tag,
//! `D/64` data words), pushes it on the request ring, and pops responses until the one carrying its
//! tag arrives. Responses come one per request, in order; a response with another tag belongs to a
//! request an earlier client left behind (it died between push and pop) and is skipped. A device
//! status (`0x80`–`0x83`) is a [`ControlError::Device`]; a unit status (`Ok` … `End`) is returned
//! in the [`Response`] for the caller to interpret (`NotFound` from `MapGet` is an answer, not a
//! failure). Waits are bounded by [`CALL_TIMEOUT`] and by the device's liveness (§1.6).
//!
//! Invariants: two processes never interleave on one slot's rings (each call holds the exclusive
//! `flock` of `slotK.lock` in the device's state directory) and neither do two threads (a mutex);
//! a request whose data is wider than `D` is refused before anything is written.

use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use num_bigint::BigUint;
use scenic_scu_abi::control::{Request, Response};

use crate::abi::codes::DeviceStatus;
use crate::abi::slot::{self, CQ_ENTRIES, CQ_ENTRY_BYTES};
use crate::device::{Device, DeviceError};
use crate::frame::{ControlEntry, CQ_DATA_WORDS, FLAG_OTHER_BANK};
use crate::ring::{Consumer, Producer, RingError, RingLayout};
use crate::state::{StateDir, StateError};

/// How long a request may wait for its response.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a control request did not get a unit's answer.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// The device failed or went away.
    #[error(transparent)]
    Dev(#[from] DeviceError),
    /// The rings are inconsistent (an overrun: `QUEUE_RESET` the slot's control queue).
    #[error("slot {slot} control queue: {error}")]
    Ring {
        /// The slot.
        slot: u8,
        /// The ring's error.
        error: RingError,
    },
    /// The device answered with a device status: the request did not reach a unit; nothing changed.
    #[error("slot {slot}: {status}")]
    Device {
        /// The slot.
        slot: u8,
        /// The status.
        status: DeviceStatus,
    },
    /// A status byte this runtime does not know (§2.5: an error, shown with its number).
    #[error("slot {slot}: unknown control response status {status:#04x}")]
    UnknownStatus {
        /// The slot.
        slot: u8,
        /// The byte.
        status: u8,
    },
    /// The request's data is wider than the unit's `D` (nothing was sent).
    #[error("request data of {bits} bits does not fit the unit's {data_bits}-bit records")]
    TooWide {
        /// Bits of the data.
        bits: u64,
        /// `D`.
        data_bits: u32,
    },
    /// No response within [`CALL_TIMEOUT`].
    #[error(
        "slot {slot}: no control response within {waited:?} (request ring at {pending} pending)"
    )]
    Timeout {
        /// The slot.
        slot: u8,
        /// How long.
        waited: Duration,
        /// Requests not yet answered.
        pending: u32,
    },
    /// The lock file could not be taken.
    #[error(transparent)]
    State(#[from] StateError),
}

/// The control queue of one slot of a device.
#[derive(Debug)]
pub struct ControlQueue<'d> {
    dev: &'d Device,
    slot: u8,
    base: u64,
    state: StateDir,
    next_tag: Mutex<u32>,
}

fn request_layout(base: u64) -> RingLayout {
    RingLayout {
        base: base + slot::CQ_REQ_RING,
        entries: CQ_ENTRIES,
        entry_bytes: CQ_ENTRY_BYTES,
        prod_reg: base + slot::CQ_REQ_PROD,
        cons_reg: base + slot::CQ_REQ_CONS,
    }
}

fn response_layout(base: u64) -> RingLayout {
    RingLayout {
        base: base + slot::CQ_RSP_RING,
        entries: CQ_ENTRIES,
        entry_bytes: CQ_ENTRY_BYTES,
        prod_reg: base + slot::CQ_RSP_PROD,
        cons_reg: base + slot::CQ_RSP_CONS,
    }
}

/// The data of a request as `words` 64-bit words (bit `j` in bit `j mod 64` of word `j / 64`).
pub fn data_words(data: &BigUint, words: usize) -> Vec<u64> {
    let mut out: Vec<u64> = data.iter_u64_digits().collect();
    out.resize(words, 0);
    out
}

impl<'d> ControlQueue<'d> {
    /// The control queue of slot `k`, locking through `state`.
    pub fn new(dev: &'d Device, k: u8, state: StateDir) -> Result<ControlQueue<'d>, ControlError> {
        let base = dev.slot_block(k)?;
        // A first tag that differs between processes, so a stale response is never taken for ours.
        let first = std::process::id().wrapping_mul(0x9E37_79B9);
        Ok(ControlQueue {
            dev,
            slot: k,
            base,
            state,
            next_tag: Mutex::new(first),
        })
    }

    /// The slot.
    pub fn slot(&self) -> u8 {
        self.slot
    }

    /// Sends `req` to the active bank (or, with `other_bank`, the non-active one) of a unit whose
    /// records are `data_bits` wide, and returns its response (module doc).
    pub fn call(
        &self,
        other_bank: bool,
        req: &Request,
        data_bits: u32,
    ) -> Result<Response, ControlError> {
        let words = (data_bits / 64) as usize;
        if req.data.bits() > u64::from(data_bits) || words > CQ_DATA_WORDS {
            return Err(ControlError::TooWide {
                bits: req.data.bits(),
                data_bits,
            });
        }
        let mut tags = self
            .next_tag
            .lock()
            .map_err(|_| DeviceError::Gone("control queue lock poisoned".into()))?;
        let tag = *tags;
        *tags = tags.wrapping_add(1);
        let flags = if other_bank { FLAG_OTHER_BANK } else { 0 };
        let entry = ControlEntry::new(req.op as u8, flags, req.target, req.index, tag)
            .with_data(&data_words(&req.data, words))
            .ok_or(ControlError::TooWide {
                bits: req.data.bits(),
                data_bits,
            })?;
        let _lock = self.state.lock(&format!("slot{}", self.slot))?;
        self.dev.check_alive()?;
        let answer = self.exchange(&entry)?;
        decode_response(self.slot, &answer)
    }

    fn ring<T>(&self, r: Result<T, RingError>) -> Result<T, ControlError> {
        r.map_err(|error| match error {
            RingError::Region(e) => ControlError::Dev(DeviceError::Region(e)),
            error => ControlError::Ring {
                slot: self.slot,
                error,
            },
        })
    }

    /// Pushes `entry` and pops responses until the one with its tag.
    fn exchange(&self, entry: &ControlEntry) -> Result<ControlEntry, ControlError> {
        let region = self.dev.region();
        let mut producer = self.ring(Producer::attach(region, request_layout(self.base)))?;
        let mut consumer = self.ring(Consumer::attach(region, response_layout(self.base)))?;
        let started = Instant::now();
        let bytes = entry.encode();
        let mut raw = [0u8; CQ_ENTRY_BYTES as usize];
        let mut pushed = false;
        let mut spins = 0u32;
        loop {
            if !pushed {
                pushed = self.ring(producer.push(region, &bytes))?;
            }
            if self.ring(consumer.pop(region, &mut raw))? {
                let answer = ControlEntry::decode(&raw);
                if pushed && answer.tag == entry.tag {
                    return Ok(answer);
                }
                // A response to a request an earlier client left behind: skip it.
                continue;
            }
            if started.elapsed() > CALL_TIMEOUT {
                let pending = region
                    .load(self.base + slot::CQ_REQ_PROD, Ordering::Acquire)
                    .unwrap_or(0)
                    .wrapping_sub(u64::from(consumer.index())) as u32;
                return Err(ControlError::Timeout {
                    slot: self.slot,
                    waited: CALL_TIMEOUT,
                    pending,
                });
            }
            spins += 1;
            if spins % 64 == 0 {
                self.dev.check_alive()?;
            }
            if spins > 200 {
                std::thread::sleep(Duration::from_micros(10));
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// The response of a response entry, or the device status as an error.
fn decode_response(slot: u8, e: &ControlEntry) -> Result<Response, ControlError> {
    if let Some(status) = DeviceStatus::ALL.into_iter().find(|s| s.number() == e.op) {
        return Err(ControlError::Device { slot, status });
    }
    if scenic_scu_abi::control::Status::from_code(e.op).is_none() {
        return Err(ControlError::UnknownStatus { slot, status: e.op });
    }
    let words = usize::from(e.data_words).min(CQ_DATA_WORDS);
    Ok(Response {
        status: e.op,
        data: BigUint::from_slice(
            &e.data[..words]
                .iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<u32>>(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_words_pack_low_bits_first() {
        let data = BigUint::from(0x1234u32) | (BigUint::from(7u32) << 130usize);
        assert_eq!(data_words(&data, 4), vec![0x1234, 0, 7 << 2, 0]);
        assert_eq!(data_words(&BigUint::default(), 2), vec![0, 0]);
    }

    #[test]
    fn responses_decode_statuses_and_data() {
        let ok = ControlEntry::new(0, 0, 3, 0, 9)
            .with_data(&[5, 1 << 63])
            .unwrap_or_else(|| panic!("two words fit"));
        let r = decode_response(0, &ok).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.status, 0);
        assert_eq!(
            r.data,
            BigUint::from(5u32) | (BigUint::from(1u32) << 127usize)
        );
        let ds = ControlEntry::new(0x80, 0, 0, 0, 9);
        assert!(matches!(
            decode_response(2, &ds),
            Err(ControlError::Device {
                slot: 2,
                status: DeviceStatus::NoBank
            })
        ));
        let odd = ControlEntry::new(0x42, 0, 0, 0, 9);
        let err = decode_response(0, &odd).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("slot 0: unknown control response status 0x42")
        );
    }
}
