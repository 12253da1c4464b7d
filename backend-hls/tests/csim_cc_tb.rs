//! The cc testbench's line protocol (`testbench_cc.rs`), driven by hand: updates for the flow
//! after an event, timers firing on `time`, params through `ctrl`, and malformed lines answered
//! with `error …` then `done`, never a crash. Skips (with the reason) when `AP_TYPES` is unset
//! outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the dcqcn testbench on `input`; its whole output.
fn session(input: &str) -> Option<String> {
    let ap_types = common::ap_types_or_skip("csim_cc_tb")?;
    let (module, info, options) = common::load("dcqcn.sn");
    let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
    let exe = scenic_backend_hls::csim::build(
        &files.ccs[0],
        &files.support,
        &ap_types,
        &["-Wall", "-Wextra", "-Werror"],
    )
    .expect("builds");
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("runs");
    assert!(out.status.success(), "the testbench crashed");
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn events_timers_and_params() {
    let Some(out) = session(
        "event 2 7 0 0 1000\n\
         time 56000\n\
         ctrl 1 1 0 0\n\
         ctrl 2 1 0 3b9aca00\n\
         ctrl 1 1 0 0\n\
         ctrl 1 9 0 0\n\
         ctrl 77 0 0 0\n\
         quit\n",
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            // A CNP on a new flow: 200 Gb/s halved.
            "update 7 100000000000",
            "done",
            // At 56 us both 55 us timers of the flow (started at 1 us) fire: alpha, then rate
            // (fast recovery: (RT + RC) / 2).
            "update 7 100000000000",
            "update 7 150000000000",
            "done",
            "resp 0 2625a00",
            "done",
            "resp 0 0",
            "done",
            "resp 0 3b9aca00",
            "done",
            "resp 5 0",
            "done",
            "resp 8 0",
            "done",
        ]
    );
}

#[test]
fn malformed_lines_are_errors_not_crashes() {
    let Some(out) = session(
        "\n\
         bogus\n\
         event 9 0 0 0 0\n\
         event 2 1024 0 0 0\n\
         event 2 0 2 0 0\n\
         event 2 0 0 0\n\
         event 2 x 0 0 0\n\
         time\n\
         time -5\n\
         ctrl 1 0 0 zz\n\
         ctrl 256 0 0 0\n\
         event 2 0 0 0 99999999999999999999999\n\
         quit\n",
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 24, "{out}");
    for pair in lines.chunks(2) {
        assert!(pair[0].starts_with("error "), "{out}");
        assert_eq!(pair[1], "done", "{out}");
    }
}
