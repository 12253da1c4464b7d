//! The event queue: a binary heap ordered by (time in ps, sequence number).
//!
//! Invariants: events pop in non-decreasing time; events at the same time pop in the order they
//! were pushed (the sequence number breaks ties), so a run depends on nothing but the scenario and
//! the seed. Nothing may be pushed before the time of the last event popped.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A data packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The flow (index into the scenario's flows).
    pub flow: u32,
    /// Index of the next port on the flow's route.
    pub hop: u32,
    /// Byte offset of the payload in the flow.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Bytes on the wire (payload and header).
    pub wire: u32,
    /// ECN congestion experienced.
    pub ecn: bool,
    /// When the sender put it on the wire (ps).
    pub sent_ps: u64,
}

/// What reaches a sender on the reverse path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// Cumulative acknowledgement up to byte `upto`, for the packet sent at `sent_ps`.
    Ack {
        /// Every byte before this offset has arrived in order.
        upto: u64,
        /// The packet carried an ECN mark.
        ecn: bool,
        /// When the acknowledged packet was sent (an RTT sample).
        sent_ps: u64,
    },
    /// A sequence gap at the receiver: resend from `expected`.
    Nack {
        /// The first byte the receiver is missing.
        expected: u64,
    },
    /// A congestion notification packet.
    Cnp,
}

/// What happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// A flow starts.
    FlowStart(u32),
    /// A sender may send again (stale unless `gen` is the sender's current one).
    SenderWake {
        /// The flow.
        flow: u32,
        /// Generation; a rescheduled wake makes older ones stale.
        gen: u32,
    },
    /// A packet reaches the switch that owns port `pkt.hop` of its route, or the receiver.
    Arrive(Packet),
    /// A port finished serializing the packet at the head of its queue.
    TxDone(u32),
    /// Feedback reaches the sender of `flow`.
    Feedback {
        /// The flow.
        flow: u32,
        /// What it is.
        fb: Feedback,
    },
    /// A controller machine's timers may be due (stale unless it is the time the group expects).
    CcTimer(u32),
    /// A flow's retransmission timer.
    Rto(u32),
    /// Take a time-series sample.
    Sample,
    /// The measurement window starts.
    MeasureStart,
    /// A flow with a `stop` time stops sending.
    FlowStop(u32),
    /// The hot swap: the standby controller takes over (docs/cc-sim.md, `--swap`).
    Swap,
}

struct Entry {
    at: u64,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and the earliest event must come out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// The queue.
#[derive(Default)]
pub struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: u64,
    popped: u64,
}

impl Queue {
    /// Schedules `ev` at `at` ps (never before now).
    pub fn push(&mut self, at: u64, ev: Ev) {
        let at = at.max(self.now);
        self.seq += 1;
        self.heap.push(Entry {
            at,
            seq: self.seq,
            ev,
        });
    }

    /// The next event, if any due at or before `until`.
    pub fn pop_until(&mut self, until: u64) -> Option<(u64, Ev)> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.at;
        self.popped += 1;
        Some((e.at, e.ev))
    }

    /// The time of the last event popped (ps).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Events processed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

/// A small deterministic generator (SplitMix64): the same seed gives the same marks everywhere.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A uniform number in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_keep_push_order() {
        let mut q = Queue::default();
        q.push(5, Ev::Sample);
        q.push(3, Ev::TxDone(1));
        q.push(3, Ev::TxDone(2));
        assert_eq!(q.pop_until(10), Some((3, Ev::TxDone(1))));
        assert_eq!(q.pop_until(10), Some((3, Ev::TxDone(2))));
        assert_eq!(q.pop_until(4), None);
        assert_eq!(q.pop_until(10), Some((5, Ev::Sample)));
    }
}
