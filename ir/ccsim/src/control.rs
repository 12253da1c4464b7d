//! The controllers: each flow's cc state lives in a reference-interpreter [`Machine`], fed the
//! flow's signals exactly as `scenicc test` feeds STF events (`Machine::cc_event`, time in ns).
//!
//! A cc's `param`s are one value for all of its flows (docs/language.md §8.2), so flows whose
//! scenario `params` differ run on separate machines (as if on separate NICs); flows with the same
//! params share one. Within a machine a flow's state is the cc's per-flow state, keyed by the flow's
//! index.
//!
//! Invariants:
//! - A flow is created in its machine when it starts (a `sent 0` event: it creates the state,
//!   starts the timers, counts nothing).
//! - Bytes sent are batched: a flow's unreported bytes are handed over (as one `Sent`) before any
//!   other call into its machine, and as soon as they would make a byte counter fire. The batch is
//!   reported at the time of its last packet, so byte counters fire when they would have with one
//!   event per packet, and a `restart` in between sees the same counts.
//! - A signal for which the cc has no handler is not delivered (the interpreter would only advance
//!   time, which the timer events do anyway).
//! - [`Controllers::timer_due`] is the earliest time-timer firing of a machine; the simulator calls
//!   [`Controllers::fire_timers`] then, so rates change at the instant a timer says.
//! - A machine remembers which flows may have a new output since the simulator last asked
//!   ([`Controllers::take_changed`]): the flows it was called for, or all of them once a timer
//!   handler ran (it may change any flow). So an event costs the flows it touches, not all of the
//!   machine's flows; only timer instants look at every flow.

use crate::scenario::{Scenario, ScenarioError};
use cranelift_entity::EntityRef;
use scenic_interp::cc::CcEvent;
use scenic_interp::Machine;
use scenic_ir::entities::CcId;
use scenic_ir::program::{Cc, Event, Module, OutputKind};
use scenic_ir::types::{Dimension, Type};

/// Which handlers a cc has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Handlers {
    /// `on ack`.
    pub ack: bool,
    /// `on cnp`.
    pub cnp: bool,
    /// `on ecn`.
    pub ecn: bool,
    /// `on loss`.
    pub loss: bool,
    /// `on timeout`.
    pub timeout: bool,
    /// `on rtt`.
    pub rtt: bool,
    /// `on int`: the simulator stamps and delivers INT only then.
    pub int: bool,
    /// At least one `on timer`.
    pub timer: bool,
    /// At least one `on bytes`.
    pub bytes: bool,
}

impl Handlers {
    fn of(def: &Cc) -> Handlers {
        let mut h = Handlers::default();
        for handler in &def.handlers {
            match handler.event {
                Event::Ack => h.ack = true,
                Event::Cnp => h.cnp = true,
                Event::Ecn => h.ecn = true,
                Event::Loss => h.loss = true,
                Event::Timeout => h.timeout = true,
                Event::Rtt => h.rtt = true,
                Event::Int => h.int = true,
                Event::Timer(t) => match def.timers[t].period.0 {
                    Dimension::Size => h.bytes = true,
                    Dimension::Duration | Dimension::Rate => h.timer = true,
                },
            }
        }
        h
    }

    /// Whether the handler named as in the language (`ack`, `timer`, ...) is there.
    pub fn has(&self, name: &str) -> Option<bool> {
        Some(match name {
            "ack" => self.ack,
            "cnp" => self.cnp,
            "ecn" => self.ecn,
            "loss" => self.loss,
            "timeout" => self.timeout,
            "rtt" => self.rtt,
            "int" => self.int,
            "timer" => self.timer,
            "bytes" => self.bytes,
            _ => return None,
        })
    }
}

struct FlowCc {
    group: usize,
    /// Bytes sent and not yet reported, and when the last of them was sent (ps).
    pending: u64,
    pending_ps: u64,
    /// Bytes until the nearest byte counter fires (u64::MAX: none).
    to_fire: u64,
}

struct Group<'m> {
    machine: Machine<'m>,
    flows: Vec<u32>,
    /// The flows with bytes not yet reported.
    pending: Vec<u32>,
    /// The flows whose output may have changed since [`Controllers::take_changed`].
    changed: Changed,
}

/// Which flows of a machine may have a new output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Changed {
    /// Only these (a flow may appear twice).
    Flows(Vec<u32>),
    /// Any of them: timers ran, and a timer handler may change any flow.
    #[default]
    All,
}

/// Every flow's controller.
pub struct Controllers<'m> {
    cc: CcId,
    def: &'m Cc,
    /// Whether the output is a rate (else a window).
    pub rate_output: bool,
    /// Its handlers.
    pub handlers: Handlers,
    groups: Vec<Group<'m>>,
    flows: Vec<FlowCc>,
}

impl<'m> Controllers<'m> {
    /// Finds the scenario's cc in `module`, checks the scenario against it and makes the machines.
    pub fn new(module: &'m Module, scenario: &Scenario) -> Result<Controllers<'m>, ScenarioError> {
        let src = &scenario.source;
        let (cc, def) = match &scenario.cc {
            Some(name) => module
                .ccs
                .iter()
                .find(|(_, c)| c.name == *name.get_ref())
                .ok_or_else(|| {
                    src.error(
                        Some(name.span()),
                        format!("the program has no cc named `{}`", name.get_ref()),
                    )
                })?,
            None => only_cc(module, scenario)?,
        };
        Controllers::for_cc(module, scenario, cc, def)
    }

    /// The standby of a hot swap ([`crate::dual`]): `module`'s only cc, or, when it has several,
    /// the one the scenario's `cc` names; checked against the scenario like the active one.
    pub fn standby(
        module: &'m Module,
        scenario: &Scenario,
    ) -> Result<Controllers<'m>, ScenarioError> {
        let named = scenario
            .cc
            .as_ref()
            .and_then(|name| module.ccs.iter().find(|(_, c)| c.name == *name.get_ref()));
        let (cc, def) = match (module.ccs.len(), named) {
            (2.., Some(found)) => found,
            _ => only_cc(module, scenario)?,
        };
        Controllers::for_cc(module, scenario, cc, def)
    }

    fn for_cc(
        module: &'m Module,
        scenario: &Scenario,
        cc: CcId,
        def: &'m Cc,
    ) -> Result<Controllers<'m>, ScenarioError> {
        let handlers = Handlers::of(def);
        check_requires(scenario, &handlers)?;
        let mut controllers = Controllers {
            cc,
            def,
            rate_output: def.output.0 == OutputKind::Rate,
            handlers,
            groups: Vec::new(),
            flows: Vec::new(),
        };
        let mut keys: Vec<Vec<(String, u64)>> = Vec::new();
        for (i, flow) in scenario.flows.iter().enumerate() {
            let mut params = Vec::new();
            for (name, value) in &flow.params {
                params.push((
                    name.clone(),
                    param_value(module, def, name, value, scenario)?,
                ));
            }
            let group = match keys.iter().position(|k| *k == params) {
                Some(g) => g,
                None => {
                    let mut machine = Machine::new(module);
                    for (name, v) in &params {
                        machine.set_cc_param(&def.name, name, *v);
                    }
                    keys.push(params);
                    controllers.groups.push(Group {
                        machine,
                        flows: Vec::new(),
                        pending: Vec::new(),
                        changed: Changed::All,
                    });
                    keys.len() - 1
                }
            };
            controllers.groups[group].flows.push(i as u32);
            controllers.flows.push(FlowCc {
                group,
                pending: 0,
                pending_ps: 0,
                to_fire: u64::MAX,
            });
        }
        Ok(controllers)
    }

    /// The cc's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// The number of machines.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The machine group of `flow`.
    pub fn group_of(&self, flow: u32) -> usize {
        self.flows.get(flow as usize).map_or(0, |f| f.group)
    }

    /// The flows of machine group `g`.
    pub fn flows_of(&self, g: usize) -> &[u32] {
        self.groups.get(g).map_or(&[], |g| &g.flows)
    }

    /// Starts `flow` at `now` ps: its state is created and its timers start.
    pub fn start(&mut self, flow: u32, now: u64) {
        self.flush_group(f_group(&self.flows, flow));
        self.call(flow, CcEvent::Sent(0), now);
    }

    /// `flow` sent `bytes` at `now` ps.
    pub fn sent(&mut self, flow: u32, bytes: u64, now: u64) {
        if !self.handlers.bytes {
            return;
        }
        let Some(f) = self.flows.get_mut(flow as usize) else {
            return;
        };
        if f.pending == 0 {
            if let Some(group) = self.groups.get_mut(f.group) {
                group.pending.push(flow);
            }
        }
        f.pending += bytes;
        f.pending_ps = now;
        if f.pending >= f.to_fire {
            let g = f.group;
            self.flush_group(g);
        }
    }

    /// Delivers a signal to `flow` at `now` ps (if the cc handles it).
    pub fn signal(&mut self, flow: u32, event: CcEvent, now: u64) {
        let handled = match event {
            CcEvent::Ack { .. } => self.handlers.ack,
            CcEvent::Cnp => self.handlers.cnp,
            CcEvent::Ecn => self.handlers.ecn,
            CcEvent::Loss => self.handlers.loss,
            CcEvent::Timeout => self.handlers.timeout,
            CcEvent::Rtt(_) => self.handlers.rtt,
            CcEvent::Int(_) => self.handlers.int,
            CcEvent::Sent(_) => self.handlers.bytes,
        };
        if handled {
            self.flush_group(f_group(&self.flows, flow));
            self.call(flow, event, now);
        }
    }

    /// The flows of group `g` whose output may have changed since the last call; forgets them.
    pub fn take_changed(&mut self, g: usize) -> Changed {
        self.groups
            .get_mut(g)
            .map_or(Changed::Flows(Vec::new()), |group| {
                std::mem::replace(&mut group.changed, Changed::Flows(Vec::new()))
            })
    }

    /// The earliest time (ps) a time timer of group `g` is due.
    pub fn timer_due(&mut self, g: usize) -> Option<u64> {
        let group = self.groups.get_mut(g)?;
        let due = group.machine.cc_next_timer_ns(self.cc)?;
        Some(due.saturating_mul(1000))
    }

    /// Runs every timer of group `g` due at or before `now` ps.
    pub fn fire_timers(&mut self, g: usize, now: u64) {
        self.flush_group(g);
        let Some(group) = self.groups.get_mut(g) else {
            return;
        };
        let before = group.machine.cc_timer_firings;
        group.machine.advance_time(now / 1000);
        if group.machine.cc_timer_firings != before {
            self.all_changed(g);
        }
    }

    /// A timer handler ran in group `g`: any of its flows may have a new output or restarted
    /// byte counter.
    fn all_changed(&mut self, g: usize) {
        let flows = match self.groups.get_mut(g) {
            Some(group) => {
                group.changed = Changed::All;
                group.flows.clone()
            }
            None => return,
        };
        if self.handlers.bytes {
            for flow in flows {
                self.refresh_to_fire(flow);
            }
        }
    }

    /// The output of `flow`: its rate (bit/s) or window (bytes).
    pub fn output(&self, flow: u32) -> Option<u64> {
        let g = self.flows.get(flow as usize)?.group;
        self.groups
            .get(g)?
            .machine
            .cc_output(self.cc, u64::from(flow))
    }

    /// Feeds `event` to `flow`'s machine, then notes what may have changed: the flow, or every
    /// flow of the machine when timers ran on the way.
    fn call(&mut self, flow: u32, event: CcEvent, now: u64) {
        let g = f_group(&self.flows, flow);
        let Some(group) = self.groups.get_mut(g) else {
            return;
        };
        let before = group.machine.cc_timer_firings;
        group
            .machine
            .cc_event(self.cc, u64::from(flow), event, now / 1000);
        if group.machine.cc_timer_firings != before {
            self.all_changed(g);
        } else {
            if let Changed::Flows(flows) = &mut group.changed {
                flows.push(flow);
            }
            if self.handlers.bytes {
                self.refresh_to_fire(flow);
            }
        }
    }

    /// Reports every flow's pending bytes of group `g`, earliest last packet first.
    fn flush_group(&mut self, g: usize) {
        let Some(group) = self.groups.get_mut(g) else {
            return;
        };
        let waiting = std::mem::take(&mut group.pending);
        let mut pending: Vec<(u64, u32, u64)> = waiting
            .iter()
            .filter_map(|&f| {
                let s = self.flows.get(f as usize)?;
                (s.pending > 0).then_some((s.pending_ps, f, s.pending))
            })
            .collect();
        pending.sort_unstable();
        for (at, flow, bytes) in pending {
            if let Some(s) = self.flows.get_mut(flow as usize) {
                s.pending = 0;
            }
            self.call(flow, CcEvent::Sent(bytes), at);
        }
    }

    fn refresh_to_fire(&mut self, flow: u32) {
        let g = f_group(&self.flows, flow);
        let mut to_fire = u64::MAX;
        if let Some(rt) = self
            .groups
            .get(g)
            .and_then(|group| group.machine.ccs.get(self.cc.index()))
            .and_then(|rt| rt.flows.get(&u64::from(flow)))
        {
            for (id, t) in self.def.timers.iter() {
                if t.period.0 == Dimension::Size {
                    let count = rt.timers.get(id.index()).copied().unwrap_or(0);
                    to_fire = to_fire.min(t.period.1.max(1).saturating_sub(count));
                }
            }
        }
        if let Some(f) = self.flows.get_mut(flow as usize) {
            f.to_fire = to_fire;
        }
    }
}

/// The program's only cc.
fn only_cc<'m>(module: &'m Module, scenario: &Scenario) -> Result<(CcId, &'m Cc), ScenarioError> {
    let src = &scenario.source;
    let mut all = module.ccs.iter();
    match (all.next(), all.next()) {
        (Some(one), None) => Ok(one),
        (None, _) => Err(src.error(None, "the program defines no congestion controller")),
        (Some(_), Some(_)) => Err(src.error(
            None,
            "the program defines several ccs: say which with `cc = \"NAME\"`",
        )),
    }
}

fn f_group(flows: &[FlowCc], flow: u32) -> usize {
    flows.get(flow as usize).map_or(0, |f| f.group)
}

/// Every name in `requires` is a handler kind the controller has.
fn check_requires(scenario: &Scenario, handlers: &Handlers) -> Result<(), ScenarioError> {
    for req in &scenario.requires {
        match handlers.has(req.get_ref()) {
            Some(true) => {}
            Some(false) => {
                return Err(scenario.source.error(
                    Some(req.span()),
                    format!(
                        "the scenario requires `on {}` but the controller has no such handler",
                        req.get_ref()
                    ),
                ))
            }
            None => {
                return Err(scenario.source.error(
                    Some(req.span()),
                    format!(
                    "unknown signal `{}` (ack, cnp, ecn, loss, timeout, rtt, int, timer, bytes)",
                    req.get_ref()
                ),
                ))
            }
        }
    }
    let reacts = handlers.ack
        || handlers.ecn
        || handlers.loss
        || handlers.timeout
        || handlers.rtt
        || (handlers.cnp && scenario.host.cnp);
    if !reacts {
        return Err(scenario.source.error(
            None,
            "the controller handles none of the congestion signals this scenario produces \
             (ack, ecn, loss, timeout, rtt, and cnp unless `[host] cnp = false`)",
        ));
    }
    Ok(())
}

/// The raw value of scenario param `name` for the interpreter (`Machine::set_cc_param`).
fn param_value(
    module: &Module,
    def: &Cc,
    name: &str,
    value: &toml::Spanned<toml::Value>,
    scenario: &Scenario,
) -> Result<u64, ScenarioError> {
    let err = |msg: String| scenario.source.error(Some(value.span()), msg);
    let Some(param) = def.params.values().find(|p| p.name == name) else {
        let known: Vec<&str> = def.params.values().map(|p| p.name.as_str()).collect();
        return Err(err(format!(
            "cc `{}` has no param `{name}` (its params: {})",
            def.name,
            known.join(", ")
        )));
    };
    let _ = module;
    let kind = match param.ty {
        Type::Quantity(Dimension::Duration) => Some(crate::units::Kind::Duration),
        Type::Quantity(Dimension::Size) => Some(crate::units::Kind::Size),
        Type::Quantity(Dimension::Rate) => Some(crate::units::Kind::Rate),
        _ => None,
    };
    match (value.get_ref(), kind) {
        (toml::Value::String(s), Some(kind)) => {
            let v = crate::units::parse(kind, s).map_err(&err)?;
            // Durations are nanoseconds in the language, picoseconds in scenarios.
            Ok(match kind {
                crate::units::Kind::Duration => v / 1000,
                crate::units::Kind::Size | crate::units::Kind::Rate => v,
            })
        }
        (toml::Value::Integer(i), _) => {
            u64::try_from(*i).map_err(|_| err(format!("param `{name}` cannot be negative: {i}")))
        }
        (toml::Value::Boolean(b), _) => Ok(u64::from(*b)),
        _ => Err(err(format!(
            "param `{name}` takes {}",
            match kind {
                Some(_) => "a quantity with a unit (like \"40Mbps\") or a raw integer",
                None => "an integer (its raw bits)",
            }
        ))),
    }
}
