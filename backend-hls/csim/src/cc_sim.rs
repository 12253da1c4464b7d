//! C-simulation of the congestion controllers: every cc's kernel
//! ([`scenic_backend_hls::writer::cc`]) built with g++ (cached like the scu kernels,
//! [`crate::build`]) and driven through its testbench
//! ([`scenic_backend_hls::writer::testbench_cc`]). [`crate::CsimDevice`] delegates its five cc
//! methods here.
//!
//! What it owns, and why:
//!
//! - **Flow slots.** The kernel keeps state for `per flow[N]` slots; the NIC's transport gives
//!   each flow a slot when it first signals. [`CcSim`] plays that part: a flow id gets the next
//!   free slot on its first event, and an N+1-th flow is refused (`Unsupported`), where the
//!   interpreter would keep growing.
//! - **The pacer's view.** A flow's output is the last `cc_update_out` record the kernel wrote for
//!   its slot — what the NIC's pacer would hold — never a peek into the kernel's memory; a flow
//!   without a record has no output yet (`None`, as the interpreter before its first signal).
//! - **Time.** `advance_time` sends every kernel a tick (an idle cycle at that time: the scan
//!   fires every flow's due timers); an event for one cc ticks the others first, as the
//!   interpreter's `cc_event` advances every cc's timers. The kernel fires only the event's own
//!   flow's timers before its handler; the others fire in the idle scan, which runs before any
//!   param changes and, here, before an output is read, so every output and every handler sees
//!   what it sees in the interpreter.
//!
//! Params are the kernel's CSRs (`CsrRead`/`CsrWrite`, target = the param's position).

use crate::compile::{build, CsimError};
use crate::tb::Tb;
use crate::CsimNote;
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_backend_hls::writer::cc::kind;
use scenic_backend_hls::KernelFiles;
use scenic_interp::cc::CcEvent;
use scenic_ir::entities::CcId;
use scenic_ir::Module;
use scenic_scu_abi::control::{Op, Status};
use scenic_sim::device::DeviceError;
use std::collections::HashMap;
use std::path::Path;

const DEVICE: &str = "hls-csim";

fn protocol(problem: String) -> DeviceError {
    DeviceError::Protocol {
        device: DEVICE,
        problem,
    }
}

/// One cc's running kernel.
struct CcTb {
    name: String,
    params: Vec<String>,
    flows: u64,
    data_bits: u32,
    tb: Tb,
    slots: HashMap<u64, u32>,
    outputs: HashMap<u32, u64>,
    /// The latest time sent to the kernel.
    latest: u64,
    /// An event ran since the last idle scan: other flows' due timers may not have fired yet.
    stale: bool,
    /// Every notification the kernel raised, in the order it wrote them.
    notes: Vec<CsimNote>,
    /// How many of `notes` [`CcSim::new_notifications`] has returned.
    notes_read: usize,
}

impl CcTb {
    /// Sends one line and records the updates it produced.
    fn request(&mut self, line: &str) -> Result<Vec<String>, DeviceError> {
        let lines = self.tb.request(line)?;
        let mut rest = Vec::new();
        for l in lines {
            let mut parts = l.split_whitespace();
            match parts.next() {
                Some("update") => {
                    let slot = parts.next().and_then(|s| s.parse::<u32>().ok());
                    let value = parts.next().and_then(|s| s.parse::<u64>().ok());
                    match (slot, value) {
                        (Some(slot), Some(value)) => {
                            self.outputs.insert(slot, value);
                        }
                        _ => return Err(protocol(format!("bad update line `{l}`"))),
                    }
                }
                Some("notify") => {
                    let to_arm = parts.next() == Some("1");
                    let value = parts.next().and_then(|v| v.parse::<u32>().ok());
                    let Some(value) = value else {
                        return Err(protocol(format!("bad notify line `{l}`")));
                    };
                    self.notes.push(CsimNote {
                        scu: self.name.clone(),
                        to_arm,
                        value,
                    });
                }
                _ => rest.push(l),
            }
        }
        Ok(rest)
    }

    fn ctrl(&mut self, op: Op, target: usize, value: u64) -> Result<(Status, u64), DeviceError> {
        let line = format!("ctrl {} {target} 0 {value:x}", op as u8);
        let lines = self.request(&line)?;
        for l in &lines {
            let mut parts = l.split_whitespace();
            if parts.next() == Some("resp") {
                let status = parts
                    .next()
                    .and_then(|s| s.parse::<u8>().ok())
                    .and_then(Status::from_code);
                let data = parts
                    .next()
                    .and_then(|d| BigUint::parse_bytes(d.as_bytes(), 16))
                    .unwrap_or_default();
                let data = scenic_scu_abi::control::low_bits(&data, self.data_bits.min(64));
                if let Some(status) = status {
                    return Ok((status, scenic_scu_abi::control::to_u64(&data)));
                }
            }
        }
        Err(protocol(format!(
            "no response to `{line}` from cc `{}`",
            self.name
        )))
    }
}

/// Every cc of a module, C-simulated.
pub struct CcSim {
    ccs: Vec<CcTb>,
}

/// The testbench's `event` line of a signal for flow slot `slot` at `now_ns`: kind, slot, ecn,
/// value, time and, for an INT hop, its other five fields.
fn event_line(event: CcEvent, slot: u32, now_ns: u64) -> String {
    let (k, ecn, value) = match event {
        CcEvent::Ack { bytes, ecn } => (kind::ACK, u8::from(ecn), bytes),
        CcEvent::Cnp => (kind::CNP, 0, 0),
        CcEvent::Ecn => (kind::ECN, 0, 0),
        CcEvent::Loss => (kind::LOSS, 0, 0),
        CcEvent::Timeout => (kind::TIMEOUT, 0, 0),
        CcEvent::Rtt(ns) => (kind::RTT, 0, ns),
        CcEvent::Sent(bytes) => (kind::SENT, 0, bytes),
        CcEvent::Int(h) => (kind::INT, 0, h.qlen),
    };
    let mut line = format!("event {k} {slot} {ecn} {value} {now_ns}");
    if let CcEvent::Int(h) = event {
        line += &format!(
            " {} {} {} {} {}",
            h.hop, h.hops, h.tx_bytes, h.ts_ns, h.rate_bps
        );
    }
    line
}

impl CcSim {
    /// Builds (or reuses) every cc kernel of `files` and starts its testbench.
    pub fn new(
        module: &Module,
        files: &KernelFiles,
        ap_types: &Path,
        extra_flags: &[&str],
    ) -> Result<CcSim, CsimError> {
        let mut ccs = Vec::new();
        for (kernel, cc) in files.ccs.iter().zip(module.ccs.values()) {
            let exe = build(kernel, &files.support, ap_types, extra_flags)?;
            ccs.push(CcTb {
                name: cc.name.clone(),
                params: cc.params.values().map(|p| p.name.clone()).collect(),
                flows: cc.flows,
                data_bits: files.control.data_bits,
                tb: Tb::spawn(&exe)?,
                slots: HashMap::new(),
                outputs: HashMap::new(),
                latest: 0,
                stale: false,
                notes: Vec::new(),
                notes_read: 0,
            });
        }
        Ok(CcSim { ccs })
    }

    fn by_name(&mut self, name: &str) -> Option<&mut CcTb> {
        self.ccs.iter_mut().find(|c| c.name == name)
    }

    /// Moves every kernel's time to `now_ns` (their due timers fire).
    pub fn advance_time(&mut self, now_ns: u64) -> Result<(), DeviceError> {
        for cc in &mut self.ccs {
            cc.request(&format!("time {now_ns}"))?;
            cc.latest = cc.latest.max(now_ns);
            cc.stale = false;
        }
        Ok(())
    }

    /// Delivers a signal for `flow` of cc `id` at `now_ns`.
    pub fn event(
        &mut self,
        id: CcId,
        flow: u64,
        event: CcEvent,
        now_ns: u64,
    ) -> Result<(), DeviceError> {
        for (i, cc) in self.ccs.iter_mut().enumerate() {
            if i != id.index() {
                cc.request(&format!("time {now_ns}"))?;
                cc.latest = cc.latest.max(now_ns);
                cc.stale = false;
            }
        }
        let cc = self
            .ccs
            .get_mut(id.index())
            .ok_or(DeviceError::Unsupported {
                device: DEVICE,
                what: "signal a cc that has no kernel",
            })?;
        let next = cc.slots.len() as u64;
        let slot = match cc.slots.get(&flow) {
            Some(s) => *s,
            None if next < cc.flows && next <= u64::from(u32::MAX) => {
                cc.slots.insert(flow, next as u32);
                next as u32
            }
            None => {
                return Err(DeviceError::Unsupported {
                    device: DEVICE,
                    what: "signal more flows than the cc's `per flow[N]` slots",
                })
            }
        };
        cc.request(&event_line(event, slot, now_ns))?;
        cc.latest = cc.latest.max(now_ns);
        cc.stale = true;
        Ok(())
    }

    /// A flow's rate or window: the last update its slot received, once the kernel's idle scan
    /// has fired every timer due by the latest time (in hardware the scan runs between events;
    /// here it runs when the output is read).
    pub fn output(&mut self, id: CcId, flow: u64) -> Result<Option<u64>, DeviceError> {
        let Some(cc) = self.ccs.get_mut(id.index()) else {
            return Ok(None);
        };
        let Some(slot) = cc.slots.get(&flow).copied() else {
            return Ok(None);
        };
        if cc.stale {
            cc.request(&format!("time {}", cc.latest))?;
            cc.stale = false;
        }
        Ok(cc.outputs.get(&slot).copied())
    }

    /// Every notification of cc `name`'s handlers so far, in the order its kernel raised them
    /// (`scu` holds the cc's name). Within a flow that is the interpreter's order; the kernel
    /// fires other flows' timers in its idle scan, so timer handlers of different flows may
    /// interleave differently.
    pub fn notifications(&self, name: &str) -> Vec<CsimNote> {
        self.ccs
            .iter()
            .filter(|c| c.name == name)
            .flat_map(|c| c.notes.iter().cloned())
            .collect()
    }

    /// The notifications every cc's kernel raised since the last call, cc by cc.
    pub fn new_notifications(&mut self) -> Vec<CsimNote> {
        let mut out = Vec::new();
        for c in &mut self.ccs {
            out.extend(c.notes.iter().skip(c.notes_read).cloned());
            c.notes_read = c.notes.len();
        }
        out
    }

    /// Writes a param; whether the cc and the param exist.
    pub fn set_param(&mut self, cc: &str, param: &str, value: u64) -> Result<bool, DeviceError> {
        let Some(tb) = self.by_name(cc) else {
            return Ok(false);
        };
        let Some(target) = tb.params.iter().position(|p| p == param) else {
            return Ok(false);
        };
        match tb.ctrl(Op::CsrWrite, target, value)?.0 {
            Status::Ok => Ok(true),
            other => Err(protocol(format!(
                "writing param `{cc}.{param}`: status {other:?}"
            ))),
        }
    }

    /// Reads a param.
    pub fn param(&mut self, cc: &str, param: &str) -> Result<Option<u64>, DeviceError> {
        let Some(tb) = self.by_name(cc) else {
            return Ok(None);
        };
        let Some(target) = tb.params.iter().position(|p| p == param) else {
            return Ok(None);
        };
        let (status, value) = tb.ctrl(Op::CsrRead, target, 0)?;
        Ok((status == Status::Ok).then_some(value))
    }
}
