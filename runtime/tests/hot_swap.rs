//! The hot-swap proof (issue 12, item 6): slot 0 is swapped again and again (stage, `LOAD` into the
//! shadow bank, `ACTIVATE` with `CARRY`, `FREE` of the drained bank) while a replay of many UDP
//! flows runs through the emulated NIC's real datapath (prefilter, slot queue, round robin, the
//! interpreter), on in-memory ports.
//!
//! Expectations, from device.md §3.4 and firewall.sn's source: every packet of an allowed flow
//! reaches the host exactly once and in order within its flow; every packet from the denied /16
//! is dropped and counted in `dropped`; `by_pod` counts every IPv4 packet by its second octet, so
//! the carried counters add up to what was sent across every swap; `SWITCH_COUNT` is the number of
//! swaps; nothing is dropped for a full queue.
//!
//! CI runs a short fixed version; the campaign of the issue (≥ 1,000 swaps, ≥ 1,000,000 packets):
//! `SCENIC_SWAPS=1000 SCENIC_SWAP_PACKETS=1000000 cargo test --release -p scenic-runtime --test
//! hot_swap -- --nocapture`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{identity_of, packages::example_package, stage_and_load};
use scenic_runtime::abi::slot::{self, SlotOp};
use scenic_runtime::abi::{global, slot_block};
use scenic_runtime::container;
use scenic_runtime::emu::banks::ModelEngine;
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::frame::ControlEntry;
use scenic_runtime::net::{Datapath, DatapathConfig, FrameIo};
use scenic_runtime::Device;

const ALLOWED_FLOWS: u32 = 48;
const DENIED_FLOWS: u32 = 16;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A UDP frame of flow `f` (source 10.1.f.1, or 10.9.f.1 when denied) carrying its sequence number.
fn frame(flow: u32, seq: u64) -> Vec<u8> {
    let denied = flow >= ALLOWED_FLOWS;
    let mut f = vec![0u8; 14 + 20 + 8 + 12];
    f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&40u16.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&[10, if denied { 9 } else { 1 }, flow as u8, 1]);
    ip[16..20].copy_from_slice(&[10, 0, 0, 1]);
    f[34..36].copy_from_slice(&(4000 + flow as u16).to_be_bytes());
    f[36..38].copy_from_slice(&9000u16.to_be_bytes());
    f[38..40].copy_from_slice(&20u16.to_be_bytes());
    f[42..46].copy_from_slice(&flow.to_be_bytes());
    f[46..54].copy_from_slice(&seq.to_be_bytes());
    f
}

/// The replay: flows in round robin, until `min` packets are out and the swaps are done.
struct Replay {
    go: Arc<AtomicBool>,
    next: u64,
    min: u64,
    done: Arc<AtomicBool>,
    sent: Arc<AtomicU64>,
}

impl FrameIo for Replay {
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        if !self.go.load(Ordering::Acquire)
            || (self.next >= self.min && self.done.load(Ordering::Acquire))
        {
            return Ok(None);
        }
        let flows = u64::from(ALLOWED_FLOWS + DENIED_FLOWS);
        let f = frame((self.next % flows) as u32, self.next / flows);
        buf[..f.len()].copy_from_slice(&f);
        self.next += 1;
        self.sent.store(self.next, Ordering::Release);
        Ok(Some(f.len()))
    }
    fn send(&mut self, _frame: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

/// The host side: every frame the slot sent up.
struct Sink(Arc<Mutex<VecDeque<Vec<u8>>>>);

impl FrameIo for Sink {
    fn recv(&mut self, _buf: &mut [u8]) -> io::Result<Option<usize>> {
        Ok(None)
    }
    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(frame.to_vec());
        Ok(())
    }
}

fn call(dev: &Device, entry: &ControlEntry) -> ControlEntry {
    common::call(dev, 0, entry)
}

/// Adds firewall's run-time ACL entry `10.9.0.0/16, _, _, _ => deny`.
fn deny_pod_9(dev: &Device) {
    use scenic_ir::program::KeyMatch;
    use scenic_ir::types::Const;
    let (manifest, _) = example_package("firewall");
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest).unwrap())
        .unwrap();
    let acl = m.control.scus[0]
        .tables
        .iter()
        .find(|t| t.name == "acl")
        .unwrap();
    let deny = acl.actions.iter().position(|a| a.name == "deny").unwrap() as u32;
    let keys = [
        KeyMatch::Lpm(Const(0x0A09_0000u32.into()), 16),
        KeyMatch::Any,
        KeyMatch::Any,
        KeyMatch::Any,
    ];
    let record = acl.encode_entry(&keys, deny, &[], 1).unwrap();
    let words: Vec<u64> = record.iter_u64_digits().collect();
    let add = ControlEntry::new(0x10, 0, acl.target, 0, 1)
        .with_data(&words)
        .unwrap();
    assert_eq!(call(dev, &add).op, 0);
}

fn counter_cell(dev: &Device, target: u16, cell: u32) -> u64 {
    let rsp = call(dev, &ControlEntry::new(0x20, 0, target, cell, 2));
    assert_eq!(rsp.op, 0);
    rsp.data[0]
}

#[test]
fn a_slot_swapped_under_traffic_loses_duplicates_and_reorders_nothing() {
    let swaps = env_or("SCENIC_SWAPS", 30);
    let min_packets = env_or("SCENIC_SWAP_PACKETS", 20_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map");
    let config = EmuConfig {
        scu_slots: 2,
        ..EmuConfig::default()
    };
    let mut server = EmuServer::create_path(&path, config).unwrap();
    let banks = server.enable_models();
    let (done, sent) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
    );
    let host = Arc::new(Mutex::new(VecDeque::new()));
    let go = Arc::new(AtomicBool::new(false));
    let replay = Replay {
        go: go.clone(),
        next: 0,
        min: min_packets,
        done: done.clone(),
        sent: sent.clone(),
    };
    let mut datapath = Datapath::new(
        server.shared_region(),
        DatapathConfig {
            scu_slots: 2,
            ..DatapathConfig::default()
        },
        vec![Box::new(replay)],
        Box::new(Sink(host.clone())),
        server.reset_generation(),
    );
    datapath.set_engine(0, Box::new(ModelEngine::new(banks, 0)));
    server.set_fence_gate(datapath.fence_gate());
    let stop = Arc::new(AtomicBool::new(false));
    let (s1, s2) = (stop.clone(), stop.clone());
    let served = std::thread::spawn(move || {
        let freeze = AtomicBool::new(false);
        server.run(&s1, &freeze).unwrap()
    });
    let dev = Device::open_path(&path).unwrap();
    let moving = std::thread::spawn(move || datapath.run(&s2).unwrap());

    // Slot 0 runs firewall with the deny entry; the slow path goes to it.
    common::load_example(&dev, 0, "firewall");
    deny_pod_9(&dev);
    dev.write(global::SLOW_PATH_SLOT, 0).unwrap();
    dev.fence().unwrap();
    go.store(true, Ordering::Release);

    let (manifest, model) = example_package("firewall");
    let image = container::build(&manifest, &model);
    let identity = identity_of(&manifest, 0);
    let crc = container::crc32(&image);
    let mut times = Vec::new();
    for _ in 0..swaps {
        let started = Instant::now();
        stage_and_load(&dev, 0, &image, &identity, crc).unwrap();
        dev.slot_command(0, SlotOp::Activate, slot::ACTIVATE_CARRY)
            .unwrap();
        times.push(started.elapsed());
        let until = Instant::now() + Duration::from_secs(10);
        while !dev.slot_state(0).unwrap().quiesced {
            assert!(Instant::now() < until, "the old bank never quiesced");
            std::thread::sleep(Duration::from_micros(100));
        }
        dev.slot_command(0, SlotOp::Free, 1).unwrap();
    }
    done.store(true, Ordering::Release);
    let total_wait = Instant::now() + Duration::from_secs(600);
    // The replay ends once `min` packets are out; wait until the datapath handled all of them.
    let base = slot_block(0).unwrap();
    loop {
        let total = sent.load(Ordering::Acquire);
        if total >= min_packets && dev.read(base + slot::PKT_SEQ).unwrap() == total {
            break;
        }
        assert!(Instant::now() < total_wait, "the datapath did not finish");
        std::thread::sleep(Duration::from_millis(5));
    }
    let total = sent.load(Ordering::Acquire);
    dev.fence().unwrap();

    check_flows(&host.lock().unwrap(), total);
    let flows = u64::from(ALLOWED_FLOWS + DENIED_FLOWS);
    let denied: u64 = (u64::from(ALLOWED_FLOWS)..flows)
        .map(|f| total / flows + u64::from(f < total % flows))
        .sum();
    let dropped = call(&dev, &ControlEntry::new(0x01, 0, 0, 0, 3)).data[0];
    assert_eq!(
        dropped, denied,
        "`dropped` counts every denied packet across every swap"
    );
    let (manifest_m, _) = example_package("firewall");
    let m =
        scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest_m).unwrap())
            .unwrap();
    let by_pod = m.control.scus[0]
        .counters
        .iter()
        .find(|c| c.name == "by_pod")
        .unwrap();
    assert_eq!(counter_cell(&dev, by_pod.target, 1), total - denied);
    assert_eq!(counter_cell(&dev, by_pod.target, 9), denied);
    assert_eq!(dev.read(base + slot::SWITCH_COUNT).unwrap(), swaps + 1);
    assert_eq!(dev.read(base + slot::DROP_FULL).unwrap(), 0);
    stop.store(true, Ordering::Release);
    moving.join().unwrap();
    served.join().unwrap();

    times.sort();
    if let (Some(min), Some(max)) = (times.first(), times.last()) {
        let median = times[times.len() / 2];
        println!(
            "{swaps} swaps under {total} packets: swap call (stage + LOAD + ACTIVATE) min {min:?}, \
             median {median:?}, max {max:?}; 0 lost, 0 duplicated, 0 reordered"
        );
    }
}

/// Every allowed flow's packets reached the host once each, in order; no denied packet did.
fn check_flows(host: &VecDeque<Vec<u8>>, total: u64) {
    let flows = u64::from(ALLOWED_FLOWS + DENIED_FLOWS);
    let mut next = vec![0u64; flows as usize];
    for f in host {
        let flow = u32::from_be_bytes([f[42], f[43], f[44], f[45]]);
        let seq = u64::from_be_bytes([f[46], f[47], f[48], f[49], f[50], f[51], f[52], f[53]]);
        assert!(
            flow < ALLOWED_FLOWS,
            "a packet of denied flow {flow} reached the host"
        );
        assert_eq!(
            seq, next[flow as usize],
            "flow {flow}: expected packet {}, got {seq} (lost, duplicated or reordered)",
            next[flow as usize]
        );
        next[flow as usize] += 1;
    }
    for flow in 0..u64::from(ALLOWED_FLOWS) {
        let expected = total / flows + u64::from(flow < total % flows);
        assert_eq!(
            next[flow as usize], expected,
            "flow {flow}: packets missing at the end"
        );
    }
}
