//! Shared by the `scenicc sim` tests (`sim_real_traffic.rs`, `sim_bad_input.rs`, `sim_fuzz.rs`):
//! lowering the example programs, running the library simulator and the `scenicc` binary, a
//! deterministic PRNG, packet builders, and a small pcap reader and writer of our own.
//!
//! The checks on the simulator's outputs use `etherparse`, a packet parser that shares no code with
//! `scenic_ir`, and this module's own pcap code rather than `scenic_io`, so that a bug in the
//! system under test cannot hide itself by agreeing with its own checks.

#![allow(dead_code)]

use scenic_ir::Module;
use scenic_sim::capture::{self, SimOptions, SimResult};
use scenic_sim::setup::SetupError;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// `examples/<name>`.
pub fn example(name: &str) -> PathBuf {
    workspace().join("examples").join(name)
}

/// Every `examples/*.sn`, by file name, sorted.
pub fn all_examples() -> Vec<String> {
    let dir = workspace().join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sn"))
        .collect();
    names.sort();
    names
}

/// Checks and lowers a program file.
pub fn lower(path: &Path) -> Module {
    let mut session = scenic_frontend::Session::new();
    session
        .add_path(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    scenic_lower::lower_session(&mut session)
        .unwrap_or_else(|e| panic!("{} does not lower: {e}", path.display()))
}

/// Checks and lowers an example.
pub fn lower_example(name: &str) -> Module {
    lower(&example(name))
}

/// Checks and lowers a program given as text.
pub fn lower_source(name: &str, text: &str) -> Module {
    let mut session = scenic_frontend::Session::new();
    session.add_source(name, text);
    scenic_lower::lower_session(&mut session)
        .unwrap_or_else(|e| panic!("{name} does not lower: {e}"))
}

/// Runs packets through the library simulator with default options.
pub fn simulate(module: &Module, packets: &[(u64, Vec<u8>)]) -> Result<SimResult, SetupError> {
    capture::simulate(
        module,
        packets.iter().map(|(ts, p)| (*ts, p.as_slice())),
        None,
        &[],
        &SimOptions::default(),
    )
}

/// Packets numbered 1 µs apart from t = 1 s, so that an output's timestamp says which input it
/// came from (see [`input_of`]).
pub fn numbered(packets: Vec<Vec<u8>>) -> Vec<(u64, Vec<u8>)> {
    packets
        .into_iter()
        .enumerate()
        .map(|(i, p)| (ts_of(i), p))
        .collect()
}

/// The timestamp [`numbered`] gives packet `i`.
pub fn ts_of(i: usize) -> u64 {
    1_000_000_000 + 1_000 * i as u64
}

/// The input index of an output of a [`numbered`] capture.
pub fn input_of(ts_ns: u64) -> usize {
    ((ts_ns - 1_000_000_000) / 1_000) as usize
}

/// The `scenicc` binary of this build, built (or found up to date) by cargo once per test process.
///
/// Integration tests of this crate do not get `CARGO_BIN_EXE_scenicc` (the binary belongs to the
/// `scenicc` package), so this asks cargo to build it into the target directory this test binary
/// lives in (`<target>/<profile>/deps/<test>`), with the same profile. Under `cargo test
/// --workspace` (scripts/test.sh) it is already built and this costs a fraction of a second.
pub fn scenicc() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .unwrap_or_else(|| panic!("unexpected test binary path {}", exe.display()))
            .to_path_buf();
        let target_dir = profile_dir
            .parent()
            .unwrap_or_else(|| panic!("unexpected test binary path {}", exe.display()));
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev".to_string(),
            Some(other) => other.to_string(),
        };
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(&cargo)
            .args(["build", "-q", "-p", "scenicc", "--profile", &profile])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(workspace())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {cargo}: {e}"));
        assert!(
            out.status.success(),
            "cargo build -p scenicc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bin = profile_dir.join(format!("scenicc{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "{} was not built", bin.display());
        bin
    })
}

/// What a `scenicc` run printed and how it ended.
#[derive(Debug)]
pub struct Run {
    /// The exit code (-1 if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `scenicc` with arguments, with a time limit (a hang is a failure, not a stuck test).
pub fn run_scenicc<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let mut child = Command::new(scenicc())
        .args(&args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run scenicc: {e}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("scenicc {args:?} did not finish within 60 s");
            }
        }
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("scenicc: {e}"));
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The totals of the `summary:` line `scenicc sim` prints: packets in, out, dropped.
pub fn summary_totals(stderr: &str) -> Option<(u64, u64, u64)> {
    let line = stderr.lines().find(|l| l.starts_with("summary: "))?;
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums[..] {
        [a, b, c] => Some((a, b, c)),
        _ => None,
    }
}

/// The repository's one PRNG ([`scenic_ir::rng::SplitMix64`]) with the `usize` draws these
/// tests use.
#[derive(Clone, Debug)]
pub struct Rng(scenic_ir::rng::SplitMix64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(scenic_ir::rng::SplitMix64::new(seed))
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.index(n)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Bytes in hex, for failure messages.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A classic pcap file (little-endian, microseconds, link type Ethernet) with these packets.
pub fn pcap_file(packets: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 262_144, 1] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for (ts, data) in packets {
        let len = data.len() as u32;
        for v in [
            (ts / 1_000_000_000) as u32,
            (ts % 1_000_000_000 / 1_000) as u32,
            len,
            len,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(data);
    }
    out
}

/// Reads a classic pcap file (either byte order, µs or ns): timestamps in ns and packet bytes.
/// Independent of `scenic_io`; panics on anything malformed (it reads only trusted files: those
/// tcpdump and `scenicc sim` wrote).
pub fn read_pcap(bytes: &[u8]) -> Vec<(u64, Vec<u8>)> {
    assert!(bytes.len() >= 24, "pcap file of {} bytes", bytes.len());
    let magic = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let (le, nanos) = match magic {
        0xa1b2_c3d4 => (true, false),
        0xa1b2_3c4d => (true, true),
        0xd4c3_b2a1 => (false, false),
        0x4d3c_b2a1 => (false, true),
        m => panic!("not a pcap file: magic {m:08x}"),
    };
    let u32_at = |at: usize| {
        let b = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    assert_eq!(u32_at(20), 1, "link type is not Ethernet");
    let mut at = 24;
    let mut out = Vec::new();
    while at < bytes.len() {
        assert!(at + 16 <= bytes.len(), "truncated record header at {at}");
        let secs = u64::from(u32_at(at));
        let frac = u64::from(u32_at(at + 4));
        let caplen = u32_at(at + 8) as usize;
        let ts = secs * 1_000_000_000 + if nanos { frac } else { frac * 1_000 };
        at += 16;
        assert!(at + caplen <= bytes.len(), "truncated record data at {at}");
        out.push((ts, bytes[at..at + caplen].to_vec()));
        at += caplen;
    }
    out
}

/// Packet builders (with etherparse's `PacketBuilder` where it has the protocol).
pub mod packets {
    use etherparse::PacketBuilder;

    /// A MAC address of host `n`.
    pub fn mac(n: u8) -> [u8; 6] {
        [0x02, 0, 0, 0, 0x10, n]
    }

    /// An ARP request from `sender` for `target`.
    pub fn arp_request(sender: [u8; 4], target: [u8; 4]) -> Vec<u8> {
        let mut p = Vec::new();
        p.extend_from_slice(&[0xff; 6]);
        p.extend_from_slice(&mac(1));
        p.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0x00, 6, 4, 0, 1]);
        p.extend_from_slice(&mac(1));
        p.extend_from_slice(&sender);
        p.extend_from_slice(&[0; 6]);
        p.extend_from_slice(&target);
        p
    }

    /// Ethernet / IPv4 / UDP.
    pub fn ipv4_udp(
        src: [u8; 4],
        dst: [u8; 4],
        ttl: u8,
        sport: u16,
        dport: u16,
        payload: &[u8],
    ) -> Vec<u8> {
        let b = PacketBuilder::ethernet2(mac(1), mac(2))
            .ipv4(src, dst, ttl)
            .udp(sport, dport);
        let mut out = Vec::with_capacity(b.size(payload.len()));
        b.write(&mut out, payload)
            .unwrap_or_else(|e| panic!("ipv4_udp: {e}"));
        out
    }

    /// Ethernet / IPv4 / TCP with PSH and ACK.
    pub fn ipv4_tcp(
        src: [u8; 4],
        dst: [u8; 4],
        ttl: u8,
        sport: u16,
        dport: u16,
        payload: &[u8],
    ) -> Vec<u8> {
        let b = PacketBuilder::ethernet2(mac(1), mac(2))
            .ipv4(src, dst, ttl)
            .tcp(sport, dport, 1000, 65535)
            .psh()
            .ack(1);
        let mut out = Vec::with_capacity(b.size(payload.len()));
        b.write(&mut out, payload)
            .unwrap_or_else(|e| panic!("ipv4_tcp: {e}"));
        out
    }

    /// Ethernet / IPv6 / UDP.
    pub fn ipv6_udp(
        src: [u8; 16],
        dst: [u8; 16],
        sport: u16,
        dport: u16,
        payload: &[u8],
    ) -> Vec<u8> {
        let b = PacketBuilder::ethernet2(mac(1), mac(2))
            .ipv6(src, dst, 64)
            .udp(sport, dport);
        let mut out = Vec::with_capacity(b.size(payload.len()));
        b.write(&mut out, payload)
            .unwrap_or_else(|e| panic!("ipv6_udp: {e}"));
        out
    }

    /// Ethernet / IPv6 / TCP with PSH and ACK.
    pub fn ipv6_tcp(
        src: [u8; 16],
        dst: [u8; 16],
        sport: u16,
        dport: u16,
        payload: &[u8],
    ) -> Vec<u8> {
        let b = PacketBuilder::ethernet2(mac(1), mac(2))
            .ipv6(src, dst, 64)
            .tcp(sport, dport, 1000, 65535)
            .psh()
            .ack(1);
        let mut out = Vec::with_capacity(b.size(payload.len()));
        b.write(&mut out, payload)
            .unwrap_or_else(|e| panic!("ipv6_tcp: {e}"));
        out
    }

    /// The UDP payload of a RoCEv2 packet: BTH (12 bytes) with `opcode` and destination `qp`,
    /// `headers` (RETH, ImmDt: whatever the opcode carries), the payload, pad bytes to a multiple of
    /// 4 (the count in the BTH), and a 4-byte ICRC (not computed: nothing here checks it).
    pub fn bth_payload(opcode: u8, qp: u32, headers: &[u8], payload: &[u8]) -> Vec<u8> {
        let pad = (4 - payload.len() % 4) % 4;
        let mut p = vec![opcode, (pad as u8) << 4, 0xff, 0xff, 0];
        p.extend_from_slice(&qp.to_be_bytes()[1..]);
        p.extend_from_slice(&[0x80, 0, 0, 1]); // AckReq, PSN 1
        p.extend_from_slice(headers);
        p.extend_from_slice(payload);
        p.extend(std::iter::repeat_n(0u8, pad));
        p.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        p
    }

    /// Ethernet / IPv4 / UDP 4791 / BTH: a RoCEv2 SEND ONLY (opcode 4) on `qp`.
    pub fn roce_send_only(qp: u32, payload: &[u8]) -> Vec<u8> {
        ipv4_udp(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            64,
            49152,
            4791,
            &bth_payload(4, qp, &[], payload),
        )
    }
}

/// Runs `f` on its own thread and waits at most `limit` for it: a hang fails the test (the thread
/// is left behind and ends with the test process) instead of stalling the run. A panic in `f` is
/// re-raised here.
pub fn within<T, F>(limit: std::time::Duration, what: &str, f: F) -> T
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => panic!("{what}: the worker ended without a result"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {limit:?} (a hang)")
        }
    }
}
