//! `scenic load NAME SLOT PKGDIR [--unit U] [--json]`: stage, load and activate a package's unit.

use scenic_runtime::Package;
use serde_json::json;

use crate::common::{finish, open, Failure};

/// Runs the command; the exit code.
pub fn run(name: &str, slot: u8, dir: &str, unit: Option<&str>, as_json: bool) -> u8 {
    finish(load(name, slot, dir, unit, as_json))
}

fn load(name: &str, slot: u8, dir: &str, unit: Option<&str>, as_json: bool) -> Result<(), Failure> {
    // The package first: a damaged or mismatched one never reaches the device.
    let pkg = Package::open(dir)?;
    let (dev, state) = open(name)?;
    let report = scenic_runtime::load::load_with(&dev, slot, &pkg, unit, &state)?;
    if as_json {
        let value = json!({
            "device": name,
            "slot": report.slot,
            "bank": report.bank,
            "kind": report.kind.name(),
            "unit": report.unit,
            "package": pkg.dir(),
            "load_ns": report.load_ns,
            "replaced_bank": report.replaced,
            "slow_path": report.slow_path,
            "active": report.active,
            "image_bytes": report.image_bytes,
        });
        println!("{value:#}");
        return Ok(());
    }
    let mut what = format!(
        "loaded {} `{}` of {} into {name} slot {slot} bank {} in {:.3} ms",
        report.kind.name(),
        report.unit,
        pkg.dir().display(),
        report.bank,
        report.load_ns as f64 / 1e6
    );
    if let Some(old) = report.replaced {
        what.push_str(&format!(", replacing bank {old} (freed)"));
    }
    what.push_str(if report.active {
        ", active"
    } else {
        ", standby (a CC switch activates it)"
    });
    if report.slow_path {
        what.push_str("; it is the slow-path slot");
    }
    println!("{what}");
    Ok(())
}
