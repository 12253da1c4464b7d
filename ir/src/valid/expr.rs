//! The first pass over a body: every expression, in id order.
//!
//! Checks, per expression: its operands exist and are older (`OperandOrder`), the ids it names
//! exist in the module or the owning unit (`InvalidId`), its recorded type is well-formed and is
//! the type its operands and docs/language.md give it (`ResultType`, `OperandType`,
//! `OperandsDiffer`, `BadCast`, `Arity`, `TypeMismatch` for call arguments, `SliceBounds`,
//! `FieldIndex`, `IndexNonArray`, `IndexForm`, `NoMeta`, `BadActionData`; calls and intrinsics in
//! [`invoke`](super::invoke)), and the restricted constructs it uses (`Misplaced`). It counts
//! operand uses and records depth, calls and applies.
//!
//! Binary operator rules (`body.rs`): arithmetic, bitwise and comparison operands have equal types;
//! `Shl`/`Shr` take any `bit<M>` amount; `Concat` joins two integers into `bit<A+B>`;
//! `MulScaled(f)`/`DivScaled(f)` take a numeric left operand (the result type) and a right operand
//! that is `fixed<_, f>`, or (with `f = 0`) any integer. Comparisons give `bool`.

use super::body::Checker;
use super::error::{AnyId, Construct, ValidationError};
use super::stmt::operands;
use super::types::{check_type, is_integer, is_numeric};
use crate::body::{BinaryOp, Expr, UnaryOp};
use crate::entities::*;
use crate::span::Span;
use crate::types::Type;
use cranelift_entity::SecondaryMap;

type R = Result<(), ValidationError>;

impl Checker<'_> {
    /// Checks every expression of the body, in id order.
    pub(super) fn exprs(&mut self) -> R {
        let mut depth: SecondaryMap<ExprId, u32> = SecondaryMap::new();
        let scu = self.unit.scu.map(|(_, s)| s);
        let body = self.body;
        for (id, e) in &body.exprs {
            let span = self.body.spans[id];
            let mut d = 0;
            for op in operands(e) {
                if self.body.exprs.get(op).is_none() {
                    return Err(self.invalid(AnyId::Expr(op), span));
                }
                if op >= id {
                    return Err(ValidationError::OperandOrder {
                        body: self.at,
                        expr: id,
                        operand: op,
                        span,
                    });
                }
                self.uses[op] += 1;
                if self.uses[op] > 1 {
                    let span = self.body.spans[op];
                    return Err(ValidationError::ExprUses {
                        body: self.at,
                        expr: op,
                        uses: 2,
                        span,
                    });
                }
                d = d.max(depth[op]);
            }
            depth[id] = d + 1;
            self.info.max_depth = self.info.max_depth.max(d + 1);
            check_type(
                self.types.module,
                scu,
                &self.body.types[id],
                self.loc(),
                span,
            )?;
            self.expr(id, e, span)?;
        }
        Ok(())
    }

    /// The recorded type of an expression.
    pub(super) fn ty(&self, id: ExprId) -> &Type {
        &self.body.types[id]
    }

    /// Checks that `id`'s recorded type is `expected`.
    pub(super) fn result(&self, id: ExprId, expected: &Type, span: Span) -> R {
        let found = self.ty(id);
        if found == expected {
            return Ok(());
        }
        Err(ValidationError::ResultType {
            body: self.at,
            expr: id,
            expected: expected.clone(),
            found: found.clone(),
            span,
        })
    }

    /// An `OperandType` error for operand `n` of `id`.
    pub(super) fn operand_type(
        &self,
        id: ExprId,
        n: u32,
        op: ExprId,
        span: Span,
    ) -> ValidationError {
        let ty = self.ty(op).clone();
        ValidationError::OperandType {
            body: self.at,
            expr: id,
            operand: n,
            ty,
            span,
        }
    }

    /// One expression: a single exhaustive match that hands each variant to the check of its
    /// family (references to storage, accesses, operators, invocations, members, literals).
    fn expr(&mut self, id: ExprId, e: &Expr, span: Span) -> R {
        match e {
            Expr::Const(c) => self.types.check_const(c, self.ty(id), self.loc(), span),
            Expr::Local(l) => self.local_ref(id, *l, span),
            Expr::Csr(c) => self.csr_ref(id, *c, span),
            Expr::Meta(f) => {
                let ty = self.meta_field(*f, span)?;
                self.result(id, &ty, span)
            }
            Expr::Header { inst, index } => {
                let h = self.instance(*inst, *index, span)?;
                self.result(id, &Type::Header(h), span)
            }
            Expr::HeaderField { inst, index, field } => {
                let h = self.instance(*inst, *index, span)?;
                let ty = self.field(&Type::Header(h), *field, span)?;
                self.result(id, &ty, span)
            }
            Expr::HeaderValid { inst, index } => {
                self.instance(*inst, *index, span)?;
                self.result(id, &Type::Bool, span)
            }
            Expr::Packet(f) => self.packet_field(id, *f, span),
            Expr::Beat(f) => self.beat_field(id, *f, span),
            Expr::FlowId => self.flow_id(id, span),
            Expr::CcState(s) => self.cc_state_ref(id, *s, span),
            Expr::CcParam(p) => self.cc_param_ref(id, *p, span),
            Expr::Field { base, field } => {
                let ty = self.field(&self.ty(*base).clone(), *field, span)?;
                self.result(id, &ty, span)
            }
            Expr::Index { base, .. } => self.index_access(id, *base, span),
            Expr::Slice { base, hi, lo } => self.slice(id, *base, *hi, *lo, span),
            Expr::SliceDyn { base, lo, width } => self.slice_dyn(id, *base, *lo, *width, span),
            Expr::Unary(op, a) => self.unary(id, *op, *a, span),
            Expr::Binary(op, a, b) => self.binary(id, *op, *a, *b, span),
            Expr::Cast(a) => self.cast(id, *a, span),
            Expr::Select(c, a, b) => self.select(id, *c, *a, *b),
            Expr::Call(f, args) => self.call(id, *f, args, span),
            Expr::CallAction(a, args) => self.call_action(id, *a, args, span),
            Expr::Intrinsic(i, args) => self.intrinsic(id, *i, args, span),
            Expr::Lookahead(n) => {
                self.construct(Construct::Lookahead, span)?;
                self.result(id, &Type::Bits(*n), span)
            }
            Expr::MapGet(m, k) => self.map_op(id, *m, *k, None, true, span),
            Expr::MapContains(m, k) | Expr::MapRemove(m, k) => {
                self.map_op(id, *m, *k, None, false, span)
            }
            Expr::MapInsert(m, k, v) => self.map_op(id, *m, *k, Some(*v), false, span),
            Expr::MeterExceeds(m, index, len) => self.meter_exceeds(id, *m, *index, *len, span),
            Expr::Apply(t) => self.apply(id, *t, span),
            Expr::ActionData {
                apply,
                action,
                param,
            } => self.action_data(id, *apply, *action, *param, span),
            Expr::StructLit(values) => self.struct_lit(id, values, span),
            Expr::ArrayLit(items) => self.array_lit(id, items, span),
            Expr::Tuple(items) => {
                let tys: Vec<Type> = items.iter().map(|i| self.ty(*i).clone()).collect();
                self.result(id, &Type::Tuple(tys), span)
            }
        }
    }

    /// `if c { a } else { b }`: a bool condition; both operands of the expression's type.
    fn select(&mut self, id: ExprId, c: ExprId, a: ExprId, b: ExprId) -> R {
        let ty = self.ty(id).clone();
        self.expect_type(&Type::Bool, c)?;
        self.expect_type(&ty, a)?;
        self.expect_type(&ty, b)
    }

    /// Checks that operand `op` has type `expected` (a `TypeMismatch` at the operand's span).
    pub(super) fn expect_type(&self, expected: &Type, op: ExprId) -> R {
        let found = self.ty(op);
        if found == expected {
            return Ok(());
        }
        Err(ValidationError::TypeMismatch {
            body: self.at,
            expected: expected.clone(),
            found: found.clone(),
            span: self.body.spans[op],
        })
    }

    pub(super) fn arity(&self, id: ExprId, expected: usize, found: usize, span: Span) -> R {
        if expected == found {
            return Ok(());
        }
        Err(ValidationError::Arity {
            body: self.at,
            expr: id,
            expected,
            found,
            span,
        })
    }

    /// The width of an integer operand.
    pub(super) fn integer_width(
        &self,
        id: ExprId,
        n: u32,
        op: ExprId,
        span: Span,
    ) -> Result<u32, ValidationError> {
        match self.ty(op) {
            Type::Bits(w) | Type::Int(w) => Ok(*w),
            _ => Err(self.operand_type(id, n, op, span)),
        }
    }

    /// The layout of a header instance, checking its index form.
    pub(super) fn instance(
        &self,
        inst: InstId,
        index: Option<ExprId>,
        span: Span,
    ) -> Result<HeaderId, ValidationError> {
        let scu = self.scu(AnyId::Inst(inst), span)?;
        let i = scu
            .instances
            .get(inst)
            .ok_or_else(|| self.invalid(AnyId::Inst(inst), span))?;
        if i.stack.is_some() != index.is_some() {
            return Err(ValidationError::IndexForm {
                body: self.at,
                target: AnyId::Inst(inst),
                span,
            });
        }
        if self.types.module.headers.get(i.header).is_none() {
            return Err(self.invalid(AnyId::Header(i.header), span));
        }
        Ok(i.header)
    }

    /// The type of field `field` of a struct or header type.
    pub(super) fn field(&self, ty: &Type, field: u32, span: Span) -> Result<Type, ValidationError> {
        let module = self.types.module;
        let fields = match ty {
            Type::Struct(s) => module.structs.get(*s).map(|l| &l.fields),
            Type::Header(h) => module.headers.get(*h).map(|l| &l.fields),
            _ => None,
        };
        match fields.and_then(|f| f.get(field as usize)) {
            Some(f) => Ok(f.ty.clone()),
            None => Err(ValidationError::FieldIndex {
                body: self.at,
                ty: ty.clone(),
                field,
                span,
            }),
        }
    }

    /// The type of a `meta` field.
    pub(super) fn meta_field(&self, field: u32, span: Span) -> Result<Type, ValidationError> {
        let meta = self.unit.scu.and_then(|(_, s)| s.meta);
        let Some(meta) = meta else {
            return Err(ValidationError::NoMeta {
                body: self.at,
                span,
            });
        };
        self.field(&Type::Struct(meta), field, span)
    }

    fn slice(&self, id: ExprId, base: ExprId, hi: u32, lo: u32, span: Span) -> R {
        let width = self.integer_width(id, 0, base, span)?;
        if hi >= width || lo > hi {
            return Err(ValidationError::SliceBounds {
                body: self.at,
                expr: Some(id),
                hi,
                lo,
                width,
                span,
            });
        }
        self.result(id, &Type::Bits(hi - lo + 1), span)
    }

    fn unary(&self, id: ExprId, op: UnaryOp, a: ExprId, span: Span) -> R {
        let ty = self.ty(a);
        let ok = match op {
            UnaryOp::Neg => is_numeric(ty),
            UnaryOp::Not => *ty == Type::Bool,
            UnaryOp::BitNot => is_integer(ty),
        };
        if !ok {
            return Err(self.operand_type(id, 0, a, span));
        }
        self.result(id, &ty.clone(), span)
    }

    fn binary(&self, id: ExprId, op: BinaryOp, a: ExprId, b: ExprId, span: Span) -> R {
        use BinaryOp as B;
        let (lt, rt) = (self.ty(a), self.ty(b));
        let differ = || ValidationError::OperandsDiffer {
            body: self.at,
            expr: id,
            op,
            lhs: lt.clone(),
            rhs: rt.clone(),
            span,
        };
        match op {
            B::Shl | B::Shr => {
                self.integer_width(id, 0, a, span)?;
                if !matches!(rt, Type::Bits(_)) {
                    return Err(self.operand_type(id, 1, b, span));
                }
                self.result(id, &lt.clone(), span)
            }
            B::Concat => {
                let wl = self.integer_width(id, 0, a, span)?;
                let wr = self.integer_width(id, 1, b, span)?;
                self.result(id, &Type::Bits(wl + wr), span)
            }
            B::MulScaled(frac) | B::DivScaled(frac) => {
                if !is_numeric(lt) {
                    return Err(self.operand_type(id, 0, a, span));
                }
                let scale_ok = match rt {
                    Type::Fixed { frac: f, .. } => *f == frac,
                    Type::Bits(_) | Type::Int(_) => frac == 0,
                    _ => false,
                };
                if !scale_ok {
                    return Err(self.operand_type(id, 1, b, span));
                }
                self.result(id, &lt.clone(), span)
            }
            _ if lt != rt => Err(differ()),
            B::Eq | B::Ne if self.types.scalar(lt).is_some() => self.result(id, &Type::Bool, span),
            B::Lt | B::Le | B::Gt | B::Ge if is_numeric(lt) => self.result(id, &Type::Bool, span),
            B::LogicalAnd | B::LogicalOr if *lt == Type::Bool => self.result(id, &Type::Bool, span),
            B::And | B::Or | B::Xor if is_integer(lt) || *lt == Type::Bool => {
                self.result(id, &lt.clone(), span)
            }
            B::Add | B::Sub | B::SatAdd | B::SatSub | B::Mul | B::Div | B::Rem
                if is_numeric(lt) =>
            {
                self.result(id, &lt.clone(), span)
            }
            _ => Err(self.operand_type(id, 0, a, span)),
        }
    }

    fn action_data(&self, id: ExprId, apply: ExprId, action: u32, param: u32, span: Span) -> R {
        let bad = || ValidationError::BadActionData {
            body: self.at,
            expr: id,
            apply,
            span,
        };
        let Some(Expr::Apply(t)) = self.body.exprs.get(apply) else {
            return Err(bad());
        };
        let scu = self.scu(AnyId::Table(*t), span)?;
        let a = scu
            .tables
            .get(*t)
            .and_then(|t| t.actions.get(action as usize))
            .ok_or_else(bad)?;
        let body = &scu
            .actions
            .get(*a)
            .ok_or_else(|| self.invalid(AnyId::Action(*a), span))?
            .body;
        let local = body
            .params
            .get(param as usize)
            .and_then(|p| body.locals.get(*p))
            .ok_or_else(bad)?;
        self.result(id, &local.ty, span)
    }

    fn struct_lit(&self, id: ExprId, values: &[ExprId], span: Span) -> R {
        let ty = self.ty(id).clone();
        let module = self.types.module;
        let fields = match &ty {
            Type::Struct(s) => module.structs.get(*s).map(|l| &l.fields),
            Type::Header(h) => module.headers.get(*h).map(|l| &l.fields),
            _ => None,
        };
        let Some(fields) = fields else {
            return Err(ValidationError::FieldIndex {
                body: self.at,
                ty,
                field: 0,
                span,
            });
        };
        self.arity(id, fields.len(), values.len(), span)?;
        fields
            .iter()
            .zip(values)
            .try_for_each(|(f, v)| self.expect_type(&f.ty, *v))
    }
}
