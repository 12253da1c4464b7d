//! Struct-valued map writes from the host. STF's `map_write` takes scalar values only
//! (docs/testing.md), so smith writes a struct value the way the host does: a packed record
//! (`scenic_ir::record`, first field lowest) in a `MapInsert` request answered by
//! `scenic_sim::control::serve`, the reference of the kernel's control path.
//!
//! Invariant: the record holds a value of the map's value type — every enum field one of its
//! variants' values — so the write means the same on every variant of the module; a record that
//! no program value could equal would only test what the backends do with garbage.

use super::rng::Rng;
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::Machine;
use scenic_ir::entities::ScuId;
use scenic_ir::program::Module;
use scenic_ir::record::{pack, part_types};
use scenic_ir::types::{Const, Type};
use scenic_scu_abi::control::{ControlLayout, Op, Request, Status};

/// Record bits of a value of `ty`, drawn from `rng` field by field.
fn record(module: &Module, ty: &Type, rng: &mut Rng) -> BigUint {
    match ty {
        Type::Struct(_) | Type::Array(..) => {
            let parts: Vec<(Type, Const)> = part_types(module, ty)
                .into_iter()
                .map(|t| {
                    let bits = record(module, &t, rng);
                    (t, Const(bits))
                })
                .collect();
            pack(module, &parts).0
        }
        Type::Enum(e) => module
            .enums
            .get(*e)
            .filter(|d| !d.variants.is_empty())
            .map(|d| d.variants[rng.index(d.variants.len())].1 .0.clone())
            .unwrap_or_default(),
        other => {
            let width = scenic_ir::record::value_bits(module, other);
            let bytes = rng.bytes(width.div_ceil(8) as usize);
            let v = match rng.below(4) {
                0 => BigUint::default(),
                1 => BigUint::from(1u32),
                _ => BigUint::from_bytes_be(&bytes),
            };
            v & ((BigUint::from(1u32) << width as usize) - 1u32)
        }
    }
}

/// The host writes `key` of map `map` of `scu` with a value drawn from `seed`; the kernel's
/// status (`Ok`, `Full`, …) or why the request could not be made.
pub fn write(
    machine: &mut Machine<'_>,
    module: &Module,
    scu: ScuId,
    map: &str,
    key: u64,
    seed: u64,
) -> String {
    let info = match scenic_ir::valid::Validator::new().validate(module) {
        Ok(info) => info,
        Err(e) => return format!("invalid module: {e:?}"),
    };
    let mut layout = ControlLayout::new(module, &info);
    if scu.index() >= layout.scus.len() {
        return "no scu".into();
    }
    let sc = layout.scus.swap_remove(scu.index());
    let Some(mc) = sc.maps.iter().find(|m| m.name == map) else {
        return format!("no map {map}");
    };
    let Some(def) = module
        .scus
        .get(scu)
        .and_then(|s| s.maps.values().find(|m| m.name == map))
    else {
        return format!("no map {map}");
    };
    let mut rng = Rng::new(seed);
    let value = record(module, &def.value, &mut rng);
    let req = Request {
        op: Op::MapInsert,
        target: mc.target,
        index: 0,
        data: mc.encode_key_value(&BigUint::from(key), &value),
    };
    let response = scenic_sim::control::serve(machine, scu, &sc, &req);
    match response.status() {
        Some(Status::Ok) => "ok".into(),
        Some(s) => s.const_name().into(),
        None => format!("status {}", response.status),
    }
}
