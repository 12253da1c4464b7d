//! The execution context (`Cx`): what compiled code can reach while it runs (the scu's state, the
//! packet, the payload word, the cc flow, the frames of the bodies running), and what it produces
//! (outputs, notifications, drops).
//!
//! A `Cx` lives for one packet, word, signal or `every` run and borrows everything it reaches from
//! the [`super::Machine`]; the frame stack (`Frames`) and the buffers in [`Effects`] are the
//! machine's, reused from one run to the next, so running code allocates only where a value
//! itself needs storage (an aggregate copied, a copy of the packet sent).

use super::compile::{Program, ScuCode};
use super::headers::HeaderStore;
use super::runtime::{CcFlow, ScuRuntime};
use super::value::Value;
use cranelift_entity::EntityRef;
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{Module, Scu};
use std::sync::Arc;

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
    /// The scu or cc that raised it (its name, shared: no allocation per notification).
    pub source: Arc<str>,
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
    /// Empties every list (keeping their storage) for the next packet, tracing when `trace`.
    pub(crate) fn reset(&mut self, trace: Option<Vec<String>>) {
        self.copies.clear();
        self.dropped = false;
        self.notifications.clear();
        self.passes.clear();
        self.pushes.clear();
        self.restarts.clear();
        self.trace = trace;
    }

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

/// The payload word being processed.
#[derive(Clone, Copy, Debug)]
pub struct BeatState {
    /// Last word of the message.
    pub last: bool,
    /// Valid-byte mask.
    pub keep: u64,
}

/// The packet being processed.
#[derive(Debug)]
pub(crate) struct PacketCx<'a> {
    /// Its bytes.
    pub data: &'a [u8],
    /// Parser position in bits.
    pub cursor: usize,
    /// Header instances (the scu's store, reset for this packet).
    pub headers: &'a mut HeaderStore,
    /// `meta` fields.
    pub meta: &'a mut [Value],
    /// Ingress port.
    pub port: u8,
    /// Arrival time.
    pub timestamp_ns: u64,
}

/// An scu and its run-time state.
pub(crate) struct ScuCx<'a> {
    /// Its definition.
    pub def: &'a Scu,
    /// Its compiled code.
    pub code: &'a ScuCode,
    /// Its state.
    pub rt: &'a mut ScuRuntime,
}

/// A cc and the state of the flow being processed.
pub(crate) struct CcCx<'a> {
    /// Its name.
    pub name: &'a Arc<str>,
    /// Host-set parameters.
    pub params: &'a [Bits],
    /// The flow.
    pub flow: &'a mut CcFlow,
}

/// What a table application chose, kept for the `match` arms that read its action data.
#[derive(Clone, Debug, Default)]
pub(crate) struct Applied {
    /// The action's position in the table, `None` before the application ran.
    pub action: Option<u32>,
    /// The action data.
    pub args: Vec<Bits>,
}

/// The frames of the bodies running, and the scratch stacks of calls, keys and scrutinees.
///
/// A frame is a window of `values` (the body's locals, by `LocalId`) and of `applies` (its table
/// applications); a call's frame starts where its caller's ends. The vectors only grow, so their
/// storage, and that of the aggregates in them, is reused by every later run.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    /// Locals of every running frame.
    pub values: Vec<Value>,
    /// Table applications of every running frame.
    pub applies: Vec<Applied>,
    /// Arguments evaluated for a call that has not started yet.
    pub args: Vec<Value>,
    /// Keys of table applications being looked up, and parts of tuples being matched.
    pub scalars: Vec<Bits>,
}

/// Why evaluation stopped early: the packet was dropped, or the parser rejected it (the context
/// says which). Every operand, effect and statement after it is skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Halt;

/// Everything running code can reach. See the [module documentation](self).
pub(crate) struct Cx<'a> {
    /// The program.
    pub module: &'a Module,
    /// Its compiled code.
    pub prog: &'a Program,
    /// The scu, when running scu code.
    pub scu: Option<ScuCx<'a>>,
    /// The cc, when running cc code.
    pub cc: Option<CcCx<'a>>,
    /// The packet, when processing one.
    pub pkt: Option<PacketCx<'a>>,
    /// The payload word, in stream kernels.
    pub beat: Option<BeatState>,
    /// Virtual time.
    pub now_ns: u64,
    /// The flow id (QPN or session), for rdma/tcp scus and ccs.
    pub flow_id: u64,
    /// Effects produced (the caller's: a packet's are reused from one packet to the next).
    pub effects: &'a mut Effects,
    /// A parser error raised by an extraction or lookahead (`packet_too_short`, `stack_overflow`).
    pub parse_error: Option<&'static str>,
    /// Bytes emitted by the deparser so far.
    pub emitted: Vec<u8>,
    /// The frame stack.
    pub frames: &'a mut Frames,
    /// The running frame's first local in `frames.values`.
    pub base: usize,
    /// The running frame's first application in `frames.applies`.
    pub abase: usize,
    /// The value of the last `return`.
    pub ret: Value,
}

impl<'a> Cx<'a> {
    /// A context at time `now_ns` with nothing to reach but the program and the frame stack; the
    /// caller sets the scu, cc, packet or word.
    pub fn new(
        module: &'a Module,
        prog: &'a Program,
        frames: &'a mut Frames,
        effects: &'a mut Effects,
        now_ns: u64,
    ) -> Cx<'a> {
        Cx {
            module,
            prog,
            scu: None,
            cc: None,
            pkt: None,
            beat: None,
            now_ns,
            flow_id: 0,
            effects,
            parse_error: None,
            emitted: Vec::new(),
            frames,
            base: 0,
            abase: 0,
            ret: Value::Unit,
        }
    }

    /// Local `slot` of the running frame.
    #[inline]
    pub fn local(&self, slot: usize) -> &Value {
        static UNIT: Value = Value::Unit;
        self.frames.values.get(self.base + slot).unwrap_or(&UNIT)
    }

    /// Local `slot` of the running frame, to write.
    #[inline]
    pub fn local_mut(&mut self, slot: usize) -> Option<&mut Value> {
        self.frames.values.get_mut(self.base + slot)
    }

    /// A CSR's value.
    #[inline]
    pub fn csr(&self, c: CsrId) -> Bits {
        self.scu
            .as_ref()
            .and_then(|s| s.rt.csrs.get(c.index()).cloned())
            .unwrap_or_else(|| Bits::zero(1))
    }

    /// Writes a CSR (keeping its width).
    #[inline]
    pub fn set_csr(&mut self, c: CsrId, value: &Bits) {
        if let Some(slot) = self.scu.as_mut().and_then(|s| s.rt.csrs.get_mut(c.index())) {
            *slot = value.resize(slot.width());
        }
    }

    /// A `meta` field.
    #[inline]
    pub fn meta(&self, f: u32) -> Option<&Value> {
        self.pkt.as_ref().and_then(|p| p.meta.get(f as usize))
    }

    /// A `meta` field, to write.
    #[inline]
    pub fn meta_mut(&mut self, f: u32) -> Option<&mut Value> {
        self.pkt.as_mut().and_then(|p| p.meta.get_mut(f as usize))
    }

    /// A cc state variable of the current flow.
    #[inline]
    pub fn cc_state(&self, s: CcStateId) -> Option<&Value> {
        self.cc.as_ref().and_then(|c| c.flow.state.get(s.index()))
    }

    /// A cc state variable of the current flow, to write.
    #[inline]
    pub fn cc_state_mut(&mut self, s: CcStateId) -> Option<&mut Value> {
        self.cc
            .as_mut()
            .and_then(|c| c.flow.state.get_mut(s.index()))
    }

    /// The source name for notifications.
    pub fn source_name(&self) -> Arc<str> {
        match (&self.scu, &self.cc) {
            (Some(s), _) => s.code.name.clone(),
            (_, Some(c)) => c.name.clone(),
            _ => Arc::from(""),
        }
    }

    /// Records a parse error and halts.
    #[inline]
    pub fn reject(&mut self, error: &'static str) -> Halt {
        self.parse_error = Some(error);
        Halt
    }
}
