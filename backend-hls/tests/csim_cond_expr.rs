//! The conditional expression `if c { a } else { b }` (docs/language.md §4.17) compiles and
//! C-simulates as the language says: `programs/cond_expr.stf`, whose expectations are computed by
//! hand from §4.17, runs on the interpreter and on the C-simulated kernel of
//! `programs/cond_expr.sn` (a choice, an `else if` chain, function calls and a map insert in
//! branches, of which only the taken one runs, literal and signed branches, a parser state and
//! parser and control `match` scrutinees, constants), and both must pass every check. Skips (with
//! the reason) when `AP_TYPES` is unset outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_backend_hls::csim::CsimDevice;
use std::path::{Path, PathBuf};

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

fn failures(r: &scenic_sim::stf::StfReport) -> Vec<String> {
    r.failures
        .iter()
        .map(|f| format!("line {}: {}", f.pos.line, f.message))
        .collect()
}

#[test]
fn cond_expr_stf_on_interpreter_and_csim() {
    let name = "cond_expr";
    let path = programs_dir().join(format!("{name}.sn"));
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("program loads");
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("the IR after lowering is valid");
    let options = scenic_backend_hls::Options::default();
    let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
    let text = std::fs::read_to_string(programs_dir().join(format!("{name}.stf"))).expect("stf");
    let commands = scenic_sim::stf::parse_report(&text).expect("stf parses");
    let golden = scenic_sim::stf::run(&module, &commands, None);
    assert_eq!(failures(&golden), Vec::<String>::new(), "interpreter");
    let Some(ap_types) = common::ap_types_or_skip(name) else {
        return;
    };
    let mut csim = CsimDevice::new(&module, &files, &ap_types, &["-Wall", "-Wextra", "-Werror"])
        .unwrap_or_else(|e| panic!("{e}"));
    let report = scenic_sim::stf::run_on(&mut csim, &commands, None);
    assert_eq!(failures(&report), Vec::<String>::new(), "csim");
    assert_eq!(golden.passed, report.passed);
}
