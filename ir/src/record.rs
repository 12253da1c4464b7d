//! Aggregate constants as one bit pattern: the initial value of a struct or array `state` of a cc
//! (`CcState::init`) is a single [`Const`] holding the value's *record bits*, the layout in which
//! `scenic_scu_abi::control` packs records and the HLS kernel's `pack_*`/`unpack_*` read them: a struct's
//! first field and an array's element 0 in the least significant bits, each part [`value_bits`]
//! wide, nested parts packed the same way. A scalar's record bits are its bit pattern.
//!
//! Lowering builds such a constant with [`pack`]; the interpreter and the backends take it apart
//! with [`parts`].

use crate::program::Module;
use crate::types::{Const, Type};
use num_bigint::BigUint;
use num_traits::One;

/// The width of a value of `ty` in its record: scalars their width, a struct the sum of its
/// fields, an array its length times its element; 0 for what has no record (headers, tuples,
/// unit), which no aggregate constant holds.
pub fn value_bits(module: &Module, ty: &Type) -> u64 {
    match ty {
        Type::Struct(s) => module.structs.get(*s).map_or(0, |l| {
            l.fields.iter().map(|f| value_bits(module, &f.ty)).sum()
        }),
        Type::Array(elem, n) => value_bits(module, elem).saturating_mul(u64::from(*n)),
        Type::Header(_) | Type::Tuple(_) | Type::Unit => 0,
        other => other
            .scalar_width(|e| module.enums.get(e).map_or(8, |d| d.width))
            .map_or(0, u64::from),
    }
}

/// The types of the immediate parts of an aggregate type (a struct's fields in declaration order,
/// an array's elements from 0); empty for any other type.
pub fn part_types(module: &Module, ty: &Type) -> Vec<Type> {
    match ty {
        Type::Struct(s) => module.structs.get(*s).map_or_else(Vec::new, |l| {
            l.fields.iter().map(|f| f.ty.clone()).collect()
        }),
        Type::Array(elem, n) => (0..*n).map(|_| (**elem).clone()).collect(),
        _ => Vec::new(),
    }
}

/// Packs the record bits of the parts of an aggregate (first part lowest), each cut to its width.
pub fn pack(module: &Module, parts: &[(Type, Const)]) -> Const {
    let mut out = BigUint::default();
    let mut at = 0u64;
    for (ty, c) in parts {
        let width = value_bits(module, ty);
        out |= low(&c.0, width) << at as usize;
        at += width;
    }
    Const(out)
}

/// The record bits of each immediate part of a value of aggregate type `ty` whose record bits
/// are `c` (see the module documentation); empty for a scalar.
pub fn parts(module: &Module, ty: &Type, c: &Const) -> Vec<(Type, Const)> {
    let mut at = 0u64;
    part_types(module, ty)
        .into_iter()
        .map(|t| {
            let width = value_bits(module, &t);
            let bits = low(&(&c.0 >> at as usize), width);
            at += width;
            (t, Const(bits))
        })
        .collect()
}

fn low(v: &BigUint, width: u64) -> BigUint {
    v & ((BigUint::one() << width as usize) - BigUint::one())
}
