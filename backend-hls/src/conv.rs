//! IR types and constants → C++: scalar types as `ap_uint<N>`/`ap_int<N>`/`bool`, constants as
//! literals of exactly their type, and the language's casts (`docs/language.md` §4.9,
//! `scenic_ir::proc::ops::cast`) as C++ conversions of bit patterns.
//!
//! Invariant: every C++ expression the writer produces for a scalar IR expression has exactly the
//! C++ type [`scalar`] gives its IR type, so templates over `ap_uint<N>`/`ap_int<N>` deduce and
//! widths never grow silently.

use num_bigint::BigUint;
use scenic_ir::types::{Const, Type};
use scenic_ir::Module;

/// The width of a scalar type's bit pattern (`None` for aggregates and `Unit`).
pub fn width(module: &Module, ty: &Type) -> Option<u32> {
    ty.scalar_width(|e| module.enums.get(e).map_or(8, |d| d.width))
}

/// The C++ type of a scalar IR type.
pub fn scalar(module: &Module, ty: &Type) -> Option<String> {
    Some(match ty {
        Type::Bool => "bool".into(),
        Type::Int(n) => format!("ap_int<{n}>"),
        other => format!("ap_uint<{}>", width(module, other)?),
    })
}

/// `ap_uint<W>` for a width.
pub fn uint(w: u32) -> String {
    format!("ap_uint<{w}>")
}

/// The low `w` bits of a constant.
pub fn low(c: &BigUint, w: u32) -> BigUint {
    c & ((BigUint::from(1u32) << w as usize) - BigUint::from(1u32))
}

/// An unsigned literal of `w` bits holding the low `w` bits of `v`.
pub fn uint_literal(w: u32, v: &BigUint) -> String {
    let v = low(v, w);
    if w <= 64 {
        let x = v.iter_u64_digits().next().unwrap_or(0);
        if x < 10 {
            format!("ap_uint<{w}>({x})")
        } else if w <= 32 {
            format!("ap_uint<{w}>({x:#x}u)")
        } else {
            format!("ap_uint<{w}>({x:#x}ULL)")
        }
    } else {
        // Wider than a C++ integer: ap_[u]int's string constructor, radix 16.
        format!("ap_uint<{w}>(\"{v:x}\", 16)")
    }
}

/// A literal of scalar type `ty` with the bit pattern of `c` (truncated to the type's width).
pub fn literal(module: &Module, ty: &Type, c: &Const) -> String {
    let w = width(module, ty).unwrap_or(1);
    match ty {
        Type::Bool => {
            if low(&c.0, 1) == BigUint::from(0u32) {
                "false".into()
            } else {
                "true".into()
            }
        }
        Type::Int(n) => format!("ap_int<{n}>({})", uint_literal(*n, &c.0)),
        _ => uint_literal(w, &c.0),
    }
}

/// The zero value of a scalar type, as C++.
pub fn zero_scalar(module: &Module, ty: &Type) -> Option<String> {
    Some(match ty {
        Type::Bool => "false".into(),
        Type::Int(n) => format!("ap_int<{n}>(0)"),
        other => format!("ap_uint<{}>(0)", width(module, other)?),
    })
}

/// `x as to`, where `x` is a C++ expression of the scalar type `from`.
///
/// The pattern is first resized to the target width as the interpreter does (`fixed` sources drop
/// their fraction, `int` sources sign-extend, everything else zero-extends), then shifted into a
/// `fixed` target's integer part, then read as the target type.
pub fn cast(module: &Module, from: &Type, to: &Type, x: &str) -> String {
    if from == to {
        return x.to_string();
    }
    let Some(tw) = width(module, to) else {
        return x.to_string();
    };
    if let (Type::Fixed { frac: f, .. }, Type::Fixed { frac: g, .. }) = (from, to) {
        return if g >= f {
            format!("ap_uint<{tw}>(ap_uint<{tw}>({x}) << {})", g - f)
        } else {
            format!("ap_uint<{tw}>(({x}) >> {})", f - g)
        };
    }
    let source = match from {
        Type::Fixed { frac, .. } => format!("(({x}) >> {frac})"),
        _ => x.to_string(),
    };
    if *to == Type::Bool {
        // A wider value keeps its low bit (only `bit<1>` and `bool` reach here in valid programs).
        return format!("bool(ap_uint<1>({source}))");
    }
    let resized = format!("ap_uint<{tw}>({source})");
    match to {
        Type::Fixed { frac, .. } => format!("ap_uint<{tw}>({resized} << {frac})"),
        Type::Int(n) => format!("ap_int<{n}>({resized})"),
        _ => resized,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        let m = Module::default();
        assert_eq!(
            literal(&m, &Type::Bits(16), &Const::from_u64(0x800)),
            "ap_uint<16>(0x800u)"
        );
        assert_eq!(
            literal(&m, &Type::Bits(8), &Const::from_u64(300)),
            "ap_uint<8>(0x2cu)"
        );
        assert_eq!(
            literal(&m, &Type::Int(8), &Const::from_u64(0xff)),
            "ap_int<8>(ap_uint<8>(0xffu))"
        );
        assert_eq!(literal(&m, &Type::Bool, &Const::from_u64(1)), "true");
        assert_eq!(
            literal(&m, &Type::Bits(128), &Const::from_u64(0xabc)),
            "ap_uint<128>(\"abc\", 16)"
        );
        assert_eq!(
            literal(&m, &Type::Bits(48), &Const::from_u64(3)),
            "ap_uint<48>(3)"
        );
    }

    #[test]
    fn casts() {
        let m = Module::default();
        assert_eq!(
            cast(&m, &Type::Bits(8), &Type::Bits(16), "x"),
            "ap_uint<16>(x)"
        );
        assert_eq!(
            cast(&m, &Type::Bits(8), &Type::Int(8), "x"),
            "ap_int<8>(ap_uint<8>(x))"
        );
        assert_eq!(
            cast(&m, &Type::Bits(1), &Type::Bool, "x"),
            "bool(ap_uint<1>(x))"
        );
        let f = Type::Fixed { int: 1, frac: 15 };
        assert_eq!(cast(&m, &f, &Type::Bits(8), "x"), "ap_uint<8>(((x) >> 15))");
    }
}
