//! `scenic table NAME SLOT add|mod|del|clear|default|dump ...`: a table of the slot's active bank.
//!
//! Keys are written as in an STF `add`, one per table key in key order: `10.0.0.2/32` (prefix),
//! `_` (any), `0x0800` (exact), `7000..=7099` or `lo..hi` (range, `..` excluding `hi`), `v&&&m`
//! (ternary). Everything is checked against the package's manifest before anything is sent.

use scenic_runtime::state::{JournalEntry, TableJournal};
use scenic_runtime::Scu;
use serde_json::json;

use crate::common::{attach, finish, open, slot_package, Failure};

/// What to do.
#[derive(clap::Subcommand, Debug)]
pub enum TableAction {
    /// Adds an entry: TABLE, one KEY per table key, the ACTION, its ARGs; prints the handle.
    Add {
        /// The table.
        table: String,
        /// KEY... ACTION [ARG...]
        #[arg(required = true, value_name = "KEY... ACTION [ARG...]")]
        words: Vec<String>,
        /// The entry's priority (ternary and range tables; lower wins).
        #[arg(long)]
        priority: Option<u32>,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Replaces the action and arguments of the entry with HANDLE (as `add` printed it) in one
    /// step; its keys and priority stay.
    Mod {
        /// The table.
        table: String,
        /// The entry's handle.
        handle: u32,
        /// The new action.
        action: String,
        /// Its arguments, in parameter order.
        args: Vec<String>,
    },
    /// Removes the entry with HANDLE (as `add` printed it).
    Del {
        /// The table.
        table: String,
        /// The entry's handle.
        handle: u32,
    },
    /// Removes every entry added at run time (constant entries stay).
    Clear {
        /// The table.
        table: String,
    },
    /// Replaces the default action.
    Default {
        /// The table.
        table: String,
        /// The action.
        action: String,
        /// Its arguments, in parameter order.
        args: Vec<String>,
    },
    /// Prints the table's entries. The device cannot list a table: this prints the entries added
    /// through this runtime since the slot was loaded (the slot's journal, with their handles) and
    /// the constant entries of the package's manifest.
    Dump {
        /// The table.
        table: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the command; the exit code.
pub fn run(name: &str, slot: u8, action: &TableAction) -> u8 {
    finish(table(name, slot, action))
}

fn table(name: &str, slot: u8, action: &TableAction) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let (pkg, unit) = slot_package(name, &state, slot)?;
    let scu = attach(&dev, &state, slot, &pkg, &unit)?;
    match action {
        TableAction::Add {
            table,
            words,
            priority,
            json,
        } => add(&scu, table, words, *priority, *json),
        TableAction::Mod {
            table,
            handle,
            action,
            args,
        } => {
            let texts: Vec<&str> = args.iter().map(String::as_str).collect();
            scu.table_modify_text(table, *handle, action, &texts)?;
            println!(
                "modified entry {handle} of `{table}`: {action}({})",
                args.join(", ")
            );
            Ok(())
        }
        TableAction::Del { table, handle } => {
            scu.table_remove(table, *handle)?;
            println!("removed entry {handle} of `{table}`");
            Ok(())
        }
        TableAction::Clear { table } => {
            scu.table_clear(table)?;
            println!("cleared the run-time entries of `{table}`");
            Ok(())
        }
        TableAction::Default {
            table,
            action,
            args,
        } => {
            let texts: Vec<&str> = args.iter().map(String::as_str).collect();
            let values = scenic_runtime::scu::table::parse_args(&texts)?;
            scu.table_set_default(table, action, &values)?;
            println!("default of `{table}`: {action}({})", args.join(", "));
            Ok(())
        }
        TableAction::Dump { table, json } => dump(&scu, table, *json),
    }
}

fn add(
    scu: &Scu<'_>,
    table: &str,
    words: &[String],
    priority: Option<u32>,
    as_json: bool,
) -> Result<(), Failure> {
    let keys = scu.table_keys(table)?;
    if words.len() <= keys.len() {
        return Err(Failure::new(format!(
            "table `{table}` needs {} key(s) ({}) and then an action; {} word(s) given",
            keys.len(),
            keys.join(", "),
            words.len()
        )));
    }
    let texts: Vec<&str> = words.iter().map(String::as_str).collect();
    let (key_texts, rest) = texts.split_at(keys.len());
    let (action, args) = (rest[0], &rest[1..]);
    let handle = scu.table_add_text(table, key_texts, action, args, priority)?;
    if as_json {
        println!("{:#}", json!({ "table": table, "handle": handle }));
    } else {
        println!("added entry {handle} to `{table}`");
    }
    Ok(())
}

fn entry_json(e: &JournalEntry, constant: bool) -> serde_json::Value {
    let mut v = json!({
        "keys": e.keys, "action": e.action.action, "args": e.action.args, "priority": e.priority,
    });
    if constant {
        v["const"] = json!(true);
    } else {
        v["handle"] = json!(e.handle);
    }
    v
}

fn entry_line(e: &JournalEntry, label: &str) -> String {
    format!(
        "  {label:<8} {} => {}({})  priority {}",
        e.keys.join(", "),
        e.action.action,
        e.action.args.join(", "),
        e.priority
    )
}

fn dump(scu: &Scu<'_>, table: &str, as_json: bool) -> Result<(), Failure> {
    let consts = scu.const_entries(table)?;
    let journal = scu
        .state()
        .read_journal(scu.slot())?
        .and_then(|mut j| j.tables.remove(table))
        .unwrap_or_else(TableJournal::default);
    let compiled = scu
        .package()
        .manifest()
        .scus
        .iter()
        .find(|s| s.name == scu.name())
        .and_then(|s| s.tables.iter().find(|t| t.name == table))
        .map(|t| (t.default.name.clone(), t.default.args.clone()));
    let default = journal
        .default
        .as_ref()
        .map(|d| (d.action.clone(), d.args.clone()))
        .or(compiled);
    if as_json {
        let entries: Vec<serde_json::Value> = consts
            .iter()
            .map(|e| entry_json(e, true))
            .chain(journal.entries.iter().map(|e| entry_json(e, false)))
            .collect();
        let v = json!({
            "table": table,
            "keys": scu.table_keys(table)?,
            "entries": entries,
            "default": default.as_ref().map(|(a, args)| json!({"action": a, "args": args})),
            "note": "run-time entries are those added through this runtime since the slot was loaded",
        });
        println!("{v:#}");
        return Ok(());
    }
    println!("table `{table}` ({})", scu.table_keys(table)?.join(", "));
    for e in &consts {
        println!("{}", entry_line(e, "const"));
    }
    for e in &journal.entries {
        println!("{}", entry_line(e, &format!("#{}", e.handle)));
    }
    if let Some((action, args)) = &default {
        println!("  default  {action}({})", args.join(", "));
    }
    println!(
        "({} constant, {} added through this runtime; the device cannot list a table)",
        consts.len(),
        journal.entries.len()
    );
    Ok(())
}
