//! The construct names `smith --stats` counts for operators, comparisons and casts (one name per
//! operator and cast kind of language.md §4), kept apart from the generator that emits them.

use super::gen_types::Ty;

/// The `--stats` name of an integer operator.
pub fn int_op_name(op: &str) -> &'static str {
    match op {
        "+" => "expr.int.add",
        "-" => "expr.int.sub",
        "*" => "expr.int.mul",
        "/" => "expr.int.div",
        "%" => "expr.int.rem",
        "&" => "expr.int.and",
        "|" => "expr.int.or",
        "^" => "expr.int.xor",
        "|+|" => "expr.int.sat-add",
        _ => "expr.int.sat-sub",
    }
}

/// The `--stats` name of a bool operator.
pub fn bool_op_name(op: &str) -> &'static str {
    match op {
        "&&" => "expr.bool.and-then",
        "||" => "expr.bool.or-else",
        "&" => "expr.bool.and",
        "|" => "expr.bool.or",
        _ => "expr.bool.xor",
    }
}

/// The `--stats` name of a fixed-point operator.
pub fn fixed_op_name(op: &str) -> &'static str {
    match op {
        "+" => "expr.fixed.add",
        "-" => "expr.fixed.sub",
        "*" => "expr.fixed.mul",
        "/" => "expr.fixed.div",
        "|+|" => "expr.fixed.sat-add",
        _ => "expr.fixed.sat-sub",
    }
}

/// The `--stats` name of a unit operator.
pub fn unit_op_name(op: &str) -> &'static str {
    match op {
        "+" => "expr.unit.add",
        "-" => "expr.unit.sub",
        "|+|" => "expr.unit.sat-add",
        _ => "expr.unit.sat-sub",
    }
}

/// The `--stats` name of a comparison of `ty` values.
pub fn cmp_name(ty: &Ty) -> &'static str {
    match ty {
        Ty::Bit(_) => "expr.cmp.bit",
        Ty::Int(_) => "expr.cmp.int",
        Ty::Bool => "expr.cmp.bool",
        Ty::Fixed(..) => "expr.cmp.fixed",
        Ty::Unit(_) => "expr.cmp.unit",
        _ => "expr.cmp.enum",
    }
}

/// The `--stats` name of a cast from `from` to `to`.
pub fn cast_name(from: &Ty, to: &Ty) -> &'static str {
    match (from, to) {
        (Ty::Bit(_), Ty::Bit(_)) => "cast.bit-to-bit",
        (Ty::Int(_), Ty::Bit(_)) => "cast.int-to-bit",
        (Ty::Fixed(..), Ty::Bit(_)) => "cast.fixed-to-bit",
        (Ty::Bool, _) => "cast.bool-to-bit1",
        (Ty::Unit(_), _) => "cast.unit-to-bit64",
        (Ty::Enum(_), _) => "cast.enum-to-bit",
        (Ty::Bit(_), Ty::Int(_)) => "cast.bit-to-int",
        (Ty::Int(_), Ty::Int(_)) => "cast.int-to-int",
        (_, Ty::Bool) => "cast.bit1-to-bool",
        (Ty::Fixed(..), Ty::Fixed(..)) => "cast.fixed-to-fixed",
        (_, Ty::Fixed(..)) => "cast.bit-to-fixed",
        _ => "cast.other",
    }
}
