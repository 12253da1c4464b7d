//! The delay-based controllers on the simulated fabric, checked against what their papers say they
//! do rather than against this simulator's output:
//! - Swift (Kumar et al., SIGCOMM'20) holds each flow's RTT near its target delay, so on an incast
//!   the bottleneck's standing queue is (target − base RTT) × bottleneck rate, with the link full and
//!   the flows equal (§3: "keeps delay around the target").
//! - TIMELY (Mittal et al., SIGCOMM'15) keeps the link busy and the RTT below T_high (its
//!   multiplicative decrease above T_high); it does not promise equal shares ("ECN or Delay",
//!   CoNEXT'16), so only starvation is ruled out.

mod common;

use scenic_ccsim::Scenario;

/// The base RTT of a path of `links` host/switch links each way: propagation, one data packet
/// serialized per link out, one 64-byte feedback packet serialized per link back
/// (docs/cc-sim.md, "The model").
fn base_rtt_s(s: &Scenario, links: u32) -> f64 {
    let rate = s.topology.link_rate as f64;
    let delay = s.topology.link_delay as f64 * 1e-12;
    let wire = (s.host.mtu + s.host.header) as f64 * 8.0;
    f64::from(links) * (2.0 * delay + wire / rate + 64.0 * 8.0 / rate)
}

fn run(program: &str, scenario: &str) -> (Scenario, scenic_ccsim::Summary) {
    let module = common::example(program);
    let scenario = common::scenario(scenario);
    match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => (scenario, out.summary),
        Err(err) => panic!("{err}"),
    }
}

#[test]
fn swift_holds_the_incast_queue_at_its_target_delay() {
    let (scenario, s) = run("swift.sn", "swift_incast8.toml");
    eprintln!("{}", s.text());
    // The scenario's target (10 us) minus the incast's two-link base RTT, at the bottleneck rate.
    let target_s = 10e-6;
    let queue_bytes =
        (target_s - base_rtt_s(&scenario, 2)) * scenario.topology.bottleneck_rate as f64 / 8.0;
    let q = s.fabric.queue_avg_bytes;
    assert!(
        (q - queue_bytes).abs() <= 0.15 * queue_bytes,
        "average queue {q:.0} B, the target delay predicts {queue_bytes:.0} B"
    );
    assert!(
        s.fabric.bottleneck_utilisation > 0.95,
        "utilisation {:.3}",
        s.fabric.bottleneck_utilisation
    );
    let jain = s.fabric.jain_fairness.unwrap_or(0.0);
    assert!(jain > 0.99, "Jain's index {jain:.4}");
    assert_eq!(s.fabric.drops, 0);
}

#[test]
fn timely_keeps_the_link_busy_and_the_rtt_below_t_high() {
    let (scenario, s) = run("timely.sn", "timely_two_flows.toml");
    eprintln!("{}", s.text());
    assert!(
        s.fabric.bottleneck_utilisation > 0.9,
        "utilisation {:.3}",
        s.fabric.bottleneck_utilisation
    );
    // T_high = 100 us (the scenario's param): above it every sample cuts the rate, so the 99th
    // percentile of the queue stays below what 100 us of RTT would hold.
    let t_high_s = 100e-6;
    let bound =
        (t_high_s - base_rtt_s(&scenario, 3)) * scenario.topology.bottleneck_rate as f64 / 8.0;
    assert!(
        (s.fabric.queue_p99_bytes as f64) < bound,
        "queue p99 {} B, T_high allows {bound:.0} B",
        s.fabric.queue_p99_bytes
    );
    for flow in &s.flows {
        assert!(
            flow.window_throughput_gbps > 20.0,
            "flow {} starves: {:.2} Gb/s",
            flow.id,
            flow.window_throughput_gbps
        );
    }
}
