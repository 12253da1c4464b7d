//! Feeds arbitrary bytes as one packet (and, split at its first byte, as two) to every scu of every
//! example, with tracing on. The interpreter must never panic or hang on any packet: a packet that
//! ends inside a header takes the parser-reject path, and nothing past the end is ever read.

#![no_main]

#[path = "examples.rs"]
mod examples;

use libfuzzer_sys::fuzz_target;
use scenic_sim::capture::{simulate, SimOptions};

fuzz_target!(|data: &[u8]| {
    let split = data.first().map_or(0, |b| usize::from(*b)).min(data.len());
    let (first, second) = data.split_at(split);
    for (_, module) in examples::modules() {
        for scu in module.scus.values() {
            let options = SimOptions {
                scu: Some(scu.name.clone()),
                trace: true,
            };
            for packets in [vec![(0, data)], vec![(0, first), (1_000, second)]] {
                let result = simulate(module, packets, None, &[], &options);
                assert!(result.is_ok(), "setting up {} failed", scu.name);
            }
        }
    }
});
