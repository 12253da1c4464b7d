//! Printing expressions, places, patterns and constants.
//!
//! An expression prints inline, as nested text, where its single user prints it: operators and
//! intrinsics in prefix form (`add(v0, 1:bit<8>)`, `mul_scaled<15>(a, b)`, `crc32(x)`), members with
//! their ids (`csr0`, `map1.get(k)`, `inst2.ttl`), constants with their type (`1:bit<8>`,
//! `-3:int<8>`, `true`), casts with their target type (`cast<bit<16>>(e)`). An operand that is out
//! of range or not older than its parent (which the validator rejects) prints as `!e7` instead of
//! being followed, so printing terminates on any module.

use super::Cx;
use crate::body::{BeatField, BinaryOp, Expr, Intrinsic, PacketField, Pattern, Place, UnaryOp};
use crate::entities::{ExprId, InstId};
use crate::types::{Const, Type};
use num_bigint::{BigInt, BigUint};
use std::fmt::{self, Write};

/// The prefix spelling of a unary operator.
pub(super) fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "neg",
        UnaryOp::Not => "not",
        UnaryOp::BitNot => "bitnot",
    }
}

/// Writes the prefix spelling of a binary operator (`add`, `mul_scaled<15>`).
pub(super) fn write_binary_name(w: &mut impl Write, op: BinaryOp) -> fmt::Result {
    let name = match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::SatAdd => "sat_add",
        BinaryOp::SatSub => "sat_sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::Rem => "rem",
        BinaryOp::And => "and",
        BinaryOp::Or => "or",
        BinaryOp::Xor => "xor",
        BinaryOp::Shl => "shl",
        BinaryOp::Shr => "shr",
        BinaryOp::Concat => "concat",
        BinaryOp::Eq => "eq",
        BinaryOp::Ne => "ne",
        BinaryOp::Lt => "lt",
        BinaryOp::Le => "le",
        BinaryOp::Gt => "gt",
        BinaryOp::Ge => "ge",
        BinaryOp::LogicalAnd => "logical_and",
        BinaryOp::LogicalOr => "logical_or",
        BinaryOp::MulScaled(frac) => return write!(w, "mul_scaled<{frac}>"),
        BinaryOp::DivScaled(frac) => return write!(w, "div_scaled<{frac}>"),
    };
    w.write_str(name)
}

/// The spelling of an intrinsic.
pub(super) fn intrinsic_name(i: Intrinsic) -> &'static str {
    match i {
        Intrinsic::Min => "min",
        Intrinsic::Max => "max",
        Intrinsic::Crc32 => "crc32",
        Intrinsic::Crc16 => "crc16",
        Intrinsic::Murmur3 => "murmur3",
        Intrinsic::Toeplitz => "toeplitz",
        Intrinsic::OnesComplement => "ones_complement",
        Intrinsic::ChecksumUpdate => "checksum_update",
    }
}

/// Writes a constant's value as its type reads it: signed decimal for `int<N>`, `true`/`false` for
/// `bool`, the bit pattern otherwise (decimal below 256, hex above).
pub(super) fn write_value(w: &mut impl Write, c: &Const, ty: &Type) -> fmt::Result {
    match ty {
        Type::Bool if c.0 <= BigUint::from(1u32) => w.write_str(if c.0 == BigUint::from(1u32) {
            "true"
        } else {
            "false"
        }),
        Type::Int(n) if *n > 0 && c.0.bit(u64::from(*n - 1)) => {
            let v = BigInt::from(c.0.clone()) - (BigInt::from(1) << *n as usize);
            write!(w, "{v}")
        }
        _ => write!(w, "{c}"),
    }
}

/// Writes a typed constant: `5:bit<8>`, `-1:int<8>`, `true`.
pub(super) fn write_const(w: &mut impl Write, c: &Const, ty: &Type) -> fmt::Result {
    write_value(w, c, ty)?;
    if *ty == Type::Bool && c.0 <= BigUint::from(1u32) {
        return Ok(());
    }
    write!(w, ":{ty}")
}

impl Cx<'_> {
    /// Writes expression `id` as used by a statement (or a table key, or a transition).
    pub(super) fn expr(&self, w: &mut impl Write, id: ExprId) -> fmt::Result {
        match self.body.exprs.get(id) {
            Some(e) => self.expr_node(w, id, e),
            None => write!(w, "!{id}"),
        }
    }

    /// Writes operand `op` of expression `parent`, or `!eN` if it breaks the ordering rule.
    fn operand(&self, w: &mut impl Write, parent: ExprId, op: ExprId) -> fmt::Result {
        if op < parent {
            self.expr(w, op)
        } else {
            write!(w, "!{op}")
        }
    }

    /// Writes operands separated by commas.
    fn operands(&self, w: &mut impl Write, parent: ExprId, ops: &[ExprId]) -> fmt::Result {
        for (i, op) in ops.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            self.operand(w, parent, *op)?;
        }
        Ok(())
    }

    /// `name(ops)`.
    fn call_form(
        &self,
        w: &mut impl Write,
        parent: ExprId,
        name: &str,
        ops: &[ExprId],
    ) -> fmt::Result {
        write!(w, "{name}(")?;
        self.operands(w, parent, ops)?;
        w.write_str(")")
    }

    /// `inst1` or `inst1[<index>]`.
    fn instance(
        &self,
        w: &mut impl Write,
        parent: Option<ExprId>,
        inst: InstId,
        index: Option<ExprId>,
    ) -> fmt::Result {
        write!(w, "{inst}")?;
        if let Some(index) = index {
            w.write_str("[")?;
            match parent {
                Some(p) => self.operand(w, p, index)?,
                None => self.expr(w, index)?,
            }
            w.write_str("]")?;
        }
        Ok(())
    }

    /// `.name` for field `field` of a value of type `ty` (a struct or header), `.#N` if unknown.
    fn field_of(&self, w: &mut impl Write, ty: Option<&Type>, field: u32) -> fmt::Result {
        let fields = match ty {
            Some(Type::Struct(s)) => self.module.structs.get(*s).map(|l| &l.fields),
            Some(Type::Header(h)) => self.module.headers.get(*h).map(|l| &l.fields),
            _ => None,
        };
        match fields.and_then(|f| f.get(field as usize)) {
            Some(f) => write!(w, ".{}", f.name),
            None => write!(w, ".#{field}"),
        }
    }

    /// The layout type of a header instance of the current scu.
    fn inst_type(&self, inst: InstId) -> Option<Type> {
        self.scu
            .and_then(|s| s.instances.get(inst))
            .map(|i| Type::Header(i.header))
    }

    /// The current scu's `meta` struct type.
    fn meta_type(&self) -> Option<Type> {
        self.scu.and_then(|s| s.meta).map(Type::Struct)
    }

    fn expr_node(&self, w: &mut impl Write, id: ExprId, e: &Expr) -> fmt::Result {
        match e {
            Expr::Const(c) => {
                let ty = &self.body.types[id];
                write_const(w, c, ty)?;
                if matches!(ty, Type::Enum(_)) {
                    self.value_note(w, c, ty)?;
                }
                Ok(())
            }
            Expr::Local(l) => write!(w, "{l}"),
            Expr::Csr(c) => write!(w, "{c}"),
            Expr::Meta(f) => {
                w.write_str("meta")?;
                self.field_of(w, self.meta_type().as_ref(), *f)
            }
            Expr::Header { inst, index } => self.instance(w, Some(id), *inst, *index),
            Expr::HeaderField { inst, index, field } => {
                self.instance(w, Some(id), *inst, *index)?;
                self.field_of(w, self.inst_type(*inst).as_ref(), *field)
            }
            Expr::HeaderValid { inst, index } => {
                w.write_str("valid(")?;
                self.instance(w, Some(id), *inst, *index)?;
                w.write_str(")")
            }
            Expr::Packet(f) => w.write_str(match f {
                PacketField::Len => "packet.len",
                PacketField::Port => "packet.port",
                PacketField::Timestamp => "packet.timestamp",
            }),
            Expr::Beat(f) => w.write_str(match f {
                BeatField::Last => "beat.last",
                BeatField::Keep => "beat.keep",
            }),
            Expr::FlowId => w.write_str("flow_id"),
            Expr::CcState(s) => write!(w, "{s}"),
            Expr::CcParam(p) => write!(w, "{p}"),
            _ => self.compound(w, id, e),
        }
    }

    /// Expressions with operands.
    fn compound(&self, w: &mut impl Write, id: ExprId, e: &Expr) -> fmt::Result {
        match e {
            Expr::Field { base, field } => {
                self.operand(w, id, *base)?;
                self.field_of(w, self.body.types.get(*base), *field)
            }
            Expr::Index { base, index } => {
                self.operand(w, id, *base)?;
                w.write_str("[")?;
                self.operand(w, id, *index)?;
                w.write_str("]")
            }
            Expr::Slice { base, hi, lo } => {
                self.operand(w, id, *base)?;
                write!(w, "[{hi}:{lo}]")
            }
            Expr::SliceDyn { base, lo, width } => {
                self.operand(w, id, *base)?;
                w.write_str("[")?;
                self.operand(w, id, *lo)?;
                write!(w, " +: {width}]")
            }
            Expr::Unary(op, a) => self.call_form(w, id, unary_name(*op), &[*a]),
            Expr::Binary(op, a, b) => {
                write_binary_name(w, *op)?;
                w.write_str("(")?;
                self.operands(w, id, &[*a, *b])?;
                w.write_str(")")
            }
            Expr::Select(c, a, b) => self.call_form(w, id, "select", &[*c, *a, *b]),
            Expr::Cast(a) => {
                write!(w, "cast<{}>(", self.body.types[id])?;
                self.operand(w, id, *a)?;
                w.write_str(")")
            }
            Expr::Call(f, args) => self.call_form(w, id, &f.to_string(), args),
            Expr::CallAction(a, args) => self.call_form(w, id, &a.to_string(), args),
            Expr::Intrinsic(i, args) => self.call_form(w, id, intrinsic_name(*i), args),
            Expr::Lookahead(n) => write!(w, "lookahead({n})"),
            _ => self.member(w, id, e),
        }
    }

    /// Map, meter and table expressions, and literals.
    fn member(&self, w: &mut impl Write, id: ExprId, e: &Expr) -> fmt::Result {
        match e {
            Expr::MapGet(m, k) => self.call_form(w, id, &format!("{m}.get"), &[*k]),
            Expr::MapContains(m, k) => self.call_form(w, id, &format!("{m}.contains"), &[*k]),
            Expr::MapInsert(m, k, v) => self.call_form(w, id, &format!("{m}.insert"), &[*k, *v]),
            Expr::MapRemove(m, k) => self.call_form(w, id, &format!("{m}.remove"), &[*k]),
            Expr::MeterExceeds(m, index, len) => {
                write!(w, "{m}")?;
                if let Some(index) = index {
                    w.write_str("[")?;
                    self.operand(w, id, *index)?;
                    w.write_str("]")?;
                }
                self.call_form(w, id, ".exceeds", &[*len])
            }
            Expr::Apply(t) => write!(w, "apply({t}) /* {id} */"),
            Expr::ActionData {
                apply,
                action,
                param,
            } => write!(w, "action_data({apply}, {action}, {param})"),
            Expr::StructLit(fields) => self.struct_lit(w, id, fields),
            Expr::ArrayLit(items) => {
                w.write_str("[")?;
                self.operands(w, id, items)?;
                w.write_str("]")
            }
            Expr::Tuple(items) => {
                w.write_str("(")?;
                self.operands(w, id, items)?;
                w.write_str(if items.len() == 1 { ",)" } else { ")" })
            }
            // Every other variant is printed by `expr_node` or `compound`.
            _ => write!(w, "!{id}"),
        }
    }

    /// `struct0 { a: x, b: y }`.
    fn struct_lit(&self, w: &mut impl Write, id: ExprId, values: &[ExprId]) -> fmt::Result {
        let ty = &self.body.types[id];
        write!(w, "{ty} {{")?;
        for (i, v) in values.iter().enumerate() {
            w.write_str(if i == 0 { " " } else { ", " })?;
            let mut name = String::new();
            self.field_of(&mut name, Some(ty), i as u32)?;
            write!(w, "{}: ", name.trim_start_matches('.'))?;
            self.operand(w, id, *v)?;
        }
        w.write_str(if values.is_empty() { "}" } else { " }" })
    }

    /// Writes an assignable place.
    pub(super) fn place(&self, w: &mut impl Write, p: &Place) -> fmt::Result {
        match p {
            Place::Local(l) => write!(w, "{l}"),
            Place::Csr(c) => write!(w, "{c}"),
            Place::Meta(f) => {
                w.write_str("meta")?;
                self.field_of(w, self.meta_type().as_ref(), *f)
            }
            Place::HeaderField { inst, index, field } => {
                self.instance(w, None, *inst, *index)?;
                self.field_of(w, self.inst_type(*inst).as_ref(), *field)
            }
            Place::Header { inst, index } => self.instance(w, None, *inst, *index),
            Place::CcState(s) => write!(w, "{s}"),
            Place::Field(base, field) => {
                self.place(w, base)?;
                self.field_of(w, self.place_type(base).as_ref(), *field)
            }
            Place::Index(base, index) => {
                self.place(w, base)?;
                w.write_str("[")?;
                self.expr(w, *index)?;
                w.write_str("]")
            }
            Place::Slice(base, hi, lo) => {
                self.place(w, base)?;
                write!(w, "[{hi}:{lo}]")
            }
        }
    }

    /// The type of a place, for naming its fields; `None` when it cannot be found.
    fn place_type(&self, p: &Place) -> Option<Type> {
        match p {
            Place::Local(l) => self.body.locals.get(*l).map(|l| l.ty.clone()),
            Place::Csr(c) => self.scu.and_then(|s| s.csrs.get(*c)).map(|c| c.ty.clone()),
            Place::Meta(f) => self.struct_field_type(self.meta_type()?, *f),
            Place::HeaderField { inst, field, .. } => {
                self.struct_field_type(self.inst_type(*inst)?, *field)
            }
            Place::Header { inst, .. } => self.inst_type(*inst),
            Place::CcState(s) => self.cc.and_then(|c| c.state.get(*s)).map(|s| s.ty.clone()),
            Place::Field(base, field) => self.struct_field_type(self.place_type(base)?, *field),
            Place::Index(base, _) => match self.place_type(base)? {
                Type::Array(elem, _) => Some(*elem),
                _ => None,
            },
            Place::Slice(_, hi, lo) => Some(Type::Bits(hi.saturating_sub(*lo).saturating_add(1))),
        }
    }

    /// The type of field `field` of a struct or header type.
    fn struct_field_type(&self, ty: Type, field: u32) -> Option<Type> {
        let fields = match ty {
            Type::Struct(s) => &self.module.structs.get(s)?.fields,
            Type::Header(h) => &self.module.headers.get(h)?.fields,
            _ => return None,
        };
        fields.get(field as usize).map(|f| f.ty.clone())
    }

    /// Writes a pattern matched against a value of type `ty`.
    pub(super) fn pattern(&self, w: &mut impl Write, p: &Pattern, ty: &Type) -> fmt::Result {
        match p {
            Pattern::Any => w.write_str("_"),
            Pattern::Value(c) => {
                write_value(w, c, ty)?;
                self.value_note(w, c, ty)
            }
            Pattern::Mask(v, m) => {
                write_value(w, v, ty)?;
                w.write_str(" &&& ")?;
                write_value(w, m, ty)
            }
            Pattern::Range(lo, hi) => {
                write_value(w, lo, ty)?;
                w.write_str("..=")?;
                write_value(w, hi, ty)
            }
            Pattern::Tuple(items) => {
                let tys = match ty {
                    Type::Tuple(t) => t.as_slice(),
                    _ => &[],
                };
                w.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        w.write_str(", ")?;
                    }
                    self.pattern(w, item, tys.get(i).unwrap_or(&Type::Unit))?;
                }
                w.write_str(")")
            }
        }
    }

    /// For values that stand for something named (an action of a table result, a parser error, an
    /// enum variant), ` /* name */`.
    fn value_note(&self, w: &mut impl Write, c: &Const, ty: &Type) -> fmt::Result {
        let Some(n) = c.to_u64().and_then(|n| usize::try_from(n).ok()) else {
            return Ok(());
        };
        let name = match ty {
            Type::TableResult(t) => self
                .scu
                .and_then(|s| {
                    s.tables
                        .get(*t)
                        .and_then(|t| t.actions.get(n))
                        .and_then(|a| s.actions.get(*a))
                })
                .map(|a| a.name.as_str()),
            Type::ParserError => self
                .scu
                .and_then(|s| s.errors.values().nth(n))
                .map(String::as_str),
            Type::Enum(e) => self
                .module
                .enums
                .get(*e)
                .and_then(|d| d.variants.iter().find(|(_, v)| v == c))
                .map(|(name, _)| name.as_str()),
            _ => None,
        };
        match name {
            Some(name) => write!(w, " /* {name} */"),
            None => Ok(()),
        }
    }
}
