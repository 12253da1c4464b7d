//! Every slow-path and stream example's STF tests pass on the C-simulated kernel (`hls-csim`), as
//! they do on the interpreter. Skips (with the reason) when `AP_TYPES` is unset outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_hls_csim::CsimDevice;

fn run_stf(name: &str) {
    let Some(ap_types) = common::ap_types_or_skip(name) else {
        return;
    };
    let (module, info, options) = common::load(name);
    let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
    let mut device = CsimDevice::new(&module, &files, &ap_types, &["-Wall", "-Wextra", "-Werror"])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let stf = common::examples_dir().join(name.replace(".sn", ".stf"));
    let text = std::fs::read_to_string(&stf).expect("stf file");
    let commands = scenic_sim::stf::parse_report(&text).expect("stf parses");
    let report = scenic_sim::stf::run_on(&mut device, &commands, None);
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|f| format!("line {}: {}", f.pos.line, f.message))
        .collect();
    assert!(
        report.ok(),
        "{name}: {} passed, {} failed:\n{}",
        report.passed,
        failures.len(),
        failures.join("\n")
    );
    assert!(report.passed > 0, "{name}: nothing was checked");
}

#[test]
fn l3_router_stf() {
    run_stf("l3_router.sn");
}

#[test]
fn firewall_stf() {
    run_stf("firewall.sn");
}

#[test]
fn flow_monitor_stf() {
    run_stf("flow_monitor.sn");
}

#[test]
fn partition_stf() {
    run_stf("partition.sn");
}

#[test]
fn xor_cipher_stf() {
    run_stf("xor_cipher.sn");
}

#[test]
fn dcqcn_stf() {
    run_stf("dcqcn.sn");
}

#[test]
fn window_cc_stf() {
    run_stf("window_cc.sn");
}

#[test]
fn timely_stf() {
    run_stf("timely.sn");
}

#[test]
fn swift_stf() {
    run_stf("swift.sn");
}
