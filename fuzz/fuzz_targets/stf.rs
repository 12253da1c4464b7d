//! Feeds arbitrary bytes as an STF test to every example: a syntax error must come back as a located
//! failure, and any command sequence (entries for unknown tables, huge `wait`s, packets to any port)
//! must run to a report without a panic or a hang.

#![no_main]

#[path = "examples.rs"]
mod examples;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (_, module) in examples::modules() {
        let report = scenic_sim::stf::run_text(module, text, None);
        let _ = (report.passed, report.ok());
    }
});
