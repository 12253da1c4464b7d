//! `scenic counter NAME SLOT COUNTER [INDEX] [--reset] [--json]`: a counter array of the slot's
//! active bank, one cell or all of them (text shows the non-zero cells; JSON every cell).

use serde_json::json;

use crate::common::{attach, finish, open, slot_package, Failure};

/// Runs the command; the exit code.
pub fn run(
    name: &str,
    slot: u8,
    counter: &str,
    index: Option<u64>,
    reset: bool,
    as_json: bool,
) -> u8 {
    finish(show(name, slot, counter, index, reset, as_json))
}

fn show(
    name: &str,
    slot: u8,
    counter: &str,
    index: Option<u64>,
    reset: bool,
    as_json: bool,
) -> Result<(), Failure> {
    let (dev, state) = open(name)?;
    let (pkg, unit) = slot_package(name, &state, slot)?;
    let scu = attach(&dev, &state, slot, &pkg, &unit)?;
    let c = scu.counter(counter)?.clone();
    if reset {
        scu.counter_reset(counter, index)?;
        match index {
            Some(i) => println!("reset `{counter}`[{i}]"),
            None => println!("reset the {} cells of `{counter}`", c.size),
        }
        return Ok(());
    }
    let cells: Vec<(u64, (u64, u64))> = match index {
        Some(i) => vec![(i, scu.counter_read(counter, i)?)],
        None => (0..c.size).zip(scu.counter_read_all(counter)?).collect(),
    };
    if as_json {
        let list: Vec<serde_json::Value> = cells
            .iter()
            .map(|(i, (p, b))| json!({"index": i, "packets": p, "bytes": b}))
            .collect();
        println!(
            "{:#}",
            json!({ "counter": counter, "size": c.size, "cells": list })
        );
        return Ok(());
    }
    let shown: Vec<_> = cells
        .iter()
        .filter(|(_, (p, b))| index.is_some() || *p != 0 || *b != 0)
        .collect();
    for (i, (p, b)) in &shown {
        println!("{counter}[{i}]  packets {p}  bytes {b}");
    }
    if index.is_none() {
        println!(
            "({} of {} cells non-zero; `--json` lists every cell)",
            shown.len(),
            c.size
        );
    }
    Ok(())
}
