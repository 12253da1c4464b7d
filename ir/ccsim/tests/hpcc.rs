//! Issue 13's CI check for HPCC (examples/hpcc.sn on examples/scenarios/hpcc_incast8.toml), with
//! expectations from the HPCC paper (Li et al., SIGCOMM'19) rather than from this simulator's
//! output: HPCC aims at η = 95% utilisation of the most loaded link with a near-zero queue (its
//! window is set so that the inflight bytes, queue included, are η of a BDP), so after the
//! initial burst of an incast the queue must drain and stay near empty while the link stays busy.
//!
//! Thresholds: "busy" is at least 90% utilisation over the measurement window (η = 95% less a
//! margin for the additive-increase steps and the 2^-16 precision of hpcc.sn's fixed point);
//! "near zero" is a queue averaging under 10 KB (ten packets, 4% of the 250 KB BDP) with a p99
//! under 25 KB (a tenth of the BDP); "drains" is: from the time the burst's peak queue takes to
//! drain at the bottleneck's rate, plus 10 base RTTs for HPCC to measure and settle, every
//! sample of the queue is under that tenth of a BDP. The debug-build run is shortened to 1 ms.

mod common;

use std::time::Instant;

/// hpcc.sn's T (the base RTT), in µs.
const T_US: f64 = 10.0;
/// 200 Gb/s × 10 µs.
const BDP_BYTES: f64 = 250_000.0;

#[test]
fn hpcc_drains_an_incast_queue_and_keeps_the_link_busy() {
    let module = common::example("hpcc.sn");
    let mut scenario = common::scenario("hpcc_incast8.toml");
    scenario.duration = 1_000_000_000; // 1 ms in ps
    scenario.measure_from = 500_000_000;
    let started = Instant::now();
    let out = match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    let s = &out.summary;
    let f = &s.fabric;
    let rate_bytes_per_us = scenario.topology.bottleneck_rate as f64 / 8e6;
    let drained_us = f.queue_max_bytes as f64 / rate_bytes_per_us;
    let deadline_us = drained_us + 10.0 * T_US;
    let samples: Vec<(f64, f64)> = out
        .queue_csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut cols = l.split(',');
            Some((cols.next()?.parse().ok()?, cols.next()?.parse().ok()?))
        })
        .collect();
    let settled_us = samples
        .iter()
        .rev()
        .find(|(_, q)| *q >= 0.1 * BDP_BYTES)
        .map_or(0.0, |(t, _)| *t);
    eprintln!(
        "{}peak queue {} B drains at line rate in {drained_us:.1} us; the last sample at or \
         over 25 KB is at {settled_us:.0} us (deadline {deadline_us:.1} us); wall time {:.2?}",
        s.text(),
        f.queue_max_bytes,
        started.elapsed()
    );
    assert!(samples.len() > 50, "{} queue samples", samples.len());
    assert!(
        settled_us < deadline_us,
        "the queue was still at least {} B at {settled_us} us",
        0.1 * BDP_BYTES
    );
    assert!(
        f.bottleneck_utilisation >= 0.90,
        "utilisation {:.3}",
        f.bottleneck_utilisation
    );
    assert!(
        f.queue_avg_bytes < 10_000.0,
        "average queue {:.0} B",
        f.queue_avg_bytes
    );
    assert!(
        (f.queue_p99_bytes as f64) < 0.1 * BDP_BYTES,
        "p99 queue {} B",
        f.queue_p99_bytes
    );
    assert_eq!(f.drops, 0, "a 16 MB buffer holds the burst");
}

/// A controller without `on int` gets no telemetry: the scenario's `requires = ["int"]` refuses it.
#[test]
fn the_incast_scenario_requires_an_int_handler() {
    let module = common::example("dcqcn.sn");
    let scenario = common::scenario("hpcc_incast8.toml");
    match scenic_ccsim::run(&module, &scenario, None) {
        Ok(_) => panic!("dcqcn has no `on int` but ran"),
        Err(err) => assert!(err.message.contains("`on int`"), "{err}"),
    }
}
