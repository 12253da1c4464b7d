//! A valid program whose statements nest 10,000 deep: an `else if` chain of 10,000 arms (bracket
//! depth 1, so E0014 does not apply). It checks, builds into a package whose model reads back, and
//! runs its STF tests: no stage may overflow the stack or refuse it (issue 11; the frontend's
//! nasty-input test covers `check` on a 2 MiB thread, testsuite/tests/mutations/nasty.rs).
//!
//! Arm k (k = 0..9,999) tests `eth.src[15:0] == k` and sets the CSR `c` to k (language.md §5.3: the
//! first arm whose condition holds runs); a packet from ..:12:34 sets c = 0x1234, one from ..:27:0f
//! sets 9,999 (the last arm), one from ..:27:10 matches no arm and leaves c at 9,999.

use std::path::Path;
use std::process::{Command, Output};

const ARMS: usize = 10_000;

fn program() -> String {
    let mut arms = String::new();
    for k in 1..ARMS {
        arms.push_str(&format!(
            "        }} else if eth.src[15:0] == {k} {{\n            c = {k};\n"
        ));
    }
    format!(
        "use std::net::ethernet;\nscu deep on slow_path {{\n    csr c: bit<16> = 0xffff;\n    \
         headers {{ eth: ethernet }}\n    parser {{ state start {{ extract(eth); accept }} }}\n    \
         control {{\n        if eth.src[15:0] == 0 {{\n            c = 0;\n{arms}        }}\n        \
         to_network(1);\n    }}\n}}\n"
    )
}

const STF: &str = "\
packet 0 020000000001 020000001234 0800 00000000
expect 1
check_csr c == 0x1234
packet 0 020000000001 02000000270f 0800 00000000
expect 1
check_csr c == 9999
packet 0 020000000001 020000002710 0800 00000000
expect 1
check_csr c == 9999
";

fn scenicc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|err| panic!("cannot run scenicc: {err}"))
}

fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_else_if_chain_of_10000_arms_checks_builds_and_runs() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("deep.sn"), program()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("deep.stf"), STF).unwrap_or_else(|e| panic!("{e}"));
    assert_ok(&scenicc(dir.path(), &["check", "deep.sn"]), "check");
    assert_ok(
        &scenicc(dir.path(), &["build", "deep.sn", "-o", "out"]),
        "build",
    );
    let model = std::fs::read_to_string(dir.path().join("out/model/module.json"))
        .unwrap_or_else(|e| panic!("model: {e}"));
    let module = scenic_ir::model::from_json(&model).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(module.scus.len(), 1);
    // The kernel writes the chain as one `if ... else if ...` (it nested 10,000 deep: 1.2 GB of
    // indentation, past any C++ compiler's bracket depth).
    let cpp = std::fs::read_to_string(dir.path().join("out/hls/deep/deep.cpp"))
        .unwrap_or_else(|e| panic!("kernel: {e}"));
    let deepest = cpp.lines().map(|l| l.len() - l.trim_start().len()).max();
    assert!(deepest.is_some_and(|d| d <= 64), "indentation {deepest:?}");
    let out = scenicc(dir.path(), &["test", "deep.sn", "deep.stf"]);
    assert_ok(&out, "test");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "6 passed, 0 failed\n");
    let p4 = scenicc(dir.path(), &["emit", "v1model", "deep.sn"]);
    assert_ok(&p4, "emit v1model");
    let text = String::from_utf8_lossy(&p4.stdout);
    assert_eq!(text.matches("} else if (").count(), ARMS - 1);
}
