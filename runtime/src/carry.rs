//! Which state a hot swap carries from the old unit to the new one: the rule, decided from the two
//! units' control layouts alone (the manifests' `control.scus[u]`), so the host's report of a swap
//! and the device's copy at the switch agree by construction.
//!
//! An object is carried when the new unit has one of the same name and kind whose layout agrees:
//! - a CSR: same width, same `readonly` and param-ness;
//! - a table: same keys (name, match kind, width), same actions (name, parameter layout), same
//!   strategy and size; its run-time entries (handles kept) and its default action are carried,
//!   the new unit's constant entries are its own;
//! - a map: same kind, size, key bits and value layout;
//! - a counter: same kind and size; a meter: same size (its buckets, rates and bursts).
//!
//! Anything else starts fresh in the new unit, and the plan says why. Invariant: every object of
//! the new unit appears exactly once in the plan, either carried or fresh.
//!
//! A cc switch (`docs/device.md` §4.1, `CC_CMD` `SWITCH`) has a plan of its own,
//! [`CarryPlan::between_ccs`], from the two manifests' `ccs[u]`: every flow's value of a per-flow
//! `state` variable of the same name, type and width; a `timer` of the same name, unit and period
//! (its next firing, or a byte counter's count); a `param` of the same name and width is not the
//! device's to copy (§4.2: nothing copies a param implicitly): the runtime writes the old value to
//! the new unit before the switch, and the plan lists it as carried for that reason.

use scenic_scu_abi::control::ScuControl;
use scenic_scu_abi::manifest::CcManifest;

/// What a swap does with one object of the new unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarryItem {
    /// `csr`, `table`, `map`, `counter` or `meter`.
    pub kind: &'static str,
    /// The object's name.
    pub name: String,
    /// Its index in the old unit, when its state is carried.
    pub from: Option<usize>,
    /// Its index in the new unit.
    pub to: usize,
    /// Why it starts fresh (empty when carried).
    pub reason: String,
}

/// The plan of one swap: every object of the new unit, carried or fresh.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CarryPlan {
    /// In the new unit's order: CSRs, tables, maps, counters, meters.
    pub items: Vec<CarryItem>,
}

impl CarryPlan {
    /// The plan for swapping `old` for `new`.
    pub fn between(old: &ScuControl, new: &ScuControl) -> CarryPlan {
        let mut items = Vec::new();
        for (to, c) in new.csrs.iter().enumerate() {
            let found = old.csrs.iter().position(|o| o.name == c.name);
            let agrees = |o: usize| {
                let o = &old.csrs[o];
                o.width == c.width && o.host_readonly == c.host_readonly && o.is_param == c.is_param
            };
            items.push(item("csr", &c.name, found, to, agrees, "width or access"));
        }
        for (to, t) in new.tables.iter().enumerate() {
            let found = old.tables.iter().position(|o| o.name == t.name);
            let agrees = |o: usize| {
                let o = &old.tables[o];
                o.keys == t.keys
                    && o.actions == t.actions
                    && o.strategy == t.strategy
                    && o.size == t.size
                    && o.is_const == t.is_const
            };
            items.push(item("table", &t.name, found, to, agrees, "keys or actions"));
        }
        for (to, m) in new.maps.iter().enumerate() {
            let found = old.maps.iter().position(|o| o.name == m.name);
            let agrees = |o: usize| {
                let o = &old.maps[o];
                o.kind == m.kind
                    && o.size == m.size
                    && o.key_bits == m.key_bits
                    && o.value_bits == m.value_bits
                    && o.value_fields == m.value_fields
            };
            items.push(item(
                "map",
                &m.name,
                found,
                to,
                agrees,
                "kind, size, key or value",
            ));
        }
        for (to, c) in new.counters.iter().enumerate() {
            let found = old.counters.iter().position(|o| o.name == c.name);
            let agrees =
                |o: usize| old.counters[o].kind == c.kind && old.counters[o].size == c.size;
            items.push(item("counter", &c.name, found, to, agrees, "kind or size"));
        }
        for (to, m) in new.meters.iter().enumerate() {
            let found = old.meters.iter().position(|o| o.name == m.name);
            let agrees = |o: usize| old.meters[o].size == m.size;
            items.push(item("meter", &m.name, found, to, agrees, "size"));
        }
        CarryPlan { items }
    }

    /// The plan for switching from cc `old` to cc `new` (module doc): `state`, `timer` and `param`
    /// items, in the new cc's order.
    pub fn between_ccs(old: &CcManifest, new: &CcManifest) -> CarryPlan {
        let mut items = Vec::new();
        for (to, s) in new.state.iter().enumerate() {
            let found = old.state.iter().position(|o| o.name == s.name);
            let agrees = |o: usize| old.state[o].ty == s.ty && old.state[o].width == s.width;
            items.push(item("state", &s.name, found, to, agrees, "type or width"));
        }
        for (to, t) in new.timers.iter().enumerate() {
            let found = old.timers.iter().position(|o| o.name == t.name);
            let agrees =
                |o: usize| old.timers[o].unit == t.unit && old.timers[o].period == t.period;
            items.push(item("timer", &t.name, found, to, agrees, "unit or period"));
        }
        for (to, p) in new.params.iter().enumerate() {
            let found = old.params.iter().position(|o| o.name == p.name);
            let agrees = |o: usize| old.params[o].width == p.width;
            items.push(item("param", &p.name, found, to, agrees, "width"));
        }
        CarryPlan { items }
    }

    /// The carried items.
    pub fn carried(&self) -> impl Iterator<Item = &CarryItem> {
        self.items.iter().filter(|i| i.from.is_some())
    }

    /// The items that start fresh.
    pub fn fresh(&self) -> impl Iterator<Item = &CarryItem> {
        self.items.iter().filter(|i| i.from.is_none())
    }

    /// The `(from, to)` pairs of carried items of one kind.
    pub fn pairs(&self, kind: &str) -> Vec<(usize, usize)> {
        self.items
            .iter()
            .filter(|i| i.kind == kind)
            .filter_map(|i| i.from.map(|f| (f, i.to)))
            .collect()
    }
}

fn item(
    kind: &'static str,
    name: &str,
    found: Option<usize>,
    to: usize,
    agrees: impl Fn(usize) -> bool,
    differs: &str,
) -> CarryItem {
    let (from, reason) = match found {
        None => (None, format!("the old unit has no {kind} `{name}`")),
        Some(o) if agrees(o) => (Some(o), String::new()),
        Some(_) => (None, format!("its {differs} differ from the old unit's")),
    };
    CarryItem {
        kind,
        name: name.to_string(),
        from,
        to,
        reason,
    }
}
