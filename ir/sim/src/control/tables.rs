//! Table ops: `TableAdd`, `TableRemove`, `TableClear`, `TableSetDefault`, `TableModify`, and the
//! kernel's numbering of run-time entries.
//!
//! Handles are per table, as the kernel numbers them (the interpreter's by-name
//! `Machine::add_entry` numbers machine-wide instead). A register-CAM table (`writer/tables.rs`)
//! counts from 1, one number per successful add, never reused (a clear does not reset it). A
//! hashed exact table (`writer/tables_exact.rs`: all keys exact, more than 64 entries) gives
//! `generation << HB | row`: rows are taken in FIFO order from a ring of free rows, a row's
//! generation (never 0) moves on when its entry leaves, and a clear frees every row in row order.
//! The state lives in the table's `control_words` ([`Counter`], [`Rows`]); the entry itself keeps
//! its handle, so `TableRemove` and `TableModify` find it by handle in the interpreter's table.
//!
//! Invariant: a handle is only consumed (the counter moved on, a row taken) when the entry is in.

use super::{scu_state, Answer, Refused};
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::state::{compile_match, EntryError, RtEntry, TableState};
use scenic_interp::value::width_of;
use scenic_interp::Machine;
use scenic_ir::entities::{ScuId, TableId};
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{Module, Table};
use scenic_scu_abi::control::{
    Request, ScuControl, Status, TableControl, TableStrategy, HANDLE_BITS,
};

/// The largest exact table the kernel keeps in a register CAM (`tables_exact::CAM_MAX_SLOTS`).
const CAM_MAX_SLOTS: u64 = 64;

/// The table at `target`: its layout, its definition and its state.
fn table<'a, 'm>(
    machine: &'a mut Machine<'m>,
    scu: ScuId,
    layout: &'a ScuControl,
    target: u16,
) -> Result<(&'a TableControl, &'m Table, &'a mut TableState), Refused> {
    let bad = || Refused::with(Status::BadTarget);
    let tc = layout
        .tables
        .iter()
        .find(|t| t.target == target)
        .ok_or_else(bad)?;
    let module: &'m Module = machine.module();
    let def = module
        .scus
        .get(scu)
        .and_then(|s| s.tables.get(TableId::new(usize::from(target))))
        .ok_or_else(bad)?;
    let state = scu_state(machine, scu)?
        .tables
        .get_mut(usize::from(target))
        .ok_or_else(bad)?;
    Ok((tc, def, state))
}

/// The action's arguments as the interpreter stores them (each at its parameter's width).
fn action_args(
    module: &Module,
    scu: ScuId,
    def: &Table,
    position: u32,
    args: &[BigUint],
) -> Vec<Bits> {
    let Some(body) = def
        .actions
        .get(position as usize)
        .and_then(|a| module.scus.get(scu)?.actions.get(*a))
        .map(|a| &a.body)
    else {
        return Vec::new();
    };
    body.params
        .iter()
        .zip(args)
        .map(|(p, v)| Bits::from_biguint(width_of(&body.locals[*p].ty, module), v))
        .collect()
}

/// `TableAdd`: the entry record in `data`; the handle in the response.
pub(super) fn add(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (tc, def, state) = table(machine, scu, layout, req.target)?;
    let entry = tc
        .decode_entry(&req.data)
        .map_err(|_| Refused::with(Status::BadAction))?;
    if tc.is_const || def.is_const {
        return Err(Refused::with(Status::Constant));
    }
    let keys = entry
        .keys
        .iter()
        .zip(&def.keys)
        .map(|(m, k)| compile_match(m, k.kind, width_of(&k.ty, module)))
        .collect();
    let handles = Handles::of(tc);
    let handle = handles.next(state).ok_or(Refused::with(Status::Full))?;
    let rt = RtEntry {
        keys,
        action: entry.action,
        args: action_args(module, scu, def, entry.action, &entry.args),
        priority: entry.priority,
        constant: false,
        handle,
    };
    state.insert(rt).map_err(|e| {
        Refused::with(match e {
            EntryError::Full(_) => Status::Full,
            EntryError::Duplicate => Status::Duplicate,
            EntryError::Constant | EntryError::ConstantDefault => Status::Constant,
        })
    })?;
    handles.taken(state);
    Ok(BigUint::from(handle))
}

/// `TableRemove`: the run-time entry whose handle is `index`.
pub(super) fn remove(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let (tc, _, state) = table(machine, scu, layout, req.target)?;
    let handle = u64::from(req.index);
    if !state.remove(handle) {
        return Err(Refused::with(Status::NotFound));
    }
    Handles::of(tc).freed(state, handle);
    Ok(BigUint::default())
}

/// `TableClear`: every run-time entry (constant ones stay; a constant table answers `Ok`).
pub(super) fn clear(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let (tc, _, state) = table(machine, scu, layout, req.target)?;
    state.clear_runtime();
    Handles::of(tc).cleared(state);
    Ok(BigUint::default())
}

/// `TableSetDefault`: the action and arguments of the record in `data`. A constant table's default
/// cannot be replaced (language.md §7.9.3, as `Machine::set_default` and the kernel refuse it):
/// `Constant`, checked after the action as the kernel does.
pub(super) fn set_default(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (tc, def, state) = table(machine, scu, layout, req.target)?;
    let action = tc.decode_action(&req.data);
    if action as usize >= tc.actions.len() {
        return Err(Refused::with(Status::BadAction));
    }
    if tc.is_const || def.is_const {
        return Err(Refused::with(Status::Constant));
    }
    let args = tc.decode_args(&req.data);
    state.default = (action, action_args(module, scu, def, action, &args));
    Ok(BigUint::default())
}

/// `TableModify`: the action and arguments of the record in `data` replace those of the run-time
/// entry whose handle is `index`, in place (keys, priority, handle and search order stay; the
/// handle numbering does not move). Checked in the order of `TableAdd` and `TableSetDefault`, as
/// the kernel does: `BadAction`, then `Constant` (language.md §7.9.5: constant entries cannot be
/// modified), then `NotFound`.
pub(super) fn modify(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (tc, def, state) = table(machine, scu, layout, req.target)?;
    let action = tc.decode_action(&req.data);
    if action as usize >= tc.actions.len() {
        return Err(Refused::with(Status::BadAction));
    }
    if tc.is_const || def.is_const {
        return Err(Refused::with(Status::Constant));
    }
    let args = tc.decode_args(&req.data);
    let args = action_args(module, scu, def, action, &args);
    if !state.modify(u64::from(req.index), action, args) {
        return Err(Refused::with(Status::NotFound));
    }
    Ok(BigUint::default())
}

/// How the kernel numbers a table's run-time entries.
#[derive(Clone, Copy, Debug)]
enum Handles {
    /// A register CAM's counter.
    Counter,
    /// A hashed exact table's rows: `size` rows, `row_bits` of them in a handle.
    Rows { size: usize, row_bits: u32 },
}

impl Handles {
    fn of(tc: &TableControl) -> Handles {
        let hashed =
            tc.strategy == TableStrategy::Exact && !tc.keys.is_empty() && tc.size > CAM_MAX_SLOTS;
        if !hashed {
            return Handles::Counter;
        }
        let size = tc.size.max(1);
        Handles::Rows {
            size: usize::try_from(size).unwrap_or(usize::MAX),
            row_bits: (64 - (size - 1).leading_zeros()).max(1),
        }
    }

    /// The handle the next successful add gets; `None` when no row is free.
    fn next(self, state: &mut TableState) -> Option<u64> {
        match self {
            Handles::Counter => Some(Counter::new(state).next()),
            Handles::Rows { size, row_bits } => Rows::new(state, size, row_bits).next(),
        }
    }

    /// The add that [`Handles::next`] numbered succeeded.
    fn taken(self, state: &mut TableState) {
        match self {
            Handles::Counter => Counter::new(state).take(),
            Handles::Rows { size, row_bits } => Rows::new(state, size, row_bits).take(),
        }
    }

    /// The entry with `handle` left.
    fn freed(self, state: &mut TableState, handle: u64) {
        if let Handles::Rows { size, row_bits } = self {
            Rows::new(state, size, row_bits).free(handle);
        }
    }

    /// Every run-time entry left.
    fn cleared(self, state: &mut TableState) {
        if let Handles::Rows { size, row_bits } = self {
            Rows::new(state, size, row_bits).clear();
        }
    }
}

/// A CAM table's handle counter: `control_words[0]`, from 1, wrapping at 32 bits as the kernel's.
struct Counter<'a>(&'a mut Vec<u64>);

impl Counter<'_> {
    fn new(state: &mut TableState) -> Counter<'_> {
        if state.control_words.is_empty() {
            state.control_words.push(1);
        }
        Counter(&mut state.control_words)
    }

    fn next(&self) -> u64 {
        self.0.first().copied().unwrap_or(1)
    }

    fn take(&mut self) {
        if let Some(n) = self.0.first_mut() {
            *n = (*n + 1) & ((1 << HANDLE_BITS) - 1);
        }
    }
}

/// A hashed table's handle rows in `control_words`: `[head, free, gen × size, ring × size,
/// used × size]` — the ring's head, how many rows are free, each row's generation, the ring of
/// free rows (oldest first, from `head`) and whether each row holds an entry.
struct Rows<'a> {
    w: &'a mut Vec<u64>,
    size: usize,
    row_bits: u32,
}

impl Rows<'_> {
    fn new(state: &mut TableState, size: usize, row_bits: u32) -> Rows<'_> {
        let w = &mut state.control_words;
        if w.len() != 2 + 3 * size {
            w.clear();
            w.extend([0, size as u64]);
            w.extend(std::iter::repeat_n(1, size));
            w.extend(0..size as u64);
            w.extend(std::iter::repeat_n(0, size));
        }
        Rows { w, size, row_bits }
    }

    fn word(&self, i: usize) -> u64 {
        self.w.get(i).copied().unwrap_or(0)
    }

    fn set(&mut self, i: usize, v: u64) {
        if let Some(x) = self.w.get_mut(i) {
            *x = v;
        }
    }

    fn gen_at(&self, row: usize) -> usize {
        2 + row
    }

    fn ring_at(&self, i: usize) -> usize {
        2 + self.size + i % self.size.max(1)
    }

    fn used_at(&self, row: usize) -> usize {
        2 + 2 * self.size + row
    }

    fn next(&self) -> Option<u64> {
        if self.word(1) == 0 {
            return None;
        }
        let row = self.word(self.ring_at(self.word(0) as usize));
        Some((self.word(self.gen_at(row as usize)) << self.row_bits) | row)
    }

    fn take(&mut self) {
        let head = self.word(0) as usize;
        let row = self.word(self.ring_at(head)) as usize;
        self.set(0, ((head + 1) % self.size.max(1)) as u64);
        self.set(1, self.word(1).saturating_sub(1));
        self.set(self.used_at(row), 1);
    }

    /// The generation after `g`: `32 - row_bits` bits, wrapping past the top to 1.
    fn next_gen(&self, g: u64) -> u64 {
        let n = (g + 1) & ((1u64 << (HANDLE_BITS - self.row_bits)) - 1);
        n.max(1)
    }

    fn free(&mut self, handle: u64) {
        let row = (handle & ((1 << self.row_bits) - 1)) as usize;
        if row >= self.size {
            return;
        }
        let g = self.next_gen(self.word(self.gen_at(row)));
        self.set(self.gen_at(row), g);
        self.set(self.used_at(row), 0);
        let tail = self.ring_at(self.word(0) as usize + self.word(1) as usize);
        self.set(tail, row as u64);
        self.set(1, self.word(1) + 1);
    }

    fn clear(&mut self) {
        for row in 0..self.size {
            if self.word(self.used_at(row)) == 1 {
                let g = self.next_gen(self.word(self.gen_at(row)));
                self.set(self.gen_at(row), g);
            }
            self.set(self.used_at(row), 0);
            let at = self.ring_at(row);
            self.set(at, row as u64);
        }
        self.set(0, 0);
        self.set(1, self.size as u64);
    }
}
