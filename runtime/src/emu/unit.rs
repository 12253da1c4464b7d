//! A loaded unit: one `scu` of a package running on the reference interpreter in one bank of a
//! slot. It owns the package's module and the [`Machine`] that borrows it (a [`self_cell`]), the
//! unit's control layout, and the notifications it raised that the slot's ring has not taken yet.
//!
//! Everything the device does to a unit goes through here: a packet ([`Unit::packet`]), a control
//! request ([`Unit::serve`], the interpreter's answer as the generated kernel gives it), the CSR
//! window ([`Unit::csr_word`], [`Unit::write_csr_word`]) and time ([`Unit::advance`]).
//!
//! Invariants: the machine's own notification log is emptied after every call that can add to it
//! (a long-running device must not keep every notification ever raised); [`Unit::pending`] holds
//! each one exactly once until the ring takes it.

use num_bigint::BigUint;
use scenic_interp::context::Notification;
use scenic_interp::{Destination as InterpDestination, Machine, PacketOutcome};
use scenic_ir::entities::ScuId;
use scenic_ir::program::Module;
use scenic_scu_abi::control::{to_u64, Op, Request, Response, ScuControl, Status};

use crate::net::{Destination, SlotInput, Source, Verdict};

self_cell::self_cell!(
    struct ModelCell {
        owner: Module,
        #[not_covariant]
        dependent: Machine,
    }
);

/// One loaded unit (module doc).
pub struct Unit {
    cell: ModelCell,
    scu: ScuId,
    control: ScuControl,
    data_bits: u32,
    outcome: PacketOutcome,
    pending: Vec<Notification>,
}

impl std::fmt::Debug for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unit")
            .field("scu", &self.control.name)
            .field("data_bits", &self.data_bits)
            .finish()
    }
}

/// Most notifications a unit holds for its ring; more are dropped (and counted as ring overflow).
pub const PENDING_MAX: usize = 4096;

impl Unit {
    /// The unit running scu `scu` of `module`, with its control layout and the package's `D`.
    pub fn new(module: Module, scu: ScuId, control: ScuControl, data_bits: u32) -> Unit {
        Unit {
            cell: ModelCell::new(module, |m| Machine::new(m)),
            scu,
            control,
            data_bits,
            outcome: PacketOutcome::default(),
            pending: Vec::new(),
        }
    }

    /// The unit's control layout (the manifest's `control.scus[u]`).
    pub fn control(&self) -> &ScuControl {
        &self.control
    }

    /// Runs `f` on the unit's scu id and machine (the carry of a swap).
    pub fn with_machine<R>(&mut self, f: impl FnOnce(ScuId, &mut Machine<'_>) -> R) -> R {
        let scu = self.scu;
        self.cell.with_dependent_mut(|_, machine| f(scu, machine))
    }

    /// The unit's name.
    pub fn name(&self) -> &str {
        &self.control.name
    }

    /// Control data bits `D` of the package.
    pub fn data_bits(&self) -> u32 {
        self.data_bits
    }

    /// CSR words (CSRs and params) of the unit.
    pub fn csr_words(&self) -> u32 {
        self.control.csrs.len() as u32
    }

    /// Runs one input; the outputs and drop reasons as the slot reports them.
    pub fn packet(&mut self, input: &SlotInput<'_>) -> Verdict {
        let scu = self.scu;
        let port = match input.source {
            Source::Network(p) => p,
            Source::Host => 0,
        };
        let outcome = &mut self.outcome;
        let pending = &mut self.pending;
        self.cell.with_dependent_mut(|_, machine| {
            machine.process_packet_into(scu, input.data, port, input.now_ns, outcome);
            machine.notifications.clear();
        });
        keep(pending, self.outcome.notifications.drain(..));
        verdict(&mut self.outcome, input.source)
    }

    /// Advances the unit's time (its `every` blocks) to `now_ns`.
    pub fn advance(&mut self, now_ns: u64) {
        let raised = self.cell.with_dependent_mut(|_, machine| {
            let raised = machine.advance_time(now_ns);
            machine.notifications.clear();
            raised
        });
        keep(&mut self.pending, raised.into_iter());
    }

    /// The notifications raised since the last call, oldest first.
    pub fn take_pending(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.pending)
    }

    /// Notifications waiting for the ring.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Answers one control request as the unit's kernel would.
    pub fn serve(&mut self, req: &Request) -> Response {
        let (scu, control) = (self.scu, &self.control);
        self.cell
            .with_dependent_mut(|_, machine| scenic_sim::control::serve(machine, scu, control, req))
    }

    /// CSR word `n` as the window shows it: the value, zero-extended; 0 past the unit's CSRs.
    pub fn csr_word(&mut self, n: u32) -> u64 {
        let Some(csr) = self.control.csrs.iter().find(|c| c.offset == n) else {
            return 0;
        };
        let req = Request {
            op: Op::CsrRead,
            target: csr.offset as u16,
            index: 0,
            data: BigUint::default(),
        };
        let rsp = self.serve(&req);
        to_u64(&rsp.data)
    }

    /// A host write of CSR word `n` (§3.5): the masked value written back, or the refusal.
    pub fn write_csr_word(&mut self, n: u32, value: u64) -> Result<u64, CsrRefusal> {
        let Some(csr) = self.control.csrs.iter().find(|c| c.offset == n) else {
            return Err(CsrRefusal::Unmapped);
        };
        if csr.host_readonly {
            return Err(CsrRefusal::ReadOnly);
        }
        let req = Request {
            op: Op::CsrWrite,
            target: csr.offset as u16,
            index: 0,
            data: BigUint::from(value),
        };
        match self.serve(&req).status() {
            Some(Status::Ok) => Ok(self.csr_word(n)),
            Some(Status::ReadOnly) => Err(CsrRefusal::ReadOnly),
            _ => Err(CsrRefusal::Unmapped),
        }
    }
}

/// Why a CSR window write was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsrRefusal {
    /// A `readonly` CSR (`E_CSR_READONLY`).
    ReadOnly,
    /// No CSR at this word (`E_CSR_UNMAPPED`).
    Unmapped,
}

fn keep(pending: &mut Vec<Notification>, raised: impl Iterator<Item = Notification>) {
    for n in raised {
        if pending.len() < PENDING_MAX {
            pending.push(n);
        }
    }
}

/// The slot's view of one packet's outcome: copies to a port or the host; `Pass` (onward) goes
/// where the input was going (network in: the host; host in: port 0); a copy to another scu has no
/// meaning for a slot holding one unit and is not sent.
fn verdict(outcome: &mut PacketOutcome, source: Source) -> Verdict {
    let onward = match source {
        Source::Network(_) => Destination::Host,
        Source::Host => Destination::Network(0),
    };
    let mut v = Verdict::default();
    for (dest, bytes) in outcome.outputs.drain(..) {
        let to = match dest {
            InterpDestination::Host => Destination::Host,
            InterpDestination::Network(p) => Destination::Network(p),
            InterpDestination::Pass => onward,
            InterpDestination::Scu(_) => continue,
        };
        v.outputs.push((to, bytes));
    }
    if let Some(reason) = &outcome.dropped {
        v.dropped = true;
        v.parser_error = reason.starts_with("parser_error:");
    }
    v
}
