//! The host API and the `scenic` command line end to end against the emulated device with its
//! models (the server's loader builds units on the interpreter and serves the slot queues):
//! `examples/firewall.sn` loaded into slot 0, its table, CSRs, counters, map, meter and
//! notifications driven by name, an entry modified in place under traffic, and `l3_router`'s
//! writable CSRs through the window.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::time::Duration;

use num_bigint::BigUint;
use scenic_runtime::load::load_with;
use scenic_runtime::net::{Class, Destination, SlotEngine, SlotInput, Source};
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

/// A UDP frame from `src` to 10.0.0.1, port 80 (no constant rule of firewall.sn's `acl` matches
/// it); what the program did with it on slot 0: passed to the host unchanged (`true`) or dropped.
fn passes(engine: &mut impl SlotEngine, src: [u8; 4], now_ns: u64) -> bool {
    let mut f = vec![0u8; 14 + 20 + 8];
    f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&28u16.to_be_bytes());
    f[22] = 64;
    f[23] = 17;
    f[26..30].copy_from_slice(&src);
    f[30..34].copy_from_slice(&[10, 0, 0, 1]);
    f[34..36].copy_from_slice(&1234u16.to_be_bytes());
    f[36..38].copy_from_slice(&80u16.to_be_bytes());
    f[38..40].copy_from_slice(&8u16.to_be_bytes());
    let v = engine.packet(SlotInput {
        data: &f,
        source: Source::Network(0),
        now_ns,
        class: Class::Slow,
    });
    if v.dropped {
        assert!(v.outputs.is_empty(), "{v:?}");
        return false;
    }
    assert_eq!(v.outputs, vec![(Destination::Host, f)]);
    true
}

/// language.md §7.9.8 ("the host adds, modifies and removes entries") through the host API:
/// firewall.sn's `acl` denies a source with a run-time entry, `table_modify` turns that entry
/// into `allow` in place (its keys, priority and handle stay), and the source's packets pass.
/// Arguments, actions and constant tables are checked against the manifest before sending; a
/// handle no entry has is the unit's `NotFound`, reported with the handle.
#[test]
fn modify_an_entry_in_place() {
    let p = TestPackage::new("firewall");
    let emu = Emu::start_models();
    let dev = emu.open();
    let state = emu.state_dir();
    let pkg = Package::open(&p.dir).unwrap();
    load_with(&dev, 0, &pkg, None, &state).unwrap();
    let scu = Scu::attach_with(&dev, 0, &pkg, None, Which::Active, state.clone()).unwrap();
    let mut engine = emu.engine(0);
    let src = [10, 9, 0, 7];
    // The default `limit(0)` (10 Gbps, 256 KiB burst) passes a 42-byte frame.
    assert!(passes(&mut engine, src, 1), "before any entry");
    let h = scu
        .table_add_text("acl", &["10.9.0.7/32", "_", "_", "_"], "deny", &[], Some(2))
        .unwrap();
    assert!(!passes(&mut engine, src, 2), "denied");
    assert!(passes(&mut engine, [10, 9, 0, 8], 3), "another source");

    scu.table_modify("acl", h, "allow", &[]).unwrap();
    assert!(passes(&mut engine, src, 4), "allowed after the modify");
    let journal = state.read_journal(0).unwrap().unwrap();
    let entries = &journal.tables["acl"].entries;
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(
        (e.handle, e.keys[0].as_str(), e.priority),
        (h, "10.9.0.7/32", 2),
        "the entry keeps its handle, keys and priority"
    );
    assert_eq!(
        (e.action.action.as_str(), e.action.args.len()),
        ("allow", 0)
    );
    // Back to deny through the text form, then `limit(7)`.
    scu.table_modify_text("acl", h, "deny", &[]).unwrap();
    assert!(!passes(&mut engine, src, 5), "denied again");
    scu.table_modify_text("acl", h, "limit", &["7"]).unwrap();
    assert!(passes(&mut engine, src, 6), "limit(7): 10 Gbps");
    let journal = state.read_journal(0).unwrap().unwrap();
    let a = &journal.tables["acl"].entries[0].action;
    assert_eq!(
        (a.action.as_str(), a.args.clone()),
        ("limit", vec!["0x7".to_string()])
    );

    // Refused before sending (nothing changes): an unknown action, the wrong number of
    // arguments, an argument wider than `class: bit<4>`.
    for (action, args) in [("nope", vec![]), ("limit", vec![]), ("limit", vec![16u32])] {
        let args: Vec<BigUint> = args.into_iter().map(BigUint::from).collect();
        let err = scu.table_modify("acl", h, action, &args).unwrap_err();
        assert!(
            matches!(err, ScuError::Refused(_)),
            "{action} {args:?}: {err:?}"
        );
        assert!(err.to_string().contains("nothing was sent"), "{err}");
    }
    assert!(passes(&mut engine, src, 7), "still limit(7)");
    let err = scu.table_modify("nope", h, "allow", &[]).unwrap_err();
    assert!(matches!(err, ScuError::NoName { .. }), "{err:?}");

    // A handle no run-time entry has: the unit's NotFound, naming the handle.
    let stale = h + 1000;
    let err = scu.table_modify("acl", stale, "allow", &[]).unwrap_err();
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
    assert!(
        err.to_string().contains(&format!("modify entry {stale}")),
        "{err}"
    );
    scu.table_remove("acl", h).unwrap();
    let err = scu.table_modify("acl", h, "deny", &[]).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("table `acl`: modify entry {h}")),
        "{err}"
    );
    assert!(passes(&mut engine, src, 8), "removed: the default again");
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
    let handle = out
        .trim()
        .strip_prefix("added entry ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .to_string();
    let (code, out, err) = run(&["table", &dev, "0", "mod", "acl", &handle, "limit", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!("modified entry {handle} of `acl`")),
        "{out}"
    );
    let (code, out, _) = run(&["table", &dev, "0", "dump", "acl", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 5, "4 constant entries and ours: {out}");
    assert_eq!(entries[4]["keys"][0], "10.0.0.2/32");
    assert_eq!(
        (&entries[4]["action"], &entries[4]["args"][0]),
        (&serde_json::json!("limit"), &serde_json::json!("0x3")),
        "{out}"
    );
    let (code, _, err) = run(&["table", &dev, "0", "mod", "acl", "999", "allow"]);
    assert_eq!(code, 1);
    assert!(err.contains("modify entry 999"), "{err}");
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
