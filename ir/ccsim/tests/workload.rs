//! `[[workload]]`: sizes drawn by inverse CDF match the distribution's mean computed by hand from
//! its points; arrivals are Poisson at the asked load; one file gives one list of flows; bad
//! workloads are errors at their place in the file.

mod common;

use scenic_ccsim::event::Rng;
use scenic_ccsim::workload::Cdf;
use scenic_ccsim::Scenario;

/// Mean sizes by hand from the points of examples/scenarios/cdf/ (linear interpolation: each
/// segment contributes its probability times its midpoint; the first point its own mass).
/// websearch: .15·5000 + .05·15000 + .1·25000 + .1·40000 + .13·65000 + .07·140000 + .1·600000
///   + .1·1.5e6 + .1·3.5e6 + .07·7.5e6 + .03·2e7 = 1 711 250 B.
const WEBSEARCH_MEAN: f64 = 1_711_250.0;
/// datamining: .5·1460 + .1·2190 + .1·3650 + .1·7300 + .1·200020 + .05·1733020 + .04·50205020
///   + .01·535333820 = 7 470 236 B.
const DATAMINING_MEAN: f64 = 7_470_236.0;

fn cdf(name: &str) -> Cdf {
    match Cdf::builtin(name) {
        Some(c) => c,
        None => panic!("no {name}"),
    }
}

#[test]
fn sampled_sizes_average_to_the_cdf_mean() {
    for (name, mean, draws, tolerance) in [
        ("websearch", WEBSEARCH_MEAN, 200_000, 0.03),
        // One flow in a hundred is 97 MB to 973 MB: many more draws for the same precision.
        ("datamining", DATAMINING_MEAN, 2_000_000, 0.05),
    ] {
        let cdf = cdf(name);
        assert!(
            (cdf.mean() - mean).abs() < 1.0,
            "{name}: {} by the code",
            cdf.mean()
        );
        let mut rng = Rng::new(11);
        let sum: f64 = (0..draws).map(|_| cdf.sample(rng.uniform()) as f64).sum();
        let sampled = sum / draws as f64;
        assert!(
            (sampled - mean).abs() < tolerance * mean,
            "{name}: sampled mean {sampled:.0} B, CDF mean {mean:.0} B"
        );
    }
}

fn workload(extra: &str) -> String {
    format!(
        "duration = \"1ms\"\n[topology]\nkind = \"dumbbell\"\n[[workload]]\ncdf = \"websearch\"\nload = 0.5\n{extra}"
    )
}

/// 4096 flows at half of a 200 Gb/s link: the mean gap between arrivals is the mean size over
/// half the payload capacity, 1 711 250 B · 8 / (0.5 · 200e9 · 1000/1064) = 145.66 us.
#[test]
fn arrivals_are_poisson_at_the_offered_load() {
    let sc = common::parse("w.toml", &workload("flows = 4096\n"));
    assert_eq!(sc.flows.len(), 4096);
    let gap_us = WEBSEARCH_MEAN * 8.0 / (0.5 * 200e9 * 1000.0 / 1064.0) * 1e6;
    let last = sc.flows.last().map_or(0, |f| f.start) as f64 / 1e6;
    let mean_gap = last / 4096.0;
    // Exponential gaps: the mean of 4096 has a relative standard error of 1/64.
    assert!(
        (mean_gap - gap_us).abs() < 0.06 * gap_us,
        "{mean_gap} us vs {gap_us} us"
    );
    assert!(sc.flows.windows(2).all(|w| w[0].start <= w[1].start));
    let sizes: f64 = sc
        .flows
        .iter()
        .filter_map(|f| f.size)
        .map(|s| s as f64)
        .sum();
    let mean = sizes / 4096.0;
    assert!(
        (mean - WEBSEARCH_MEAN).abs() < 0.15 * WEBSEARCH_MEAN,
        "{mean}"
    );
    // Deterministic: the same file gives the same flows; another workload seed other ones.
    let again = common::parse("w.toml", &workload("flows = 4096\n"));
    let starts = |s: &Scenario| {
        s.flows
            .iter()
            .map(|f| (f.start, f.size))
            .collect::<Vec<_>>()
    };
    assert_eq!(starts(&sc), starts(&again));
    let other = common::parse("w.toml", &workload("flows = 4096\nseed = 9\n"));
    assert_ne!(starts(&sc), starts(&other));
    // `until`: arrivals stop at the given time.
    let until = common::parse("w.toml", &workload("until = \"2ms\"\n"));
    assert!(!until.flows.is_empty() && until.flows.iter().all(|f| f.start < 2_000_000_000));
}

#[test]
fn bad_workloads_are_errors_at_their_place() {
    let err = |text: &str| match Scenario::parse("bad.toml", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(err) => err,
    };
    let e = err(&workload("flows = 3\nrate = 2\n"));
    assert!(
        e.message.contains("unknown field `rate`") && e.line == 8,
        "{e}"
    );
    let e = err(&workload("").replace("load = 0.5", "load = -0.5"));
    assert!(
        e.message.contains("`load`") && (e.line, e.column) == (6, 8),
        "{e}"
    );
    let e = err(&workload(""));
    assert!(e.message.contains("`flows = N` or `until"), "{e}");
    let e = err(&workload("flows = 3\nuntil = \"1ms\"\n"));
    assert!(e.message.contains("not both") && e.line == 8, "{e}");
    let e = err(&workload("flows = 3\n").replace("\"websearch\"", "\"no/such.csv\""));
    assert!(
        e.message.contains("cannot read the CDF") && (e.line, e.column) == (5, 7),
        "{e}"
    );
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let scenario = dir.path().join("s.toml");
    let write = |path: &std::path::Path, text: &str| {
        if let Err(e) = std::fs::write(path, text) {
            panic!("{e}");
        }
    };
    write(&dir.path().join("c.csv"), "# sizes\n100,0.5\n50,1\n");
    let text = workload("flows = 3\n").replace("\"websearch\"", "\"c.csv\"");
    let e = match Scenario::parse(&scenario.display().to_string(), &text) {
        Ok(_) => panic!("accepted a decreasing CDF"),
        Err(e) => e,
    };
    assert!(
        e.message
            .contains("line 3: sizes and probabilities must not decrease"),
        "{e}"
    );
    write(&dir.path().join("c.csv"), "# sizes\n100,0\n300,1\n");
    let sc = match Scenario::parse(&scenario.display().to_string(), &text) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert!(sc
        .flows
        .iter()
        .all(|f| f.size.is_some_and(|s| (100..=300).contains(&s))));
}
