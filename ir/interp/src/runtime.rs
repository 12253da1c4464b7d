//! The machine: run-time state of every scu and cc of a module, and the host-side API (CSRs,
//! table entries, counters, virtual time).

use super::cc_timers::NextTimer;
use super::compile::Program;
use super::context::{Cx, Effects, Frames, Notification, ScuCx};
use super::state::{compile_match, Bucket, EntryError, MapState, RtEntry, TableState};
use super::value::{width_of, Value};
use cranelift_entity::EntityRef;
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{KeyMatch, Module, Scu};
use std::collections::{BTreeMap, HashMap};

/// A counter cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterCell {
    /// Packets counted.
    pub packets: u64,
    /// Bytes counted.
    pub bytes: u64,
}

/// Per-scu statistics for summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScuStats {
    /// Packets processed.
    pub packets_in: u64,
    /// Copies sent.
    pub copies_out: u64,
    /// Dropped packets by reason.
    pub drops: BTreeMap<String, u64>,
}

/// The state of one scu.
#[derive(Debug)]
pub struct ScuRuntime {
    /// CSR and param values.
    pub csrs: Vec<Bits>,
    /// Tables.
    pub tables: Vec<TableState>,
    /// Maps.
    pub maps: Vec<MapState>,
    /// Counters.
    pub counters: Vec<Vec<CounterCell>>,
    /// Meters.
    pub meters: Vec<Vec<Bucket>>,
    /// Next firing time of each `every` block.
    pub every_next: Vec<u64>,
    /// Statistics.
    pub stats: ScuStats,
    /// Bytes pushed to each output element and not yet transferred.
    pub out_buffers: HashMap<(OutId, usize), Vec<u8>>,
}

/// The state of one flow of a cc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CcFlow {
    /// State variables.
    pub state: Vec<Value>,
    /// For each timer: the next firing time (time timers) or the bytes counted so far (byte
    /// counters).
    pub timers: Vec<u64>,
}

/// The state of one cc.
#[derive(Debug)]
pub struct CcRuntime {
    /// Host-set parameter values.
    pub params: Vec<Bits>,
    /// Flows seen so far. Code that writes a flow's `timers` directly calls
    /// [`CcRuntime::timers_changed`] afterwards ([`crate::cc_timers`]).
    pub flows: BTreeMap<u64, CcFlow>,
    /// The earliest time-timer firing of the flows, or a lower bound of it.
    pub(crate) next_timer: NextTimer,
}

impl CcRuntime {
    /// Says that flows' timers were written from outside the interpreter: the next event looks
    /// at every flow again.
    pub fn timers_changed(&mut self) {
        self.next_timer = NextTimer::unknown();
    }
}

/// The interpreter for one module.
pub struct Machine<'m> {
    pub(crate) module: &'m Module,
    /// The module's code, compiled when the machine is made.
    pub(crate) program: Program,
    /// Scu states by `ScuId`.
    pub scus: Vec<ScuRuntime>,
    /// Cc states by `CcId`.
    pub ccs: Vec<CcRuntime>,
    /// Timer handlers run so far, over every cc and flow: a caller that feeds one flow's events
    /// compares it before and after to know whether other flows' state may have changed.
    pub cc_timer_firings: u64,
    /// Every notification raised so far.
    pub notifications: Vec<Notification>,
    /// How many of `notifications` the host has read through `Device::notifications`.
    pub(crate) notifications_read: usize,
    /// Record per-packet traces.
    pub trace: bool,
    /// When time started (the first event's time).
    pub(crate) start_ns: Option<u64>,
    /// The latest time seen.
    pub(crate) now_ns: u64,
    /// The next entry handle.
    next_handle: u64,
    /// The earliest time an `every` block is due (every `every_next` after the last run of
    /// [`Machine::advance_time`]'s full check; 0 before the first).
    every_due: u64,
    /// Per-packet state reused by each scu's packets.
    pub(crate) packet_scratch: Vec<super::packet::PacketScratch>,
    /// The frame stack, reused by every run.
    pub(crate) frames: Frames,
}

impl<'m> Machine<'m> {
    /// A machine with every scu and cc in its initial state.
    pub fn new(module: &'m Module) -> Machine<'m> {
        let scus = module
            .scus
            .values()
            .map(|s| scu_runtime(module, s))
            .collect();
        let ccs = module
            .ccs
            .values()
            .map(|c| CcRuntime {
                params: c
                    .params
                    .values()
                    .map(|p| Bits::from_biguint(width_of(&p.ty, module), &p.default.0))
                    .collect(),
                flows: BTreeMap::new(),
                next_timer: NextTimer::default(),
            })
            .collect();
        Machine {
            module,
            program: Program::new(module),
            scus,
            ccs,
            cc_timer_firings: 0,
            notifications: Vec::new(),
            notifications_read: 0,
            trace: false,
            start_ns: None,
            now_ns: 0,
            next_handle: 1,
            every_due: 0,
            packet_scratch: module
                .scus
                .values()
                .map(|s| super::packet::PacketScratch::new(module, s))
                .collect(),
            frames: Frames::default(),
        }
    }

    /// The module.
    pub fn module(&self) -> &'m Module {
        self.module
    }

    /// The notifications raised since the last call: what the host reads through the simulator's
    /// `Device::notifications`.
    pub fn unread_notifications(&mut self) -> Vec<Notification> {
        let from = self.notifications_read.min(self.notifications.len());
        self.notifications_read = self.notifications.len();
        self.notifications[from..].to_vec()
    }

    /// The scu named `name`.
    pub fn scu_by_name(&self, name: &str) -> Option<ScuId> {
        self.module
            .scus
            .iter()
            .find(|(_, s)| s.name == name)
            .map(|(id, _)| id)
    }

    /// The cc named `name`.
    pub fn cc_by_name(&self, name: &str) -> Option<CcId> {
        self.module
            .ccs
            .iter()
            .find(|(_, c)| c.name == name)
            .map(|(id, _)| id)
    }

    /// Sets a CSR or param by name (the host's `set_csr`); the value keeps its low bits.
    pub fn set_csr(&mut self, scu: ScuId, name: &str, value: &num_bigint::BigUint) -> bool {
        let Some(def) = self.module.scus.get(scu) else {
            return false;
        };
        let Some((id, csr)) = def.csrs.iter().find(|(_, c)| c.name == name) else {
            return false;
        };
        self.scus[scu.index()].csrs[id.index()] =
            Bits::from_biguint(width_of(&csr.ty, self.module), value);
        true
    }

    /// A CSR's value by name.
    pub fn csr(&self, scu: ScuId, name: &str) -> Option<Bits> {
        let def = self.module.scus.get(scu)?;
        let (id, _) = def.csrs.iter().find(|(_, c)| c.name == name)?;
        self.scus[scu.index()].csrs.get(id.index()).cloned()
    }

    /// A counter cell by name.
    pub fn counter(&self, scu: ScuId, name: &str, index: usize) -> Option<CounterCell> {
        let def = self.module.scus.get(scu)?;
        let (id, _) = def.counters.iter().find(|(_, c)| c.name == name)?;
        self.scus[scu.index()]
            .counters
            .get(id.index())?
            .get(index)
            .copied()
    }

    /// Adds a run-time entry to a table: one match per key, the action by name, its data; returns
    /// the entry's handle (for [`Machine::remove_entry`]).
    pub fn add_entry(
        &mut self,
        scu: ScuId,
        table: &str,
        keys: &[KeyMatch],
        action: &str,
        args: &[num_bigint::BigUint],
        priority: u64,
    ) -> Result<u64, AddEntryError> {
        let module = self.module;
        let def = module
            .scus
            .get(scu)
            .ok_or(AddEntryError::NoSuchTable(table.into()))?;
        let (tid, t) = def
            .tables
            .iter()
            .find(|(_, t)| t.name == table)
            .ok_or(AddEntryError::NoSuchTable(table.into()))?;
        if keys.len() != t.keys.len() {
            return Err(AddEntryError::KeyCount {
                expected: t.keys.len(),
                found: keys.len(),
            });
        }
        let position = t
            .actions
            .iter()
            .position(|a| def.actions[*a].name == action)
            .ok_or_else(|| AddEntryError::NoSuchAction(action.into()))?;
        let entry = RtEntry {
            keys: keys
                .iter()
                .zip(&t.keys)
                .map(|(m, k)| compile_match(m, k.kind, width_of(&k.ty, module)))
                .collect(),
            action: position as u32,
            args: action_args(module, def, t.actions[position], args),
            priority,
            constant: false,
            handle: self.next_handle,
        };
        if t.is_const {
            return Err(AddEntryError::Entry(EntryError::Constant));
        }
        self.scus[scu.index()].tables[tid.index()]
            .insert(entry)
            .map_err(AddEntryError::Entry)?;
        self.next_handle += 1;
        Ok(self.next_handle - 1)
    }

    /// Removes a run-time entry added by [`Machine::add_entry`]; whether it existed.
    pub fn remove_entry(&mut self, scu: ScuId, table: &str, handle: u64) -> bool {
        self.table_mut(scu, table).is_some_and(|t| t.remove(handle))
    }

    /// Removes every run-time entry of a table; whether the table exists.
    pub fn clear_entries(&mut self, scu: ScuId, table: &str) -> bool {
        match self.table_mut(scu, table) {
            Some(t) => {
                t.clear_runtime();
                true
            }
            None => false,
        }
    }

    fn table_mut(&mut self, scu: ScuId, table: &str) -> Option<&mut TableState> {
        let def = self.module.scus.get(scu)?;
        let (tid, _) = def.tables.iter().find(|(_, t)| t.name == table)?;
        self.scus.get_mut(scu.index())?.tables.get_mut(tid.index())
    }

    /// Sets a table's default action by name.
    pub fn set_default(
        &mut self,
        scu: ScuId,
        table: &str,
        action: &str,
        args: &[num_bigint::BigUint],
    ) -> Result<(), AddEntryError> {
        let module = self.module;
        let def = module
            .scus
            .get(scu)
            .ok_or(AddEntryError::NoSuchTable(table.into()))?;
        let (tid, t) = def
            .tables
            .iter()
            .find(|(_, t)| t.name == table)
            .ok_or(AddEntryError::NoSuchTable(table.into()))?;
        let position = t
            .actions
            .iter()
            .position(|a| def.actions[*a].name == action)
            .ok_or_else(|| AddEntryError::NoSuchAction(action.into()))?;
        // language.md §7.9.3: the host may replace the default action, except in a constant table.
        if t.is_const {
            return Err(AddEntryError::Entry(EntryError::ConstantDefault));
        }
        let data = action_args(module, def, t.actions[position], args);
        self.scus[scu.index()].tables[tid.index()].default = (position as u32, data);
        Ok(())
    }

    /// Advances virtual time to `now_ns`, running every `every` block (and cc timer) that comes due;
    /// returns the notifications they raised.
    pub fn advance_time(&mut self, now_ns: u64) -> Vec<Notification> {
        let mut raised = Vec::new();
        self.advance_time_into(now_ns, &mut raised);
        raised
    }

    /// [`Machine::advance_time`], appending the notifications to `raised` (a caller that reuses
    /// one vector allocates nothing for them).
    pub(crate) fn advance_time_into(&mut self, now_ns: u64, raised: &mut Vec<Notification>) {
        // Nothing can be due before the earliest `every` time (a module with ccs checks its flows'
        // timers every time): the common case of a packet between two timer ticks.
        if self.start_ns.is_some() && now_ns < self.every_due && self.ccs.is_empty() {
            self.now_ns = self.now_ns.max(now_ns);
            return;
        }
        let start = *self.start_ns.get_or_insert(now_ns);
        self.now_ns = self.now_ns.max(now_ns);
        let from = raised.len();
        let module = self.module;
        // A block that has not fired yet is first due at `start + period`.
        for (id, def) in module.scus.iter() {
            let rt = &mut self.scus[id.index()];
            for (k, every) in def.every.iter().enumerate() {
                if let Some(next @ 0) = rt.every_next.get_mut(k) {
                    *next = start + every.period_ns.max(1);
                }
            }
        }
        // All firings due by `now_ns`, in order of due time, then source order (§11.8).
        while let Some((id, k, at)) = self.next_every(now_ns) {
            let def = &module.scus[id];
            let period = def.every.get(k).map_or(1, |e| e.period_ns.max(1));
            if let Some(next) = self.scus[id.index()].every_next.get_mut(k) {
                *next = at + period;
            }
            raised.extend(self.run_every(id, def, k, at));
        }
        raised.extend(self.advance_cc_timers(now_ns));
        self.notifications.extend(raised[from..].iter().cloned());
        self.every_due = self
            .scus
            .iter()
            .flat_map(|rt| rt.every_next.iter().copied())
            .min()
            .unwrap_or(u64::MAX);
    }

    /// The earliest `every` firing due at or before `now_ns` (scu, block, due time), the first in
    /// source order (scus, then blocks) among those due at the same time.
    fn next_every(&self, now_ns: u64) -> Option<(ScuId, usize, u64)> {
        self.module
            .scus
            .keys()
            .filter_map(|id| {
                let rt = self.scus.get(id.index())?;
                let (k, at) = rt
                    .every_next
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, at)| **at)?;
                (*at <= now_ns).then_some((id, k, *at))
            })
            .min_by_key(|(id, _, at)| (*at, *id))
    }

    /// Runs `every` block `k` of scu `id` at time `at`; the notifications it raised.
    fn run_every(&mut self, id: ScuId, def: &'m Scu, k: usize, at: u64) -> Vec<Notification> {
        let (Some(rt), Some(code)) = (
            self.scus.get_mut(id.index()),
            self.program.scus.get(id.index()),
        ) else {
            return Vec::new();
        };
        let Some(body) = code.every.get(k) else {
            return Vec::new();
        };
        let mut effects = Effects::default();
        let mut cx = Cx::new(
            self.module,
            &self.program,
            &mut self.frames,
            &mut effects,
            at,
        );
        cx.scu = Some(ScuCx { def, code, rt });
        body.run_top(&mut cx, &[]);
        drop(cx);
        effects.notifications
    }
}

/// Why a table entry could not be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AddEntryError {
    /// No table of that name.
    #[error("no table named `{0}`")]
    NoSuchTable(String),
    /// No action of that name in the table.
    #[error("the table has no action `{0}`")]
    NoSuchAction(String),
    /// Wrong number of key matches.
    #[error("the table has {expected} key(s), the entry gives {found}")]
    KeyCount {
        /// Keys of the table.
        expected: usize,
        /// Matches given.
        found: usize,
    },
    /// The table refused it.
    #[error("{0}")]
    Entry(EntryError),
}

fn action_args(
    module: &Module,
    def: &Scu,
    action: ActionId,
    args: &[num_bigint::BigUint],
) -> Vec<Bits> {
    let body = &def.actions[action].body;
    body.params
        .iter()
        .zip(args)
        .map(|(p, a)| Bits::from_biguint(width_of(&body.locals[*p].ty, module), a))
        .collect()
}

fn scu_runtime(module: &Module, s: &Scu) -> ScuRuntime {
    let tables = s
        .tables
        .values()
        .map(|t| {
            let widths: Vec<u32> = t.keys.iter().map(|k| width_of(&k.ty, module)).collect();
            let position = t
                .actions
                .iter()
                .position(|a| *a == t.default.0)
                .unwrap_or(0) as u32;
            let default_args = action_args(
                module,
                s,
                t.default.0,
                &t.default.1.iter().map(|c| c.0.clone()).collect::<Vec<_>>(),
            );
            let entries = t
                .const_entries
                .iter()
                .map(|e| RtEntry {
                    keys: e
                        .keys
                        .iter()
                        .zip(t.keys.iter().zip(&widths))
                        .map(|(m, (k, w))| compile_match(m, k.kind, *w))
                        .collect(),
                    action: e.action,
                    args: t.actions.get(e.action as usize).map_or(Vec::new(), |a| {
                        action_args(
                            module,
                            s,
                            *a,
                            &e.args.iter().map(|c| c.0.clone()).collect::<Vec<_>>(),
                        )
                    }),
                    priority: u64::from(e.priority),
                    constant: true,
                    handle: 0,
                })
                .collect();
            TableState::new(t, widths, (position, default_args), entries)
        })
        .collect();
    ScuRuntime {
        csrs: s
            .csrs
            .values()
            .map(|c| Bits::from_biguint(width_of(&c.ty, module), &c.init.0))
            .collect(),
        tables,
        maps: s
            .maps
            .values()
            .map(|m| MapState::of_values(m.kind, m.size, Some(&Value::zero(&m.value, module))))
            .collect(),
        counters: s
            .counters
            .values()
            .map(|c| vec![CounterCell::default(); c.size as usize])
            .collect(),
        meters: s
            .meters
            .values()
            .map(|m| (0..m.size).map(|_| Bucket::new(m.rate, m.burst)).collect())
            .collect(),
        every_next: vec![0; s.every.len()],
        stats: ScuStats::default(),
        out_buffers: HashMap::new(),
    }
}
