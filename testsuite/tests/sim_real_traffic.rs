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
use scenic_sim::{HOST_PORT, PASS_PORT};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::*;

#[path = "sim_real_traffic/expect.rs"]
mod expect;
#[path = "sim_real_traffic/lab.rs"]
mod lab;

use expect::*;
use lab::*;

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
    let records = scenic_io::read_all(&bytes).unwrap_or_else(|e| panic!("scenic_ir: {e}"));
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
