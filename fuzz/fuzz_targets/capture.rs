//! Feeds arbitrary bytes as a capture file: the pcap/pcapng reader must return records or a clear
//! error, never panic, never hang, never hand out a record that points outside the input; what it
//! reads is then run through `l3_router` as `scenicc sim` would. The same bytes read piece by piece
//! (`io::stream`, with a buffer of 1 to 256 bytes told by the input's length) must give the same
//! records and the same error, message and offset.

#![no_main]

#[path = "examples.rs"]
mod examples;

use libfuzzer_sys::fuzz_target;
use scenic_sim::capture::{simulate, SimOptions};

/// Every record of `data`, or the error that ends it, as text: in memory and streamed.
fn both_ways(data: &[u8]) -> (Vec<String>, Vec<String>) {
    let show = |r: Result<&scenic_io::Record<'_>, &scenic_io::CaptureError>| match r {
        Ok(r) => format!(
            "{} {} {} {} {:?}",
            r.ts_ns, r.orig_len, r.link_type, r.interface, r.data
        ),
        Err(e) => e.to_string(),
    };
    let in_memory = match scenic_io::open(data) {
        Ok(packets) => packets.map(|r| show(r.as_ref())).collect(),
        Err(e) => vec![e.to_string()],
    };
    let capacity = 1 + data.len() % 256;
    let streamed = match scenic_io::stream::CaptureStream::with_buffer(data, capacity) {
        Ok(mut stream) => {
            let mut seen = Vec::new();
            while let Some(r) = stream.next() {
                seen.push(show(r.as_ref()));
            }
            seen
        }
        Err(e) => vec![e.to_string()],
    };
    (in_memory, streamed)
}

fuzz_target!(|data: &[u8]| {
    let (in_memory, streamed) = both_ways(data);
    assert_eq!(in_memory, streamed);
    let Ok(records) = scenic_io::read_all(data) else {
        return;
    };
    let range = data.as_ptr_range();
    for record in &records {
        let inner = record.data.as_ptr_range();
        assert!(record.data.is_empty() || (range.start <= inner.start && inner.end <= range.end));
    }
    let Some((_, router)) = examples::modules()
        .iter()
        .find(|(n, _)| *n == "l3_router.sn")
    else {
        return;
    };
    let packets = records.iter().map(|r| (r.ts_ns, r.data));
    let result = simulate(router, packets, None, &[], &SimOptions::default());
    assert!(result.is_ok());
});
