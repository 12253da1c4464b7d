//! `scenic status NAME [--json]`: identity, steering, ports, host side and slots of a device.

use scenic_runtime::abi::{self, global, slot};
use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, DeviceError};
use serde_json::{json, Map, Value};

const PORT_COUNTERS: [(&str, u64); 8] = [
    ("rx_pkts", global::RX_PKTS),
    ("rx_bytes", global::RX_BYTES),
    ("rx_drops", global::RX_DROPS),
    ("tx_pkts", global::TX_PKTS),
    ("tx_bytes", global::TX_BYTES),
    ("tx_drops", global::TX_DROPS),
    ("rx_slow_path", global::RX_SLOW_PATH),
    ("rx_steered", global::RX_STEERED),
];

const HOST_COUNTERS: [(&str, u64); 6] = [
    ("rx_pkts", global::HOST_RX_PKTS),
    ("rx_bytes", global::HOST_RX_BYTES),
    ("rx_drops", global::HOST_RX_DROPS),
    ("tx_pkts", global::HOST_TX_PKTS),
    ("tx_bytes", global::HOST_TX_BYTES),
    ("tx_drops", global::HOST_TX_DROPS),
];

const SLOT_COUNTERS: [(&str, u64); 13] = [
    ("pkt_seq", slot::PKT_SEQ),
    ("rx_bytes", slot::RX_BYTES),
    ("out_net_pkts", slot::OUT_NET_PKTS),
    ("out_net_bytes", slot::OUT_NET_BYTES),
    ("out_host_pkts", slot::OUT_HOST_PKTS),
    ("out_host_bytes", slot::OUT_HOST_BYTES),
    ("drop_program", slot::DROP_PROGRAM),
    ("drop_parser", slot::DROP_PARSER),
    ("drop_no_unit", slot::DROP_NO_UNIT),
    ("drop_full", slot::DROP_FULL),
    ("mirrored", slot::MIRRORED),
    ("switch_count", slot::SWITCH_COUNT),
    ("arb_weight", slot::ARB_WEIGHT),
];

fn counters(dev: &Device, base: u64, names: &[(&str, u64)]) -> Result<Value, DeviceError> {
    let mut m = Map::new();
    for (name, off) in names {
        m.insert((*name).to_string(), json!(dev.read(base + off)?));
    }
    Ok(Value::Object(m))
}

fn collect(dev: &Device) -> Result<Value, DeviceError> {
    let id = dev.identity();
    let mut ports = Vec::new();
    for p in 0..id.slots.ports {
        if let Some(base) = global::port_block(p) {
            ports.push(json!({ "port": p, "counters": counters(dev, base, &PORT_COUNTERS)? }));
        }
    }
    let mut slots = Vec::new();
    // What this runtime loaded into each slot (its journal); a state directory that cannot be
    // read only leaves the names out.
    let state_dir = StateDir::of(dev).ok();
    for k in 0..id.slots.scu_slots {
        let state = dev.slot_state(k)?;
        let base = abi::slot_block_unchecked(k);
        let journal = state_dir
            .as_ref()
            .and_then(|d| d.read_journal(k).ok().flatten())
            .filter(|_| state.active.is_some());
        slots.push(json!({
            "slot": k,
            "unit": journal.as_ref().map(|j| j.unit.clone()),
            "package": journal.as_ref().map(|j| j.package.display().to_string()),
            "banks": state.banks.map(|b| b.map_or("?", |b| b.doc_name())),
            "active_bank": state.active.map(|b| b.index()),
            "counters": counters(dev, base, &SLOT_COUNTERS)?,
        }));
    }
    let slow = dev.read(global::SLOW_PATH_SLOT)?;
    Ok(json!({
        "name": id.instance,
        "version": format!("{}.{}", id.major, id.minor),
        "slow_path_slot": if slow == global::SLOW_PATH_NONE { Value::Null } else { json!(slow) },
        "mtu": dev.read(global::MTU)?,
        "mtu_max": dev.read(global::MTU_MAX)?,
        "ports": ports,
        "host": counters(dev, 0, &HOST_COUNTERS)?,
        "slots": slots,
    }))
}

/// Prints the status; the exit code.
pub fn show(name: &str, as_json: bool) -> u8 {
    let dev = match Device::open(&super::common::device_spec(name)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {name}: {e}");
            return 2;
        }
    };
    let value = match collect(&dev) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {name}: {e}");
            return 1;
        }
    };
    if as_json {
        println!("{value:#}");
    } else {
        print_text(&value);
    }
    0
}

fn line(label: &str, v: &Value) {
    let fields: Vec<String> = v
        .as_object()
        .map(|m| m.iter().map(|(k, v)| format!("{k} {v}")).collect())
        .unwrap_or_default();
    println!("  {label:<8} {}", fields.join(", "));
}

fn print_text(v: &Value) {
    println!(
        "{} (interface {}), MTU {} of {}, slow path to {}",
        v["name"].as_str().unwrap_or("?"),
        v["version"].as_str().unwrap_or("?"),
        v["mtu"],
        v["mtu_max"],
        if v["slow_path_slot"].is_null() {
            "the host".to_string()
        } else {
            format!("slot {}", v["slow_path_slot"])
        }
    );
    for p in v["ports"].as_array().into_iter().flatten() {
        line(&format!("port {}", p["port"]), &p["counters"]);
    }
    line("host", &v["host"]);
    for s in v["slots"].as_array().into_iter().flatten() {
        let unit = match (s["unit"].as_str(), s["package"].as_str()) {
            (Some(u), Some(p)) => format!("   `{u}` from {p}"),
            _ => String::new(),
        };
        println!(
            "  slot {}   banks {} {}{unit}",
            s["slot"], s["banks"][0], s["banks"][1]
        );
        line("", &s["counters"]);
    }
}
