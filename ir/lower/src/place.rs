//! Lowering assignments and their places.
//!
//! `x op= e` means `x = x op e` with x evaluated once (language.md §5.2): the indices of the place
//! are bound to temporaries first, and the current value is read through them. A slice whose
//! bounds depend on a loop variable (§4.7) has no IR place: it is assigned as the whole value with
//! the slice's bits replaced, `x = (x & ~(mask << lo)) | ((v as T) << lo)`.

use super::binary::Operand;
use super::expr::BodyCx;
use super::method::{receiver, Receiver};
use super::{Lowerer, ScuCx};
use scenic_frontend::ast::{self, ExprKind};
use scenic_ir::body::{BinaryOp, Block, Expr, Place, Stmt, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::span::Span;
use scenic_ir::types::{Const, Type};

impl Lowerer<'_> {
    /// `target = value;` or `target op= value;`: temporaries for the indices go to `out` first.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn lower_assign(
        &mut self,
        bcx: &mut BodyCx,
        target: &ast::Expr,
        op: Option<ast::BinaryOp>,
        value: &ast::Expr,
        out: &mut Block,
        span: Span,
        cx: &ScuCx,
    ) -> Option<Stmt> {
        if let ExprKind::Slice { base, hi, lo } = &target.kind {
            if !(is_const(bcx, hi) && is_const(bcx, lo)) {
                return self.assign_slice_dyn(bcx, target, base, lo, op, value, out, span, cx);
            }
        }
        let (place, ty) = self.lower_place(bcx, target, cx)?;
        let Some(op) = op else {
            let rhs = self.lower_expr(bcx, value, Some(&ty), cx);
            return Some(Stmt::Assign(place, rhs));
        };
        let place = self.stable_place(bcx, place, out, span);
        let current = self.place_read(bcx, target, &place, cx)?;
        let lhs = Operand::Lowered(target, current);
        let rhs = self.lower_binary(bcx, op, lhs, value, ty, value, cx);
        Some(Stmt::Assign(place, rhs))
    }

    /// `x[hi:lo] = v` (or `op=`) with bounds that vary by loop iteration: the whole of x is
    /// assigned, with bits hi..lo replaced (the width hi − lo + 1 is the same in every iteration).
    #[allow(clippy::too_many_arguments)]
    fn assign_slice_dyn(
        &mut self,
        bcx: &mut BodyCx,
        target: &ast::Expr,
        base: &ast::Expr,
        lo: &ast::Expr,
        op: Option<ast::BinaryOp>,
        value: &ast::Expr,
        out: &mut Block,
        span: Span,
        cx: &ScuCx,
    ) -> Option<Stmt> {
        let (place, base_ty) = self.lower_place(bcx, base, cx)?;
        let place = self.stable_place(bcx, place, out, span);
        let slice_ty = bcx
            .info(target)
            .map(|i| i.ty.clone())
            .map(|t| self.lower_ty(&t, cx))?;
        let w = self.width(&slice_ty)?;
        let n = match base_ty {
            Type::Bits(n) | Type::Int(n) => n,
            _ => return None,
        };
        let bits = Type::Bits(n);
        let v = match op {
            None => self.lower_expr(bcx, value, Some(&slice_ty), cx),
            Some(op) => {
                let whole = self.place_read(bcx, base, &place, cx)?;
                let lo_id = self.lower_expr(bcx, lo, Some(&Type::Bits(32)), cx);
                let old = bcx.body.add(
                    Expr::SliceDyn {
                        base: whole,
                        lo: lo_id,
                        width: w,
                    },
                    slice_ty.clone(),
                    span,
                );
                let lhs = Operand::Lowered(target, old);
                self.lower_binary(bcx, op, lhs, value, slice_ty.clone(), value, cx)
            }
        };
        let whole = self.place_read(bcx, base, &place, cx)?;
        let whole = cast(bcx, whole, &bits, span);
        let ones = (num_bigint::BigUint::from(1u32) << w as usize) - 1u32;
        let mask = bcx.body.add(Expr::Const(Const(ones)), bits.clone(), span);
        let lo_id = self.lower_expr(bcx, lo, Some(&Type::Bits(32)), cx);
        let mask = binary(bcx, BinaryOp::Shl, mask, lo_id, &bits, span);
        let keep = bcx
            .body
            .add(Expr::Unary(UnaryOp::BitNot, mask), bits.clone(), span);
        let kept = binary(bcx, BinaryOp::And, whole, keep, &bits, span);
        let v = cast(bcx, v, &bits, span);
        let lo_id = self.lower_expr(bcx, lo, Some(&Type::Bits(32)), cx);
        let v = binary(bcx, BinaryOp::Shl, v, lo_id, &bits, span);
        let new = binary(bcx, BinaryOp::Or, kept, v, &bits, span);
        let new = cast(bcx, new, &base_ty, span);
        Some(Stmt::Assign(place, new))
    }

    /// `place` with every index that is not a constant or a local bound to a new local (the `Let`
    /// goes to `out`), so that the place can be read and written with each index evaluated once.
    fn stable_place(
        &mut self,
        bcx: &mut BodyCx,
        place: Place,
        out: &mut Block,
        span: Span,
    ) -> Place {
        let stable = stable_index;
        match place {
            Place::Local(_) | Place::Csr(_) | Place::Meta(_) | Place::CcState(_) => place,
            Place::HeaderField { inst, index, field } => Place::HeaderField {
                inst,
                index: index.map(|i| stable(bcx, i, out, span)),
                field,
            },
            Place::Header { inst, index } => Place::Header {
                inst,
                index: index.map(|i| stable(bcx, i, out, span)),
            },
            Place::Field(base, f) => {
                Place::Field(Box::new(self.stable_place(bcx, *base, out, span)), f)
            }
            Place::Index(base, i) => {
                let base = self.stable_place(bcx, *base, out, span);
                Place::Index(Box::new(base), stable(bcx, i, out, span))
            }
            Place::Slice(base, hi, lo) => {
                Place::Slice(Box::new(self.stable_place(bcx, *base, out, span)), hi, lo)
            }
        }
    }

    /// The current value of `place` (made stable), lowered from `target`: its indices are copies
    /// of the place's constants and locals, not evaluated again. The type of a projection comes
    /// from its base's (the checker records none for the inner levels of `k[1][1]`).
    fn place_read(
        &mut self,
        bcx: &mut BodyCx,
        target: &ast::Expr,
        place: &Place,
        cx: &ScuCx,
    ) -> Option<ExprId> {
        let span = bcx.span(self.db, target.span);
        let (expr, ty) = match place {
            Place::Field(base, field) => {
                let base = self.place_read(bcx, place_base(target)?, base, cx)?;
                let ty = self.field_type(&bcx.body.types[base], *field)?;
                let field = *field;
                (Expr::Field { base, field }, ty)
            }
            Place::Index(base, index) => {
                let base = self.place_read(bcx, place_base(target)?, base, cx)?;
                let Type::Array(elem, _) = &bcx.body.types[base] else {
                    return None;
                };
                let ty = (**elem).clone();
                let index = copy_index(bcx, *index, span);
                (Expr::Index { base, index }, ty)
            }
            Place::Slice(base, hi, lo) => {
                let base = self.place_read(bcx, place_base(target)?, base, cx)?;
                let (hi, lo) = (*hi, *lo);
                (
                    Expr::Slice { base, hi, lo },
                    Type::Bits(hi.checked_sub(lo)? + 1),
                )
            }
            Place::Local(l) => (Expr::Local(*l), bcx.body.locals[*l].ty.clone()),
            root => {
                let t = bcx.info(target).map(|i| i.ty.clone())?;
                let ty = self.lower_ty(&t, cx);
                (self.root_read(bcx, root, span), ty)
            }
        };
        Some(bcx.body.add(expr, ty, span))
    }

    /// The expression reading a place that is not a projection of another.
    fn root_read(&self, bcx: &mut BodyCx, root: &Place, span: Span) -> Expr {
        match root {
            Place::Local(l) => Expr::Local(*l),
            Place::Csr(c) => Expr::Csr(*c),
            Place::Meta(f) => Expr::Meta(*f),
            Place::CcState(s) => Expr::CcState(*s),
            Place::HeaderField { inst, index, field } => Expr::HeaderField {
                inst: *inst,
                index: index.map(|i| copy_index(bcx, i, span)),
                field: *field,
            },
            Place::Header { inst, index } => Expr::Header {
                inst: *inst,
                index: index.map(|i| copy_index(bcx, i, span)),
            },
            Place::Field(..) | Place::Index(..) | Place::Slice(..) => {
                Expr::Const(Const::zero()) // not a root: place_read handles projections
            }
        }
    }

    /// A place and its type.
    pub(crate) fn lower_place(
        &mut self,
        bcx: &mut BodyCx,
        target: &ast::Expr,
        cx: &ScuCx,
    ) -> Option<(Place, Type)> {
        let ty = bcx.info(target).map(|i| i.ty.clone());
        let ty = ty.map(|t| self.lower_ty(&t, cx)).unwrap_or(Type::Unit);
        let place = match &target.kind {
            ExprKind::Path(p) if p.is_single() => {
                let name = p.segments[0].name.as_str();
                if let Some(local) = bcx.lookup(name) {
                    let lty = bcx.body.locals[local].ty.clone();
                    return Some((Place::Local(local), lty));
                }
                if let Some(&c) = cx.csrs.get(name) {
                    Place::Csr(c)
                } else if let Some(&s) = cx.cc_state.get(name) {
                    Place::CcState(s)
                } else {
                    Place::Header {
                        inst: *cx.instances.get(name)?,
                        index: None,
                    }
                }
            }
            ExprKind::Field { base, field } => self.field_place(bcx, base, field, cx)?,
            ExprKind::Index { base, index } => {
                if let Some(Receiver::Header(inst, Some(i))) = receiver(bcx, target, cx) {
                    let index = self.lower_expr(bcx, i, None, cx);
                    return Some((
                        Place::Header {
                            inst,
                            index: Some(index),
                        },
                        ty,
                    ));
                }
                let (base_place, _) = self.lower_place(bcx, base, cx)?;
                let index = self.lower_expr(bcx, index, None, cx);
                Place::Index(Box::new(base_place), index)
            }
            ExprKind::Slice { base, hi, lo } => {
                let (base_place, _) = self.lower_place(bcx, base, cx)?;
                let h = bcx
                    .info(hi)
                    .and_then(|i| i.value.clone())
                    .and_then(|v| v.as_u64())? as u32;
                let l = bcx
                    .info(lo)
                    .and_then(|i| i.value.clone())
                    .and_then(|v| v.as_u64())? as u32;
                Place::Slice(Box::new(base_place), h, l)
            }
            _ => return None,
        };
        Some((place, ty))
    }

    fn field_place(
        &mut self,
        bcx: &mut BodyCx,
        base: &ast::Expr,
        field: &ast::Ident,
        cx: &ScuCx,
    ) -> Option<Place> {
        if let ExprKind::Path(p) = &base.kind {
            let name = p.segments[0].name.as_str();
            if p.is_single() && bcx.lookup(name).is_none() {
                if name == "meta" {
                    return Some(Place::Meta(
                        cx.meta_fields.iter().position(|f| *f == field.name)? as u32,
                    ));
                }
                if let Some(&inst) = cx.instances.get(name) {
                    let f = self.header_field_index(cx, inst, &field.name);
                    return Some(Place::HeaderField {
                        inst,
                        index: None,
                        field: f,
                    });
                }
            }
        }
        if let Some(Receiver::Header(inst, Some(i))) = receiver(bcx, base, cx) {
            let index = self.lower_expr(bcx, i, None, cx);
            let f = self.header_field_index(cx, inst, &field.name);
            return Some(Place::HeaderField {
                inst,
                index: Some(index),
                field: f,
            });
        }
        let (base_place, base_ty) = self.lower_place(bcx, base, cx)?;
        Some(Place::Field(
            Box::new(base_place),
            self.field_position(&base_ty, &field.name),
        ))
    }
}

/// Whether the checker folded `e` to a constant.
fn is_const(bcx: &BodyCx, e: &ast::Expr) -> bool {
    bcx.info(e).is_some_and(|i| i.value.is_some())
}

/// The AST of the place a field, element or slice place is part of.
fn place_base(target: &ast::Expr) -> Option<&ast::Expr> {
    match &target.kind {
        ExprKind::Field { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. } => Some(base),
        _ => None,
    }
}

/// Index `id` itself when it is a constant or a local, else a new local bound to it (the `Let`
/// goes to `out`).
fn stable_index(bcx: &mut BodyCx, id: ExprId, out: &mut Block, span: Span) -> ExprId {
    if matches!(bcx.body.exprs[id], Expr::Const(_) | Expr::Local(_)) {
        return id;
    }
    let ty = bcx.body.types[id].clone();
    let local = bcx.body.local("_index", ty.clone(), false);
    out.push(Stmt::Let(local, id), span);
    bcx.body.add(Expr::Local(local), ty, span)
}

/// A new expression equal to index `id`, a constant or a local (see `stable_place`).
fn copy_index(bcx: &mut BodyCx, id: ExprId, span: Span) -> ExprId {
    let expr = bcx.body.exprs[id].clone();
    let ty = bcx.body.types[id].clone();
    bcx.body.add(expr, ty, span)
}

/// `id` converted to `ty` (zero-extension or reinterpretation), unless it has that type already.
fn cast(bcx: &mut BodyCx, id: ExprId, ty: &Type, span: Span) -> ExprId {
    if bcx.body.types[id] == *ty {
        return id;
    }
    bcx.body.add(Expr::Cast(id), ty.clone(), span)
}

fn binary(bcx: &mut BodyCx, op: BinaryOp, l: ExprId, r: ExprId, ty: &Type, span: Span) -> ExprId {
    bcx.body.add(Expr::Binary(op, l, r), ty.clone(), span)
}
