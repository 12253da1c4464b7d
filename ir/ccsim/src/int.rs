//! In-band network telemetry (INT) for controllers with an `on int` handler (HPCC): each switch
//! egress port stamps one hop into the data packet as the packet leaves it — the queue it leaves
//! behind (bytes), the port's cumulative bytes sent (this packet included), the switch's time (ns)
//! and the link's rate (bit/s), as the authors' ns-3 switch does on dequeue — the receiver echoes
//! the stack in its ACK, and the sender feeds the hops to the controller in hop order just before
//! the ACK's `ack` (docs/language.md §8.4).
//!
//! The stacks are kept here, beside the packets rather than in them (a [`Packet`] stays small and
//! `Copy` for every other controller): a packet is named by its flow and the time it was sent,
//! which is unique within a flow (a sender puts one packet on its link at a time); the ACK names
//! the same time, so taking the stack when the ACK arrives is the receiver's echo.
//!
//! Invariants: nothing is stamped when the controller has no `on int` (the cost is paid only by
//! controllers that listen); a stack holds its hops in route order; taking the stack of the packet
//! an ACK acknowledges also forgets every older stack of the flow (their packets were lost or went
//! unacknowledged: paths are FIFO, so their ACKs can no longer come), so memory stays bounded by
//! the packets in flight.

use crate::event::Packet;
use crate::fabric::Port;
use scenic_ir::program::IntHop;
use std::collections::BTreeMap;

/// The INT stacks of the packets in flight.
pub struct Telemetry {
    enabled: bool,
    /// Per flow: the hops stamped into each packet in flight, by its send time (ps).
    stacks: Vec<BTreeMap<u64, Vec<IntHop>>>,
}

impl Telemetry {
    /// Telemetry for `flows` flows, stamped only when `enabled` (the cc has an `on int`).
    pub fn new(enabled: bool, flows: usize) -> Telemetry {
        Telemetry {
            enabled,
            stacks: if enabled {
                vec![BTreeMap::new(); flows]
            } else {
                Vec::new()
            },
        }
    }

    /// `pkt` leaves `port`, hop `hop` of a route of `hops` ports, at `now_ps`; the port has already
    /// dequeued it (its queue and byte count are what the packet leaves behind).
    pub fn stamp(&mut self, pkt: &Packet, port: &Port, hops: usize, now_ps: u64) {
        if !self.enabled {
            return;
        }
        let Some(flow) = self.stacks.get_mut(pkt.flow as usize) else {
            return;
        };
        flow.entry(pkt.sent_ps).or_default().push(IntHop {
            hop: u8::try_from(pkt.hop).unwrap_or(u8::MAX),
            hops: u8::try_from(hops).unwrap_or(u8::MAX),
            qlen: port.queued,
            tx_bytes: port.stats.tx_bytes,
            ts_ns: now_ps / 1000,
            rate_bps: port.rate,
        });
    }

    /// The echoed stack of `flow`'s packet sent at `sent_ps` (empty if none), in hop order.
    pub fn take(&mut self, flow: u32, sent_ps: u64) -> Vec<IntHop> {
        let Some(stacks) = self.stacks.get_mut(flow as usize) else {
            return Vec::new();
        };
        *stacks = stacks.split_off(&sent_ps);
        stacks.remove(&sent_ps).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn port(queued: u64, tx_bytes: u64) -> Port {
        Port {
            rate: 200_000_000_000,
            delay: 1_000_000,
            buffer: 1 << 24,
            queue: VecDeque::new(),
            queued,
            busy: false,
            stats: crate::fabric::PortStats {
                tx_bytes,
                ..Default::default()
            },
        }
    }

    fn packet(sent_ps: u64, hop: u32) -> Packet {
        Packet {
            flow: 0,
            hop,
            seq: 0,
            len: 1000,
            wire: 1048,
            ecn: false,
            sent_ps,
        }
    }

    #[test]
    fn hops_come_back_in_route_order_and_older_stacks_are_forgotten() {
        let mut t = Telemetry::new(true, 1);
        t.stamp(&packet(5, 0), &port(0, 1048), 2, 7_000);
        t.stamp(&packet(9, 0), &port(3000, 2096), 2, 8_000);
        t.stamp(&packet(9, 1), &port(0, 1048), 2, 9_500);
        let hops = t.take(0, 9);
        assert_eq!(hops.len(), 2);
        assert_eq!(
            hops[0],
            IntHop {
                hop: 0,
                hops: 2,
                qlen: 3000,
                tx_bytes: 2096,
                ts_ns: 8,
                rate_bps: 200_000_000_000
            }
        );
        assert_eq!((hops[1].hop, hops[1].ts_ns), (1, 9));
        assert!(
            t.take(0, 5).is_empty(),
            "the packet sent at 5 was passed over"
        );
    }

    #[test]
    fn nothing_is_kept_without_an_int_handler() {
        let mut t = Telemetry::new(false, 1);
        t.stamp(&packet(5, 0), &port(0, 1048), 1, 7_000);
        assert!(t.take(0, 5).is_empty());
    }
}
