//! Tables of an [`Scu`]: add with typed keys, modify and remove by handle, clear, set the default
//! action, and the journal of entries added through the runtime.
//!
//! Keys are written as in an STF `add` ([`scenic_io::value::parse_match`]): `10.0.0.2/32` (prefix),
//! `_` (any), `0x0800` (exact), `7000..=7099` or `lo..hi` (range; `..` excludes `hi`),
//! `v&&&m` (ternary), `0x0a****01` (ternary with wildcard digits), IPv4 dotted quads. One key per
//! table key, in key order. Everything is checked against the table before a request is sent
//! (reusing the simulator's checks, `scenic_sim::setup`): the table and action names, the number of
//! keys and arguments, each key's form against its match kind (an exact key takes no `_`), each
//! value's width, each argument's width; a constant table refuses adds and modifications. Only
//! then is the record encoded ([`scenic_scu_abi::control::TableControl::encode_entry`]) and sent.
//! A modification (`TableModify`) names the entry by handle and sends only an action and its
//! arguments: the entry keeps its keys and priority, and the device swaps the action in one step,
//! between two packets (a remove and an add would leave a gap in which packets miss).
//!
//! Invariant: the journal (`slotK.json`) holds exactly the entries this runtime added and did not
//! remove, each with its device handle and its current action; it is updated after the device
//! accepted the change.

use num_bigint::BigUint;
use scenic_io::value::{parse_match, parse_uint, ActionCall, Arg, KeyField, MatchValue};
use scenic_ir::program::{KeyMatch, MatchKind, Table};
use scenic_scu_abi::control::{to_u64, ActionControl, Op, Request, TableControl};
use scenic_sim::setup::{action_args, key_matches};

use super::{Scu, ScuError};
use crate::state::{JournalAction, JournalEntry};

/// A table entry to add, checked and encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedEntry {
    /// The table.
    pub table: String,
    /// The record ([`TableControl::encode_entry`]).
    pub record: BigUint,
    /// What the journal keeps.
    pub journal: JournalEntry,
}

/// Parses key texts in the STF `add` syntax (module doc); errors name the key's position.
pub fn parse_keys(texts: &[&str]) -> Result<Vec<MatchValue>, ScuError> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            parse_match(t).map_err(|e| {
                ScuError::Refused(format!("key {} `{t}`: {e} (at byte {})", i + 1, e.at))
            })
        })
        .collect()
}

/// Parses action argument texts (integers, `0x`, `0b`, addresses).
pub fn parse_args(texts: &[&str]) -> Result<Vec<BigUint>, ScuError> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            parse_uint(t).map_err(|e| ScuError::Refused(format!("argument {} `{t}`: {e}", i + 1)))
        })
        .collect()
}

/// A match written back in the STF syntax (hex), for the journal of entries given as values.
pub fn format_match(m: &MatchValue) -> String {
    match m {
        MatchValue::Exact(v) => format!("{v:#x}"),
        MatchValue::Lpm { value, prefix_len } => format!("{value:#x}/{prefix_len}"),
        MatchValue::Ternary { value, mask } => format!("{value:#x}&&&{mask:#x}"),
        MatchValue::Range { lo, hi } => format!("{lo:#x}..={hi:#x}"),
        MatchValue::Any => "_".to_string(),
    }
}

/// A constant entry's match in the STF syntax.
pub fn format_key_match(m: &KeyMatch) -> String {
    match m {
        KeyMatch::Exact(v) => format!("{:#x}", v.0),
        KeyMatch::Lpm(v, len) => format!("{:#x}/{len}", v.0),
        KeyMatch::Ternary(v, mask) => format!("{:#x}&&&{:#x}", v.0, mask.0),
        KeyMatch::Range(lo, hi) => format!("{:#x}..={:#x}", lo.0, hi.0),
        KeyMatch::Any => "_".to_string(),
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

impl Scu<'_> {
    /// The table named `name`: its control layout and its model definition.
    pub fn table(&self, name: &str) -> Result<(&TableControl, &Table), ScuError> {
        let control = self.control.table(name);
        let def = self
            .pkg
            .scu_def(self.index)
            .and_then(|s| s.tables.values().find(|t| t.name == name));
        match (control, def) {
            (Some(c), Some(d)) => Ok((c, d)),
            _ => {
                let known = self
                    .control
                    .tables
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect();
                Err(self.no_name("table", name, known))
            }
        }
    }

    /// The keys of a table, `name: kind` each, for messages and help.
    pub fn table_keys(&self, name: &str) -> Result<Vec<String>, ScuError> {
        let (t, _) = self.table(name)?;
        Ok(t.keys
            .iter()
            .map(|k| format!("{}: {} bit<{}>", k.name, kind_name(k.kind), k.width))
            .collect())
    }

    fn action<'t>(t: &'t TableControl, name: &str) -> Result<&'t ActionControl, ScuError> {
        t.actions.iter().find(|a| a.name == name).ok_or_else(|| {
            let known: Vec<&str> = t.actions.iter().map(|a| a.name.as_str()).collect();
            ScuError::Refused(format!(
                "table `{}` has no action `{name}` (actions: {})",
                t.name,
                known.join(", ")
            ))
        })
    }

    /// The checked arguments of `action` in parameter order.
    fn args(
        &self,
        t: &TableControl,
        def: &Table,
        action: &str,
        args: &[BigUint],
    ) -> Result<(u32, Vec<BigUint>), ScuError> {
        let a = Scu::action(t, action)?;
        if args.len() != a.params.len() {
            let params: Vec<String> = a
                .params
                .iter()
                .map(|p| format!("{}: bit<{}>", p.name, p.width))
                .collect();
            return Err(ScuError::Refused(format!(
                "action `{action}` of table `{}` takes {} argument(s) ({}), {} given",
                t.name,
                a.params.len(),
                params.join(", "),
                args.len()
            )));
        }
        let call = ActionCall {
            name: action.to_string(),
            args: a
                .params
                .iter()
                .zip(args)
                .map(|(p, v)| Arg {
                    name: p.name.clone(),
                    value: v.clone(),
                })
                .collect(),
        };
        let scu = self
            .pkg
            .scu_def(self.index)
            .ok_or_else(|| ScuError::Refused(format!("no scu {} in the model", self.index)))?;
        let checked = action_args(self.pkg.module(), scu, def, &call)
            .map_err(|e| ScuError::Refused(e.to_string()))?;
        Ok((a.position, checked))
    }

    /// Checks and encodes an entry (module doc); nothing is sent.
    pub fn prepare_entry(
        &self,
        table: &str,
        keys: &[MatchValue],
        key_texts: Option<&[&str]>,
        action: &str,
        args: &[BigUint],
        priority: Option<u32>,
    ) -> Result<PreparedEntry, ScuError> {
        let (t, def) = self.table(table)?;
        if t.is_const {
            return Err(ScuError::Refused(format!(
                "table `{table}` has only constant entries: the host cannot add to it"
            )));
        }
        if keys.len() != t.keys.len() {
            return Err(ScuError::Refused(format!(
                "table `{table}` has {} key(s) ({}), {} given",
                t.keys.len(),
                self.table_keys(table)?.join(", "),
                keys.len()
            )));
        }
        let fields: Vec<KeyField> = def
            .keys
            .iter()
            .zip(keys)
            .map(|(k, v)| KeyField {
                name: k.name.clone(),
                value: v.clone(),
            })
            .collect();
        let matches = key_matches(self.pkg.module(), def, &fields)
            .map_err(|e| ScuError::Refused(e.to_string()))?;
        let (position, checked) = self.args(t, def, action, args)?;
        let priority = priority.unwrap_or(0);
        let record = t
            .encode_entry(&matches, position, &checked, u64::from(priority))
            .map_err(|e| ScuError::Refused(e.to_string()))?;
        let keys_text = match key_texts {
            Some(texts) => texts.iter().map(|s| s.to_string()).collect(),
            None => keys.iter().map(format_match).collect(),
        };
        Ok(PreparedEntry {
            table: table.to_string(),
            record,
            journal: JournalEntry {
                handle: 0,
                keys: keys_text,
                action: JournalAction {
                    action: action.to_string(),
                    args: checked.iter().map(|v| format!("{v:#x}")).collect(),
                },
                priority,
            },
        })
    }

    /// Adds an entry; its handle. The journal records it.
    pub fn table_add(
        &self,
        table: &str,
        keys: &[MatchValue],
        action: &str,
        args: &[BigUint],
        priority: Option<u32>,
    ) -> Result<u32, ScuError> {
        let entry = self.prepare_entry(table, keys, None, action, args, priority)?;
        self.send_entry(entry)
    }

    /// [`Scu::table_add`] with keys and arguments as text (the STF `add` syntax).
    pub fn table_add_text(
        &self,
        table: &str,
        keys: &[&str],
        action: &str,
        args: &[&str],
        priority: Option<u32>,
    ) -> Result<u32, ScuError> {
        let values = parse_keys(keys)?;
        let args = parse_args(args)?;
        let entry = self.prepare_entry(table, &values, Some(keys), action, &args, priority)?;
        self.send_entry(entry)
    }

    /// Sends a prepared entry; its handle.
    pub fn send_entry(&self, entry: PreparedEntry) -> Result<u32, ScuError> {
        let (t, _) = self.table(&entry.table)?;
        let req = Request {
            op: Op::TableAdd,
            target: t.target,
            index: 0,
            data: entry.record,
        };
        let name = entry.table.clone();
        let resp = self.request(|| format!("table `{name}`: add"), req, &[])?;
        let handle = to_u64(&resp.data) as u32;
        let mut journal = entry.journal;
        journal.handle = handle;
        self.journal(|j| j.table(&name).entries.push(journal))?;
        Ok(handle)
    }

    /// Removes the run-time entry `handle`.
    pub fn table_remove(&self, table: &str, handle: u32) -> Result<(), ScuError> {
        let (t, _) = self.table(table)?;
        let req = Request {
            op: Op::TableRemove,
            target: t.target,
            index: handle,
            data: BigUint::default(),
        };
        self.request(|| format!("table `{table}`: remove {handle}"), req, &[])?;
        self.journal(|j| j.table(table).entries.retain(|e| e.handle != handle))
    }

    /// Replaces the action and arguments of the run-time entry `handle` in one step (its keys and
    /// priority stay). The table, the action and its arguments are checked against the manifest
    /// before anything is sent, as for [`Scu::table_add`]; a handle no run-time entry has is the
    /// unit's `NotFound`. The journal's entry takes the new action.
    pub fn table_modify(
        &self,
        table: &str,
        handle: u32,
        action: &str,
        args: &[BigUint],
    ) -> Result<(), ScuError> {
        let (t, def) = self.table(table)?;
        if t.is_const {
            return Err(ScuError::Refused(format!(
                "table `{table}` has only constant entries: the host cannot modify them"
            )));
        }
        let (position, checked) = self.args(t, def, action, args)?;
        // An entry record whose keys and priority the unit does not read.
        let record = t
            .encode_default(position, &checked)
            .map_err(|e| ScuError::Refused(e.to_string()))?;
        let req = Request {
            op: Op::TableModify,
            target: t.target,
            index: handle,
            data: record,
        };
        self.request(
            || format!("table `{table}`: modify entry {handle}"),
            req,
            &[],
        )?;
        let new = JournalAction {
            action: action.to_string(),
            args: checked.iter().map(|v| format!("{v:#x}")).collect(),
        };
        self.journal(|j| {
            for e in &mut j.table(table).entries {
                if e.handle == handle {
                    e.action = new.clone();
                }
            }
        })
    }

    /// [`Scu::table_modify`] with the arguments as text.
    pub fn table_modify_text(
        &self,
        table: &str,
        handle: u32,
        action: &str,
        args: &[&str],
    ) -> Result<(), ScuError> {
        let args = parse_args(args)?;
        self.table_modify(table, handle, action, &args)
    }

    /// Removes every run-time entry of a table (constant entries stay).
    pub fn table_clear(&self, table: &str) -> Result<(), ScuError> {
        let (t, _) = self.table(table)?;
        let req = Request {
            op: Op::TableClear,
            target: t.target,
            index: 0,
            data: BigUint::default(),
        };
        self.request(|| format!("table `{table}`: clear"), req, &[])?;
        self.journal(|j| j.table(table).entries.clear())
    }

    /// Replaces a table's default action.
    pub fn table_set_default(
        &self,
        table: &str,
        action: &str,
        args: &[BigUint],
    ) -> Result<(), ScuError> {
        let (t, def) = self.table(table)?;
        if t.is_const {
            return Err(ScuError::Refused(format!(
                "table `{table}` is constant: its default action cannot change"
            )));
        }
        let (position, checked) = self.args(t, def, action, args)?;
        let record = t
            .encode_default(position, &checked)
            .map_err(|e| ScuError::Refused(e.to_string()))?;
        let req = Request {
            op: Op::TableSetDefault,
            target: t.target,
            index: 0,
            data: record,
        };
        self.request(|| format!("table `{table}`: set default"), req, &[])?;
        let default = JournalAction {
            action: action.to_string(),
            args: checked.iter().map(|v| format!("{v:#x}")).collect(),
        };
        self.journal(|j| j.table(table).default = Some(default))
    }

    /// The constant entries of a table (from the model), as journal entries without handles.
    pub fn const_entries(&self, table: &str) -> Result<Vec<JournalEntry>, ScuError> {
        let (t, def) = self.table(table)?;
        Ok(def
            .const_entries
            .iter()
            .map(|e| JournalEntry {
                handle: 0,
                keys: e.keys.iter().map(format_key_match).collect(),
                action: JournalAction {
                    action: t
                        .actions
                        .get(e.action as usize)
                        .map_or_else(|| format!("#{}", e.action), |a| a.name.clone()),
                    args: e.args.iter().map(|a| format!("{:#x}", a.0)).collect(),
                },
                priority: e.priority,
            })
            .collect())
    }

    fn journal(&self, change: impl FnOnce(&mut crate::state::Journal)) -> Result<(), ScuError> {
        if self.which == super::Which::Other {
            // Entries of a bank not yet active are not the slot's journal (the load writes it).
            return Ok(());
        }
        Ok(self.state.update_journal(self.slot, change)?)
    }
}
