//! The emulated NIC's network side: Linux attachments ([`sys`]), in-process wires ([`mod@wire`]), the prefilter's classification
//! ([`mod@classify`]), the steering tables ([`steer`]) and the datapath loop ([`datapath`]).
//!
//! A slot processes packets through a [`SlotEngine`]. This stage has [`PassThrough`] only (it sends
//! what it gets from the network to the host, and what it gets from the host to port 0); the next
//! stage implements the trait on the reference interpreter, one engine per loaded bank, and swaps
//! engines at a packet boundary. The datapath owns the engines and calls them on its own thread, so
//! an engine needs no locking; control requests reach it through the same thread (next stage).

pub mod classify;
pub mod datapath;
pub mod gso;
pub mod host_rings;
pub mod steer;
pub mod sys;
pub mod wire;

pub use classify::{classify, Class};
pub use datapath::{Datapath, DatapathConfig};
pub use host_rings::HostRings;
pub use sys::{FrameIo, HostTag, PacketPort, Tap};
pub use wire::{wire, Wire, WireDevice};

/// Where a slot's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// Out of network port `p`.
    Network(u8),
    /// To the host (the TAP netdev; the RX ring with the kmod).
    Host,
}

/// Where an input came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Network port `p`.
    Network(u8),
    /// The host.
    Host,
}

/// One input handed to a slot: a whole packet (rdma/tcp units: a whole message, next stages).
#[derive(Debug, Clone, Copy)]
pub struct SlotInput<'a> {
    /// The frame, from the destination MAC, FCS excluded.
    pub data: &'a [u8],
    /// Where it came from.
    pub source: Source,
    /// Arrival time, `NOW_NS` clock.
    pub now_ns: u64,
    /// The prefilter's classification.
    pub class: Class,
}

/// What a slot did with one input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Packets it sent, in order.
    pub outputs: Vec<(Destination, Vec<u8>)>,
    /// The program dropped the input (`drop()`; `DROP_PROGRAM`).
    pub dropped: bool,
    /// The parser refused the input (`DROP_PARSER`).
    pub parser_error: bool,
    /// A copy went to the warming bank (`MIRRORED`).
    pub mirrored: bool,
    /// No unit processed the input; it was passed on as it came (`DROP_NO_UNIT`).
    pub unprocessed: bool,
}

/// A slot's packet processor: the seam where the interpreter plugs in.
pub trait SlotEngine: Send {
    /// Processes one input, whole; called between control requests, never concurrently.
    fn packet(&mut self, input: SlotInput<'_>) -> Verdict;
}

/// The engine of this stage: network → host, host → port 0, unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct PassThrough;

impl SlotEngine for PassThrough {
    fn packet(&mut self, input: SlotInput<'_>) -> Verdict {
        let dest = match input.source {
            Source::Network(_) => Destination::Host,
            Source::Host => Destination::Network(0),
        };
        Verdict {
            outputs: vec![(dest, input.data.to_vec())],
            ..Verdict::default()
        }
    }
}
