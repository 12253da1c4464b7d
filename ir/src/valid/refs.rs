//! The validator's checks of expressions that read storage or the environment (locals, CSRs,
//! packet and beat fields, the flow id, cc state and params), of element accesses and casts, and of
//! members (maps, meters, tables) and aggregate literals: one function per kind, called from the
//! single exhaustive match in [`expr`](super::expr). Each checks that the ids it names exist in the
//! unit, that the construct may appear in this body, and that the recorded type is the one the
//! construct gives.

use super::body::Checker;
use super::error::{AnyId, Construct, ValidationError};
use super::types::cast_ok;
use crate::body::{BeatField, PacketField};
use crate::entities::*;
use crate::program::Attach;
use crate::span::Span;
use crate::types::Type;

type R = Result<(), ValidationError>;

impl Checker<'_> {
    pub(super) fn local_ref(&mut self, id: ExprId, l: LocalId, span: Span) -> R {
        match self.body.locals.get(l) {
            Some(local) => self.result(id, &local.ty, span),
            None => Err(self.invalid(AnyId::Local(l), span)),
        }
    }

    pub(super) fn csr_ref(&mut self, id: ExprId, c: CsrId, span: Span) -> R {
        let scu = self.scu(AnyId::Csr(c), span)?;
        let csr = scu
            .csrs
            .get(c)
            .ok_or_else(|| self.invalid(AnyId::Csr(c), span))?;
        self.result(id, &csr.ty, span)
    }

    pub(super) fn packet_field(&mut self, id: ExprId, f: PacketField, span: Span) -> R {
        self.construct(Construct::Packet, span)?;
        let ty = match f {
            PacketField::Len => Type::Bits(16),
            PacketField::Port => Type::Bits(8),
            PacketField::Timestamp => Type::Bits(64),
        };
        self.result(id, &ty, span)
    }

    pub(super) fn beat_field(&mut self, id: ExprId, f: BeatField, span: Span) -> R {
        self.construct(Construct::Beat, span)?;
        let ty = match f {
            BeatField::Last => Type::Bool,
            BeatField::Keep => Type::Bits(64),
        };
        self.result(id, &ty, span)
    }

    pub(super) fn flow_id(&mut self, id: ExprId, span: Span) -> R {
        self.construct(Construct::FlowId, span)?;
        match self.unit.scu.map(|(_, s)| s.attach) {
            Some(Attach::Rdma) => self.result(id, &Type::Bits(24), span),
            Some(Attach::Tcp) => self.result(id, &Type::Bits(16), span),
            // In a top-level function: the width depends on the caller's scu.
            Some(Attach::SlowPath) | None => Ok(()),
        }
    }

    pub(super) fn cc_state_ref(&mut self, id: ExprId, s: CcStateId, span: Span) -> R {
        let cc = self.cc(AnyId::CcState(s), span)?;
        let state = cc
            .state
            .get(s)
            .ok_or_else(|| self.invalid(AnyId::CcState(s), span))?;
        self.result(id, &state.ty, span)
    }

    pub(super) fn cc_param_ref(&mut self, id: ExprId, p: CcParamId, span: Span) -> R {
        let cc = self.cc(AnyId::CcParam(p), span)?;
        let param = cc
            .params
            .get(p)
            .ok_or_else(|| self.invalid(AnyId::CcParam(p), span))?;
        self.result(id, &param.ty, span)
    }

    pub(super) fn index_access(&mut self, id: ExprId, base: ExprId, span: Span) -> R {
        match self.ty(base) {
            Type::Array(elem, _) => self.result(id, &elem.clone(), span),
            ty => Err(ValidationError::IndexNonArray {
                body: self.at,
                ty: ty.clone(),
                span,
            }),
        }
    }

    pub(super) fn slice_dyn(
        &mut self,
        id: ExprId,
        base: ExprId,
        lo: ExprId,
        width: u32,
        span: Span,
    ) -> R {
        let base_width = self.integer_width(id, 0, base, span)?;
        if !matches!(self.ty(lo), Type::Bits(_)) {
            return Err(self.operand_type(id, 1, lo, span));
        }
        if width == 0 || width > base_width {
            return Err(ValidationError::SliceBounds {
                body: self.at,
                expr: Some(id),
                hi: width.saturating_sub(1),
                lo: 0,
                width: base_width,
                span,
            });
        }
        self.result(id, &Type::Bits(width), span)
    }

    pub(super) fn cast(&mut self, id: ExprId, a: ExprId, span: Span) -> R {
        let (from, to) = (self.ty(a), self.ty(id));
        let enums = &self.types.module.enums;
        if cast_ok(from, to, |e| enums.get(e).map_or(0, |d| d.width)) {
            return Ok(());
        }
        Err(ValidationError::BadCast {
            body: self.at,
            expr: id,
            from: from.clone(),
            to: to.clone(),
            span,
        })
    }

    /// `get` (the value type; `get` is true), `contains`, `remove` and `insert` (a bool).
    pub(super) fn map_op(
        &mut self,
        id: ExprId,
        m: MapId,
        key: ExprId,
        value: Option<ExprId>,
        get: bool,
        span: Span,
    ) -> R {
        let scu = self.scu(AnyId::Map(m), span)?;
        let map = scu
            .maps
            .get(m)
            .ok_or_else(|| self.invalid(AnyId::Map(m), span))?;
        self.expect_type(&map.key, key)?;
        if let Some(v) = value {
            self.expect_type(&map.value, v)?;
        }
        let ty = if get { map.value.clone() } else { Type::Bool };
        self.result(id, &ty, span)
    }

    pub(super) fn meter_exceeds(
        &mut self,
        id: ExprId,
        m: MeterId,
        index: Option<ExprId>,
        len: ExprId,
        span: Span,
    ) -> R {
        self.construct(Construct::Meter, span)?;
        let scu = self.scu(AnyId::Meter(m), span)?;
        let meter = scu
            .meters
            .get(m)
            .ok_or_else(|| self.invalid(AnyId::Meter(m), span))?;
        if index.is_none() && meter.size != 1 {
            return Err(ValidationError::IndexForm {
                body: self.at,
                target: AnyId::Meter(m),
                span,
            });
        }
        self.expect_type(&Type::Bits(16), len)?;
        self.result(id, &Type::Bool, span)
    }

    pub(super) fn apply(&mut self, id: ExprId, t: TableId, span: Span) -> R {
        self.construct(Construct::Apply, span)?;
        let scu = self.scu(AnyId::Table(t), span)?;
        scu.tables
            .get(t)
            .ok_or_else(|| self.invalid(AnyId::Table(t), span))?;
        self.info.applies.push(t);
        self.result(id, &Type::TableResult(t), span)
    }

    pub(super) fn array_lit(&mut self, id: ExprId, items: &[ExprId], span: Span) -> R {
        let Type::Array(elem, n) = self.ty(id).clone() else {
            return Err(ValidationError::IndexNonArray {
                body: self.at,
                ty: self.ty(id).clone(),
                span,
            });
        };
        self.arity(id, n as usize, items.len(), span)?;
        items.iter().try_for_each(|i| self.expect_type(&elem, *i))
    }
}
