//! Map ops: `MapGet`, `MapInsert`, `MapRemove`, `MapIterate`, and values to and from records.
//!
//! Records: the key in bits `0..key_bits`, the value after it, packed first field (element 0)
//! lowest ([`scenic_ir::record`]). `MapGet` reads without refreshing an `lru_hash` map's recency;
//! an absent key answers `NotFound` with a zero value (an `array` key below the size is always
//! present). `MapInsert` is the program's insert (an `lru_hash` map refreshes and may evict;
//! `Full` when a `hash` map is full or an `array` key is at or above the size).
//!
//! Iteration positions are the kernel's slots ([`iteration_slots`] of them): `MapIterate` at
//! `index` answers the first stored entry at a slot `>= index` with the next position (its
//! slot plus one), or `End` with the next position `iteration_slots` and a zero key and value. An `array`
//! map's slot is its key (every cell is present). A `hash`/`lru_hash` map of at most 16 keys is
//! a register CAM after 16 unused bank slots: slot `16 + i` holds the interpreter's slab slot
//! `i`, and both take the lowest free slot for a new key, so the positions are the kernel's. A
//! larger one hashes its keys into buckets (`scenic_hash_core.hpp`), an order this module does
//! not model: its positions are the interpreter's slab slots — every stored entry exactly once,
//! `End` as the kernel's — but not the kernel's order.

use super::{scu_state, Answer, Refused};
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::state::MapState;
use scenic_interp::value::{width_of, Value};
use scenic_interp::Machine;
use scenic_ir::entities::{MapId, ScuId};
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{Map, MapKind, Module};
use scenic_ir::types::{Const, Type};
use scenic_scu_abi::control::{get_field, MapControl, Request, ScuControl, Status};

/// Ways per bucket and keys of a register-CAM map (`scenic::hash_map`'s `WAYS`, `CAM`).
const WAYS: u64 = 8;
const CAM_MAX_KEYS: u64 = 16;

/// The kernel's iteration slots of a map of `kind` and `size` keys: the `End` position.
pub fn iteration_slots(kind: MapKind, size: u64) -> u64 {
    match kind {
        MapKind::Array => size,
        MapKind::Hash | MapKind::LruHash if size <= CAM_MAX_KEYS => 2 * WAYS + size,
        MapKind::Hash | MapKind::LruHash => {
            let buckets = size.div_ceil(WAYS).max(1).next_power_of_two();
            2 * buckets * WAYS + WAYS
        }
    }
}

/// The map at `target`: its layout, its definition and its state.
fn map<'a, 'm>(
    machine: &'a mut Machine<'m>,
    scu: ScuId,
    layout: &'a ScuControl,
    target: u16,
) -> Result<(&'a MapControl, &'m Map, &'a mut MapState), Refused> {
    let bad = || Refused::with(Status::BadTarget);
    let mc = layout
        .maps
        .iter()
        .find(|m| m.target == target)
        .ok_or_else(bad)?;
    let module: &'m Module = machine.module();
    let def = module
        .scus
        .get(scu)
        .and_then(|s| s.maps.get(MapId::new(usize::from(target))))
        .ok_or_else(bad)?;
    let state = scu_state(machine, scu)?
        .maps
        .get_mut(usize::from(target))
        .ok_or_else(bad)?;
    Ok((mc, def, state))
}

/// The key of a request record.
fn key_of(module: &Module, mc: &MapControl, def: &Map, data: &BigUint) -> Bits {
    Bits::from_biguint(width_of(&def.key, module), &get_field(data, 0, mc.key_bits))
}

/// A value's record bits (first field, element 0 lowest).
fn pack(module: &Module, ty: &Type, v: &Value) -> BigUint {
    match (ty, v) {
        (Type::Struct(s), Value::Struct(fields)) => {
            let types = module.structs.get(*s).map_or(&[][..], |l| &l.fields);
            pack_parts(module, types.iter().map(|f| &f.ty).zip(fields))
        }
        (Type::Array(elem, _), Value::Array(items)) => {
            pack_parts(module, std::iter::repeat(&**elem).zip(items))
        }
        (_, Value::Bits(b)) => b.to_biguint(),
        _ => BigUint::default(),
    }
}

fn pack_parts<'a>(module: &Module, parts: impl Iterator<Item = (&'a Type, &'a Value)>) -> BigUint {
    let mut out = BigUint::default();
    let mut at = 0u64;
    for (ty, v) in parts {
        out |= pack(module, ty, v) << at as usize;
        at += scenic_ir::record::value_bits(module, ty);
    }
    out
}

/// `MapGet`: the value of the key in `data`, without refreshing recency.
pub(super) fn get(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (mc, def, state) = map(machine, scu, layout, req.target)?;
    let value = state
        .peek(&key_of(module, mc, def, &req.data))
        .ok_or(Refused::with(Status::NotFound))?;
    Ok(pack(module, &def.value, &value))
}

/// `MapInsert`: the key and value in `data`.
pub(super) fn insert(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (mc, def, state) = map(machine, scu, layout, req.target)?;
    let key = key_of(module, mc, def, &req.data);
    let bits = get_field(&req.data, mc.key_bits, mc.value_bits);
    let value = Value::from_record(&def.value, &Const(bits), module);
    if !state.insert_from(&key, &value) {
        return Err(Refused::with(Status::Full));
    }
    Ok(BigUint::default())
}

/// `MapRemove`: the key in `data` (an `array` cell is zeroed).
pub(super) fn remove(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (mc, def, state) = map(machine, scu, layout, req.target)?;
    if !state.remove(&key_of(module, mc, def, &req.data)) {
        return Err(Refused::with(Status::NotFound));
    }
    Ok(BigUint::default())
}

/// `MapIterate`: the first stored entry at or after position `index` (see the module docs).
pub(super) fn iterate(
    machine: &mut Machine<'_>,
    scu: ScuId,
    layout: &ScuControl,
    req: &Request,
) -> Answer {
    let module = machine.module();
    let (mc, def, state) = map(machine, scu, layout, req.target)?;
    let pos = u64::from(req.index);
    let found = match def.kind {
        MapKind::Array if pos < def.size => {
            let key = Bits::from_u64(width_of(&def.key, module), pos);
            let value = state
                .peek(&key)
                .unwrap_or_else(|| Value::zero(&def.value, module));
            Some((key, value, pos))
        }
        MapKind::Array => None,
        MapKind::Hash | MapKind::LruHash => stored_from(state, def, pos),
    };
    let record = |key: &BigUint, value: &BigUint, next: u64| {
        key | (value << mc.key_bits as usize)
            | (BigUint::from(next) << (mc.key_bits + mc.value_bits) as usize)
    };
    match found {
        Some((key, value, slot)) => Ok(record(
            &key.to_biguint(),
            &pack(module, &def.value, &value),
            slot + 1,
        )),
        None => {
            let end = iteration_slots(def.kind, def.size);
            let zero = BigUint::default();
            Err(Refused(Status::End, record(&zero, &zero, end)))
        }
    }
}

/// The first entry of a hash or LRU map at a kernel slot `>= pos`: key, value and slot.
fn stored_from(state: &MapState, def: &Map, pos: u64) -> Option<(Bits, Value, u64)> {
    let base = if def.size <= CAM_MAX_KEYS {
        2 * WAYS
    } else {
        0
    };
    if pos >= iteration_slots(def.kind, def.size) {
        return None;
    }
    let first = pos.saturating_sub(base);
    (first..state.slot_count() as u64).find_map(|s| {
        let (k, v) = state.slot_entry(s as usize)?;
        Some((k, v, base + s))
    })
}
