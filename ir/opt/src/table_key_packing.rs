//! `table-key-packing`: joins adjacent exact-match keys of a table into one wider exact key.
//!
//! `key { ip.src: exact, ip.dst: exact, ip.protocol: exact }` becomes one exact key
//! `ip.src ++ ip.dst ++ ip.protocol` of 72 bits, computed by concatenation in the table's
//! `key_body`, and every constant entry's values are concatenated the same way. Why it helps: an
//! exact-match table is one hash (or BCAM) lookup on one key vector; the hardware table
//! generators (Vitis Networking P4's CAMs, the HLS backend's hash tables) describe and compare
//! each key element separately, so one element instead of several means one field descriptor,
//! one comparator and one hash input instead of several, and a lookup key the runtime writes in
//! one piece. In a table that also has ternary, range or lpm keys, a run of exact keys still
//! becomes one field with a full mask.
//!
//! Only exact keys join, and only when every constant entry matches each of them exactly (a `_`
//! on an exact key cannot be expressed in the joined key). Keys must be scalars whose bit pattern
//! `as bit<N>` keeps (`bit`, `int`, `bool`, enums, units: not `fixed`, whose cast rescales), and a
//! joined key stays within 1024 bits. The joined key is named by its parts' names joined with
//! ` ++ `, so manifests and entry files still say what it is made of; [`pack_key_matches`]
//! rewrites an entry written for the original keys.
//!
//! Lookups give the same results: an exact test on the concatenation holds exactly when it
//! holds on every part, and the prefix length an lpm table ranks entries by counts a joined
//! exact key's full width, the sum of its parts'.

use super::{Pass, PassResult};
use num_bigint::BigUint;
use scenic_ir::body::{BinaryOp, Expr};
use scenic_ir::proc::walk::Widths;
use scenic_ir::program::{KeyMatch, MatchKind, Module, Table, TableKey};
use scenic_ir::types::{Const, Type};
use std::ops::Range;

/// The widest joined key (the widest `bit<N>`).
pub const MAX_KEY_BITS: u32 = 1024;

/// The `table-key-packing` pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableKeyPacking;

impl Pass for TableKeyPacking {
    fn name() -> &'static str {
        "table-key-packing"
    }

    fn description() -> &'static str {
        "join adjacent exact-match table keys into one wider exact key"
    }

    fn run(&mut self, module: &mut Module) -> PassResult {
        let widths = Widths::of(module);
        let mut changed = false;
        for scu in module.scus.values_mut() {
            for table in scu.tables.values_mut() {
                changed |= pack_table(table, &widths);
            }
        }
        PassResult::from_changed(changed)
    }
}

/// The width of a key that may join others, if it may.
fn packable_width(table: &Table, i: usize, widths: &Widths) -> Option<u32> {
    let key = table.keys.get(i)?;
    let keeps_pattern = matches!(
        key.ty,
        Type::Bits(_) | Type::Int(_) | Type::Bool | Type::Enum(_) | Type::Quantity(_)
    );
    let all_exact = table
        .const_entries
        .iter()
        .all(|e| matches!(e.keys.get(i), Some(KeyMatch::Exact(_))));
    if key.kind != MatchKind::Exact || !keeps_pattern || !all_exact {
        return None;
    }
    widths
        .scalar(&key.ty)
        .filter(|w| (1..=MAX_KEY_BITS).contains(w))
}

fn groups(table: &Table, widths: &Widths) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut total = 0;
    for i in 0..=table.keys.len() {
        let w = packable_width(table, i, widths);
        match w {
            Some(w) if total + w <= MAX_KEY_BITS => total += w,
            _ => {
                if i - start >= 2 {
                    out.push(start..i);
                }
                (start, total) = match w {
                    Some(w) => (i, w),
                    None => (i + 1, 0),
                };
            }
        }
    }
    out
}

/// The runs of keys of `table` (as written, before packing) that the pass joins, each of at
/// least two keys, in order.
pub fn key_groups(table: &Table, module: &Module) -> Vec<Range<usize>> {
    groups(table, &Widths::of(module))
}

/// Rewrites one match per key of `table` (as written, before packing) into one match per key of
/// the packed table; `None` when `matches` has the wrong length or does not match a joined key
/// exactly.
pub fn pack_key_matches(
    table: &Table,
    module: &Module,
    matches: &[KeyMatch],
) -> Option<Vec<KeyMatch>> {
    let widths = Widths::of(module);
    if matches.len() != table.keys.len() {
        return None;
    }
    pack_matches(&table.keys, &groups(table, &widths), matches, &widths)
}

/// One match per packed key, from one match per original key (`keys`).
fn pack_matches(
    keys: &[TableKey],
    groups: &[Range<usize>],
    matches: &[KeyMatch],
    widths: &Widths,
) -> Option<Vec<KeyMatch>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < matches.len() {
        match groups.iter().find(|g| g.start == i) {
            Some(g) => {
                out.push(KeyMatch::Exact(join(keys, g.clone(), matches, widths)?));
                i = g.end;
            }
            None => {
                out.push(matches[i].clone());
                i += 1;
            }
        }
    }
    Some(out)
}

/// The concatenation of the exact values of keys `range`.
fn join(
    keys: &[TableKey],
    range: Range<usize>,
    matches: &[KeyMatch],
    widths: &Widths,
) -> Option<Const> {
    let mut value = BigUint::default();
    for i in range {
        let KeyMatch::Exact(c) = matches.get(i)? else {
            return None;
        };
        let w = widths.scalar(&keys.get(i)?.ty)?;
        let mask = (BigUint::from(1u32) << w as usize) - 1u32;
        value = (value << w as usize) | (&c.0 & mask);
    }
    Some(Const(value))
}

/// Joins the key runs of one table; returns whether any was joined.
fn pack_table(table: &mut Table, widths: &Widths) -> bool {
    let groups = groups(table, widths);
    if groups.is_empty() {
        return false;
    }
    let old_keys = std::mem::take(&mut table.keys);
    let mut i = 0;
    while i < old_keys.len() {
        match groups.iter().find(|g| g.start == i) {
            Some(g) => {
                let key = join_keys(table, &old_keys[g.clone()], widths);
                table.keys.push(key);
                i = g.end;
            }
            None => {
                table.keys.push(old_keys[i].clone());
                i += 1;
            }
        }
    }
    for entry in &mut table.const_entries {
        if let Some(keys) = pack_matches(&old_keys, &groups, &entry.keys, widths) {
            entry.keys = keys;
        }
    }
    true
}

/// One exact key: the concatenation of `keys` (in the table's key body), first key highest.
fn join_keys(table: &mut Table, keys: &[TableKey], widths: &Widths) -> TableKey {
    let body = &mut table.key_body;
    let mut acc: Option<(scenic_ir::entities::ExprId, u32)> = None;
    for key in keys {
        let w = widths.scalar(&key.ty).unwrap_or(1);
        let span = body.spans[key.expr];
        let bits = match key.ty {
            Type::Bits(_) | Type::Int(_) => key.expr,
            _ => body.add(Expr::Cast(key.expr), Type::Bits(w), span),
        };
        acc = Some(match acc {
            None => (bits, w),
            Some((lhs, lw)) => {
                let joined = Expr::Binary(BinaryOp::Concat, lhs, bits);
                (body.add(joined, Type::Bits(lw + w), span), lw + w)
            }
        });
    }
    let (expr, width) = acc.unwrap_or((scenic_ir::entities::ExprId::from_u32(0), 0));
    TableKey {
        expr,
        kind: MatchKind::Exact,
        ty: Type::Bits(width),
        name: keys
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()
            .join(" ++ "),
    }
}
