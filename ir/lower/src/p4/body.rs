//! Expressions: paths to storage (header instances, fields, `meta`, locals), values and places.
//!
//! A path expression (`hdr.ipv4.ttl`, `meta.x`, `standard_metadata.egress_spec`) is first turned
//! into a [`Bound`] by following the parameter bindings of the instance being lowered, then into an
//! IR expression (to read it) or an IR [`Place`] (to write it). Other expressions map operator for
//! operator; values the checker computed become constants. `?:` becomes a temporary assigned in an
//! `if`, placed before the statement that uses it (P4 expressions have no other side effects the
//! move could reorder: table applications and extern calls are statements here).

use super::{Bound, Inst, Lw};
use scenic_frontend::p4::ast::{BinOp, Expr as PExpr, ExprKind, UnOp};
use scenic_frontend::p4::check::{DeclRef, Method, Owner, Res, Ty, VarId, VarScope};
use scenic_ir::body::{BinaryOp, Block, Body, Expr, Place, Stmt, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::types::{Const, Type};
use std::collections::HashMap;

/// A body under construction.
#[derive(Default)]
pub(crate) struct Fx {
    pub(crate) body: Body,
    /// P4 statement-block variables and their IR locals.
    pub(crate) locals: HashMap<VarId, LocalId>,
    /// The action being lowered and the IR locals of its parameters.
    pub(crate) action: Option<(DeclRef, Vec<LocalId>)>,
}

impl Lw<'_> {
    pub(crate) fn ty_of(&self, e: &PExpr) -> Ty {
        self.ck.types.get(e.id.index()).cloned().unwrap_or_default()
    }

    pub(crate) fn res_of(&self, e: &PExpr) -> Res {
        self.ck.res.get(e.id.index()).cloned().unwrap_or_default()
    }

    /// The storage a path expression denotes, if it is one.
    pub(crate) fn path(&mut self, fx: &Fx, inst: &Inst, e: &PExpr) -> Option<Bound> {
        match (&e.kind, self.res_of(e)) {
            (ExprKind::Name(_), Res::Param(owner @ Owner::Block(_), i)) => {
                inst.params.get(&owner).and_then(|p| p.get(i)).cloned()
            }
            (ExprKind::Name(_), Res::Param(Owner::Action(at), i)) => {
                let (a, locals) = fx.action.as_ref()?;
                let local = *locals.get(i).filter(|_| *a == at)?;
                Some(Bound::Place(Place::Local(local), self.ty_of(e)))
            }
            (ExprKind::Name(_), Res::Var(v)) => self
                .var_place(fx, inst, v)
                .map(|p| Bound::Place(p, self.ty_of(e))),
            (ExprKind::Member(base, _), Res::Field(i)) => {
                let b = self.path(fx, inst, base)?;
                self.field_of(b, i as u32, self.ty_of(e))
            }
            (ExprKind::Index(base, index), _) => {
                let i = self.ck.values.get(index.id.index()).cloned().flatten()?;
                let i = u32::try_from(i).ok()?;
                match self.path(fx, inst, base)? {
                    Bound::Stack(inst) => Some(Bound::Header {
                        inst,
                        index: Some(i),
                    }),
                    _ => None,
                }
            }
            (ExprKind::Slice(base, hi, lo), _) => {
                let (h, l) = (self.const_u32(hi)?, self.const_u32(lo)?);
                match self.path(fx, inst, base)? {
                    Bound::Place(p, _) => {
                        Some(Bound::Place(Place::Slice(Box::new(p), h, l), self.ty_of(e)))
                    }
                    Bound::Field {
                        inst: i,
                        index: None,
                        field,
                    } => {
                        let p = Place::HeaderField {
                            inst: i,
                            index: None,
                            field,
                        };
                        Some(Bound::Place(Place::Slice(Box::new(p), h, l), self.ty_of(e)))
                    }
                    // A stack element's index becomes an expression in `place` (smith seed 81:
                    // `hdr.s[0].f[3:1] = v` was refused).
                    field @ Bound::Field { .. } => Some(Bound::Slice(Box::new(field), h, l)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn const_u32(&self, e: &PExpr) -> Option<u32> {
        let v = self.ck.values.get(e.id.index()).cloned().flatten()?;
        u32::try_from(v).ok()
    }

    /// Where a variable lives: a `meta` field for block-level variables, an IR local otherwise.
    pub(crate) fn var_place(&mut self, fx: &Fx, inst: &Inst, v: VarId) -> Option<Place> {
        let var = self.ck.vars.get(v)?.clone();
        match var.scope {
            VarScope::Block(_) => {
                let key = (inst.key.clone(), v);
                if let Some(&f) = self.var_fields.get(&key) {
                    return Some(Place::Meta(f));
                }
                let ty = self.ir_ty(&var.ty);
                let f = self.meta_field(format!("{}.{}", inst.key, var.name), ty);
                self.var_fields.insert(key, f);
                Some(Place::Meta(f))
            }
            VarScope::Local => fx.locals.get(&v).map(|l| Place::Local(*l)),
        }
    }

    /// Field `i` (of P4 type `ty`) of a bound struct or header.
    fn field_of(&mut self, b: Bound, i: u32, ty: Ty) -> Option<Bound> {
        match b {
            Bound::Headers { agg, prefix } => {
                let (name, fty) = self
                    .ck
                    .env
                    .aggregates
                    .get(agg)?
                    .fields
                    .get(i as usize)?
                    .clone();
                let path = format!("{prefix}{name}");
                match &fty {
                    Ty::Stack(..) => self.instances.get(&path).map(|i| Bound::Stack(*i)),
                    Ty::Agg(a) if self.ck.env.is_header(&fty) => {
                        let _ = a;
                        self.instances.get(&path).map(|i| Bound::Header {
                            inst: *i,
                            index: None,
                        })
                    }
                    Ty::Agg(a) => Some(Bound::Headers {
                        agg: *a,
                        prefix: format!("{path}."),
                    }),
                    _ => None,
                }
            }
            Bound::Header { inst, index } => Some(Bound::Field {
                inst,
                index,
                field: i,
            }),
            Bound::Place(p, _) => Some(Bound::Place(Place::Field(Box::new(p), i), ty)),
            _ => None,
        }
    }

    /// A stack index as an expression of the body.
    fn index_expr(
        body: &mut Body,
        index: Option<u32>,
        span: scenic_ir::span::Span,
    ) -> Option<ExprId> {
        index.map(|i| Self::const_ir(body, u64::from(i), Type::Bits(32), span))
    }

    /// Reads bound storage.
    pub(crate) fn read(
        &mut self,
        fx: &mut Fx,
        b: &Bound,
        span: scenic_ir::span::Span,
    ) -> Option<ExprId> {
        Some(match b {
            Bound::Header { inst, index } => {
                let h = self.scu.instances[*inst].header;
                let index = Self::index_expr(&mut fx.body, *index, span);
                fx.body
                    .add(Expr::Header { inst: *inst, index }, Type::Header(h), span)
            }
            Bound::Field { inst, index, field } => {
                let h = self.scu.instances[*inst].header;
                let ty = self.module.headers[h]
                    .fields
                    .get(*field as usize)?
                    .ty
                    .clone();
                let index = Self::index_expr(&mut fx.body, *index, span);
                fx.body.add(
                    Expr::HeaderField {
                        inst: *inst,
                        index,
                        field: *field,
                    },
                    ty,
                    span,
                )
            }
            Bound::Place(p, _) => self.read_place(fx, p, span)?,
            _ => return None,
        })
    }

    fn read_place(
        &mut self,
        fx: &mut Fx,
        p: &Place,
        span: scenic_ir::span::Span,
    ) -> Option<ExprId> {
        let (expr, ty) = match p {
            Place::Local(l) => (Expr::Local(*l), fx.body.locals.get(*l)?.ty.clone()),
            Place::Meta(i) => (
                Expr::Meta(*i),
                self.meta_fields.get(*i as usize)?.ty.clone(),
            ),
            Place::Field(base, f) => {
                let b = self.read_place(fx, base, span)?;
                let ty = self.field_type(&fx.body.types[b], *f)?;
                (Expr::Field { base: b, field: *f }, ty)
            }
            Place::Slice(base, hi, lo) => {
                let b = self.read_place(fx, base, span)?;
                (
                    Expr::Slice {
                        base: b,
                        hi: *hi,
                        lo: *lo,
                    },
                    Type::Bits(hi - lo + 1),
                )
            }
            Place::HeaderField { inst, field, .. } => {
                let h = self.scu.instances[*inst].header;
                let ty = self.module.headers[h]
                    .fields
                    .get(*field as usize)?
                    .ty
                    .clone();
                (
                    Expr::HeaderField {
                        inst: *inst,
                        index: None,
                        field: *field,
                    },
                    ty,
                )
            }
            _ => return None,
        };
        Some(fx.body.add(expr, ty, span))
    }

    /// The type of field `f` of a struct or header type.
    fn field_type(&self, ty: &Type, f: u32) -> Option<Type> {
        match ty {
            Type::Struct(s) => self
                .module
                .structs
                .get(*s)?
                .fields
                .get(f as usize)
                .map(|x| x.ty.clone()),
            Type::Header(h) => self
                .module
                .headers
                .get(*h)?
                .fields
                .get(f as usize)
                .map(|x| x.ty.clone()),
            _ => None,
        }
    }

    /// Bound storage as a place to write.
    pub(crate) fn place(
        &mut self,
        fx: &mut Fx,
        b: &Bound,
        span: scenic_ir::span::Span,
    ) -> Option<Place> {
        Some(match b {
            Bound::Header { inst, index } => Place::Header {
                inst: *inst,
                index: Self::index_expr(&mut fx.body, *index, span),
            },
            Bound::Field { inst, index, field } => Place::HeaderField {
                inst: *inst,
                index: Self::index_expr(&mut fx.body, *index, span),
                field: *field,
            },
            Bound::Place(p, _) => p.clone(),
            Bound::Slice(b, hi, lo) => Place::Slice(Box::new(self.place(fx, b, span)?), *hi, *lo),
            _ => return None,
        })
    }

    /// A placeholder after an error (the lowering fails anyway).
    fn dummy(fx: &mut Fx, span: scenic_ir::span::Span) -> ExprId {
        Self::const_ir(&mut fx.body, 0, Type::Bool, span)
    }

    /// Lowers an expression; statements it needs first (`?:` temporaries) go into `pre`.
    pub(crate) fn expr(&mut self, fx: &mut Fx, inst: &Inst, e: &PExpr, pre: &mut Block) -> ExprId {
        let span = self.span(e.span);
        let ty = self.ty_of(e);
        if let Some(v) = self.ck.values.get(e.id.index()).cloned().flatten() {
            if matches!(
                ty,
                Ty::Bits(_) | Ty::Int(_) | Ty::Bool | Ty::Error | Ty::Enum(_)
            ) {
                return self.constant(&mut fx.body, &v, &ty, span);
            }
        }
        if matches!(
            e.kind,
            ExprKind::Name(_) | ExprKind::Member(..) | ExprKind::Index(..)
        ) {
            if let Some(b) = self.path(fx, inst, e) {
                if let Some(x) = self.read(fx, &b, span) {
                    return x;
                }
            }
        }
        match &e.kind {
            ExprKind::Member(base, _) => self.member_value(fx, inst, e, base, &ty, pre),
            ExprKind::Slice(base, hi, lo) => {
                let b = self.expr(fx, inst, base, pre);
                match (self.const_u32(hi), self.const_u32(lo)) {
                    (Some(h), Some(l)) => {
                        let slice = Expr::Slice {
                            base: b,
                            hi: h,
                            lo: l,
                        };
                        fx.body.add(slice, Type::Bits(h - l + 1), span)
                    }
                    _ => Self::dummy(fx, span),
                }
            }
            ExprKind::Call { .. } => self.call_value(fx, inst, e, pre),
            ExprKind::Unary(op, x) => self.unary(fx, inst, *op, x, &ty, span, pre),
            ExprKind::Binary(op, a, b) => self.binary(fx, inst, e, *op, a, b, pre),
            ExprKind::Ternary(c, a, b) => self.ternary(fx, inst, e, c, a, b, pre),
            ExprKind::Cast(_, x) => {
                let a = self.expr(fx, inst, x, pre);
                let to = self.ir_ty(&ty);
                if fx.body.types[a] == to {
                    a
                } else {
                    fx.body.add(Expr::Cast(a), to, span)
                }
            }
            ExprKind::List(items) if matches!(ty, Ty::Agg(_)) => {
                let xs: Vec<ExprId> = items.iter().map(|i| self.expr(fx, inst, i, pre)).collect();
                let ir = self.ir_ty(&ty);
                fx.body.add(Expr::StructLit(xs), ir, span)
            }
            ExprKind::StructInit(fields) => self.struct_init(fx, inst, e, fields, pre),
            ExprKind::List(items) => {
                let xs: Vec<ExprId> = items.iter().map(|i| self.expr(fx, inst, i, pre)).collect();
                let tys = xs.iter().map(|x| fx.body.types[*x].clone()).collect();
                fx.body.add(Expr::Tuple(xs), Type::Tuple(tys), span)
            }
            _ => {
                self.unsupported(e.span, "this expression");
                Self::dummy(fx, span)
            }
        }
    }

    /// A member that is not a place (those are read as paths): a field of a computed struct.
    fn member_value(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        e: &PExpr,
        base: &PExpr,
        ty: &Ty,
        pre: &mut Block,
    ) -> ExprId {
        let span = self.span(e.span);
        match self.res_of(e) {
            Res::Field(i) => {
                let b = self.expr(fx, inst, base, pre);
                let fty = self.ir_ty(ty);
                fx.body.add(
                    Expr::Field {
                        base: b,
                        field: i as u32,
                    },
                    fty,
                    span,
                )
            }
            _ => {
                self.unsupported(e.span, "this member in an expression (`hit`/`miss` only as the whole condition of an `if`)");
                Self::dummy(fx, span)
            }
        }
    }

    /// A unary operation of type `ty` on `x` (unary plus is `x` itself).
    #[allow(clippy::too_many_arguments)]
    fn unary(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        op: UnOp,
        x: &PExpr,
        ty: &Ty,
        span: scenic_ir::span::Span,
        pre: &mut Block,
    ) -> ExprId {
        let a = self.expr(fx, inst, x, pre);
        let op = match op {
            UnOp::Not => UnaryOp::Not,
            UnOp::BitNot => UnaryOp::BitNot,
            UnOp::Neg => UnaryOp::Neg,
            UnOp::Plus => return a,
        };
        let ir = self.ir_ty(ty);
        fx.body.add(Expr::Unary(op, a), ir, span)
    }

    fn struct_init(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        e: &PExpr,
        fields: &[(scenic_frontend::p4::ast::Ident, PExpr)],
        pre: &mut Block,
    ) -> ExprId {
        let span = self.span(e.span);
        let ty = self.ty_of(e);
        let Ty::Agg(a) = ty else {
            return Self::dummy(fx, span);
        };
        let names: Vec<String> = self.ck.env.aggregates[a]
            .fields
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        // Fields are evaluated in the order written, then assembled in layout order.
        let mut values: HashMap<String, ExprId> = HashMap::new();
        for (name, value) in fields {
            let x = self.expr(fx, inst, value, pre);
            values.insert(name.name.clone(), x);
        }
        let items: Option<Vec<ExprId>> = names.iter().map(|n| values.get(n).copied()).collect();
        let ir = self.ir_ty(&ty);
        match items {
            Some(items) if fields.len() == names.len() => {
                fx.body.add(Expr::StructLit(items), ir, span)
            }
            _ => Self::dummy(fx, span),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        e: &PExpr,
        op: BinOp,
        a: &PExpr,
        b: &PExpr,
        pre: &mut Block,
    ) -> ExprId {
        let span = self.span(e.span);
        let x = self.expr(fx, inst, a, pre);
        let y = self.expr(fx, inst, b, pre);
        let ty = self.ty_of(e);
        let ir = self.ir_ty(&ty);
        let op = match op {
            BinOp::Mul => BinaryOp::Mul,
            BinOp::Div => BinaryOp::Div,
            BinOp::Mod => BinaryOp::Rem,
            BinOp::Add => BinaryOp::Add,
            BinOp::Sub => BinaryOp::Sub,
            BinOp::SatAdd => BinaryOp::SatAdd,
            BinOp::SatSub => BinaryOp::SatSub,
            BinOp::Shl => BinaryOp::Shl,
            BinOp::Shr => BinaryOp::Shr,
            BinOp::BitAnd => BinaryOp::And,
            BinOp::BitXor => BinaryOp::Xor,
            BinOp::BitOr => BinaryOp::Or,
            BinOp::Le => BinaryOp::Le,
            BinOp::Ge => BinaryOp::Ge,
            BinOp::Lt => BinaryOp::Lt,
            BinOp::Gt => BinaryOp::Gt,
            BinOp::Eq => BinaryOp::Eq,
            BinOp::Ne => BinaryOp::Ne,
            BinOp::And => BinaryOp::LogicalAnd,
            BinOp::Or => BinaryOp::LogicalOr,
            BinOp::Concat => {
                let (wa, wb) = (
                    fx.body.types[x].scalar_width(|_| 32).unwrap_or(0),
                    fx.body.types[y].scalar_width(|_| 32).unwrap_or(0),
                );
                let joined = fx.body.add(
                    Expr::Binary(BinaryOp::Concat, x, y),
                    Type::Bits(wa + wb),
                    span,
                );
                return if ir == Type::Bits(wa + wb) {
                    joined
                } else {
                    fx.body.add(Expr::Cast(joined), ir, span)
                };
            }
        };
        fx.body.add(Expr::Binary(op, x, y), ir, span)
    }

    #[allow(clippy::too_many_arguments)]
    fn ternary(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        e: &PExpr,
        c: &PExpr,
        a: &PExpr,
        b: &PExpr,
        pre: &mut Block,
    ) -> ExprId {
        let span = self.span(e.span);
        let ty = self.ty_of(e);
        let Some(zero) = self.zero(&mut fx.body, &ty, span) else {
            self.unsupported(e.span, "`?:` on headers");
            return Self::dummy(fx, span);
        };
        let ir = self.ir_ty(&ty);
        let tmp = fx.body.local("$sel", ir, true);
        pre.push(Stmt::Let(tmp, zero), span);
        let cond = self.expr(fx, inst, c, pre);
        let mut branches = Vec::new();
        for x in [a, b] {
            let mut block = Block::default();
            let v = self.expr(fx, inst, x, &mut block);
            block.push(Stmt::Assign(Place::Local(tmp), v), span);
            branches.push(block);
        }
        let otherwise = branches.pop().unwrap_or_default();
        let then = branches.pop().unwrap_or_default();
        pre.push(Stmt::If(cond, then, otherwise), span);
        fx.body
            .add(Expr::Local(tmp), fx.body.locals[tmp].ty.clone(), span)
    }

    /// Calls used as values: `isValid()`, `lookahead<T>()`, `InternetChecksum.get()`.
    fn call_value(&mut self, fx: &mut Fx, inst: &Inst, e: &PExpr, pre: &mut Block) -> ExprId {
        let span = self.span(e.span);
        let ExprKind::Call { callee, .. } = &e.kind else {
            return Self::dummy(fx, span);
        };
        match self.res_of(e) {
            Res::Method(Method::IsValid) => {
                let ExprKind::Member(base, _) = &callee.kind else {
                    return Self::dummy(fx, span);
                };
                match self.path(fx, inst, base) {
                    Some(Bound::Header { inst: i, index }) => {
                        let index = Self::index_expr(&mut fx.body, index, span);
                        fx.body
                            .add(Expr::HeaderValid { inst: i, index }, Type::Bool, span)
                    }
                    _ => {
                        self.unsupported(e.span, "`isValid` of this expression");
                        Self::dummy(fx, span)
                    }
                }
            }
            Res::Method(Method::Lookahead) => self.lookahead(fx, e, pre),
            Res::Method(Method::CsumGet(at) | Method::CsumGetState(at)) => {
                let f = self.csum_field(inst, at);
                let state = fx.body.add(Expr::Meta(f), Type::Bits(16), span);
                if matches!(self.res_of(e), Res::Method(Method::CsumGet(_))) {
                    fx.body
                        .add(Expr::Unary(UnaryOp::BitNot, state), Type::Bits(16), span)
                } else {
                    state
                }
            }
            _ => {
                self.unsupported(e.span, "this call inside an expression (table applications go in `if (t.apply().hit)` or `switch`)");
                Self::dummy(fx, span)
            }
        }
    }

    /// `lookahead<bit<N>>()`, or `lookahead<H>()` for a header: the bits, split into fields.
    fn lookahead(&mut self, fx: &mut Fx, e: &PExpr, pre: &mut Block) -> ExprId {
        let span = self.span(e.span);
        let ty = self.ty_of(e);
        let width = self.ck.env.bit_width(&ty).unwrap_or(0);
        let bits = fx.body.add(Expr::Lookahead(width), Type::Bits(width), span);
        let Ty::Agg(_) = ty else {
            return bits;
        };
        let ir = self.ir_ty(&ty);
        let Type::Header(h) = ir else {
            return Self::dummy(fx, span);
        };
        let tmp = fx.body.local("$lookahead", Type::Bits(width), false);
        pre.push(Stmt::Let(tmp, bits), span);
        let fields: Vec<(u32, Type)> = self.module.headers[h]
            .fields
            .iter()
            .map(|f| (f.offset, f.ty.clone()))
            .collect();
        let mut items = Vec::new();
        for (offset, fty) in fields {
            let w = fty.scalar_width(|_| 32).unwrap_or(1);
            let hi = width - 1 - offset;
            let whole = fx.body.add(Expr::Local(tmp), Type::Bits(width), span);
            let slice = fx.body.add(
                Expr::Slice {
                    base: whole,
                    hi,
                    lo: hi + 1 - w,
                },
                Type::Bits(w),
                span,
            );
            let item = if fty == Type::Bits(w) {
                slice
            } else {
                fx.body.add(Expr::Cast(slice), fty, span)
            };
            items.push(item);
        }
        fx.body.add(Expr::StructLit(items), ir, span)
    }

    /// The `meta` field holding an InternetChecksum's running sum.
    pub(crate) fn csum_field(&mut self, inst: &Inst, at: DeclRef) -> u32 {
        let key = (inst.key.clone(), at);
        if let Some(&f) = self.csum_fields.get(&key) {
            return f;
        }
        let f = self.meta_field(
            format!("{}.$csum{}", inst.key, self.csum_fields.len()),
            Type::Bits(16),
        );
        self.csum_fields.insert(key, f);
        f
    }

    /// A constant of IR type `ty` (for hidden state).
    pub(crate) fn const_of(fx: &mut Fx, v: u64, ty: Type, span: scenic_ir::span::Span) -> ExprId {
        fx.body.add(Expr::Const(Const::from_u64(v)), ty, span)
    }
}
