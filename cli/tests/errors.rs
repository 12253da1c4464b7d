//! scenicc's own errors, one or more per family (`cli/src/errors/`), end to end: the exit code is
//! the one the command had before the errors were typed, and the report miette draws has the
//! error's code, its message, its cause chain (`` `-> ``) and its help; an entries file's error
//! shows the line at fault. Reports are plain with `--color never` and coloured with `always`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `scenicc` with `args` in `dir`, with colour off unless `args` say otherwise.
fn scenicc(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_scenicc"));
    if !args.contains(&"--color") {
        command.args(["--color", "never"]);
    }
    command
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|err| panic!("cannot run scenicc: {err}"))
}

/// A temporary directory holding `files` and a copy of the example `l3_router.sn`.
fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("no temporary directory: {err}"));
    let example = example("l3_router.sn");
    std::fs::copy(&example, dir.path().join("l3_router.sn"))
        .unwrap_or_else(|err| panic!("cannot copy {}: {err}", example.display()));
    for (name, bytes) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|err| panic!("{name}: {err}"));
        }
        std::fs::write(&path, bytes).unwrap_or_else(|err| panic!("cannot write {name}: {err}"));
    }
    dir
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// An empty pcap capture (the file header only).
fn empty_pcap() -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    bytes.extend_from_slice(&2u16.to_le_bytes());
    bytes.extend_from_slice(&4u16.to_le_bytes());
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&65_535u32.to_le_bytes());
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes
}

/// Checks the exit code and that stderr is the plain report of `code` with `message`, a cause
/// containing `cause` (if any) and `help`; returns stderr.
fn assert_report(
    out: &Output,
    exit: i32,
    code: &str,
    message: &str,
    cause: Option<&str>,
    help: &str,
) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(exit), "{err}");
    assert!(
        err.starts_with(&format!("{code}\n\n  x {message}\n")),
        "{code} / {message}:\n{err}"
    );
    if let Some(cause) = cause {
        let line = err
            .lines()
            .find(|l| l.starts_with("  `-> ") || l.starts_with("  |-> "));
        assert!(
            line.is_some_and(|l| l.contains(cause)),
            "cause {cause:?}:\n{err}"
        );
    }
    assert!(err.contains(&format!("  help: {help}")), "help:\n{err}");
    assert!(!err.contains('\u{1b}'), "escape codes:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn input_errors_an_unreadable_program_and_an_unknown_scu() {
    let dir = project(&[("t.stf", b"expect 1 00\n")]);
    let out = scenicc(dir.path(), &["check", "missing.sn"]);
    assert_report(
        &out,
        2,
        "scenicc::input::read",
        "cannot read `missing.sn`",
        Some("os error"),
        "check that the path names a readable file (not a directory)",
    );
    let out = scenicc(
        dir.path(),
        &["test", "l3_router.sn", "t.stf", "--scu", "nope"],
    );
    assert_report(
        &out,
        2,
        "scenicc::input::no_such_scu",
        "no scu named `nope` in the program (its scus: `l3_router`)",
        None,
        "`--scu` takes the name of an scu the program defines",
    );
}

#[test]
fn build_errors_a_directory_that_is_not_a_package_and_a_p4_xo() {
    let dir = project(&[("taken/mine.txt", b"x")]);
    let out = scenicc(dir.path(), &["build", "l3_router.sn", "-o", "taken"]);
    assert_report(
        &out,
        2,
        "scenicc::build::write_package",
        "cannot write the SCU package to `taken`",
        Some("exists and is not an SCU package"),
        "`-o` must be a new directory",
    );
    assert!(!dir.path().join("taken/manifest.json").exists());
    let out = scenicc(
        dir.path(),
        &["build", "l3_router.sn", "--target", "v1model", "-o", "r.xo"],
    );
    assert_report(
        &out,
        2,
        "scenicc::build::xo_for_p4",
        "`--target v1model` writes a package directory with `p4/<scu>.p4`, not a `.xo`",
        None,
        "give a directory as `-o`, or use `--target hls` for the kernel object",
    );
}

#[test]
fn build_error_vitis_missing_exits_1_and_says_what_to_run() {
    let dir = project(&[]);
    let out = Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args(["--color", "never", "l3_router.sn", "-o", "r.xo"])
        .current_dir(dir.path())
        .env("PATH", dir.path())
        .output()
        .unwrap_or_else(|err| panic!("cannot run scenicc: {err}"));
    let err = assert_report(
        &out,
        1,
        "scenicc::build::no_vitis",
        "neither `v++` nor `vitis_hls` is on PATH, so `r.xo` was not made",
        None,
        "the SCU package is written to r.pkg; on a machine with Vitis",
    );
    assert!(
        err.contains("cd r.pkg/hls/l3_router && v++ -c --mode hls"),
        "{err}"
    );
}

/// A bad address on line 3 of an entries file: the report labels the value at fault.
#[test]
fn sim_error_an_entries_file_is_shown_at_its_line() {
    let entries = "{\"format_version\": 1,\n \"tables\": {\"routes\": [\n  {\"action\": \"forward\", \"key\": {\"ip.dst\": \"10.0.0.1/8\"}}]}}\n";
    let dir = project(&[("in.pcap", &empty_pcap()), ("e.json", entries.as_bytes())]);
    let out = scenicc(
        dir.path(),
        &[
            "sim",
            "l3_router.sn",
            "--in",
            "in.pcap",
            "--entries",
            "e.json",
        ],
    );
    let err = assert_report(
        &out,
        2,
        "scenicc::sim::entries",
        "invalid entries in `e.json` at line 3, column 54",
        Some("the address has bits set beyond its /8 prefix"),
        "the format of entries files is in docs/testing.md",
    );
    for part in [
        ",-[e.json:3:54]",
        " 3 |   {\"action\": \"forward\", \"key\": {\"ip.dst\": \"10.0.0.1/8\"}}]}}",
        "`-- at tables.routes[0].key.\"ip.dst\"",
    ] {
        assert!(err.contains(part), "{part:?} in:\n{err}");
    }
}

#[test]
fn sim_errors_a_bad_capture_and_a_setup_the_program_refuses() {
    let dir = project(&[("in.pcap", &empty_pcap()), ("junk.pcap", b"junk")]);
    let out = scenicc(dir.path(), &["sim", "l3_router.sn", "--in", "junk.pcap"]);
    assert_report(
        &out,
        2,
        "scenicc::sim::capture",
        "`junk.pcap` is not a capture scenicc can run",
        Some("not a pcap or pcapng file"),
        "`--in` takes a pcap or pcapng capture",
    );
    let out = scenicc(
        dir.path(),
        &["sim", "l3_router.sn", "--in", "in.pcap", "--csr", "nope=1"],
    );
    assert_report(
        &out,
        1,
        "scenicc::sim::setup",
        "the simulation cannot go on",
        Some("no CSR or param named `nope`"),
        "`--scu`, the tables and CSRs of `--entries` and `--csr` must be the program's",
    );
}

#[test]
fn test_errors_an_unreadable_stf_and_missing_ap_types() {
    let dir = project(&[("t.stf", b"expect 1 00\n")]);
    let out = scenicc(dir.path(), &["test", "l3_router.sn", "missing.stf"]);
    assert_report(
        &out,
        2,
        "scenicc::test::read",
        "cannot read `missing.stf`",
        Some("os error"),
        "check that the path names a readable STF file",
    );
    assert!(out.stdout.is_empty(), "no test ran");
    let out = scenicc(
        dir.path(),
        &[
            "test",
            "l3_router.sn",
            "t.stf",
            "--backend",
            "hls-csim",
            "--ap-types",
            "no-such-dir",
        ],
    );
    assert_report(
        &out,
        2,
        "scenicc::test::ap_types",
        "`--backend hls-csim` needs AMD's ap_types headers",
        Some("no-such-dir does not hold ap_int.h"),
        "run scripts/fetch-ap-types.sh",
    );
}

#[test]
fn emit_and_explain_errors() {
    let dir = project(&[]);
    let out = scenicc(
        dir.path(),
        &["emit", "ir", "--passes", "cse", "l3_router.sn"],
    );
    assert_report(
        &out,
        2,
        "scenicc::emit::passes",
        "`--passes` cannot run as given",
        Some("unknown pass `cse`; the passes are"),
        "`scenicc emit ir --passes help FILE` lists the passes and aliases",
    );
    let out = scenicc(
        dir.path(),
        &["emit", "hls", "--scu", "nope", "l3_router.sn"],
    );
    assert_report(
        &out,
        2,
        "scenicc::emit::no_such_kernel",
        "the program has no scu or cc named `nope`",
        None,
        "`--scu` takes the name of an scu or cc the program defines",
    );
    let out = scenicc(dir.path(), &["explain", "E9999"]);
    assert_report(
        &out,
        2,
        "scenicc::explain::unknown_code",
        "no such diagnostic code `E9999`",
        None,
        "run `scenicc explain --list` to see every code",
    );
}

/// `--color always` draws in colour (and unicode); JSON mode still reports on stderr, not stdout.
#[test]
fn colour_and_json_mode() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["--color", "always", "check", "missing.sn"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains('\u{1b}'), "{err}");
    assert!(err.contains("cannot read `missing.sn`"), "{err}");
    let out = scenicc(
        dir.path(),
        &["--message-format", "json", "check", "missing.sn"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("scenicc::input::read"));
}
