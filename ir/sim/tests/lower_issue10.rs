//! Regression tests of the lowering (AST → IR) for issue 10, each with expectations computed by
//! hand from docs/language.md:
//!
//! - assigning into a nested array: a local in a control and in a `stream` kernel, and a `state`
//!   of a `cc` (the IR after lowering was invalid, `()` where `[bit<8>; 2]` was expected);
//! - a slice assignment whose bounds depend on a loop variable (it vanished);
//! - an or-pattern inside a tuple pattern, in a control `match` and in a parser transition (only
//!   its first alternative was kept);
//! - `x op= e` evaluates the place x once (`arr[tick()] += 5` called `tick()` twice);
//! - a prefix operator applied to a prefix operator (`~(~x)` gave garbage: the inner level had
//!   no type).
//!
//! The programs are `backend-hls/csim/tests/programs/lower_issue10*.sn`, shared with the HLS
//! C-simulation test, with their hand-computed STF files (whose comments quote the sections). Each
//! program runs as lowered and after the passes that rewrite the constructs involved; every
//! variant must give the expected results.

use scenic_frontend::Session;
use scenic_ir::Module;
use scenic_opt::PassManager;
use scenic_sim::stf;

const PROGRAM: &str = include_str!("../../../backend-hls/csim/tests/programs/lower_issue10.sn");
const PROGRAM_STF: &str =
    include_str!("../../../backend-hls/csim/tests/programs/lower_issue10.stf");

const PASSES: [&str; 6] = [
    "constant-folding",
    "function-inlining",
    "loop-unrolling",
    "dead-code-elimination",
    "parser-state-merging",
    "all",
];

fn lower(text: &str) -> Module {
    let mut session = Session::new();
    session.add_source("test.sn", text);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    }
}

/// The module as lowered (and validated), and after each of `PASSES`.
fn variants(text: &str) -> Vec<(String, Module)> {
    let module = lower(text);
    if let Err(e) = scenic_ir::Validator::new().validate(&module) {
        panic!("the IR after lowering is invalid: {e}");
    }
    let pm = PassManager::with_default_passes();
    let mut out = vec![("as lowered".to_string(), module.clone())];
    for pass in PASSES {
        let mut m = module.clone();
        if let Err(e) = pm.run_named(&mut m, &[pass]) {
            panic!("{pass}: {e}");
        }
        out.push((format!("after {pass}"), m));
    }
    out
}

/// Runs STF `text` on every variant of `program`; all its checks must hold.
fn stf_on_variants(program: &str, text: &str, scu: Option<&str>) {
    let commands = match stf::parse_report(text) {
        Ok(c) => c,
        Err(e) => panic!("stf: {e:?}"),
    };
    for (what, module) in variants(program) {
        let report = stf::run(&module, &commands, scu);
        let failures: Vec<String> = report
            .failures
            .iter()
            .map(|f| format!("line {}: {}", f.pos.line, f.message))
            .collect();
        assert!(failures.is_empty(), "{what}: {failures:#?}");
        assert!(report.passed > 0, "{what}: nothing checked");
    }
}

/// All five constructs in a slow-path scu: see lower_issue10.stf for each expected value and the
/// section it follows from.
#[test]
fn issue10_program_on_the_interpreter() {
    stf_on_variants(PROGRAM, PROGRAM_STF, None);
}

const CC: &str = include_str!("../../../backend-hls/csim/tests/programs/lower_issue10_cc.sn");
const CC_STF: &str = include_str!("../../../backend-hls/csim/tests/programs/lower_issue10_cc.stf");
const STREAM: &str =
    include_str!("../../../backend-hls/csim/tests/programs/lower_issue10_stream.sn");
const STREAM_STF: &str =
    include_str!("../../../backend-hls/csim/tests/programs/lower_issue10_stream.stf");

const STACK: &str = include_str!("../../../backend-hls/csim/tests/programs/lower_issue10_stack.sn");
const STACK_STF: &str =
    include_str!("../../../backend-hls/csim/tests/programs/lower_issue10_stack.stf");

/// `x op= e` with an effectful index into a header stack: see lower_issue10_stack.stf.
#[test]
fn compound_assignment_to_a_stack_field_evaluates_the_index_once() {
    stf_on_variants(STACK, STACK_STF, None);
}

/// A nested array `state` of a cc: see lower_issue10_cc.stf for the expected windows.
#[test]
fn nested_array_state_of_a_cc() {
    stf_on_variants(CC, CC_STF, None);
}

/// A nested `let mut` array in a `stream` kernel: see lower_issue10_stream.stf.
#[test]
fn nested_array_local_of_a_stream_kernel() {
    stf_on_variants(STREAM, STREAM_STF, None);
}
