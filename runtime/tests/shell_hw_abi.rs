//! The shell glue's SystemVerilog package (`shell-hw/rtl/scenic_regs_pkg.sv`) and the benches' C
//! names (`shell-hw/tb/common/scenic_regs.h`) against the Rust device interface and
//! `docs/device.md`: the committed files are exactly what `scenic_runtime::abi::sv::render()` and
//! `abi::c_names::render()` write (`SCENIC_REWRITE=1` rewrites them; review the diff),
//! and the field positions it states for the CC event record (§4.3) and the RX tag (§5.2) are the
//! ones the document's tables give, read from the markdown here, not from the code.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::PathBuf;

use scenic_runtime::abi::{c_names, sv};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The committed `file` is `rendered` (rewritten first with `SCENIC_REWRITE=1`).
fn committed_is(file: &str, rendered: &str) {
    let path = repo().join(file);
    if std::env::var_os("SCENIC_REWRITE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, rendered).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == rendered,
        "{} differs from its renderer; rerun with SCENIC_REWRITE=1 and review the diff",
        path.display()
    );
}

#[test]
fn the_committed_package_is_the_rendered_one() {
    committed_is("shell-hw/rtl/scenic_regs_pkg.sv", &sv::render());
}

#[test]
fn the_committed_c_names_are_the_rendered_ones() {
    committed_is("shell-hw/tb/common/scenic_regs.h", &c_names::render());
}

/// `localparam ... NAME = 'hX;` of the package, by name.
fn params() -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for line in sv::render().lines() {
        let Some(rest) = line.trim().strip_prefix("localparam ") else {
            continue;
        };
        let (lhs, rhs) = rest.split_once('=').unwrap();
        let name = lhs.split_whitespace().last().unwrap().to_string();
        let value = rhs.split(';').next().unwrap().trim();
        let parsed = match value.rsplit_once("'h") {
            Some((_, hex)) => u64::from_str_radix(hex, 16).unwrap(),
            None => value.parse::<u64>().unwrap(),
        };
        out.insert(name, parsed);
    }
    out
}

/// The rows of the markdown table that follows `heading` in device.md: first and second cells.
fn table_after(heading: &str) -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(repo().join("docs/device.md")).unwrap();
    let start = doc.find(heading).unwrap();
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in doc[start..].lines().skip(1) {
        if line.starts_with('|') {
            in_table = true;
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            rows.push((
                cells[1].trim_matches('`').into(),
                cells[2].trim_matches('`').into(),
            ));
        } else if in_table {
            break;
        }
    }
    rows
}

/// `[a..b)` or `a`: the first bit.
fn first(cell: &str) -> Option<u64> {
    let cell = cell.trim_start_matches('[');
    cell.split("..").next()?.parse().ok()
}

#[test]
fn event_record_fields_are_the_documents() {
    let p = params();
    let rows = table_after("Entry `i` at `0x8000");
    let expect = [
        ("kind", "EV_KIND_LSB"),
        ("flow", "EV_FLOW_LSB"),
        ("ecn", "EV_ECN_BIT"),
        ("hop", "EV_HOP_LSB"),
        ("hops", "EV_HOPS_LSB"),
        ("value", "EV_VALUE_LSB"),
        ("time_ns", "EV_TIME_LSB"),
        ("tx_bytes", "EV_TX_BYTES_LSB"),
        ("ts_ns", "EV_TS_LSB"),
        ("rate_bps", "EV_RATE_LSB"),
    ];
    for (field, param) in expect {
        let row = rows.iter().find(|(_, f)| f == field).unwrap();
        assert_eq!(first(&row.0), Some(p[param]), "{field}");
    }
    assert_eq!(p["EV_ENTRY_BYTES"] * 8 - 128, p["EV_RECORD_BITS"]);
}

#[test]
fn rx_tag_fields_are_the_documents() {
    let p = params();
    let rows = table_after("Buffer `i` (at `RX_BASE");
    let expect = [
        ("len", "RX_TAG_LEN_LSB"),
        ("flags", "RX_TAG_FLAGS_LSB"),
        ("slot", "RX_TAG_SLOT_LSB"),
        ("port", "RX_TAG_PORT_LSB"),
        ("time_ns", "RX_TAG_TIME_LSB"),
    ];
    for (field, param) in expect {
        let row = rows.iter().find(|(_, f)| f == field).unwrap();
        assert_eq!(first(&row.0).map(|b| b * 8), Some(p[param]), "{field}");
    }
    let frame = rows.iter().find(|(_, f)| f == "frame").unwrap();
    assert_eq!(first(&frame.0), Some(p["RX_TAG_BYTES"]));
}

#[test]
fn steer_value_fields_are_the_documents() {
    let p = params();
    let rows = table_after("| `0x1000` | `STEER_CAPS`");
    let doc = std::fs::read_to_string(repo().join("docs/device.md")).unwrap();
    let line = doc
        .lines()
        .find(|l| l.contains("`STEER_VALUE` | RW"))
        .unwrap();
    assert!(line.contains("`[32..40)` slot, bit 40 valid"), "{line}");
    assert_eq!(
        (p["STEER_VALUE_SLOT_LSB"], p["STEER_VALUE_VALID_BIT"]),
        (32, 40)
    );
    assert!(rows.iter().any(|(_, name)| name == "STEER_VALUE"));
}
