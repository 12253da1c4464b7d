//! The host API and the `scenic` command line end to end against the emulated device with its
//! models (the server's loader builds units on the interpreter and serves the slot queues):
//! `examples/firewall.sn` loaded into slot 0, its table, CSRs, counters, map, meter and
//! notifications driven by name, and `l3_router`'s writable CSRs through the window.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::time::Duration;

use num_bigint::BigUint;
use scenic_runtime::load::load_with;
use scenic_runtime::notify::Notifications;
use scenic_runtime::{Package, Scu, ScuError, Which};
use scenic_scu_abi::control::Status;
use support::{Emu, TestPackage};

#[test]
fn firewall_by_name() {
    let p = TestPackage::new("firewall");
    let emu = Emu::start_models();
    let dev = emu.open();
    let state = emu.state_dir();
    let pkg = Package::open(&p.dir).unwrap();
    let report = load_with(&dev, 0, &pkg, None, &state).unwrap();
    assert!(report.load_ns > 0, "LOAD_NS");
    let scu = Scu::attach_with(&dev, 0, &pkg, None, Which::Active, state.clone()).unwrap();
    assert_eq!(scu.csr_get("dropped").unwrap(), 0);

    // docs/device.md §7 step 3: deny 10.0.0.2; the handle is in the journal until removed.
    let h = scu
        .table_add_text("acl", &["10.0.0.2/32", "_", "_", "_"], "deny", &[], None)
        .unwrap();
    let h2 = scu
        .table_add_text(
            "acl",
            &["10.3.7.0/24", "_", "_", "_"],
            "limit",
            &["5"],
            Some(3),
        )
        .unwrap();
    assert_ne!(h, h2);
    let journal = state.read_journal(0).unwrap().unwrap();
    let acl = &journal.tables["acl"];
    assert_eq!(acl.entries.len(), 2);
    assert_eq!(acl.entries[0].keys[0], "10.0.0.2/32");
    assert_eq!((acl.entries[1].handle, acl.entries[1].priority), (h2, 3));
    scu.table_remove("acl", h).unwrap();
    let err = scu.table_remove("acl", h).unwrap_err();
    assert!(
        matches!(
            err,
            ScuError::Unit {
                status: Status::NotFound,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("table `acl`: remove"), "{err}");
    scu.table_clear("acl").unwrap();
    assert!(state.read_journal(0).unwrap().unwrap().tables["acl"]
        .entries
        .is_empty());
    scu.table_set_default("acl", "limit", &[BigUint::from(2u32)])
        .unwrap();
    assert_eq!(scu.const_entries("acl").unwrap().len(), 4);

    // Counters, map, meter.
    assert_eq!(scu.counter_read("by_pod", 3).unwrap(), (0, 0));
    scu.counter_reset("by_pod", Some(3)).unwrap();
    assert!(scu.map_entries("subnets").unwrap().is_empty());
    let key = BigUint::from(0x0a_03_07u32);
    let value = BigUint::from(5u32) | (BigUint::from(640u32) << 32usize);
    scu.map_insert("subnets", &key, &value).unwrap();
    assert_eq!(scu.map_get("subnets", &key).unwrap(), Some(value.clone()));
    assert_eq!(
        scu.map_entries("subnets").unwrap(),
        vec![(key.clone(), value)]
    );
    assert!(scu.map_remove("subnets", &key).unwrap());
    assert!(!scu.map_remove("subnets", &key).unwrap());
    assert_eq!(scu.map_get("subnets", &key).unwrap(), None);
    scu.meter_configure("limiter", 3, 1_000_000_000, 65536)
        .unwrap();

    // `every 1ms` notifies the Arm cores.
    let mut ring = Notifications::new(&dev, 0, state).unwrap();
    let got = ring.wait(Duration::from_secs(2), 4).unwrap();
    assert!(!got.is_empty(), "every 1ms notifies");
    assert_eq!((got[0].record.slot, got[0].record.target), (0, 1));
}

#[test]
fn csr_window_writes_and_a_reload() {
    let p = TestPackage::new("l3_router");
    let emu = Emu::start_models();
    let dev = emu.open();
    let state = emu.state_dir();
    let pkg = Package::open(&p.dir).unwrap();
    load_with(&dev, 2, &pkg, None, &state).unwrap();
    let scu = Scu::attach_with(&dev, 2, &pkg, None, Which::Active, state.clone()).unwrap();
    assert_eq!(scu.csr_get("router_ip").unwrap(), 0x0a00_0001);
    scu.csr_set("router_ip", 0x0a00_00fe).unwrap();
    assert_eq!(scu.csr_get_offset(1).unwrap(), 0x0a00_00fe);
    let err = scu.csr_set("router_mac", 1 << 48).unwrap_err().to_string();
    assert!(
        err.contains("48 bits") && err.contains("nothing was sent"),
        "{err}"
    );
    // Load again: the old bank drains and is freed; the new unit starts from the initial values.
    load_with(&dev, 2, &pkg, None, &state).unwrap();
    let scu = Scu::attach_with(&dev, 2, &pkg, None, Which::Active, state).unwrap();
    assert_eq!(
        scu.csr_get("router_ip").unwrap(),
        0x0a00_0001,
        "a fresh unit"
    );
}

fn scenic(emu: &Emu, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scenic"))
        .args(args)
        .env("SCENIC_STATE_DIR", &emu.state)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_line() {
    let p = TestPackage::new("firewall");
    let emu = Emu::start_models();
    let dev = emu.path.to_str().unwrap().to_string();
    let pkg = p.dir.to_str().unwrap();
    let run = |args: &[&str]| scenic(&emu, args);

    let (code, out, err) = run(&["load", &dev, "0", pkg]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("loaded scu `incast_firewall`") && out.contains("slow-path"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "table",
        &dev,
        "0",
        "add",
        "acl",
        "10.0.0.2/32",
        "_",
        "_",
        "_",
        "deny",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("added entry "), "{out}");
    let (code, out, _) = run(&["table", &dev, "0", "dump", "acl", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 5, "4 constant entries and ours: {out}");
    assert_eq!(entries[4]["keys"][0], "10.0.0.2/32");
    let (code, out, _) = run(&["csr", &dev, "0", "get", "dropped", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["offset"].as_u64(), v["value"].as_u64()),
        (Some(0), Some(0))
    );
    let (code, out, _) = run(&["csr", &dev, "0", "get", "0"]);
    assert_eq!((code, out.trim()), (0, "dropped = 0 (0x0)"));
    let (code, out, _) = run(&["counter", &dev, "0", "by_pod", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["cells"].as_array().unwrap().len(), 256);
    let (code, out, _) = run(&["map", &dev, "0", "subnets", "--json"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, err) = run(&["notify", &dev, "0", "--count", "2", "--follow", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");

    // Refusals: exit 1 with the reason; a device that is not there: exit 2.
    let (code, _, err) = run(&[
        "table", &dev, "0", "add", "acl", "_", "_", "0x1ff", "_", "deny",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("0x1ff does not fit"), "{err}");
    let (code, _, err) = run(&["csr", &dev, "0", "set", "dropped", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("readonly"), "{err}");
    let (code, _, err) = run(&["csr", &dev, "1", "get", "dropped"]);
    assert_eq!(code, 1);
    assert!(err.contains("nothing was loaded"), "{err}");
    let (code, _, err) = run(&["csr", "/nonexistent/map", "0", "get", "dropped"]);
    assert_eq!(code, 2, "{err}");
    std::fs::write(p.dir.join("manifest.json"), "{").unwrap();
    let (code, _, err) = run(&["load", &dev, "1", pkg]);
    assert_eq!(code, 1);
    assert!(err.contains("manifest.json"), "{err}");
    let (code, _, err) = run(&["csr", &dev, "0", "get", "dropped"]);
    assert_eq!(code, 1, "the journal's package is damaged now: {err}");
}
