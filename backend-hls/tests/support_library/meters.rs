//! Meters against the interpreter's `Bucket`, and counters against the interpreter's counting
//! rule (ir/interp/src/effects.rs `count`: +1 packet unless bytes-only, +len bytes unless
//! packets-only, a cell out of range is ignored) on its `CounterCell`.
//!
//! Host configuration of a bucket is `Bucket::new(Some(rate), Some(burst))` (full, no last time),
//! as scenic_meter.hpp documents; `Bucket`'s token count is private, so reads compare the
//! configuration only.

use super::harness::{self, Rng, Toolchain};
use scenic_interp::runtime::CounterCell;
use scenic_interp::state::Bucket;

/// (id, cells, rate, burst) of tests/cpp/meter_counter_driver.cpp's METERS.
const METERS: &[(u32, usize, Option<u64>, u64)] = &[
    (0, 4, Some(1_000_000_000), 64),
    (1, 64, Some(10_000_000_000), 262_144),
    (2, 4, None, 0),
    (3, 2, Some(1_000_000_000), 0),
    (4, 32, Some(400_000_000_000), 9000),
    (5, 1, Some(8), 1),
    (6, 20, None, 1500),
];

/// (id, cells, counts packets, counts bytes) of its COUNTERS.
const COUNTERS: &[(u32, usize, bool, bool)] = &[
    (0, 1, true, true),
    (1, 16, true, false),
    (2, 256, false, true),
    (3, 1000, true, true),
    (4, 17, true, true),
];

struct Lines {
    ops: Vec<String>,
    expected: Vec<String>,
    /// Compare only the first `n` words of a line (reads of meters).
    words: Vec<usize>,
}

impl Lines {
    fn push(&mut self, op: String, expected: String, words: usize) {
        self.ops.push(op);
        self.expected.push(expected);
        self.words.push(words);
    }
}

fn meter_read(cells: &[Bucket], i: usize) -> String {
    match cells.get(i) {
        Some(b) => format!(
            "1 {} {:x} {:x}",
            u8::from(b.rate.is_some()),
            b.rate.unwrap_or(0),
            b.burst
        ),
        None => "0 0 0 0".into(),
    }
}

/// The edge cases named in the issue: 47 ns vs 48 ns after emptying a 1 Gb/s, 64 B bucket (a
/// 6-byte packet needs 48 ns of refill: 48 ns · 1e9 bit/s = 6 bytes), a packet as large as the
/// burst, zero-length packets, time standing still and going backwards.
fn boundary_ops() -> Vec<(u32, usize, u64, u64)> {
    vec![
        (0, 0, 64, 1000), // the full bucket: 64 tokens, all taken
        (0, 0, 6, 1047),  // 47 ns later: 5.875 bytes, over
        (0, 0, 6, 1048),  // 48 ns: exactly 6, conforms, bucket empty again
        (0, 0, 1, 1048),
        (0, 0, 0, 1048), // zero bytes always conform
        (0, 1, 65, 0),   // more than the burst, from a full bucket
        (0, 1, 64, 0),
        (0, 1, 1, 7), // 7 ns: 0.875 bytes
        (0, 1, 1, 8),
        (0, 1, 1, 4), // time going backwards refills nothing
        (0, 1, 1, 16),
        (3, 0, 0, 5), // burst 0: only empty packets conform
        (3, 0, 1, 5),
        (3, 0, 1, 1_000_000_000),
        (5, 0, 1, 0), // 8 bit/s: one byte per second
        (5, 0, 1, 999_999_999),
        (5, 0, 1, 1_999_999_999),
        (5, 0, 1, 2_000_000_000),
        (2, 3, 65535, 0), // unconfigured: never exceeds
        (6, 19, 65535, 0),
        (0, 4, 1, 0), // index out of range: never exceeds
    ]
}

/// Runs meters and counters; returns the number of operations compared.
pub fn run(tc: &Toolchain, seed: u64, random_ops: usize) -> usize {
    let driver = tc.driver("meter_counter_driver", "c++14");
    let mut rng = Rng::new(seed);
    let mut lines = Lines {
        ops: Vec::new(),
        expected: Vec::new(),
        words: Vec::new(),
    };
    let mut meters: Vec<Vec<Bucket>> = METERS
        .iter()
        .map(|&(_, n, rate, burst)| (0..n).map(|_| Bucket::new(rate, Some(burst))).collect())
        .collect();
    let bit = |b: bool| if b { "1" } else { "0" }.to_string();
    for (id, i, len, now) in boundary_ops() {
        let exceeded = meters[id as usize]
            .get_mut(i)
            .is_some_and(|b| b.exceeds(len, now));
        lines.push(format!("m {id} e {i} {len} {now}"), bit(exceeded), 1);
    }
    // Random: per meter a clock that mostly advances, packets of 0..1600 bytes (sometimes up to
    // 64 KiB), host reconfiguration now and then.
    let mut clocks: Vec<u64> = METERS.iter().map(|_| rng.below(1 << 40)).collect();
    for step in 0..random_ops {
        let m = rng.below(METERS.len() as u64) as usize;
        let (id, n, _, _) = METERS[m];
        let i = if rng.below(50) == 0 {
            n + rng.below(3) as usize // out of range now and then
        } else {
            rng.below(n as u64) as usize
        };
        clocks[m] = match rng.below(100) {
            0..=4 => clocks[m].saturating_sub(rng.below(500)),
            5..=9 => clocks[m],
            10..=12 => clocks[m] + rng.below(1 << 30),
            _ => clocks[m] + rng.below(2000),
        };
        let now = clocks[m];
        match rng.below(1000) {
            0..=9 => {
                let rate = match rng.below(4) {
                    0 => rng.below(1000),
                    1 => rng.below(1 << 40),
                    _ => 1_000_000 + rng.below(400_000_000_000),
                };
                let burst = match rng.below(4) {
                    0 => rng.below(4),
                    1 => rng.below(1 << 40),
                    _ => rng.below(1 << 20),
                };
                if let Some(b) = meters[m].get_mut(i) {
                    *b = Bucket::new(Some(rate), Some(burst));
                }
                lines.push(format!("m {id} c {i} {rate} {burst}"), "ok".into(), 1);
            }
            10..=11 => {
                if let Some(b) = meters[m].get_mut(i) {
                    *b = Bucket::new(None, None);
                }
                lines.push(format!("m {id} u {i}"), "ok".into(), 1);
            }
            12..=40 => lines.push(format!("m {id} R {i}"), meter_read(&meters[m], i), 4),
            41 if step % 7 == 0 => {
                let (_, _, rate, burst) = METERS[m];
                for b in meters[m].iter_mut() {
                    *b = Bucket::new(rate, Some(burst));
                }
                lines.push(format!("m {id} z"), "ok".into(), 1);
            }
            _ => {
                let len = match rng.below(20) {
                    0 => 0,
                    1 => rng.below(1 << 16),
                    _ => rng.below(1600),
                };
                let exceeded = meters[m].get_mut(i).is_some_and(|b| b.exceeds(len, now));
                lines.push(format!("m {id} e {i} {len} {now}"), bit(exceeded), 1);
            }
        }
    }
    let mut counters: Vec<Vec<CounterCell>> = COUNTERS
        .iter()
        .map(|&(_, n, _, _)| vec![CounterCell::default(); n])
        .collect();
    for _ in 0..random_ops {
        let c = rng.below(COUNTERS.len() as u64) as usize;
        let (id, n, packets, bytes) = COUNTERS[c];
        let i = if rng.below(40) == 0 {
            n + rng.below(2) as usize
        } else {
            rng.below(n as u64) as usize
        };
        match rng.below(100) {
            0..=69 => {
                let len = if rng.below(10) == 0 {
                    rng.below(1 << 16)
                } else {
                    rng.below(1600)
                };
                if let Some(cell) = counters[c].get_mut(i) {
                    if packets {
                        cell.packets += 1;
                    }
                    if bytes {
                        cell.bytes += len;
                    }
                }
                lines.push(format!("k {id} n {i} {len}"), "ok".into(), 1);
            }
            70..=94 => {
                let want = counters[c].get(i).map_or("0 0 0".into(), |cell| {
                    format!("1 {:x} {:x}", cell.packets, cell.bytes)
                });
                lines.push(format!("k {id} R {i}"), want, 3);
            }
            95..=98 => {
                if let Some(cell) = counters[c].get_mut(i) {
                    *cell = CounterCell::default();
                }
                lines.push(format!("k {id} x {i}"), "ok".into(), 1);
            }
            _ => {
                counters[c]
                    .iter_mut()
                    .for_each(|cell| *cell = CounterCell::default());
                lines.push(format!("k {id} z"), "ok".into(), 1);
            }
        }
    }
    // Every cell at the end.
    for (cells, &(id, _, _, _)) in counters.iter().zip(COUNTERS) {
        for (i, cell) in cells.iter().enumerate() {
            lines.push(
                format!("k {id} R {i}"),
                format!("1 {:x} {:x}", cell.packets, cell.bytes),
                3,
            );
        }
    }
    let got = harness::run(&driver, &(lines.ops.join("\n") + "\n"));
    let got: Vec<String> = got
        .iter()
        .zip(&lines.words)
        .map(|(line, &n)| line.split(' ').take(n).collect::<Vec<_>>().join(" "))
        .collect();
    harness::compare("meters and counters", &lines.ops, &lines.expected, &got);
    lines.ops.len()
}
