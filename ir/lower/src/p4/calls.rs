//! Call statements: packet and header methods, tables, actions, sub-controls and externs.

use super::body::Fx;
use super::{Bound, Inst, Lw};
use scenic_frontend::p4::ast::{Arg, Expr as PExpr, ExprKind};
use scenic_frontend::p4::check::{DeclRef, HashKind, Method, Res};
use scenic_ir::body::{BinaryOp, Block, Expr, Intrinsic, Place, Stmt, UnaryOp};
use scenic_ir::span::Span;
use scenic_ir::types::Type;

impl Lw<'_> {
    /// A call used as a statement.
    pub(crate) fn call_stmt(&mut self, fx: &mut Fx, inst: &Inst, e: &PExpr, out: &mut Block) {
        let span = self.span(e.span);
        let ExprKind::Call { callee, args, .. } = &e.kind else {
            return;
        };
        let args: Vec<&PExpr> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Expr(x) => Some(x),
                _ => None,
            })
            .collect();
        let receiver = match &callee.kind {
            ExprKind::Member(base, _) => Some(&**base),
            _ => None,
        };
        let Res::Method(method) = self.res_of(e) else {
            return;
        };
        match method {
            Method::Extract => self.extract(fx, inst, args[0], out),
            Method::Advance => {
                let bits = self.const_u64(args[0]).unwrap_or(8) as u32;
                let skip = self.skip_header(bits);
                out.push(Stmt::Extract(skip), span);
            }
            Method::Emit => self.emit(fx, inst, args[0], out),
            Method::SetValid | Method::SetInvalid => {
                let valid = method == Method::SetValid;
                self.set_validity(fx, inst, receiver, valid, e, out)
            }
            Method::IsValid | Method::Lookahead | Method::CsumGet(_) | Method::CsumGetState(_) => {
                // A value computed for nothing: evaluate nothing (these have no effect).
            }
            Method::TableApply(t) => {
                let table = self.table(inst, t);
                let apply = fx
                    .body
                    .add(Expr::Apply(table), Type::TableResult(table), span);
                out.push(Stmt::Eval(apply), span);
            }
            Method::Action(at) => self.action_call(fx, inst, at, &args, span, out),
            Method::ControlApply(at) => self.apply_control(fx, inst, at, &args, e, out),
            Method::Verify => {
                self.unsupported(e.span, "`verify` inside a nested block of a parser state")
            }
            Method::MarkToDrop => {
                let place = self.std_place("egress_spec");
                let drop = Self::const_of(fx, 511, Type::Bits(9), span);
                if let Some(p) = place {
                    out.push(Stmt::Assign(p, drop), span);
                }
            }
            Method::VerifyChecksum | Method::UpdateChecksum => {
                self.checksum(fx, inst, method == Method::UpdateChecksum, &args, out)
            }
            Method::Hash(kind) => self.hash(fx, inst, kind, &args, out),
            Method::Count(at) if self.csr_of(at).is_some() => self.csr_count(fx, at, e, out),
            Method::Count(at) => self.count(fx, inst, at, args[0], e, out),
            Method::RegisterRead(at) if self.csr_of(at).is_some() => {
                self.csr_register(fx, inst, at, args[0], None, out)
            }
            Method::RegisterWrite(at) if self.csr_of(at).is_some() => {
                self.csr_register(fx, inst, at, args[0], Some(args[1]), out)
            }
            Method::RegisterRead(at) => self.register_read(fx, inst, at, &args, span, out),
            Method::RegisterWrite(at) => self.register_write(fx, inst, at, &args, span, out),
            Method::CsumClear(at) | Method::CsumSetState(at) => {
                self.csum_set(fx, inst, at, args.first().copied(), span, out)
            }
            Method::CsumAdd(at) | Method::CsumSubtract(at) => {
                let add = matches!(method, Method::CsumAdd(_));
                self.csum_update(fx, inst, at, add, args[0], out)
            }
        }
    }

    /// `setValid()` or `setInvalid()` (`valid` tells which) on `receiver`, which must be a header.
    fn set_validity(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        receiver: Option<&PExpr>,
        valid: bool,
        e: &PExpr,
        out: &mut Block,
    ) {
        let span = self.span(e.span);
        match receiver.and_then(|r| self.path(fx, inst, r)) {
            Some(Bound::Header { inst: i, index }) => {
                let index = index.map(|x| Self::const_of(fx, u64::from(x), Type::Bits(32), span));
                out.push(Stmt::SetValid(i, index, valid), span);
            }
            _ => self.unsupported(e.span, "`setValid`/`setInvalid` of this expression"),
        }
    }

    /// A direct call of action `at` with `args` as its arguments.
    fn action_call(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        args: &[&PExpr],
        span: Span,
        out: &mut Block,
    ) {
        let action = self.action(inst, at);
        let values: Vec<_> = args.iter().map(|a| self.expr(fx, inst, a, out)).collect();
        let call = fx
            .body
            .add(Expr::CallAction(action, values), Type::Unit, span);
        out.push(Stmt::Eval(call), span);
    }

    /// `register.read(result, index)` on a register kept as a map: the map's value at `index`
    /// assigned to `result`.
    fn register_read(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        args: &[&PExpr],
        span: Span,
        out: &mut Block,
    ) {
        let map = self.map(inst, at);
        let index = self.expr(fx, inst, args[1], out);
        let value_ty = self.scu.maps[map].value.clone();
        let get = fx.body.add(Expr::MapGet(map, index), value_ty, span);
        match self
            .path(fx, inst, args[0])
            .and_then(|b| self.place(fx, &b, span))
        {
            Some(p) => out.push(Stmt::Assign(p, get), span),
            None => self.unsupported(args[0].span, "reading a register into this expression"),
        }
    }

    /// `register.write(index, value)` on a register kept as a map.
    fn register_write(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        args: &[&PExpr],
        span: Span,
        out: &mut Block,
    ) {
        let map = self.map(inst, at);
        let index = self.expr(fx, inst, args[0], out);
        let value = self.expr(fx, inst, args[1], out);
        let put = fx
            .body
            .add(Expr::MapInsert(map, index, value), Type::Bool, span);
        out.push(Stmt::Eval(put), span);
    }

    /// `clear()` or `set_state(value)` of checksum unit `at`: its state becomes `value`, or 0.
    fn csum_set(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        value: Option<&PExpr>,
        span: Span,
        out: &mut Block,
    ) {
        let f = self.csum_field(inst, at);
        let value = match value {
            Some(a) => self.expr(fx, inst, a, out),
            None => Self::const_of(fx, 0, Type::Bits(16), span),
        };
        out.push(Stmt::Assign(Place::Meta(f), value), span);
    }

    fn const_u64(&self, e: &PExpr) -> Option<u64> {
        let v = self.ck.values.get(e.id.index()).cloned().flatten()?;
        u64::try_from(v).ok()
    }

    /// The place of a `standard_metadata` field.
    pub(crate) fn std_place(&self, field: &str) -> Option<Place> {
        let agg = self.ck.env.aggregates.get(self.arch.std_meta)?;
        let i = agg.field(field)?;
        Some(Place::Field(
            Box::new(Place::Meta(self.std_field)),
            i as u32,
        ))
    }

    fn extract(&mut self, fx: &mut Fx, inst: &Inst, arg: &PExpr, out: &mut Block) {
        let span = self.span(arg.span);
        let target = match (&arg.kind, self.res_of(arg)) {
            (ExprKind::Member(base, _), Res::StackNext) => match self.path(fx, inst, base) {
                Some(Bound::Stack(i)) => Some(i),
                _ => None,
            },
            _ => match self.path(fx, inst, arg) {
                Some(Bound::Header {
                    inst: i,
                    index: None,
                }) => Some(i),
                _ => None,
            },
        };
        match target {
            Some(i) => out.push(Stmt::Extract(i), span),
            None => self.unsupported(
                arg.span,
                "`extract` into this expression (extract a header of the packet, or `stack.next`)",
            ),
        }
    }

    fn emit(&mut self, fx: &mut Fx, inst: &Inst, arg: &PExpr, out: &mut Block) {
        let span = self.span(arg.span);
        match self.path(fx, inst, arg) {
            Some(Bound::Header {
                inst: i,
                index: None,
            })
            | Some(Bound::Stack(i)) => out.push(Stmt::Emit(i), span),
            Some(Bound::Headers { prefix, .. }) => {
                // Every instance under the struct, in declaration order.
                let mut all: Vec<_> = self
                    .instances
                    .iter()
                    .filter(|(path, _)| path.starts_with(&prefix))
                    .map(|(_, i)| *i)
                    .collect();
                all.sort();
                for i in all {
                    out.push(Stmt::Emit(i), span);
                }
            }
            _ => self.unsupported(arg.span, "`emit` of this expression"),
        }
    }

    /// The fields of a checksum's data list, concatenated into one value.
    fn concat_data(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        data: &PExpr,
        out: &mut Block,
    ) -> scenic_ir::entities::ExprId {
        let span = self.span(data.span);
        let items: Vec<&PExpr> = match &data.kind {
            ExprKind::List(items) => items.iter().collect(),
            _ => vec![data],
        };
        let mut acc: Option<scenic_ir::entities::ExprId> = None;
        for item in items {
            let x = self.expr(fx, inst, item, out);
            let x = match fx.body.types[x].clone() {
                Type::Bits(_) => x,
                other => {
                    let w = other.scalar_width(|_| 32).unwrap_or(1);
                    fx.body.add(Expr::Cast(x), Type::Bits(w), span)
                }
            };
            acc = Some(match acc {
                None => x,
                Some(a) => {
                    let wa = fx.body.types[a].scalar_width(|_| 32).unwrap_or(0);
                    let wx = fx.body.types[x].scalar_width(|_| 32).unwrap_or(0);
                    fx.body.add(
                        Expr::Binary(BinaryOp::Concat, a, x),
                        Type::Bits(wa + wx),
                        span,
                    )
                }
            });
        }
        acc.unwrap_or_else(|| Self::const_of(fx, 0, Type::Bits(16), span))
    }

    /// v1model `verify_checksum` / `update_checksum` with csum16.
    fn checksum(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        update: bool,
        args: &[&PExpr],
        out: &mut Block,
    ) {
        let span = self.span(args[1].span);
        let cond = self.expr(fx, inst, args[0], out);
        let mut body = Block::default();
        let data = self.concat_data(fx, inst, args[1], &mut body);
        let sum = fx.body.add(
            Expr::Intrinsic(Intrinsic::OnesComplement, vec![data]),
            Type::Bits(16),
            span,
        );
        if update {
            match self
                .path(fx, inst, args[2])
                .and_then(|b| self.place(fx, &b, span))
            {
                Some(p) => body.push(Stmt::Assign(p, sum), span),
                None => return self.unsupported(args[2].span, "updating this checksum field"),
            }
        } else {
            let field = self.expr(fx, inst, args[2], &mut body);
            let differ = fx
                .body
                .add(Expr::Binary(BinaryOp::Ne, sum, field), Type::Bool, span);
            let one = Self::const_of(fx, 1, Type::Bits(1), span);
            let mut set = Block::default();
            if let Some(p) = self.std_place("checksum_error") {
                set.push(Stmt::Assign(p, one), span);
            }
            body.push(Stmt::If(differ, set, Block::default()), span);
        }
        out.push(Stmt::If(cond, body, Block::default()), span);
    }

    /// `InternetChecksum.add(data)` / `.subtract(data)` on the running sum `S` (not inverted):
    /// `S + sum(data)` is `~ones_complement(S ++ ~ones_complement(data))`, and `S - sum(data)` is
    /// `~ones_complement(S ++ ones_complement(data))` in ones' complement arithmetic.
    fn csum_update(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        add: bool,
        data: &PExpr,
        out: &mut Block,
    ) {
        let span = self.span(data.span);
        let f = self.csum_field(inst, at);
        let d = self.concat_data(fx, inst, data, out);
        let oc = fx.body.add(
            Expr::Intrinsic(Intrinsic::OnesComplement, vec![d]),
            Type::Bits(16),
            span,
        );
        let part = if add {
            fx.body
                .add(Expr::Unary(UnaryOp::BitNot, oc), Type::Bits(16), span)
        } else {
            oc
        };
        let state = fx.body.add(Expr::Meta(f), Type::Bits(16), span);
        let both = fx.body.add(
            Expr::Binary(BinaryOp::Concat, state, part),
            Type::Bits(32),
            span,
        );
        let sum = fx.body.add(
            Expr::Intrinsic(Intrinsic::OnesComplement, vec![both]),
            Type::Bits(16),
            span,
        );
        let new = fx
            .body
            .add(Expr::Unary(UnaryOp::BitNot, sum), Type::Bits(16), span);
        out.push(Stmt::Assign(Place::Meta(f), new), span);
    }

    /// `c.count(i)`: counts when `i` is within the array (P4 leaves other indices undefined; BMv2
    /// ignores them), with the index narrowed so the IR can see it is in bounds.
    fn count(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        index: &PExpr,
        e: &PExpr,
        out: &mut Block,
    ) {
        let span = self.span(e.span);
        let counter = self.counter(inst, at);
        let size = self.scu.counters[counter].size;
        if let Some(i) = self.const_u64(index) {
            if i < size {
                let x = Self::const_of(fx, i, Type::Bits(32), span);
                out.push(Stmt::Count(counter, Some(x)), span);
            }
            return;
        }
        if !size.is_power_of_two() {
            return self.unsupported(
                index.span,
                "a counter indexed at run time whose size is not a power of two",
            );
        }
        let x = self.expr(fx, inst, index, out);
        // Vitis indices are `bit<S>`; compare in 32 bits like v1model's.
        let x = if fx.body.types[x] == Type::Bits(32) {
            x
        } else {
            fx.body.add(Expr::Cast(x), Type::Bits(32), span)
        };
        let limit = Self::const_of(fx, size, Type::Bits(32), span);
        let inside = fx
            .body
            .add(Expr::Binary(BinaryOp::Lt, x, limit), Type::Bool, span);
        let narrow = if size == 1 {
            Self::const_of(fx, 0, Type::Bits(32), span)
        } else {
            let again = self.expr(fx, inst, index, out);
            let bits = size.trailing_zeros();
            fx.body.add(Expr::Cast(again), Type::Bits(bits), span)
        };
        let mut then = Block::default();
        then.push(Stmt::Count(counter, Some(narrow)), span);
        out.push(Stmt::If(inside, then, Block::default()), span);
    }

    /// `r.read(v, i)` (`value` is `None`) or `r.write(i, v)` of a register holding a CSR: one
    /// cell, so the index is not evaluated (the backend writes a constant 0).
    fn csr_register(
        &mut self,
        fx: &mut Fx,
        inst: &Inst,
        at: DeclRef,
        first: &PExpr,
        value: Option<&PExpr>,
        out: &mut Block,
    ) {
        let Some(csr) = self.csr_of(at) else {
            return;
        };
        let span = self.span(first.span);
        match value {
            Some(v) => {
                let x = self.expr(fx, inst, v, out);
                out.push(Stmt::Assign(Place::Csr(csr), x), span);
            }
            None => {
                let ty = self.scu.csrs[csr].ty.clone();
                let x = fx.body.add(Expr::Csr(csr), ty, span);
                match self
                    .path(fx, inst, first)
                    .and_then(|b| self.place(fx, &b, span))
                {
                    Some(p) => out.push(Stmt::Assign(p, x), span),
                    None => self.unsupported(first.span, "reading a register into this expression"),
                }
            }
        }
    }

    /// `c.count(i)` of a one-cell counter holding a CSR: the CSR counts the packet.
    fn csr_count(&mut self, fx: &mut Fx, at: DeclRef, e: &PExpr, out: &mut Block) {
        let Some(csr) = self.csr_of(at) else {
            return;
        };
        let span = self.span(e.span);
        let ty = self.scu.csrs[csr].ty.clone();
        let old = fx.body.add(Expr::Csr(csr), ty.clone(), span);
        let one = Self::const_of(fx, 1, ty.clone(), span);
        let new = fx.body.add(Expr::Binary(BinaryOp::Add, old, one), ty, span);
        out.push(Stmt::Assign(Place::Csr(csr), new), span);
    }

    /// v1model `hash(result, algorithm, base, data, max)`: BMv2 stores `base + h % max`, which
    /// for the power of two `max` the checker requires is `base + (h & (max - 1))`, truncated or
    /// zero-extended to the result's width.
    fn hash(&mut self, fx: &mut Fx, inst: &Inst, kind: HashKind, args: &[&PExpr], out: &mut Block) {
        let span = self.span(args[3].span);
        let data = self.concat_data(fx, inst, args[3], out);
        let (intrinsic, w) = match kind {
            HashKind::Crc32 => (Intrinsic::Crc32, 32),
            HashKind::Crc16 => (Intrinsic::Crc16, 16),
            HashKind::Csum16 => (Intrinsic::OnesComplement, 16),
        };
        let mut h = fx
            .body
            .add(Expr::Intrinsic(intrinsic, vec![data]), Type::Bits(w), span);
        let max = self.const_u64(args[4]).unwrap_or(0);
        if max > 0 && max < (1u64 << w) {
            let mask = Self::const_of(fx, max - 1, Type::Bits(w), span);
            h = fx
                .body
                .add(Expr::Binary(BinaryOp::And, h, mask), Type::Bits(w), span);
        }
        let ty = self
            .ck
            .types
            .get(args[0].id.index())
            .cloned()
            .unwrap_or_default();
        let result = self.ir_ty(&ty);
        if result != Type::Bits(w) {
            h = fx.body.add(Expr::Cast(h), result.clone(), span);
        }
        let width = result.scalar_width(|_| 32).unwrap_or(0);
        let base = self.ck.values.get(args[2].id.index()).cloned().flatten();
        if let Some(base) = base.filter(|b| *b != num_bigint::BigInt::from(0)) {
            let b = fx.body.add(
                Expr::Const(scenic_ir::types::Const::from_bigint(&base, width)),
                result.clone(),
                span,
            );
            h = fx.body.add(Expr::Binary(BinaryOp::Add, b, h), result, span);
        }
        match self
            .path(fx, inst, args[0])
            .and_then(|b| self.place(fx, &b, span))
        {
            Some(p) => out.push(Stmt::Assign(p, h), span),
            None => self.unsupported(args[0].span, "a hash result in this expression"),
        }
    }
}
