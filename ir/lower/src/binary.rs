//! Lowering binary operators, the scaled forms of fixed-point and unit arithmetic included.

use super::expr::BodyCx;
use super::{Lowerer, ScuCx};
use scenic_frontend::ast;
use scenic_frontend::types::Ty;
use scenic_ir::body::{BinaryOp, Expr};
use scenic_ir::entities::*;
use scenic_ir::types::Type;

impl Lowerer<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lower_binary(
        &mut self,
        bcx: &mut BodyCx,
        op: ast::BinaryOp,
        lhs: Operand<'_>,
        rhs: &ast::Expr,
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        use ast::BinaryOp as A;
        let lt = bcx.info(lhs.ast()).map(|i| i.ty.clone());
        let rt = bcx.info(rhs).map(|i| i.ty.clone());
        let rhs_op = Operand::Ast(rhs);
        if let Some(id) =
            self.lower_scaled(bcx, op, lhs, rhs_op, lt.as_ref(), rt.as_ref(), &ty, e, cx)
        {
            return id;
        }
        let ir_op = binary_op(op);
        let (lhs_ty, rhs_ty) = match op {
            A::Eq | A::Ne | A::Lt | A::Le | A::Gt | A::Ge => {
                let common = self.common_type(lt.as_ref(), rt.as_ref(), cx);
                (Some(common.clone()), Some(common))
            }
            A::And | A::Or => (Some(Type::Bool), Some(Type::Bool)),
            A::Shl | A::Shr => (Some(ty.clone()), None),
            A::Concat => (None, None),
            _ => (Some(ty.clone()), Some(ty.clone())),
        };
        let l = self.operand(bcx, lhs, lhs_ty.as_ref(), cx);
        let mut r = self.lower_expr(bcx, rhs, rhs_ty.as_ref(), cx);
        if matches!(op, A::Shl | A::Shr) {
            r = self.unsigned_index(bcx, r, rhs);
        }
        self.add(bcx, Expr::Binary(ir_op, l, r), ty, e)
    }

    /// Lowers an operand (or converts the one already lowered) to `expected`.
    fn operand(
        &mut self,
        bcx: &mut BodyCx,
        o: Operand<'_>,
        expected: Option<&Type>,
        cx: &ScuCx,
    ) -> ExprId {
        match o {
            Operand::Ast(e) => self.lower_expr(bcx, e, expected, cx),
            Operand::Lowered(e, id) => self.convert(bcx, id, expected, e),
        }
    }

    /// The type both sides of a comparison are converted to.
    fn common_type(&mut self, lt: Option<&Ty>, rt: Option<&Ty>, cx: &ScuCx) -> Type {
        match (lt, rt) {
            (Some(Ty::IntLit | Ty::DecimalLit) | None, Some(t))
                if !matches!(t, Ty::IntLit | Ty::DecimalLit) =>
            {
                self.lower_ty(t, cx)
            }
            (Some(t), _) if !matches!(t, Ty::IntLit | Ty::DecimalLit) => self.lower_ty(t, cx),
            _ => Type::Int(64),
        }
    }

    /// `fixed * fixed`, `rate * fixed`, `size / bit<8>`, `3 * rate`, ...: scaled operators.
    #[allow(clippy::too_many_arguments)]
    fn lower_scaled(
        &mut self,
        bcx: &mut BodyCx,
        op: ast::BinaryOp,
        lhs: Operand<'_>,
        rhs: Operand<'_>,
        lt: Option<&Ty>,
        rt: Option<&Ty>,
        ty: &Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> Option<ExprId> {
        use ast::BinaryOp as A;
        if !matches!(op, A::Mul | A::Div) {
            return None;
        }
        let (lt, rt) = (lt?, rt?);
        let scaled_result = matches!(ty, Type::Fixed { .. } | Type::Quantity(_));
        if !scaled_result {
            return None;
        }
        // The operand that has the result's type is the value; the other one is the scale.
        let lt_ir = self.lower_ty(lt, cx);
        let (value, scale, scale_ty) = if lt_ir == *ty && !matches!(lt, Ty::IntLit) {
            (lhs, rhs, rt)
        } else if op == A::Mul {
            (rhs, lhs, lt)
        } else {
            return None;
        };
        let frac = match scale_ty {
            Ty::Fixed(_, f) => *f,
            Ty::DecimalLit => {
                // A decimal constant scales as a fixed-point value: of the value's own type when
                // that is fixed point, else with 32 fraction bits.
                let scale_ty = match ty {
                    Type::Fixed { .. } => ty.clone(),
                    _ => Type::Fixed { int: 32, frac: 32 },
                };
                let Type::Fixed { frac, .. } = scale_ty else {
                    return None;
                };
                let v = self.operand(bcx, value, Some(ty), cx);
                let s = self.operand(bcx, scale, Some(&scale_ty), cx);
                let ir = if op == A::Mul {
                    BinaryOp::MulScaled(frac)
                } else {
                    BinaryOp::DivScaled(frac)
                };
                return Some(self.add(bcx, Expr::Binary(ir, v, s), ty.clone(), e));
            }
            Ty::IntLit => {
                // `rate / 2`, `alpha / 2`: an integer scale, which need not fit the value's type
                // (2 is not a `fixed<1,15>`), as an unsigned constant with no fraction bits.
                let v = self.operand(bcx, value, Some(ty), cx);
                let s = self.operand(bcx, scale, Some(&Type::Bits(64)), cx);
                let ir = if op == A::Mul {
                    BinaryOp::MulScaled(0)
                } else {
                    BinaryOp::DivScaled(0)
                };
                return Some(self.add(bcx, Expr::Binary(ir, v, s), ty.clone(), e));
            }
            _ => 0,
        };
        let v = self.operand(bcx, value, Some(ty), cx);
        let s = self.operand(bcx, scale, None, cx);
        let ir = if op == A::Mul {
            BinaryOp::MulScaled(frac)
        } else {
            BinaryOp::DivScaled(frac)
        };
        Some(self.add(bcx, Expr::Binary(ir, v, s), ty.clone(), e))
    }
}

/// An operand of a binary operator: still to lower, or already lowered (the current value of the
/// place of a compound assignment, read once, language.md §5.2).
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    /// An AST expression.
    Ast(&'a ast::Expr),
    /// The IR expression already lowered for this AST expression.
    Lowered(&'a ast::Expr, ExprId),
}

impl<'a> Operand<'a> {
    /// The AST expression, for its checked type and its span.
    fn ast(self) -> &'a ast::Expr {
        match self {
            Operand::Ast(e) | Operand::Lowered(e, _) => e,
        }
    }
}

fn binary_op(op: ast::BinaryOp) -> BinaryOp {
    use ast::BinaryOp as A;
    match op {
        A::Add => BinaryOp::Add,
        A::Sub => BinaryOp::Sub,
        A::SatAdd => BinaryOp::SatAdd,
        A::SatSub => BinaryOp::SatSub,
        A::Mul => BinaryOp::Mul,
        A::Div => BinaryOp::Div,
        A::Rem => BinaryOp::Rem,
        A::Concat => BinaryOp::Concat,
        A::Shl => BinaryOp::Shl,
        A::Shr => BinaryOp::Shr,
        A::BitAnd => BinaryOp::And,
        A::BitOr => BinaryOp::Or,
        A::BitXor => BinaryOp::Xor,
        A::Eq => BinaryOp::Eq,
        A::Ne => BinaryOp::Ne,
        A::Lt => BinaryOp::Lt,
        A::Le => BinaryOp::Le,
        A::Gt => BinaryOp::Gt,
        A::Ge => BinaryOp::Ge,
        A::And => BinaryOp::LogicalAnd,
        A::Or => BinaryOp::LogicalOr,
    }
}
