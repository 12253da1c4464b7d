//! Scenario errors name the file, line and column; a controller that cannot hear what the
//! scenario signals is refused; and the simplest network behaves as arithmetic says it must.

mod common;

use scenic_ccsim::{Scenario, ScenarioError};

const BASE: &str = "duration = \"200us\"\n[topology]\nkind = \"dumbbell\"\n[[flow]]\n";

fn parse_err(text: &str) -> ScenarioError {
    match Scenario::parse("bad.toml", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(err) => err,
    }
}

fn run_err(program: &str, text: &str) -> ScenarioError {
    let module = common::example(program);
    let scenario = match Scenario::parse("bad.toml", text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    };
    match scenic_ccsim::run(&module, &scenario, None) {
        Ok(_) => panic!("ran:\n{text}"),
        Err(err) => err,
    }
}

#[test]
fn an_unknown_key_is_an_error_at_its_line() {
    let err = parse_err(
        "duration = \"1ms\"\n[topology]\nkind = \"incast\"\nspeed = \"1Gbps\"\n[[flow]]\n",
    );
    assert_eq!(
        (err.file.as_str(), err.line, err.column),
        ("bad.toml", 4, 1)
    );
    assert!(err.message.contains("unknown field `speed`"), "{err}");
    let err = parse_err(&format!("{BASE}begin = \"1us\"\n"));
    assert_eq!(err.line, 5, "{err}");
    let err = parse_err("duration = \"1ms\"\n[topology]\nkind = \"ring\"\n[[flow]]\n");
    assert_eq!(err.line, 3, "{err}");
}

#[test]
fn negative_and_zero_quantities_are_errors_at_the_value() {
    let err = parse_err(
        "duration = \"1ms\"\n[topology]\nkind = \"incast\"\nlink_rate = \"-40Gbps\"\n[[flow]]\n",
    );
    assert_eq!((err.line, err.column), (4, 13), "{err}");
    assert!(err.message.contains("cannot be negative"), "{err}");
    let err = parse_err(&format!("{BASE}size = -5\n"));
    assert_eq!(err.line, 5, "{err}");
    assert!(err.message.contains("negative"), "{err}");
    let err = parse_err(
        "duration = \"1ms\"\n[topology]\nkind = \"incast\"\nbottleneck_rate = \"0Gbps\"\n[[flow]]\n",
    );
    assert!(err.message.contains("positive") && err.line == 4, "{err}");
    let err = parse_err(&format!("{BASE}[switch]\npmax = 1.5\n"));
    assert!(err.message.contains("pmax") && err.line == 6, "{err}");
    let err = parse_err("duration = \"1ms\"\n[topology]\nkind = \"incast\"\nlink_delay = 5\n");
    assert!(err.message.contains("unit"), "{err}");
}

#[test]
fn a_controller_without_a_required_signal_is_refused_at_the_requirement() {
    let text = format!("requires = [\"cnp\", \"ack\"]\n{BASE}");
    let err = run_err("dcqcn.sn", &text);
    assert_eq!((err.line, err.column), (1, 20), "{err}");
    assert!(err.message.contains("`on ack`"), "{err}");
    // DCQCN hears only CNPs: with the receivers' CNPs off it could never slow down.
    let err = run_err("dcqcn.sn", &format!("{BASE}[host]\ncnp = false\n"));
    assert!(
        err.message.contains("none of the congestion signals"),
        "{err}"
    );
    let err = run_err(
        "dcqcn.sn",
        &format!("{BASE}params = {{ r_ai = \"-1Mbps\" }}\n"),
    );
    assert!(err.message.contains("negative") && err.line == 5, "{err}");
    let err = run_err("dcqcn.sn", &format!("{BASE}params = {{ speed = 3 }}\n"));
    assert!(err.message.contains("no param `speed`"), "{err}");
    let err = run_err("dcqcn.sn", &format!("cc = \"timely\"\n{BASE}"));
    assert!(
        err.message.contains("no cc named `timely`") && err.line == 1,
        "{err}"
    );
}

/// One flow alone at line rate: the bottleneck is fully used, nothing queues at the switch (the
/// flow arrives exactly as fast as it leaves), and the goodput is the payload share of the wire.
#[test]
fn one_flow_at_line_rate_fills_the_link_without_a_queue() {
    let module = common::example("dcqcn.sn");
    let text =
        "duration = \"2ms\"\nmeasure_from = \"1ms\"\n[topology]\nkind = \"incast\"\n[[flow]]\n";
    let scenario = match Scenario::parse("one.toml", text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    };
    let out = match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    let s = &out.summary;
    let goodput = 200.0 * 1000.0 / 1064.0;
    let x = s.flows[0].window_throughput_gbps;
    assert!((x - goodput).abs() < 0.01 * goodput, "{x} vs {goodput}");
    assert!(
        s.fabric.bottleneck_utilisation > 0.99,
        "{}",
        s.fabric.bottleneck_utilisation
    );
    // The depth counts the packet being serialized; the next one arrives the instant it finishes,
    // so the port holds at most two packets.
    assert!(
        s.fabric.queue_max_bytes <= 2 * 1064,
        "{}",
        s.fabric.queue_max_bytes
    );
    assert_eq!((s.fabric.marks, s.fabric.cnps, s.fabric.drops), (0, 0, 0));
    assert_eq!(s.flows[0].final_rate_gbps, Some(200.0));
}

/// A sized flow's completion time: size over the goodput plus the one-way delay of the last packet.
#[test]
fn a_sized_flow_completes_in_size_over_rate_plus_latency() {
    let module = common::example("dcqcn.sn");
    let text = format!("{}size = \"1MB\"\n", BASE.replace("dumbbell", "incast"));
    let scenario = match Scenario::parse("fct.toml", &text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    };
    let out = match scenic_ccsim::run(&module, &scenario, None) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    // 1000 packets of 1064 B at 200 Gb/s: 42.56 ns each; the last starts at 999 x 42.56 ns, then
    // its host-link serialization, 1 us, the switch port's serialization, 1 us:
    // 1001 x 42.56 ns + 2 us.
    let expected = 1001.0 * 0.04256 + 2.0;
    let fct = out.summary.flows[0].fct_us.unwrap_or(0.0);
    assert!(
        (fct - expected).abs() < 0.01,
        "FCT {fct} us, expected {expected} us"
    );
    assert_eq!(out.summary.flows[0].bytes_delivered, 1_000_000);
}
