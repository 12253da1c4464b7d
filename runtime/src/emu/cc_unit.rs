//! A loaded congestion controller: one `cc` of a package running on the reference interpreter in
//! bank 0 of a CC slot (`docs/device.md` §4). The second unit type beside [`super::unit::Unit`]
//! (an scu): it owns the package's module and the [`Machine`] that borrows it (a [`self_cell`]),
//! the manifest's `ccs[u]` entry (flows, output kind, params, the per-flow state layout) and the
//! package's control data bits `D`.
//!
//! What the device does to a cc goes through here: an event of the §4.3 ring ([`CcUnit::event`],
//! the interpreter's `cc_event` in virtual time, a tick its `advance_time`), a flow's output
//! ([`CcUnit::output`], the interpreter's `cc_output`), the params as CSR words (§4.2:
//! [`CcUnit::csr_word`], [`CcUnit::write_csr_word`]) and the control queue's `CsrRead`/`CsrWrite`
//! on them ([`CcUnit::serve`]).
//!
//! Invariants: the machine's notification log is emptied after every event (a long-running device
//! must not keep every notification ever raised; a cc's notifications are not delivered yet); a
//! param word holds the low `width` bits of what was written.

use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::cc::CcEvent as InterpEvent;
use scenic_interp::Machine;
use scenic_ir::entities::CcId;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{IntHop, Module};
use scenic_scu_abi::control::{Op, Request, Response, Status};
use scenic_scu_abi::manifest::{CcManifest, CcOutputKind};

use super::unit::CsrRefusal;
use crate::frame::CcEvent;

self_cell::self_cell!(
    struct CcCell {
        owner: Module,
        #[not_covariant]
        dependent: Machine,
    }
);

/// One loaded cc (module doc).
pub struct CcUnit {
    cell: CcCell,
    cc: CcId,
    manifest: CcManifest,
    data_bits: u32,
    /// Param word `n` (the manifest's `params[].index`) → the interpreter's param position.
    params: Vec<Option<usize>>,
}

impl std::fmt::Debug for CcUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CcUnit")
            .field("cc", &self.manifest.name)
            .field("flows", &self.manifest.flows)
            .finish()
    }
}

/// An event kind the interpreter does not know (kind > 8): the ring refuses it before this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownKind(pub u8);

/// The interpreter's signal for a §4.3 event; `None` for a tick (kind 0: only due timers run).
pub fn interp_event(ev: &CcEvent) -> Result<Option<InterpEvent>, UnknownKind> {
    Ok(Some(match ev.kind {
        0 => return Ok(None),
        1 => InterpEvent::Ack {
            bytes: ev.value,
            ecn: ev.ecn,
        },
        2 => InterpEvent::Cnp,
        3 => InterpEvent::Ecn,
        4 => InterpEvent::Loss,
        5 => InterpEvent::Timeout,
        6 => InterpEvent::Rtt(ev.value),
        7 => InterpEvent::Sent(ev.value),
        8 => InterpEvent::Int(IntHop {
            hop: ev.int.hop,
            hops: ev.int.hops,
            qlen: ev.value,
            tx_bytes: ev.int.tx_bytes,
            ts_ns: ev.int.ts_ns,
            rate_bps: ev.int.rate_bps,
        }),
        k => return Err(UnknownKind(k)),
    }))
}

/// `CC_OUTPUT_KIND` of an output kind: 1 rate, 2 window.
pub fn output_code(kind: CcOutputKind) -> u8 {
    match kind {
        CcOutputKind::Rate => 1,
        CcOutputKind::Window => 2,
    }
}

impl CcUnit {
    /// The unit running cc `cc` of `module`, described by the manifest's entry `manifest`.
    pub fn new(module: Module, cc: CcId, manifest: CcManifest, data_bits: u32) -> CcUnit {
        let params = {
            let def = module.ccs.get(cc);
            let mut words = vec![None; manifest.params.len()];
            for p in &manifest.params {
                let pos = def.and_then(|d| d.params.values().position(|q| q.name == p.name));
                if let Some(w) = words.get_mut(p.index as usize) {
                    *w = pos;
                }
            }
            words
        };
        CcUnit {
            cell: CcCell::new(module, |m| Machine::new(m)),
            cc,
            manifest,
            data_bits,
            params,
        }
    }

    /// The manifest's `ccs[u]`.
    pub fn manifest(&self) -> &CcManifest {
        &self.manifest
    }

    /// `FLOWS`.
    pub fn flows(&self) -> u64 {
        self.manifest.flows
    }

    /// Control data bits `D` of the package.
    pub fn data_bits(&self) -> u32 {
        self.data_bits
    }

    /// CSR words: the params.
    pub fn csr_words(&self) -> u32 {
        self.manifest.params.len() as u32
    }

    /// Runs `f` on the module, the cc's id and the machine (the carry of a switch).
    pub fn with_machine<R>(&mut self, f: impl FnOnce(&Module, CcId, &mut Machine<'_>) -> R) -> R {
        let cc = self.cc;
        self.cell
            .with_dependent_mut(|module, machine| f(module, cc, machine))
    }

    /// Feeds one event at `time_ns` (already made non-decreasing by the ring).
    pub fn event(&mut self, ev: &CcEvent, time_ns: u64) -> Result<(), UnknownKind> {
        let signal = interp_event(ev)?;
        let cc = self.cc;
        self.cell.with_dependent_mut(|_, machine| {
            match signal {
                Some(s) => {
                    machine.cc_event(cc, u64::from(ev.flow), s, time_ns);
                }
                None => {
                    machine.advance_time(time_ns);
                }
            }
            machine.notifications.clear();
        });
        Ok(())
    }

    /// Flow `flow`'s output (rate in bit/s or window in bytes); 0 for a flow never seen.
    pub fn output(&self, flow: u64) -> u64 {
        let cc = self.cc;
        self.cell
            .with_dependent(|_, machine| machine.cc_output(cc, flow).unwrap_or(0))
    }

    /// Every flow with state and its output, in flow order.
    pub fn outputs(&self) -> Vec<(u64, u64)> {
        let cc = self.cc;
        self.cell.with_dependent(|_, machine| {
            let Some(rt) = machine.ccs.get(cc.index()) else {
                return Vec::new();
            };
            rt.flows
                .keys()
                .map(|f| (*f, machine.cc_output(cc, *f).unwrap_or(0)))
                .collect()
        })
    }

    /// Every flow's state and timers, as the interpreter holds them (tests compare them with a
    /// reference run).
    pub fn flow_states(&self) -> std::collections::BTreeMap<u64, scenic_interp::runtime::CcFlow> {
        let cc = self.cc;
        self.cell.with_dependent(|_, machine| {
            machine
                .ccs
                .get(cc.index())
                .map(|rt| rt.flows.clone())
                .unwrap_or_default()
        })
    }

    /// Param word `n` (§4.2): its value; 0 past the params.
    pub fn csr_word(&self, n: u32) -> u64 {
        let Some(Some(pos)) = self.params.get(n as usize).copied() else {
            return 0;
        };
        let cc = self.cc;
        self.cell.with_dependent(|_, machine| {
            machine
                .ccs
                .get(cc.index())
                .and_then(|rt| rt.params.get(pos))
                .map_or(0, Bits::to_u64)
        })
    }

    /// A write of param word `n`: the low `width` bits kept; the value now held.
    pub fn write_csr_word(&mut self, n: u32, value: u64) -> Result<u64, CsrRefusal> {
        let Some(Some(pos)) = self.params.get(n as usize).copied() else {
            return Err(CsrRefusal::Unmapped);
        };
        let width = self
            .manifest
            .params
            .iter()
            .find(|p| p.index == n)
            .map_or(64, |p| p.width.min(64) as u32);
        let cc = self.cc;
        self.cell.with_dependent_mut(|_, machine| {
            if let Some(slot) = machine
                .ccs
                .get_mut(cc.index())
                .and_then(|rt| rt.params.get_mut(pos))
            {
                *slot = Bits::from_u64(width, value);
            }
        });
        Ok(self.csr_word(n))
    }

    /// Answers a control request: `CsrRead`/`CsrWrite` on a param (target = its index); a cc has
    /// no tables, maps, counters or meters (`BadTarget`).
    pub fn serve(&mut self, req: &Request) -> Response {
        let answer = |status: Status, data: u64| Response {
            status: status as u8,
            data: BigUint::from(data),
        };
        let n = u32::from(req.target);
        match req.op {
            Op::CsrRead if n < self.csr_words() => answer(Status::Ok, self.csr_word(n)),
            Op::CsrWrite if n < self.csr_words() => {
                let value = req.data.iter_u64_digits().next().unwrap_or(0);
                match self.write_csr_word(n, value) {
                    Ok(_) => answer(Status::Ok, 0),
                    Err(_) => answer(Status::BadTarget, 0),
                }
            }
            Op::CsrRead | Op::CsrWrite => answer(Status::BadTarget, 0),
            Op::TableAdd
            | Op::TableRemove
            | Op::TableClear
            | Op::TableSetDefault
            | Op::TableModify
            | Op::CounterRead
            | Op::CounterClear
            | Op::MapGet
            | Op::MapInsert
            | Op::MapRemove
            | Op::MapIterate
            | Op::MeterConfigure => answer(Status::BadTarget, 0),
        }
    }
}
