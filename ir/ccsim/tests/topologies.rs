//! The parking lot and flows that arrive and leave: routes cross the links docs/cc-sim.md says
//! they cross, every inter-switch link is measured, and the max-min fair shares written to
//! rates.csv are the ones water-filling gives by hand.

mod common;

use scenic_ccsim::Scenario;

/// The payload share of a 200 Gb/s link: 1000 B of payload per 1064 B on the wire.
const PAYLOAD: f64 = 200.0 * 1000.0 / 1064.0;

fn lot(flows: &str) -> String {
    format!(
        "duration = \"1ms\"\nmeasure_from = \"500us\"\n[topology]\nkind = \"parking_lot\"\nhops = 3\n{flows}"
    )
}

fn parse_err(text: &str) -> scenic_ccsim::ScenarioError {
    match Scenario::parse("bad.toml", text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(err) => err,
    }
}

#[test]
fn parking_lot_routes_are_checked_where_they_are_written() {
    let err = parse_err(&lot("[[flow]]\nroute = \"cross:2\"\n"));
    assert_eq!((err.line, err.column), (7, 9), "{err}");
    assert!(err.message.contains("out of range"), "{err}");
    let err = parse_err(&lot("[[flow]]\nroute = \"side\"\n"));
    assert!(err.message.contains("unknown route `side`"), "{err}");
    let err = parse_err(&lot("[[flow]]\nstart = \"0us\"\n"));
    assert!(
        err.message.contains("needs `route") && err.line == 6,
        "{err}"
    );
    let err = parse_err(&lot("[[flow]]\nroute = \"long\"\n").replace("hops = 3", "hops = 1"));
    assert!(err.message.contains("2 to 64") && err.line == 5, "{err}");
    let err = parse_err(&lot("[[flow]]\nroute = \"long\"\n").replace("hops = 3\n", ""));
    assert!(
        err.message.contains("needs `hops`") && err.line == 4,
        "{err}"
    );
    let dumbbell =
        "duration = \"1ms\"\n[topology]\nkind = \"dumbbell\"\n[[flow]]\nroute = \"long\"\n";
    assert!(parse_err(dumbbell)
        .message
        .contains("applies to `kind = \"parking_lot\"` only"));
    let both = lot("[[flow]]\nroute = \"long\"\nsize = 5000\nstop = \"1ms\"\n");
    assert!(parse_err(&both).message.contains("not both"));
    let early = lot("[[flow]]\nroute = \"long\"\nstart = \"1ms\"\nstop = \"1ms\"\n");
    assert!(parse_err(&early).message.contains("after its `start`"));
}

/// One long flow alone at line rate loads both links fully; a cross flow on link 1 alone leaves
/// link 0 idle. Each link is reported, and the old single-bottleneck fields are link 0's.
#[test]
fn the_long_route_crosses_every_link_and_a_cross_route_one() {
    let module = common::example("dcqcn.sn");
    let long = common::run(
        &module,
        &common::parse("l.toml", &lot("[[flow]]\nroute = \"long\"\n")),
    );
    let links = &long.summary.fabric.bottlenecks;
    assert_eq!(links.len(), 2);
    assert_eq!(
        (links[0].link.as_str(), links[1].link.as_str()),
        ("S0->S1", "S1->S2")
    );
    for link in links {
        assert!(
            link.utilisation > 0.99,
            "{}: {}",
            link.link,
            link.utilisation
        );
    }
    assert_eq!(
        long.summary.fabric.bottleneck_utilisation,
        links[0].utilisation
    );
    let x = long.summary.flows[0].window_throughput_gbps;
    assert!((x - PAYLOAD).abs() < 0.01 * PAYLOAD, "{x}");
    let cross = common::run(
        &module,
        &common::parse("c.toml", &lot("[[flow]]\nroute = \"cross:1\"\n")),
    );
    let links = &cross.summary.fabric.bottlenecks;
    assert_eq!(links[0].utilisation, 0.0);
    assert!(links[1].utilisation > 0.99, "{}", links[1].utilisation);
    assert!(cross
        .queue_csv
        .starts_with("time_us,queue_bytes,marks,drops,link1_queue_bytes\n"));
}

/// Water-filling by hand: the long flow and both cross flows on equal links get half a link each.
#[test]
fn parking_lot_fair_shares_are_max_min() {
    let module = common::example("dcqcn.sn");
    let flows = "[[flow]]\nroute = \"long\"\n[[flow]]\nroute = \"cross:0\"\n[[flow]]\nroute = \"cross:1\"\n";
    let out = common::run(&module, &common::parse("p.toml", &lot(flows)));
    for f in 0..3 {
        let fair = common::column(&out.rates_csv, &format!("flow{f}_fair_gbps"));
        assert!(
            fair.iter().all(|x| (x - PAYLOAD / 2.0).abs() < 1e-3),
            "flow {f}: {fair:?}"
        );
    }
}

/// Three flows on a 200 Gb/s dumbbell share it by thirds; one joining or leaving moves the shares
/// to what water-filling gives by hand (the flow alone: its whole host link).
#[test]
fn fair_shares_follow_flows_arriving_and_leaving() {
    let module = common::example("dcqcn.sn");
    let text = "duration = \"2500us\"\nsettle = \"200us\"\n[topology]\nkind = \"dumbbell\"\n\
        [[flow]]\n[[flow]]\nstart = \"500us\"\n[[flow]]\nstart = \"1ms\"\nstop = \"2ms\"\n";
    let out = common::run(&module, &common::parse("ad.toml", text));
    let time = common::column(&out.rates_csv, "time_us");
    let fair: Vec<Vec<f64>> = (0..3)
        .map(|f| common::column(&out.rates_csv, &format!("flow{f}_fair_gbps")))
        .collect();
    let expect = |t: f64| -> [f64; 3] {
        match t {
            t if t < 500.0 => [PAYLOAD, 0.0, 0.0],
            t if t < 1000.0 => [PAYLOAD / 2.0, PAYLOAD / 2.0, 0.0],
            t if t < 2000.0 => [PAYLOAD / 3.0; 3],
            _ => [PAYLOAD / 2.0, PAYLOAD / 2.0, 0.0],
        }
    };
    for (row, &t) in time.iter().enumerate() {
        let want = expect(t);
        for f in 0..3 {
            let got = fair[f][row];
            assert!(
                (got - want[f]).abs() < 1e-3,
                "flow {f} at {t} us: {got}, want {}",
                want[f]
            );
        }
    }
    // The stopped flow sends nothing after its stop: its throughput is 0 once in-flight data
    // (a few us of queue and propagation) has drained.
    let x2 = common::column(&out.rates_csv, "flow2_throughput_gbps");
    let late = time.iter().zip(&x2).filter(|(t, _)| **t >= 2100.0);
    assert!(late.clone().count() > 0 && late.clone().all(|(_, x)| *x == 0.0));
    assert_eq!(out.summary.flows[2].stop_us, Some(2000.0));
    assert_eq!(
        out.summary.fabric.jain_flows,
        vec![0, 1],
        "flow 2 left before the end"
    );
    assert!(out.summary.flows.iter().all(|f| f.fair_share_samples > 0));
}

/// The tracking figure of a flow alone at line rate: its throughput is its fair share, so the
/// error is the packet-quantisation of a 10 us sample (about one 1000 B packet in 117).
#[test]
fn a_flow_alone_at_line_rate_tracks_its_fair_share() {
    let module = common::example("dcqcn.sn");
    let text = "duration = \"1ms\"\nsettle = \"100us\"\n[topology]\nkind = \"incast\"\n[[flow]]\n";
    let out = common::run(&module, &common::parse("one.toml", text));
    let flow = &out.summary.flows[0];
    // The flow starts at 0; the first interval to begin `settle` (100 us) later is 100-110 us, so
    // the samples counted are 110, 120, ..., 1000 us.
    assert_eq!(flow.fair_share_samples, 90);
    let err = flow.fair_share_error.unwrap_or(1.0);
    assert!(err < 0.01, "{err}");
}
