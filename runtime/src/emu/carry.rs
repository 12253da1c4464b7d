//! The device's half of a hot swap with `CARRY` (`ACTIVATE` argument bit 0): at the switch, under
//! the slot's lock, the old unit's state is copied into the new one for every object the
//! [`CarryPlan`] carries. Nothing runs between the copy and the switch, so the new unit starts
//! with exactly the state the old one had after its last input: counters and maps the program
//! wrote are equal before and after, not a snapshot that inputs overtook.
//!
//! Tables keep the new unit's constant entries and take the old unit's run-time entries (handles
//! kept, and the control path's per-table handle words, so a handle the host holds still names its
//! entry) and default action.

use cranelift_entity::EntityRef;
use scenic_interp::Machine;
use scenic_ir::entities::ScuId;

use super::unit::Unit;
use crate::carry::CarryPlan;

/// Copies `old`'s state into `new` as the plan between their layouts says; the plan.
pub fn carry(old: &mut Unit, new: &mut Unit) -> CarryPlan {
    let plan = CarryPlan::between(old.control(), new.control());
    let targets = Targets::of(&plan, old, new);
    old.with_machine(|old_scu, old_m| {
        new.with_machine(|new_scu, new_m| copy(&targets, (old_scu, old_m), (new_scu, new_m)))
    });
    plan
}

/// The plan's pairs as arena indices (the control layout's targets and offsets).
#[derive(Debug, Default)]
struct Targets {
    csrs: Vec<(usize, usize)>,
    tables: Vec<(usize, usize)>,
    maps: Vec<(usize, usize)>,
    counters: Vec<(usize, usize)>,
    meters: Vec<(usize, usize)>,
}

impl Targets {
    fn of(plan: &CarryPlan, old: &Unit, new: &Unit) -> Targets {
        let (o, n) = (old.control(), new.control());
        let map = |kind: &str, f: &dyn Fn(bool, usize) -> usize| -> Vec<(usize, usize)> {
            plan.pairs(kind)
                .into_iter()
                .map(|(a, b)| (f(true, a), f(false, b)))
                .collect()
        };
        Targets {
            csrs: map("csr", &|old_side, i| {
                let c = if old_side { &o.csrs } else { &n.csrs };
                c[i].offset as usize
            }),
            tables: map("table", &|old_side, i| {
                let t = if old_side { &o.tables } else { &n.tables };
                usize::from(t[i].target)
            }),
            maps: map("map", &|old_side, i| {
                let m = if old_side { &o.maps } else { &n.maps };
                usize::from(m[i].target)
            }),
            counters: map("counter", &|old_side, i| {
                let c = if old_side { &o.counters } else { &n.counters };
                usize::from(c[i].target)
            }),
            meters: map("meter", &|old_side, i| {
                let m = if old_side { &o.meters } else { &n.meters };
                usize::from(m[i].target)
            }),
        }
    }
}

fn copy(
    t: &Targets,
    (old_scu, old): (ScuId, &Machine<'_>),
    (new_scu, new): (ScuId, &mut Machine<'_>),
) {
    let (Some(from), Some(to)) = (
        old.scus.get(old_scu.index()),
        new.scus.get_mut(new_scu.index()),
    ) else {
        return;
    };
    for &(a, b) in &t.csrs {
        if let (Some(v), Some(slot)) = (from.csrs.get(a), to.csrs.get_mut(b)) {
            *slot = v.clone();
        }
    }
    for &(a, b) in &t.tables {
        let (Some(src), Some(dst)) = (from.tables.get(a), to.tables.get_mut(b)) else {
            continue;
        };
        dst.clear_runtime();
        for i in 0..src.len() {
            if let Some(e) = src.entry(i).filter(|e| !e.constant) {
                // Same layout and size: the entry fits where it fitted.
                let _ = dst.insert(e.clone());
            }
        }
        dst.default = src.default.clone();
        dst.control_words = src.control_words.clone();
    }
    for &(a, b) in &t.maps {
        if let (Some(src), Some(dst)) = (from.maps.get(a), to.maps.get_mut(b)) {
            *dst = src.clone();
        }
    }
    for &(a, b) in &t.counters {
        if let (Some(src), Some(dst)) = (from.counters.get(a), to.counters.get_mut(b)) {
            dst.clone_from(src);
        }
    }
    for &(a, b) in &t.meters {
        if let (Some(src), Some(dst)) = (from.meters.get(a), to.meters.get_mut(b)) {
            dst.clone_from(src);
        }
    }
}
