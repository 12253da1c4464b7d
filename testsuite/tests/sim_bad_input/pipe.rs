//! Captures that are not regular files: `scenicc sim --in /dev/stdin` reading a pipe, which cannot
//! be read twice, must check and run the capture as it does a file, and report a bad one the same.

use super::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// `scenicc sim l3_router.sn --in /dev/stdin --out <out>` with `bytes` written into its stdin
/// through a pipe.
fn sim_from_pipe(bytes: &[u8], out: &Path) -> Run {
    let program = example("l3_router.sn");
    let mut child = Command::new(scenicc())
        .args([OsStr::new("sim"), program.as_os_str()])
        .args([OsStr::new("--in"), OsStr::new("/dev/stdin")])
        .args([OsStr::new("--out"), out.as_os_str()])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run scenicc: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    let bytes = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        // scenicc may stop reading at a bad header: a broken pipe then is not a failure.
        let _ = stdin.write_all(&bytes);
    });
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("scenicc: {e}"));
    writer.join().unwrap_or_else(|_| panic!("writer thread"));
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_capture_through_a_pipe_runs_as_the_same_file_does() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = pcap_file(&small_capture());
    let path = dir.path().join("in.pcap");
    std::fs::write(&path, &file).unwrap_or_else(|e| panic!("{e}"));
    let from_file = sim_cli("l3_router.sn", &path, &[]);
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    let piped_out = dir.path().join("piped.pcap");
    let from_pipe = sim_from_pipe(&file, &piped_out);
    assert_eq!(from_pipe.code, 0, "{}", from_pipe.stderr);
    assert_eq!(from_pipe.stderr, from_file.stderr);
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(read(&piped_out), read(&dir.path().join("out.pcap")));
}

#[test]
fn a_bad_capture_through_a_pipe_is_reported_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut file = pcap_file(&small_capture());
    file.truncate(file.len() - 3);
    let out = dir.path().join("out.pcap");
    let run = sim_from_pipe(&file, &out);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("/dev/stdin"), "{}", run.stderr);
    assert!(run.stderr.contains("record 2 "), "{}", run.stderr);
    assert!(!out.exists(), "a refused capture writes no output");
    let run = sim_from_pipe(b"not a capture", &out);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("not a pcap or pcapng file"),
        "{}",
        run.stderr
    );
}
