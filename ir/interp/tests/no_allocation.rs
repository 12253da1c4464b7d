//! Steady state allocates nothing: a caller that reuses one outcome
//! (`Machine::process_packet_into`) and empties the machine's notification log per packet, as
//! `scenicc sim` does, runs packets with no allocation once the program's state has warmed up.
//! Checked for the slow-path examples (tables of every kind, maps, meters, counters, CSRs, `hash`)
//! and for a program that notifies at every packet, over packets of the shared generator
//! (`common::packet`: Ethernet with IPv4/IPv6/ARP, TCP/UDP, truncated anywhere).
//!
//! The exception, documented in docs/interpreter.md: a value wider than 128 bits keeps its words on
//! the heap, so `flow_monitor`'s `hash::crc32(ip6.src ++ ip6.dst ++ ports)` (296 bits) allocates
//! for IPv6 packets; it runs here on the others.
//!
//! A counting global allocator counts every thread's allocations, so this binary holds one test
//! (no other test runs beside it).

// The one exception to the workspace's `unsafe_code = "deny"` here: a global allocator must
// implement the unsafe `GlobalAlloc`; this one only counts and forwards to the system's.
#![allow(unsafe_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use scenic_interp::{Machine, PacketOutcome};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, i.e. from the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as for `dealloc`.
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// An scu that counts and notifies at every packet.
const NOTIFIER: &str = "
use std::net::{ethernet};
scu notifier on slow_path {
    csr seen: bit<32>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { seen += 1; notify(arm, seen); }
}
";

/// Runs `packets` twice through the first scu of `module` to warm up, then again, counting
/// allocations; virtual time moves 10 ns per packet (no `every` block comes due: their runs may
/// allocate, as the first packets do).
fn allocations_in_steady_state(module: &scenic_ir::Module, packets: &[Vec<u8>]) -> u64 {
    let mut machine = Machine::new(module);
    let scu = module.scus.keys().next().expect("an scu");
    let mut outcome = PacketOutcome::default();
    let mut ts = 1_000_000_000u64;
    let mut run = |machine: &mut Machine<'_>, outcome: &mut PacketOutcome| {
        for p in packets {
            machine.process_packet_into(scu, p, 0, ts, outcome);
            machine.notifications.clear();
            ts += 10;
        }
    };
    run(&mut machine, &mut outcome);
    run(&mut machine, &mut outcome);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    run(&mut machine, &mut outcome);
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

#[test]
fn no_allocation_per_packet_in_steady_state() {
    let mut rng = common::Rng::new(0xa110c);
    let packets: Vec<Vec<u8>> = (0..400).map(|_| common::packet(&mut rng)).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut programs = vec![("notifier.sn".to_string(), {
        let mut session = scenic_frontend::Session::new();
        session.add_source("notifier.sn", NOTIFIER);
        scenic_lower::lower_session(&mut session).unwrap()
    })];
    for name in ["firewall.sn", "flow_monitor.sn", "l3_router.sn"] {
        programs.push((name.to_string(), common::lower(&root.join(name)).unwrap()));
    }
    let is_ipv6 = |p: &Vec<u8>| p.get(12..14) == Some(&[0x86, 0xdd][..]);
    let not_ipv6: Vec<Vec<u8>> = packets.iter().filter(|p| !is_ipv6(p)).cloned().collect();
    assert!(not_ipv6.len() >= 200 && not_ipv6.len() < packets.len());
    let mut seen = Vec::new();
    for (name, module) in &programs {
        let packets = if name == "flow_monitor.sn" {
            &not_ipv6
        } else {
            &packets
        };
        seen.push((name.clone(), allocations_in_steady_state(module, packets)));
    }
    let expected: Vec<(String, u64)> = programs.iter().map(|(n, _)| (n.clone(), 0)).collect();
    assert_eq!(seen, expected, "allocations over {} packets", packets.len());
}
