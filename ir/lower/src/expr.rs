//! Lowering expressions.
//!
//! Types come from the checker's records; constants the checker folded become `Const`s directly.
//! What the checker leaves untyped (integer constants, loop variables) takes the type its context
//! expects: every lowering function receives that expectation and converts with an explicit `Cast`
//! when a value's own type differs, so that IR operands always agree.

use super::binary::Operand;
use super::{Lowerer, ScuCx};
use scenic_frontend::ast::{self, ExprKind};
use scenic_frontend::consteval::Value;
use scenic_frontend::db::{ChunkKey, SourceFile};
use scenic_frontend::typeck::signature::signature;
use scenic_frontend::typeck::{check_body, BodyCheck, ExprInfo};
use scenic_frontend::types::Ty;
use scenic_ir::body::{BeatField, Body, Expr, Intrinsic, PacketField, UnaryOp};
use scenic_ir::entities::*;
use scenic_ir::types::{Const, Type};
use std::sync::Arc;

/// A body under construction, with its scopes and the checker's facts about its chunk.
pub(crate) struct BodyCx {
    pub(crate) file: SourceFile,
    pub(crate) chunk: u32,
    pub(crate) body: Body,
    pub(crate) ret: Type,
    scopes: Vec<Vec<(String, LocalId)>>,
    check: Arc<BodyCheck>,
    sig_infos: scenic_frontend::typeck::ExprInfos,
}

impl BodyCx {
    pub(crate) fn new(file: SourceFile, chunk: u32, db: &dyn salsa::Database) -> BodyCx {
        let key = ChunkKey::new(db, file, chunk);
        BodyCx {
            file,
            chunk,
            body: Body::default(),
            ret: Type::Unit,
            scopes: vec![Vec::new()],
            check: check_body(db, key),
            sig_infos: signature(db, key).infos.clone(),
        }
    }

    /// The finished body.
    pub(crate) fn finish(self) -> Body {
        self.body
    }

    pub(crate) fn info(&self, e: &ast::Expr) -> Option<&ExprInfo> {
        self.check
            .infos
            .get(e.id)
            .or_else(|| self.sig_infos.get(e.id))
    }

    pub(crate) fn bind(&mut self, name: &str, local: LocalId) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_string(), local));
        }
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<LocalId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, l)| *l)
    }

    pub(crate) fn span(
        &self,
        db: &dyn salsa::Database,
        span: scenic_frontend::span::Span,
    ) -> scenic_ir::span::Span {
        let base = scenic_frontend::db::chunk_span(db, self.file, self.chunk).lo;
        scenic_ir::span::Span {
            file: crate::ir_file(self.file.id(db)),
            lo: span.lo + base,
            hi: span.hi + base,
        }
    }
}

impl Lowerer<'_> {
    /// Adds an IR expression for AST expression `e`.
    pub(crate) fn add(&self, bcx: &mut BodyCx, expr: Expr, ty: Type, e: &ast::Expr) -> ExprId {
        let span = bcx.span(self.db, e.span);
        bcx.body.add(expr, ty, span)
    }

    /// Lowers `e`, converting it to `expected` when given.
    pub(crate) fn lower_expr(
        &mut self,
        bcx: &mut BodyCx,
        e: &ast::Expr,
        expected: Option<&Type>,
        cx: &ScuCx,
    ) -> ExprId {
        let info = bcx.info(e).cloned();
        if let Some(ExprInfo {
            ty,
            value: Some(value),
        }) = &info
        {
            if !has_effects(e) {
                let ty = self.concrete(ty, expected, cx);
                let id = self.const_expr(bcx, value, ty, e);
                return self.convert(bcx, id, expected, e);
            }
        }
        let own = info.as_ref().map(|i| self.concrete(&i.ty, expected, cx));
        let id = self.lower_kind(bcx, e, own.as_ref(), cx);
        self.convert(bcx, id, expected, e)
    }

    /// A folded constant: a scalar as one `Const`, a struct or array value as a literal of its
    /// parts (an IR `Const` is a scalar's bit pattern in a body).
    fn const_expr(&mut self, bcx: &mut BodyCx, value: &Value, ty: Type, e: &ast::Expr) -> ExprId {
        let (Value::Struct(items) | Value::Array(items)) = value else {
            let c = self.const_of(value, &ty);
            return self.add(bcx, Expr::Const(c), ty, e);
        };
        let types = scenic_ir::record::part_types(&self.module, &ty);
        let parts: Vec<ExprId> = types
            .into_iter()
            .zip(items)
            .map(|(t, v)| self.const_expr(bcx, v, t, e))
            .collect();
        let lit = match ty {
            Type::Array(..) => Expr::ArrayLit(parts),
            _ => Expr::StructLit(parts),
        };
        self.add(bcx, lit, ty, e)
    }

    /// The IR type for a checked type, using `expected` for untyped constants.
    pub(crate) fn concrete(&mut self, ty: &Ty, expected: Option<&Type>, cx: &ScuCx) -> Type {
        match (ty, expected) {
            (Ty::IntLit | Ty::DecimalLit, Some(t)) => t.clone(),
            (Ty::IntLit, None) => Type::Int(64),
            _ => self.lower_ty(ty, cx),
        }
    }

    /// Casts `id` to `expected` when their types differ.
    pub(crate) fn convert(
        &self,
        bcx: &mut BodyCx,
        id: ExprId,
        expected: Option<&Type>,
        e: &ast::Expr,
    ) -> ExprId {
        match expected {
            Some(t)
                if bcx.body.types[id] != *t
                    && self.width(t).is_some()
                    && self.width(&bcx.body.types[id]).is_some() =>
            {
                if let Expr::Const(c) = &bcx.body.exprs[id] {
                    // Re-type a constant in place rather than casting it.
                    let width = self.width(t).unwrap_or(64);
                    let c = Const::from_bigint(&num_bigint::BigInt::from(c.0.clone()), width);
                    bcx.body.exprs[id] = Expr::Const(c);
                    bcx.body.types[id] = t.clone();
                    return id;
                }
                // A `bool` widens through `bit<1>`, the only cast it has (language.md §4.9):
                // `notify(host, flag)` zero-extends the flag to Coyote's 32-bit value.
                let id = if bcx.body.types[id] == Type::Bool && *t != Type::Bits(1) {
                    self.add(bcx, Expr::Cast(id), Type::Bits(1), e)
                } else {
                    id
                };
                self.add(bcx, Expr::Cast(id), t.clone(), e)
            }
            _ => id,
        }
    }

    fn lower_kind(
        &mut self,
        bcx: &mut BodyCx,
        e: &ast::Expr,
        own: Option<&Type>,
        cx: &ScuCx,
    ) -> ExprId {
        let ty = own.cloned().unwrap_or(Type::Unit);
        match &e.kind {
            ExprKind::Path(path) => self.lower_path(bcx, path, ty, e, cx),
            ExprKind::Field { base, field } => self.lower_field(bcx, base, field, ty, e, cx),
            ExprKind::Index { base, index } => self.lower_index(bcx, base, index, ty, e, cx),
            ExprKind::Slice { base, hi, lo } => self.lower_slice(bcx, base, hi, lo, ty, e, cx),
            ExprKind::Unary { .. } => self.lower_unary(bcx, e, ty, cx),
            ExprKind::Binary { op, lhs, rhs } => {
                self.lower_binary(bcx, *op, Operand::Ast(lhs), rhs, ty, e, cx)
            }
            ExprKind::Cast { value, .. } => {
                let inner = self.lower_expr(bcx, value, None, cx);
                if bcx.body.types[inner] == ty {
                    return inner;
                }
                self.add(bcx, Expr::Cast(inner), ty, e)
            }
            ExprKind::Call { callee, args } => self.lower_call(bcx, callee, args, ty, e, cx),
            ExprKind::MethodCall {
                receiver,
                method,
                args,
            } => self.lower_method(bcx, receiver, method, args, ty, e, cx),
            ExprKind::StructLit { fields, .. } => self.lower_struct_lit(bcx, fields, ty, e, cx),
            ExprKind::Tuple(items) => {
                let items = items
                    .iter()
                    .map(|i| self.lower_expr(bcx, i, None, cx))
                    .collect();
                self.add(bcx, Expr::Tuple(items), ty, e)
            }
            ExprKind::Array(items) => {
                let elem = match &ty {
                    Type::Array(elem, _) => Some((**elem).clone()),
                    _ => None,
                };
                let items = items
                    .iter()
                    .map(|i| self.lower_expr(bcx, i, elem.as_ref(), cx))
                    .collect();
                self.add(bcx, Expr::ArrayLit(items), ty, e)
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                // language.md §4.17: the condition, then only the taken branch (a lazy `Select`).
                let c = self.lower_expr(bcx, cond, Some(&Type::Bool), cx);
                let a = self.lower_expr(bcx, then, Some(&ty), cx);
                let b = self.lower_expr(bcx, otherwise, Some(&ty), cx);
                self.add(bcx, Expr::Select(c, a, b), ty, e)
            }
            ExprKind::Lit(_) | ExprKind::Error => self.add(bcx, Expr::Const(Const::zero()), ty, e),
        }
    }

    /// A run of prefix operators, `~(~x)`, `-(-y)`, `!!b`: every level has the type of the
    /// innermost operand (language.md §4.1, level 10: the result is the operand's type). The checker
    /// types the inner levels without recording them, so their type is `ty`, not a record; the
    /// run is lowered in a loop, as the checker types it, so that a long one cannot overflow the
    /// stack.
    fn lower_unary(&mut self, bcx: &mut BodyCx, e: &ast::Expr, ty: Type, cx: &ScuCx) -> ExprId {
        let mut levels = Vec::new();
        let mut inner = e;
        while let ExprKind::Unary { op, operand } = &inner.kind {
            levels.push((*op, inner));
            inner = operand;
            if bcx.info(inner).is_some_and(|i| i.value.is_some()) {
                break; // a folded constant operand, lowered as a constant
            }
        }
        let mut id = self.lower_expr(bcx, inner, Some(&ty), cx);
        while let Some((op, level)) = levels.pop() {
            let op = match op {
                ast::UnaryOp::Neg => UnaryOp::Neg,
                ast::UnaryOp::Not => UnaryOp::Not,
                ast::UnaryOp::BitNot => UnaryOp::BitNot,
            };
            id = self.add(bcx, Expr::Unary(op, id), ty.clone(), level);
        }
        id
    }

    fn lower_path(
        &mut self,
        bcx: &mut BodyCx,
        path: &ast::Path,
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        let _cx = cx;
        let name = path.last().name.as_str();
        if path.is_single() {
            if let Some(local) = bcx.lookup(name) {
                let lty = bcx.body.locals[local].ty.clone();
                return self.add(bcx, Expr::Local(local), lty, e);
            }
            if let Some(id) = _cx.csrs.get(name) {
                return self.add(bcx, Expr::Csr(*id), ty, e);
            }
            if let Some(id) = _cx.cc_state.get(name) {
                return self.add(bcx, Expr::CcState(*id), ty, e);
            }
            if let Some(id) = _cx.cc_params.get(name) {
                return self.add(bcx, Expr::CcParam(*id), ty, e);
            }
            if let Some(inst) = _cx.instances.get(name) {
                return self.add(
                    bcx,
                    Expr::Header {
                        inst: *inst,
                        index: None,
                    },
                    ty,
                    e,
                );
            }
            if _cx.flow_binding.as_deref() == Some(name) {
                return self.add(bcx, Expr::FlowId, ty, e);
            }
        }
        self.unsupported(bcx.file, format!("the name `{}`", path.text()), e.span.lo);
        self.add(bcx, Expr::Const(Const::zero()), ty, e)
    }

    fn lower_field(
        &mut self,
        bcx: &mut BodyCx,
        base: &ast::Expr,
        field: &ast::Ident,
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        if let ExprKind::Path(p) = &base.kind {
            if p.is_single() && bcx.lookup(&p.segments[0].name).is_none() {
                if let Some(id) =
                    self.special_field(bcx, &p.segments[0].name, &field.name, ty.clone(), e, cx)
                {
                    return id;
                }
            }
        }
        if let ExprKind::Index { base: stack, index } = &base.kind {
            if let ExprKind::Path(p) = &stack.kind {
                if let Some(&inst) = cx
                    .instances
                    .get(&p.segments[0].name)
                    .filter(|_| p.is_single())
                {
                    let index = self.lower_expr(bcx, index, None, cx);
                    let field = self.header_field_index(cx, inst, &field.name);
                    return self.add(
                        bcx,
                        Expr::HeaderField {
                            inst,
                            index: Some(index),
                            field,
                        },
                        ty,
                        e,
                    );
                }
            }
        }
        let base_id = self.lower_expr(bcx, base, None, cx);
        let position = self.field_position(&bcx.body.types[base_id], &field.name);
        let ty = match ty {
            // No checker record (an inner level of a nested place): the field's type.
            Type::Unit => self
                .field_type(&bcx.body.types[base_id], position)
                .unwrap_or(Type::Unit),
            ty => ty,
        };
        self.add(
            bcx,
            Expr::Field {
                base: base_id,
                field: position,
            },
            ty,
            e,
        )
    }

    /// `packet.len`, `beat.last`, `meta.x`, `hdr.f`, `hdr.valid`-style fields of named things.
    fn special_field(
        &mut self,
        bcx: &mut BodyCx,
        base: &str,
        field: &str,
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> Option<ExprId> {
        let expr = match (base, field) {
            ("packet", "len") => Expr::Packet(PacketField::Len),
            ("packet", "port") => Expr::Packet(PacketField::Port),
            ("packet", "timestamp") => Expr::Packet(PacketField::Timestamp),
            ("beat", "last") => Expr::Beat(BeatField::Last),
            ("beat", "keep") => Expr::Beat(BeatField::Keep),
            ("meta", f) if cx.meta.is_some() => {
                Expr::Meta(cx.meta_fields.iter().position(|n| n == f)? as u32)
            }
            (inst, f) => {
                let inst = *cx.instances.get(inst)?;
                Expr::HeaderField {
                    inst,
                    index: None,
                    field: self.header_field_index(cx, inst, f),
                }
            }
        };
        Some(self.add(bcx, expr, ty, e))
    }

    pub(crate) fn header_field_index(&self, cx: &ScuCx, inst: InstId, field: &str) -> u32 {
        cx.instance_headers
            .get(&inst)
            .copied()
            .and_then(|h| {
                self.module.headers[h]
                    .fields
                    .iter()
                    .position(|f| f.name == field)
            })
            .unwrap_or(0) as u32
    }

    pub(crate) fn field_position(&self, ty: &Type, field: &str) -> u32 {
        let fields = match ty {
            Type::Struct(s) => &self.module.structs[*s].fields,
            Type::Header(h) => &self.module.headers[*h].fields,
            Type::Tuple(_) => return field.parse().unwrap_or(0),
            _ => return 0,
        };
        fields.iter().position(|f| f.name == field).unwrap_or(0) as u32
    }

    /// The type of field `field` of a struct or header type.
    pub(crate) fn field_type(&self, ty: &Type, field: u32) -> Option<Type> {
        let fields = match ty {
            Type::Struct(s) => &self.module.structs.get(*s)?.fields,
            Type::Header(h) => &self.module.headers.get(*h)?.fields,
            Type::Tuple(items) => return items.get(field as usize).cloned(),
            _ => return None,
        };
        fields.get(field as usize).map(|f| f.ty.clone())
    }

    fn lower_index(
        &mut self,
        bcx: &mut BodyCx,
        base: &ast::Expr,
        index: &ast::Expr,
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        if let ExprKind::Path(p) = &base.kind {
            if let Some(&inst) = cx
                .instances
                .get(&p.segments[0].name)
                .filter(|_| p.is_single() && bcx.lookup(&p.segments[0].name).is_none())
            {
                let index = self.lower_expr(bcx, index, None, cx);
                return self.add(
                    bcx,
                    Expr::Header {
                        inst,
                        index: Some(index),
                    },
                    ty,
                    e,
                );
            }
        }
        let base = self.lower_expr(bcx, base, None, cx);
        let index = self.lower_expr(bcx, index, None, cx);
        let index = self.unsigned_index(bcx, index, e);
        // The checker records no type for the inner levels of `k[1][1]`: the element type.
        let ty = match (&ty, &bcx.body.types[base]) {
            (Type::Unit, Type::Array(elem, _)) => (**elem).clone(),
            _ => ty,
        };
        self.add(bcx, Expr::Index { base, index }, ty, e)
    }

    /// Indices and dynamic slice offsets are unsigned: reinterpret a signed loop variable.
    pub(crate) fn unsigned_index(&self, bcx: &mut BodyCx, id: ExprId, e: &ast::Expr) -> ExprId {
        match bcx.body.types[id] {
            Type::Int(n) => self.convert(bcx, id, Some(&Type::Bits(n)), e),
            _ => id,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_slice(
        &mut self,
        bcx: &mut BodyCx,
        base: &ast::Expr,
        hi: &ast::Expr,
        lo: &ast::Expr,
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        let base_id = self.lower_expr(bcx, base, None, cx);
        let hi_v = bcx
            .info(hi)
            .and_then(|i| i.value.clone())
            .and_then(|v| v.as_u64());
        let lo_v = bcx
            .info(lo)
            .and_then(|i| i.value.clone())
            .and_then(|v| v.as_u64());
        let width = self.width(&ty).unwrap_or(1);
        match (hi_v, lo_v) {
            (Some(h), Some(l)) => self.add(
                bcx,
                Expr::Slice {
                    base: base_id,
                    hi: h as u32,
                    lo: l as u32,
                },
                ty,
                e,
            ),
            _ => {
                let lo_id = self.lower_expr(bcx, lo, Some(&Type::Bits(32)), cx);
                self.add(
                    bcx,
                    Expr::SliceDyn {
                        base: base_id,
                        lo: lo_id,
                        width,
                    },
                    ty,
                    e,
                )
            }
        }
    }

    fn lower_struct_lit(
        &mut self,
        bcx: &mut BodyCx,
        fields: &[(ast::Ident, ast::Expr)],
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        let layout: Vec<(String, Type)> = match &ty {
            Type::Struct(s) => self.module.structs[*s]
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.ty.clone()))
                .collect(),
            Type::Header(h) => self.module.headers[*h]
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.ty.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let mut values = Vec::new();
        for (name, fty) in &layout {
            if let Some((_, value)) = fields.iter().find(|(n, _)| n.name == *name) {
                values.push(self.lower_expr(bcx, value, Some(fty), cx));
            }
        }
        self.add(bcx, Expr::StructLit(values), ty, e)
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_call(
        &mut self,
        bcx: &mut BodyCx,
        callee: &ast::Expr,
        args: &[ast::Expr],
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        let ExprKind::Path(path) = &callee.kind else {
            return self.add(bcx, Expr::Const(Const::zero()), ty, e);
        };
        let name = path.last().name.as_str();
        let first = path.segments[0].name.as_str();
        if path.segments.len() >= 2 && matches!(first, "hash" | "checksum" | "std") {
            return self.lower_intrinsic(bcx, name, args, ty, e, cx);
        }
        match name {
            "min" | "max" if path.is_single() && !cx.functions.contains_key(name) => {
                let which = if name == "min" {
                    Intrinsic::Min
                } else {
                    Intrinsic::Max
                };
                let a = args
                    .iter()
                    .map(|a| self.lower_expr(bcx, a, Some(&ty), cx))
                    .collect();
                return self.add(bcx, Expr::Intrinsic(which, a), ty, e);
            }
            "lookahead" if path.is_single() => {
                let n = self.width(&ty).unwrap_or(8);
                return self.add(bcx, Expr::Lookahead(n), ty, e);
            }
            _ => {}
        }
        if let Some(&f) = cx.functions.get(name).filter(|_| path.is_single()) {
            let params: Vec<Type> = self.param_types(f);
            let a = self.lower_args(bcx, args, &params, cx);
            return self.add(bcx, Expr::Call(f, a), ty, e);
        }
        if let Some(&action) = cx.actions.get(name).filter(|_| path.is_single()) {
            let params = self.action_param_types(cx, action);
            let a = self.lower_args(bcx, args, &params, cx);
            return self.add(bcx, Expr::CallAction(action, a), Type::Unit, e);
        }
        match self.module_function(bcx.file, path) {
            Some(f) => {
                let params = self.param_types(f);
                let a = self.lower_args(bcx, args, &params, cx);
                self.add(bcx, Expr::Call(f, a), ty, e)
            }
            None => {
                self.unsupported(
                    bcx.file,
                    format!("the call of `{}`", path.text()),
                    e.span.lo,
                );
                self.add(bcx, Expr::Const(Const::zero()), ty, e)
            }
        }
    }

    pub(crate) fn lower_args(
        &mut self,
        bcx: &mut BodyCx,
        args: &[ast::Expr],
        params: &[Type],
        cx: &ScuCx,
    ) -> Vec<ExprId> {
        args.iter()
            .zip(params)
            .map(|(a, t)| self.lower_expr(bcx, a, Some(t), cx))
            .collect()
    }

    fn param_types(&self, f: FuncId) -> Vec<Type> {
        let body = &self.module.functions[f].body;
        body.params
            .iter()
            .map(|p| body.locals[*p].ty.clone())
            .collect()
    }

    fn lower_intrinsic(
        &mut self,
        bcx: &mut BodyCx,
        name: &str,
        args: &[ast::Expr],
        ty: Type,
        e: &ast::Expr,
        cx: &ScuCx,
    ) -> ExprId {
        let which = match name {
            "crc32" => Intrinsic::Crc32,
            "crc16" => Intrinsic::Crc16,
            "murmur3_32" => Intrinsic::Murmur3,
            "toeplitz" => Intrinsic::Toeplitz,
            "ones_complement" => Intrinsic::OnesComplement,
            _ => Intrinsic::ChecksumUpdate,
        };
        let expected: Vec<Option<Type>> = match which {
            Intrinsic::Murmur3 => vec![None, Some(Type::Bits(32))],
            Intrinsic::ChecksumUpdate => vec![Some(Type::Bits(16)); 3],
            _ => vec![None, None],
        };
        let a = args
            .iter()
            .enumerate()
            .map(|(i, arg)| {
                let exp = expected.get(i).cloned().flatten();
                self.lower_expr(bcx, arg, exp.as_ref(), cx)
            })
            .collect();
        self.add(bcx, Expr::Intrinsic(which, a), ty, e)
    }
}

/// Whether evaluating `e` can have effects (so it must not be replaced by its folded value).
fn has_effects(e: &ast::Expr) -> bool {
    matches!(e.kind, ExprKind::Call { .. } | ExprKind::MethodCall { .. })
}
