//! The earliest time-timer firing of a cc's flows, kept so that an event does not scan every flow.
//!
//! Every cc event first runs the timers due by its time (docs/interpreter.md), which is a scan of
//! all of the cc's flows. With thousands of flows (a simulated fabric, `scenic-ccsim`) that scan
//! dominated every event. [`NextTimer`] keeps a lower bound `lb` of every flow's next time-timer
//! firing: an event at `now < lb` has nothing to fire and skips the scan.
//!
//! Invariants:
//! - `lb` is at most the due time of every time timer of every flow of the cc (or `u64::MAX` when
//!   there is none). Every write of a due time inside the interpreter goes through
//!   [`NextTimer::moved`]; code outside it that writes a flow's `timers` directly (the runtime's
//!   state carry) calls `CcRuntime::timers_changed`, which makes the bound unknown.
//! - When `exact` is true, `lb` is the earliest due time itself.

use cranelift_entity::EntityRef;
use scenic_ir::program::Cc;
use scenic_ir::types::Dimension;

/// A lower bound (exact when `exact`) of a cc's next time-timer firing, in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextTimer {
    lb: u64,
    exact: bool,
}

impl Default for NextTimer {
    /// No flow yet: nothing is due.
    fn default() -> NextTimer {
        NextTimer {
            lb: u64::MAX,
            exact: true,
        }
    }
}

impl NextTimer {
    /// Nothing is known: the next event scans.
    pub fn unknown() -> NextTimer {
        NextTimer {
            lb: 0,
            exact: false,
        }
    }

    /// Whether an event at `now_ns` may find a timer due.
    pub fn may_fire_by(&self, now_ns: u64) -> bool {
        now_ns >= self.lb
    }

    /// A timer's due time moved from `old` (`u64::MAX`: a new timer) to `new`.
    pub fn moved(&mut self, old: u64, new: u64) {
        if new < self.lb {
            // Every other due time is at least the old bound, so `new` is the earliest now if the
            // bound was exact.
            self.lb = new;
        } else if old == self.lb && new != old {
            // The earliest timer moved later: the bound still holds but may be too low.
            self.exact = false;
        }
    }

    /// The earliest due time over the flows' timer slots (`CcFlow::timers`), exact.
    pub fn recompute<'a>(&mut self, def: &Cc, flows: impl Iterator<Item = &'a [u64]>) {
        let time_timers: Vec<usize> = def
            .timers
            .iter()
            .filter(|(_, t)| t.period.0 != Dimension::Size)
            .map(|(id, _)| id.index())
            .collect();
        let mut lb = u64::MAX;
        for timers in flows {
            for &i in &time_timers {
                if let Some(&at) = timers.get(i) {
                    lb = lb.min(at);
                }
            }
        }
        *self = NextTimer { lb, exact: true };
    }

    /// The earliest due time, recomputed first if the bound may be too low.
    pub fn earliest<'a>(
        &mut self,
        def: &Cc,
        flows: impl Iterator<Item = &'a [u64]>,
    ) -> Option<u64> {
        if !self.exact {
            self.recompute(def, flows);
        }
        (self.lb != u64::MAX).then_some(self.lb)
    }
}
