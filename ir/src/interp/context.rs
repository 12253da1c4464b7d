//! The execution context: what code can reach while it runs (the scu's state, the packet, the payload
//! word, the cc flow), and what it produces (outputs, notifications, drops).

use super::bits::Bits;
use super::frame::Caches;
use super::headers::HeaderStore;
use super::runtime::{CcFlow, ScuRuntime};
use super::value::{HeaderVal, Value};
use crate::entities::*;
use crate::program::{Cc, Module, Scu};

/// A copy of the packet requested by the control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// The host (the slow path's netdev).
    Host,
    /// A network port.
    Network(u8),
    /// Another scu.
    Scu(ScuId),
    /// Onward, unchanged destination (rdma/tcp scus).
    Pass,
}

/// An interrupt raised by `notify`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notification {
    /// When (virtual ns).
    pub time_ns: u64,
    /// The scu or cc that raised it.
    pub source: String,
    /// To the Arm cores (`true`) or the host.
    pub to_arm: bool,
    /// The 32-bit value.
    pub value: u32,
}

/// What running code produced.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// Copies requested, in order.
    pub copies: Vec<Destination>,
    /// `drop()` ran.
    pub dropped: bool,
    /// Interrupts.
    pub notifications: Vec<Notification>,
    /// Words passed on (stream kernels).
    pub passes: Vec<Bits>,
    /// Words pushed to outputs: output, element, word.
    pub pushes: Vec<(OutId, usize, Bits)>,
    /// Timers and byte counters restarted (cc).
    pub restarts: Vec<TimerId>,
    /// Per-packet trace lines, when tracing.
    pub trace: Option<Vec<String>>,
}

impl Effects {
    /// Records `drop()`: every copy so far is cancelled.
    pub fn drop_packet(&mut self) {
        self.dropped = true;
        self.copies.clear();
    }

    /// Adds a trace line when tracing.
    pub fn trace(&mut self, line: impl FnOnce() -> String) {
        if let Some(t) = &mut self.trace {
            t.push(line());
        }
    }
}

/// The packet being processed.
#[derive(Debug)]
pub struct PacketState<'d> {
    /// Its bytes.
    pub data: &'d [u8],
    /// Parser position in bits.
    pub cursor: usize,
    /// Header instances (the scu's store, reset for this packet).
    pub headers: &'d mut HeaderStore,
    /// `meta` fields.
    pub meta: &'d mut Vec<Value>,
    /// Ingress port.
    pub port: u8,
    /// Arrival time.
    pub timestamp_ns: u64,
}

/// The payload word being processed.
#[derive(Clone, Debug)]
pub struct BeatState {
    /// Last word of the message.
    pub last: bool,
    /// Valid-byte mask.
    pub keep: u64,
}

/// An scu and its run-time state.
pub struct ScuRef<'a> {
    /// Its definition.
    pub def: &'a Scu,
    /// Its id.
    pub id: ScuId,
    /// Its state.
    pub rt: &'a mut ScuRuntime,
}

/// A cc and the state of the flow being processed.
pub struct CcRef<'a> {
    /// Its definition.
    pub def: &'a Cc,
    /// Host-set parameters.
    pub params: &'a [Bits],
    /// The flow.
    pub flow: &'a mut CcFlow,
}

/// Everything running code can reach.
pub struct Exec<'a> {
    /// The program.
    pub module: &'a Module,
    /// Body caches.
    pub caches: &'a mut Caches,
    /// The scu, when running scu code.
    pub scu: Option<ScuRef<'a>>,
    /// The cc, when running cc code.
    pub cc: Option<CcRef<'a>>,
    /// The packet, when processing one.
    pub packet: Option<PacketState<'a>>,
    /// The payload word, in stream kernels.
    pub beat: Option<BeatState>,
    /// Virtual time.
    pub now_ns: u64,
    /// The flow id (QPN or session), for rdma/tcp scus and ccs.
    pub flow_id: u64,
    /// Effects produced.
    pub effects: Effects,
    /// A parser error raised by an extraction or lookahead (`packet_too_short`, `stack_overflow`).
    pub parse_error: Option<&'static str>,
    /// Bytes emitted by the deparser so far.
    pub emitted: Vec<u8>,
}

impl Exec<'_> {
    /// A CSR's value.
    pub fn csr(&self, c: CsrId) -> Bits {
        self.scu
            .as_ref()
            .and_then(|s| s.rt.csrs.get(c.index()).cloned())
            .unwrap_or_else(|| Bits::zero(1))
    }

    /// Writes a CSR.
    pub fn set_csr(&mut self, c: CsrId, value: Bits) {
        if let Some(slot) = self.scu.as_mut().and_then(|s| s.rt.csrs.get_mut(c.index())) {
            *slot = value.resize(slot.width());
        }
    }

    /// A `meta` field.
    pub fn meta(&self, f: u32) -> Value {
        self.packet
            .as_ref()
            .and_then(|p| p.meta.get(f as usize).cloned())
            .unwrap_or(Value::Unit)
    }

    /// Writes a `meta` field.
    pub fn set_meta(&mut self, f: u32, value: Value) {
        if let Some(slot) = self
            .packet
            .as_mut()
            .and_then(|p| p.meta.get_mut(f as usize))
        {
            *slot = value;
        }
    }

    /// A header instance (element `i` of a stack).
    pub fn header(&self, inst: InstId, i: usize) -> HeaderVal {
        match &self.packet {
            Some(p) => p.headers.value(p.data, inst, i),
            None => HeaderVal {
                valid: false,
                fields: Vec::new(),
            },
        }
    }

    /// Whether a header instance (element `i` of a stack) is valid.
    pub fn header_valid(&self, inst: InstId, i: usize) -> bool {
        self.packet
            .as_ref()
            .is_some_and(|p| p.headers.valid(inst, i))
    }

    /// Replaces a header instance.
    pub fn set_header(&mut self, inst: InstId, i: usize, value: HeaderVal) {
        if let Some(p) = self.packet.as_mut() {
            p.headers.set_value(inst, i, &value);
        }
    }

    /// A header field: zero when the header is invalid.
    pub fn header_field(&self, inst: InstId, i: usize, field: u32) -> Bits {
        match &self.packet {
            Some(p) => p.headers.field(p.data, inst, i, field),
            None => Bits::zero(1),
        }
    }

    /// Writes a header field; ignored when the header is invalid.
    pub fn set_header_field(&mut self, inst: InstId, i: usize, field: u32, value: Bits) {
        if let Some(p) = self.packet.as_mut() {
            p.headers.set_field(p.data, inst, i, field, &value);
        }
    }

    /// A cc state variable of the current flow.
    pub fn cc_state(&self, s: CcStateId) -> Value {
        self.cc
            .as_ref()
            .and_then(|c| c.flow.state.get(s.index()).cloned())
            .unwrap_or(Value::Unit)
    }

    /// Writes a cc state variable.
    pub fn set_cc_state(&mut self, s: CcStateId, value: Value) {
        if let Some(slot) = self
            .cc
            .as_mut()
            .and_then(|c| c.flow.state.get_mut(s.index()))
        {
            *slot = value;
        }
    }

    /// The source name for notifications.
    pub fn source_name(&self) -> String {
        match (&self.scu, &self.cc) {
            (Some(s), _) => s.def.name.clone(),
            (_, Some(c)) => c.def.name.clone(),
            _ => String::new(),
        }
    }
}

use cranelift_entity::EntityRef;
