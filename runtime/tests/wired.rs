//! `EmuThread::start_wired`: the emulated NIC with its datapath over in-process wires, so frames
//! reach a loaded unit without root. `examples/firewall.sn` in slot 0 with the slow path steered to
//! it (docs/device.md §2.3 `SLOW_PATH_SLOT`): its policy sends ARP and the IPv4 packets it lets
//! through to the host, and drops a denied one, counting it in the CSR `dropped` (its own source
//! says so). The frames are built here byte by byte (Ethernet II, IPv4 per RFC 791 with its header
//! checksum, UDP per RFC 768 with checksum 0, which IPv4 allows).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use scenic_runtime::abi::global;
use scenic_runtime::emu::thread::EmuThread;
use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, SlotHandle};
use support::TestPackage;

/// The RFC 1071 one's-complement sum of `bytes`, complemented.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// An Ethernet/IPv4/UDP frame from `src` to 10.0.0.1, UDP port 5000, `payload` bytes of 0xab.
fn udp_frame(src: [u8; 4], payload: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00];
    let total = (20 + 8 + payload) as u16;
    let mut ip = vec![0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0];
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&[10, 0, 0, 1]);
    let c = checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&4321u16.to_be_bytes());
    f.extend_from_slice(&5000u16.to_be_bytes());
    f.extend_from_slice(&((8 + payload) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend(std::iter::repeat_n(0xab, payload));
    f
}

#[test]
fn frames_on_a_wire_reach_the_unit_and_its_policy_decides() {
    let p = TestPackage::new("firewall");
    let dir = tempfile::tempdir().unwrap();
    let map = dir
        .path()
        .join(format!("scenic-wired-{}", std::process::id()));
    let mut emu = EmuThread::start_wired(&map, 1).unwrap();
    let dev = Arc::new(Device::open(map.to_str().unwrap()).unwrap());
    let state = StateDir::of(&dev).unwrap();
    let slot = SlotHandle::new(Arc::clone(&dev), state, 0).unwrap();
    slot.load(&p.dir, None).unwrap();
    dev.write(global::SLOW_PATH_SLOT, 0).unwrap();
    dev.fence().unwrap();

    let port = emu.port(0).unwrap();
    let host = emu.host().unwrap();
    let allowed = udp_frame([10, 1, 2, 3], 100);
    port.send(&allowed).unwrap();
    let got = host.recv(Duration::from_secs(5)).unwrap();
    assert_eq!(
        got.as_deref(),
        Some(&allowed[..]),
        "the allowed frame reaches the host as sent"
    );

    slot.with_scu(|s| s.table_add_text("acl", &["10.9.9.0/24", "_", "_", "_"], "deny", &[], None))
        .unwrap();
    port.send(&udp_frame([10, 9, 9, 7], 40)).unwrap();
    port.send(&allowed).unwrap();
    let next = host.recv(Duration::from_secs(5)).unwrap();
    assert_eq!(
        next.as_deref(),
        Some(&allowed[..]),
        "only the allowed frame comes out"
    );
    assert_eq!(host.recv(Duration::from_millis(50)).unwrap(), None);
    assert_eq!(slot.with_scu(|s| s.csr_get("dropped")).unwrap(), 1);
    assert_eq!(
        slot.completed("remote_write").unwrap(),
        3,
        "three inputs entered slot 0"
    );
    assert!(emu.port(1).is_none(), "one port was asked for");
    emu.stop();
}

#[test]
fn port_counts_outside_one_to_four_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for n in [0u8, 5] {
        let err = EmuThread::start_wired(&dir.path().join(format!("m{n}")), n).unwrap_err();
        assert!(err.to_string().contains("1 to 4"), "{err}");
    }
}
