//! A struct or array `state` of a cc starts each new flow at its constant initialiser
//! (docs/language.md §8.2, issue 10; such initialisers were E0210): `programs/cc_struct_init.stf`,
//! whose expectations are computed by hand from the doc, runs on the interpreter and on the
//! C-simulated kernel of `programs/cc_struct_init.sn` (the kernel's `flow_t` constructor unpacks
//! the initialiser's record bits), and both must pass every check. Skips (with the reason) when
//! `AP_TYPES` is unset outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_backend_hls::csim::CsimDevice;
use std::path::{Path, PathBuf};

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

fn load(name: &str) -> (scenic_ir::Module, scenic_backend_hls::KernelFiles) {
    let path = programs_dir().join(format!("{name}.sn"));
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("program loads");
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("the IR after lowering is valid");
    let options = scenic_backend_hls::Options::default();
    let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
    (module, files)
}

fn failures(r: &scenic_sim::stf::StfReport) -> Vec<String> {
    r.failures
        .iter()
        .map(|f| format!("line {}: {}", f.pos.line, f.message))
        .collect()
}

/// Runs `<name>.stf` on the interpreter and on the C-simulated kernel of `<name>.sn`: every check
/// must hold on both.
fn stf_on_both(name: &str) {
    let (module, files) = load(name);
    let Some(ap_types) = common::ap_types_or_skip(name) else {
        return;
    };
    let text = std::fs::read_to_string(programs_dir().join(format!("{name}.stf"))).expect("stf");
    let commands = scenic_sim::stf::parse_report(&text).expect("stf parses");
    let golden = scenic_sim::stf::run(&module, &commands, None);
    assert_eq!(
        failures(&golden),
        Vec::<String>::new(),
        "{name}: interpreter"
    );
    let mut csim = CsimDevice::new(&module, &files, &ap_types, &["-Wall", "-Wextra", "-Werror"])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = scenic_sim::stf::run_on(&mut csim, &commands, None);
    assert_eq!(failures(&report), Vec::<String>::new(), "{name}: csim");
    assert_eq!(golden.passed, report.passed, "{name}");
}

#[test]
fn struct_and_array_state_initialisers_on_interpreter_and_csim() {
    stf_on_both("cc_struct_init");
}
