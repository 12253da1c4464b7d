//! End-to-end tests of `scenicc build` and the bare `scenicc FILE -o OUT`: the package directory, and
//! the `.xo` flow with recording fakes of `v++` and `vitis_hls` on `PATH` (shell scripts that write
//! their arguments and working directory to a log and leave a fake `.xo` where the real tool would).

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("cannot make a temporary directory: {e}"))
}

/// Runs scenicc in `dir` with `PATH` set to `path` (plus the system directories a shell needs).
fn scenicc(dir: &Path, path: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .env("PATH", format!("{}:/usr/bin:/bin", path.display()))
        .output()
        .unwrap_or_else(|e| panic!("cannot run scenicc: {e}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Copies an example into `dir`, so that paths in messages are relative and short.
fn example(dir: &Path, name: &str) {
    let from = Path::new(EXAMPLES).join(name);
    std::fs::copy(&from, dir.join(name)).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
}

/// A fake tool: logs `cwd|args` to `log`, then leaves an .xo as `how` says.
fn fake(bin: &Path, name: &str, log: &Path, xo: &str, exit: i32) {
    let script = format!(
        "#!/bin/sh\nprintf '%s|%s\\n' \"$(pwd)\" \"$*\" >> '{}'\n{xo}\nexit {exit}\n",
        log.display()
    );
    let path = bin.join(name);
    std::fs::write(&path, script).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// What `v++ --work_dir build` leaves: an .xo somewhere under the work directory.
const VPP_XO: &str = "mkdir -p build/hls && printf 'fake xo from v++ in %s' \"$(basename \"$(pwd)\")\" > build/hls/kernel.xo";
/// What `vitis_hls -f run_hls.tcl` leaves: `<kernel>.xo` beside the script.
const VITIS_XO: &str =
    "k=$(basename \"$(pwd)\"); printf 'fake xo from vitis_hls in %s' \"$k\" > \"$k.xo\"";

struct Setup {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    bin: PathBuf,
    log: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempdir();
    let work = tmp.path().join("work");
    let bin = tmp.path().join("bin");
    for d in [&work, &bin] {
        std::fs::create_dir_all(d).unwrap_or_else(|e| panic!("{e}"));
    }
    let log = tmp.path().join("log.txt");
    Setup {
        _tmp: tmp,
        work,
        bin,
        log,
    }
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_directory_gets_the_package() {
    let s = setup();
    example(&s.work, "l3_router.sn");
    let out = scenicc(&s.work, &s.bin, &["l3_router.sn", "-o", "out/router"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pkg = s.work.join("out/router");
    for f in [
        "manifest.json",
        "README.md",
        "hls/Makefile",
        "hls/l3_router/l3_router.cpp",
        "hls/l3_router/run_hls.tcl",
        "hls/l3_router/hls_config.cfg",
        "coyote/vfpga_top.svh",
        "model/module.json",
    ] {
        assert!(pkg.join(f).is_file(), "{f} missing");
    }
    assert!(stderr(&out).contains("out/router"), "{}", stderr(&out));
    // `build` and the bare form write the same bytes.
    let again = scenicc(
        &s.work,
        &s.bin,
        &["build", "l3_router.sn", "-o", "out/again"],
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let a = std::fs::read(pkg.join("manifest.json")).unwrap_or_default();
    let b = std::fs::read(s.work.join("out/again/manifest.json")).unwrap_or_default();
    assert_eq!(a, b);
}

#[test]
fn xo_without_vitis_names_the_package_and_the_command() {
    let s = setup();
    example(&s.work, "firewall.sn");
    let out = scenicc(&s.work, &s.bin, &["firewall.sn", "-o", "scu.xo"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("neither `v++` nor `vitis_hls` is on PATH"),
        "{err}"
    );
    assert!(err.contains("scu.pkg"), "{err}");
    assert!(
        err.contains(
            "cd scu.pkg/hls/incast_firewall && v++ -c --mode hls --config hls_config.cfg --work_dir build"
        ),
        "{err}"
    );
    assert!(s.work.join("scu.pkg/manifest.json").is_file());
    assert!(!s.work.join("scu.xo").exists());
}

#[test]
fn xo_with_vpp_runs_it_in_the_kernel_directory() {
    let s = setup();
    example(&s.work, "firewall.sn");
    fake(&s.bin, "v++", &s.log, VPP_XO, 0);
    fake(&s.bin, "vitis_hls", &s.log, VITIS_XO, 0);
    let out = scenicc(&s.work, &s.bin, &["firewall.sn", "-o", "scu.xo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kdir = s.work.join("scu.pkg/hls/incast_firewall");
    let kdir = kdir.canonicalize().unwrap_or(kdir);
    // v++ is preferred, called once, in the kernel directory, with the config flow.
    assert_eq!(
        log_lines(&s.log),
        [format!(
            "{}|-c --mode hls --config hls_config.cfg --work_dir build",
            kdir.display()
        )]
    );
    let xo = std::fs::read_to_string(s.work.join("scu.xo")).unwrap_or_default();
    assert_eq!(xo, "fake xo from v++ in incast_firewall");
}

#[test]
fn xo_with_vitis_hls_runs_the_tcl_flow() {
    let s = setup();
    example(&s.work, "flow_monitor.sn");
    fake(&s.bin, "vitis_hls", &s.log, VITIS_XO, 0);
    let out = scenicc(&s.work, &s.bin, &["flow_monitor.sn", "-o", "build/mon.xo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = log_lines(&s.log);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with("build/mon.pkg/hls/flow_monitor|-f run_hls.tcl"),
        "{lines:?}"
    );
    let xo = std::fs::read_to_string(s.work.join("build/mon.xo")).unwrap_or_default();
    assert_eq!(xo, "fake xo from vitis_hls in flow_monitor");
}

#[test]
fn a_failing_tool_is_an_error() {
    let s = setup();
    example(&s.work, "firewall.sn");
    fake(
        &s.bin,
        "v++",
        &s.log,
        "echo 'ERROR: [HLS 200-70] synthesis failed' >&2",
        3,
    );
    let out = scenicc(&s.work, &s.bin, &["firewall.sn", "-o", "scu.xo"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("synthesis failed"),
        "the tool's log reaches stderr: {err}"
    );
    assert!(err.contains("failed (exit status: 3)"), "{err}");
    assert!(!s.work.join("scu.xo").exists());
}

#[test]
fn a_tool_that_leaves_no_xo_is_an_error() {
    let s = setup();
    example(&s.work, "firewall.sn");
    fake(&s.bin, "v++", &s.log, "true", 0);
    let out = scenicc(&s.work, &s.bin, &["firewall.sn", "-o", "scu.xo"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("left no .xo"), "{}", stderr(&out));
}

#[test]
fn a_program_with_only_congestion_controllers_builds_their_kernels() {
    let s = setup();
    example(&s.work, "dcqcn.sn");
    let out = scenicc(&s.work, &s.bin, &["dcqcn.sn", "-o", "dc"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(s.work.join("dc/manifest.json").is_file());
    assert!(s.work.join("dc/hls/dcqcn/dcqcn.cpp").is_file());
    assert!(s.work.join("dc/hls/dcqcn/run_hls.tcl").is_file());
    // The cc's ports are SCENIC transport interfaces: no vFPGA glue is written for it.
    assert!(!s.work.join("dc/coyote/vfpga_top.svh").exists());
    let xo = scenicc(&s.work, &s.bin, &["dcqcn.sn", "-o", "dc.xo"]);
    assert_eq!(xo.status.code(), Some(1));
    assert!(stderr(&xo).contains("hls/dcqcn"), "{}", stderr(&xo));
}

#[test]
fn programs_with_errors_and_bad_outputs() {
    let s = setup();
    std::fs::write(s.work.join("bad.sn"), "const A: bit<8> = 10mb;\n").unwrap_or_default();
    let out = scenicc(&s.work, &s.bin, &["bad.sn", "-o", "out"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error[E0004]"), "{}", stderr(&out));
    assert!(!s.work.join("out").exists());
    let missing = scenicc(&s.work, &s.bin, &["missing.sn", "-o", "out"]);
    assert_eq!(missing.status.code(), Some(2));
    // A directory that is not a package is not written into.
    example(&s.work, "l3_router.sn");
    std::fs::create_dir_all(s.work.join("taken")).unwrap_or_default();
    std::fs::write(s.work.join("taken/mine.txt"), "x").unwrap_or_default();
    let taken = scenicc(&s.work, &s.bin, &["l3_router.sn", "-o", "taken"]);
    assert_eq!(taken.status.code(), Some(2));
    assert!(
        stderr(&taken).contains("not an SCU package"),
        "{}",
        stderr(&taken)
    );
}

#[test]
fn emit_manifest_prints_what_build_writes() {
    let s = setup();
    example(&s.work, "l3_router.sn");
    let emitted = scenicc(&s.work, &s.bin, &["emit", "manifest", "l3_router.sn"]);
    assert_eq!(emitted.status.code(), Some(0), "{}", stderr(&emitted));
    let built = scenicc(&s.work, &s.bin, &["l3_router.sn", "-o", "p"]);
    assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
    let written = std::fs::read(s.work.join("p/manifest.json")).unwrap_or_default();
    assert_eq!(emitted.stdout, written);
}

/// A ternary table of 65536 entries: a register CAM far over the U55C's flip-flops.
const TOO_BIG: &str = "\
use std::net::{ethernet};
scu edge on slow_path {
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    action a() { }
    table t {
        key { eth.dst: ternary }
        actions { a }
        size 65536;
    }
    control { t.apply(); }
}
";

#[test]
fn backend_limits_are_reported_like_diagnostics() {
    let s = setup();
    std::fs::write(s.work.join("big.sn"), TOO_BIG).unwrap_or_default();
    let out = scenicc(&s.work, &s.bin, &["big.sn", "-o", "big"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("error: table `t`"), "{err}");
    assert!(err.contains("--> big.sn:6:5"), "{err}");
    assert!(
        err.contains("flip-flops"),
        "the figure and the limit: {err}"
    );
    assert!(
        err.ends_with("error: could not build `big.sn` due to 1 previous error\n"),
        "{err}"
    );
    assert!(!s.work.join("big").exists(), "nothing is written");
    let json = scenicc(
        &s.work,
        &s.bin,
        &["--message-format", "json", "big.sn", "-o", "big"],
    );
    assert_eq!(json.status.code(), Some(1));
    let line = String::from_utf8_lossy(&json.stdout).into_owned();
    let v: serde_json::Value =
        serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(v["severity"], "error");
    assert_eq!(v["file"], "big.sn");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(6), Some(5))
    );
    assert_eq!(v["labels"][0]["primary"], true);
}
