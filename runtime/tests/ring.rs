//! Property tests of the ring protocol (`docs/device.md` §1.4): free-running 32-bit indices,
//! empty when `prod == cons`, full when `prod − cons == N`, entry `i` at `base + (i mod N) × size`.
//! Random interleavings come from a seeded RNG, so a failure names the seed that reproduces it.

// A test binary: a failed unwrap in a helper is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use scenic_runtime::ring::{occupancy, Consumer, Producer, RingError, RingLayout};
use scenic_runtime::Region;

/// The repository's one PRNG, to pick operations.
struct Rng(scenic_ir::rng::SplitMix64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }
}

const PROD: u64 = 0x0;
const CONS: u64 = 0x8;
const BASE: u64 = 0x100;

fn map() -> (tempfile::TempDir, Region) {
    let dir = tempfile::tempdir().unwrap();
    let region = Region::create(&dir.path().join("ring"), 1 << 20).unwrap();
    (dir, region)
}

fn layout(entries: u32, entry_bytes: u64) -> RingLayout {
    RingLayout {
        base: BASE,
        entries,
        entry_bytes,
        prod_reg: PROD,
        cons_reg: CONS,
    }
}

fn start_at(region: &Region, index: u32) {
    region
        .store(PROD, u64::from(index), Ordering::Relaxed)
        .unwrap();
    region
        .store(CONS, u64::from(index), Ordering::Relaxed)
        .unwrap();
}

fn entry(tag: u64, size: u64) -> Vec<u8> {
    (0..size)
        .map(|i| (tag.wrapping_mul(31).wrapping_add(i) & 0xFF) as u8)
        .collect()
}

#[test]
fn indices_wrap_around_2_pow_32() {
    let (_d, r) = map();
    start_at(&r, u32::MAX - 5);
    let l = layout(8, 16);
    let mut p = Producer::attach(&r, l).unwrap();
    let mut c = Consumer::attach(&r, l).unwrap();
    let mut out = vec![0u8; 16];
    for n in 0..40u64 {
        assert!(p.push(&r, &entry(n, 16)).unwrap());
        assert!(c.pop(&r, &mut out).unwrap());
        assert_eq!(out, entry(n, 16));
    }
    assert_eq!(p.index(), (u32::MAX - 5).wrapping_add(40));
    assert_eq!(
        r.load(PROD, Ordering::Relaxed).unwrap(),
        34,
        "bits 32..64 stay 0"
    );
    assert_eq!(r.load(CONS, Ordering::Relaxed).unwrap(), 34);
    // Entry `i` sits at `base + (i mod N) × size`: index 34 → slot 2.
    assert_eq!(l.entry_offset(34), BASE + 2 * 16);
    assert_eq!(l.entry_offset(u32::MAX), BASE + 7 * 16);
}

#[test]
fn full_and_empty_are_distinct_without_a_wasted_entry() {
    let (_d, r) = map();
    start_at(&r, u32::MAX - 2);
    let l = layout(8, 32);
    let mut p = Producer::attach(&r, l).unwrap();
    let mut c = Consumer::attach(&r, l).unwrap();
    let mut out = vec![0u8; 32];
    assert!(!c.pop(&r, &mut out).unwrap(), "empty: prod == cons");
    for n in 0..8 {
        assert!(p.push(&r, &entry(n, 32)).unwrap(), "entry {n} fits");
    }
    assert_eq!(p.free(&r).unwrap(), 0);
    assert!(
        !p.push(&r, &entry(99, 32)).unwrap(),
        "full: prod − cons == N"
    );
    assert_eq!(c.ready(&r).unwrap(), 8);
    for n in 0..8 {
        assert!(c.pop(&r, &mut out).unwrap());
        assert_eq!(out, entry(n, 32));
    }
    assert!(!c.pop(&r, &mut out).unwrap());
}

#[test]
fn random_interleavings_match_a_queue_model() {
    for seed in 0..200u64 {
        let mut rng = Rng(scenic_ir::rng::SplitMix64::new(seed));
        let (_d, r) = map();
        let entries = 1u32 << rng.below(7);
        let size = [8u64, 13, 32, 256][rng.below(4) as usize];
        let start = if rng.below(2) == 0 {
            u32::MAX - rng.below(300) as u32
        } else {
            rng.0.next_u64() as u32
        };
        start_at(&r, start);
        let l = layout(entries, size);
        let mut p = Producer::attach(&r, l).unwrap();
        let mut c = Consumer::attach(&r, l).unwrap();
        let mut model = VecDeque::new();
        let mut out = vec![0u8; size as usize];
        for step in 0..2_000u64 {
            if rng.below(2) == 0 {
                let pushed = p.push(&r, &entry(step, size)).unwrap();
                assert_eq!(
                    pushed,
                    model.len() < entries as usize,
                    "seed {seed} step {step}"
                );
                if pushed {
                    model.push_back(step);
                }
            } else {
                let popped = c.pop(&r, &mut out).unwrap();
                assert_eq!(popped, !model.is_empty(), "seed {seed} step {step}");
                if popped {
                    assert_eq!(
                        out,
                        entry(model.pop_front().unwrap(), size),
                        "seed {seed} step {step}"
                    );
                }
            }
            assert_eq!(
                c.ready(&r).unwrap() as usize,
                model.len(),
                "seed {seed} step {step}"
            );
        }
    }
}

#[test]
fn overrun_and_bad_registers_are_errors() {
    assert_eq!(occupancy(10, 2, 8).unwrap(), 8);
    assert!(matches!(
        occupancy(11, 2, 8),
        Err(RingError::Overrun {
            prod: 11,
            cons: 2,
            entries: 8
        })
    ));
    assert!(
        matches!(occupancy(1, 2, 8), Err(RingError::Overrun { .. })),
        "an index behind"
    );
    assert_eq!(
        occupancy(3, u32::MAX - 4, 8).unwrap(),
        8,
        "full across the wrap"
    );
    let (_d, r) = map();
    let l = layout(8, 8);
    let mut c = Consumer::attach(&r, l).unwrap();
    r.store(PROD, 9, Ordering::Relaxed).unwrap();
    assert!(matches!(
        c.pop(&r, &mut [0u8; 8]),
        Err(RingError::Overrun { .. })
    ));
    assert_eq!(
        r.load(CONS, Ordering::Relaxed).unwrap(),
        0,
        "nothing consumed"
    );
    r.store(PROD, 1 << 32, Ordering::Relaxed).unwrap();
    assert!(matches!(c.ready(&r), Err(RingError::HighBits { .. })));
    r.store(PROD, 0, Ordering::Relaxed).unwrap();
    let mut p = Producer::attach(&r, l).unwrap();
    assert!(matches!(
        p.push(&r, &[0u8; 7]),
        Err(RingError::EntrySize {
            expected: 8,
            actual: 7
        })
    ));
    assert!(matches!(
        c.pop(&r, &mut [0u8; 9]),
        Err(RingError::EntrySize { .. })
    ));
    assert!(matches!(
        Producer::attach(&r, layout(6, 8)),
        Err(RingError::Layout(_))
    ));
    assert!(matches!(
        Consumer::attach(&r, layout(0, 8)),
        Err(RingError::Layout(_))
    ));
    assert!(matches!(
        Consumer::attach(&r, layout(8, 0)),
        Err(RingError::Layout(_))
    ));
    let outside = RingLayout {
        base: (1 << 20) - 8,
        ..layout(8, 8)
    };
    let mut p = Producer::attach(&r, outside).unwrap();
    p.push(&r, &[1u8; 8]).unwrap();
    assert!(
        matches!(p.push(&r, &[1u8; 8]), Err(RingError::Region(_))),
        "entry past the map"
    );
}

#[test]
fn a_consumer_in_another_thread_sees_every_entry_in_order_across_the_wrap() {
    let (_d, r) = map();
    start_at(&r, u32::MAX - 1000);
    let r = Arc::new(r);
    let l = layout(64, 32);
    const COUNT: u64 = 200_000;
    let consumer = {
        let r = Arc::clone(&r);
        std::thread::spawn(move || {
            let mut c = Consumer::attach(&r, l).unwrap();
            let mut out = [0u8; 32];
            let mut next = 0u64;
            while next < COUNT {
                if c.pop(&r, &mut out).unwrap() {
                    let seq = u64::from_le_bytes(out[..8].try_into().unwrap());
                    let check = u64::from_le_bytes(out[24..].try_into().unwrap());
                    assert_eq!(
                        (seq, check),
                        (next, !next),
                        "entry {next} torn or out of order"
                    );
                    next += 1;
                } else {
                    std::hint::spin_loop();
                }
            }
            c.index()
        })
    };
    let mut p = Producer::attach(&r, l).unwrap();
    let mut buf = [0u8; 32];
    let mut n = 0u64;
    while n < COUNT {
        buf[..8].copy_from_slice(&n.to_le_bytes());
        buf[24..].copy_from_slice(&(!n).to_le_bytes());
        if p.push(&r, &buf).unwrap() {
            n += 1;
        } else {
            std::thread::yield_now();
        }
    }
    let end = consumer.join().unwrap();
    assert_eq!(end, (u32::MAX - 1000).wrapping_add(COUNT as u32));
}
