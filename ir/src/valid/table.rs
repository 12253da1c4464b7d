//! Validating a table: its key body, actions, default and constant entries.
//!
//! Checks: key expressions are used once from the key body and have the key's type (`KeyType`),
//! key types are scalars; every listed action exists (`InvalidId`); the default action is listed
//! (`DefaultNotListed`); the default and every entry carry one constant per action parameter
//! (`ActionArgs`) that fits it (`ConstTooWide`); every entry has one match per key
//! (`EntryKeyCount`) of a kind the key's match kind accepts, with constants that fit the key
//! and prefixes no longer than it without host bits (`EntryKeyKind`); entry action positions
//! index the action list (`EntryAction`); there are at most `size` constant entries
//! (`TooManyEntries`).
//!
//! Accepted matches: an exact key takes `Exact`; an lpm key `Exact`, `Lpm` and `Any`; a ternary
//! key `Exact`, `Lpm` (a prefix literal), `Ternary` and `Any`; a range key `Exact`, `Range` and
//! `Any`.

use super::body::{check_bindings, Checker, Context, Unit};
use super::error::{AnyId, BodyRef, Location, ValidationError};
use super::info::TableInfo;
use super::types::{check_type, fits, Types};
use crate::entities::*;
use crate::program::{KeyMatch, MatchKind, Scu, Table};
use crate::types::{Const, Type};
use num_bigint::BigUint;

/// Checks a table of scu `sid` and computes its key layout.
pub(super) fn check_table(
    types: &Types<'_>,
    sid: ScuId,
    scu: &Scu,
    tid: TableId,
    table: &Table,
) -> Result<TableInfo, ValidationError> {
    let at = Location::Table(sid, tid);
    let span = table.span;
    let unit = Unit {
        scu: Some((sid, scu)),
        cc: None,
    };
    check_bindings(BodyRef::TableKey(sid, tid), &table.key_body, |p| {
        p.is_empty()
    })?;
    let mut c = Checker::new(
        types,
        unit,
        BodyRef::TableKey(sid, tid),
        &table.key_body,
        Context::TableKey,
        None,
    );
    c.start()?;
    c.exprs()?;
    c.stmts(&table.key_body.block)?;
    let mut key_widths = Vec::new();
    for (i, key) in table.keys.iter().enumerate() {
        c.use_expr(key.expr, span)?;
        check_type(types.module, Some(scu), &key.ty, at, span)?;
        let found = &table.key_body.types[key.expr];
        if *found != key.ty {
            let (expected, found) = (key.ty.clone(), found.clone());
            return Err(ValidationError::KeyType {
                scu: sid,
                table: tid,
                key: i,
                expected,
                found,
                span,
            });
        }
        let width = types
            .scalar(&key.ty)
            .ok_or_else(|| ValidationError::BadType {
                at,
                ty: key.ty.clone(),
                span,
            })?;
        key_widths.push(width);
    }
    let key = c.finish()?;
    for a in &table.actions {
        if scu.actions.get(*a).is_none() {
            return Err(ValidationError::InvalidId {
                at,
                id: AnyId::Action(*a),
                span,
            });
        }
    }
    let (default, default_args) = &table.default;
    if !table.actions.contains(default) {
        return Err(ValidationError::DefaultNotListed {
            scu: sid,
            table: tid,
            action: *default,
            span,
        });
    }
    check_args(types, sid, scu, tid, table, *default, default_args, None)?;
    check_entries(types, sid, scu, tid, table, &key_widths)?;
    Ok(TableInfo {
        key_bits: key_widths.iter().sum(),
        key_widths,
        key,
    })
}

/// Checks action data against the action's parameters.
#[allow(clippy::too_many_arguments)]
fn check_args(
    types: &Types<'_>,
    sid: ScuId,
    scu: &Scu,
    tid: TableId,
    table: &Table,
    action: ActionId,
    args: &[Const],
    entry: Option<usize>,
) -> Result<(), ValidationError> {
    let at = Location::Table(sid, tid);
    let span = table.span;
    let body = &scu
        .actions
        .get(action)
        .ok_or(ValidationError::InvalidId {
            at,
            id: AnyId::Action(action),
            span,
        })?
        .body;
    if body.params.len() != args.len() {
        let (expected, found) = (body.params.len(), args.len());
        return Err(ValidationError::ActionArgs {
            scu: sid,
            table: tid,
            entry,
            expected,
            found,
            span,
        });
    }
    for (p, arg) in body.params.iter().zip(args) {
        let ty = body.locals.get(*p).map_or(&Type::Unit, |l| &l.ty);
        types.check_const(arg, ty, at, span)?;
    }
    Ok(())
}

/// Checks the constant entries.
fn check_entries(
    types: &Types<'_>,
    sid: ScuId,
    scu: &Scu,
    tid: TableId,
    table: &Table,
    widths: &[u32],
) -> Result<(), ValidationError> {
    let span = table.span;
    if table.const_entries.len() as u64 > table.size {
        let entries = table.const_entries.len();
        return Err(ValidationError::TooManyEntries {
            scu: sid,
            table: tid,
            entries,
            size: table.size,
            span,
        });
    }
    for (n, entry) in table.const_entries.iter().enumerate() {
        if entry.keys.len() != table.keys.len() {
            let (expected, found) = (table.keys.len(), entry.keys.len());
            return Err(ValidationError::EntryKeyCount {
                scu: sid,
                table: tid,
                entry: n,
                expected,
                found,
                span,
            });
        }
        for (k, ((m, key), width)) in entry.keys.iter().zip(&table.keys).zip(widths).enumerate() {
            if !accepts(key.kind, m, *width) {
                return Err(ValidationError::EntryKeyKind {
                    scu: sid,
                    table: tid,
                    entry: n,
                    key: k,
                    span,
                });
            }
        }
        let Some(action) = table.actions.get(entry.action as usize) else {
            return Err(ValidationError::EntryAction {
                scu: sid,
                table: tid,
                entry: n,
                action: entry.action,
                span,
            });
        };
        check_args(types, sid, scu, tid, table, *action, &entry.args, Some(n))?;
    }
    Ok(())
}

/// Whether a key of match kind `kind` and `width` bits accepts match `m`.
fn accepts(kind: MatchKind, m: &KeyMatch, width: u32) -> bool {
    let fit = |c: &Const| fits(c, u64::from(width));
    match (kind, m) {
        (_, KeyMatch::Exact(v)) => fit(v),
        (MatchKind::Exact, KeyMatch::Any) => false,
        (_, KeyMatch::Any) => true,
        (MatchKind::Lpm | MatchKind::Ternary, KeyMatch::Lpm(v, len)) => {
            // No bits set below the prefix.
            let host = width.saturating_sub(*len);
            *len <= width
                && fit(v)
                && (v.0.clone() & ((BigUint::from(1u32) << host as usize) - 1u32))
                    == BigUint::from(0u32)
        }
        (MatchKind::Ternary, KeyMatch::Ternary(v, mask)) => fit(v) && fit(mask),
        (MatchKind::Range, KeyMatch::Range(lo, hi)) => fit(lo) && fit(hi),
        _ => false,
    }
}
