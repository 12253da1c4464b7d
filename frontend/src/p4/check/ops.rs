//! Binary operators: operand rules (P4_16 §8) and constant folding.
//!
//! Operands of arithmetic, bitwise and comparison operators have one type after unsized literals
//! are converted; shifts take any unsigned amount; `++` joins two sized values. Folding computes in
//! arbitrary precision and normalises to the result type, which is exactly P4's wrap-around
//! arithmetic for `bit<N>` and `int<N>`, and exact arithmetic for `int`.

use super::expr::{is_negative, normalize};
use super::types::Ty;
use super::Checker;
use crate::p4::ast::*;
use num_bigint::BigInt;
use num_traits::{One, ToPrimitive, Zero};

impl Checker<'_> {
    pub(super) fn binary(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr) -> Ty {
        use BinOp::*;
        match op {
            And | Or => {
                self.expr_expect(a, &Ty::Bool);
                self.expr_expect(b, &Ty::Bool);
                self.fold(e, op, a, b, &Ty::Bool);
                Ty::Bool
            }
            Shl | Shr => self.shift(e, op, a, b),
            Concat => self.concat(e, a, b),
            _ => {
                let (ta, tb) = (self.expr(a), self.expr(b));
                let ty = self.unify(a, &ta, b, &tb);
                if ty.is_unknown() {
                    return Ty::Unknown;
                }
                if !self.operand_ok(op, &ty) {
                    let shown = self.out.env.show(&ty).to_string();
                    let mut diag = self
                        .type_error(
                            e.span,
                            format!("`{}` cannot be applied to `{shown}`", op.as_str()),
                        )
                        .label(format!("operands are `{shown}`"));
                    if matches!(op, Div | Mod) && matches!(ty, Ty::Int(_)) {
                        diag = diag.note("P4 divides only unsigned values");
                    }
                    if matches!(op, SatAdd | SatSub) && ty == Ty::InfInt {
                        diag = diag.help("give one operand a width: `8w1`");
                    }
                    self.error(diag);
                    return Ty::Unknown;
                }
                let result = match op {
                    Eq | Ne | Lt | Le | Gt | Ge => Ty::Bool,
                    _ => ty.clone(),
                };
                self.fold(e, op, a, b, &ty);
                result
            }
        }
    }

    fn operand_ok(&self, op: BinOp, ty: &Ty) -> bool {
        use BinOp::*;
        let numeric = ty.is_fixed_int() || *ty == Ty::InfInt;
        match op {
            Eq | Ne => matches!(
                ty,
                Ty::Bits(_) | Ty::Int(_) | Ty::InfInt | Ty::Bool | Ty::Error | Ty::Enum(_)
            ),
            Lt | Le | Gt | Ge | Add | Sub | Mul => numeric,
            Div | Mod => matches!(ty, Ty::Bits(_) | Ty::InfInt),
            SatAdd | SatSub | BitAnd | BitOr | BitXor => {
                ty.is_fixed_int() || (*ty == Ty::InfInt && matches!(op, BitAnd | BitOr | BitXor))
            }
            _ => false,
        }
    }

    fn shift(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr) -> Ty {
        let ta = self.expr(a);
        let tb = self.expr(b);
        if ta.is_unknown() || tb.is_unknown() {
            return Ty::Unknown;
        }
        let amount = self.value_of(b.id).cloned();
        let ok_amount = match &tb {
            Ty::Bits(_) => true,
            Ty::InfInt => amount.as_ref().is_some_and(|v| !is_negative(v)),
            _ => false,
        };
        if !ok_amount {
            self.error(
                self.type_error(
                    b.span,
                    format!("the amount of `{}` must be unsigned", op.as_str()),
                )
                .label("a `bit<N>` value or a non-negative constant"),
            );
            return Ty::Unknown;
        }
        if tb == Ty::InfInt {
            // The IR shifts by a `bit<M>` amount: give the constant 32 bits (larger amounts shift
            // every bit out, which 32 bits still express).
            let v = amount.unwrap_or_default().min(BigInt::from(u32::MAX));
            self.set_type(b.id, Ty::Bits(32));
            self.set_value(b.id, Some(v));
        }
        let ok_value = ta.is_fixed_int() || (ta == Ty::InfInt && self.value_of(b.id).is_some());
        if !ok_value {
            let shown = self.out.env.show(&ta).to_string();
            self.error(
                self.type_error(a.span, format!("cannot shift a `{shown}`"))
                    .label("shift `bit<N>` or `int<N>` values"),
            );
            return Ty::Unknown;
        }
        self.fold(e, op, a, b, &ta);
        ta
    }

    fn concat(&mut self, e: &Expr, a: &Expr, b: &Expr) -> Ty {
        let (ta, tb) = (self.expr(a), self.expr(b));
        if ta.is_unknown() || tb.is_unknown() {
            return Ty::Unknown;
        }
        let (Some(wa), Some(wb)) = (
            ta.width().filter(|_| ta.is_fixed_int()),
            tb.width().filter(|_| tb.is_fixed_int()),
        ) else {
            let bad = if ta.is_fixed_int() { b } else { a };
            self.error(
                self.type_error(bad.span, "`++` needs operands with a width".into())
                    .label("give this a width: `8w1`, or cast it"),
            );
            return Ty::Unknown;
        };
        if wa + wb > super::decls::MAX_WIDTH {
            self.error(
                self.type_error(e.span, "the concatenation is too wide".into())
                    .label("too wide"),
            );
            return Ty::Unknown;
        }
        let ty = match ta {
            Ty::Int(_) => Ty::Int(wa + wb),
            _ => Ty::Bits(wa + wb),
        };
        if let (Some(x), Some(y)) = (self.value_of(a.id).cloned(), self.value_of(b.id).cloned()) {
            let hi = normalize(&x, &Ty::Bits(wa));
            let lo = normalize(&y, &Ty::Bits(wb));
            let v = (hi << wb as usize) | lo;
            self.set_value(e.id, Some(normalize(&v, &ty)));
        }
        ty
    }

    /// Records the value of `a op b` when both are known.
    fn fold(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr, ty: &Ty) {
        let (Some(x), Some(y)) = (self.value_of(a.id).cloned(), self.value_of(b.id).cloned())
        else {
            return;
        };
        if let Some(v) = eval(op, &x, &y, ty) {
            self.set_value(e.id, Some(v));
        }
    }
}

/// `x op y` at type `ty` (the operands' type), normalised to the result type.
pub(crate) fn eval(op: BinOp, x: &BigInt, y: &BigInt, ty: &Ty) -> Option<BigInt> {
    use BinOp::*;
    let width = ty.width();
    let norm = |v: BigInt| {
        if *ty == Ty::InfInt {
            v
        } else {
            normalize(&v, ty)
        }
    };
    let unsigned = |v: &BigInt| match ty {
        Ty::Int(w) | Ty::Bits(w) => normalize(v, &Ty::Bits(*w)),
        _ => v.clone(),
    };
    let flag = |b: bool| Some(BigInt::from(u8::from(b)));
    Some(match op {
        Add => norm(x + y),
        Sub => norm(x - y),
        Mul => norm(x * y),
        Div if y.is_zero() => return None,
        Div => norm(x / y),
        Mod if y.is_zero() => return None,
        Mod => norm(x % y),
        SatAdd | SatSub => {
            let r = if op == SatAdd { x + y } else { x - y };
            let w = width?;
            let (lo, hi) = match ty {
                Ty::Int(_) => {
                    let h = BigInt::one() << (w - 1) as usize;
                    (-h.clone(), h - 1)
                }
                _ => (BigInt::zero(), (BigInt::one() << w as usize) - 1),
            };
            r.clamp(lo, hi)
        }
        BitAnd => norm(x & y),
        BitOr => norm(x | y),
        BitXor => norm(x ^ y),
        Shl => {
            let n = y.to_usize()?;
            match width {
                Some(w) if n >= w as usize => BigInt::zero(),
                _ if n > 4096 => return None,
                _ => norm(x << n),
            }
        }
        Shr => {
            let n = y.to_usize()?.min(8192);
            match ty {
                Ty::Bits(_) => unsigned(x) >> n,
                _ => x >> n,
            }
        }
        Eq => return flag(x == y),
        Ne => return flag(x != y),
        Lt => return flag(x < y),
        Le => return flag(x <= y),
        Gt => return flag(x > y),
        Ge => return flag(x >= y),
        And => return flag(!x.is_zero() && !y.is_zero()),
        Or => return flag(!x.is_zero() || !y.is_zero()),
        Concat => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_wraps_and_saturates_at_the_width() {
        let b8 = Ty::Bits(8);
        let v = |n: i64| BigInt::from(n);
        assert_eq!(eval(BinOp::Add, &v(250), &v(10), &b8), Some(v(4)));
        assert_eq!(eval(BinOp::SatAdd, &v(250), &v(10), &b8), Some(v(255)));
        assert_eq!(eval(BinOp::SatSub, &v(5), &v(10), &b8), Some(v(0)));
        assert_eq!(
            eval(BinOp::SatAdd, &v(120), &v(10), &Ty::Int(8)),
            Some(v(127))
        );
        assert_eq!(eval(BinOp::Shl, &v(1), &v(9), &b8), Some(v(0)));
        assert_eq!(eval(BinOp::Shr, &v(-2), &v(1), &Ty::Int(8)), Some(v(-1)));
        assert_eq!(eval(BinOp::Div, &v(1), &v(0), &b8), None);
    }
}
