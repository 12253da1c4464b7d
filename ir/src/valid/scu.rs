//! Validating a stream compute unit: its members and every body it owns.
//!
//! Checks: CSRs are scalars of at most 64 bits (`CsrType`) with initial values that fit
//! (`ConstTooWide`); instances name existing headers and stacks have at least one element; `meta`
//! names an existing struct; map keys are `bit<N>` (`MapKeyType`) and values well-formed; the
//! parser's `start` and every transition target and reject error exist (`InvalidId`), select
//! patterns fit the selected value; tables (see [`table`](super::table)); then every body (actions,
//! parser, control, `on parser_error`, deparser, stream, `every`) in its context, with the
//! parameters its kind binds (`BadParams`). Computes the CSR map (word offset = position, byte
//! address `0x20000 + 8 × offset`) and map entry widths.

use super::body::{check_bindings, Checker, Context, Unit};
use super::error::{AnyId, BodyRef, Location, ValidationError};
use super::info::{BodyInfo, CsrInfo, MapInfo, ScuInfo, CSR_WINDOW_BASE};
use super::table::check_table;
use super::types::{check_type, Types};
use crate::body::Body;
use crate::entities::*;
use crate::program::{Parser, Scu, Target, Transition};
use crate::span::Span;
use crate::types::Type;

/// Checks a body that is a plain block of statements.
pub(super) fn check_plain(
    types: &Types<'_>,
    unit: Unit<'_>,
    at: BodyRef,
    body: &Body,
    context: Context,
    ret: Option<&Type>,
) -> Result<BodyInfo, ValidationError> {
    let mut c = Checker::new(types, unit, at, body, context, ret);
    c.start()?;
    c.exprs()?;
    c.stmts(&body.block)?;
    c.finish()
}

/// Checks an scu and computes its facts.
pub(super) fn check_scu(
    types: &Types<'_>,
    id: ScuId,
    scu: &Scu,
) -> Result<ScuInfo, ValidationError> {
    let mut info = ScuInfo::default();
    members(types, id, scu, &mut info)?;
    let unit = Unit {
        scu: Some((id, scu)),
        cc: None,
    };
    for (tid, table) in &scu.tables {
        info.tables[tid] = check_table(types, id, scu, tid, table)?;
    }
    for (aid, action) in &scu.actions {
        check_bindings(BodyRef::Action(id, aid), &action.body, |t| {
            bindings_ok(Context::Action, t)
        })?;
        info.actions[aid] = check_plain(
            types,
            unit,
            BodyRef::Action(id, aid),
            &action.body,
            Context::Action,
            None,
        )?;
    }
    if let Some(parser) = &scu.parser {
        info.parser = Some(check_parser(types, id, scu, parser)?);
    }
    let bodies = [
        (
            &scu.control,
            BodyRef::Control(id),
            Context::Control,
            &mut info.control,
        ),
        (
            &scu.on_parser_error,
            BodyRef::OnParserError(id),
            Context::OnParserError,
            &mut info.on_parser_error,
        ),
        (
            &scu.deparser,
            BodyRef::Deparser(id),
            Context::Deparser,
            &mut info.deparser,
        ),
        (
            &scu.stream,
            BodyRef::Stream(id),
            Context::Stream,
            &mut info.stream,
        ),
    ];
    for (body, at, context, slot) in bodies {
        if let Some(body) = body {
            check_bindings(at, body, |t| bindings_ok(context, t))?;
            *slot = Some(check_plain(types, unit, at, body, context, None)?);
        }
    }
    for (n, every) in scu.every.iter().enumerate() {
        check_bindings(BodyRef::Every(id, n), &every.body, |p| p.is_empty())?;
        let body = check_plain(
            types,
            unit,
            BodyRef::Every(id, n),
            &every.body,
            Context::Every,
            None,
        )?;
        info.every.push(body);
    }
    Ok(info)
}

/// CSRs, instances, `meta` and maps.
fn members(
    types: &Types<'_>,
    id: ScuId,
    scu: &Scu,
    info: &mut ScuInfo,
) -> Result<(), ValidationError> {
    let module = types.module;
    let span = scu.span;
    for (cid, csr) in &scu.csrs {
        let at = Location::Csr(id, cid);
        check_type(module, Some(scu), &csr.ty, at, span)?;
        let width = types.scalar(&csr.ty).filter(|w| *w <= 64);
        let width = width.ok_or_else(|| ValidationError::CsrType {
            scu: id,
            csr: cid,
            ty: csr.ty.clone(),
        })?;
        types.check_const(&csr.init, &csr.ty, at, span)?;
        let offset = cid.as_u32();
        let byte_offset = CSR_WINDOW_BASE + 8 * u64::from(offset);
        info.csrs[cid] = CsrInfo {
            offset,
            byte_offset,
            width,
        };
    }
    let at = Location::Scu(id);
    for inst in scu.instances.values() {
        if module.headers.get(inst.header).is_none() {
            return Err(ValidationError::InvalidId {
                at,
                id: AnyId::Header(inst.header),
                span,
            });
        }
        if inst.stack == Some(0) {
            let ty = Type::Array(Box::new(Type::Header(inst.header)), 0);
            return Err(ValidationError::BadType { at, ty, span });
        }
    }
    if let Some(meta) = scu.meta {
        if module.structs.get(meta).is_none() {
            return Err(ValidationError::InvalidId {
                at,
                id: AnyId::Struct(meta),
                span,
            });
        }
    }
    for (mid, map) in &scu.maps {
        check_type(module, Some(scu), &map.key, at, span)?;
        check_type(module, Some(scu), &map.value, at, span)?;
        if !matches!(map.key, Type::Bits(_)) {
            return Err(ValidationError::MapKeyType {
                scu: id,
                map: mid,
                ty: map.key.clone(),
            });
        }
        info.maps[mid] = MapInfo {
            key_bits: types.width(&map.key),
            value_bits: types.width(&map.value),
        };
    }
    Ok(())
}

/// Checks the parser: its body, states and transitions.
fn check_parser(
    types: &Types<'_>,
    id: ScuId,
    scu: &Scu,
    parser: &Parser,
) -> Result<BodyInfo, ValidationError> {
    let unit = Unit {
        scu: Some((id, scu)),
        cc: None,
    };
    let at = BodyRef::Parser(id);
    if parser.states.get(parser.start).is_none() {
        let id = AnyId::State(parser.start);
        return Err(ValidationError::InvalidId {
            at: Location::Body(at),
            id,
            span: scu.span,
        });
    }
    check_bindings(at, &parser.body, |p| p.is_empty())?;
    let mut c = Checker::new(types, unit, at, &parser.body, Context::Parser, None);
    c.start()?;
    c.exprs()?;
    for (sid, state) in &parser.states {
        let loc = Location::State(id, sid);
        let target = |t: Target, span: Span| match t {
            Target::State(s) if parser.states.get(s).is_none() => Err(ValidationError::InvalidId {
                at: loc,
                id: AnyId::State(s),
                span,
            }),
            Target::Reject(e) if scu.errors.get(e).is_none() => Err(ValidationError::InvalidId {
                at: loc,
                id: AnyId::Error(e),
                span,
            }),
            _ => Ok(()),
        };
        c.push_scope();
        c.stmts(&state.block)?;
        match &state.transition {
            Transition::Direct(t) => target(*t, state.span)?,
            Transition::Select { on, cases } => {
                c.use_expr(*on, state.span)?;
                let ty = parser.body.types[*on].clone();
                for case in cases {
                    for p in &case.patterns {
                        c.pattern(p, &ty, loc, state.span)?;
                    }
                    target(case.target, state.span)?;
                }
            }
        }
        c.pop_scope();
    }
    c.finish()
}

/// The parameters a body of an scu binds: the error in `on parser_error` (optional), the word in
/// the stream kernel, scalar action data in actions, nothing elsewhere.
fn bindings_ok(context: Context, params: &[&Type]) -> bool {
    match context {
        Context::OnParserError => matches!(params, [] | [Type::ParserError]),
        Context::Stream => matches!(params, [Type::Bits(512)]),
        Context::Action => params
            .iter()
            .all(|t| matches!(t, Type::Bits(_) | Type::Int(_) | Type::Bool | Type::Enum(_))),
        _ => params.is_empty(),
    }
}
