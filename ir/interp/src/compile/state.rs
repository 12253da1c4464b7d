//! Compiling what reaches persistent state or other code: maps, meters, table applications
//! (with their action data), and calls of functions and actions.
//!
//! A call evaluates its arguments onto the frame stack's argument area, then runs the callee's
//! compiled code in a frame placed after the caller's; `drop()` (or a parse error) in the callee
//! makes the call itself stop, so the caller's statement is abandoned. A table application
//! evaluates its keys in the frame of the table's key body, looks them up, records the chosen
//! action and its data in the caller's application slot (for `match` arms), and runs the action.

use super::{Compiler, Flow, FrameShape, Scalar, Valued, R};
use crate::context::{Cx, Frames, Halt};
use crate::value::Value;
use cranelift_entity::EntityRef;
use scenic_ir::body::Expr;
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;

/// A closure with no value that may stop.
pub(crate) type Run = Box<dyn Fn(&mut Cx<'_>) -> R<()> + Send + Sync>;

impl Compiler<'_> {
    /// The scalar expressions on state: maps, meters, applications and action data.
    pub fn state_scalar(&mut self, id: ExprId) -> Scalar {
        match &self.body.exprs[id] {
            Expr::MapGet(m, key) => {
                let (m, key, zero) = (m.index(), self.scalar(*key), self.map_zero(*m));
                Box::new(move |cx| {
                    let key = key(cx)?;
                    let map = cx.scu.as_mut().and_then(|s| s.rt.maps.get_mut(m));
                    let found = map.and_then(|map| map.get_bits(&key));
                    Ok(found.unwrap_or_else(|| zero(cx).into_bits()))
                })
            }
            Expr::MapContains(m, key) => {
                let (m, key) = (m.index(), self.scalar(*key));
                Box::new(move |cx| {
                    let key = key(cx)?;
                    let map = cx.scu.as_ref().and_then(|s| s.rt.maps.get(m));
                    Ok(Bits::from_bool(map.is_some_and(|map| map.contains(&key))))
                })
            }
            Expr::MapInsert(m, key, value) => self.map_insert(*m, *key, *value),
            Expr::MapRemove(m, key) => {
                let (m, key) = (m.index(), self.scalar(*key));
                Box::new(move |cx| {
                    let key = key(cx)?;
                    let map = cx.scu.as_mut().and_then(|s| s.rt.maps.get_mut(m));
                    Ok(Bits::from_bool(map.is_some_and(|map| map.remove(&key))))
                })
            }
            Expr::MeterExceeds(m, index, len) => {
                let (m, index) = (m.index(), self.index(*index));
                let len = self.scalar(*len);
                Box::new(move |cx| {
                    let i = index(cx)?;
                    let len = len(cx)?.to_u64();
                    let now = cx.now_ns;
                    let bucket = cx
                        .scu
                        .as_mut()
                        .and_then(|s| s.rt.meters.get_mut(m)?.get_mut(i));
                    Ok(Bits::from_bool(bucket.is_some_and(|b| b.exceeds(len, now))))
                })
            }
            Expr::Apply(t) => {
                let (t, slot, above) = (*t, self.apply_slot(id), self.frame_size());
                Box::new(move |cx| {
                    let position = apply(cx, t, slot, above)?;
                    Ok(Bits::from_u64(8, u64::from(position)))
                })
            }
            Expr::ActionData {
                apply,
                action,
                param,
            } => {
                let (slot, action, param) = (self.apply_slot(*apply), *action, *param as usize);
                let width = self.width(id);
                Box::new(move |cx| {
                    Ok(match applied_args(cx, slot, action) {
                        Some(args) => args.get(param).cloned().unwrap_or_else(|| Bits::zero(1)),
                        None => Bits::zero(width),
                    })
                })
            }
            _ => {
                let v = self.value(id);
                Box::new(move |cx| Ok(v(cx)?.into_bits()))
            }
        }
    }

    /// The zero of map `m`'s value type (the value of `get` of an absent key): computed now when
    /// the body's scu is known, else from the running scu.
    fn map_zero(&self, m: MapId) -> Box<dyn Fn(&Cx<'_>) -> Value + Send + Sync> {
        let module = self.module;
        match self.scu.and_then(|s| s.maps.get(m)) {
            Some(map) => {
                let zero = Value::zero(&map.value, module);
                Box::new(move |_| zero.clone())
            }
            None => Box::new(
                move |cx| match cx.scu.as_ref().and_then(|s| s.def.maps.get(m)) {
                    Some(map) => Value::zero(&map.value, cx.module),
                    None => Value::Unit,
                },
            ),
        }
    }

    /// `map.get(key)` of an aggregate value.
    pub fn map_get_value(&mut self, m: MapId, key: ExprId) -> Valued {
        let (zero, key, m) = (self.map_zero(m), self.scalar(key), m.index());
        Box::new(move |cx| {
            let key = key(cx)?;
            let map = cx.scu.as_mut().and_then(|s| s.rt.maps.get_mut(m));
            match map.and_then(|map| map.get(&key)) {
                Some(v) => Ok(v),
                None => Ok(zero(cx)),
            }
        })
    }

    /// `map.get(key)` of an aggregate into a local, copied into the local's storage.
    #[allow(clippy::type_complexity)]
    pub fn map_get_into(
        &mut self,
        m: MapId,
        key: ExprId,
    ) -> Box<dyn Fn(&mut Cx<'_>, usize) -> R<()> + Send + Sync> {
        let (zero, key, m) = (self.map_zero(m), self.scalar(key), m.index());
        Box::new(move |cx, slot| {
            let key = key(cx)?;
            let Cx {
                scu, frames, base, ..
            } = &mut *cx;
            let map = scu.as_mut().and_then(|s| s.rt.maps.get_mut(m));
            let mut unit = Value::Unit;
            let out = frames.values.get_mut(*base + slot).unwrap_or(&mut unit);
            if map.is_some_and(|map| map.get_into(&key, out)) {
                return Ok(());
            }
            let z = zero(cx);
            if let Some(s) = cx.local_mut(slot) {
                *s = z;
            }
            Ok(())
        })
    }

    /// `map.insert(key, value)`; a local's value is inserted without a copy of its own.
    fn map_insert(&mut self, m: MapId, key: ExprId, value: ExprId) -> Scalar {
        let (m, key) = (m.index(), self.scalar(key));
        if let Some(Expr::Local(l)) = self.body.exprs.get(value) {
            let slot = l.index();
            return Box::new(move |cx| {
                let key = key(cx)?;
                let Cx {
                    scu, frames, base, ..
                } = cx;
                let value = frames.values.get(*base + slot).unwrap_or(&Value::Unit);
                let map = scu.as_mut().and_then(|s| s.rt.maps.get_mut(m));
                Ok(Bits::from_bool(
                    map.is_some_and(|map| map.insert_from(&key, value)),
                ))
            });
        }
        let value = self.value(value);
        Box::new(move |cx| {
            let key = key(cx)?;
            let value = value(cx)?;
            let map = cx.scu.as_mut().and_then(|s| s.rt.maps.get_mut(m));
            Ok(Bits::from_bool(
                map.is_some_and(|map| map.insert(key, value)),
            ))
        })
    }

    /// A call of function `f`.
    pub fn call(&mut self, f: FuncId, args: &[ExprId]) -> Valued {
        let args: Vec<Valued> = args.iter().map(|a| self.value(*a)).collect();
        let above = self.frame_size();
        let zero = self
            .module
            .functions
            .get(f)
            .map_or(Value::Unit, |func| Value::zero(&func.ret, self.module));
        Box::new(move |cx| {
            let start = cx.frames.args.len();
            for a in &args {
                match a(cx) {
                    Ok(v) => cx.frames.args.push(v),
                    Err(halt) => {
                        cx.frames.args.truncate(start);
                        return Err(halt);
                    }
                }
            }
            let prog = cx.prog;
            let Some(code) = prog.funcs.get(f.index()) else {
                cx.frames.args.truncate(start);
                return Ok(zero.clone());
            };
            let n = args.len();
            let set = |frames: &mut Frames, base| code.shape.take_args(frames, base, n);
            match code.shape.enter(cx, above, set, |cx| code.block.run(cx)) {
                Flow::Return => Ok(std::mem::replace(&mut cx.ret, Value::Unit)),
                // `drop()` or a parse error in the callee: the caller's statement is abandoned.
                Flow::Stop => Err(Halt),
                Flow::Next => Ok(zero.clone()),
            }
        })
    }

    /// A direct call of action `a` with data `args`.
    pub fn call_action(&mut self, a: ActionId, args: &[ExprId]) -> Run {
        let args: Vec<Scalar> = args.iter().map(|e| self.scalar(*e)).collect();
        let above = self.frame_size();
        Box::new(move |cx| {
            let start = cx.frames.scalars.len();
            for arg in &args {
                match arg(cx) {
                    Ok(v) => cx.frames.scalars.push(v),
                    Err(halt) => {
                        cx.frames.scalars.truncate(start);
                        return Err(halt);
                    }
                }
            }
            let flow = run_action(cx, a, above, |frames, base, shape| {
                let Frames {
                    values, scalars, ..
                } = frames;
                set_params(shape, values, base, scalars.get(start..).unwrap_or(&[]));
            });
            cx.frames.scalars.truncate(start);
            flow
        })
    }
}

/// The data of the entry application slot `slot` of the running frame chose, when it chose the
/// action at `position` (`match` arms read their action's data this way).
#[inline]
pub(crate) fn applied_args<'c>(
    cx: &'c Cx<'_>,
    slot: Option<usize>,
    position: u32,
) -> Option<&'c [Bits]> {
    let applied = cx.frames.applies.get(cx.abase + slot?)?;
    (applied.action == Some(position)).then_some(applied.args.as_slice())
}

/// Writes `args` into the parameters of a frame of `shape` at `base`.
fn set_params(shape: &FrameShape, values: &mut [Value], base: usize, args: &[Bits]) {
    for (param, value) in shape.params.iter().zip(args) {
        if let Some(slot) = values.get_mut(base + param) {
            match slot {
                Value::Bits(b) => b.clone_from(value),
                other => *other = Value::Bits(value.clone()),
            }
        }
    }
}

/// Runs action `a` of the running scu in a frame `above` the caller's, its parameters written by
/// `set`; an action with no statements does nothing. Stops when the action dropped the packet.
fn run_action(
    cx: &mut Cx<'_>,
    a: ActionId,
    above: (usize, usize),
    set: impl FnOnce(&mut Frames, usize, &FrameShape),
) -> R<()> {
    let Some(scu_code) = cx.scu.as_ref().map(|s| s.code) else {
        return Ok(());
    };
    let Some(code) = scu_code.actions.get(a.index()) else {
        return Ok(());
    };
    if code.block.is_empty() {
        return Ok(());
    }
    let set = |frames: &mut Frames, base| set(frames, base, &code.shape);
    match code.shape.enter(cx, above, set, |cx| code.block.run(cx)) {
        Flow::Stop => Err(Halt),
        Flow::Next | Flow::Return => Ok(()),
    }
}

/// Applies table `t`: evaluates its keys, looks them up, records the chosen action and its data in
/// application slot `slot` of the running frame, runs the action; the action's position.
fn apply(cx: &mut Cx<'_>, t: TableId, slot: Option<usize>, above: (usize, usize)) -> R<u32> {
    let Some((code, def)) = cx.scu.as_ref().map(|s| (s.code, s.def)) else {
        return Ok(0);
    };
    let (Some(table_code), Some(table)) = (code.tables.get(t.index()), def.tables.get(t)) else {
        return Ok(0);
    };
    if let (Some(narrow), None) = (&table_code.narrow, &cx.effects.trace) {
        let mut values = [0u128; super::MAX_NARROW_KEYS];
        for (v, key) in values.iter_mut().zip(narrow) {
            *v = u128::from(key(cx));
        }
        let values = values.get(..narrow.len()).unwrap_or(&[]);
        if let Some(position) = lookup_values(cx, t, slot, values) {
            run_chosen(cx, table, position, slot, above)?;
            return Ok(position);
        }
    }
    let start = cx.frames.scalars.len();
    let push_keys = |cx: &mut Cx<'_>| -> R<()> {
        for key in &table_code.keys {
            let v = key(cx)?;
            cx.frames.scalars.push(v);
        }
        Ok(())
    };
    // Keys of a key body with no locals and no applications read nothing of a frame.
    let keys = match table_code.shape.is_empty() {
        true => push_keys(cx),
        false => table_code.shape.enter(cx, above, |_, _| {}, push_keys),
    };
    if let Err(halt) = keys {
        cx.frames.scalars.truncate(start);
        return Err(halt);
    }
    let (position, hit) = lookup(cx, t, slot, start);
    if cx.effects.trace.is_some() {
        trace_lookup(cx, (def, table), start, position, hit);
    }
    cx.frames.scalars.truncate(start);
    run_chosen(cx, table, position, slot, above)?;
    Ok(position)
}

/// The trace line of a lookup of `table` (of scu `def`) with the keys at `frames.scalars[start..]`
/// (kept out of the application's code: tracing is rare).
#[cold]
#[inline(never)]
fn trace_lookup(
    cx: &mut Cx<'_>,
    (def, table): (&scenic_ir::program::Scu, &scenic_ir::program::Table),
    start: usize,
    position: u32,
    hit: bool,
) {
    let keys: Vec<String> = cx
        .frames
        .scalars
        .get(start..)
        .unwrap_or(&[])
        .iter()
        .map(|k| format!("{k}"))
        .collect();
    let action = table.actions.get(position as usize);
    let name = action
        .and_then(|a| def.actions.get(*a))
        .map_or("", |a| a.name.as_str());
    let line = format!(
        "table {} key ({}) {} -> {name}",
        table.name,
        keys.join(", "),
        if hit { "hit" } else { "miss" }
    );
    cx.effects.trace(|| line);
}

/// Runs the action at `position` of `table`, its data from application slot `slot`.
fn run_chosen(
    cx: &mut Cx<'_>,
    table: &scenic_ir::program::Table,
    position: u32,
    slot: Option<usize>,
    above: (usize, usize),
) -> R<()> {
    let Some(&action) = table.actions.get(position as usize) else {
        return Ok(());
    };
    let abase = cx.abase;
    run_action(cx, action, above, |frames, base, shape| {
        let Frames {
            values, applies, ..
        } = frames;
        let args = slot
            .and_then(|s| applies.get(abase + s))
            .map_or(&[][..], |a| &a.args);
        set_params(shape, values, base, args);
    })
}

/// [`lookup`] of keys given as values (see [`super::TableCode::narrow`]); `None` when the table
/// is looked up by `Bits` (an exact table), and nothing was recorded.
fn lookup_values(cx: &mut Cx<'_>, t: TableId, slot: Option<usize>, keys: &[u128]) -> Option<u32> {
    let Cx {
        scu, frames, abase, ..
    } = cx;
    let state = scu.as_mut().and_then(|s| s.rt.tables.get_mut(t.index()))?;
    let found = state.find_values(keys)?.and_then(|i| state.entry(i));
    let (position, args) = match found {
        Some(entry) => (entry.action, &entry.args),
        None => (state.default.0, &state.default.1),
    };
    if let Some(applied) = slot.and_then(|s| frames.applies.get_mut(*abase + s)) {
        applied.action = Some(position);
        applied.args.clone_from(args);
    }
    Some(position)
}

/// Looks up the keys at `frames.scalars[start..]` in table `t` and records the result in
/// application slot `slot`; the action's position and whether an entry matched.
fn lookup(cx: &mut Cx<'_>, t: TableId, slot: Option<usize>, start: usize) -> (u32, bool) {
    let Cx {
        scu, frames, abase, ..
    } = cx;
    let Some(state) = scu.as_mut().and_then(|s| s.rt.tables.get_mut(t.index())) else {
        return (0, false);
    };
    let Frames {
        scalars, applies, ..
    } = &mut **frames;
    let keys = scalars.get(start..).unwrap_or(&[]);
    let found = state.find(keys).and_then(|i| state.entry(i));
    let (position, args, hit) = match found {
        Some(entry) => (entry.action, &entry.args, true),
        None => (state.default.0, &state.default.1, false),
    };
    if let Some(applied) = slot.and_then(|s| applies.get_mut(*abase + s)) {
        applied.action = Some(position);
        applied.args.clone_from(args);
    }
    (position, hit)
}
