//! The CC slots through the host API and the command line (device.md §4; docs/runtime.md "CC
//! slots"): loads, events, outputs, params, switches with carry, and the refusals. Expected values
//! come from the cc programs' formulas (examples/dcqcn.sn, examples/window_cc.sn).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::time::Duration;

use scenic_runtime::abi::{global, slot, slot_block, ErrorWord};
use scenic_runtime::cc::event_ring;
use scenic_runtime::emu::cc_events;
use scenic_runtime::frame::CcEvent;
use scenic_runtime::ring::Producer;
use scenic_runtime::{CcHost, Package};
use support::{build_source, Emu, TestPackage};

/// dcqcn's rate after n CNPs at one instant on a new flow (alpha stays 1): line rate / 2^n.
const LINE_RATE: u64 = 200_000_000_000;

fn cnp(flow: u32, time_ns: u64) -> CcEvent {
    CcEvent {
        kind: 2,
        flow,
        ecn: false,
        value: 0,
        time_ns,
        int: Default::default(),
    }
}

fn ack(flow: u32, bytes: u64, ecn: bool, time_ns: u64) -> CcEvent {
    CcEvent {
        kind: 1,
        flow,
        ecn,
        value: bytes,
        time_ns,
        int: Default::default(),
    }
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
fn the_host_api_drives_events_outputs_and_params() {
    let p = TestPackage::new("dcqcn");
    let pkg = Package::open(&p.dir).unwrap();
    let emu = Emu::start_models();
    let dev = emu.open();
    let host = CcHost::new(&dev, emu.state_dir()).unwrap();
    let r = host.switch(&pkg, None, true).unwrap();
    assert_eq!((r.old.clone(), r.new.clone()), (None, (16, "dcqcn".into())));
    assert_eq!(dev.read(global::CC_ACTIVE).unwrap(), 0x100);
    assert_eq!(dev.read(global::CC_OUTPUT_KIND).unwrap(), 1, "rate");
    let id = slot_block(16).unwrap() + slot::identity_block(slot::Bank::B0);
    assert_eq!(dev.read(id + slot::FLOWS).unwrap(), 1024);
    assert_eq!(dev.read(id + slot::CSR_WORDS).unwrap(), 3, "f, r_ai, r_hai");

    assert_eq!(host.output(None, 3).unwrap().value, 0, "a flow never seen");
    host.inject(&[cnp(3, 1_000)]).unwrap();
    host.wait_events(1, Duration::from_secs(5)).unwrap();
    assert_eq!(host.output(None, 3).unwrap().value, LINE_RATE / 2);
    host.inject(&[cnp(3, 1_000)]).unwrap();
    host.wait_events(2, Duration::from_secs(5)).unwrap();
    assert_eq!(host.output(None, 3).unwrap().value, LINE_RATE / 4);
    let err = host.inject(&[cnp(1024, 2_000)]).unwrap_err().to_string();
    assert!(
        err.contains("flow 1024") && err.contains("nothing was sent"),
        "{err}"
    );
    let err = host.output(None, 5000).unwrap_err().to_string();
    assert!(err.contains("has 1024 flows"), "{err}");

    // Params (§4.2): the window of the active slot; a standby of the same program too.
    assert_eq!(host.param_get("f").unwrap(), 5);
    assert_eq!(host.param_get("r_ai").unwrap(), 40_000_000);
    let err = host.param_set("f", 300).unwrap_err().to_string();
    assert!(err.contains("8 bits"), "{err}");
    let err = host.param_set("g", 1).unwrap_err().to_string();
    assert!(
        err.contains("no param `g`") && err.contains("r_hai"),
        "{err}"
    );
    assert_eq!(host.param_set("f", 7).unwrap(), vec![16]);
    assert_eq!(host.param_get("f").unwrap(), 7);

    // A switch to the same package: everything carried, the param copied by the runtime.
    let r = host.switch(&pkg, None, true).unwrap();
    assert_eq!(r.old, Some((16, "dcqcn".into())));
    assert_eq!(r.new.0, 17);
    assert_eq!(r.switch_seq, 2);
    assert!(r.plan.fresh().next().is_none(), "{:?}", r.plan);
    assert_eq!(
        host.output(None, 3).unwrap().value,
        LINE_RATE / 4,
        "carried"
    );
    assert_eq!(host.param_get("f").unwrap(), 7, "copied");
    assert_eq!(host.param_set("r_ai", 1_000).unwrap(), vec![17, 16]);
    // Both slots receive every event (§4.1): the standby's output moves too.
    host.inject(&[cnp(3, 3_000)]).unwrap();
    host.wait_events(3, Duration::from_secs(5)).unwrap();
    assert_eq!(host.output(Some(17), 3).unwrap().value, LINE_RATE / 8);
    assert_eq!(host.output(Some(16), 3).unwrap().value, LINE_RATE / 8);
}

#[test]
fn a_switch_carries_what_the_layouts_share_and_refuses_a_mismatch() {
    let p = TestPackage::new("dcqcn");
    let pkg = Package::open(&p.dir).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/dcqcn.sn"))
            .unwrap()
            .replace(
                "    state bc: bit<8> = 0;",
                "    state bc: bit<8> = 0;\n    state cnps: bit<32> = 0;",
            )
            .replace(
                "        rt = rc;\n",
                "        rt = rc;\n        cnps = cnps + 1;\n",
            );
    let variant = dir.path().join("dcqcn_counting");
    build_source("dcqcn_counting.sn", &text, &variant);
    let variant = Package::open(&variant).unwrap();
    let window = TestPackage::new("window_cc");
    let window = Package::open(&window.dir).unwrap();

    let mut units = None;
    let emu = Emu::start_with(|s| {
        s.enable_models();
        units = s.cc_units();
    });
    let units = units.unwrap();
    let dev = emu.open();
    let host = CcHost::new(&dev, emu.state_dir()).unwrap();
    host.switch(&pkg, None, true).unwrap();
    host.inject(&[cnp(5, 1_000), cnp(6, 1_000)]).unwrap();
    host.wait_events(2, Duration::from_secs(5)).unwrap();

    let err = host.switch(&window, None, true).unwrap_err().to_string();
    assert!(err.contains("E_CC_MISMATCH"), "{err}");
    assert_eq!(dev.read(global::CC_ACTIVE).unwrap(), 0x100, "unchanged");

    let r = host.switch(&variant, None, true).unwrap();
    let fresh: Vec<_> = r.plan.fresh().map(|i| (i.kind, i.name.as_str())).collect();
    assert_eq!(fresh, vec![("state", "cnps")]);
    assert!(r.plan.fresh().all(|i| i.reason.contains("no state `cnps`")));
    assert_eq!(
        host.output(None, 5).unwrap().value,
        LINE_RATE / 2,
        "rc carried"
    );
    host.inject(&[cnp(5, 2_000)]).unwrap();
    host.wait_events(3, Duration::from_secs(5)).unwrap();
    assert_eq!(host.output(None, 5).unwrap().value, LINE_RATE / 4);
    let mut pair = cc_events::lock(&units);
    let active = pair.active.unwrap();
    let mut cnps = |flow| {
        pair.units[active]
            .as_mut()
            .unwrap()
            .unit
            .with_machine(|_, cc, m| m.cc_state(cc, flow, "cnps").map(|b| b.to_u64()))
    };
    assert_eq!(cnps(5), Some(1), "fresh at the switch, then one CNP");
    assert_eq!(cnps(6), Some(0), "the initialiser");
}

#[test]
fn bad_events_are_dropped_and_counted_and_a_window_cc_runs() {
    let w = TestPackage::new("window_cc");
    let pkg = Package::open(&w.dir).unwrap();
    let emu = Emu::start_models();
    let dev = emu.open();
    let host = CcHost::new(&dev, emu.state_dir()).unwrap();
    host.switch(&pkg, None, true).unwrap();
    assert_eq!(dev.read(global::CC_OUTPUT_KIND).unwrap(), 2, "window");
    let r = dev.region();
    let mut ring = Producer::attach(r, event_ring()).unwrap();
    let bad_kind = CcEvent {
        kind: 9,
        ..cnp(1, 10)
    };
    for e in [bad_kind, cnp(4096, 10), ack(1, 1000, false, 20)] {
        assert!(ring.push(r, &e.encode()).unwrap());
    }
    host.wait_events(1, Duration::from_secs(5)).unwrap();
    assert_eq!(dev.read(global::EV_DROPPED).unwrap(), 2);
    let err = ErrorWord::decode(dev.read(global::ERROR).unwrap());
    assert_eq!(err.code, 0x0052, "E_CC_EVENT");
    // Slow start: 10 MSS + the bytes acknowledged; an ECN echo halves it (window_cc.sn's `cut`).
    assert_eq!(host.output(None, 1).unwrap().value, 10 * 4096 + 1000);
    host.inject(&[ack(1, 1000, true, 30)]).unwrap();
    host.wait_events(2, Duration::from_secs(5)).unwrap();
    assert_eq!(host.output(None, 1).unwrap().value, (10 * 4096 + 1000) / 2);
}

#[test]
fn the_command_line() {
    let p = TestPackage::new("dcqcn");
    let emu = Emu::start_models();
    let dev = emu.path.to_str().unwrap().to_string();
    let pkg = p.dir.to_str().unwrap();
    let run = |args: &[&str]| scenic(&emu, args);

    let (code, out, err) = run(&["cc", &dev, "switch", pkg]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no cc → `dcqcn` (slot 16)"), "{out}");
    let (code, _, err) = run(&["cc", &dev, "event", "cnp", "3", "--time", "1000"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(&["cc", &dev, "output", "3", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"].as_u64(), Some(LINE_RATE / 2));
    assert_eq!(v["kind"], "rate");
    let (code, _, err) = run(&["cc", &dev, "param", "set", "f", "300"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    let (code, out, err) = run(&["cc", &dev, "param", "set", "f", "6"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("slot 16"), "{out}");
    let (code, out, err) = run(&["cc", &dev, "switch", pkg, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["new"]["slot"], 17);
    assert_eq!(v["switch_seq"], 1);
    assert!(v["state"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["carried"] == true));
    let (code, out, _) = run(&["cc", &dev, "param", "get", "f"]);
    assert_eq!((code, out.trim()), (0, "6"));
    let (code, out, _) = run(&["cc", &dev, "output", "3"]);
    assert_eq!((code, out.trim()), (0, "100000000000 bit/s"));
    let (code, _, err) = run(&["cc", &dev, "event", "bogus", "3"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["cc", &dev, "output", "5000"]);
    assert_eq!(code, 1, "{err}");
}

/// An INT hop (kind 8) from `scenic cc event int` reaches hpcc.sn's `on int` through the 64-byte
/// ring entries, and the ACK after it uses it. The expected window is HPCC's Algorithm 1
/// (examples/hpcc.stf, flow 1): the second hop, 250000 B in 10 us on a 200 Gb/s port, is u' = 1.0;
/// with tau = T, U = 1.0 >= eta and W = floor(Wc * 62259 / 65536) + W_AI
/// = floor(250000 * 62259 / 65536) + 125 = 237624.
#[test]
fn an_int_hop_reaches_the_controller_before_its_ack() {
    let p = TestPackage::new("hpcc");
    let emu = Emu::start_models();
    let dev = emu.path.to_str().unwrap().to_string();
    let run = |args: &[&str]| scenic(&emu, args);
    let (code, _, err) = run(&["cc", &dev, "switch", p.dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let hop = |value: &str, tx: &str, ts: &str, time: &str| {
        let args = [
            "cc",
            &dev,
            "event",
            "int",
            "1",
            value,
            "--hop",
            "0",
            "--hops",
            "1",
            "--tx-bytes",
            tx,
            "--ts",
            ts,
            "--rate",
            "200000000000",
            "--time",
            time,
        ];
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{err}");
    };
    let ack = |time: &str| {
        let (code, _, err) = run(&["cc", &dev, "event", "ack", "1", "1000", "--time", time]);
        assert_eq!(code, 0, "{err}");
    };
    hop("0", "0", "10000", "10000");
    ack("10000");
    hop("0", "250000", "20000", "20000");
    ack("20000");
    let (code, out, _) = run(&["cc", &dev, "output", "1"]);
    assert_eq!((code, out.trim()), (0, "237624 bytes"));
    // The int fields go with an int event only, and all five of them.
    let (code, _, err) = run(&["cc", &dev, "event", "int", "1", "0", "--hop", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--hops, --tx-bytes"), "{err}");
    let (code, _, err) = run(&["cc", &dev, "event", "ack", "1", "5", "--hop", "0"]);
    assert_eq!(code, 2, "{err}");
}
