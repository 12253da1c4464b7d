//! End-to-end tests of the `scenicc` binary: exit codes, what goes to stdout and stderr, and the
//! global options. Programs are written into a temporary directory and checked from there. The failing
//! programs use syntax errors so that they do not depend on the type checker's details.

use std::path::Path;
use std::process::{Command, Output};

const CLEAN: &str = "const A: bit<8> = 5;\n";
/// E0004 (unknown unit) at 1:19.
const BAD_UNIT: &str = "const A: bit<8> = 10mb;\n";
/// E0009 (expected an item) at 1:1.
const NOT_AN_ITEM: &str = "function f() {}\n";

/// Runs `scenicc` with `args` in `dir`, with colour off.
fn scenicc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|err| panic!("cannot run scenicc: {err}"))
}

/// A temporary directory holding the given files.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir()
        .unwrap_or_else(|err| panic!("cannot make a temporary directory: {err}"));
    for (name, text) in files {
        if let Err(err) = std::fs::write(dir.path().join(name), text) {
            panic!("cannot write {name}: {err}");
        }
    }
    dir
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

#[test]
fn a_clean_file_checks_with_exit_0_and_no_output() {
    let dir = project(&[("ok.sn", CLEAN)]);
    let out = scenicc(dir.path(), &["check", "ok.sn"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_eq!(stdout(&out), "");
}

#[test]
fn verbose_prints_progress_and_ok() {
    let dir = project(&[("ok.sn", CLEAN)]);
    let out = scenicc(dir.path(), &["check", "-v", "ok.sn"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "checking ok.sn\nok: 1 file checked\n");
}

#[test]
fn errors_exit_1_with_rustc_style_diagnostics_and_a_summary() {
    let dir = project(&[("bad.sn", BAD_UNIT)]);
    let out = scenicc(dir.path(), &["check", "bad.sn"]);
    assert_eq!(code(&out), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error[E0004]"), "{err}");
    assert!(err.contains("--> bad.sn:1:19"), "{err}");
    assert!(
        err.ends_with("error: could not check `bad.sn` due to 1 previous error\n"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}'), "colour with --color never: {err}");
    assert_eq!(stdout(&out), "");
}

#[test]
fn several_files_are_checked_together() {
    let dir = project(&[("a.sn", BAD_UNIT), ("b.sn", NOT_AN_ITEM), ("c.sn", CLEAN)]);
    let out = scenicc(dir.path(), &["check", "a.sn", "b.sn", "c.sn"]);
    assert_eq!(code(&out), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error[E0004]") && err.contains("--> a.sn:1:19"),
        "{err}"
    );
    assert!(
        err.contains("error[E0009]") && err.contains("--> b.sn:1:1"),
        "{err}"
    );
    assert!(
        err.contains("could not check 3 files due to 2 previous errors"),
        "{err}"
    );
}

#[test]
fn quiet_drops_the_summary_but_not_the_diagnostics() {
    let dir = project(&[("bad.sn", NOT_AN_ITEM)]);
    let out = scenicc(dir.path(), &["check", "-q", "bad.sn"]);
    assert_eq!(code(&out), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error[E0009]"), "{err}");
    assert!(!err.contains("could not check"), "{err}");
}

#[test]
fn a_missing_file_exits_2_with_a_clear_message() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["check", "missing.sn"]);
    assert_eq!(code(&out), Some(2));
    let err = stderr(&out);
    // scenicc's own errors are drawn by miette: code, message, cause, help.
    assert!(
        err.starts_with("scenicc::input::read\n\n  x cannot read `missing.sn`\n  `-> "),
        "{err}"
    );
    assert!(
        err.contains("help: check that the path names a readable file"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_directory_is_not_a_file() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["check", "."]);
    assert_eq!(code(&out), Some(2));
    assert!(
        stderr(&out).starts_with("scenicc::input::read\n\n  x cannot read `.`\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_diagnostics_are_one_object_per_line_on_stdout() {
    let dir = project(&[("a.sn", BAD_UNIT), ("b.sn", NOT_AN_ITEM)]);
    let out = scenicc(
        dir.path(),
        &["check", "--message-format", "json", "a.sn", "b.sn"],
    );
    assert_eq!(code(&out), Some(1));
    assert_eq!(stderr(&out), "", "no summary in JSON mode");
    let text = stdout(&out);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| match serde_json::from_str(line) {
            Ok(value) => value,
            Err(err) => panic!("not JSON: {line}: {err}"),
        })
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    for key in [
        "severity", "code", "message", "file", "line", "column", "labels",
    ] {
        assert!(
            lines.iter().all(|d| d.get(key).is_some()),
            "missing `{key}` in {text}"
        );
    }
    let first = &lines[0];
    assert_eq!(first["severity"], "error");
    assert_eq!(first["code"], "E0004");
    assert_eq!(first["file"], "a.sn");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(1), Some(19))
    );
    assert_eq!(lines[1]["code"], "E0009");
}

#[test]
fn json_mode_prints_nothing_for_a_clean_file() {
    let dir = project(&[("ok.sn", CLEAN)]);
    let out = scenicc(
        dir.path(),
        &["check", "--message-format=json", "-v", "ok.sn"],
    );
    assert_eq!(code(&out), Some(0));
    assert_eq!(stdout(&out), "");
}

#[test]
fn deny_warnings_is_accepted_and_unknown_lints_are_usage_errors() {
    let dir = project(&[("ok.sn", CLEAN)]);
    let out = scenicc(dir.path(), &["check", "-D", "warnings", "ok.sn"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let out = scenicc(dir.path(), &["-D", "warnings", "check", "ok.sn"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let out = scenicc(dir.path(), &["check", "-D", "nonsense", "ok.sn"]);
    assert_eq!(code(&out), Some(2));
    assert!(stderr(&out).contains("nonsense"), "{}", stderr(&out));
}

#[test]
fn usage_errors_exit_2() {
    let dir = project(&[]);
    assert_eq!(code(&scenicc(dir.path(), &[])), Some(2));
    assert_eq!(code(&scenicc(dir.path(), &["check"])), Some(2));
    assert_eq!(code(&scenicc(dir.path(), &["frobnicate"])), Some(2));
    assert_eq!(
        code(&scenicc(
            dir.path(),
            &["--message-format", "xml", "check", "a.sn"]
        )),
        Some(2)
    );
    assert_eq!(
        code(&scenicc(dir.path(), &["-q", "-v", "check", "a.sn"])),
        Some(2)
    );
}

#[test]
fn explain_prints_the_section_for_a_code_in_any_case() {
    let dir = project(&[]);
    for code_arg in ["E0001", "e0001"] {
        let out = scenicc(dir.path(), &["explain", code_arg]);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("## E0001: syntax error\n"), "{text}");
        assert!(
            text.contains("Erroneous example:") && text.contains("const A: bit<8> = ;"),
            "{text}"
        );
        assert!(!text.contains("## E0002"), "{text}");
    }
}

#[test]
fn explain_rejects_unknown_codes_with_exit_2() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["explain", "E9999"]);
    assert_eq!(code(&out), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("scenicc::explain::unknown_code\n\n  x no such diagnostic code `E9999`\n"),
        "{err}"
    );
    assert!(
        err.contains("help: run `scenicc explain --list` to see every code"),
        "{err}"
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn explain_list_prints_every_code_with_its_title() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["explain", "--list"]);
    assert_eq!(code(&out), Some(0));
    let text = stdout(&out);
    assert!(
        text.lines().any(|line| line == "E0001: syntax error"),
        "{text}"
    );
    assert!(
        text.lines().any(|line| line == "E0004: unknown unit"),
        "{text}"
    );
    assert!(
        text.lines().any(|line| line.starts_with("W0001: ")),
        "{text}"
    );
}

#[test]
fn version_and_help() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["--version"]);
    assert_eq!(code(&out), Some(0));
    assert_eq!(
        stdout(&out),
        format!("scenicc {}\n", env!("CARGO_PKG_VERSION"))
    );
    for args in [
        &["--help"][..],
        &["check", "--help"],
        &["explain", "--help"],
        &["help", "check"],
        // Help about help is help, not a usage error (it once exited 2).
        &["help", "--help"],
        &["help", "-h"],
        &["--color", "never", "help", "--help"],
    ] {
        let out = scenicc(dir.path(), args);
        assert_eq!(code(&out), Some(0), "{args:?}");
        let text = stdout(&out);
        assert!(
            text.contains("Examples:") && text.contains("scenicc "),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn color_always_colours_diagnostics_and_summary() {
    let dir = project(&[("bad.sn", BAD_UNIT)]);
    let out = scenicc(dir.path(), &["check", "--color", "always", "bad.sn"]);
    assert_eq!(code(&out), Some(1));
    let err = stderr(&out);
    assert!(err.contains("\u{1b}["), "{err}");
    assert!(err.contains("could not check"), "{err}");
}

#[test]
fn emit_ir_prints_the_lowered_program() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args([
            "emit",
            "ir",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/l3_router.sn"),
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("scu0 \"l3_router\" on slow_path"), "{text}");
    assert!(text.contains("table0 \"routes\""), "{text}");
}

const WITH_A_CALL: &str = "use std::net::{ethernet};
fn twice(x: bit<16>) -> bit<16> { return x + x; }
scu inl on slow_path {
    csr total: bit<16>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { total = twice(eth.ether_type); drop(); }
}
";

#[test]
fn emit_ir_runs_the_passes_asked_for_in_order() {
    let dir = project(&[("inl.sn", WITH_A_CALL)]);
    let plain = scenicc(dir.path(), &["emit", "ir", "inl.sn"]);
    assert_eq!(code(&plain), Some(0), "{}", stderr(&plain));
    assert!(stdout(&plain).contains("csr0 = fn0(inst0.ether_type)"));

    let all = scenicc(dir.path(), &["emit", "ir", "--passes", "all", "inl.sn"]);
    assert_eq!(code(&all), Some(0), "{}", stderr(&all));
    let text = stdout(&all);
    assert!(!text.contains("fn0"), "inlined and removed:\n{text}");
    assert!(text.contains("add(v0, v0)"), "{text}");

    // Inlining alone keeps the (now unused) function; dead-code elimination then removes it.
    let inl = scenicc(
        dir.path(),
        &["emit", "ir", "--passes", "function-inlining", "inl.sn"],
    );
    assert!(stdout(&inl).contains("fn0 \"twice\""));
    assert!(!stdout(&inl).contains("fn0(inst0"));
}

#[test]
fn emit_ir_rejects_unknown_and_empty_pass_names_with_exit_2() {
    let dir = project(&[("inl.sn", WITH_A_CALL)]);
    let out = scenicc(dir.path(), &["emit", "ir", "--passes", "cse", "inl.sn"]);
    assert_eq!(code(&out), Some(2));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(err.contains("unknown pass `cse`"), "{err}");
    assert!(err.contains("constant-folding"), "lists the passes: {err}");

    let out = scenicc(
        dir.path(),
        &[
            "emit",
            "ir",
            "--passes",
            "constant-folding,,compact",
            "inl.sn",
        ],
    );
    assert_eq!(code(&out), Some(2));
    assert!(stderr(&out).contains("empty pass name"), "{}", stderr(&out));
}

#[test]
fn emit_ir_passes_help_lists_passes_and_aliases() {
    let dir = project(&[]);
    let out = scenicc(dir.path(), &["emit", "ir", "--passes", "help", "any.sn"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for name in [
        "constant-folding",
        "dead-code-elimination",
        "function-inlining",
        "loop-unrolling",
        "parser-state-merging",
        "table-key-packing",
        "all",
        "cleanup",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

#[test]
fn a_binary_file_is_one_short_error_that_echoes_none_of_its_bytes() {
    let dir = project(&[]);
    // 24 KB of what an object file looks like: a header, NUL bytes, printable runs, no newlines.
    let mut bytes = b"\x7fELF\x02\x01\x01".to_vec();
    for i in 0..24_000u32 {
        bytes.push(if i % 7 == 0 { 0 } else { b'A' + (i % 26) as u8 });
    }
    std::fs::write(dir.path().join("scu.sn"), &bytes).unwrap_or_else(|e| panic!("{e}"));
    let out = scenicc(dir.path(), &["check", "scu.sn"]);
    assert_eq!(code(&out), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error[E0013]: source file is binary, not text"),
        "{err}"
    );
    assert!(err.contains("a NUL byte at offset 7"), "{err}");
    assert!(
        err.len() < 1_000,
        "{} bytes of diagnostics:\n{err}",
        err.len()
    );
    assert!(
        !err.contains("ABCDEF"),
        "the file's bytes are echoed:\n{err}"
    );
}

#[test]
fn test_with_an_unknown_scu_names_it_and_the_program_s_scus() {
    let dir = project(&[
        (
            "s.sn",
            "use std::net::ethernet;\nscu fw on slow_path {\n    csr c: bit<8>;\n    headers { eth: ethernet }\n    parser { state start { extract(eth); accept } }\n}\n",
        ),
        ("t.stf", "set_csr c 1\ncheck_csr c == 1\n"),
    ]);
    let out = scenicc(dir.path(), &["test", "s.sn", "t.stf", "--scu", "nope"]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("no scu named `nope` in the program (its scus: `fw`)"),
        "{err}"
    );
    assert!(!err.contains("unknown") && stdout(&out).is_empty(), "{err}");
}

/// `cc-sim` writes the summary, the CSVs and the plots, and its last line names every file it
/// wrote; with stderr not a terminal there is no progress bar.
#[test]
fn cc_sim_lists_the_files_it_wrote_and_draws_no_bar_off_a_terminal() {
    let scenario =
        "duration = \"100us\"\n[topology]\nkind = \"incast\"\n[[flow]]\nsize = \"50KB\"\n";
    let dir = project(&[("s.toml", scenario)]);
    let program = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/dcqcn.sn");
    let args = ["cc-sim", program, "--scenario", "s.toml", "--out", "out"];
    let out = scenicc(dir.path(), &args);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let last = text.lines().last().unwrap_or_default();
    for file in [
        "summary.json",
        "rates.csv",
        "queue.csv",
        "rates.svg",
        "queue.svg",
    ] {
        assert!(last.contains(file), "{last}");
        assert!(dir.path().join("out").join(file).exists(), "{file}");
    }
    assert!(last.contains("fct_slowdown.svg"), "{last}");
    assert!(!stderr(&out).contains("simulating"), "{}", stderr(&out));
}

/// A program whose tests hold on every optimisation: `bump` counts one call per packet
/// (language.md §5.2: an index is evaluated once), even where `a` is never read.
const COUNTING: &str = "header hd { f: bit<8> }\nscu u on slow_path {\n    csr calls: bit<8>;\n    headers { h: hd }\n    parser { state start { extract(h); accept } }\n    fn bump() -> bit<1> {\n        calls += 1;\n        return 1;\n    }\n    control {\n        let mut a: [bit<8>; 2] = [0, 0];\n        a[bump()] = h.f;\n    }\n}\n";

#[test]
fn test_with_passes_runs_the_tests_on_the_optimised_program() {
    let stf = "packet 0 05\nexpect 256 05 $\nwait\ncheck_csr calls == 1\n";
    let dir = project(&[("s.sn", COUNTING), ("t.stf", stf)]);
    for passes in ["all", "dead-code-elimination,compact", "cleanup"] {
        let out = scenicc(dir.path(), &["test", "--passes", passes, "s.sn", "t.stf"]);
        assert_eq!(code(&out), Some(0), "{passes}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("2 passed, 0 failed"),
            "{passes}: {}",
            stdout(&out)
        );
    }
    // A wrong expectation fails the same way with and without passes.
    let dir = project(&[
        ("s.sn", COUNTING),
        ("t.stf", "packet 0 05\nwait\ncheck_csr calls == 2\n"),
    ]);
    let out = scenicc(dir.path(), &["test", "--passes", "all", "s.sn", "t.stf"]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
}

#[test]
fn test_with_an_unknown_pass_is_a_usage_error_naming_the_passes() {
    let dir = project(&[("s.sn", COUNTING), ("t.stf", "check_csr calls == 0\n")]);
    let out = scenicc(dir.path(), &["test", "--passes", "nope", "s.sn", "t.stf"]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("unknown pass `nope`") && err.contains("loop-unrolling"),
        "{err}"
    );
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}
