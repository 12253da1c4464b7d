//! Types during validation: well-formedness, value widths, constants and casts.
//!
//! A type is well-formed when every id in it exists (a `TableResult` needs the owning scu), `bit<N>`
//! and `int<N>` have 1 ≤ N ≤ [`MAX_BITS`], `fixed<I,F>` has 1 ≤ I+F ≤ 64, and arrays have at least
//! one element. Widths are computed only after the struct graph is known to be acyclic, so
//! [`Types::width`] always terminates.

use super::error::{AnyId, Location, ValidationError};
use crate::entities::StructId;
use crate::program::{Module, Scu};
use crate::span::Span;
use crate::types::{Const, Type};
use cranelift_entity::SecondaryMap;

/// The widest `bit<N>`/`int<N>` (docs/language.md §3.13).
pub(super) const MAX_BITS: u32 = 1024;

/// Type facts about one module, once its layouts are checked.
pub(super) struct Types<'a> {
    pub(super) module: &'a Module,
    /// Total width of every struct value.
    pub(super) struct_bits: &'a SecondaryMap<StructId, u64>,
}

impl Types<'_> {
    /// The width of a scalar type's bit pattern (enum widths from the module).
    pub(super) fn scalar(&self, ty: &Type) -> Option<u32> {
        ty.scalar_width(|e| self.module.enums.get(e).map_or(0, |d| d.width))
    }

    /// The number of bits a value of `ty` occupies: scalars their width, aggregates the sum of
    /// their parts, a header its layout plus the validity bit.
    pub(super) fn width(&self, ty: &Type) -> u64 {
        match ty {
            Type::Header(h) => self
                .module
                .headers
                .get(*h)
                .map_or(0, |l| u64::from(l.bits) + 1),
            Type::Struct(s) => self.struct_bits[*s],
            Type::Array(elem, n) => self.width(elem).saturating_mul(u64::from(*n)),
            Type::Tuple(items) => items.iter().map(|t| self.width(t)).sum(),
            Type::Unit => 0,
            _ => self.scalar(ty).map_or(0, u64::from),
        }
    }

    /// Checks that `c` fits a value of `ty`.
    pub(super) fn check_const(
        &self,
        c: &Const,
        ty: &Type,
        at: Location,
        span: Span,
    ) -> Result<(), ValidationError> {
        let width = self.width(ty);
        if fits(c, width) {
            Ok(())
        } else {
            Err(ValidationError::ConstTooWide { at, width, span })
        }
    }
}

/// Whether `c` has at most `width` significant bits.
pub(super) fn fits(c: &Const, width: u64) -> bool {
    c.0.bits() <= width
}

/// Checks that `ty` is well-formed; `scu` is the unit whose tables `TableResult` may name.
pub(super) fn check_type(
    module: &Module,
    scu: Option<&Scu>,
    ty: &Type,
    at: Location,
    span: Span,
) -> Result<(), ValidationError> {
    let bad = || ValidationError::BadType {
        at,
        ty: ty.clone(),
        span,
    };
    let missing = |id| ValidationError::InvalidId { at, id, span };
    match ty {
        Type::Bits(n) | Type::Int(n) if *n == 0 || *n > MAX_BITS => Err(bad()),
        Type::Fixed { int, frac } if !(1..=64).contains(&int.saturating_add(*frac)) => Err(bad()),
        Type::Enum(e) if module.enums.get(*e).is_none() => Err(missing(AnyId::Enum(*e))),
        Type::Header(h) if module.headers.get(*h).is_none() => Err(missing(AnyId::Header(*h))),
        Type::Struct(s) if module.structs.get(*s).is_none() => Err(missing(AnyId::Struct(*s))),
        Type::TableResult(t) if scu.and_then(|s| s.tables.get(*t)).is_none() => {
            Err(missing(AnyId::Table(*t)))
        }
        Type::Array(_, 0) => Err(bad()),
        Type::Array(elem, _) => check_type(module, scu, elem, at, span),
        Type::Tuple(items) => items
            .iter()
            .try_for_each(|t| check_type(module, scu, t, at, span)),
        _ => Ok(()),
    }
}

/// Whether docs/language.md §4.9 defines a cast from `from` to `to` (`enum_width` gives the width
/// of an enum's representation).
pub(super) fn cast_ok(
    from: &Type,
    to: &Type,
    enum_width: impl Fn(crate::entities::EnumId) -> u32,
) -> bool {
    use Type::*;
    if from == to {
        return true;
    }
    match (from, to) {
        (Bits(_) | Int(_), Bits(_) | Int(_)) => true,
        (Bool, Bits(1)) | (Bits(1), Bool) => true,
        (Enum(e), Bits(n)) => enum_width(*e) == *n,
        (Fixed { .. }, Fixed { .. }) | (Fixed { .. }, Bits(_)) | (Bits(_), Fixed { .. }) => true,
        (Quantity(_), Bits(64)) | (Bits(64), Quantity(_)) => true,
        _ => false,
    }
}

/// Whether a type is a number operators compute on: `bit`, `int`, fixed or a quantity.
pub(super) fn is_numeric(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Bits(_) | Type::Int(_) | Type::Fixed { .. } | Type::Quantity(_)
    )
}

/// Whether a type is `bit<N>` or `int<N>`.
pub(super) fn is_integer(ty: &Type) -> bool {
    matches!(ty, Type::Bits(_) | Type::Int(_))
}
