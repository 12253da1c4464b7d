//! The host side of the slot queues against a scripted device: the map is published by an
//! `EmuServer` that is not run; this test's thread beats the heartbeat and answers the control ring
//! itself, so tags, ordering, stale responses and device statuses are checked without the model
//! engine. Also the notification ring's loss detection and the slot journal's round trip.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use num_bigint::BigUint;
use scenic_runtime::abi::codes::DeviceStatus;
use scenic_runtime::abi::slot::{self, CQ_ENTRIES, CQ_ENTRY_BYTES, NQ_ENTRIES, NQ_ENTRY_BYTES};
use scenic_runtime::abi::slot_block;
use scenic_runtime::control::{ControlError, ControlQueue};
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::frame::{ControlEntry, Notification};
use scenic_runtime::notify::Notifications;
use scenic_runtime::ring::{Consumer, Producer, RingLayout};
use scenic_runtime::state::{Journal, JournalAction, JournalEntry, StateDir, JOURNAL_FORMAT};
use scenic_runtime::{Device, Region};
use scenic_scu_abi::control::{Op, Request};

const K: u8 = 0;

fn ring(base: u64, entries: u32, bytes: u64, prod: u64, cons: u64) -> RingLayout {
    RingLayout {
        base: slot_block(K).unwrap() + base,
        entries,
        entry_bytes: bytes,
        prod_reg: slot_block(K).unwrap() + prod,
        cons_reg: slot_block(K).unwrap() + cons,
    }
}

fn requests() -> RingLayout {
    ring(
        slot::CQ_REQ_RING,
        CQ_ENTRIES,
        CQ_ENTRY_BYTES,
        slot::CQ_REQ_PROD,
        slot::CQ_REQ_CONS,
    )
}

fn responses() -> RingLayout {
    ring(
        slot::CQ_RSP_RING,
        CQ_ENTRIES,
        CQ_ENTRY_BYTES,
        slot::CQ_RSP_PROD,
        slot::CQ_RSP_CONS,
    )
}

/// Answers a request: `CounterRead` with device status `DS_NO_BANK`, everything else `Ok` with the
/// request's index + 1 as data.
fn answer(req: &ControlEntry) -> ControlEntry {
    if req.op == Op::CounterRead as u8 {
        return ControlEntry::new(
            DeviceStatus::NoBank.number(),
            req.flags,
            req.target,
            req.index,
            req.tag,
        );
    }
    ControlEntry::new(0, req.flags, req.target, req.index, req.tag)
        .with_data(&[u64::from(req.index) + 1, 0])
        .unwrap()
}

struct Scripted {
    path: std::path::PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Scripted {
    fn start() -> Scripted {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map");
        let server = EmuServer::create_path(&path, EmuConfig::default()).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let s = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut beat = server.heartbeat();
            let region: Arc<Region> = server.shared_region();
            let mut take = Consumer::attach(&region, requests()).unwrap();
            let mut give = Producer::attach(&region, responses()).unwrap();
            let mut raw = [0u8; CQ_ENTRY_BYTES as usize];
            while !s.load(Ordering::Acquire) {
                beat.beat().unwrap();
                while give.free(&region).unwrap() > 0 && take.pop(&region, &mut raw).unwrap() {
                    let req = ControlEntry::decode(&raw);
                    assert!(give.push(&region, &answer(&req).encode()).unwrap());
                }
                std::thread::sleep(Duration::from_micros(100));
            }
            drop(server);
        });
        Scripted {
            path,
            stop,
            thread: Some(thread),
            _dir: dir,
        }
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn request(op: Op, index: u32) -> Request {
    Request {
        op,
        target: 3,
        index,
        data: BigUint::default(),
    }
}

#[test]
fn calls_get_their_own_response_in_order() {
    let dev_side = Scripted::start();
    let dev = Device::open_path(&dev_side.path).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::at(tmp.path()).unwrap();
    let q = ControlQueue::new(&dev, K, state.clone()).unwrap();
    for i in 0..200u32 {
        let r = q.call(i % 2 == 1, &request(Op::CsrRead, i), 128).unwrap();
        assert_eq!(r.status, 0);
        assert_eq!(r.data, BigUint::from(i + 1), "response {i}");
    }
    // A client that died after pushing a request left its response behind: it is skipped.
    let mut stale = Producer::attach(dev.region(), requests()).unwrap();
    let e = ControlEntry::new(Op::CsrRead as u8, 0, 0, 77, 0xDEAD)
        .with_data(&[0, 0])
        .unwrap();
    assert!(stale.push(dev.region(), &e.encode()).unwrap());
    std::thread::sleep(Duration::from_millis(5));
    let r = q.call(false, &request(Op::CsrRead, 5), 128).unwrap();
    assert_eq!(
        r.data,
        BigUint::from(6u32),
        "our answer, not the stale one (78)"
    );
    // A device status is a typed error.
    let err = q
        .call(false, &request(Op::CounterRead, 1), 128)
        .unwrap_err();
    assert!(
        matches!(
            err,
            ControlError::Device {
                slot: 0,
                status: DeviceStatus::NoBank
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("DS_NO_BANK (0x80)"), "{err}");
    // Data wider than D is refused before anything is written.
    let before = dev
        .read(slot_block(K).unwrap() + slot::CQ_REQ_PROD)
        .unwrap();
    let mut wide = request(Op::CsrWrite, 0);
    wide.data = BigUint::from(1u32) << 128usize;
    assert!(matches!(
        q.call(false, &wide, 128),
        Err(ControlError::TooWide { .. })
    ));
    assert_eq!(
        dev.read(slot_block(K).unwrap() + slot::CQ_REQ_PROD)
            .unwrap(),
        before
    );
}

#[test]
fn two_clients_take_turns_on_one_slot() {
    let dev_side = Scripted::start();
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::at(tmp.path()).unwrap();
    std::thread::scope(|s| {
        for t in 0..3u32 {
            let (path, state) = (&dev_side.path, state.clone());
            s.spawn(move || {
                // Each thread its own Device and queue: separate lock files descriptors, as two
                // processes would have.
                let dev = Device::open_path(path).unwrap();
                let q = ControlQueue::new(&dev, K, state).unwrap();
                for i in 0..100u32 {
                    let index = t * 1000 + i;
                    let r = q.call(false, &request(Op::CsrRead, index), 128).unwrap();
                    assert_eq!(r.data, BigUint::from(index + 1));
                }
            });
        }
    });
}

#[test]
fn notification_gaps_are_loss() {
    let dev_side = Scripted::start();
    let dev = Device::open_path(&dev_side.path).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::at(tmp.path()).unwrap();
    let layout = ring(
        slot::NQ_RING,
        NQ_ENTRIES,
        NQ_ENTRY_BYTES,
        slot::NQ_PROD,
        slot::NQ_CONS,
    );
    let mut device = Producer::attach(dev.region(), layout).unwrap();
    let mut ring = Notifications::new(&dev, K, state.clone()).unwrap();
    assert!(ring.poll(16).unwrap().is_empty());
    assert!(ring.wait(Duration::from_millis(5), 16).unwrap().is_empty());
    for seq in [10u64, 11, 12, 15, 16] {
        let n = Notification {
            time_ns: seq * 1000,
            slot: K,
            target: 1,
            bank: 0,
            flags: 0,
            value: seq as u32,
            seq,
        };
        assert!(device.push(dev.region(), &n.encode()).unwrap());
    }
    let got = ring.wait(Duration::from_millis(100), 3).unwrap();
    let seqs: Vec<(u64, u64)> = got.iter().map(|e| (e.record.seq, e.lost_before)).collect();
    assert_eq!(
        seqs,
        vec![(10, 0), (11, 0), (12, 0)],
        "at most `max`, the first without a gap"
    );
    let got = ring.poll(16).unwrap();
    let seqs: Vec<(u64, u64)> = got.iter().map(|e| (e.record.seq, e.lost_before)).collect();
    assert_eq!(seqs, vec![(15, 2), (16, 0)]);
    assert_eq!(got[0].record.value, 15);
}

#[test]
fn the_journal_round_trips_and_refuses_damage() {
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::at(tmp.path().join("emu0")).unwrap();
    assert_eq!(state.read_journal(3).unwrap(), None);
    state
        .update_journal(3, |_| panic!("no journal: nothing to update"))
        .unwrap();
    assert!(!state.journal_path(3).exists());
    let mut journal = Journal {
        format_version: JOURNAL_FORMAT,
        package: "/abs/out/firewall".into(),
        kind: "scu".into(),
        unit: "incast_firewall".into(),
        index: 0,
        source_sha256: "e3".repeat(32),
        bank: 1,
        tables: Default::default(),
    };
    state.write_journal(3, &journal).unwrap();
    assert_eq!(state.read_journal(3).unwrap().as_ref(), Some(&journal));
    let entry = JournalEntry {
        handle: 7,
        keys: vec!["10.0.0.2/32".into(), "_".into(), "_".into(), "_".into()],
        action: JournalAction {
            action: "deny".into(),
            args: vec![],
        },
        priority: 0,
    };
    state
        .update_journal(3, |j| j.table("acl").entries.push(entry.clone()))
        .unwrap();
    journal.table("acl").entries.push(entry);
    assert_eq!(state.read_journal(3).unwrap().as_ref(), Some(&journal));
    state
        .update_journal(3, |j| j.table("acl").entries.retain(|e| e.handle != 7))
        .unwrap();
    assert!(state.read_journal(3).unwrap().unwrap().tables["acl"]
        .entries
        .is_empty());
    std::fs::write(state.journal_path(3), "{ not json").unwrap();
    let err = state.read_journal(3).unwrap_err().to_string();
    assert!(
        err.contains("slot3.json") && err.contains("not a slot journal"),
        "{err}"
    );
    let text = serde_json::to_string(&Journal {
        format_version: 9,
        ..journal
    })
    .unwrap();
    std::fs::write(state.journal_path(3), text).unwrap();
    let err = state.read_journal(3).unwrap_err().to_string();
    assert!(err.contains("format_version 9"), "{err}");
    assert_eq!(
        scenic_runtime::state::device_name(std::path::Path::new("/dev/shm/scenic-emu0")),
        "emu0"
    );
}
