//! Names to ids: applying table entries, default actions and CSR values written by name (in STF
//! commands or entry files) to a [`Device`] (the interpreter or a backend's simulation), after
//! checking every name and value against the module so that a device only sees valid requests.

use super::device::{Device, DeviceError};
use num_bigint::BigUint;
use scenic_interp::runtime::AddEntryError;
use scenic_interp::state::EntryError;
use scenic_io::value::{ActionCall, KeyField, MatchValue};
use scenic_ir::entities::*;
use scenic_ir::program::Module;
use scenic_ir::program::{KeyMatch, MatchKind, Scu, Table};
use scenic_ir::types::Const;

/// A name in a test or entry file that the program does not have, or a value of the wrong form.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// No scu of that name, or none at all.
    #[error("the program has no scu {0}")]
    NoScu(String),
    /// No table of that name.
    #[error("scu `{scu}` has no table `{table}` (tables: {known})")]
    NoTable {
        /// The scu.
        scu: String,
        /// The name asked for.
        table: String,
        /// The tables it has.
        known: String,
    },
    /// No key of that name in the table.
    #[error("table `{table}` has no key `{key}` (keys: {known})")]
    NoKey {
        /// The table.
        table: String,
        /// The name asked for.
        key: String,
        /// The key names it has.
        known: String,
    },
    /// A match form that does not fit the key's match kind.
    #[error("key `{key}` of table `{table}` is `{kind}`; {form} does not fit it")]
    WrongForm {
        /// The table.
        table: String,
        /// The key.
        key: String,
        /// Its match kind.
        kind: &'static str,
        /// What was given.
        form: &'static str,
    },
    /// An action argument names no parameter, or a parameter has no argument.
    #[error("action `{action}`: {problem}")]
    Args {
        /// The action.
        action: String,
        /// What is wrong.
        problem: String,
    },
    /// The table refused the entry.
    #[error("table `{table}`: {error}")]
    Entry {
        /// The table.
        table: String,
        /// Why.
        error: AddEntryError,
    },
    /// No CSR or param of that name.
    #[error("no CSR or param named `{0}`")]
    NoCsr(String),
    /// No congestion controller of that name.
    #[error("the program has no congestion controller `{0}`")]
    NoCc(String),
    /// The device failed (a simulation process died, ...).
    #[error(transparent)]
    Device(DeviceError),
    /// Time jumps so far that the periodic work it implies would not finish.
    #[error(
        "time jumps from {from_ns} ns to {to_ns} ns{at}: {what} would run {runs} times (the simulator \
         stops above {limit} periodic runs per step); the timestamps probably jump (a record stamped 0, \
         or a capture left running): fix them, or split the capture"
    )]
    TimeJump {
        /// Where it happened (`, at packet 7`), or nothing.
        at: String,
        /// The time before the step.
        from_ns: u64,
        /// The time asked for.
        to_ns: u64,
        /// Periodic runs it would cause.
        runs: u64,
        /// The block with the most runs.
        what: String,
        /// [`super::MAX_CATCH_UP_RUNS`].
        limit: u64,
    },
    /// A key value or prefix length wider than the key.
    #[error("key `{key}` of table `{table}` has {width} bits; {value} does not fit it")]
    KeyTooWide {
        /// The table.
        table: String,
        /// The key.
        key: String,
        /// What was given (`0x1ff`, `prefix length 33`).
        value: String,
        /// The key's width.
        width: u32,
    },
    /// A `readonly` CSR: the host may only read it.
    #[error("CSR `{0}` is readonly: the host may only read it")]
    ReadOnlyCsr(String),
    /// A value wider than the CSR or param.
    #[error("{value} does not fit `{name}`, which has {width} bits")]
    TooWide {
        /// The CSR or param.
        name: String,
        /// The value given.
        value: u64,
        /// Its width.
        width: u32,
    },
}

/// The scu that receives packets and words: the one named, or the first.
pub fn pick_scu(module: &Module, name: Option<&str>) -> Result<ScuId, SetupError> {
    match name {
        Some(n) => module
            .scus
            .iter()
            .find(|(_, s)| s.name == n)
            .map(|(id, _)| id)
            .ok_or_else(|| SetupError::NoScu(format!("named `{n}`"))),
        None => module
            .scus
            .keys()
            .next()
            .ok_or_else(|| SetupError::NoScu("(it defines only congestion controllers)".into())),
    }
}

/// A device's failure; an entry it refused keeps its table's name.
fn device_error(table: &str, err: DeviceError) -> SetupError {
    match err {
        DeviceError::Entry(error) => SetupError::Entry {
            table: table.into(),
            error,
        },
        other => SetupError::Device(other),
    }
}

/// Whether `candidate` is the thing named `wanted`: the same name, or one is the other with a
/// control prefix (`ingress.t` and `t`), as p4c's STF runner matches BMv2 names by suffix.
fn same_name(candidate: &str, wanted: &str) -> bool {
    let suffix = |long: &str, short: &str| {
        long.len() > short.len()
            && long.ends_with(short)
            && long.as_bytes()[long.len() - short.len() - 1] == b'.'
    };
    candidate == wanted || suffix(candidate, wanted) || suffix(wanted, candidate)
}

/// The one item named exactly `wanted`, else the only one [`same_name`] accepts.
fn find_named<'m, T>(
    items: impl Iterator<Item = &'m T> + Clone,
    name: impl Fn(&T) -> &str,
    wanted: &str,
) -> Option<&'m T> {
    if let Some(exact) = items.clone().find(|x| name(x) == wanted) {
        return Some(exact);
    }
    let mut close = items.filter(|x| same_name(name(x), wanted));
    let first = close.next()?;
    close.next().is_none().then_some(first)
}

fn table_def<'m>(def: &'m Scu, table: &str) -> Result<&'m Table, SetupError> {
    find_named(def.tables.values(), |t| t.name.as_str(), table).ok_or_else(|| SetupError::NoTable {
        scu: def.name.clone(),
        table: table.into(),
        known: def
            .tables
            .values()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// One `KeyMatch` per key of `table`, from named fields (keys not named match anything, except
/// exact keys, which need a value).
pub fn key_matches(
    module: &Module,
    table: &Table,
    fields: &[KeyField],
) -> Result<Vec<KeyMatch>, SetupError> {
    let mut out = vec![KeyMatch::Any; table.keys.len()];
    for field in fields {
        let exact = table
            .keys
            .iter()
            .position(|k| k.name == field.name || k.name.replace(' ', "") == field.name);
        let close = || {
            let mut found = table
                .keys
                .iter()
                .enumerate()
                .filter(|(_, k)| same_name(&k.name.replace(' ', ""), &field.name));
            let first = found.next()?;
            found.next().is_none().then_some(first.0)
        };
        let Some(position) = exact.or_else(close) else {
            return Err(SetupError::NoKey {
                table: table.name.clone(),
                key: field.name.clone(),
                known: table
                    .keys
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let key = &table.keys[position];
        let width = key.ty.scalar_width(|e| module.enums[e].width).unwrap_or(64);
        out[position] = convert(&table.name, &key.name, key.kind, width, &field.value)?;
        check_key_fits(&table.name, &key.name, width, &out[position])?;
    }
    // language.md §7.9.1: an exact key matches a value; `_` (or leaving the key out) is refused.
    let unset = table
        .keys
        .iter()
        .zip(&out)
        .find(|(k, m)| k.kind == MatchKind::Exact && matches!(m, KeyMatch::Any));
    if let Some((key, _)) = unset {
        return Err(SetupError::WrongForm {
            table: table.name.clone(),
            key: key.name.clone(),
            kind: "exact",
            form: "`_` (or no value)",
        });
    }
    Ok(out)
}

fn convert(
    table: &str,
    key: &str,
    kind: MatchKind,
    width: u32,
    value: &MatchValue,
) -> Result<KeyMatch, SetupError> {
    let c = |v: &BigUint| Const(v.clone());
    let all_ones = || Const((BigUint::from(1u32) << width as usize) - 1u32);
    let wrong = |form: &'static str| SetupError::WrongForm {
        table: table.into(),
        key: key.into(),
        kind: kind_name(kind),
        form,
    };
    Ok(match (kind, value) {
        (_, MatchValue::Any) => KeyMatch::Any,
        (MatchKind::Exact, MatchValue::Exact(v)) => KeyMatch::Exact(c(v)),
        (MatchKind::Exact, _) => return Err(wrong("a prefix, mask or range")),
        (MatchKind::Lpm, MatchValue::Exact(v)) => KeyMatch::Lpm(c(v), width),
        (MatchKind::Lpm, MatchValue::Lpm { value, prefix_len }) => {
            KeyMatch::Lpm(c(value), *prefix_len)
        }
        (MatchKind::Lpm, _) => return Err(wrong("a mask or range")),
        (MatchKind::Ternary, MatchValue::Exact(v)) => KeyMatch::Ternary(c(v), all_ones()),
        (MatchKind::Ternary, MatchValue::Ternary { value, mask }) => {
            KeyMatch::Ternary(c(value), c(mask))
        }
        (MatchKind::Ternary, MatchValue::Lpm { value, prefix_len }) => {
            let len = (*prefix_len).min(width);
            let mask = ((BigUint::from(1u32) << len as usize) - 1u32) << (width - len) as usize;
            KeyMatch::Ternary(c(value), Const(mask))
        }
        (MatchKind::Ternary, MatchValue::Range { .. }) => return Err(wrong("a range")),
        (MatchKind::Range, MatchValue::Exact(v)) => KeyMatch::Range(c(v), c(v)),
        (MatchKind::Range, MatchValue::Range { lo, hi }) => KeyMatch::Range(c(lo), c(hi)),
        (MatchKind::Range, _) => return Err(wrong("a prefix or mask")),
    })
}

/// A key match whose values (and prefix length) fit a `width`-bit key; a wider one is refused,
/// never truncated.
fn check_key_fits(table: &str, key: &str, width: u32, m: &KeyMatch) -> Result<(), SetupError> {
    let too_wide = |value: String| SetupError::KeyTooWide {
        table: table.into(),
        key: key.into(),
        value,
        width,
    };
    let values: Vec<&Const> = match m {
        KeyMatch::Exact(v) => vec![v],
        KeyMatch::Lpm(v, len) => {
            if *len > width {
                return Err(too_wide(format!("prefix length {len}")));
            }
            vec![v]
        }
        KeyMatch::Ternary(v, mask) => vec![v, mask],
        KeyMatch::Range(lo, hi) => vec![lo, hi],
        KeyMatch::Any => vec![],
    };
    match values.into_iter().find(|v| v.0.bits() > u64::from(width)) {
        Some(v) => Err(too_wide(format!("{:#x}", v.0))),
        None => Ok(()),
    }
}

fn kind_name(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "exact",
        MatchKind::Lpm => "lpm",
        MatchKind::Ternary => "ternary",
        MatchKind::Range => "range",
    }
}

/// The program's name of the table's action written `wanted` (see [`same_name`]).
fn action_name(def: &Scu, table: &Table, wanted: &str) -> String {
    find_named(
        table.actions.iter().map(|a| &def.actions[*a]),
        |a| a.name.as_str(),
        wanted,
    )
    .map_or_else(|| wanted.to_string(), |a| a.name.clone())
}

/// The arguments of an action call in parameter order, from named arguments.
pub fn action_args(
    module: &Module,
    def: &Scu,
    table: &Table,
    call: &ActionCall,
) -> Result<Vec<BigUint>, SetupError> {
    let action = find_named(
        table.actions.iter().map(|a| &def.actions[*a]),
        |a| a.name.as_str(),
        &call.name,
    )
    .ok_or_else(|| SetupError::Args {
        action: call.name.clone(),
        problem: format!("not an action of table `{}`", table.name),
    })?;
    let params: Vec<&str> = action
        .body
        .params
        .iter()
        .map(|p| action.body.locals[*p].name.as_str())
        .collect();
    if let Some(extra) = call
        .args
        .iter()
        .find(|a| !params.contains(&a.name.as_str()))
    {
        return Err(SetupError::Args {
            action: call.name.clone(),
            problem: format!(
                "no parameter `{}` (parameters: {})",
                extra.name,
                params.join(", ")
            ),
        });
    }
    let widths = action.body.params.iter().map(|p| {
        action.body.locals[*p]
            .ty
            .scalar_width(|e| module.enums[e].width)
    });
    params
        .iter()
        .zip(widths)
        .map(|(p, width)| {
            let value = call
                .args
                .iter()
                .find(|a| a.name == *p)
                .map(|a| a.value.clone())
                .ok_or_else(|| SetupError::Args {
                    action: call.name.clone(),
                    problem: format!("no value for parameter `{p}`"),
                })?;
            // A value wider than its parameter is refused, never truncated.
            match width {
                Some(w) if value.bits() > u64::from(w) => Err(SetupError::Args {
                    action: call.name.clone(),
                    problem: format!(
                        "{value:#x} does not fit parameter `{p}` of table `{}`, which has {w} bits",
                        table.name
                    ),
                }),
                _ => Ok(value),
            }
        })
        .collect()
}

/// Adds an entry written with names; returns its handle.
pub fn add_entry(
    device: &mut dyn Device,
    scu: ScuId,
    table: &str,
    fields: &[KeyField],
    call: &ActionCall,
    priority: u64,
) -> Result<u64, SetupError> {
    let module = device.module();
    let def = &module.scus[scu];
    let t = table_def(def, table)?;
    let keys = key_matches(module, t, fields)?;
    let args = action_args(module, def, t, call)?;
    let (table, action) = (t.name.clone(), action_name(def, t, &call.name));
    device
        .add_entry(scu, &table, &keys, &action, &args, priority)
        .map_err(|err| device_error(&table, err))
}

/// Replaces a table's default action, written with names.
pub fn set_default(
    device: &mut dyn Device,
    scu: ScuId,
    table: &str,
    call: &ActionCall,
) -> Result<(), SetupError> {
    let module = device.module();
    let def = &module.scus[scu];
    let t = table_def(def, table)?;
    // language.md §7.9.3: the host may replace the default action, except in a constant table.
    if t.is_const {
        return Err(SetupError::Entry {
            table: t.name.clone(),
            error: AddEntryError::Entry(EntryError::ConstantDefault),
        });
    }
    let args = action_args(module, def, t, call)?;
    let (table, action) = (t.name.clone(), action_name(def, t, &call.name));
    device
        .set_default(scu, &table, &action, &args)
        .map_err(|err| device_error(&table, err))
}

/// Sets a CSR or param by name (`<cc>.<param>` for a cc's param) as the host would: a `readonly`
/// CSR and a value wider than its register are errors, never silently truncated.
pub fn set_csr(
    device: &mut dyn Device,
    scu: Option<ScuId>,
    name: &str,
    value: u64,
) -> Result<(), SetupError> {
    let module = device.module();
    let enum_width = |e| module.enums[e].width;
    if let Some((cc, param)) = name.split_once('.') {
        let def = module
            .ccs
            .values()
            .find(|c| c.name == cc)
            .and_then(|c| c.params.values().find(|p| p.name == param));
        let Some(def) = def else {
            return Err(SetupError::NoCsr(name.into()));
        };
        check_fits(name, value, def.ty.scalar_width(enum_width))?;
        return device
            .set_cc_param(cc, param, value)
            .map_err(SetupError::Device)?
            .then_some(())
            .ok_or_else(|| SetupError::NoCsr(name.into()));
    }
    let Some(scu) = scu else {
        return Err(SetupError::NoCsr(name.into()));
    };
    let Some(def) = module.scus[scu].csrs.values().find(|c| c.name == name) else {
        return Err(SetupError::NoCsr(name.into()));
    };
    if def.host_readonly {
        return Err(SetupError::ReadOnlyCsr(name.into()));
    }
    check_fits(name, value, def.ty.scalar_width(enum_width))?;
    device
        .set_csr(scu, name, value)
        .map_err(SetupError::Device)?
        .then_some(())
        .ok_or_else(|| SetupError::NoCsr(name.into()))
}

fn check_fits(name: &str, value: u64, width: Option<u32>) -> Result<(), SetupError> {
    match width {
        Some(width) if width < 64 && value >> width != 0 => Err(SetupError::TooWide {
            name: name.into(),
            value,
            width,
        }),
        _ => Ok(()),
    }
}

/// Reads a CSR or param by name.
pub fn csr(device: &mut dyn Device, scu: Option<ScuId>, name: &str) -> Result<u64, SetupError> {
    let value = match (name.split_once('.'), scu) {
        (Some((cc, param)), _) => device.cc_param(cc, param),
        (None, Some(scu)) => device.csr(scu, name),
        (None, None) => Ok(None),
    };
    value
        .map_err(SetupError::Device)?
        .ok_or_else(|| SetupError::NoCsr(name.into()))
}
