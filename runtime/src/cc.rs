//! [`CcHost`]: the host's API over the dual CC slots (`docs/device.md` §4): events in through the
//! §4.3 ring, a flow's output (§4.4), params by name (§4.2), and [`CcHost::switch`], the hitless
//! replacement of the running cc.
//!
//! **Switch**: the running cc (the active slot's journal names its package) and the new package's
//! cc give a [`CarryPlan::between_ccs`]; the new cc is loaded into the standby slot (a leftover
//! standby freed first; it is `SHADOW` and receives every event from then on); the params the plan
//! carries are written to it with the old cc's values (§4.2: the device copies no param); then
//! `CC_CMD` `SWITCH` with `CARRY`: at an event boundary the device copies the per-flow `state` and
//! `timer` values the plan carries and makes the standby active. The report is the plan, the
//! `CC_SWITCH_SEQ` and the times. With no active cc, the new one is loaded into slot A (or B when A
//! holds a standby) and activated.
//!
//! Invariants: every name, flow and value is checked against the manifest before anything is sent
//! ("nothing was sent to the device"); events are written by one producer at a time (the state
//! directory's `cc_events` lock).

use std::time::{Duration, Instant};

use num_bigint::BigUint;
use scenic_scu_abi::control::{Op, Request, Status};
use scenic_scu_abi::manifest::{CcManifest, CcOutputKind};

use crate::abi::global::{self, CcOp, Feature, CC_SWITCH_CARRY};
use crate::abi::slot::{self, Bank};
use crate::abi::{self};
use crate::carry::CarryPlan;
use crate::command::Channel;
use crate::container::UnitKind;
use crate::control::ControlQueue;
use crate::device::Device;
use crate::frame::CcEvent;
use crate::load::load_with;
use crate::package::Package;
use crate::ring::{Producer, RingLayout};
use crate::scu::ScuError;
use crate::state::StateDir;

/// How long [`CcHost::inject`] waits for room in the ring.
pub const INJECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The `CC_CMD` channel.
const CC_CHANNEL: Channel = Channel {
    cmd: global::CC_CMD,
    result: global::CC_RESULT,
};

/// Event kinds by name, in code order (§4.3).
pub const EVENT_KINDS: [&str; 9] = [
    "tick", "ack", "cnp", "ecn", "loss", "timeout", "rtt", "sent", "int",
];

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

/// What a switch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CcSwitchReport {
    /// The slot that was active (None: no cc ran), and its cc.
    pub old: Option<(u8, String)>,
    /// The slot now active, and its cc.
    pub new: (u8, String),
    /// `LOAD_NS` of the new cc.
    pub load_ns: u64,
    /// `CC_SWITCH_SEQ`: the first event whose output came from the new cc.
    pub switch_seq: u64,
    /// The plan the device (state, timers) and the runtime (params) applied.
    pub plan: CarryPlan,
    /// The `SWITCH` command alone, issue to result.
    pub switch_time: Duration,
    /// The whole call: staging, load, params, switch.
    pub total_time: Duration,
}

/// A flow's output as a CC slot shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcOutput {
    /// The slot block (16 or 17).
    pub slot: u8,
    /// Rate (bit/s) or window (bytes).
    pub kind: CcOutputKind,
    /// The value; 0 for a flow never seen.
    pub value: u64,
}

/// The CC slots of one device (module doc).
#[derive(Debug, Clone)]
pub struct CcHost<'d> {
    dev: &'d Device,
    state: StateDir,
}

fn refused(problem: String) -> ScuError {
    ScuError::Refused(problem)
}

fn cc_error(k: u8, problem: String) -> ScuError {
    ScuError::Slot { slot: k, problem }
}

impl<'d> CcHost<'d> {
    /// The CC slots of `dev`; refused when the device has none.
    pub fn new(dev: &'d Device, state: StateDir) -> Result<CcHost<'d>, ScuError> {
        if dev.identity().slots.cc_slots != 2 {
            return Err(cc_error(
                abi::CC_SLOT_A,
                "the device has no CC slots".into(),
            ));
        }
        Ok(CcHost { dev, state })
    }

    /// The active CC slot block (16 or 17), if one is active (`CC_ACTIVE`).
    pub fn active(&self) -> Result<Option<u8>, ScuError> {
        let word = self.dev.read(global::CC_ACTIVE)?;
        Ok((word & 0x100 != 0).then_some(abi::CC_SLOT_A + (word & 1) as u8))
    }

    /// `CC_EVENT_SEQ`: events the device processed.
    pub fn event_seq(&self) -> Result<u64, ScuError> {
        Ok(self.dev.read(global::CC_EVENT_SEQ)?)
    }

    /// The package and cc of CC slot `k`, from its journal.
    pub fn running(&self, k: u8) -> Result<(Package, u16, CcManifest), ScuError> {
        let journal = self.state.read_journal(k)?.ok_or_else(|| {
            cc_error(
                k,
                "this runtime did not load the cc running here (no journal)".into(),
            )
        })?;
        let pkg = Package::open(&journal.package)?;
        let (kind, index) = pkg.unit(Some(&journal.unit))?;
        let cc = cc_of(&pkg, kind, index)?;
        Ok((pkg, index, cc))
    }

    /// The active slot's cc, or an error saying none runs.
    fn active_cc(&self) -> Result<(u8, CcManifest), ScuError> {
        let k = self.active()?.ok_or_else(|| {
            cc_error(
                abi::CC_SLOT_A,
                "no cc is active: `scenic cc NAME switch PKGDIR` first".into(),
            )
        })?;
        let (_, _, cc) = self.running(k)?;
        Ok((k, cc))
    }

    /// Writes `events` to the ring in order, waiting for room (at most [`INJECT_TIMEOUT`] without
    /// progress). Each is checked first: a flow below the active cc's `FLOWS`.
    pub fn inject(&self, events: &[CcEvent]) -> Result<(), ScuError> {
        if !self.dev.identity().has(Feature::CcEventInject) {
            return Err(refused("the device lacks F_CC_EVENT_INJECT".into()));
        }
        if let Some(k) = self.active()? {
            let flows = self.flows(k)?;
            if let Some(e) = events
                .iter()
                .find(|e| u64::from(e.flow) >= flows || usize::from(e.kind) >= EVENT_KINDS.len())
            {
                return Err(refused(format!(
                    "event of kind {} for flow {}: the active cc has {flows} flows and kinds 0-8",
                    e.kind, e.flow
                )));
            }
        }
        let _lock = self.state.lock("cc_events")?;
        let r = self.dev.region();
        let ring_error =
            |e: crate::ring::RingError| cc_error(abi::CC_SLOT_A, format!("event ring: {e}"));
        let mut ring = Producer::attach(r, event_ring()).map_err(ring_error)?;
        let mut waited = Instant::now();
        for e in events {
            while !ring.push(r, &e.encode()).map_err(ring_error)? {
                if waited.elapsed() > INJECT_TIMEOUT {
                    return Err(cc_error(
                        abi::CC_SLOT_A,
                        format!("the event ring stayed full for {INJECT_TIMEOUT:?}"),
                    ));
                }
                self.dev.check_alive()?;
                std::thread::sleep(Duration::from_micros(20));
            }
            waited = Instant::now();
        }
        Ok(())
    }

    /// Waits until `CC_EVENT_SEQ` reaches `seq`.
    pub fn wait_events(&self, seq: u64, timeout: Duration) -> Result<(), ScuError> {
        let started = Instant::now();
        while self.event_seq()?.wrapping_sub(seq) > u64::MAX / 2 {
            if started.elapsed() > timeout {
                return Err(cc_error(
                    abi::CC_SLOT_A,
                    format!("CC_EVENT_SEQ did not reach {seq} within {timeout:?}"),
                ));
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        Ok(())
    }

    fn flows(&self, k: u8) -> Result<u64, ScuError> {
        let id = self.dev.slot_block(k)? + slot::identity_block(Bank::B0);
        Ok(self.dev.read(id + slot::FLOWS)?)
    }

    /// Flow `flow`'s output in slot `k` (None: the active slot), checked against its `FLOWS`.
    pub fn output(&self, k: Option<u8>, flow: u64) -> Result<CcOutput, ScuError> {
        let (k, cc) = match k {
            Some(k) => (k, self.running(k)?.2),
            None => self.active_cc()?,
        };
        if flow >= cc.flows {
            return Err(refused(format!(
                "flow {flow}: cc `{}` has {} flows",
                cc.name, cc.flows
            )));
        }
        let value = self
            .dev
            .read(self.dev.slot_block(k)? + slot::CC_OUTPUTS + 8 * flow)?;
        Ok(CcOutput {
            slot: k,
            kind: cc.output,
            value,
        })
    }

    /// A param of the active cc by name.
    pub fn param_get(&self, name: &str) -> Result<u64, ScuError> {
        let (k, cc) = self.active_cc()?;
        let p = param(&cc, name)?;
        let word = self.dev.slot_block(k)? + slot::CSR_WINDOW + 8 * u64::from(p.index);
        // The fence: a window that just started showing this slot is published.
        self.dev.fence()?;
        Ok(self.dev.read(word)?)
    }

    /// Sets a param of the active cc by name, and of the standby when it runs the same cc of the
    /// same program (§4.2); the slots written.
    pub fn param_set(&self, name: &str, value: u64) -> Result<Vec<u8>, ScuError> {
        let (k, cc) = self.active_cc()?;
        let p = param(&cc, name)?;
        if p.width < 64 && value >> p.width != 0 {
            return Err(refused(format!(
                "param `{name}` has {} bits; {value} does not fit it",
                p.width
            )));
        }
        let word = self.dev.slot_block(k)? + slot::CSR_WINDOW + 8 * u64::from(p.index);
        self.dev.write(word, value)?;
        self.dev.fence()?;
        let mut written = vec![k];
        let standby = abi::CC_SLOT_A + abi::CC_SLOT_B - k;
        if self.same_program(k, standby)? {
            self.param_write_standby(standby, p.index, value)?;
            written.push(standby);
        }
        Ok(written)
    }

    /// Whether CC slot `b` holds the same cc of the same program as slot `a` (identity blocks).
    fn same_program(&self, a: u8, b: u8) -> Result<bool, ScuError> {
        if !matches!(
            self.dev.slot_state(b)?.banks[0],
            Some(slot::BankState::Shadow)
        ) {
            return Ok(false);
        }
        let id = |k: u8| -> Result<Vec<u64>, ScuError> {
            let base = self.dev.slot_block(k)? + slot::identity_block(Bank::B0);
            (0..0x40 / 8)
                .map(|w| Ok(self.dev.read(base + 8 * w)?))
                .collect()
        };
        Ok(id(a)? == id(b)?)
    }

    /// Writes param word `index` of the standby slot `k` through its control queue (`OTHER_BANK`).
    fn param_write_standby(&self, k: u8, index: u32, value: u64) -> Result<(), ScuError> {
        let (pkg, _, _) = self.running(k)?;
        let queue = ControlQueue::new(self.dev, k, self.state.clone())?;
        let req = Request {
            op: Op::CsrWrite,
            target: index as u16,
            index: 0,
            data: BigUint::from(value),
        };
        let rsp = queue.call(true, &req, pkg.manifest().control.data_bits)?;
        match rsp.status() {
            Some(Status::Ok) => Ok(()),
            Some(status) => Err(ScuError::Unit {
                what: format!("param word {index} of slot {k}"),
                status,
            }),
            None => Err(cc_error(k, format!("unknown status {}", rsp.status))),
        }
    }

    /// Replaces the running cc with unit `unit` of `pkg` (module doc).
    pub fn switch(
        &self,
        pkg: &Package,
        unit: Option<&str>,
        carry: bool,
    ) -> Result<CcSwitchReport, ScuError> {
        let started = Instant::now();
        let (kind, index) = pkg.unit(unit)?;
        let new_cc = cc_of(pkg, kind, index)?;
        if carry && !self.dev.identity().has(Feature::StateCarry) {
            return Err(refused("the device lacks F_STATE_CARRY".into()));
        }
        let active = self.active()?;
        let old = match active {
            Some(k) => Some((k, self.running(k)?)),
            None => None,
        };
        let standby = match active {
            Some(k) => abi::CC_SLOT_A + abi::CC_SLOT_B - k,
            None => abi::CC_SLOT_A,
        };
        let mut plan = match &old {
            Some((_, (_, _, cc))) => CarryPlan::between_ccs(cc, &new_cc),
            None => CarryPlan::between_ccs(&new_cc, &new_cc),
        };
        if let Some((_, (_, _, cc))) = &old {
            if cc.flows != new_cc.flows || cc.output != new_cc.output {
                return Err(refused(format!(
                    "cc `{}` has {} flows and a {:?} output, the running `{}` {} and {:?}: the device would refuse the switch (E_CC_MISMATCH)",
                    new_cc.name, new_cc.flows, new_cc.output, cc.name, cc.flows, cc.output
                )));
            }
        }
        if old.is_none() || !carry {
            for item in &mut plan.items {
                item.from = None;
                item.reason = if old.is_none() {
                    "no cc ran before".to_string()
                } else {
                    "a fresh start was asked for".to_string()
                };
            }
        }
        // No active cc: the other slot may hold a standby the SWITCH would pick first (A first).
        if active.is_none() {
            self.free_standby(abi::CC_SLOT_B)?;
        }
        let loaded = load_with(self.dev, standby, pkg, unit, &self.state)?;
        if let Some((k, _)) = &old {
            self.copy_params(*k, standby, &plan, &new_cc)?;
        }
        let arg = if carry { CC_SWITCH_CARRY } else { 0 };
        let issued = Instant::now();
        let done = self.dev.command(CC_CHANNEL, CcOp::Switch as u8, arg)?;
        let switch_time = issued.elapsed();
        Ok(CcSwitchReport {
            old: old.map(|(k, (_, _, cc))| (k, cc.name)),
            new: (standby, new_cc.name.clone()),
            load_ns: loaded.load_ns,
            switch_seq: u64::from(done.detail),
            plan,
            switch_time,
            total_time: started.elapsed(),
        })
    }

    /// Frees CC slot `k`'s bank 0 when it is a standby (`SHADOW`).
    fn free_standby(&self, k: u8) -> Result<(), ScuError> {
        if self.dev.slot_state(k)?.banks[0] == Some(slot::BankState::Shadow) {
            self.dev.slot_command(k, slot::SlotOp::Free, 0)?;
        }
        Ok(())
    }

    /// Writes the old cc's value of every param the plan carries into the standby `to`.
    fn copy_params(
        &self,
        from: u8,
        to: u8,
        plan: &CarryPlan,
        new_cc: &CcManifest,
    ) -> Result<(), ScuError> {
        let from_base = self.dev.slot_block(from)? + slot::CSR_WINDOW;
        let (_, _, old_cc) = self.running(from)?;
        self.dev.fence()?;
        for item in plan.carried().filter(|i| i.kind == "param") {
            let (Some(o), Some(n)) = (
                item.from.and_then(|i| old_cc.params.get(i)),
                new_cc.params.get(item.to),
            ) else {
                continue;
            };
            let value = self.dev.read(from_base + 8 * u64::from(o.index))?;
            self.param_write_standby(to, n.index, value)?;
        }
        Ok(())
    }
}

/// The cc manifest entry of unit `index` of `pkg`, which must be a cc.
fn cc_of(pkg: &Package, kind: UnitKind, index: u16) -> Result<CcManifest, ScuError> {
    if kind != UnitKind::Cc {
        return Err(refused(format!(
            "`{}` is an scu: CC slots run ccs (`scenic swap` replaces an scu)",
            pkg.unit_name(kind, index)?
        )));
    }
    pkg.manifest()
        .ccs
        .get(usize::from(index))
        .cloned()
        .ok_or_else(|| refused(format!("the package has no cc {index}")))
}

fn param<'a>(
    cc: &'a CcManifest,
    name: &str,
) -> Result<&'a scenic_scu_abi::manifest::CcParamEntry, ScuError> {
    cc.params
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| ScuError::NoName {
            scu: cc.name.clone(),
            kind: "param",
            name: name.to_string(),
            known: cc
                .params
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}
