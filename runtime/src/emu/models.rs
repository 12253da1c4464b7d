//! The server's work for loaded units, once [`EmuServer::enable_models`] turned it on: the model
//! loader behind `LOAD`, and per poll, for each SCU slot, the CSR window (§3.5), the control queue
//! (§3.6), the notification ring (§3.7) and the units' time (`every` blocks).
//!
//! **CSR window** (§1.5 rule 2): every word of the active unit's CSRs is compared each poll with the
//! value last seen or published; a difference is a host write, applied masked and written back with
//! compare-and-swap (a `readonly` CSR keeps its value: `E_CSR_READONLY` in `SLOT_ERROR`). The
//! program's values are published every [`PUBLISH_EVERY`] polls with compare-and-swap against the
//! last seen value, so a racing host write is never overwritten: it is seen at the next poll.
//! Words past the unit's CSRs are checked every [`STRAY_EVERY`] polls (`E_CSR_UNMAPPED`, or
//! `E_CSR_NO_BANK` without an active bank) and cleared.
//!
//! **Control queue**: requests are taken while the response ring has room, at most one ring's
//! worth per poll; indices are read from the registers each poll, so `QUEUE_RESET` needs no
//! cooperation. An index that is not consistent stops the queue (`E_QUEUE_OVERRUN` in
//! `SLOT_ERROR`) until `QUEUE_RESET`.
//!
//! **Notifications**: each unit's pending records go to the ring in order; a full ring drops the
//! newest and counts `NQ_OVERFLOW`; `seq` counts every record, dropped or not.
//!
//! **CC slots** (§4.2): the window and the control queue serve a cc's params the same way, through
//! [`Served`]: the active CC slot's bank 0 is its `ACTIVE` bank (the window shows its params), the
//! standby's is reached with `OTHER_BANK`. Events and outputs are [`super::cc_events`]'.

use std::sync::atomic::Ordering;
use std::time::Instant;

use num_bigint::BigUint;
use scenic_scu_abi::control::{Op, Request, Response};

use super::banks::{new_banks, BankPair, Banks};
use super::cc_events::{self, CcService};
use super::cc_unit::CcUnit;
use super::model;
use super::unit::{CsrRefusal, Unit};
use super::{EmuServer, LoadRequest};
use crate::abi::codes::{Code, DeviceStatus};
use crate::abi::slot::{self, Bank, SlotKind};
use crate::abi::{self, ErrorWord};
use crate::container::UnitKind;
use crate::frame::{self, ControlEntry, CQ_DATA_WORDS};
use crate::region::{Region, RegionError};
use crate::ring::{Consumer, Producer, RingLayout};

/// Polls between two publications of the program's CSR values.
pub const PUBLISH_EVERY: u64 = 10;
/// Polls between two scans of the whole CSR window for stray writes.
pub const STRAY_EVERY: u64 = 100;
/// Polls between two advances of the units' time (`every` blocks fire at that granularity).
pub const TIME_EVERY: u64 = 10;
/// Words of the CSR window.
const WINDOW_WORDS: u32 = slot::CSR_WINDOW_WORDS as u32;

/// Per-slot bookkeeping of the server's side of the window and the rings.
#[derive(Debug, Default, Clone)]
struct SlotService {
    /// The bank whose CSRs the window shows, and what each of its words last held.
    window_bank: Option<Bank>,
    seen: Vec<u64>,
    /// The control queue stopped on a protocol error until `QUEUE_RESET`.
    queue_stopped: bool,
    /// Notifications numbered so far.
    notify_seq: u64,
}

/// A unit as the window and the control queue see it.
type Dyn<'a> = &'a mut (dyn Served + 'static);

/// What the window and the control queue need of a unit, an scu's or a cc's.
trait Served {
    fn data_bits(&self) -> u32;
    fn csr_words(&self) -> u32;
    fn csr_word(&mut self, n: u32) -> u64;
    fn write_csr_word(&mut self, n: u32, value: u64) -> Result<u64, CsrRefusal>;
    fn serve(&mut self, req: &Request) -> Response;
}

impl Served for Unit {
    fn data_bits(&self) -> u32 {
        Unit::data_bits(self)
    }
    fn csr_words(&self) -> u32 {
        Unit::csr_words(self)
    }
    fn csr_word(&mut self, n: u32) -> u64 {
        Unit::csr_word(self, n)
    }
    fn write_csr_word(&mut self, n: u32, value: u64) -> Result<u64, CsrRefusal> {
        Unit::write_csr_word(self, n, value)
    }
    fn serve(&mut self, req: &Request) -> Response {
        Unit::serve(self, req)
    }
}

impl Served for CcUnit {
    fn data_bits(&self) -> u32 {
        CcUnit::data_bits(self)
    }
    fn csr_words(&self) -> u32 {
        CcUnit::csr_words(self)
    }
    fn csr_word(&mut self, n: u32) -> u64 {
        CcUnit::csr_word(self, n)
    }
    fn write_csr_word(&mut self, n: u32, value: u64) -> Result<u64, CsrRefusal> {
        CcUnit::write_csr_word(self, n, value)
    }
    fn serve(&mut self, req: &Request) -> Response {
        CcUnit::serve(self, req)
    }
}

/// The active and the other unit of an SCU slot's banks (§3.4's "other" when none is active).
fn split(pair: &mut BankPair) -> (Option<Dyn<'_>>, Option<Dyn<'_>>) {
    let active = pair.active;
    let [b0, b1] = &mut pair.units;
    let (a, o) = match active {
        Some(Bank::B0) => (b0.as_mut(), b1.as_mut()),
        Some(Bank::B1) => (b1.as_mut(), b0.as_mut()),
        None => (None, b0.as_mut().or(b1.as_mut())),
    };
    (a.map(|u| u as Dyn<'_>), o.map(|u| u as Dyn<'_>))
}

/// The model service's state (module doc).
#[derive(Debug)]
pub(super) struct Models {
    /// The CC slots' units and event ring.
    pub(super) cc: CcService,
    banks: Banks,
    slots: Vec<SlotService>,
    polls: u64,
    started: Instant,
}

impl EmuServer {
    /// Turns on the model loader and the per-slot services (module doc); returns the banks the
    /// datapath's engines share ([`super::banks::ModelEngine`]).
    pub fn enable_models(&mut self) -> Banks {
        let banks = new_banks(usize::from(abi::SLOT_BLOCKS));
        let loader_banks = banks.clone();
        let cc = CcService::default();
        let cc_units = cc.units.clone();
        let kinds: Vec<SlotKind> = (0..abi::SLOT_BLOCKS)
            .map(|k| self.slots[usize::from(k)].kind())
            .collect();
        self.loader = Box::new(move |req: &LoadRequest<'_>| {
            let kind = match kinds.get(usize::from(req.slot)) {
                Some(SlotKind::Cc) => UnitKind::Cc,
                _ => UnitKind::Scu,
            };
            let (unit, loaded) = model::load(req.image, &req.staged, kind)?;
            match unit {
                model::Loaded::Scu(unit) => {
                    if let Some(slot) = loader_banks.get(usize::from(req.slot)) {
                        slot.install(req.bank, unit);
                    }
                }
                model::Loaded::Cc(unit) => {
                    if let Some(i) = cc_events::cc_index(req.slot) {
                        cc_events::lock(&cc_units).install(i, unit);
                    }
                }
            }
            Ok(loaded)
        });
        self.models = Some(Models {
            cc,
            banks: banks.clone(),
            slots: vec![SlotService::default(); usize::from(abi::SLOT_BLOCKS)],
            polls: 0,
            started: self.started,
        });
        banks
    }

    /// The CC slots' units (with the models on): what the event ring feeds.
    pub fn cc_units(&self) -> Option<cc_events::CcUnits> {
        self.models.as_ref().map(|m| m.cc.units.clone())
    }

    /// Makes slot `k`'s banks follow its state machine (after every command).
    pub(super) fn follow_units(&mut self, k: u8) {
        if let Some(models) = &self.models {
            if let Some(slot) = models.banks.get(usize::from(k)) {
                slot.follow(&self.slots[usize::from(k)].word());
            }
        }
    }

    /// The switch of an `ACTIVATE` in slot `k` to bank `new`, with the old active unit's state
    /// carried first when `carry` (argument bit 0, `F_STATE_CARRY`); both under the slot's lock, so
    /// no input falls between the copy and the switch.
    pub(super) fn switch_units(&mut self, k: u8, new: Bank, carry: bool) {
        let Some(slot) = self
            .models
            .as_ref()
            .and_then(|m| m.banks.get(usize::from(k)))
        else {
            return;
        };
        let mut pair = slot.lock();
        if carry {
            if let Some(old) = pair.active.filter(|b| *b != new) {
                let [b0, b1] = &mut pair.units;
                let (old_unit, new_unit) = match old {
                    Bank::B0 => (b0, b1),
                    Bank::B1 => (b1, b0),
                };
                if let (Some(o), Some(n)) = (old_unit.as_mut(), new_unit.as_mut()) {
                    let _ = super::carry::carry(o, n);
                }
            }
        }
        if pair.units[new as usize].is_some() {
            pair.active = Some(new);
            pair.mirror = false;
        }
    }

    /// A `QUEUE_RESET` of the control queue: serve it again.
    pub(super) fn restart_queue(&mut self, k: u8) {
        if let Some(s) = self
            .models
            .as_mut()
            .and_then(|m| m.slots.get_mut(usize::from(k)))
        {
            s.queue_stopped = false;
        }
    }

    /// One poll's model work for every SCU slot.
    pub(super) fn serve_models(&mut self) -> Result<(), RegionError> {
        let Some(models) = self.models.as_mut() else {
            return Ok(());
        };
        models.polls = models.polls.wrapping_add(1);
        let polls = models.polls;
        let now_ns = models
            .started
            .elapsed()
            .as_nanos()
            .min(u128::from(u64::MAX)) as u64;
        for k in 0..self.config.scu_slots {
            let i = usize::from(k);
            let (Some(banks), Some(service)) = (models.banks.get(i), models.slots.get_mut(i))
            else {
                continue;
            };
            let mut pair = banks.lock();
            let region = &*self.region;
            if polls % TIME_EVERY == 0 {
                for unit in pair.units.iter_mut().flatten() {
                    unit.advance(now_ns);
                }
            }
            let active = pair.active;
            let (a, o) = split(&mut pair);
            serve_slot_unit(region, k, active, (a, o), service, polls)?;
            deliver_notifications(region, k, &mut pair, service)?;
        }
        if self.config.cc_slots == 2 {
            let mut pair = cc_events::lock(&models.cc.units);
            for k in [abi::CC_SLOT_A, abi::CC_SLOT_B] {
                let (Some(i), Some(service)) =
                    (cc_events::cc_index(k), models.slots.get_mut(usize::from(k)))
                else {
                    continue;
                };
                let is_active = pair.active == Some(i);
                let unit = pair.unit_mut(i).map(|u| u as Dyn<'_>);
                let (active, units) = if is_active {
                    (Some(Bank::B0), (unit, None))
                } else {
                    (None, (None, unit))
                };
                serve_slot_unit(&self.region, k, active, units, service, polls)?;
            }
        }
        Ok(())
    }
}

/// The window and the control queue of slot `k` for one poll: `units` are its active and other
/// unit, `active` the active bank.
fn serve_slot_unit(
    region: &Region,
    k: u8,
    active: Option<Bank>,
    units: (Option<Dyn<'_>>, Option<Dyn<'_>>),
    service: &mut SlotService,
    polls: u64,
) -> Result<(), RegionError> {
    let (mut a, o) = units;
    serve_window(region, k, active, a.as_deref_mut(), service, polls)?;
    if !service.queue_stopped {
        if let Err(code) = serve_queue(region, k, a, o) {
            service.queue_stopped = true;
            record_slot_error(region, k, code, slot::CQ_REQ_PROD)?;
        }
    }
    Ok(())
}

fn record_slot_error(r: &Region, k: u8, code: Code, offset: u64) -> Result<(), RegionError> {
    let reg = abi::slot_block_unchecked(k) + slot::SLOT_ERROR;
    let old = ErrorWord::decode(r.load(reg, Ordering::Acquire)?);
    let word = ErrorWord {
        code: code.number(),
        offset: offset as u32,
        count: old.count.wrapping_add(1),
    };
    r.store(reg, word.encode(), Ordering::Release)
}

fn window_word(k: u8, n: u32) -> u64 {
    abi::slot_block_unchecked(k) + slot::CSR_WINDOW + 8 * u64::from(n)
}

/// The CSR window of slot `k` for one poll (module doc).
fn serve_window(
    r: &Region,
    k: u8,
    active: Option<Bank>,
    mut unit: Option<Dyn<'_>>,
    s: &mut SlotService,
    polls: u64,
) -> Result<(), RegionError> {
    if s.window_bank != active {
        // The window now shows another bank (or none): what the old one showed goes.
        for n in 0..s.seen.len() as u32 {
            r.store(window_word(k, n), 0, Ordering::Release)?;
        }
        s.seen.clear();
        s.window_bank = active;
        if let Some(unit) = unit.as_deref_mut() {
            for n in 0..unit.csr_words() {
                let v = unit.csr_word(n);
                r.store(window_word(k, n), v, Ordering::Release)?;
                s.seen.push(v);
            }
        }
    }
    let words = s.seen.len() as u32;
    if let Some(unit) = unit {
        take_host_writes(r, k, unit, s)?;
        if polls % PUBLISH_EVERY == 0 {
            publish_program_values(r, k, unit, s)?;
        }
    }
    if polls % STRAY_EVERY == 0 {
        let code = if active.is_some() {
            Code::CsrUnmapped
        } else {
            Code::CsrNoBank
        };
        for n in words..WINDOW_WORDS {
            // Loads first: a swap on every word would write the whole window each scan.
            let at = window_word(k, n);
            if r.load(at, Ordering::Relaxed)? != 0 && r.swap(at, 0, Ordering::AcqRel)? != 0 {
                record_slot_error(r, k, code, slot::CSR_WINDOW + 8 * u64::from(n))?;
            }
        }
    }
    Ok(())
}

fn take_host_writes(
    r: &Region,
    k: u8,
    unit: Dyn<'_>,
    s: &mut SlotService,
) -> Result<(), RegionError> {
    for n in 0..s.seen.len() as u32 {
        let at = window_word(k, n);
        let w = r.load(at, Ordering::Acquire)?;
        let last = s.seen[n as usize];
        if w == last {
            continue;
        }
        let (keep, refusal) = match unit.write_csr_word(n, w) {
            Ok(masked) => (masked, None),
            Err(CsrRefusal::ReadOnly) => (last, Some(Code::CsrReadonly)),
            Err(CsrRefusal::Unmapped) => (last, Some(Code::CsrUnmapped)),
        };
        // A second host write since `w` fails the swap and is seen at the next poll.
        let _ = r.compare_exchange(at, w, keep)?;
        s.seen[n as usize] = keep;
        if let Some(code) = refusal {
            record_slot_error(r, k, code, slot::CSR_WINDOW + 8 * u64::from(n))?;
        }
    }
    Ok(())
}

fn publish_program_values(
    r: &Region,
    k: u8,
    unit: Dyn<'_>,
    s: &mut SlotService,
) -> Result<(), RegionError> {
    for n in 0..s.seen.len() as u32 {
        let v = unit.csr_word(n);
        let last = s.seen[n as usize];
        if v != last && r.compare_exchange(window_word(k, n), last, v)?.is_ok() {
            s.seen[n as usize] = v;
        }
    }
    Ok(())
}

/// Takes slot `k`'s control requests while there is room for their responses; `Err` is a ring
/// protocol error that stops the queue.
fn serve_queue(
    r: &Region,
    k: u8,
    mut active: Option<Dyn<'_>>,
    mut other: Option<Dyn<'_>>,
) -> Result<(), Code> {
    let overrun = |_| Code::QueueOverrun;
    let mut requests = Consumer::attach(r, RingLayout::control_requests(k)).map_err(overrun)?;
    let mut responses = Producer::attach(r, RingLayout::control_responses(k)).map_err(overrun)?;
    let base = abi::slot_block_unchecked(k);
    let mut raw = [0u8; slot::CQ_ENTRY_BYTES as usize];
    for _ in 0..slot::CQ_ENTRIES {
        if requests.ready(r).map_err(overrun)? == 0 || responses.free(r).map_err(overrun)? == 0 {
            break;
        }
        if !requests.pop(r, &mut raw).map_err(overrun)? {
            break;
        }
        let answer = answer_request(&raw, active.as_deref_mut(), other.as_deref_mut());
        if answer.status >= 0x80 {
            let _ = r
                .load(base + slot::CQ_MALFORMED, Ordering::Acquire)
                .and_then(|n| {
                    r.store(
                        base + slot::CQ_MALFORMED,
                        n.wrapping_add(1),
                        Ordering::Release,
                    )
                });
        }
        responses.push(r, &answer.entry.encode()).map_err(overrun)?;
    }
    Ok(())
}

struct Answer {
    status: u8,
    entry: ControlEntry,
}

/// The response to one raw request entry.
fn answer_request(
    raw: &[u8; slot::CQ_ENTRY_BYTES as usize],
    active: Option<Dyn<'_>>,
    other: Option<Dyn<'_>>,
) -> Answer {
    let head = ControlEntry::decode(raw);
    let other_bank = head.flags & frame::FLAG_OTHER_BANK != 0;
    let device = |ds: DeviceStatus| {
        let mut entry =
            ControlEntry::new(ds.number(), head.flags, head.target, head.index, head.tag);
        entry.data_words = 0;
        Answer {
            status: ds.number(),
            entry,
        }
    };
    let unit = if other_bank { other } else { active };
    let Some(unit) = unit else {
        return device(DeviceStatus::NoBank);
    };
    let words = (unit.data_bits() / 64) as usize;
    let req = match ControlEntry::check_request(raw, words) {
        Ok(e) => e,
        Err(ds) => return device(ds),
    };
    let Some(op) = Op::from_code(req.op) else {
        return device(DeviceStatus::BadOp);
    };
    let data = BigUint::from_slice(
        &req.data[..usize::from(req.data_words)]
            .iter()
            .flat_map(|w| [*w as u32, (*w >> 32) as u32])
            .collect::<Vec<u32>>(),
    );
    let rsp = unit.serve(&Request {
        op,
        target: req.target,
        index: req.index,
        data,
    });
    let mut entry = ControlEntry::new(rsp.status, head.flags, head.target, head.index, head.tag);
    let digits: Vec<u64> = rsp.data.iter_u64_digits().collect();
    entry.data_words = words.min(CQ_DATA_WORDS) as u16;
    for (slot_word, d) in entry.data.iter_mut().zip(digits.iter().take(words)) {
        *slot_word = *d;
    }
    Answer {
        status: rsp.status,
        entry,
    }
}

/// Moves every unit's pending notifications of slot `k` to its ring (module doc).
fn deliver_notifications(
    r: &Region,
    k: u8,
    pair: &mut BankPair,
    s: &mut SlotService,
) -> Result<(), RegionError> {
    let active = pair.active;
    for b in [Bank::B0, Bank::B1] {
        let Some(unit) = pair.units[b as usize].as_mut() else {
            continue;
        };
        if unit.pending() == 0 {
            continue;
        }
        let from_shadow = active != Some(b);
        for n in unit.take_pending() {
            s.notify_seq = s.notify_seq.wrapping_add(1);
            let record = frame::Notification {
                time_ns: n.time_ns,
                slot: k,
                target: u8::from(n.to_arm),
                bank: b as u8,
                flags: u8::from(from_shadow),
                value: n.value,
                seq: s.notify_seq,
            };
            push_notification(r, k, &record)?;
        }
    }
    Ok(())
}

fn push_notification(r: &Region, k: u8, record: &frame::Notification) -> Result<(), RegionError> {
    let base = abi::slot_block_unchecked(k);
    let pushed = Producer::attach(r, RingLayout::notifications(k))
        .and_then(|mut p| p.push(r, &record.encode()));
    if !matches!(pushed, Ok(true)) {
        let n = r.load(base + slot::NQ_OVERFLOW, Ordering::Acquire)?;
        r.store(
            base + slot::NQ_OVERFLOW,
            n.wrapping_add(1),
            Ordering::Release,
        )?;
    }
    Ok(())
}
