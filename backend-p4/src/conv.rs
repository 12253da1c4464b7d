//! IR types, constants and match kinds in P4_16 spelling.
//!
//! Every scalar is a bit pattern of a known width in the IR, and so it is in P4: `bit<N>` and
//! `bool` keep their meaning, `int<N>` becomes P4's signed `int<N>`, and the types whose operators
//! only read the pattern differently (`fixed<I,F>`, `duration`/`size`/`rate`, enums) become
//! `bit<W>` of their width; the writer spells their operators out (a fixed-point product is a
//! widened multiply and a shift). Literals carry their width (`16w0x800`), so no P4 type inference
//! can change a value.

use num_bigint::BigUint;
use num_traits::{One, Zero};
use scenic_ir::{Const, MatchKind, Module, Type};

/// The P4 type of a scalar IR type, or `None` for aggregates (which the writer names itself).
pub fn scalar_type(ty: &Type, module: &Module) -> Option<String> {
    Some(match ty {
        Type::Bool => "bool".into(),
        Type::Int(n) => format!("int<{n}>"),
        Type::ParserError => "error".into(),
        _ => format!("bit<{}>", scalar_width(ty, module)?),
    })
}

/// The width of a scalar type's pattern.
pub fn scalar_width(ty: &Type, module: &Module) -> Option<u32> {
    ty.scalar_width(|e| module.enums.get(e).map_or(0, |def| def.width))
}

/// A constant of type `ty` as a P4 literal of the same width.
pub fn literal(value: &Const, ty: &Type, module: &Module) -> String {
    match ty {
        Type::Bool => if value.0.is_zero() { "false" } else { "true" }.into(),
        Type::Int(n) => signed_literal(&value.0, *n),
        _ => {
            let width = scalar_width(ty, module).unwrap_or(1).max(1);
            bits_literal(&value.0, width)
        }
    }
}

/// `<width>w<value>`: decimal below 256, hexadecimal above (as the IR printer does).
pub fn bits_literal(value: &BigUint, width: u32) -> String {
    if *value < BigUint::from(256u32) {
        format!("{width}w{value}")
    } else {
        format!("{width}w0x{value:x}")
    }
}

/// A signed literal: `8s5`, `-8s5`, and the minimum as a reinterpreted pattern.
fn signed_literal(pattern: &BigUint, width: u32) -> String {
    let half = BigUint::one() << (width.saturating_sub(1) as usize);
    if *pattern < half {
        return format!("{width}s{pattern}");
    }
    let magnitude = (BigUint::one() << width as usize) - pattern;
    if magnitude < half {
        format!("(-{width}s{magnitude})")
    } else {
        format!("((int<{width}>){})", bits_literal(pattern, width))
    }
}

/// The P4 match kind.
pub fn match_kind(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "exact",
        MatchKind::Lpm => "lpm",
        MatchKind::Ternary => "ternary",
        MatchKind::Range => "range",
    }
}

/// The mask of the top `len` bits of a `width`-bit value.
pub fn prefix_mask(len: u32, width: u32) -> BigUint {
    let all = (BigUint::one() << width as usize) - BigUint::one();
    let low = (BigUint::one() << width.saturating_sub(len) as usize) - BigUint::one();
    all ^ low
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_keep_their_width() {
        let m = Module::default();
        assert_eq!(
            literal(&Const::from_u64(0x800), &Type::Bits(16), &m),
            "16w0x800"
        );
        assert_eq!(literal(&Const::from_u64(5), &Type::Bits(4), &m), "4w5");
        assert_eq!(literal(&Const::from_u64(1), &Type::Bool, &m), "true");
        assert_eq!(literal(&Const::from_u64(0xfb), &Type::Int(8), &m), "(-8s5)");
        assert_eq!(
            literal(&Const::from_u64(0x80), &Type::Int(8), &m),
            "((int<8>)8w128)"
        );
        assert_eq!(literal(&Const::from_u64(3), &Type::Int(8), &m), "8s3");
        assert_eq!(prefix_mask(8, 32), BigUint::from(0xff00_0000u32));
        assert_eq!(prefix_mask(0, 32), BigUint::zero());
    }
}
