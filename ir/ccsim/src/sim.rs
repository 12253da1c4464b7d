//! The event loop: pops events in (time, sequence) order and dispatches them to the fabric
//! ([`crate::fabric`]), the hosts ([`crate::host`]) and the controllers ([`crate::control`]).
//!
//! Invariants:
//! - Time only moves forward; the run stops after the last event at or before `duration`.
//! - After every call into a controller machine, the outputs of that machine's flows are re-read
//!   (`Simulation::apply_outputs`) and its next timer is scheduled (`Simulation::schedule_timer`),
//!   so a sender always paces at the rate (or within the window) the controller holds now.
//! - Nothing here reads a clock or an unseeded random source: one scenario and seed give one run.

pub mod host;
pub mod stats;

use crate::control::Changed;
use crate::dual::Dual;
use crate::event::{Ev, Queue};
use crate::fabric::{Enqueued, Fabric};
use crate::scenario::Scenario;
use crate::sim::host::{Receiver, Sender};
use crate::sim::stats::Stats;

/// How many events run between two progress reports (a few milliseconds of wall time in a
/// release build), so a progress display costs nothing per event.
pub const PROGRESS_EVERY: u64 = 1 << 14;

/// A run in progress.
pub struct Simulation<'a> {
    pub(crate) scenario: &'a Scenario,
    pub(crate) cc: Dual<'a>,
    pub(crate) fabric: Fabric,
    pub(crate) queue: Queue,
    pub(crate) senders: Vec<Sender>,
    pub(crate) receivers: Vec<Receiver>,
    pub(crate) stats: Stats,
    /// INT stacks of the packets in flight (only for a cc with `on int`).
    pub(crate) int: crate::int::Telemetry,
    /// For each controller machine: the time its next timer event is scheduled for.
    timer_at: Vec<Option<u64>>,
    /// The random seed.
    pub(crate) seed: u64,
}

impl<'a> Simulation<'a> {
    /// A simulation of `scenario` with controllers `cc` and random seed `seed`.
    pub fn new(scenario: &'a Scenario, cc: Dual<'a>, seed: u64) -> Simulation<'a> {
        let fabric = Fabric::new(scenario, seed);
        let n = scenario.flows.len();
        let mut queue = Queue::default();
        if let Some(at) = cc.swap_at {
            // Pushed first: at its time, the swap comes before every other event.
            queue.push(at, Ev::Swap);
        }
        for (i, flow) in scenario.flows.iter().enumerate() {
            queue.push(flow.start, Ev::FlowStart(i as u32));
            if let Some(stop) = flow.stop {
                queue.push(stop, Ev::FlowStop(i as u32));
            }
        }
        queue.push(0, Ev::Sample);
        queue.push(scenario.measure_from, Ev::MeasureStart);
        let timer_at = vec![None; cc.groups()];
        Simulation {
            senders: scenario.flows.iter().map(Sender::new).collect(),
            receivers: (0..n).map(|_| Receiver::default()).collect(),
            stats: Stats::new(scenario, &fabric, &cc),
            int: crate::int::Telemetry::new(cc.hears_int(), n),
            scenario,
            cc,
            fabric,
            queue,
            timer_at,
            seed,
        }
    }

    /// Runs to the end of the scenario.
    pub fn run(&mut self) {
        self.run_with_progress(&mut |_| {});
    }

    /// Runs to the end of the scenario, telling `progress` the fraction of the simulated time
    /// done every [`PROGRESS_EVERY`] events.
    pub fn run_with_progress(&mut self, progress: &mut dyn FnMut(f64)) {
        let duration = self.scenario.duration;
        while let Some((now, ev)) = self.queue.pop_until(duration) {
            self.handle(now, ev);
            if self.queue.popped() % PROGRESS_EVERY == 0 {
                progress(now as f64 / duration as f64);
            }
        }
        let end = self.scenario.duration;
        for b in 0..self.fabric.bottlenecks {
            let queued = self.fabric.ports[b].queued;
            self.stats.queue_change_from(b, end, queued);
        }
    }

    /// Events processed.
    pub fn events(&self) -> u64 {
        self.queue.popped()
    }

    fn handle(&mut self, now: u64, ev: Ev) {
        match ev {
            Ev::FlowStart(f) => self.start_flow(f, now),
            Ev::SenderWake { flow, gen } => {
                if let Some(s) = self.senders.get_mut(flow as usize) {
                    if s.gen == gen {
                        s.wake_at = None;
                        self.try_send(flow, now);
                    }
                }
            }
            Ev::Arrive(pkt) => self.arrive(pkt, now),
            Ev::TxDone(p) => self.tx_done(p as usize, now),
            Ev::Feedback { flow, fb } => self.feedback(flow, fb, now),
            Ev::CcTimer(g) => {
                let g = g as usize;
                if self.timer_at.get(g).copied().flatten() == Some(now) {
                    self.timer_at[g] = None;
                    self.cc.fire_timers(g, now);
                    self.after_cc(g, now);
                }
            }
            Ev::Rto(f) => self.rto(f, now),
            Ev::Sample => {
                self.sample(now);
                let next = now + self.scenario.sample_every;
                if next <= self.scenario.duration {
                    self.queue.push(next, Ev::Sample);
                }
            }
            Ev::MeasureStart => self.stats.measure_start(now, &self.fabric, &self.receivers),
            Ev::FlowStop(f) => {
                if let Some(s) = self.senders.get_mut(f as usize) {
                    s.stopped = true;
                    self.stats.active_changed(now);
                }
            }
            Ev::Swap => {
                self.cc.swap();
                self.stats.swapped_at = Some(now);
                for f in 0..self.senders.len() as u32 {
                    self.apply_outputs(f, now);
                }
            }
        }
    }

    fn start_flow(&mut self, f: u32, now: u64) {
        self.cc.start(f, now);
        if let Some(s) = self.senders.get_mut(f as usize) {
            s.started = true;
            s.last_progress = now;
        }
        self.stats.active_changed(now);
        self.after_flow_cc(f, now);
        self.try_send(f, now);
    }

    /// After a call into `flow`'s machines: [`Self::after_cc`] for its group in each controller.
    pub(crate) fn after_flow_cc(&mut self, flow: u32, now: u64) {
        let (first, standby) = self.cc.groups_of(flow);
        self.after_cc(first, now);
        if let Some(g) = standby {
            self.after_cc(g, now);
        }
    }

    /// Re-reads the outputs of machine `g`'s flows that may have changed (if `g` paces them) and
    /// schedules its next timer.
    pub(crate) fn after_cc(&mut self, g: usize, now: u64) {
        let changed = self.cc.take_changed(g);
        if self.cc.is_active_group(g) {
            let flows = match changed {
                Changed::All => self.cc.flows_of(g).to_vec(),
                Changed::Flows(flows) => flows,
            };
            for f in flows {
                self.apply_outputs(f, now);
            }
        }
        self.schedule_timer(g);
    }

    /// Takes `flow`'s current controller output; a changed pace or a larger window reschedules it.
    fn apply_outputs(&mut self, flow: u32, now: u64) {
        let Some(out) = self.cc.output(flow) else {
            return;
        };
        let Some(s) = self.senders.get_mut(flow as usize) else {
            return;
        };
        if s.output == Some(out) {
            return;
        }
        s.output = Some(out);
        if s.started && s.wake_at.is_some_and(|at| at > now) {
            // The pending wake was computed from the old pace: drop it and recompute.
            s.gen = s.gen.wrapping_add(1);
            s.wake_at = None;
        }
        if s.started && s.wake_at.is_none() {
            self.try_send(flow, now);
        }
    }

    fn schedule_timer(&mut self, g: usize) {
        let due = self.cc.timer_due(g);
        if let Some(slot) = self.timer_at.get_mut(g) {
            if *slot != due {
                *slot = due;
                if let Some(at) = due {
                    self.queue.push(at, Ev::CcTimer(g as u32));
                }
            }
        }
    }

    fn arrive(&mut self, pkt: crate::event::Packet, now: u64) {
        let route = &self.fabric.routes[pkt.flow as usize];
        let Some(&port) = route.get(pkt.hop as usize) else {
            self.deliver(pkt, now);
            return;
        };
        let port = port as usize;
        let before = self.fabric.ports[port].queued;
        match self.fabric.enqueue(port, pkt) {
            Enqueued::Start => {
                if let Some(ser) = self.fabric.head_ser(port) {
                    self.queue.push(now + ser, Ev::TxDone(port as u32));
                }
            }
            Enqueued::Waiting | Enqueued::Dropped => {}
        }
        if port < self.fabric.bottlenecks {
            self.stats.queue_change_from(port, now, before);
        }
    }

    fn tx_done(&mut self, port: usize, now: u64) {
        let before = self.fabric.ports[port].queued;
        let Some((mut pkt, more)) = self.fabric.dequeue(port) else {
            return;
        };
        if port < self.fabric.bottlenecks {
            self.stats.queue_change_from(port, now, before);
            self.stats.bottleneck_tx(port, now, u64::from(pkt.wire));
        }
        let hops = self.fabric.routes[pkt.flow as usize].len();
        self.int.stamp(&pkt, &self.fabric.ports[port], hops, now);
        pkt.hop += 1;
        self.queue
            .push(now + self.fabric.ports[port].delay, Ev::Arrive(pkt));
        if more {
            if let Some(ser) = self.fabric.head_ser(port) {
                self.queue.push(now + ser, Ev::TxDone(port as u32));
            }
        }
    }
}
