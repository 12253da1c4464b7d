//! The command/result handshake of `docs/device.md` §1.2, for every `CMD` register.
//!
//! A command is one 64-bit word `{opcode [0..8), argument [8..48), seq [48..64)}` stored to the
//! command register; the device takes it (swaps it to 0), acts, and stores
//! `{status [0..16), detail [16..48), seq [48..64)}` to the paired result register. The host waits
//! until the result's `seq` equals its own.
//!
//! Rules this module keeps:
//! - `seq` is never 0 and never equal to the `seq` already in the result register, so a stale
//!   result is never mistaken for the new one;
//! - a command register that still holds an untaken command is not written again
//!   ([`CommandError::Busy`]): the device would ignore the second write;
//! - the wait is bounded by a timeout and by the device's liveness (the caller's `alive` check, which
//!   `Device` backs with the heartbeat rule of §1.6);
//! - every non-`OK` status is a typed [`Code`] inside [`CommandError::Refused`].

use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use crate::abi::codes::Code;
use crate::abi::{CommandWord, ResultWord, CMD_ARG_MAX};
use crate::region::{Region, RegionError};

/// A command register and its result register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Channel {
    /// Offset of the `CMD` register.
    pub cmd: u64,
    /// Offset of the paired `*_RESULT` register.
    pub result: u64,
}

/// What the device answered to an accepted command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The result's detail field (per command).
    pub detail: u32,
    /// The `seq` the command carried.
    pub seq: u16,
}

/// Why a command did not complete with `OK`.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The argument does not fit the 40-bit field.
    #[error("command argument {arg:#x} does not fit 40 bits")]
    ArgTooWide {
        /// The argument.
        arg: u64,
    },
    /// The previous command on this register was not taken yet.
    #[error("command register {reg:#x} still holds an untaken command {word:#x}")]
    Busy {
        /// The register.
        reg: u64,
        /// Its value.
        word: u64,
    },
    /// No result within the timeout.
    #[error("no result for command {opcode:#04x} (seq {seq}) at {reg:#x} within {waited:?}")]
    Timeout {
        /// The register.
        reg: u64,
        /// The opcode.
        opcode: u8,
        /// The sequence number.
        seq: u16,
        /// How long the host waited.
        waited: Duration,
    },
    /// The device went away while the host waited (heartbeat, `READY`, `MAGIC`: §1.6).
    #[error("device went away: {0}")]
    Gone(String),
    /// The device refused the command; nothing changed on it (§6).
    #[error("device refused command {opcode:#04x}: {code} (detail {detail:#x})")]
    Refused {
        /// The opcode.
        opcode: u8,
        /// The status code.
        #[source]
        code: Code,
        /// The result's detail field.
        detail: u32,
    },
    /// A register access failed.
    #[error(transparent)]
    Region(#[from] RegionError),
}

/// Hands out sequence numbers: never 0, never the value in the result register.
#[derive(Debug, Default)]
pub struct SeqCounter(AtomicU16);

impl SeqCounter {
    /// The next sequence number that differs from `stale` (the result register's current `seq`).
    pub fn next(&self, stale: u16) -> u16 {
        loop {
            let seq = self.0.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            if seq != 0 && seq != stale {
                return seq;
            }
        }
    }
}

/// Issues one command and waits for its result.
///
/// `alive` is called about every millisecond while waiting; an error from it ends the wait.
pub fn issue(
    region: &Region,
    channel: Channel,
    opcode: u8,
    arg: u64,
    seqs: &SeqCounter,
    timeout: Duration,
    alive: &mut dyn FnMut() -> Result<(), CommandError>,
) -> Result<Completion, CommandError> {
    if arg > CMD_ARG_MAX {
        return Err(CommandError::ArgTooWide { arg });
    }
    let pending = region.load(channel.cmd, Ordering::Acquire)?;
    if pending != 0 {
        return Err(CommandError::Busy {
            reg: channel.cmd,
            word: pending,
        });
    }
    let stale = ResultWord::decode(region.load(channel.result, Ordering::Acquire)?).seq;
    let seq = seqs.next(stale);
    let word = CommandWord { opcode, arg, seq }
        .encode()
        .ok_or(CommandError::ArgTooWide { arg })?;
    region.store(channel.cmd, word, Ordering::Release)?;
    let result = wait_result(region, channel, seq, timeout, alive).map_err(|e| match e {
        CommandError::Timeout { reg, waited, .. } => CommandError::Timeout {
            reg,
            opcode,
            seq,
            waited,
        },
        other => other,
    })?;
    match Code::from_number(result.status) {
        Code::Ok => Ok(Completion {
            detail: result.detail,
            seq,
        }),
        code => Err(CommandError::Refused {
            opcode,
            code,
            detail: result.detail,
        }),
    }
}

/// Waits until the result register carries `seq`.
pub fn wait_result(
    region: &Region,
    channel: Channel,
    seq: u16,
    timeout: Duration,
    alive: &mut dyn FnMut() -> Result<(), CommandError>,
) -> Result<ResultWord, CommandError> {
    let started = Instant::now();
    let mut last_check = started;
    let mut spins = 0u32;
    loop {
        let result = ResultWord::decode(region.load(channel.result, Ordering::Acquire)?);
        if result.seq == seq {
            return Ok(result);
        }
        let now = Instant::now();
        if now.duration_since(started) > timeout {
            return Err(CommandError::Timeout {
                reg: channel.cmd,
                opcode: 0,
                seq,
                waited: timeout,
            });
        }
        if now.duration_since(last_check) >= Duration::from_millis(1) {
            alive()?;
            last_check = now;
        }
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::sleep(Duration::from_micros(20));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_is_never_zero_nor_stale() {
        let s = SeqCounter::default();
        for _ in 0..200_000 {
            let n = s.next(5);
            assert_ne!(n, 0);
            assert_ne!(n, 5);
        }
    }
}
