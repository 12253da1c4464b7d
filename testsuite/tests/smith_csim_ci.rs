//! A short fixed-seed scenic-smith campaign on `hls-csim` (docs/fuzzing.md): every generated
//! program the HLS backend accepts builds with g++ and passes, on its C-simulated kernels, the
//! STF whose expectations the reference interpreter wrote. Kernels are compiled ahead, two at a
//! time (`csim_batch`), into the C-simulation build cache, so a warm run only starts the
//! testbenches. Skipped, with the reason, when the ap_types headers are missing (`AP_TYPES`;
//! scripts/test.sh sets it). A long campaign is
//! `cargo run --release -p scenic-testsuite --bin smith -- --seeds 0..500 --backends hls-csim`.

use scenic_testsuite::smith::{self, csim_batch::Prebuilder, Backend};

/// Seeds of the campaign (each a few seconds of g++ cold, milliseconds warm).
const SEEDS: std::ops::Range<u64> = 0..12;

#[test]
fn a_short_hls_csim_campaign_finds_no_difference() {
    let ap_types = match scenic_hls_csim::ap_types(None) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("skipping the hls-csim campaign: {e}");
            return;
        }
    };
    let prebuilder = Prebuilder::start(SEEDS, 2, 4, ap_types);
    let mut failures = Vec::new();
    let mut ran = 0;
    for seed in SEEDS {
        prebuilder.wait_for(seed);
        let report = smith::run_seed(seed, &[Backend::HlsCsim]);
        if let Some(diags) = &report.check_error {
            failures.push(format!("seed {seed}: the program does not check:\n{diags}"));
        }
        for f in &report.findings {
            failures.push(format!("seed {seed}: {}", f.describe()));
        }
        if report.not_expressible.is_none() && report.check_error.is_none() {
            ran += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "reproduce with `cargo run --release -p scenic-testsuite --bin smith -- --seeds A..B --backends hls-csim`:\n{}",
        failures.join("\n")
    );
    assert!(
        ran >= SEEDS.end as usize / 2,
        "only {ran} programs ran on hls-csim"
    );
}
