//! Narrow scalars: expressions of at most 64 bits that cannot stop the packet, compiled to
//! closures that yield a plain `u64`.
//!
//! Most of what a packet program computes is narrow: header fields, `meta` fields, locals and the
//! fields of struct locals, CSRs, and the operators, slices and casts over them. A [`Scalar`] closure
//! returns a `Result<Bits, Halt>` (32 bytes through memory); a [`Narrow`] closure returns its value in
//! a register, with no width to carry (the width is known when compiling) and nothing to check for
//! a stop (a narrow tree contains no call, table application, map operation or `lookahead`, the only
//! expressions that can stop a packet). The consumers that matter (conditions, `let`, scrutinees of
//! `match` and parser selects, and [`Compiler::scalar`] itself) take the narrow form when there is one.
//!
//! Invariants: a narrow value is below 2^width of its expression; the operators compute exactly what
//! [`scenic_ir::proc::ops`] computes on [`Bits`] of the same widths (the tests compare them on random
//! operands of every width); where the `Bits` code would read a missing value (no packet, no such
//! local) as a zero, the narrow code reads a zero too.

use super::{Compiler, Scalar};
use crate::context::Cx;
use crate::headers::HeaderStore;
use crate::value::{Part, Value};
use cranelift_entity::EntityRef;
use scenic_ir::body::{BinaryOp, Expr, PacketField, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::ops::{self, CastPlan, Kernel};
use scenic_ir::types::Type;

/// A compiled narrow expression.
pub(crate) type Narrow = Box<dyn Fn(&mut Cx<'_>) -> u64 + Send + Sync>;

/// The widest narrow value.
const MAX: u32 = 64;

/// The low `w` bits set (all 64 for `w >= 64`).
#[inline]
pub(crate) fn mask(w: u32) -> u64 {
    u64::MAX.checked_shr(64u32.saturating_sub(w)).unwrap_or(0)
}

/// The mask of a slice `[hi:lo]`: its `hi - lo + 1` bits, as [`Bits::slice`] takes them (none when
/// `hi < lo`).
#[inline]
fn slice_mask(hi: u32, lo: u32) -> u64 {
    match hi.checked_sub(lo) {
        Some(d) => mask(d.saturating_add(1)),
        None => 0,
    }
}

/// The value of a scalar slot as a `u64` (a zero for anything that is not a scalar).
#[inline]
fn bits_of(v: &Value) -> u64 {
    match v {
        Value::Bits(b) => b.to_u64(),
        _ => 0,
    }
}

/// The value of a part of an aggregate as a `u64`.
#[inline]
fn part_of(p: Part<'_>) -> u64 {
    match p {
        Part::Value(v) => bits_of(v),
        Part::Bits(b) => b.to_u64(),
        Part::Zero(_) | Part::Missing => 0,
    }
}

/// Where a chain of struct fields starts.
#[derive(Clone, Copy)]
enum Root {
    Local(usize),
    Meta(u32),
}

impl Root {
    #[inline]
    fn get<'c>(self, cx: &'c Cx<'_>) -> Part<'c> {
        let v = match self {
            Root::Local(slot) => Some(cx.local(slot)),
            Root::Meta(f) => cx.meta(f),
        };
        v.map_or(Part::Missing, Part::Value)
    }
}

impl Compiler<'_> {
    /// Whether expression `id` is narrow: a scalar of 1 to 64 bits whose whole tree is made of
    /// the expressions this module compiles. Decided without compiling anything.
    pub fn is_narrow(&self, id: ExprId) -> bool {
        let memo = self.narrow.get(id.index());
        if let Some(known) = memo.and_then(|m| m.get()) {
            return known;
        }
        let narrow = self.decide_narrow(id);
        if let Some(m) = memo {
            m.set(Some(narrow));
        }
        narrow
    }

    /// [`Compiler::is_narrow`] without the memo.
    fn decide_narrow(&self, id: ExprId) -> bool {
        let width = self.width(id);
        if !self.is_scalar(id) || width == 0 || width > MAX {
            return false;
        }
        match &self.body.exprs[id] {
            Expr::Const(_) | Expr::Local(_) | Expr::Csr(_) | Expr::Packet(_) => true,
            Expr::Meta(_) => true,
            Expr::HeaderField {
                inst,
                index: None,
                field,
            } => self.located(*inst, *field).is_some(),
            Expr::HeaderValid { index: None, .. } => true,
            Expr::ActionData { apply, .. } => self.apply_slot(*apply).is_some(),
            Expr::Field { .. } => self.field_chain(id).is_some(),
            Expr::Slice { base, .. } | Expr::Unary(_, base) => self.is_narrow(*base),
            // `&&` and `||` too: a narrow operand has no effect and cannot stop, so evaluating
            // the right one when the left decides is unobservable.
            Expr::Binary(_, l, r) => self.is_narrow(*l) && self.is_narrow(*r),
            Expr::Cast(inner) => {
                self.is_narrow(*inner)
                    && !matches!(
                        ops::cast_plan(self.ty(*inner), self.ty(id)),
                        CastPlan::General
                    )
            }
            _ => false,
        }
    }

    /// Compiles narrow expression `id` (see [`Compiler::is_narrow`]; anything else yields zero).
    pub fn narrow(&mut self, id: ExprId) -> Narrow {
        let width = self.width(id);
        match &self.body.exprs[id] {
            Expr::Const(c) => {
                let v = Bits::from_biguint(width, &c.0).to_u64();
                Box::new(move |_| v)
            }
            Expr::Local(l) => {
                let slot = l.index();
                Box::new(move |cx| bits_of(cx.local(slot)))
            }
            Expr::Csr(c) => {
                let c = c.index();
                Box::new(move |cx| {
                    let csr = cx.scu.as_ref().and_then(|s| s.rt.csrs.get(c));
                    csr.map_or(0, Bits::to_u64)
                })
            }
            Expr::Meta(f) => {
                let f = *f;
                Box::new(move |cx| cx.meta(f).map_or(0, bits_of))
            }
            Expr::HeaderField { inst, field, .. } => match self.located(*inst, *field) {
                Some(loc) => Box::new(move |cx| match &cx.pkt {
                    Some(p) => p.headers.field_u64_at(p.data, loc),
                    None => 0,
                }),
                None => Box::new(|_| 0),
            },
            Expr::HeaderValid { inst, .. } => {
                let inst = *inst;
                Box::new(move |cx| {
                    u64::from(cx.pkt.as_ref().is_some_and(|p| p.headers.valid(inst, 0)))
                })
            }
            Expr::Packet(f) => packet_field(*f),
            Expr::ActionData {
                apply,
                action,
                param,
            } => {
                let (slot, action, param) = (self.apply_slot(*apply), *action, *param as usize);
                Box::new(move |cx| {
                    let args = super::state::applied_args(cx, slot, action);
                    args.and_then(|a| a.get(param)).map_or(0, Bits::to_u64)
                })
            }
            Expr::Field { .. } => self.narrow_field(id),
            Expr::Slice { base, hi, lo } => {
                let (base, lo, m) = (self.narrow(*base), *lo, slice_mask(*hi, *lo));
                Box::new(move |cx| base(cx).checked_shr(lo).unwrap_or(0) & m)
            }
            Expr::Unary(op, a) => {
                let (a, m) = (self.narrow(*a), mask(width));
                match op {
                    UnaryOp::Neg => Box::new(move |cx| a(cx).wrapping_neg() & m),
                    UnaryOp::BitNot => Box::new(move |cx| !a(cx) & m),
                    UnaryOp::Not => Box::new(move |cx| u64::from(a(cx) == 0)),
                }
            }
            Expr::Binary(op, l, r) => self.narrow_binary(*op, *l, *r, id),
            Expr::Cast(inner) => {
                let plan = ops::cast_plan(self.ty(*inner), self.ty(id));
                let from = self.width(*inner);
                let a = self.narrow(*inner);
                Box::new(move |cx| cast(plan, from, width, a(cx)))
            }
            _ => Box::new(|_| 0),
        }
    }

    /// Narrow expression `id` as a [`Scalar`]: its operands narrow, its own operation in the
    /// same closure as the conversion to [`Bits`].
    pub fn narrow_root(&mut self, id: ExprId) -> Scalar {
        let width = self.width(id);
        match &self.body.exprs[id] {
            Expr::Binary(op, l, r) => {
                let (k, wl, wr) = (self.kernel(*op, *l, id), self.width(*l), self.width(*r));
                let (a, b) = (self.narrow(*l), self.operand(*r));
                match b {
                    Operand::Const(b) => {
                        Box::new(move |cx| Ok(Bits::from_u64(width, binary(k, wl, wr, a(cx), b))))
                    }
                    Operand::Code(b) => Box::new(move |cx| {
                        let x = a(cx);
                        Ok(Bits::from_u64(width, binary(k, wl, wr, x, b(cx))))
                    }),
                }
            }
            Expr::Slice { base, hi, lo } => {
                let (base, lo, m) = (self.narrow(*base), *lo, slice_mask(*hi, *lo));
                Box::new(move |cx| {
                    let v = base(cx).checked_shr(lo).unwrap_or(0) & m;
                    Ok(Bits::from_u64(width, v))
                })
            }
            _ => {
                let n = self.narrow(id);
                Box::new(move |cx| Ok(Bits::from_u64(width, n(cx))))
            }
        }
    }

    /// Where a plain instance's field is in the running scu's header store.
    fn located(&self, inst: InstId, field: u32) -> Option<crate::headers::FieldLoc> {
        let scu = self.scu?;
        HeaderStore::new(self.module, scu)
            .locate(inst, field)
            .filter(|loc| loc.width() <= MAX)
    }

    /// A chain of struct fields on a local or `meta` (`stats.packets`): its root and fields, root
    /// first. Header-typed steps are left to the general code (their validity decides the value).
    fn field_chain(&self, id: ExprId) -> Option<(Root, Vec<u32>)> {
        let mut fields = Vec::new();
        let mut at = id;
        let root = loop {
            match self.body.exprs.get(at)? {
                Expr::Field { base, field } => {
                    if !matches!(self.ty(*base), Type::Struct(_)) {
                        return None;
                    }
                    fields.push(*field);
                    at = *base;
                }
                Expr::Local(l) => break Root::Local(l.index()),
                Expr::Meta(f) => break Root::Meta(*f),
                _ => return None,
            }
        };
        fields.reverse();
        Some((root, fields))
    }

    fn narrow_field(&mut self, id: ExprId) -> Narrow {
        match self.field_chain(id) {
            Some((root, fields)) => match *fields.as_slice() {
                [f] => Box::new(move |cx| part_of(root.get(cx).field(f))),
                [f, g] => Box::new(move |cx| part_of(root.get(cx).field(f).field(g))),
                _ => Box::new(move |cx| {
                    part_of(fields.iter().fold(root.get(cx), |p, &f| p.field(f)))
                }),
            },
            None => Box::new(|_| 0),
        }
    }

    fn narrow_binary(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId, id: ExprId) -> Narrow {
        let k = self.kernel(op, lhs, id);
        let (wl, wr) = (self.width(lhs), self.width(rhs));
        let l = self.narrow(lhs);
        let r = self.operand(rhs);
        specialize(k, wl, wr, l, r)
    }

    /// The right operand `id` of a narrow binary operator: a constant is captured as its value.
    pub fn operand(&mut self, id: ExprId) -> Operand {
        match &self.body.exprs[id] {
            Expr::Const(c) => Operand::Const(Bits::from_biguint(self.width(id), &c.0).to_u64()),
            _ => Operand::Code(self.narrow(id)),
        }
    }
}

/// The right operand of a binary operator.
pub(crate) enum Operand {
    Const(u64),
    Code(Narrow),
}

/// A closure for kernel `k` on `l` (of `wl` bits) and `r` (of `wr` bits): the kernels programs
/// use most get code of their own (the kernel is a constant in each arm, so [`binary`] folds to
/// its one operation).
fn specialize(k: Kernel, wl: u32, wr: u32, l: Narrow, r: Operand) -> Narrow {
    macro_rules! each {
        ($k:expr) => {
            match r {
                Operand::Const(b) => Box::new(move |cx| binary($k, wl, wr, l(cx), b)),
                Operand::Code(r) => Box::new(move |cx| {
                    let a = l(cx);
                    binary($k, wl, wr, a, r(cx))
                }),
            }
        };
    }
    macro_rules! compare {
        ($op:ident) => {
            each!(Kernel::Compare {
                op: BinaryOp::$op,
                signed: false
            })
        };
    }
    match k {
        Kernel::Add => each!(Kernel::Add),
        Kernel::Sub => each!(Kernel::Sub),
        Kernel::And => each!(Kernel::And),
        Kernel::Or => each!(Kernel::Or),
        Kernel::Xor => each!(Kernel::Xor),
        Kernel::SatAdd => each!(Kernel::SatAdd),
        Kernel::SatSub => each!(Kernel::SatSub),
        Kernel::Shl => each!(Kernel::Shl),
        Kernel::Shr => each!(Kernel::Shr),
        Kernel::Compare {
            op: BinaryOp::Eq,
            signed: false,
        } => compare!(Eq),
        Kernel::Compare {
            op: BinaryOp::Ne,
            signed: false,
        } => compare!(Ne),
        Kernel::Compare {
            op: BinaryOp::Lt,
            signed: false,
        } => compare!(Lt),
        Kernel::Compare {
            op: BinaryOp::Ge,
            signed: false,
        } => compare!(Ge),
        k => each!(k),
    }
}

/// Kernel `k` on `a` (of `wl` bits) and `b` (of `wr` bits): what [`Kernel::apply`] computes on
/// [`Bits`] of those widths. A right operand wider than the left is first truncated to the left's
/// width, as [`Bits`] does (except for shift amounts, read whole).
#[inline(always)]
pub(crate) fn binary(k: Kernel, wl: u32, wr: u32, a: u64, b: u64) -> u64 {
    let m = mask(wl);
    match k {
        Kernel::Add => a.wrapping_add(b & m) & m,
        Kernel::Sub => a.wrapping_sub(b & m) & m,
        Kernel::And => a & b,
        Kernel::Or => (a | b) & m,
        Kernel::Xor => (a ^ b) & m,
        Kernel::SatAdd => a.saturating_add(b & m).min(m),
        Kernel::SatSub => a.saturating_sub(b & m),
        Kernel::Mul => a.wrapping_mul(b & m) & m,
        Kernel::Shl if b < u64::from(wl) => (a << b) & m,
        Kernel::Shr if b < u64::from(wl) => a >> b,
        Kernel::Shl | Kernel::Shr => 0,
        Kernel::Compare { op, signed: false } => {
            let b = b & m;
            u64::from(match op {
                BinaryOp::Eq => a == b,
                BinaryOp::Ne => a != b,
                BinaryOp::Lt => a < b,
                BinaryOp::Le => a <= b,
                BinaryOp::Gt => a > b,
                _ => a >= b,
            })
        }
        Kernel::LogicalAnd => u64::from(a != 0 && b != 0),
        Kernel::LogicalOr => u64::from(a != 0 || b != 0),
        k => general(k, wl, wr, a, b),
    }
}

/// Kernel `k` through [`Bits`]: for the operators that are rare in packet code (signed, division,
/// fixed point, concatenation), which then cost what they cost before.
#[inline(never)]
pub(crate) fn general(k: Kernel, wl: u32, wr: u32, a: u64, b: u64) -> u64 {
    k.apply(&Bits::from_u64(wl, a), &Bits::from_u64(wr, b))
        .to_u64()
}

/// A cast of `a` (of `from` bits) to `to` bits by `plan` (never `General`).
#[inline]
pub(crate) fn cast(plan: CastPlan, from: u32, to: u32, a: u64) -> u64 {
    match plan {
        CastPlan::Resize(_) => a & mask(to),
        CastPlan::Sext(_) => {
            let shift = 64 - from.clamp(1, 64);
            ((((a << shift) as i64) >> shift) as u64) & mask(to)
        }
        CastPlan::FixedToBits { frac, .. } => a.checked_shr(frac).unwrap_or(0) & mask(to),
        CastPlan::BitsToFixed { frac, .. } => a.checked_shl(frac).unwrap_or(0) & mask(to),
        CastPlan::General => a & mask(to),
    }
}

fn packet_field(f: PacketField) -> Narrow {
    match f {
        PacketField::Len => {
            Box::new(|cx| cx.pkt.as_ref().map_or(0, |p| p.data.len() as u64) & mask(16))
        }
        PacketField::Port => Box::new(|cx| cx.pkt.as_ref().map_or(0, |p| u64::from(p.port))),
        PacketField::Timestamp => Box::new(|cx| cx.pkt.as_ref().map_or(0, |p| p.timestamp_ns)),
    }
}

#[cfg(test)]
mod tests;
