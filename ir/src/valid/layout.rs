//! Validating header, struct and enum layouts, and computing their sizes.
//!
//! Checks: header fields are `bit<N>`/`int<N>` (`HeaderFieldType`) of valid widths, each starting
//! where the previous one ends (`HeaderFieldOffset`), `bits` is their sum (`HeaderBits`) and a
//! multiple of 8 (`HeaderNotBytes`); struct field types are well-formed and no struct contains
//! itself, directly or through arrays and other structs (`StructCycle`); enums are at least one bit
//! wide and their values fit (`ConstTooWide`).

use super::error::{Location, ValidationError};
use super::info::HeaderInfo;
use super::types::{check_type, Types};
use crate::entities::{HeaderId, StructId};
use crate::program::Module;
use crate::span::Span;
use crate::types::Type;
use cranelift_entity::SecondaryMap;
use petgraph::algo::toposort;
use petgraph::graphmap::DiGraphMap;

/// Checks header layouts and computes their sizes.
pub(super) fn check_headers(
    module: &Module,
) -> Result<SecondaryMap<HeaderId, HeaderInfo>, ValidationError> {
    let mut infos = SecondaryMap::new();
    for (id, h) in &module.headers {
        let mut offset = 0u32;
        let mut fields = Vec::new();
        for (i, f) in h.fields.iter().enumerate() {
            let field = i as u32;
            let width = match f.ty {
                Type::Bits(w) | Type::Int(w) => w,
                _ => {
                    return Err(ValidationError::HeaderFieldType {
                        header: id,
                        field,
                        ty: f.ty.clone(),
                    })
                }
            };
            check_type(module, None, &f.ty, Location::Header(id), Span::default())?;
            if f.offset != offset {
                return Err(ValidationError::HeaderFieldOffset {
                    header: id,
                    field,
                    expected: offset,
                    found: f.offset,
                });
            }
            fields.push((offset, width));
            offset = offset.saturating_add(width);
        }
        if h.bits != offset {
            return Err(ValidationError::HeaderBits {
                header: id,
                expected: offset,
                found: h.bits,
            });
        }
        if h.bits % 8 != 0 {
            return Err(ValidationError::HeaderNotBytes {
                header: id,
                bits: h.bits,
            });
        }
        infos[id] = HeaderInfo {
            bytes: h.bits / 8,
            fields,
        };
    }
    Ok(infos)
}

/// The structs a type contains directly (through arrays).
fn contained(ty: &Type, out: &mut Vec<StructId>) {
    match ty {
        Type::Struct(s) => out.push(*s),
        Type::Array(elem, _) => contained(elem, out),
        Type::Tuple(items) => items.iter().for_each(|t| contained(t, out)),
        _ => {}
    }
}

/// Checks struct layouts and computes the width of every struct value.
pub(super) fn check_structs(
    module: &Module,
) -> Result<SecondaryMap<StructId, u64>, ValidationError> {
    let mut graph: DiGraphMap<StructId, ()> = DiGraphMap::new();
    for (id, s) in &module.structs {
        graph.add_node(id);
        for f in &s.fields {
            check_type(module, None, &f.ty, Location::Struct(id), Span::default())?;
            let mut inner = Vec::new();
            contained(&f.ty, &mut inner);
            for other in inner {
                graph.add_edge(id, other, ());
            }
        }
    }
    let order = toposort(&graph, None).map_err(|cycle| ValidationError::StructCycle {
        strukt: cycle.node_id(),
    })?;
    let mut bits: SecondaryMap<StructId, u64> = SecondaryMap::new();
    // Contained structs come after their containers: compute from the end.
    for id in order.into_iter().rev() {
        let total = {
            let types = Types {
                module,
                struct_bits: &bits,
            };
            let fields = module.structs.get(id).map_or(&[][..], |s| &s.fields);
            fields
                .iter()
                .map(|f| types.width(&f.ty))
                .fold(0u64, u64::saturating_add)
        };
        bits[id] = total;
    }
    Ok(bits)
}

/// Checks enums: a width of at least one bit and values that fit it.
pub(super) fn check_enums(types: &Types<'_>) -> Result<(), ValidationError> {
    for (id, e) in &types.module.enums {
        let at = Location::Enum(id);
        if e.width == 0 || e.width > super::types::MAX_BITS {
            return Err(ValidationError::BadType {
                at,
                ty: Type::Enum(id),
                span: Span::default(),
            });
        }
        for (_, value) in &e.variants {
            types.check_const(value, &Type::Enum(id), at, Span::default())?;
        }
    }
    Ok(())
}
