//! `.p4` programs as input to `scenicc check`, `sim`, `test` and `emit`: the hand-written v1model
//! program `examples/p4/basic_router.p4` checks cleanly, passes its STF tests, runs a capture and
//! translates to Vitis Networking P4 (and v1model) that passes the same STF tests; broken
//! programs give located diagnostics in the E0701–E0712 range (human and JSON) with exit code 1,
//! never a panic; a missing file is exit code 2.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `scenicc` with `args` in `dir`, with colour off.
fn scenicc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_scenicc"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|err| panic!("cannot run scenicc: {err}"))
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/p4")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts no panic and the expected exit code, showing the output otherwise.
fn assert_code(out: &Output, code: i32) {
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "scenicc panicked:\n{stderr}");
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{stderr}",
        text(&out.stdout)
    );
}

#[test]
fn the_basic_router_checks_cleanly() {
    let out = scenicc(&examples(), &["check", "basic_router.p4"]);
    assert_code(&out, 0);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn the_basic_router_passes_its_stf_tests() {
    let out = scenicc(
        &examples(),
        &["test", "basic_router.p4", "basic_router.stf"],
    );
    assert_code(&out, 0);
    assert_eq!(text(&out.stdout), "15 passed, 0 failed\n");
}

/// A classic pcap (microsecond timestamps, Ethernet) holding `packets`.
fn pcap(packets: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(0xa1b2_c3d4u32.to_le_bytes());
    out.extend(2u16.to_le_bytes());
    out.extend(4u16.to_le_bytes());
    for word in [0u32, 0, 65_535, 1] {
        out.extend(word.to_le_bytes());
    }
    for (i, p) in packets.iter().enumerate() {
        for word in [0u32, i as u32 * 10, p.len() as u32, p.len() as u32] {
            out.extend(word.to_le_bytes());
        }
        out.extend(p);
    }
    out
}

/// The packets of a classic pcap.
fn records(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push(bytes[at + 16..at + 16 + len].to_vec());
        at += 16 + len;
    }
    out
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn the_basic_router_runs_a_capture_with_entries_and_a_csr() {
    let dir = tempfile::tempdir().unwrap();
    let routed =
        hex("020000000001 0200000000aa 0800 450000180000400040116520c0a809090a010203 deadbeef");
    let expired =
        hex("020000000001 0200000000aa 0800 45000018000040000111a420c0a809090a010203 deadbeef");
    let arp = hex("ffffffffffff 0200000000aa 0806 0001080006040001 0200000000aa c0a80909 000000000000 0a000001");
    std::fs::write(
        dir.path().join("in.pcap"),
        pcap(&[routed, expired, arp.clone()]),
    )
    .unwrap();
    let entries = r#"{ "format_version": 1, "tables": { "ipv4_lpm": [
        { "key": { "hdr.ipv4.dst_addr": "10.1.0.0/16" }, "action": "forward",
          "args": { "port": 2, "next_hop": "0x020000000201" } } ] } }"#;
    std::fs::write(dir.path().join("e.json"), entries).unwrap();
    let program = examples().join("basic_router.p4");
    let out = scenicc(
        dir.path(),
        &[
            "sim",
            program.to_str().unwrap(),
            "--in",
            "in.pcap",
            "--out",
            "out.pcap",
            "--entries",
            "e.json",
            "--csr",
            "router_mac=0x0200000000ff",
        ],
    );
    assert_code(&out, 0);
    let got = records(&std::fs::read(dir.path().join("out.pcap")).unwrap());
    let forwarded =
        hex("020000000201 0200000000ff 0800 45000018000040003f116620c0a809090a010203 deadbeef");
    assert_eq!(got, vec![forwarded, arp], "{}", text(&out.stderr));
}

#[test]
fn a_syntax_error_is_e0701_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let program = "#include <core.p4>\n#include <v1model.p4>\nheader h_t { bit<8> x }\n";
    std::fs::write(dir.path().join("bad.p4"), program).unwrap();
    std::fs::write(dir.path().join("in.pcap"), pcap(&[vec![0; 60]])).unwrap();
    let out = scenicc(dir.path(), &["sim", "bad.p4", "--in", "in.pcap"]);
    assert_code(&out, 1);
    assert!(text(&out.stderr).contains("error[E0701]"));
    let out = scenicc(dir.path(), &["check", "bad.p4"]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("error[E0701]"), "{stderr}");
    assert!(stderr.contains("--> bad.p4:3:"), "{stderr}");
    std::fs::write(dir.path().join("t.stf"), "packet 0 00\n").unwrap();
    let out = scenicc(dir.path(), &["test", "bad.p4", "t.stf"]);
    assert_code(&out, 1);
    assert!(text(&out.stderr).contains("error[E0701]"));
}

#[test]
fn an_unsupported_extern_is_e0702_in_json_too() {
    let dir = tempfile::tempdir().unwrap();
    let program = examples().join("basic_router.p4");
    let text_in = std::fs::read_to_string(program).unwrap();
    // `resubmit`: outside the reader's subset.
    let bad = text_in.replace(
        "        to_cpu();\n",
        "        to_cpu();\n        resubmit(meta);\n",
    );
    assert_ne!(bad, text_in);
    std::fs::write(dir.path().join("resubmit.p4"), bad).unwrap();
    let out = scenicc(
        dir.path(),
        &["check", "--message-format", "json", "resubmit.p4"],
    );
    assert_code(&out, 1);
    let stdout = text(&out.stdout);
    let line = stdout.lines().next().unwrap_or_default();
    assert!(line.contains(r#""code":"E0702""#), "{stdout}");
    assert!(line.contains(r#""file":"resubmit.p4""#), "{stdout}");
    assert!(line.contains(r#""line":"#), "{stdout}");
}

#[test]
fn a_missing_p4_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in [
        &["check", "nope.p4"][..],
        &["test", "nope.p4", "nope.stf"][..],
    ] {
        let out = scenicc(dir.path(), cmd);
        assert_code(&out, 2);
    }
}

#[test]
fn check_takes_sn_and_p4_files_together() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.sn"), "const A: bit<8> = 5;\n").unwrap();
    let program = examples().join("basic_router.p4");
    let out = scenicc(
        dir.path(),
        &["-v", "check", "a.sn", program.to_str().unwrap()],
    );
    assert_code(&out, 0);
    assert!(
        text(&out.stderr).contains("2 files checked"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_basic_router_translates_to_either_p4_target_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    for target in ["vitis-p4", "v1model"] {
        let out = scenicc(&examples(), &["emit", target, "basic_router.p4"]);
        assert_code(&out, 0);
        let p4 = text(&out.stdout);
        assert!(p4.contains("from basic_router.p4"), "{p4}");
        // The translation passes the original's STF tests, read back by the P4 reader.
        let path = dir.path().join(format!("basic_router_{target}.p4"));
        std::fs::write(&path, &p4).unwrap();
        let stf = examples().join("basic_router.stf");
        let out = scenicc(
            dir.path(),
            &["test", path.to_str().unwrap(), stf.to_str().unwrap()],
        );
        assert_code(&out, 0);
        assert!(
            text(&out.stdout).contains("15 passed, 0 failed"),
            "{}",
            text(&out.stdout)
        );
    }
}
