//! `scenicc build FILE --target vitis-p4|v1model -o DIR`: the SCU package with `p4/<scu>.p4`, the
//! program `scenicc emit` prints; a program the target cannot express is refused with its P-codes
//! and nothing is written; `.xo` is refused for P4 targets; a later `--target hls` build removes
//! `p4/`. The written program reads back (`scenicc test DIR/p4/l3_router.p4 examples/l3_router.stf`
//! passes: the command-line round trip).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scenicc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|err| panic!("cannot run scenicc: {err}"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_code(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// Builds l3_router for `target` and checks `p4/l3_router.p4` against `scenicc emit` and the STF
/// tests run on the written program.
fn builds_l3_router(target: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = scenicc(
        &root(),
        &[
            "build",
            "examples/l3_router.sn",
            "--target",
            target,
            "-o",
            dir.path().join("pkg").to_str().unwrap(),
        ],
    );
    assert_code(&out, 0);
    assert!(
        text(&out.stderr).contains("1 P4 program"),
        "{}",
        text(&out.stderr)
    );
    let pkg = dir.path().join("pkg");
    assert!(pkg.join("manifest.json").is_file());
    let written = std::fs::read_to_string(pkg.join("p4/l3_router.p4")).unwrap();
    let emitted = scenicc(&root(), &["emit", target, "examples/l3_router.sn"]);
    assert_code(&emitted, 0);
    assert_eq!(written, text(&emitted.stdout));
    let program = pkg.join("p4/l3_router.p4");
    let stf = root().join("examples/l3_router.stf");
    let tested = scenicc(
        &root(),
        &["test", program.to_str().unwrap(), stf.to_str().unwrap()],
    );
    assert_code(&tested, 0);
    assert!(text(&tested.stdout).ends_with(" passed, 0 failed\n"));
    // An hls build of the same package leaves no P4 programs behind.
    let out = scenicc(
        &root(),
        &[
            "build",
            "examples/l3_router.sn",
            "-o",
            pkg.to_str().unwrap(),
        ],
    );
    assert_code(&out, 0);
    assert!(!pkg.join("p4").exists());
}

#[test]
fn v1model_build_writes_p4_that_reads_back() {
    builds_l3_router("v1model");
}

#[test]
fn vitis_p4_build_writes_p4_that_reads_back() {
    builds_l3_router("vitis-p4");
}

#[test]
fn a_program_the_target_cannot_express_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    let out = scenicc(
        &root(),
        &[
            "build",
            "examples/firewall.sn",
            "--target",
            "v1model",
            "-o",
            pkg.to_str().unwrap(),
        ],
    );
    assert_code(&out, 1);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error[P0003]"), "{stderr}");
    assert!(stderr.contains("--> examples/firewall.sn:"), "{stderr}");
    assert!(!pkg.exists());
}

#[test]
fn an_xo_is_not_a_p4_output() {
    let dir = tempfile::tempdir().unwrap();
    let xo = dir.path().join("scu.xo");
    let out = scenicc(
        &root(),
        &[
            "build",
            "examples/l3_router.sn",
            "--target",
            "vitis-p4",
            "-o",
            xo.to_str().unwrap(),
        ],
    );
    assert_code(&out, 2);
    assert!(text(&out.stderr).contains("--target hls"));
}
