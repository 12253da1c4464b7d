//! The device's half of a CC switch with `CARRY` (`CC_CMD` `SWITCH` argument bit 0,
//! `docs/device.md` §4.1): under the CC units' lock, between two events, the active cc's per-flow
//! state is copied into the standby for every `state` variable and `timer` the
//! [`CarryPlan::between_ccs`] of their manifests carries. Params are not the device's to copy
//! (§4.2; the runtime writes them).
//!
//! After the copy the standby has exactly the active cc's flows: a flow it already had keeps its
//! own values where the plan carries nothing; a flow it lacked starts from the state initialisers
//! (time timers due one period after `now_ns`, byte counters at 0) before the carried values are
//! written; a flow only the standby had is dropped (the active cc's flows are the truth).
//! With identical layouts the standby is then indistinguishable from the active cc: events after
//! the switch give the outputs the old cc would have given.

use std::collections::BTreeMap;

use cranelift_entity::EntityRef;
use scenic_interp::runtime::CcFlow;
use scenic_interp::value::Value;
use scenic_ir::program::Cc;
use scenic_ir::types::Dimension;

use super::cc_unit::CcUnit;
use crate::carry::CarryPlan;

/// One flow's carried values, by name.
type Carried = (Vec<(String, Value)>, Vec<(String, u64)>);

/// Copies `old`'s per-flow state into `new` as the plan between their manifests says (module
/// doc); the plan.
pub fn carry(old: &mut CcUnit, new: &mut CcUnit, now_ns: u64) -> CarryPlan {
    let plan = CarryPlan::between_ccs(old.manifest(), new.manifest());
    let names = |kind: &str| -> Vec<String> {
        plan.carried()
            .filter(|i| i.kind == kind)
            .map(|i| i.name.clone())
            .collect()
    };
    let (states, timers) = (names("state"), names("timer"));
    let snapshot: BTreeMap<u64, Carried> = old.with_machine(|module, cc, m| {
        let (Some(def), Some(rt)) = (module.ccs.get(cc), m.ccs.get(cc.index())) else {
            return BTreeMap::new();
        };
        rt.flows
            .iter()
            .map(|(flow, f)| (*flow, take(def, f, &states, &timers)))
            .collect()
    });
    new.with_machine(|module, cc, m| {
        let (Some(def), Some(rt)) = (module.ccs.get(cc), m.ccs.get_mut(cc.index())) else {
            return;
        };
        let mut own = std::mem::take(&mut rt.flows);
        for (flow, (values, counts)) in snapshot {
            let mut f = own
                .remove(&flow)
                .unwrap_or_else(|| initial(def, module, now_ns));
            for (name, v) in values {
                if let Some(slot) = position(def.state.values().map(|s| &s.name), &name)
                    .and_then(|p| f.state.get_mut(p))
                {
                    *slot = v;
                }
            }
            for (name, t) in counts {
                if let Some(slot) = position(def.timers.values().map(|t| &t.name), &name)
                    .and_then(|p| f.timers.get_mut(p))
                {
                    *slot = t;
                }
            }
            rt.flows.insert(flow, f);
        }
        rt.timers_changed();
    });
    plan
}

fn position<'a>(mut names: impl Iterator<Item = &'a String>, name: &str) -> Option<usize> {
    names.position(|n| n == name)
}

/// The carried values of one flow of the old cc.
fn take(def: &Cc, f: &CcFlow, states: &[String], timers: &[String]) -> Carried {
    let values = states
        .iter()
        .filter_map(|n| {
            let p = position(def.state.values().map(|s| &s.name), n)?;
            Some((n.clone(), f.state.get(p)?.clone()))
        })
        .collect();
    let counts = timers
        .iter()
        .filter_map(|n| {
            let p = position(def.timers.values().map(|t| &t.name), n)?;
            Some((n.clone(), *f.timers.get(p)?))
        })
        .collect();
    (values, counts)
}

/// A new flow as the interpreter creates one at `now_ns`.
fn initial(def: &Cc, module: &scenic_ir::program::Module, now_ns: u64) -> CcFlow {
    CcFlow {
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
    }
}
