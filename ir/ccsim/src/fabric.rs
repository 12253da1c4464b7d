//! The fabric: switch egress ports (a FIFO queue, a finite buffer, RED/ECN marking, a link with a
//! rate and a propagation delay) and every flow's route through them.
//!
//! Topologies (all links `link_delay` long; host links at `link_rate`):
//! - `incast`: every sender → switch → one receiver. Port 0, the switch's port to the receiver
//!   (`bottleneck_rate`), is the bottleneck; every route is `[0]`.
//! - `dumbbell`: every sender → switch A → switch B → its own receiver. Port 0 (A→B,
//!   `bottleneck_rate`) is the bottleneck; port 1 + i (B → receiver i, `link_rate`) follows it.
//! - `parking_lot` (`hops` = N switches S0 … S(N−1) in a chain): port K (S_K → S_K+1,
//!   `bottleneck_rate`) for K < N − 1 are the bottlenecks; every flow has its own receiver behind
//!   port N − 1 + i (`link_rate`). Route `long`: sender → S0 → … → S(N−1) → receiver, ports
//!   `[0, 1, …, N−2, N−1+i]`; route `cross:K`: sender → S_K → S_K+1 → receiver, ports
//!   `[K, N−1+i]`. A dumbbell is the 2-switch parking lot whose flows are all `long`.
//!
//! The bottleneck ports are always ports `0..bottlenecks` (one for `incast` and `dumbbell`,
//! N − 1 for a parking lot); port 0 is "the" bottleneck of the single-bottleneck figures.
//!
//! Senders pace onto their own host link and never queue there, so host links are not ports: a
//! packet reaches its first switch one serialization plus one propagation delay after it is sent.
//! The reverse path (ACKs, NACKs, CNPs) is not congested: feedback takes the route's propagation
//! delays plus one serialization of a 64-byte control packet per link.
//!
//! Invariants: a port's `queued` is the sum of the wire bytes in its queue (the packet being
//! serialized included, at its head); `queued <= buffer` after every enqueue; a packet is marked
//! on enqueue with probability 0 below `kmin`, `pmax·(q−kmin)/(kmax−kmin)` between, 1 above `kmax`,
//! where q is the queue depth the packet finds.

use crate::event::{Packet, Rng};
use crate::scenario::{Route, Scenario, TopologyKind};
use std::collections::VecDeque;

/// Bytes of an ACK, NACK or CNP on the wire.
pub const CONTROL_BYTES: u64 = 64;

/// Picoseconds to serialize `bytes` at `rate` bit/s.
pub fn ser_ps(bytes: u64, rate: u64) -> u64 {
    let ps = u128::from(bytes) * 8 * 1_000_000_000_000 / u128::from(rate.max(1));
    u64::try_from(ps).unwrap_or(u64::MAX)
}

/// Counters of a port.
#[derive(Clone, Debug, Default)]
pub struct PortStats {
    /// Wire bytes sent.
    pub tx_bytes: u64,
    /// Packets dropped for want of buffer.
    pub drops: u64,
    /// Packets marked ECN-CE.
    pub marks: u64,
    /// Largest queue depth (bytes).
    pub max_queue: u64,
}

/// A switch egress port.
pub struct Port {
    /// Link rate (bit/s).
    pub rate: u64,
    /// Propagation delay (ps).
    pub delay: u64,
    /// Buffer (bytes).
    pub buffer: u64,
    /// The queue, head being serialized when `busy`.
    pub queue: VecDeque<Packet>,
    /// Wire bytes in `queue`.
    pub queued: u64,
    /// Serializing the head.
    pub busy: bool,
    /// Counters.
    pub stats: PortStats,
}

/// What an enqueue did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    /// Queued; start serializing now (the port was idle).
    Start,
    /// Queued behind others.
    Waiting,
    /// No room: dropped.
    Dropped,
}

/// Ports, routes and the marking configuration.
pub struct Fabric {
    /// Every switch egress port; ports `0..bottlenecks` are the bottleneck links.
    pub ports: Vec<Port>,
    /// How many of the first ports are bottleneck links.
    pub bottlenecks: usize,
    /// Each flow's route (port indices).
    pub routes: Vec<Vec<u32>>,
    /// Each flow's feedback delay (ps).
    pub reverse: Vec<u64>,
    /// Host link rate (bit/s) and delay (ps).
    pub host_rate: u64,
    /// Propagation delay of every link (ps).
    pub delay: u64,
    ecn: bool,
    kmin: u64,
    kmax: u64,
    pmax: f64,
    rng: Rng,
}

impl Fabric {
    /// The fabric of `scenario`.
    pub fn new(scenario: &Scenario, seed: u64) -> Fabric {
        let t = &scenario.topology;
        let port = |rate| Port {
            rate,
            delay: t.link_delay,
            buffer: scenario.switch.buffer,
            queue: VecDeque::new(),
            queued: 0,
            busy: false,
            stats: PortStats::default(),
        };
        let bottlenecks = t.bottlenecks();
        let mut ports: Vec<Port> = (0..bottlenecks).map(|_| port(t.bottleneck_rate)).collect();
        let routes: Vec<Vec<u32>> = match t.kind {
            TopologyKind::Incast => vec![vec![0]; scenario.flows.len()],
            TopologyKind::Dumbbell | TopologyKind::ParkingLot => {
                ports.extend(scenario.flows.iter().map(|_| port(t.link_rate)));
                let links = |route: Route| match route {
                    Route::Long => 0..bottlenecks,
                    Route::Cross(k) => k..k + 1,
                };
                let to_receiver = |i: usize| bottlenecks + i as u32;
                (scenario.flows.iter().enumerate())
                    .map(|(i, f)| links(f.route).chain([to_receiver(i)]).collect())
                    .collect()
            }
        };
        let reverse = routes
            .iter()
            .map(|r| {
                let host = t.link_delay + ser_ps(CONTROL_BYTES, t.link_rate);
                r.iter().fold(host, |acc, &p| {
                    let p = &ports[p as usize];
                    acc + p.delay + ser_ps(CONTROL_BYTES, p.rate)
                })
            })
            .collect();
        Fabric {
            ports,
            bottlenecks: bottlenecks as usize,
            routes,
            reverse,
            host_rate: t.link_rate,
            delay: t.link_delay,
            ecn: scenario.switch.ecn,
            kmin: scenario.switch.kmin,
            kmax: scenario.switch.kmax,
            pmax: scenario.switch.pmax,
            rng: Rng::new(seed),
        }
    }

    /// The name of bottleneck link `b` (`"S0->S1"`; `"S0->R"` for the incast receiver's port).
    pub fn link_name(kind: TopologyKind, b: usize) -> String {
        match kind {
            TopologyKind::Incast => "S0->R".to_string(),
            TopologyKind::Dumbbell | TopologyKind::ParkingLot => format!("S{b}->S{}", b + 1),
        }
    }

    /// Queues `pkt` on port `p`, marking or dropping it.
    pub fn enqueue(&mut self, p: usize, mut pkt: Packet) -> Enqueued {
        let mark = self.ecn && self.should_mark(p);
        let Some(port) = self.ports.get_mut(p) else {
            return Enqueued::Dropped;
        };
        let wire = u64::from(pkt.wire);
        if port.queued + wire > port.buffer {
            port.stats.drops += 1;
            return Enqueued::Dropped;
        }
        if mark && !pkt.ecn {
            pkt.ecn = true;
            port.stats.marks += 1;
        }
        port.queue.push_back(pkt);
        port.queued += wire;
        port.stats.max_queue = port.stats.max_queue.max(port.queued);
        if port.busy {
            Enqueued::Waiting
        } else {
            port.busy = true;
            Enqueued::Start
        }
    }

    fn should_mark(&mut self, p: usize) -> bool {
        let Some(port) = self.ports.get(p) else {
            return false;
        };
        let q = port.queued;
        if q <= self.kmin {
            false
        } else if q > self.kmax {
            true
        } else {
            let span = (self.kmax - self.kmin).max(1) as f64;
            let prob = self.pmax * (q - self.kmin) as f64 / span;
            self.rng.uniform() < prob
        }
    }

    /// Serialization time of the head of port `p` (ps), if any.
    pub fn head_ser(&self, p: usize) -> Option<u64> {
        let port = self.ports.get(p)?;
        let head = port.queue.front()?;
        Some(ser_ps(u64::from(head.wire), port.rate))
    }

    /// Takes the serialized head off port `p`: the packet, and whether another one starts.
    pub fn dequeue(&mut self, p: usize) -> Option<(Packet, bool)> {
        let port = self.ports.get_mut(p)?;
        let pkt = port.queue.pop_front()?;
        port.queued -= u64::from(pkt.wire);
        port.stats.tx_bytes += u64::from(pkt.wire);
        port.busy = !port.queue.is_empty();
        Some((pkt, port.busy))
    }
}
