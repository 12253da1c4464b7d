//! `scenic steer NAME …`: which RoCE QPN or TCP flow goes to which slot, and the slow-path slot
//! (device.md §2.3). `add roce|tcp KEY SLOT`, `del roce|tcp KEY`, `list roce|tcp [--json]`,
//! `clear roce|tcp`, `slow-path SLOT|none`. A TCP key is a flow id or a connection
//! `SRC:PORT->DST:PORT` (`[v6]:port` for IPv6), whose flow id the emulator computes the same way.

use std::net::SocketAddr;

use clap::{Subcommand, ValueEnum};
use scenic_runtime::abi::global;
use scenic_runtime::steering::{self, SteerError, SteerTable};
use serde_json::json;

use crate::common::{finish, open, parse_u64, Failure};

/// A steering table on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Table {
    /// RoCEv2 by destination QPN.
    Roce,
    /// TCP by flow id.
    Tcp,
}

/// What to do.
#[derive(Subcommand, Debug)]
pub enum SteerAction {
    /// Steers a QPN or TCP flow to a slot; prints the entry's index.
    Add {
        /// `roce` or `tcp`.
        table: Table,
        /// QPN, flow id, or `SRC:PORT->DST:PORT` (tcp).
        key: String,
        /// The slot.
        slot: u8,
    },
    /// Removes a QPN's or flow's entry.
    Del {
        /// `roce` or `tcp`.
        table: Table,
        /// QPN, flow id, or `SRC:PORT->DST:PORT`.
        key: String,
    },
    /// Every valid entry.
    List {
        /// `roce` or `tcp`.
        table: Table,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Invalidates every entry of a table.
    Clear {
        /// `roce` or `tcp`.
        table: Table,
    },
    /// Sets the slow-path slot (`none`: straight to the host).
    SlowPath {
        /// A slot, or `none`.
        slot: String,
    },
}

impl From<SteerError> for Failure {
    fn from(e: SteerError) -> Failure {
        Failure {
            code: e.exit_code() as u8,
            message: e.to_string(),
        }
    }
}

fn table_of(t: Table) -> SteerTable {
    match t {
        Table::Roce => SteerTable::Roce,
        Table::Tcp => SteerTable::Tcp,
    }
}

/// A key: a number, or (tcp) a connection's flow id.
fn key_of(table: SteerTable, text: &str) -> Result<u32, Failure> {
    if let Some((src, dst)) = text.split_once("->") {
        if table != SteerTable::Tcp {
            return Err(Failure::usage(
                "a connection key `SRC:PORT->DST:PORT` is for the tcp table",
            ));
        }
        let parse = |s: &str| {
            s.trim().parse::<SocketAddr>().map_err(|e| {
                Failure::usage(format!(
                    "`{s}` is not ADDRESS:PORT ([v6]:port for IPv6): {e}"
                ))
            })
        };
        let (s, d) = (parse(src)?, parse(dst)?);
        return steering::tcp_flow_id((s.ip(), s.port()), (d.ip(), d.port())).ok_or_else(|| {
            Failure::usage("the two addresses of a connection are of one family (IPv4 or IPv6)")
        });
    }
    let n = parse_u64("key", text)?;
    if n > u64::from(table.max_key()) {
        return Err(Failure::usage(format!(
            "{} key {n:#x} does not fit its {} bits",
            table.name(),
            if table == SteerTable::Roce { 24 } else { 32 }
        )));
    }
    Ok(n as u32)
}

/// Runs the command; the exit code.
pub fn run(name: &str, action: &SteerAction) -> u8 {
    finish(steer(name, action))
}

fn steer(name: &str, action: &SteerAction) -> Result<(), Failure> {
    let (dev, _) = open(name)?;
    match action {
        SteerAction::Add { table, key, slot } => {
            let t = table_of(*table);
            let k = key_of(t, key)?;
            let index = steering::add(&dev, t, k, *slot)?;
            println!("{} {k:#x} → slot {slot} (entry {index})", t.name());
        }
        SteerAction::Del { table, key } => {
            let t = table_of(*table);
            let k = key_of(t, key)?;
            if !steering::remove(&dev, t, k)? {
                return Err(Failure::new(format!(
                    "no {} entry for key {k:#x}",
                    t.name()
                )));
            }
            println!("removed {} {k:#x}", t.name());
        }
        SteerAction::List { table, json } => {
            let t = table_of(*table);
            let entries = steering::list(&dev, t)?;
            if *json {
                let v: Vec<_> = entries
                    .iter()
                    .map(|e| json!({ "index": e.index, "key": e.key, "slot": e.slot }))
                    .collect();
                println!("{:#}", json!({ "table": t.name(), "entries": v }));
            } else {
                for e in &entries {
                    println!("{:>5}  {:#010x} → slot {}", e.index, e.key, e.slot);
                }
                println!("{} {} entries", entries.len(), t.name());
            }
        }
        SteerAction::Clear { table } => {
            let t = table_of(*table);
            steering::clear(&dev, t)?;
            println!("cleared the {} table", t.name());
        }
        SteerAction::SlowPath { slot } => {
            let s = match slot.as_str() {
                "none" => None,
                text => Some(
                    u8::try_from(parse_u64("slot", text)?)
                        .ok()
                        .filter(|k| u64::from(*k) != global::SLOW_PATH_NONE)
                        .ok_or_else(|| {
                            Failure::usage(format!("slot `{text}`: 0-254, or `none`"))
                        })?,
                ),
            };
            steering::set_slow_path(&dev, s)?;
            println!(
                "slow path → {}",
                s.map_or("the host".to_string(), |k| format!("slot {k}"))
            );
        }
    }
    Ok(())
}
