//! Hot swap (`--swap T=OTHER.sn`): two controllers side by side with the dual-CC semantics of
//! docs/device.md §4.1. Without a swap there is one controller and this is a thin forwarder.
//!
//! From the start, the standby (OTHER's cc, its own interpreter machines, one per param group as
//! [`Controllers`] makes them) receives every signal the active one receives, in the same order
//! and at the same times: flow starts, acks, ECN echoes, CNPs, losses, timeouts, RTT samples,
//! bytes sent, and its own timers. Its output is computed (and written to `rates.csv`) but steers
//! nothing. At the swap time the simulator calls [`Dual::swap`] between two events (an event
//! boundary): from then on the senders pace at the standby's output. No state is copied
//! (docs/language.md §8.6): the new controller has the state it built from the signals it saw.
//!
//! Machine groups are numbered across both controllers: the first controller's groups first, then
//! the standby's, so the simulator keeps one timer slot per group whichever controller it belongs
//! to.
//!
//! Invariants: both controllers have the same output kind (checked by [`Dual::new`]); `active` is
//! 0 before the swap and 1 after it.

use crate::control::Controllers;
use crate::scenario::{Scenario, ScenarioError};
use scenic_interp::cc::CcEvent;
use scenic_ir::Module;

/// What to swap to, and when.
pub struct Swap<'m> {
    /// Simulated time of the switch (ps).
    pub at: u64,
    /// The program whose cc takes over.
    pub module: &'m Module,
    /// Its name, for messages.
    pub name: String,
}

/// The running controller and, with a swap, the standby.
pub struct Dual<'m> {
    sets: Vec<Controllers<'m>>,
    active: usize,
    /// When the swap is due (ps), if one is.
    pub swap_at: Option<u64>,
}

impl<'m> Dual<'m> {
    /// The scenario's controller, and the standby of `swap`; refuses a standby of another output
    /// kind or whose cc the scenario does not fit (its params, `requires`, its signals).
    pub fn new(
        module: &'m Module,
        scenario: &Scenario,
        swap: Option<&Swap<'m>>,
    ) -> Result<Dual<'m>, ScenarioError> {
        let first = Controllers::new(module, scenario)?;
        let mut sets = vec![first];
        if let Some(swap) = swap {
            let standby = Controllers::standby(swap.module, scenario).map_err(|mut e| {
                e.message = format!("--swap {}: {}", swap.name, e.message);
                e
            })?;
            if standby.rate_output != sets[0].rate_output {
                let kind = |c: &Controllers| if c.rate_output { "a rate" } else { "a window" };
                return Err(ScenarioError {
                    file: swap.name.clone(),
                    line: 1,
                    column: 1,
                    message: format!(
                        "cannot swap cc `{}`, which outputs {}, for cc `{}`, which outputs {}: \
                         the pacer follows one kind of output",
                        sets[0].name(),
                        kind(&sets[0]),
                        standby.name(),
                        kind(&standby)
                    ),
                });
            }
            sets.push(standby);
        }
        Ok(Dual {
            sets,
            active: 0,
            swap_at: swap.map(|s| s.at),
        })
    }

    /// Whether outputs are rates (else windows).
    pub fn rate_output(&self) -> bool {
        self.sets[0].rate_output
    }

    /// Whether either controller has `on int`: then the fabric stamps telemetry, and both hear it
    /// (a standby receives every signal, docs/device.md §4.1).
    pub fn hears_int(&self) -> bool {
        self.sets.iter().any(|c| c.handlers.int)
    }

    /// The program's controller (the one running before any swap).
    pub fn first(&self) -> &Controllers<'m> {
        &self.sets[0]
    }

    /// The running controller.
    pub fn active(&self) -> &Controllers<'m> {
        &self.sets[self.active]
    }

    /// Which controller runs: 0 the program's, 1 the swap program's.
    pub fn active_index(&self) -> usize {
        self.active
    }

    /// The standby, if there is a swap: before it, the swap program's cc; after it, the program's.
    pub fn standby(&self) -> Option<&Controllers<'m>> {
        self.sets
            .get(1 - self.active.min(1))
            .filter(|_| self.sets.len() == 2)
    }

    /// The swap program's controller, if any.
    pub fn incoming(&self) -> Option<&Controllers<'m>> {
        self.sets.get(1)
    }

    /// The standby takes over.
    pub fn swap(&mut self) {
        if self.sets.len() == 2 {
            self.active = 1;
        }
    }

    /// Machine groups of both controllers.
    pub fn groups(&self) -> usize {
        self.sets.iter().map(Controllers::groups).sum()
    }

    /// The controller owning group `g` and the group's index in it.
    fn locate(&self, g: usize) -> (usize, usize) {
        let first = self.sets[0].groups();
        if g < first || self.sets.len() == 1 {
            (0, g)
        } else {
            (1, g - first)
        }
    }

    /// Whether group `g` belongs to the running controller (its outputs pace the senders).
    pub fn is_active_group(&self, g: usize) -> bool {
        self.locate(g).0 == self.active
    }

    /// `flow`'s group in the first controller, and in the standby's numbering if there is one.
    pub fn groups_of(&self, flow: u32) -> (usize, Option<usize>) {
        let first = self.sets[0].groups();
        let second = self.sets.get(1).map(|c| first + c.group_of(flow));
        (self.sets[0].group_of(flow), second)
    }

    /// The flows of group `g`.
    pub fn flows_of(&self, g: usize) -> &[u32] {
        let (c, g) = self.locate(g);
        self.sets[c].flows_of(g)
    }

    /// Starts `flow` in both controllers.
    pub fn start(&mut self, flow: u32, now: u64) {
        self.sets.iter_mut().for_each(|c| c.start(flow, now));
    }

    /// `flow` sent `bytes`: both controllers count them.
    pub fn sent(&mut self, flow: u32, bytes: u64, now: u64) {
        self.sets.iter_mut().for_each(|c| c.sent(flow, bytes, now));
    }

    /// A signal for `flow`: both controllers hear it, the first one first.
    pub fn signal(&mut self, flow: u32, event: CcEvent, now: u64) {
        self.sets
            .iter_mut()
            .for_each(|c| c.signal(flow, event, now));
    }

    /// The earliest timer of group `g` (ps).
    pub fn timer_due(&mut self, g: usize) -> Option<u64> {
        let (c, g) = self.locate(g);
        self.sets[c].timer_due(g)
    }

    /// The flows of group `g` whose output may have changed since the last call.
    pub fn take_changed(&mut self, g: usize) -> crate::control::Changed {
        let (c, g) = self.locate(g);
        self.sets[c].take_changed(g)
    }

    /// Runs the timers of group `g` due by `now`.
    pub fn fire_timers(&mut self, g: usize, now: u64) {
        let (c, g) = self.locate(g);
        self.sets[c].fire_timers(g, now);
    }

    /// The running controller's output for `flow`.
    pub fn output(&self, flow: u32) -> Option<u64> {
        self.active().output(flow)
    }
}
