//! `scenic swap NAME SLOT PKGDIR [--unit U] [--fresh] [--warm-up MS] [--json]`: replace a slot's
//! running unit without losing a packet; print what state was carried.

use std::time::Duration;

use scenic_runtime::{Package, SwapOptions};
use serde_json::json;

use crate::common::{finish, open, Failure};

/// Runs the command; the exit code.
pub fn run(
    name: &str,
    slot: u8,
    dir: &str,
    unit: Option<&str>,
    fresh: bool,
    warm_up_ms: u64,
    as_json: bool,
) -> u8 {
    let options = SwapOptions {
        carry: !fresh,
        warm_up: Duration::from_millis(warm_up_ms),
    };
    finish(swap(name, slot, dir, unit, options, as_json))
}

fn swap(
    name: &str,
    slot: u8,
    dir: &str,
    unit: Option<&str>,
    options: SwapOptions,
    as_json: bool,
) -> Result<(), Failure> {
    // The package first: a damaged or mismatched one never reaches the device.
    let pkg = Package::open(dir)?;
    let (dev, state) = open(name)?;
    let r = scenic_runtime::swap(&dev, slot, &pkg, unit, &state, options)?;
    if as_json {
        let items: Vec<_> = r
            .plan
            .items
            .iter()
            .map(|i| {
                json!({
                    "kind": i.kind,
                    "name": i.name,
                    "carried": i.from.is_some(),
                    "reason": i.reason,
                })
            })
            .collect();
        let value = json!({
            "device": name,
            "slot": slot,
            "old_unit": r.old_unit,
            "new_unit": r.new_unit,
            "bank": r.bank,
            "package": pkg.dir(),
            "load_ns": r.load_ns,
            "switch_seq": r.switch_seq,
            "warmed_inputs": r.warmed_inputs,
            "switch_ns": r.switch_time.as_nanos() as u64,
            "total_ns": r.total_time.as_nanos() as u64,
            "state": items,
        });
        println!("{value:#}");
        return Ok(());
    }
    println!(
        "swapped {name} slot {slot}: `{}` → `{}` (bank {}) in {:.3} ms (switch at input {}, {} warm-up inputs; drained and freed in {:.3} ms total)",
        r.old_unit,
        r.new_unit,
        r.bank,
        r.switch_time.as_secs_f64() * 1e3,
        r.switch_seq,
        r.warmed_inputs,
        r.total_time.as_secs_f64() * 1e3
    );
    for i in &r.plan.items {
        match i.from {
            Some(_) => println!("  carried  {} {}", i.kind, i.name),
            None => println!("  fresh    {} {}: {}", i.kind, i.name, i.reason),
        }
    }
    Ok(())
}
