//! Issue 13's CI checks for DCQCN (examples/dcqcn.sn, the paper's parameters), with expectations
//! from the DCQCN paper (Zhu et al., SIGCOMM'15) rather than from this simulator's output: two
//! flows sharing a bottleneck converge to their fair share, the link stays busy, and the queue sits
//! below Kmax on average; one seed gives byte-identical outputs.

mod common;

use std::time::Instant;

/// Two flows on a 200 Gb/s bottleneck, the second joining at 1 ms; measured over 10-20 ms.
#[test]
fn two_dcqcn_flows_converge_to_fair_share() {
    let module = common::example("dcqcn.sn");
    let scenario = common::scenario("dcqcn_two_flows.toml");
    let started = Instant::now();
    let out = match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    let s = &out.summary;
    eprintln!("{}wall time: {:.2?}", s.text(), started.elapsed());
    // Fair share of the payload: half the bottleneck, less the headers (1000 B of 1064 on the wire).
    let host = &scenario.host;
    let payload = scenario.topology.bottleneck_rate as f64 / 1e9 * host.mtu as f64
        / (host.mtu + host.header) as f64;
    let fair = payload / 2.0;
    for flow in &s.flows {
        let x = flow.window_throughput_gbps;
        assert!(
            (x - fair).abs() <= 0.1 * fair,
            "flow {} has {x:.2} Gb/s, fair share {fair:.2} Gb/s",
            flow.id
        );
    }
    assert_eq!(s.fabric.jain_flows, vec![0, 1]);
    assert!(
        s.fabric.bottleneck_utilisation > 0.9,
        "utilisation {:.3}",
        s.fabric.bottleneck_utilisation
    );
    assert!(
        s.fabric.queue_avg_bytes < scenario.switch.kmax as f64,
        "average queue {:.0} B, Kmax {} B",
        s.fabric.queue_avg_bytes,
        scenario.switch.kmax
    );
    assert_eq!(s.fabric.drops, 0, "a 4 MB buffer should not overflow here");
    assert!(
        s.fabric.cnps > 0 && s.fabric.marks > 0,
        "congestion was signalled"
    );
}

/// The same scenario and seed twice: the same files, byte for byte; another seed: other marks.
#[test]
fn one_seed_gives_byte_identical_outputs() {
    let module = common::example("dcqcn.sn");
    let scenario = common::scenario("dcqcn_two_flows.toml");
    let dirs: Vec<tempfile::TempDir> = (0..2)
        .map(|_| match tempfile::tempdir() {
            Ok(d) => d,
            Err(err) => panic!("{err}"),
        })
        .collect();
    for dir in &dirs {
        match scenic_ccsim::run(&module, &scenario, Some(42)) {
            Ok(out) => {
                if let Err(err) = out.write(dir.path()) {
                    panic!("{err}");
                }
            }
            Err(err) => panic!("{err}"),
        }
    }
    for file in [
        "summary.json",
        "rates.csv",
        "queue.csv",
        "rates.svg",
        "queue.svg",
    ] {
        let read = |d: &tempfile::TempDir| std::fs::read(d.path().join(file)).unwrap_or_default();
        let (a, b) = (read(&dirs[0]), read(&dirs[1]));
        assert!(!a.is_empty(), "{file} was written");
        assert!(a == b, "{file} differs between two runs with seed 42");
    }
    let other = match scenic_ccsim::run(&module, &scenario, Some(43)) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    let first = std::fs::read_to_string(dirs[0].path().join("queue.csv")).unwrap_or_default();
    assert_ne!(first, other.queue_csv, "the seed drives RED marking");
}
