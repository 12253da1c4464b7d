//! The timing report: per-body latency, II and the operations that cost the most.
//!
//! The report is what the SCU package manifest carries under its estimates, and what `scenicc`
//! prints. Every figure is an estimate from [`super::cost`], not a synthesis result.

use super::Options;
use scenic_ir::span::Span;
use serde::{Deserialize, Serialize};

/// What kind of code a [`BodyTiming`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyKind {
    /// One parser state (its extractions and its transition).
    ParserState,
    /// The parser's worst path from `start` to `accept` or `reject`.
    Parser,
    /// The per-packet control.
    Control,
    /// The `on parser_error` block.
    ParserError,
    /// The deparser (or the default one, emitting every instance).
    Deparser,
    /// An action, scheduled on its own (table applications and calls inline it).
    Action,
    /// The payload kernel, per 512-bit word.
    Stream,
    /// A periodic block.
    Every,
    /// A whole packet: the parser's worst path, the control and the deparser in sequence.
    Packet,
    /// An event handler of a congestion controller.
    CcHandler,
}

impl BodyKind {
    /// Whether the body runs once per packet, so its II bounds the packet rate.
    pub fn per_packet(self) -> bool {
        matches!(
            self,
            BodyKind::Parser
                | BodyKind::Control
                | BodyKind::ParserError
                | BodyKind::Deparser
                | BodyKind::Packet
        )
    }
}

/// One operation and what it costs (merged over the copies an unrolled loop makes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostlyOp {
    /// What it is ("multiply (64×16 bits)").
    pub what: String,
    /// Where it is written.
    pub span: Span,
    /// Cycles it adds to the path (all copies together).
    pub cycles: u32,
    /// How many copies are on the path (more than one in unrolled loops and repeated calls).
    pub count: u32,
}

/// Why a body's II is above 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IiLimit {
    /// The stateful object ("map `subnets`", "csr `forwarded`", "the per-flow state of cc `dcqcn`").
    pub object: String,
    /// Cycles from reading the object to its new value being visible: the II it forces.
    pub cycles: u32,
    /// Where the dependency closes (the write back).
    pub span: Span,
    /// A sentence for reports.
    pub reason: String,
}

/// Something worth telling the user about a body's timing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimingNote {
    /// Where (unknown for notes about the whole body).
    pub span: Span,
    /// What.
    pub message: String,
}

/// The estimated timing of one body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyTiming {
    /// `scu firewall: control`, `cc dcqcn: on cnp`, ...
    pub name: String,
    /// The scu or cc.
    pub unit: String,
    /// The part of it: `control`, `parser state start`, `on timer rate_timer`, ...
    pub part: String,
    /// What kind of body it is.
    pub kind: BodyKind,
    /// Where it is defined (the scu or cc where the body has no span of its own).
    pub span: Span,
    /// Estimated cycles from start to the last effect.
    pub latency: u32,
    /// Estimated initiation interval: cycles between consecutive packets, words or events.
    pub ii: u32,
    /// Why `ii` is above 1.
    pub ii_limit: Option<IiLimit>,
    /// For cc handlers: the declared budget in cycles.
    pub budget: Option<u64>,
    /// For per-packet bodies: the smallest packet that still arrives no faster than `ii` allows,
    /// i.e. the body keeps line rate for packets of at least this many bytes (64 for II 1).
    pub line_rate_min_bytes: Option<u64>,
    /// The costly operations on the critical path, in path order.
    pub critical_path: Vec<CostlyOp>,
    /// The (at most) three most expensive operations on the critical path, most expensive first.
    pub costly: Vec<CostlyOp>,
    /// Warnings: run-time divisions, an II that misses line rate, a body too big to analyse.
    pub notes: Vec<TimingNote>,
}

impl BodyTiming {
    /// Whether a cc handler exceeds its budget.
    pub fn over_budget(&self) -> bool {
        self.budget.is_some_and(|b| u64::from(self.latency) > b)
    }
}

/// The timing estimates of a whole module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingReport {
    /// The clock, datapath and line rate the estimates assume.
    pub options: Options,
    /// Cycles available per MTU-size packet at line rate ([`Options::mtu_bytes`]).
    pub mtu_budget: u64,
    /// Cycles available per minimum-size (64 B) packet at line rate.
    pub min_packet_budget: u64,
    /// One entry per body, in module order.
    pub bodies: Vec<BodyTiming>,
}

impl TimingReport {
    /// The entry with this name (`scu firewall: control`).
    pub fn body(&self, name: &str) -> Option<&BodyTiming> {
        self.bodies.iter().find(|b| b.name == name)
    }
}
