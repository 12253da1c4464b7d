//! Congestion controllers: flows, events, timers and byte counters, in virtual time.
//!
//! A flow's state is created (with the state initialisers) on its first event. Time timers fire at
//! `start + k·period` per flow until restarted (`restart` makes the next firing one period after the
//! restart); byte counters count the bytes the flow sends (`sent` events) and fire once per `period`
//! bytes, carrying the remainder. Timers due at or before an event's time run before its handler.

use super::context::{CcCx, Cx, Effects, Notification};
use super::runtime::{CcFlow, Machine};
use super::value::{width_of, Value};
use cranelift_entity::EntityRef;
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{Cc, Event, IntHop};
use scenic_ir::types::Dimension;
use std::sync::Arc;

/// A congestion signal fed to a controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcEvent {
    /// An acknowledgement of `bytes`, with the ECN echo bit.
    Ack {
        /// Bytes acknowledged.
        bytes: u64,
        /// ECN echo.
        ecn: bool,
    },
    /// A congestion notification packet.
    Cnp,
    /// An ECN-marked packet.
    Ecn,
    /// A loss.
    Loss,
    /// A retransmission timeout.
    Timeout,
    /// An RTT sample in ns.
    Rtt(u64),
    /// One hop of INT telemetry carried by an ACK (fed hop by hop, before the ACK's `Ack`).
    Int(IntHop),
    /// The flow sent `bytes` (drives byte counters).
    Sent(u64),
}

impl<'m> Machine<'m> {
    /// Feeds `event` for `flow` of controller `cc` at `now_ns`; returns notifications raised.
    pub fn cc_event(
        &mut self,
        cc: CcId,
        flow: u64,
        event: CcEvent,
        now_ns: u64,
    ) -> Vec<Notification> {
        let mut raised = self.advance_time(now_ns);
        let module = self.module;
        let Some(def) = module.ccs.get(cc) else {
            return raised;
        };
        self.ensure_flow(cc, def, flow, now_ns);
        // What came due before the event is already in `self.notifications` (advance_time records
        // it); only what the event itself raised is added here.
        let own = match event {
            CcEvent::Sent(bytes) => self.count_bytes(cc, def, flow, bytes, now_ns),
            _ => {
                let (kind, param) = handler_input(event, module);
                match def.handlers.iter().position(|h| h.event == kind) {
                    Some(h) => self.run_handler(cc, def, flow, h, param, now_ns),
                    None => Vec::new(),
                }
            }
        };
        self.notifications.extend(own.iter().cloned());
        raised.extend(own);
        raised
    }

    /// The earliest time (ns) a time timer of `cc` is due, over all its flows.
    pub fn cc_next_timer_ns(&mut self, cc: CcId) -> Option<u64> {
        let def = self.module.ccs.get(cc)?;
        let rt = self.ccs.get_mut(cc.index())?;
        let timers = rt.flows.values().map(|f| f.timers.as_slice());
        rt.next_timer.earliest(def, timers)
    }

    /// The controller's output (rate in bit/s or window in bytes) for `flow`, if the flow exists.
    pub fn cc_output(&self, cc: CcId, flow: u64) -> Option<u64> {
        let def = self.module.ccs.get(cc)?;
        let state = self.ccs.get(cc.index())?.flows.get(&flow)?;
        Some(state.state.get(def.output.1.index())?.bits().to_u64())
    }

    /// A state variable of a flow, by name.
    pub fn cc_state(&self, cc: CcId, flow: u64, name: &str) -> Option<Bits> {
        let def = self.module.ccs.get(cc)?;
        let (id, _) = def.state.iter().find(|(_, s)| s.name == name)?;
        let state = self.ccs.get(cc.index())?.flows.get(&flow)?;
        Some(state.state.get(id.index())?.bits().clone())
    }

    /// Sets a parameter of a cc by names; whether both exist.
    pub fn set_cc_param(&mut self, cc: &str, param: &str, value: u64) -> bool {
        let Some(id) = self.cc_by_name(cc) else {
            return false;
        };
        let def = &self.module.ccs[id];
        let Some((pid, p)) = def.params.iter().find(|(_, p)| p.name == param) else {
            return false;
        };
        let width = width_of(&p.ty, self.module);
        self.ccs[id.index()].params[pid.index()] = Bits::from_u64(width, value);
        true
    }

    /// A parameter of a cc by names.
    pub fn cc_param(&self, cc: &str, param: &str) -> Option<u64> {
        let id = self.cc_by_name(cc)?;
        let (pid, _) = self.module.ccs[id]
            .params
            .iter()
            .find(|(_, p)| p.name == param)?;
        Some(self.ccs[id.index()].params.get(pid.index())?.to_u64())
    }

    fn ensure_flow(&mut self, cc: CcId, def: &Cc, flow: u64, now_ns: u64) {
        let module = self.module;
        let rt = &mut self.ccs[cc.index()];
        if rt.flows.contains_key(&flow) {
            return;
        }
        for t in def
            .timers
            .values()
            .filter(|t| t.period.0 != Dimension::Size)
        {
            rt.next_timer.moved(u64::MAX, now_ns + t.period.1.max(1));
        }
        rt.flows.entry(flow).or_insert_with(|| CcFlow {
            state: def
                .state
                .values()
                .map(|s| Value::from_record(&s.ty, &s.init, module))
                .collect(),
            timers: def
                .timers
                .values()
                .map(|t| match t.period.0 {
                    Dimension::Size => 0,
                    _ => now_ns + t.period.1.max(1),
                })
                .collect(),
        });
    }

    /// Fires every time timer of every flow due at or before `now_ns`.
    pub(crate) fn advance_cc_timers(&mut self, now_ns: u64) -> Vec<Notification> {
        let module = self.module;
        let mut raised = Vec::new();
        for (cc, def) in module.ccs.iter() {
            if !self.ccs[cc.index()].next_timer.may_fire_by(now_ns) {
                continue;
            }
            let flows: Vec<u64> = self.ccs[cc.index()].flows.keys().copied().collect();
            for flow in flows {
                raised.extend(self.fire_due_timers(cc, def, flow, now_ns));
            }
            let rt = &mut self.ccs[cc.index()];
            let timers = rt.flows.values().map(|f| f.timers.as_slice());
            rt.next_timer.recompute(def, timers);
        }
        raised
    }

    fn fire_due_timers(
        &mut self,
        cc: CcId,
        def: &'m Cc,
        flow: u64,
        now_ns: u64,
    ) -> Vec<Notification> {
        let mut raised = Vec::new();
        while let Some((at, timer, period)) = self.next_due(cc, def, flow, now_ns) {
            if let Some(state) = self.ccs[cc.index()].flows.get_mut(&flow) {
                state.timers[timer.index()] = at + period;
            }
            self.cc_timer_firings += 1;
            if let Some(h) = def
                .handlers
                .iter()
                .position(|h| h.event == Event::Timer(timer))
            {
                raised.extend(self.run_handler(cc, def, flow, h, None, at));
            }
        }
        raised
    }

    /// The earliest time timer of `flow` due at or before `now_ns`: (time, timer, period).
    fn next_due(&self, cc: CcId, def: &Cc, flow: u64, now_ns: u64) -> Option<(u64, TimerId, u64)> {
        let state = self.ccs[cc.index()].flows.get(&flow)?;
        def.timers
            .iter()
            .filter(|(_, t)| t.period.0 != Dimension::Size)
            .map(|(id, t)| (state.timers[id.index()], id, t.period.1.max(1)))
            .filter(|(at, _, _)| *at <= now_ns)
            .min_by_key(|(at, id, _)| (*at, *id))
    }

    fn count_bytes(
        &mut self,
        cc: CcId,
        def: &'m Cc,
        flow: u64,
        bytes: u64,
        now_ns: u64,
    ) -> Vec<Notification> {
        let mut raised = Vec::new();
        for (timer, t) in def
            .timers
            .iter()
            .filter(|(_, t)| t.period.0 == Dimension::Size)
        {
            let period = t.period.1.max(1);
            let mut fires = 0;
            if let Some(state) = self.ccs[cc.index()].flows.get_mut(&flow) {
                let acc = &mut state.timers[timer.index()];
                *acc += bytes;
                fires = *acc / period;
                *acc %= period;
            }
            if let Some(h) = def
                .handlers
                .iter()
                .position(|h| h.event == Event::Timer(timer))
            {
                for _ in 0..fires {
                    raised.extend(self.run_handler(cc, def, flow, h, None, now_ns));
                }
            }
        }
        raised
    }

    /// Runs handler `h` of `def` for `flow` with the event's data; the notifications it raised.
    fn run_handler(
        &mut self,
        cc: CcId,
        def: &'m Cc,
        flow: u64,
        h: usize,
        param: Option<Value>,
        now_ns: u64,
    ) -> Vec<Notification> {
        let module = self.module;
        let Some(code) = self.program.ccs.get(cc.index()).and_then(|c| c.get(h)) else {
            return Vec::new();
        };
        let Some(rt) = self.ccs.get_mut(cc.index()) else {
            return Vec::new();
        };
        let super::runtime::CcRuntime { params, flows, .. } = rt;
        let Some(state) = flows.get_mut(&flow) else {
            return Vec::new();
        };
        let mut effects = Effects::default();
        let mut cx = Cx::new(
            module,
            &self.program,
            &mut self.frames,
            &mut effects,
            now_ns,
        );
        let name = self.program.cc_names.get(cc.index()).cloned();
        let name = name.unwrap_or_else(|| Arc::from(def.name.as_str()));
        cx.cc = Some(CcCx {
            name: &name,
            params,
            flow: state,
        });
        cx.flow_id = flow;
        let args: Vec<Value> = param.into_iter().collect();
        code.run_top(&mut cx, &args);
        let restarts = std::mem::take(&mut cx.effects.restarts);
        let notes = std::mem::take(&mut cx.effects.notifications);
        drop(cx);
        let rt = &mut self.ccs[cc.index()];
        if let Some(state) = rt.flows.get_mut(&flow) {
            for timer in restarts {
                let t = &def.timers[timer];
                let slot = &mut state.timers[timer.index()];
                if t.period.0 == Dimension::Size {
                    *slot = 0;
                } else {
                    let new = now_ns + t.period.1.max(1);
                    rt.next_timer.moved(*slot, new);
                    *slot = new;
                }
            }
        }
        notes
    }
}

/// The handler event and its data parameter for a signal.
fn handler_input(event: CcEvent, module: &scenic_ir::program::Module) -> (Event, Option<Value>) {
    let _ = module;
    match event {
        CcEvent::Ack { bytes, ecn } => (
            Event::Ack,
            Some(Value::Struct(vec![
                Value::Bits(Bits::from_u64(64, bytes)),
                Value::Bits(Bits::from_bool(ecn)),
            ])),
        ),
        CcEvent::Cnp => (Event::Cnp, None),
        CcEvent::Ecn => (Event::Ecn, None),
        CcEvent::Loss => (Event::Loss, None),
        CcEvent::Timeout => (Event::Timeout, None),
        CcEvent::Rtt(ns) => (Event::Rtt, Some(Value::Bits(Bits::from_u64(64, ns)))),
        CcEvent::Int(hop) => (
            Event::Int,
            Some(Value::Struct(
                IntHop::FIELDS
                    .iter()
                    .zip(hop.values())
                    .map(|((_, width), v)| Value::Bits(Bits::from_u64(*width, v)))
                    .collect(),
            )),
        ),
        CcEvent::Sent(_) => (Event::Cnp, None),
    }
}
