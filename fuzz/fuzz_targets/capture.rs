//! Feeds arbitrary bytes as a capture file: the pcap/pcapng reader must return records or a clear
//! error, never panic, never hang, never hand out a record that points outside the input; what it
//! reads is then run through `l3_router` as `scenicc sim` would.

#![no_main]

#[path = "examples.rs"]
mod examples;

use libfuzzer_sys::fuzz_target;
use scenic_ir::sim::capture::{simulate, SimOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(records) = scenic_ir::io::read_all(data) else {
        return;
    };
    let range = data.as_ptr_range();
    for record in &records {
        let inner = record.data.as_ptr_range();
        assert!(record.data.is_empty() || (range.start <= inner.start && inner.end <= range.end));
    }
    let Some((_, router)) = examples::modules().iter().find(|(n, _)| *n == "l3_router.sn") else {
        return;
    };
    let packets = records.iter().map(|r| (r.ts_ns, r.data));
    let result = simulate(router, packets, None, &[], &SimOptions::default());
    assert!(result.is_ok());
});
