//! Validating a congestion controller: its parameters, per-flow state, output, timers and
//! handlers.
//!
//! Checks: parameter and state types are well-formed and their defaults and initial values fit
//! (`ConstTooWide`); the output names an existing state (`InvalidId`) of type `rate` for a rate
//! output or `size` for a window (`CcOutputType`); timer handlers name existing timers; every
//! handler binds what its event provides (`BadParams`) and is checked in the handler context.
//! Computes the per-flow state record: each state variable's bit offset (in id order), the
//! record's width and the total state memory (flows × width).

use super::body::{check_bindings, Context, Unit};
use super::error::{AnyId, BodyRef, Location, ValidationError};
use super::info::CcInfo;
use super::scu::check_plain;
use super::types::{check_type, Types};
use crate::entities::CcId;
use crate::program::{Cc, Event, OutputKind};
use crate::types::{Dimension, Type};

/// Checks a cc and computes its facts.
pub(super) fn check_cc(types: &Types<'_>, id: CcId, cc: &Cc) -> Result<CcInfo, ValidationError> {
    let module = types.module;
    let at = Location::Cc(id);
    let span = cc.span;
    for p in cc.params.values() {
        check_type(module, None, &p.ty, at, span)?;
        types.check_const(&p.default, &p.ty, at, span)?;
    }
    let mut info = CcInfo::default();
    for (sid, s) in &cc.state {
        check_type(module, None, &s.ty, at, span)?;
        types.check_const(&s.init, &s.ty, at, span)?;
        info.state_offsets[sid] = info.state_bits;
        info.state_bits = info.state_bits.saturating_add(types.width(&s.ty));
    }
    info.state_memory_bits = info.state_bits.saturating_mul(cc.flows);
    let (kind, output) = cc.output;
    let state = cc.state.get(output).ok_or(ValidationError::InvalidId {
        at,
        id: AnyId::CcState(output),
        span,
    })?;
    let expected = match kind {
        OutputKind::Rate => Type::Quantity(Dimension::Rate),
        OutputKind::Window => Type::Quantity(Dimension::Size),
    };
    if state.ty != expected {
        return Err(ValidationError::CcOutputType {
            cc: id,
            kind,
            ty: state.ty.clone(),
            span,
        });
    }
    let unit = Unit {
        scu: None,
        cc: Some((id, cc)),
    };
    for (n, h) in cc.handlers.iter().enumerate() {
        if let Event::Timer(t) = h.event {
            if cc.timers.get(t).is_none() {
                return Err(ValidationError::InvalidId {
                    at,
                    id: AnyId::Timer(t),
                    span: h.span,
                });
            }
        }
        check_bindings(BodyRef::Handler(id, n), &h.body, |params| match h.event {
            Event::Ack | Event::Int => matches!(params, [] | [Type::Struct(_)]),
            Event::Rtt => matches!(params, [] | [Type::Quantity(Dimension::Duration)]),
            Event::Cnp | Event::Ecn | Event::Loss | Event::Timeout | Event::Timer(_) => {
                params.is_empty()
            }
        })?;
        let body = check_plain(
            types,
            unit,
            BodyRef::Handler(id, n),
            &h.body,
            Context::Handler,
            None,
        )?;
        info.handlers.push(body);
    }
    Ok(info)
}
