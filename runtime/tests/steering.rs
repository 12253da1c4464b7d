//! Steering from the host (device.md §2.3) against the emulated device's datapath: entries added,
//! found, listed and removed; the device's refusals (`E_STEER_DUP`, `E_STEER_SLOT`,
//! `E_STEER_KIND`) leave the tables unchanged; the flow id the runtime computes for a connection is
//! the one the prefilter computes for its packets, so those packets are steered to the slot.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use scenic_runtime::abi::codes::Code;
use scenic_runtime::abi::{global, slot, slot_block};
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::net::{Datapath, DatapathConfig, FrameIo};
use scenic_runtime::steering::{self, SteerError, SteerTable};
use scenic_runtime::Device;

/// A port the test feeds frames into.
struct Feed(Arc<Mutex<Vec<Vec<u8>>>>);

impl FrameIo for Feed {
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let mut q = self.0.lock().unwrap();
        if q.is_empty() {
            return Ok(None);
        }
        let f = q.remove(0);
        buf[..f.len()].copy_from_slice(&f);
        Ok(Some(f.len()))
    }
    fn send(&mut self, _frame: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

fn tcp_frame(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16) -> Vec<u8> {
    let mut f = vec![0u8; 14 + 20 + 20];
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    f[14] = 0x45;
    f[16..18].copy_from_slice(&40u16.to_be_bytes());
    f[22] = 64;
    f[23] = 6;
    f[26..30].copy_from_slice(&src);
    f[30..34].copy_from_slice(&dst);
    f[34..36].copy_from_slice(&sport.to_be_bytes());
    f[36..38].copy_from_slice(&dport.to_be_bytes());
    f[46] = 5 << 4;
    f
}

struct Rig {
    dev: Device,
    feed: Arc<Mutex<Vec<Vec<u8>>>>,
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for Rig {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn rig() -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map");
    let config = EmuConfig {
        scu_slots: 2,
        ..EmuConfig::default()
    };
    let mut server = EmuServer::create_path(&path, config).unwrap();
    server.enable_models();
    let feed = Arc::new(Mutex::new(Vec::new()));
    let mut datapath = Datapath::new(
        server.shared_region(),
        DatapathConfig {
            scu_slots: 2,
            ..DatapathConfig::default()
        },
        vec![Box::new(Feed(feed.clone()))],
        Box::new(Feed(Arc::new(Mutex::new(Vec::new())))),
        server.reset_generation(),
    );
    server.set_fence_gate(datapath.fence_gate());
    let stop = Arc::new(AtomicBool::new(false));
    let (s1, s2) = (stop.clone(), stop.clone());
    let threads = vec![
        std::thread::spawn(move || {
            let freeze = AtomicBool::new(false);
            server.run(&s1, &freeze).unwrap()
        }),
        std::thread::spawn(move || datapath.run(&s2).unwrap()),
    ];
    let dev = Device::open_path(&path).unwrap();
    Rig {
        dev,
        feed,
        stop,
        threads,
        _dir: dir,
    }
}

fn refused(e: SteerError) -> Option<Code> {
    match e {
        SteerError::Device(d) => d.code(),
        SteerError::SlowPathKept { .. } => Some(Code::SteerSlot),
    }
}

#[test]
fn entries_are_added_found_listed_and_removed() {
    let r = rig();
    let dev = &r.dev;
    let i = steering::add(dev, SteerTable::Roce, 0x12_3456, 1).unwrap();
    assert_eq!(i, 0x12_3456 % 4096, "a key's home index");
    let e = steering::lookup(dev, SteerTable::Roce, 0x12_3456)
        .unwrap()
        .unwrap();
    assert_eq!((e.key, e.slot, e.index), (0x12_3456, 1, i));
    // A second key with the same home index takes the next free one.
    let j = steering::add(dev, SteerTable::Roce, 0x12_3456 + 4096, 0).unwrap();
    assert_eq!(j, (i + 1) % 4096);
    // Refusals leave the table as it was.
    let dup = steering::add(dev, SteerTable::Roce, 0x12_3456, 0).unwrap_err();
    assert_eq!(refused(dup), Some(Code::SteerDup));
    let bad_slot = steering::add(dev, SteerTable::Tcp, 7, 9).unwrap_err();
    assert_eq!(refused(bad_slot), Some(Code::SteerSlot));
    let listed = steering::list(dev, SteerTable::Roce).unwrap();
    assert_eq!(listed.len(), 2);
    assert!(steering::list(dev, SteerTable::Tcp).unwrap().is_empty());
    assert!(steering::remove(dev, SteerTable::Roce, 0x12_3456).unwrap());
    assert!(!steering::remove(dev, SteerTable::Roce, 0x12_3456).unwrap());
    assert_eq!(
        steering::lookup(dev, SteerTable::Roce, 0x12_3456).unwrap(),
        None
    );
    steering::clear(dev, SteerTable::Roce).unwrap();
    assert!(steering::list(dev, SteerTable::Roce).unwrap().is_empty());
    // The slow path: an SCU slot, none, and a refused slot that leaves the register as it was.
    steering::set_slow_path(dev, Some(1)).unwrap();
    let kept = steering::set_slow_path(dev, Some(5)).unwrap_err();
    assert_eq!(refused(kept), Some(Code::SteerSlot));
    assert_eq!(dev.read(global::SLOW_PATH_SLOT).unwrap(), 1);
    steering::set_slow_path(dev, None).unwrap();
}

#[test]
fn a_connection_steered_by_its_addresses_reaches_its_slot() {
    let r = rig();
    let dev = &r.dev;
    let (a, b) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
    let flow = steering::tcp_flow_id((IpAddr::V4(a), 40000), (IpAddr::V4(b), 80)).unwrap();
    steering::add(dev, SteerTable::Tcp, flow, 1).unwrap();
    dev.fence().unwrap();
    // Slot 1 has no unit: its steered packets are passed on and counted in DROP_NO_UNIT (§3.2).
    let base = slot_block(1).unwrap();
    let before = dev.read(base + slot::DROP_NO_UNIT).unwrap();
    {
        let mut q = r.feed.lock().unwrap();
        for _ in 0..5 {
            q.push(tcp_frame(a.octets(), 40000, b.octets(), 80));
        }
        // The reverse direction is another flow id: not steered.
        q.push(tcp_frame(b.octets(), 80, a.octets(), 40000));
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while dev.read(base + slot::DROP_NO_UNIT).unwrap() < before + 5 {
        assert!(
            std::time::Instant::now() < until,
            "the connection's packets were not steered"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    dev.fence().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(dev.read(base + slot::DROP_NO_UNIT).unwrap(), before + 5);
    // An rdma unit in slot 1 (xor_cipher.sn is `on rdma(qp)`): TCP steering to it is refused.
    common::load_example(dev, 1, "xor_cipher");
    let kind = steering::add(dev, SteerTable::Tcp, flow ^ 1, 1).unwrap_err();
    assert_eq!(refused(kind), Some(Code::SteerKind));
    steering::add(dev, SteerTable::Roce, 77, 1).unwrap();
}
