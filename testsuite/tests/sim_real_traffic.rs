//! `scenicc sim` on traffic from the real Linux network stack.
//!
//! Two network namespaces joined by a veth pair exchange ARP, ICMP echo, IPv6 neighbour discovery and
//! ICMPv6 echo, TCP transfers over IPv4 and IPv6, a refused TCP connection, and UDP datagrams, while
//! tcpdump records one end. The capture then goes through `examples/l3_router.sn`,
//! `examples/flow_monitor.sn` and `examples/firewall.sn` in the library simulator, and once through the
//! `scenicc` binary, and every result is checked against expectations computed independently with
//! `etherparse` from the captured packets.
//!
//! Needs root (namespaces, veth, tcpdump) and the tools `ip`, `tcpdump`, `ping`, `bash`, and `socat`
//! or `nc` for the TCP listener; `scripts/test.sh` installs them. Without root the test prints
//! "skipping: needs root to create network namespaces" and passes. With root but without the tools (or
//! where namespaces cannot be created) it skips with the reason, unless `SCENIC_REQUIRE_NETNS=1` is set
//! (as `scripts/test.sh` does once it has installed them), when it fails instead.
//!
//! Names are unique per run (`scnt<pid>a`, `scnt<pid>b`, for both the namespaces and the veth ends);
//! everything is removed when the test ends, also on failure (`Drop`), and namespaces of earlier runs
//! whose process is gone (an interrupted run) are removed at the start.

mod support;

use etherparse::{Icmpv4Type, Icmpv6Type, NetHeaders, PacketHeaders, TransportHeader};
use scenic_ir::sim::{HOST_PORT, PASS_PORT};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::*;

/// The prefix of every namespace and interface name this test creates.
const PREFIX: &str = "scnt";

/// Addresses: namespace a (the client, where tcpdump runs) and namespace b, one pair per route of
/// `l3_router.sn` (10.1.0.0/16 → port 2, 192.168.0.0/16 → port 3, 10.0.0.0/8 → port 1, everything
/// else → port 0), with b holding the router's own address 10.0.0.1 in the 10.0.0.0/24 pair.
const V4_PAIRS: [([u8; 4], [u8; 4]); 4] = [
    ([10, 1, 2, 1], [10, 1, 2, 2]),
    ([192, 168, 7, 1], [192, 168, 7, 2]),
    ([172, 16, 9, 1], [172, 16, 9, 2]),
    ([10, 0, 0, 2], [10, 0, 0, 1]),
];
const V6_A: &str = "fd00:5c::1";
const V6_B: &str = "fd00:5c::2";
/// Bytes sent over each TCP connection.
const TCP_BYTES: usize = 20_000;

fn v4(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Skips (prints the reason and returns) or, under `SCENIC_REQUIRE_NETNS=1`, fails.
fn skip(reason: &str) {
    if std::env::var("SCENIC_REQUIRE_NETNS").is_ok_and(|v| v == "1") {
        panic!("SCENIC_REQUIRE_NETNS=1 but {reason}");
    }
    println!("skipping: {reason}");
    eprintln!("skipping: {reason}");
}

/// Runs a command to completion; its stdout, or an error with its stderr.
fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn ip(args: &[&str]) -> Result<String, String> {
    run(Command::new("ip").args(args))
}

fn in_ns(ns: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", ns]).args(args);
    cmd
}

/// Kills the processes left in a namespace of ours (only ever processes this test started in it)
/// and deletes it.
fn remove_namespace(ns: &str) {
    if let Ok(pids) = ip(&["netns", "pids", ns]) {
        for pid in pids.split_whitespace() {
            let _ = run(Command::new("kill").args(["-KILL", pid]));
        }
    }
    let _ = ip(&["netns", "del", ns]);
}

/// Removes namespaces and interfaces of earlier runs whose test process no longer exists.
fn remove_stale() {
    let stale = |name: &str| {
        name.strip_prefix(PREFIX)
            .and_then(|rest| rest.strip_suffix(['a', 'b']))
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
    };
    if let Ok(list) = ip(&["netns", "list"]) {
        for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
            if stale(name) {
                remove_namespace(name);
            }
        }
    }
    if let Ok(links) = ip(&["-o", "link", "show"]) {
        for name in links
            .lines()
            .filter_map(|l| l.split(": ").nth(1))
            .map(|n| n.split('@').next().unwrap_or(n))
        {
            if stale(name) {
                let _ = ip(&["link", "del", name]);
            }
        }
    }
}

/// Two namespaces `a` and `b` joined by veth ends of the same names; removed on drop.
struct Lab {
    a: String,
    b: String,
    children: Vec<Child>,
}

impl Lab {
    fn new() -> Result<Lab, String> {
        let id = std::process::id();
        let lab = Lab {
            a: format!("{PREFIX}{id}a"),
            b: format!("{PREFIX}{id}b"),
            children: Vec::new(),
        };
        // A namespace of our pid can only be left over from a run whose pid was reused.
        remove_namespace(&lab.a);
        remove_namespace(&lab.b);
        ip(&["netns", "add", &lab.a])?;
        ip(&["netns", "add", &lab.b])?;
        let (a, b) = (lab.a.clone(), lab.b.clone());
        ip(&["link", "add", &a, "type", "veth", "peer", "name", &b])?;
        ip(&["link", "set", &a, "netns", &a])?;
        ip(&["link", "set", &b, "netns", &b])?;
        for (ns, side) in [(&a, 0), (&b, 1)] {
            for (pa, pb) in V4_PAIRS {
                let addr = if side == 0 { pa } else { pb };
                ip(&[
                    "-n",
                    ns,
                    "addr",
                    "add",
                    &format!("{}/24", v4(addr)),
                    "dev",
                    ns,
                ])?;
            }
            let v6 = if side == 0 { V6_A } else { V6_B };
            // nodad: usable at once (the link-local addresses still do duplicate address detection).
            ip(&[
                "-n",
                ns,
                "addr",
                "add",
                &format!("{v6}/64"),
                "dev",
                ns,
                "nodad",
            ])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
            ip(&["-n", ns, "link", "set", ns, "up"])?;
        }
        Ok(lab)
    }

    fn spawn(&mut self, mut cmd: Command) -> Result<usize, String> {
        let child = cmd
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        self.children.push(child);
        Ok(self.children.len() - 1)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for child in &mut self.children {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
        remove_namespace(&self.a);
        remove_namespace(&self.b);
        // Deleting a namespace deletes the veth end in it, and with it its peer; this is for a veth
        // created but not yet moved when something failed.
        let _ = ip(&["link", "del", &self.a]);
    }
}

/// Waits for a child with a time limit.
fn wait_child(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                panic!("{what} did not finish within {limit:?}");
            }
        }
    }
}

/// Whether a TCP port is listening in a namespace (from /proc/net/tcp{,6}: state 0A is LISTEN).
fn listening(ns: &str, port: u16) -> bool {
    let needle = format!(":{port:04X} ");
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|file| {
        run(&mut in_ns(ns, &["cat", file])).is_ok_and(|t| {
            t.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 3 && format!("{} ", f[1]).ends_with(&needle) && f[3] == "0A"
            })
        })
    })
}

/// A listener in namespace `ns` on `addr`:`port` that reads one connection and exits.
fn listener(ns: &str, v6: bool, addr: &str, port: u16) -> Command {
    if have("socat") {
        let spec = if v6 {
            format!("TCP6-LISTEN:{port},bind=[{addr}],reuseaddr")
        } else {
            format!("TCP4-LISTEN:{port},bind={addr},reuseaddr")
        };
        let mut cmd = in_ns(ns, &["socat", "-u", &spec, "OPEN:/dev/null"]);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        cmd
    } else {
        // netcat-openbsd: `nc -l [addr] port` serves one connection.
        let family = if v6 { "-6" } else { "-4" };
        let p = port.to_string();
        let mut cmd = in_ns(ns, &["nc", family, "-l", addr, &p]);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        cmd
    }
}

/// Generates the traffic and returns the capture file and tcpdump's count of captured packets.
fn capture(lab: &mut Lab, dir: &Path) -> Result<(PathBuf, u64), String> {
    let (a, b) = (lab.a.clone(), lab.b.clone());
    let pcap = dir.join("real.pcap");
    let pcap_s = pcap.to_string_lossy().into_owned();
    // -U and --immediate-mode: every packet is written as it arrives (without the latter, libpcap's
    // TPACKET_V3 ring hands packets over only when a block fills or a timeout passes, and packets
    // still in the ring when tcpdump stops are lost). -Z root: keep writing into our temp directory.
    let mut cmd = in_ns(
        &a,
        &[
            "tcpdump",
            "-i",
            &a,
            "-n",
            "-U",
            "--immediate-mode",
            "-Z",
            "root",
            "-w",
            &pcap_s,
        ],
    );
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let td = lab.spawn(cmd)?;
    let stderr = lab.children[td].stderr.take().ok_or("no tcpdump stderr")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut td_lines = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(line) => {
                let ready = line.contains("listening on");
                td_lines.push(line);
                if ready {
                    break;
                }
            }
            Err(_) => return Err(format!("tcpdump did not start: {td_lines:?}")),
        }
    }

    let ping = |args: &[&str]| -> Result<String, String> {
        let mut all = vec!["ping", "-n", "-W", "2"];
        all.extend_from_slice(args);
        run(&mut in_ns(&a, &all))
    };
    // ARP and ICMP echo on every IPv4 pair (one route each), 3 echoes on the first.
    ping(&["-c", "3", "-i", "0.2", &v4(V4_PAIRS[0].1)])?;
    for (_, peer) in &V4_PAIRS[1..] {
        ping(&["-c", "1", &v4(*peer)])?;
    }
    // TTL 1: fine for a directly connected peer, dropped by the router.
    ping(&["-c", "1", "-t", "1", &v4(V4_PAIRS[0].1)])?;
    // IPv6 neighbour discovery and ICMPv6 echo.
    ping(&["-6", "-c", "3", "-i", "0.2", V6_B])?;

    // TCP over IPv4 and IPv6: a listener in b, bash's /dev/tcp in a.
    let peer4 = v4(V4_PAIRS[0].1);
    for (v6, addr, port) in [(false, peer4.as_str(), 5001u16), (true, V6_B, 5003)] {
        let l = lab.spawn(listener(&b, v6, addr, port))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !listening(&b, port) {
            if Instant::now() > deadline {
                return Err(format!("nothing listens on port {port} in {b}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let script = format!("head -c {TCP_BYTES} /dev/zero | tr '\\0' s > /dev/tcp/{addr}/{port}");
        run(&mut in_ns(&a, &["bash", "-c", &script]))?;
        wait_child(
            &mut lab.children[l],
            Duration::from_secs(10),
            "the TCP listener",
        );
    }
    // A refused connection to telnet (SYN, RST): the firewall denies it.
    let _ = run(&mut in_ns(
        &a,
        &["bash", "-c", &format!("exec 3<>/dev/tcp/{peer4}/23")],
    ));
    // UDP over IPv4 and IPv6 (nobody listens: ICMP port unreachable comes back), and to the
    // portmapper port, which the firewall denies.
    for target in [
        format!("{peer4}/5002"),
        format!("{V6_B}/5002"),
        format!("{peer4}/111"),
    ] {
        run(&mut in_ns(
            &a,
            &[
                "bash",
                "-c",
                &format!("echo hello-scenic > /dev/udp/{target}"),
            ],
        ))?;
    }
    std::thread::sleep(Duration::from_millis(300));

    // Stop tcpdump with SIGINT, as a user would: it flushes, closes the file and prints its counts.
    let pid = lab.children[td].id().to_string();
    run(Command::new("kill").args(["-INT", &pid]))?;
    let status = wait_child(&mut lab.children[td], Duration::from_secs(10), "tcpdump");
    td_lines.extend(rx.try_iter());
    while let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
        td_lines.push(line);
    }
    if !status.success() {
        return Err(format!("tcpdump ended with {status}: {td_lines:?}"));
    }
    let captured = td_lines
        .iter()
        .find_map(|l| l.strip_suffix(" packets captured"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("no packet count from tcpdump: {td_lines:?}"))?;
    Ok((pcap, captured))
}

/// What a captured packet is, told by etherparse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Arp,
    Icmp4Echo,
    Icmp4Other,
    Nd,
    Icmp6Echo,
    Icmp6Other,
    Tcp4,
    Tcp6,
    Udp4,
    Udp6,
    Other,
}

fn kind(h: &PacketHeaders<'_>) -> Kind {
    match (&h.net, &h.transport) {
        (Some(NetHeaders::Arp(_)), _) => Kind::Arp,
        (Some(NetHeaders::Ipv4(..)), Some(TransportHeader::Tcp(_))) => Kind::Tcp4,
        (Some(NetHeaders::Ipv6(..)), Some(TransportHeader::Tcp(_))) => Kind::Tcp6,
        (Some(NetHeaders::Ipv4(..)), Some(TransportHeader::Udp(_))) => Kind::Udp4,
        (Some(NetHeaders::Ipv6(..)), Some(TransportHeader::Udp(_))) => Kind::Udp6,
        (_, Some(TransportHeader::Icmpv4(i))) => match i.icmp_type {
            Icmpv4Type::EchoRequest(_) | Icmpv4Type::EchoReply(_) => Kind::Icmp4Echo,
            _ => Kind::Icmp4Other,
        },
        (_, Some(TransportHeader::Icmpv6(i))) => match i.icmp_type {
            Icmpv6Type::EchoRequest(_) | Icmpv6Type::EchoReply(_) => Kind::Icmp6Echo,
            Icmpv6Type::NeighborSolicitation | Icmpv6Type::NeighborAdvertisement(_) => Kind::Nd,
            _ => Kind::Icmp6Other,
        },
        _ => Kind::Other,
    }
}

/// The one's complement sum of a header's 16-bit words folded to 16 bits: 0xffff when its checksum
/// is right (RFC 1071).
fn ones_sum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

const ROUTER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
const ROUTER_IP: [u8; 4] = [10, 0, 0, 1];

/// The route `l3_router.sn` has for a destination: port and next-hop MAC (longest prefix).
fn route(dst: [u8; 4]) -> (u32, [u8; 6]) {
    let d = u32::from_be_bytes(dst);
    let routes: [(u32, u32, u32, [u8; 6]); 3] = [
        (0x0a00_0000, 8, 1, [2, 0, 0, 0, 1, 1]),
        (0x0a01_0000, 16, 2, [2, 0, 0, 0, 2, 1]),
        (0xc0a8_0000, 16, 3, [2, 0, 0, 0, 3, 1]),
    ];
    routes
        .iter()
        .filter(|(net, len, _, _)| d >> (32 - len) == net >> (32 - len))
        .max_by_key(|(_, len, _, _)| *len)
        .map_or((0, [2, 0, 0, 0, 0, 0xfe]), |(_, _, port, mac)| {
            (*port, *mac)
        })
}

/// What `l3_router.sn` must do with one packet: `None` to drop it, else the port and the bytes.
fn router_expectation(p: &[u8], h: &PacketHeaders<'_>) -> Option<(u32, Vec<u8>)> {
    let Some(NetHeaders::Ipv4(ip4, _)) = &h.net else {
        return Some((HOST_PORT, p.to_vec())); // ARP, IPv6, anything else: the host
    };
    if ip4.ihl() != 5 || ip4.destination == ROUTER_IP {
        return Some((HOST_PORT, p.to_vec()));
    }
    if ip4.time_to_live <= 1 {
        return None;
    }
    let (port, next_hop) = route(ip4.destination);
    let mut out = p.to_vec();
    let mut new = ip4.clone();
    new.time_to_live -= 1;
    new.header_checksum = new.calc_header_checksum();
    out[0..6].copy_from_slice(&next_hop);
    out[6..12].copy_from_slice(&ROUTER_MAC);
    out[14..34].copy_from_slice(&new.to_bytes());
    Some((port, out))
}

/// For each packet, how many runs of an `every <period>` block have happened when it is processed.
/// Virtual time starts at the first packet and never goes back (the latest timestamp so far); a run
/// due at time t happens just before the first packet at or after t.
fn every_runs(packets: &[(u64, Vec<u8>)], period_ns: u64) -> Vec<u64> {
    let first = packets.first().map_or(0, |p| p.0);
    let mut now = first;
    packets
        .iter()
        .map(|(ts, _)| {
            now = now.max(*ts);
            (now - first) / period_ns
        })
        .collect()
}

fn csr(result: &scenic_ir::sim::capture::SimResult, name: &str) -> u64 {
    result
        .summary
        .csrs
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or_else(|| panic!("no CSR {name} in the summary: {:?}", result.summary.csrs))
}

fn counter(result: &scenic_ir::sim::capture::SimResult, name: &str) -> BTreeMap<usize, (u64, u64)> {
    result
        .summary
        .counters
        .iter()
        .filter(|(n, ..)| n == name)
        .map(|(_, cell, p, b)| (*cell, (*p, *b)))
        .collect()
}

#[test]
fn real_linux_traffic_through_the_examples() {
    if !is_root() {
        println!("skipping: needs root to create network namespaces");
        eprintln!("skipping: needs root to create network namespaces");
        return;
    }
    for tool in ["ip", "tcpdump", "ping", "bash", "kill", "head", "tr", "cat"] {
        if !have(tool) {
            return skip(&format!(
                "`{tool}` is not installed (scripts/test.sh installs it)"
            ));
        }
    }
    if !have("socat") && !have("nc") {
        return skip("neither `socat` nor `nc` is installed (scripts/test.sh installs socat)");
    }
    let started = Instant::now();
    remove_stale();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let mut lab = match Lab::new() {
        Ok(lab) => lab,
        Err(e) => return skip(&format!("cannot create network namespaces: {e}")),
    };
    let (pcap_path, tcpdump_count) =
        capture(&mut lab, dir.path()).unwrap_or_else(|e| panic!("generating traffic: {e}"));
    drop(lab);
    let bytes = std::fs::read(&pcap_path).unwrap_or_else(|e| panic!("reading the capture: {e}"));

    // The capture, read by our own reader, by scenic_ir's reader, and counted by tcpdump.
    let packets = read_pcap(&bytes);
    assert_eq!(packets.len() as u64, tcpdump_count, "tcpdump's count");
    let records = scenic_ir::io::read_all(&bytes).unwrap_or_else(|e| panic!("scenic_ir: {e}"));
    assert_eq!(records.len(), packets.len());
    for (r, (ts, p)) in records.iter().zip(&packets) {
        assert_eq!((r.ts_ns, r.data), (*ts, p.as_slice()));
    }

    // What it holds, per etherparse: every packet Linux sent must parse.
    let headers: Vec<PacketHeaders<'_>> = packets
        .iter()
        .enumerate()
        .map(|(i, (_, p))| {
            PacketHeaders::from_ethernet_slice(p).unwrap_or_else(|e| {
                panic!("captured packet {} does not parse: {e}: {}", i + 1, hex(p))
            })
        })
        .collect();
    let mut kinds: BTreeMap<Kind, usize> = BTreeMap::new();
    for h in &headers {
        *kinds.entry(kind(h)).or_default() += 1;
    }
    println!("capture: {} packets: {kinds:?}", packets.len());
    for k in [
        Kind::Arp,
        Kind::Icmp4Echo,
        Kind::Nd,
        Kind::Icmp6Echo,
        Kind::Tcp4,
        Kind::Tcp6,
        Kind::Udp4,
        Kind::Udp6,
    ] {
        assert!(
            kinds.get(&k).copied().unwrap_or(0) > 0,
            "the capture has no {k:?} packet: {kinds:?}"
        );
    }
    let tcp_payload: usize = headers
        .iter()
        .filter(|h| matches!(h.transport, Some(TransportHeader::Tcp(_))))
        .map(|h| h.payload.slice().len())
        .sum();
    assert!(
        tcp_payload >= 2 * TCP_BYTES,
        "only {tcp_payload} TCP payload bytes captured"
    );

    check_l3_router(&packets, &headers);
    check_flow_monitor(&packets, &headers);
    check_firewall(&packets, &headers);
    check_cli(&pcap_path, &packets, dir.path());
    println!(
        "real traffic test: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

fn check_l3_router(packets: &[(u64, Vec<u8>)], headers: &[PacketHeaders<'_>]) {
    let module = lower_example("l3_router.sn");
    let result = simulate(&module, packets).unwrap_or_else(|e| panic!("l3_router: {e}"));
    let mut expected = Vec::new();
    let (mut forwarded, mut expired) = (0u64, 0u64);
    for ((_, p), h) in packets.iter().zip(headers) {
        match router_expectation(p, h) {
            Some((port, out)) => {
                forwarded += u64::from(port != HOST_PORT);
                expected.push((port, out));
            }
            None => expired += 1,
        }
    }
    assert_eq!(
        result.packets.len(),
        expected.len(),
        "l3_router: packets out"
    );
    for (i, (out, (port, bytes))) in result.packets.iter().zip(&expected).enumerate() {
        assert_eq!(
            out.port,
            *port,
            "l3_router: output {} went to the wrong port",
            i + 1
        );
        assert_eq!(out.data, *bytes, "l3_router: output {} differs", i + 1);
        // Independently of the expectation: the header of a forwarded packet is well formed.
        let h = PacketHeaders::from_ethernet_slice(&out.data)
            .unwrap_or_else(|e| panic!("l3_router output {} does not parse: {e}", i + 1));
        if out.port != HOST_PORT {
            let Some(NetHeaders::Ipv4(ip4, _)) = &h.net else {
                panic!("l3_router forwarded a non-IPv4 packet: {}", hex(&out.data));
            };
            assert_eq!(
                ip4.header_checksum,
                ip4.calc_header_checksum(),
                "checksum of output {}",
                i + 1
            );
            assert_eq!(ones_sum(&out.data[14..14 + ip4.header_len()]), 0xffff);
            assert_eq!(
                route(ip4.destination).1,
                out.data[0..6],
                "next hop of output {}",
                i + 1
            );
        }
    }
    // Nothing but IPv4 is forwarded, and all of ARP goes to the host.
    let arp = headers.iter().filter(|h| kind(h) == Kind::Arp).count();
    let ports: BTreeMap<u32, u64> = result.summary.out_per_port.clone();
    assert!(ports.get(&HOST_PORT).copied().unwrap_or(0) >= arp as u64);
    assert!(expired > 0, "the TTL-1 ping was not in the capture");
    assert!(
        ports.len() >= 5,
        "every route and the host are used: {ports:?}"
    );
    assert_eq!(csr(&result, "forwarded"), forwarded);
    assert_eq!(csr(&result, "ttl_expired"), expired);
    assert_eq!(
        result.summary.dropped.get("drop").copied().unwrap_or(0),
        expired
    );
    println!(
        "l3_router: {} in, out per port {ports:?} (256 = host), dropped {:?}",
        result.summary.packets_in, result.summary.dropped
    );
}

/// flow_monitor's view of a packet: its 5-tuple (addresses, protocol, ports; ports 0 when the
/// parser does not reach a TCP or UDP header) and its `mix` cell (tcp 0, udp 1, other IPv4 2,
/// other IPv6 3). Ports are read from the bytes where the program's parser reads them, only when
/// the whole TCP (20 bytes) or UDP (8 bytes) header is there, as `extract` requires.
/// A 5-tuple: addresses (source then destination), protocol, source and destination port.
type Tuple = (Vec<u8>, u8, u16, u16);

fn flow_view(p: &[u8], h: &PacketHeaders<'_>) -> Option<(Tuple, usize)> {
    let (addrs, proto, l4, other) = match &h.net {
        Some(NetHeaders::Ipv4(ip, _)) => {
            let plain = ip.ihl() == 5 && ip.fragment_offset.value() == 0;
            (
                [ip.source, ip.destination].concat(),
                ip.protocol.0,
                plain.then_some(34),
                2,
            )
        }
        Some(NetHeaders::Ipv6(ip, _)) => (
            [ip.source, ip.destination].concat(),
            ip.next_header.0,
            Some(54),
            3,
        ),
        _ => return None,
    };
    let need = match proto {
        6 => 20,
        17 => 8,
        _ => usize::MAX,
    };
    match l4.filter(|at| p.len().saturating_sub(*at) >= need) {
        Some(at) => {
            let sp = u16::from_be_bytes([p[at], p[at + 1]]);
            let dp = u16::from_be_bytes([p[at + 2], p[at + 3]]);
            Some(((addrs, proto, sp, dp), if proto == 6 { 0 } else { 1 }))
        }
        None => Some(((addrs, proto, 0, 0), other)),
    }
}

fn check_flow_monitor(packets: &[(u64, Vec<u8>)], headers: &[PacketHeaders<'_>]) {
    let module = lower_example("flow_monitor.sn");
    let result = simulate(&module, packets).unwrap_or_else(|e| panic!("flow_monitor: {e}"));
    // Passive: every packet reaches the host unchanged.
    assert_eq!(result.packets.len(), packets.len());
    for (out, (_, p)) in result.packets.iter().zip(packets) {
        assert_eq!(out.port, HOST_PORT);
        assert_eq!(&out.data, p);
        PacketHeaders::from_ethernet_slice(&out.data)
            .unwrap_or_else(|e| panic!("flow_monitor output: {e}"));
    }
    assert!(result.summary.dropped.is_empty());
    // The traffic mix counter: tcp 0, udp 1, other IPv4 2, other IPv6 3 (packets, bytes).
    let mut mix: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
    let mut first_seen: BTreeMap<Tuple, usize> = BTreeMap::new();
    for (i, ((_, p), h)) in packets.iter().zip(headers).enumerate() {
        let Some((tuple, cell)) = flow_view(p, h) else {
            continue;
        };
        let e = mix.entry(cell).or_default();
        e.0 += 1;
        e.1 += p.len() as u64;
        first_seen.entry(tuple).or_insert(i);
    }
    assert_eq!(counter(&result, "mix"), mix, "flow_monitor: counter mix");
    // new_flows counts the flows first seen since the last `every 10ms` run, which resets it.
    let runs = every_runs(packets, 10_000_000);
    let total = runs.last().copied().unwrap_or(0);
    let new_flows = first_seen.values().filter(|i| runs[**i] == total).count() as u64;
    assert_eq!(
        csr(&result, "new_flows"),
        new_flows,
        "flow_monitor: new_flows"
    );
    assert_eq!(csr(&result, "map_full"), 0);
    assert_eq!(
        result.summary.notifications, total,
        "one notification per run"
    );
    println!(
        "flow_monitor: {} flows, mix {mix:?}, new_flows {new_flows}, {} notifications",
        first_seen.len(),
        result.summary.notifications
    );
}

fn check_firewall(packets: &[(u64, Vec<u8>)], headers: &[PacketHeaders<'_>]) {
    let module = lower_example("firewall.sn");
    let result = simulate(&module, packets).unwrap_or_else(|e| panic!("firewall: {e}"));
    let mut expected = Vec::new();
    let (mut denied, mut malformed, mut window) = (0u64, 0u64, 0u64);
    let mut by_pod: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
    let runs = every_runs(packets, 1_000_000);
    let total = runs.last().copied().unwrap_or(0);
    for (((_, p), h), run) in packets.iter().zip(headers).zip(&runs) {
        let Some(NetHeaders::Ipv4(ip4, _)) = &h.net else {
            expected.push(p.clone()); // not IPv4: the host
            continue;
        };
        if ip4.ihl() != 5 {
            malformed += 1;
            continue;
        }
        if *run == total {
            window += 1; // window_packets counts since the last `every 1ms` run
        }
        let e = by_pod.entry(usize::from(ip4.source[1])).or_default();
        e.0 += 1;
        e.1 += p.len() as u64;
        let dport = match &h.transport {
            Some(TransportHeader::Tcp(t)) => Some((6, t.destination_port)),
            Some(TransportHeader::Udp(u)) => Some((17, u.destination_port)),
            _ => None,
        };
        let management = ip4.source[0] == 10 && ip4.source[1] == 255;
        if !management && matches!(dport, Some((6, 23)) | Some((17, 111))) {
            denied += 1;
            continue;
        }
        expected.push(p.clone());
    }
    let out: Vec<Vec<u8>> = result.packets.iter().map(|o| o.data.clone()).collect();
    assert!(result.packets.iter().all(|o| o.port == HOST_PORT));
    assert_eq!(out.len(), expected.len(), "firewall: packets out");
    assert!(
        out == expected,
        "firewall: the packets that reach the host differ"
    );
    for o in &out {
        PacketHeaders::from_ethernet_slice(o).unwrap_or_else(|e| panic!("firewall output: {e}"));
    }
    assert!(
        denied >= 2,
        "the telnet SYN and the portmapper datagram are in the capture"
    );
    // Drops only for the program's reasons: deny and malformed (the limiter's 256 KiB burst is far
    // more than this capture), and the CSRs say so.
    let drops: u64 = result.summary.dropped.values().sum();
    assert_eq!(
        drops,
        denied + malformed,
        "firewall drops: {:?}",
        result.summary.dropped
    );
    assert!(
        result.summary.dropped.keys().all(|k| k == "drop"),
        "{:?}",
        result.summary.dropped
    );
    assert_eq!(csr(&result, "dropped"), denied + malformed);
    assert_eq!(csr(&result, "malformed"), malformed);
    assert_eq!(csr(&result, "rate_limited"), 0);
    assert_eq!(csr(&result, "window_packets"), window);
    assert_eq!(
        counter(&result, "by_pod"),
        by_pod,
        "firewall: counter by_pod"
    );
    assert_eq!(
        result.summary.notifications, total,
        "one notification per run"
    );
    println!(
        "firewall: {} in, {} to the host, dropped {:?} (denied {denied}, malformed {malformed}), by_pod {by_pod:?}",
        result.summary.packets_in,
        out.len(),
        result.summary.dropped
    );
}

/// The same capture through the `scenicc` binary: its files and summary agree with the library.
fn check_cli(pcap: &Path, packets: &[(u64, Vec<u8>)], dir: &Path) {
    let module = lower_example("l3_router.sn");
    let result = simulate(&module, packets).unwrap_or_else(|e| panic!("l3_router: {e}"));
    let out = dir.join("out.pcap");
    let out_dir = dir.join("per-port");
    let program = example("l3_router.sn");
    let run = run_scenicc([
        OsStr::new("sim"),
        program.as_os_str(),
        OsStr::new("--in"),
        pcap.as_os_str(),
        OsStr::new("--out"),
        out.as_os_str(),
        OsStr::new("--out-dir"),
        out_dir.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "scenicc sim: {}", run.stderr);
    let written = read_pcap(&std::fs::read(&out).unwrap_or_else(|e| panic!("{e}")));
    let library: Vec<(u64, Vec<u8>)> = result
        .packets
        .iter()
        // --out has microsecond timestamps.
        .map(|p| (p.ts_ns / 1000 * 1000, p.data.clone()))
        .collect();
    assert!(
        written == library,
        "scenicc sim --out differs from the library's result"
    );
    for (port, n) in &result.summary.out_per_port {
        let name = match *port {
            HOST_PORT => "host.pcap".to_string(),
            PASS_PORT => "pass.pcap".to_string(),
            p => format!("port{p}.pcap"),
        };
        let file = read_pcap(
            &std::fs::read(out_dir.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}")),
        );
        assert_eq!(file.len() as u64, *n, "{name}");
    }
    let dropped: u64 = result.summary.dropped.values().sum();
    let out_total: u64 = result.summary.out_per_port.values().sum();
    assert_eq!(
        summary_totals(&run.stderr),
        Some((packets.len() as u64, out_total, dropped)),
        "summary line: {}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains(&format!("csr forwarded = {}", csr(&result, "forwarded"))));
}
