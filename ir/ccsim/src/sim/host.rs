//! Senders and receivers: RoCE-style go-back-N transport.
//!
//! Sender: sends MTU-sized packets (the last one of a sized flow may be shorter) onto its host link.
//! A rate controller's output paces the packets (wire bytes at the output rate, never faster than
//! the host link); a window controller's output bounds the bytes in flight (one packet may always
//! be in flight, so a window below one MTU does not stall the flow), paced by the host link only.
//! Acknowledgements are cumulative; a NACK rewinds the sender to the receiver's expected byte and is
//! a `loss`; no acknowledged progress for `rto` while bytes are outstanding is a `timeout` and
//! rewinds the sender to the last acknowledged byte.
//!
//! Receiver: accepts packets in order only (go-back-N); acknowledges each accepted packet with the
//! packet's ECN mark echoed and its send time (an RTT sample); answers the first out-of-order packet
//! after an accepted one with a NACK; sends a CNP for an ECN-marked packet unless it sent that flow
//! one less than `cnp_interval` ago (marks in between are not answered, as RoCE NICs do).
//!
//! Controller signals, per feedback: an ACK that acknowledges new bytes gives `ack(bytes, ecn)`,
//! then `ecn` if it echoes a mark, then `rtt(sample)`; a NACK gives `loss`; a CNP gives `cnp`; each
//! packet sent counts its payload bytes for the byte counters.

use crate::event::{Ev, Feedback, Packet};
use crate::fabric::ser_ps;
use crate::scenario::FlowSpec;
use crate::sim::Simulation;
use scenic_interp::cc::CcEvent;

/// A sender's transport state.
#[derive(Clone, Debug, Default)]
pub struct Sender {
    /// Started (its start time has come).
    pub started: bool,
    /// Stopped (its `stop` time has come): it sends nothing more.
    pub stopped: bool,
    /// Total payload bytes, if sized.
    pub size: Option<u64>,
    /// Next payload byte to send.
    pub next_seq: u64,
    /// Every byte before this has been acknowledged.
    pub acked: u64,
    /// The controller's output (rate or window), once read.
    pub output: Option<u64>,
    /// When the last packet started on the host link, and its wire bytes.
    pub last_start: u64,
    /// Wire bytes of the last packet.
    pub last_wire: u64,
    /// Whether any packet has been sent.
    pub sent_any: bool,
    /// Wake generation (a rescheduled wake makes older ones stale).
    pub gen: u32,
    /// When the pending wake is due.
    pub wake_at: Option<u64>,
    /// A retransmission check is scheduled.
    pub rto_armed: bool,
    /// Last time acknowledged progress was made (or the flow started).
    pub last_progress: u64,
    /// The highest `next_seq` reached (bytes below it sent again are retransmissions).
    pub high: u64,
    /// Payload bytes sent, retransmissions included.
    pub sent_bytes: u64,
    /// Payload bytes sent again after a rewind.
    pub resent_bytes: u64,
    /// CNPs received.
    pub cnps: u64,
    /// NACKs received.
    pub nacks: u64,
    /// Timeouts.
    pub timeouts: u64,
}

impl Sender {
    /// A sender for `spec`, not started.
    pub fn new(spec: &FlowSpec) -> Sender {
        Sender {
            size: spec.size,
            ..Sender::default()
        }
    }
}

/// A receiver's state for one flow.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    /// The next byte expected in order.
    pub expected: u64,
    /// When the last CNP was sent.
    pub last_cnp: Option<u64>,
    /// A NACK was sent and the gap is not filled yet.
    pub nacked: bool,
    /// When the last byte of a sized flow arrived (ps).
    pub done_at: Option<u64>,
    /// CNPs sent.
    pub cnps: u64,
}

impl Simulation<'_> {
    /// Sends `flow`'s next packet if its pace and window allow, else schedules the wake.
    pub(crate) fn try_send(&mut self, flow: u32, now: u64) {
        let host = &self.scenario.host;
        let rate_output = self.cc.rate_output();
        let host_rate = self.fabric.host_rate;
        let Some(s) = self.senders.get_mut(flow as usize) else {
            return;
        };
        let remaining = s
            .size
            .map_or(u64::MAX, |size| size.saturating_sub(s.next_seq));
        if !s.started || s.stopped || remaining == 0 {
            return;
        }
        let len = host.mtu.min(remaining);
        let out = s.output.unwrap_or(0);
        let inflight = s.next_seq - s.acked;
        if !rate_output && inflight > 0 && inflight + len > out {
            return; // the window is full: an ACK will call again
        }
        let pace = if rate_output {
            out.min(host_rate)
        } else {
            host_rate
        };
        if pace == 0 {
            return; // a zero rate: a new output will call again
        }
        let earliest = if s.sent_any {
            s.last_start + ser_ps(s.last_wire, pace)
        } else {
            now
        };
        if earliest > now {
            if s.wake_at != Some(earliest) {
                s.gen = s.gen.wrapping_add(1);
                s.wake_at = Some(earliest);
                let gen = s.gen;
                self.queue.push(earliest, Ev::SenderWake { flow, gen });
            }
            return;
        }
        let wire = len + host.header;
        let pkt = Packet {
            flow,
            hop: 0,
            seq: s.next_seq,
            len: len as u32,
            wire: wire as u32,
            ecn: false,
            sent_ps: now,
        };
        if s.next_seq < s.high {
            s.resent_bytes += len;
        }
        s.next_seq += len;
        s.high = s.high.max(s.next_seq);
        s.sent_bytes += len;
        s.sent_any = true;
        s.last_start = now;
        s.last_wire = wire;
        if !s.rto_armed {
            s.rto_armed = true;
            self.queue.push(now + host.rto, Ev::Rto(flow));
        }
        let arrive = now + ser_ps(wire, host_rate) + self.fabric.delay;
        self.queue.push(arrive, Ev::Arrive(pkt));
        self.cc.sent(flow, len, now);
        self.after_flow_cc(flow, now);
        // Schedule the next packet (after_cc may already have, if the output changed).
        if self.senders[flow as usize].wake_at.is_none() {
            self.try_send(flow, now);
        }
    }

    /// A packet reaches its receiver.
    pub(crate) fn deliver(&mut self, pkt: Packet, now: u64) {
        let f = pkt.flow as usize;
        let back = now + self.fabric.reverse[f];
        let host = &self.scenario.host;
        let r = &mut self.receivers[f];
        if pkt.ecn && host.cnp && r.last_cnp.is_none_or(|t| now - t >= host.cnp_interval) {
            r.last_cnp = Some(now);
            r.cnps += 1;
            let fb = Feedback::Cnp;
            self.queue.push(back, Ev::Feedback { flow: pkt.flow, fb });
        }
        if pkt.seq == r.expected {
            r.expected += u64::from(pkt.len);
            r.nacked = false;
            let size = self.scenario.flows[f].size;
            if r.done_at.is_none() && size.is_some_and(|s| r.expected >= s) {
                r.done_at = Some(now);
                self.stats.active_changed(now);
            }
            let fb = Feedback::Ack {
                upto: r.expected,
                ecn: pkt.ecn,
                sent_ps: pkt.sent_ps,
            };
            self.queue.push(back, Ev::Feedback { flow: pkt.flow, fb });
            self.stats.delivered(f, u64::from(pkt.len));
        } else if pkt.seq > r.expected && !r.nacked {
            r.nacked = true;
            let fb = Feedback::Nack {
                expected: r.expected,
            };
            self.queue.push(back, Ev::Feedback { flow: pkt.flow, fb });
        }
    }

    /// Feedback reaches `flow`'s sender.
    pub(crate) fn feedback(&mut self, flow: u32, fb: Feedback, now: u64) {
        let Some(s) = self.senders.get_mut(flow as usize) else {
            return;
        };
        match fb {
            Feedback::Ack { upto, ecn, sent_ps } => {
                let hops = self.int.take(flow, sent_ps);
                if upto <= s.acked {
                    return;
                }
                let bytes = upto - s.acked;
                s.acked = upto;
                s.next_seq = s.next_seq.max(upto);
                s.last_progress = now;
                for hop in hops {
                    self.cc.signal(flow, CcEvent::Int(hop), now);
                }
                self.cc.signal(flow, CcEvent::Ack { bytes, ecn }, now);
                if ecn {
                    self.cc.signal(flow, CcEvent::Ecn, now);
                }
                let rtt_ns = now.saturating_sub(sent_ps) / 1000;
                self.cc.signal(flow, CcEvent::Rtt(rtt_ns), now);
            }
            Feedback::Nack { expected } => {
                s.nacks += 1;
                s.acked = s.acked.max(expected);
                s.next_seq = s.next_seq.min(expected).max(s.acked);
                self.cc.signal(flow, CcEvent::Loss, now);
            }
            Feedback::Cnp => {
                s.cnps += 1;
                self.cc.signal(flow, CcEvent::Cnp, now);
            }
        }
        self.after_flow_cc(flow, now);
        if self.senders[flow as usize].wake_at.is_none() {
            self.try_send(flow, now);
        }
    }

    /// `flow`'s retransmission check.
    pub(crate) fn rto(&mut self, flow: u32, now: u64) {
        let rto = self.scenario.host.rto;
        let Some(s) = self.senders.get_mut(flow as usize) else {
            return;
        };
        s.rto_armed = false;
        if s.acked >= s.next_seq {
            return; // nothing outstanding: the next packet sent re-arms the check
        }
        if now - s.last_progress < rto {
            s.rto_armed = true;
            self.queue.push(s.last_progress + rto, Ev::Rto(flow));
            return;
        }
        s.timeouts += 1;
        s.next_seq = s.acked;
        s.last_progress = now;
        s.rto_armed = true;
        self.queue.push(now + rto, Ev::Rto(flow));
        self.cc.signal(flow, CcEvent::Timeout, now);
        self.after_flow_cc(flow, now);
        if self.senders[flow as usize].wake_at.is_none() {
            self.try_send(flow, now);
        }
    }
}
