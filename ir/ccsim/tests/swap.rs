//! Hot swap (`--swap T=OTHER.sn`) with the dual-CC semantics of docs/device.md §4.1: the standby
//! hears every signal from the start, steers nothing before T, and paces every flow from T on;
//! no state is copied (docs/language.md §8.6).

mod common;

use scenic_ccsim::dual::Swap;
use scenic_ccsim::{Outcome, Scenario, ScenarioError};

/// Two DCQCN flows on a 200 Gb/s dumbbell, the second joining at 200 us.
const TWO: &str = "duration = \"2ms\"\nmeasure_from = \"1ms\"\n[topology]\nkind = \"dumbbell\"\n\
    [[flow]]\n[[flow]]\nstart = \"200us\"\n";

/// A controller whose output is 50 Gb/s whatever it hears.
const CONSTANT: &str =
    "cc constant per flow[16] {\n    state r: rate = 50Gbps;\n    output rate r;\n    \
    on cnp {\n        r = 50Gbps;\n    }\n}\n";

const AT: u64 = 1_000_000_000; // 1 ms in ps

fn swapped(
    module: &scenic_ir::Module,
    other: &scenic_ir::Module,
    scenario: &Scenario,
) -> Result<Outcome, ScenarioError> {
    let swap = Swap {
        at: AT,
        module: other,
        name: "other.sn".to_string(),
    };
    scenic_ccsim::run_with_swap(module, scenario, None, Some(&swap))
}

fn ok(result: Result<Outcome, ScenarioError>) -> Outcome {
    match result {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    }
}

/// Same program, same signals, hence the same state: swapping DCQCN for itself changes nothing
/// the pacer sees, so every column of the unswapped run comes out byte for byte.
#[test]
fn swapping_dcqcn_for_itself_changes_nothing() {
    let module = common::example("dcqcn.sn");
    let other = common::example("dcqcn.sn");
    let scenario = common::parse("two.toml", TWO);
    let plain = common::run(&module, &scenario);
    let swap = ok(swapped(&module, &other, &scenario));
    assert_eq!(plain.queue_csv, swap.queue_csv);
    let width = plain
        .rates_csv
        .lines()
        .next()
        .map_or(0, |h| h.split(',').count());
    for (a, b) in plain.rates_csv.lines().zip(swap.rates_csv.lines()) {
        let b: Vec<&str> = b.split(',').collect();
        assert_eq!(a, b[..width].join(","));
    }
    // The standby's columns are the active ones too (the same controller, warm).
    for f in 0..2 {
        let active = common::column(&swap.rates_csv, &format!("flow{f}_rate_gbps"));
        let standby = common::column(&swap.rates_csv, &format!("flow{f}_standby_rate_gbps"));
        assert_eq!(active, standby, "flow {f}");
    }
    let record = swap
        .summary
        .swap
        .as_ref()
        .map(|s| (s.switched_at_us, s.active_at_end.clone()));
    assert_eq!(record, Some((Some(1000.0), "dcqcn".to_string())));
}

/// Swapping to a controller that always outputs 50 Gb/s: from T on every flow's rate is exactly
/// 50 Gb/s; before T the standby's columns show 50 Gb/s (computed, steering nothing) while the
/// senders follow DCQCN (flow 0 starts alone at line rate).
#[test]
fn a_constant_standby_paces_every_flow_from_the_swap_on() {
    let module = common::example("dcqcn.sn");
    let other = common::program("constant.sn", CONSTANT);
    let out = ok(swapped(&module, &other, &common::parse("two.toml", TWO)));
    let time = common::column(&out.rates_csv, "time_us");
    let active = common::column(&out.rates_csv, "active");
    for f in 0..2 {
        let rate = common::column(&out.rates_csv, &format!("flow{f}_rate_gbps"));
        let standby = common::column(&out.rates_csv, &format!("flow{f}_standby_rate_gbps"));
        let start = if f == 0 { 0.0 } else { 200.0 };
        for (row, &t) in time.iter().enumerate() {
            if t >= 1000.0 {
                assert_eq!((rate[row], active[row]), (50.0, 1.0), "flow {f} at {t} us");
            } else {
                assert_eq!(active[row], 0.0);
                if t >= start {
                    assert_eq!(
                        standby[row], 50.0,
                        "flow {f} at {t} us: the standby started"
                    );
                }
            }
        }
    }
    let rate0 = common::column(&out.rates_csv, "flow0_rate_gbps");
    assert_eq!(
        rate0[1], 200.0,
        "before the swap flow 0 runs at DCQCN's line rate"
    );
    assert_eq!(out.summary.flows[0].final_rate_gbps, Some(50.0));
    assert_eq!(out.summary.cc, "dcqcn");
    let swap = out
        .summary
        .swap
        .as_ref()
        .map(|s| (s.to_cc.as_str(), s.active_at_end.as_str()));
    assert_eq!(swap, Some(("constant", "constant")));
    // The rate plot marks the switch: a legend entry naming the new cc and a vertical dashed line.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = out.write_with_font(dir.path(), Err("no PNGs in this test")) {
        panic!("{e}");
    }
    let svg =
        std::fs::read_to_string(dir.path().join("rates.svg")).unwrap_or_else(|e| panic!("{e}"));
    assert!(svg.contains("swap to `constant`"), "no swap legend entry");
    assert!(
        svg.contains("stroke=\"#5A5A5A\""),
        "no swap marker line in the colour of its legend entry"
    );
}

#[test]
fn a_standby_that_does_not_fit_is_refused() {
    let module = common::example("dcqcn.sn");
    let window = common::example("window_cc.sn");
    let err = match swapped(&module, &window, &common::parse("two.toml", TWO)) {
        Ok(_) => panic!("swapped a rate controller for a window one"),
        Err(err) => err,
    };
    assert!(
        err.message.contains("outputs a rate") && err.message.contains("a window"),
        "{err}"
    );
    // The scenario's params are DCQCN's: the constant cc has no `r_ai`.
    let text = TWO.replace(
        "start = \"200us\"\n",
        "start = \"200us\"\nparams = { r_ai = \"1Gbps\" }\n",
    );
    let other = common::program("constant.sn", CONSTANT);
    let err = match swapped(&module, &other, &common::parse("p.toml", &text)) {
        Ok(_) => panic!("ran a cc with another's params"),
        Err(err) => err,
    };
    assert!(
        err.message
            .starts_with("--swap other.sn: cc `constant` has no param `r_ai`"),
        "{err}"
    );
    assert_eq!((err.file.as_str(), err.line), ("p.toml", 8), "{err}");
}
