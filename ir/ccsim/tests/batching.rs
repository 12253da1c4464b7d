//! The simulator reports bytes sent in batches (control.rs): DCQCN's byte counter, fast recovery
//! and hyper increase must come out exactly as with one `sent` event per packet, which is how an
//! STF run or `Machine::cc_event` would feed them.

mod common;

use scenic_ccsim::control::Controllers;
use scenic_ccsim::Scenario;
use scenic_interp::cc::CcEvent;
use scenic_interp::Machine;

#[test]
fn batched_bytes_drive_dcqcn_like_one_event_per_packet() {
    let module = common::example("dcqcn.sn");
    let text = "duration = \"5ms\"\n[topology]\nkind = \"incast\"\n[[flow]]\n";
    let scenario = match Scenario::parse("b.toml", text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    };
    let mut batched = match Controllers::new(&module, &scenario) {
        Ok(c) => c,
        Err(err) => panic!("{err}"),
    };
    let mut reference = Machine::new(&module);
    let cc = match reference.cc_by_name("dcqcn") {
        Some(cc) => cc,
        None => panic!("no dcqcn"),
    };
    batched.start(0, 0);
    reference.cc_event(cc, 0, CcEvent::Sent(0), 0);
    let cnps_ns = [100_000u64, 130_000, 700_000, 2_000_000];
    // 1000 B every 40 ns (200 Gb/s) for 5 ms; CNPs at the times above; compare every 10 us.
    for k in 1..=125_000u64 {
        let now_ns = k * 40;
        while let Some(due) = batched.timer_due(0).filter(|d| *d <= now_ns * 1000) {
            batched.fire_timers(0, due);
        }
        if cnps_ns.contains(&now_ns) {
            batched.signal(0, CcEvent::Cnp, now_ns * 1000);
            reference.cc_event(cc, 0, CcEvent::Cnp, now_ns);
        }
        batched.sent(0, 1000, now_ns * 1000);
        reference.cc_event(cc, 0, CcEvent::Sent(1000), now_ns);
        if k % 250 == 0 {
            // Bytes not yet reported are fewer than the next firing needs: the output already agrees.
            assert_eq!(
                batched.output(0),
                reference.cc_output(cc, 0),
                "rate differs at {now_ns} ns"
            );
        }
    }
    let bc = reference.cc_state(cc, 0, "bc").map(|b| b.to_u64());
    assert!(
        bc.is_some_and(|bc| bc > 5),
        "the byte counter reached hyper increase: {bc:?}"
    );
}
