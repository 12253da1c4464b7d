//! Compiling scalar expressions: closures that yield [`Bits`].
//!
//! Operands are compiled first and captured; operators are resolved for their types once
//! ([`ops::kernel`], [`ops::cast_plan`]) and the most common ones get a closure of their own, so
//! that an addition or a comparison runs its [`Bits`] operation directly. A binary operator whose
//! right operand is a constant captures the constant instead of a closure for it.
//!
//! Everywhere a value is missing (no packet in a stream kernel, a local out of range in a broken
//! body) the result is the zero the tree-walking interpreter gave before, so that even invalid
//! programs behave as they did.

use super::{Compiler, Scalar};
use crate::context::Cx;
use crate::headers::HeaderStore;
use cranelift_entity::EntityRef;
use scenic_ir::body::{BeatField, BinaryOp, Expr, PacketField};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::{read_bits, Bits};
use scenic_ir::proc::intrinsics;
use scenic_ir::proc::ops::{self, Kernel};

/// A closure applying `f` to the values of `l` and `r`.
fn both(l: Scalar, r: Scalar, f: impl Fn(&Bits, &Bits) -> Bits + Send + Sync + 'static) -> Scalar {
    Box::new(move |cx| {
        let a = l(cx)?;
        let b = r(cx)?;
        Ok(f(&a, &b))
    })
}

/// A closure applying `f` to the value of `l` and the constant `c`.
fn with_const(
    l: Scalar,
    c: Bits,
    f: impl Fn(&Bits, &Bits) -> Bits + Send + Sync + 'static,
) -> Scalar {
    Box::new(move |cx| Ok(f(&l(cx)?, &c)))
}

/// A closure for kernel `$k` on `$l` and `$r` (a constant or a closure), with the common
/// kernels expanded so that each gets code of its own.
macro_rules! specialize {
    ($make:ident, $k:expr, $l:expr, $r:expr, [$($v:ident),*]) => {
        match $k {
            $(Kernel::$v => $make($l, $r, |a, b| Kernel::$v.apply(a, b)),)*
            k => $make($l, $r, move |a, b| k.apply(a, b)),
        }
    };
}

impl Compiler<'_> {
    /// Compiles expression `id` for its scalar value (an aggregate reads as a one-bit zero).
    pub fn scalar(&mut self, id: ExprId) -> Scalar {
        if !self.is_scalar(id) {
            let v = self.value(id);
            return Box::new(move |cx| Ok(v(cx)?.into_bits()));
        }
        let width = self.width(id);
        let operator = matches!(
            self.body.exprs[id],
            Expr::Binary(..) | Expr::Unary(..) | Expr::Cast(_) | Expr::Slice { .. }
        );
        if operator && self.is_narrow(id) {
            // One conversion at the root of the narrow tree instead of a `Bits` per node (a leaf
            // keeps its own closure: wrapping it would only add a call).
            return self.narrow_root(id);
        }
        match &self.body.exprs[id] {
            Expr::Const(c) => {
                let b = Bits::from_biguint(width, &c.0);
                Box::new(move |_| Ok(b.clone()))
            }
            Expr::Local(l) => {
                let slot = l.index();
                Box::new(move |cx| Ok(cx.local(slot).bits().clone()))
            }
            Expr::Csr(c) => {
                let c = *c;
                Box::new(move |cx| Ok(cx.csr(c)))
            }
            Expr::Meta(f) => {
                let f = *f;
                Box::new(move |cx| {
                    Ok(cx
                        .meta(f)
                        .map_or_else(|| Bits::zero(1), |v| v.bits().clone()))
                })
            }
            Expr::HeaderField { inst, index, field } => self.header_field(*inst, *index, *field),
            Expr::HeaderValid { inst, index } => {
                let (inst, index) = (*inst, self.index(*index));
                Box::new(move |cx| {
                    let i = index(cx)?;
                    let valid = cx.pkt.as_ref().is_some_and(|p| p.headers.valid(inst, i));
                    Ok(Bits::from_bool(valid))
                })
            }
            Expr::Packet(f) => packet_field(*f),
            Expr::Beat(f) => beat_field(*f),
            Expr::FlowId => Box::new(move |cx| Ok(Bits::from_u64(width, cx.flow_id))),
            Expr::CcState(s) => cc_state(*s),
            Expr::CcParam(p) => cc_param(p.index(), width),
            Expr::Field { .. } | Expr::Index { .. } => self.part_scalar(id),
            Expr::Slice { .. } | Expr::SliceDyn { .. } => self.slice(id),
            Expr::Unary(op, a) => {
                let (op, ty, a) = (*op, self.ty(*a).clone(), self.scalar(*a));
                Box::new(move |cx| Ok(ops::unary(op, &ty, &a(cx)?)))
            }
            Expr::Binary(op, l, r) => self.binary(*op, *l, *r, id),
            Expr::Cast(inner) => self.cast(*inner, id),
            Expr::Select(c, a, b) => self.select_scalar(*c, *a, *b),
            Expr::Intrinsic(which, args) => self.intrinsic(*which, args, id),
            Expr::Lookahead(n) => lookahead(*n),
            Expr::MapGet(..)
            | Expr::MapContains(..)
            | Expr::MapInsert(..)
            | Expr::MapRemove(..)
            | Expr::MeterExceeds(..)
            | Expr::Apply(_)
            | Expr::ActionData { .. } => self.state_scalar(id),
            Expr::Call(..)
            | Expr::CallAction(..)
            | Expr::Header { .. }
            | Expr::StructLit(_)
            | Expr::ArrayLit(_)
            | Expr::Tuple(_) => {
                let v = self.value(id);
                Box::new(move |cx| Ok(v(cx)?.into_bits()))
            }
        }
    }

    /// `if c { a } else { b }`: only the taken operand runs (language.md §4.17).
    fn select_scalar(&mut self, c: ExprId, a: ExprId, b: ExprId) -> Scalar {
        let (c, a, b) = (self.scalar(c), self.scalar(a), self.scalar(b));
        Box::new(move |cx| if c(cx)?.is_zero() { b(cx) } else { a(cx) })
    }

    /// A slice, of constant or computed bounds.
    fn slice(&mut self, id: ExprId) -> Scalar {
        match &self.body.exprs[id] {
            Expr::Slice { base, hi, lo } => {
                let (base, hi, lo) = (self.scalar(*base), *hi, *lo);
                Box::new(move |cx| Ok(base(cx)?.slice(hi, lo)))
            }
            Expr::SliceDyn { base, lo, width } => {
                let (base, lo, w) = (self.scalar(*base), self.scalar(*lo), *width);
                Box::new(move |cx| {
                    let b = base(cx)?;
                    let lo = lo(cx)?.to_u128() as u32;
                    Ok(b.slice(lo.wrapping_add(w).wrapping_sub(1), lo))
                })
            }
            _ => Box::new(|_| Ok(Bits::zero(1))),
        }
    }

    /// A call of an intrinsic (hashes, checksums, min/max…): its arguments, then the call.
    fn intrinsic(
        &mut self,
        which: scenic_ir::body::Intrinsic,
        args: &[ExprId],
        id: ExprId,
    ) -> Scalar {
        let ty = self.ty(id).clone();
        let args: Vec<Scalar> = args.iter().map(|a| self.scalar(*a)).collect();
        Box::new(move |cx| {
            let mut values = [Bits::zero(32), Bits::zero(32), Bits::zero(32)];
            for (v, a) in values.iter_mut().zip(&args) {
                *v = a(cx)?;
            }
            let n = args.len().min(values.len());
            Ok(intrinsics::call(which, &ty, &values[..n]))
        })
    }

    /// The element index of a header stack access (0 for plain instances).
    pub fn index(&mut self, index: Option<ExprId>) -> super::Index {
        match index {
            None => Box::new(|_| Ok(0)),
            Some(e) if self.is_narrow(e) => {
                let e = self.narrow(e);
                Box::new(move |cx| Ok(e(cx) as usize))
            }
            Some(e) => {
                let e = self.scalar(e);
                Box::new(move |cx| Ok(e(cx)?.to_u128() as usize))
            }
        }
    }

    fn header_field(&mut self, inst: InstId, index: Option<ExprId>, field: u32) -> Scalar {
        let read = move |cx: &Cx<'_>, i: usize| match &cx.pkt {
            Some(p) => p.headers.field(p.data, inst, i, field),
            None => Bits::zero(1),
        };
        // A plain instance's field in the running scu's store: its slot, offset and width are
        // resolved now (the store's layout depends only on the scu).
        let located = match (index, self.scu) {
            (None, Some(scu)) => HeaderStore::new(self.module, scu).locate(inst, field),
            _ => None,
        };
        if let Some(loc) = located {
            return Box::new(move |cx| {
                Ok(match &cx.pkt {
                    Some(p) => p.headers.field_at(p.data, loc),
                    None => Bits::zero(1),
                })
            });
        }
        match index {
            None => Box::new(move |cx| Ok(read(cx, 0))),
            Some(_) => {
                let index = self.index(index);
                Box::new(move |cx| {
                    let i = index(cx)?;
                    Ok(read(cx, i))
                })
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId, id: ExprId) -> Scalar {
        match op {
            BinaryOp::LogicalAnd | BinaryOp::LogicalOr => {
                let (l, r) = (self.scalar(lhs), self.scalar(rhs));
                let and = op == BinaryOp::LogicalAnd;
                return Box::new(move |cx| {
                    let a = !l(cx)?.is_zero();
                    // Short-circuit: the right operand runs only when the left does not decide.
                    let result = if a == and { !r(cx)?.is_zero() } else { a };
                    Ok(Bits::from_bool(result))
                });
            }
            BinaryOp::Eq | BinaryOp::Ne if !self.is_scalar(lhs) => {
                let (l, r) = (self.value(lhs), self.value(rhs));
                let eq = op == BinaryOp::Eq;
                return Box::new(move |cx| {
                    let equal = l(cx)? == r(cx)?;
                    Ok(Bits::from_bool(equal == eq))
                });
            }
            _ => {}
        }
        let k = self.kernel(op, lhs, id);
        let l = self.scalar(lhs);
        if let Expr::Const(c) = &self.body.exprs[rhs] {
            let c = Bits::from_biguint(self.width(rhs), &c.0);
            return specialize!(
                with_const,
                k,
                l,
                c,
                [Add, Sub, And, Or, Xor, SatAdd, Shl, Shr]
            );
        }
        let r = self.scalar(rhs);
        specialize!(
            both,
            k,
            l,
            r,
            [Add, Sub, And, Or, Xor, SatAdd, Shl, Shr, Concat]
        )
    }

    fn cast(&mut self, inner: ExprId, id: ExprId) -> Scalar {
        let (from, to) = (self.ty(inner).clone(), self.ty(id).clone());
        let v = self.scalar(inner);
        match ops::cast_plan(&from, &to) {
            ops::CastPlan::Resize(n) => Box::new(move |cx| Ok(v(cx)?.resize(n))),
            ops::CastPlan::Sext(n) => Box::new(move |cx| Ok(v(cx)?.sext(n))),
            plan => Box::new(move |cx| {
                let value = v(cx)?;
                Ok(plan.apply(&value, &from, &to, cx.module))
            }),
        }
    }
}

/// A per-flow state variable of the running cc.
fn cc_state(s: CcStateId) -> Scalar {
    Box::new(move |cx| {
        Ok(cx
            .cc_state(s)
            .map_or_else(|| Bits::zero(1), |v| v.bits().clone()))
    })
}

/// Parameter `p` of the running cc (of `width` bits).
fn cc_param(p: usize, width: u32) -> Scalar {
    Box::new(move |cx| {
        let param = cx.cc.as_ref().and_then(|c| c.params.get(p));
        Ok(param.cloned().unwrap_or_else(|| Bits::zero(width)))
    })
}

fn packet_field(f: PacketField) -> Scalar {
    let value = move |cx: &Cx<'_>| {
        let Some(p) = &cx.pkt else {
            return Bits::zero(16);
        };
        match f {
            PacketField::Len => Bits::from_u64(16, p.data.len() as u64),
            PacketField::Port => Bits::from_u64(8, u64::from(p.port)),
            PacketField::Timestamp => Bits::from_u64(64, p.timestamp_ns),
        }
    };
    Box::new(move |cx| Ok(value(cx)))
}

fn beat_field(f: BeatField) -> Scalar {
    Box::new(move |cx| {
        let Some(b) = &cx.beat else {
            return Ok(Bits::zero(1));
        };
        Ok(match f {
            BeatField::Last => Bits::from_bool(b.last),
            BeatField::Keep => Bits::from_u64(64, b.keep),
        })
    })
}

/// The next `n` bits of the packet without consuming them; a packet too short (or none) rejects
/// it with `packet_too_short` and stops.
fn lookahead(n: u32) -> Scalar {
    Box::new(move |cx| match &cx.pkt {
        Some(p) if p.cursor + n as usize <= p.data.len() * 8 => Ok(read_bits(p.data, p.cursor, n)),
        _ => Err(cx.reject("packet_too_short")),
    })
}
