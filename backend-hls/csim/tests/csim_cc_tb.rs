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
    let exe = scenic_hls_csim::build(
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
         event 8 0 0 0 0 1 2 3\n\
         event 8 0 0 0 0 256 2 3 4 5\n\
         event 8 0 0 0 0 0 1 2 3 4 5\n\
         event 8 0 0 0 0 0 1 x 3 4\n\
         quit\n",
    ) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 32, "{out}");
    for pair in lines.chunks(2) {
        assert!(pair[0].starts_with("error "), "{out}");
        assert_eq!(pair[1], "done", "{out}");
    }
}

/// Struct and array state starts at zero and is updated field by field, on the interpreter (whose
/// flows once started such state as a flat bit string, so no handler of such a cc changed
/// anything) and on the kernel alike. Expectations computed by hand.
#[test]
fn aggregate_state_on_both_devices() {
    const PROGRAM: &str = "struct pair { lo: bit<16>, hi: bit<32> }
cc agg per flow[64] {
    state hist: [bit<8>; 4];
    state p: pair;
    state w: size = 1000B;
    output window w;
    on ack(a) {
        hist[1] = hist[1] + 1;
        p.hi = p.hi + 2;
        w = w + ((hist[1] as bit<64>) as size) + ((hist[0] as bit<64>) as size) * 100;
    }
    on cnp {
        w = w + ((p.hi as bit<64>) as size) * 1000;
    }
    on loss {
        if hist[0] > hist[2] {
            w = w + 7B;
        }
        hist[0] = hist[0] + 1;
    }
}
";
    const STF: &str = "event agg 1 ack bytes=5
check_window agg 1 == 1001
event agg 1 ack bytes=5
check_window agg 1 == 1003
event agg 1 cnp
check_window agg 1 == 5003
event agg 1 loss
check_window agg 1 == 5003
event agg 1 loss
check_window agg 1 == 5010
event agg 2 cnp
check_window agg 2 == 1000
";
    let dir = std::env::temp_dir().join(format!("scenicc-cc-agg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("agg.sn");
    std::fs::write(&path, PROGRAM).unwrap();
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("loads");
    let module = scenic_lower::lower_session(&mut session).expect("lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("valid");
    let commands = scenic_sim::stf::parse_report(STF).expect("stf parses");
    let mut machine = scenic_interp::Machine::new(&module);
    let report = scenic_sim::stf::run_on(&mut machine, &commands, None);
    assert!(
        report.ok() && report.passed == 6,
        "interpreter: {:?}",
        report.failures
    );
    let Some(ap_types) = common::ap_types_or_skip("aggregate_state_on_both_devices") else {
        return;
    };
    let files =
        scenic_backend_hls::write_kernel(&module, &info, &scenic_backend_hls::Options::default())
            .expect("generates");
    let mut csim = scenic_hls_csim::CsimDevice::new(
        &module,
        &files,
        &ap_types,
        &["-Wall", "-Wextra", "-Werror"],
    )
    .expect("builds");
    let report = scenic_sim::stf::run_on(&mut csim, &commands, None);
    assert!(
        report.ok() && report.passed == 6,
        "hls-csim: {:?}",
        report.failures
    );
}

/// An scu and a cc in one program: packets, `every` blocks, cc timers, params and CSRs see one
/// clock on both devices, and the package holds both kernels.
#[test]
fn an_scu_and_a_cc_together() {
    const PROGRAM: &str = "use std::net::{ethernet};
scu edge on slow_path {
    csr ticks: bit<32> = 0;
    csr seen: bit<32> = 0;
    headers { eth: ethernet }
    parser {
        state start {
            extract(eth);
            accept;
        }
    }
    control {
        seen = seen + 1;
        to_network(1);
    }
    every 10us {
        ticks = ticks + 1;
    }
}
cc pace per flow[8] {
    param step: rate = 1Gbps;
    state rc: rate = 10Gbps;
    output rate rc;
    on cnp {
        rc = rc / 2;
    }
    on timer up every 20us {
        rc = min(rc + step, 10Gbps);
    }
}
";
    const STF: &str = "packet 0 ffffffffffff0000000000010800
expect 1 ffffffffffff0000000000010800
event pace 3 cnp
check_rate pace 3 == 5Gbps
wait 25us
check_rate pace 3 == 6Gbps
check_csr ticks == 2
set_csr pace.step 2Gbps
wait 20us
check_rate pace 3 == 8Gbps
packet 0 ffffffffffff0000000000010800
expect 1 ffffffffffff0000000000010800
wait
check_csr seen == 2
check_csr ticks == 4
event pace 5 cnp
check_rate pace 5 == 5Gbps
wait 40us
check_rate pace 3 == 10Gbps
check_rate pace 5 == 9Gbps
";
    let dir = std::env::temp_dir().join(format!("scenicc-cc-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mixed.sn");
    std::fs::write(&path, PROGRAM).unwrap();
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("loads");
    let module = scenic_lower::lower_session(&mut session).expect("lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("valid");
    let commands = scenic_sim::stf::parse_report(STF).expect("stf parses");
    let mut machine = scenic_interp::Machine::new(&module);
    let report = scenic_sim::stf::run_on(&mut machine, &commands, None);
    assert!(
        report.ok() && report.passed == 11,
        "interpreter: {:?}",
        report.failures
    );
    let inputs = scenic_backend_hls::package::BuildInputs {
        module: &module,
        info: &info,
        source_file: "mixed.sn",
        source_text: PROGRAM,
        root_file_id: 0,
    };
    let package = scenic_backend_hls::package::build(&inputs).expect("package");
    assert_eq!(package.kernels(), ["edge", "pace"]);
    let svh = String::from_utf8_lossy(&package.files["coyote/vfpga_top.svh"]).into_owned();
    assert!(svh.contains("inst_edge"), "{svh}");
    assert!(
        svh.contains("Not instantiated here: the cc kernels pace"),
        "{svh}"
    );
    let Some(ap_types) = common::ap_types_or_skip("an_scu_and_a_cc_together") else {
        return;
    };
    let files =
        scenic_backend_hls::write_kernel(&module, &info, &scenic_backend_hls::Options::default())
            .expect("generates");
    let mut csim = scenic_hls_csim::CsimDevice::new(
        &module,
        &files,
        &ap_types,
        &["-Wall", "-Wextra", "-Werror"],
    )
    .expect("builds");
    let report = scenic_sim::stf::run_on(&mut csim, &commands, None);
    assert!(
        report.ok() && report.passed == 11,
        "hls-csim: {:?}",
        report.failures
    );
}
