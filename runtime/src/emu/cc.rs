//! The server's CC switch (`docs/device.md` §4.1): `CC_CMD` `SWITCH` and `STOP`.
//!
//! CC slots A (block 16) and B (block 17) are loaded like SCU slots, into bank 0. The active one's
//! bank 0 reads `ACTIVE` (with `HAS_ACTIVE`), the standby's `SHADOW`; `CC_ACTIVE` names the active
//! slot. `SWITCH` makes the standby active at the next event boundary and the active one standby;
//! with no active slot it activates A if A is loaded, else B. The server takes `CC_CMD` in its poll
//! before the poll's events, and events are applied under the CC units' lock, which the switch
//! holds too ([`super::cc_events`]): the switch is always between two events. With argument bit 0
//! (`CARRY`) the active cc's per-flow state is copied into the standby first, under the same lock
//! ([`super::cc_carry`]). `CC_SWITCH_SEQ` is `CC_EVENT_SEQ` at the switch: the 0-based number of
//! the first event the new active slot's output answers. A refusal changes nothing.

use std::sync::atomic::Ordering;

use super::{cc_carry, cc_events, EmuServer};
use crate::abi::codes::Code;
use crate::abi::global::{self, CcOp, CC_SWITCH_CARRY};
use crate::abi::slot::{self, Bank, BankState};
use crate::abi::{self, CommandWord, ResultWord};
use crate::region::RegionError;

/// `CC_ACTIVE` bit 8: one CC slot is active.
const CC_VALID: u64 = 1 << 8;

impl EmuServer {
    /// Takes `CC_CMD`; returns the result register and word to publish at the end of the poll.
    pub(super) fn take_cc_command(&mut self) -> Result<Option<(u64, u64)>, RegionError> {
        let word = self.region.swap(global::CC_CMD, 0, Ordering::AcqRel)?;
        if word == 0 {
            return Ok(None);
        }
        let cmd = CommandWord::decode(word);
        let (status, detail) = match cmd.opcode {
            _ if cmd.seq == 0 => (Code::Seq, 0),
            op if op == CcOp::Switch as u8 => self.cc_switch(cmd.arg & CC_SWITCH_CARRY != 0)?,
            op if op == CcOp::Stop as u8 => self.cc_stop()?,
            _ => (Code::BadCommand, 0),
        };
        let result = ResultWord {
            status: status.number(),
            detail,
            seq: cmd.seq,
        };
        Ok(Some((global::CC_RESULT, result.encode())))
    }

    fn cc_loaded(&self, k: u8) -> bool {
        self.slots[k as usize].bank(Bank::B0) == BankState::Shadow
    }

    fn cc_flows(&self, k: u8) -> Result<u64, RegionError> {
        let id = abi::slot_block_unchecked(k) + slot::identity_block(Bank::B0);
        self.region.load(id + slot::FLOWS, Ordering::Acquire)
    }

    /// Makes CC slot `next` the active one in the units' store (after the register checks), with
    /// the carry first when asked; under the units' lock.
    fn switch_cc_units(
        &mut self,
        current: Option<u8>,
        next: u8,
        carry: bool,
    ) -> Result<(), RegionError> {
        let Some(service) = self.models.as_ref().map(|m| &m.cc) else {
            return Ok(());
        };
        let now = service.last_time();
        let mut pair = cc_events::lock(&service.units);
        let (Some(n), old) = (
            cc_events::cc_index(next),
            current.and_then(cc_events::cc_index),
        ) else {
            return Ok(());
        };
        if let (true, Some(o)) = (carry, old.filter(|o| *o != n)) {
            let [a, b] = &mut pair.units;
            let (from, to) = if o == 0 { (a, b) } else { (b, a) };
            if let (Some(from), Some(to)) = (from.as_mut(), to.as_mut()) {
                let _ = cc_carry::carry(&mut from.unit, &mut to.unit, now);
                // Before the result: a host that sees the switch sees the carried outputs.
                to.publish_all(&self.region, n)?;
            }
        }
        pair.active = Some(n);
        Ok(())
    }

    fn cc_switch(&mut self, carry: bool) -> Result<(Code, u32), RegionError> {
        let active = self.region.load(global::CC_ACTIVE, Ordering::Acquire)?;
        let current = (active & CC_VALID != 0).then_some(abi::CC_SLOT_A + (active & 1) as u8);
        let next = match current {
            Some(k) => abi::CC_SLOT_A + abi::CC_SLOT_B - k,
            None if self.cc_loaded(abi::CC_SLOT_A) => abi::CC_SLOT_A,
            None => abi::CC_SLOT_B,
        };
        if !self.cc_loaded(next) {
            return Ok((Code::CcNoStandby, 0));
        }
        if let Some(k) = current {
            let same_flows = self.cc_flows(k)? == self.cc_flows(next)?;
            let same_kind = self.output_kind[k as usize] == self.output_kind[next as usize];
            if !same_flows || !same_kind {
                return Ok((Code::CcMismatch, 0));
            }
            self.slots[k as usize].set_cc_role(false);
            self.publish_state(k)?;
        }
        self.switch_cc_units(current, next, carry)?;
        self.slots[next as usize].set_cc_role(true);
        self.publish_state(next)?;
        let seq = self.region.load(global::CC_EVENT_SEQ, Ordering::Acquire)?;
        self.region
            .store(global::CC_SWITCH_SEQ, seq, Ordering::Release)?;
        let kind = u64::from(self.output_kind[next as usize]);
        self.region
            .store(global::CC_OUTPUT_KIND, kind, Ordering::Release)?;
        let which = u64::from(next - abi::CC_SLOT_A);
        self.region
            .store(global::CC_ACTIVE, CC_VALID | which, Ordering::Release)?;
        Ok((Code::Ok, seq as u32))
    }

    fn cc_stop(&mut self) -> Result<(Code, u32), RegionError> {
        for k in [abi::CC_SLOT_A, abi::CC_SLOT_B] {
            self.slots[k as usize].set_cc_role(false);
            self.publish_state(k)?;
        }
        if let Some(m) = self.models.as_ref() {
            cc_events::lock(&m.cc.units).active = None;
        }
        self.region.store(global::CC_ACTIVE, 0, Ordering::Release)?;
        self.region
            .store(global::CC_OUTPUT_KIND, 0, Ordering::Release)?;
        Ok((Code::Ok, 0))
    }
}
