//! The backend's test programs with hand-computed STF files (`tests/programs/NAME.sn` and
//! `NAME.stf`, expectations worked out from docs/language.md, the sections quoted in each file) run
//! on the interpreter and on the C-simulated kernel, and every check must hold on both:
//!
//! - `lower_issue10` (+ `_cc`, `_stream`, `_stack`): constructs the lowering once got wrong (issue
//!   10): nested array places, slices with loop-dependent bounds, or-patterns in tuple patterns in a
//!   `match` and a parser transition, compound assignment with an effectful index, nested prefix
//!   operators, in a control, a cc handler, a stream kernel and on a header stack field;
//! - `cond_expr`: the conditional expression (§4.17): a choice, an `else if` chain, calls and a map
//!   insert in branches of which only the taken one runs, literal and signed branches, a parser
//!   state and parser and control `match` scrutinees, constants;
//! - `cc_struct_init`: a struct or array `state` of a cc starts each new flow at its constant
//!   initialiser (§8.2; the kernel's `flow_t` constructor unpacks its record bits);
//! - `stf_notify_maps`: STF's `expect_notify`, `map_write` and `check_map`.
//!
//! The interpreter always runs; the C simulation skips (with the reason) when `AP_TYPES` is unset
//! outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_hls_csim::CsimDevice;
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
    let text = std::fs::read_to_string(programs_dir().join(format!("{name}.stf"))).expect("stf");
    let commands = scenic_sim::stf::parse_report(&text).expect("stf parses");
    let golden = scenic_sim::stf::run(&module, &commands, None);
    assert_eq!(
        failures(&golden),
        Vec::<String>::new(),
        "{name}: interpreter"
    );
    assert!(golden.passed > 0, "{name}: nothing was checked");
    let Some(ap_types) = common::ap_types_or_skip(name) else {
        return;
    };
    let mut csim = CsimDevice::new(&module, &files, &ap_types, &["-Wall", "-Wextra", "-Werror"])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = scenic_sim::stf::run_on(&mut csim, &commands, None);
    assert_eq!(failures(&report), Vec::<String>::new(), "{name}: csim");
    assert_eq!(golden.passed, report.passed, "{name}");
}

#[test]
fn lower_issue10_stf_on_interpreter_and_csim() {
    stf_on_both("lower_issue10");
}

#[test]
fn nested_array_state_of_a_cc_on_interpreter_and_csim() {
    stf_on_both("lower_issue10_cc");
}

#[test]
fn nested_array_local_of_a_stream_kernel_on_interpreter_and_csim() {
    stf_on_both("lower_issue10_stream");
}

#[test]
fn compound_assignment_to_a_stack_field_on_interpreter_and_csim() {
    stf_on_both("lower_issue10_stack");
}

#[test]
fn notifications_and_maps_from_stf_on_interpreter_and_csim() {
    stf_on_both("stf_notify_maps");
}

#[test]
fn conditional_expressions_on_interpreter_and_csim() {
    stf_on_both("cond_expr");
}

#[test]
fn struct_and_array_state_initialisers_on_interpreter_and_csim() {
    stf_on_both("cc_struct_init");
}
