//! Fuzz-style: thousands of random packets through every example in the library simulator.
//!
//! Each example gets the same reproducible mix (seeded PRNG): a third random bytes, a third valid
//! Ethernet/ARP/IPv4 (with and without options)/IPv6/TCP/UDP/ICMP/VLAN/RoCEv2 packets, a third those
//! packets mutated (bit flips, truncation, extension, and the version, length, ethertype, TTL and
//! protocol fields set to interesting values). Checked:
//!
//! - every packet is processed within a time bound (a watchdog thread follows the simulation's
//!   progress packet by packet), and nothing panics (`catch_unwind`); a failure names the example
//!   and prints the packet;
//! - every output parses as Ethernet with etherparse, and when the input parsed as a well-formed
//!   packet (etherparse's `PacketHeaders`), so does the output;
//! - the slow-path examples give every packet exactly one outcome, drop only for their own reasons,
//!   and `l3_router.sn` forwards with TTL - 1 and, when the input's header checksum was right, a
//!   right checksum;
//! - the rdma (and an inline tcp) examples leave a packet's headers alone and keep its length;
//! - the examples without an scu (`dcqcn.sn`, `window_cc.sn`) are refused with a clear error.

mod support;

use etherparse::{
    Ethernet2Header, IpHeaders, IpNumber, Ipv4Header, PacketBuilder, PacketHeaders, VlanId,
};
use scenic_ir::Module;
use scenic_sim::capture::SimResult;
use scenic_sim::{HOST_PORT, PASS_PORT};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::packets::*;
use support::*;

/// Packets per example.
const PACKETS: usize = 30_000;
/// The longest one packet may take (a debug build is slow; the typical packet takes well under a
/// millisecond).
const PER_PACKET: Duration = Duration::from_secs(5);

/// A tcp-attached program (no example attaches to `tcp(flow)`), from docs/language.md §7.17, with a
/// non-zero pad so that passing changes the words.
const TCP_SCRAMBLE: &str = "scu scramble on tcp(flow) {
    csr pad: bit<64> = 0x0123456789abcdef;
    stream(word: bit<512>) {
        pass(word ^ (pad ++ pad ++ pad ++ pad ++ pad ++ pad ++ pad ++ pad));
    }
}
";

const ADDR4: [[u8; 4]; 8] = [
    [10, 0, 0, 1],
    [10, 0, 0, 2],
    [10, 1, 2, 3],
    [10, 200, 1, 1],
    [10, 255, 0, 7],
    [192, 168, 1, 1],
    [172, 16, 0, 1],
    [255, 255, 255, 255],
];
const PORTS: [u16; 8] = [23, 53, 80, 111, 4791, 7000, 7099, 65535];
const TTLS: [u8; 5] = [0, 1, 2, 64, 255];

fn addr4(rng: &mut Rng) -> [u8; 4] {
    if rng.one_in(4) {
        [rng.byte(), rng.byte(), rng.byte(), rng.byte()]
    } else {
        *rng.pick(&ADDR4)
    }
}

fn addr6(rng: &mut Rng) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = rng.byte() & 3;
    a
}

fn port(rng: &mut Rng) -> u16 {
    if rng.one_in(3) {
        rng.next_u64() as u16
    } else {
        *rng.pick(&PORTS)
    }
}

fn payload(rng: &mut Rng) -> Vec<u8> {
    let len = if rng.one_in(8) {
        rng.range(0, 1400)
    } else {
        rng.range(0, 100)
    };
    rng.bytes(len)
}

/// A RoCEv2 UDP payload with a random opcode and the extended headers the opcode carries.
fn roce_udp_payload(rng: &mut Rng) -> Vec<u8> {
    let opcode = *rng.pick(&[
        0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x0a, 0x0b, 0x0c, 0x10, 0x11, 0x64,
    ]);
    let reth = matches!(opcode, 0x06 | 0x0a | 0x0b | 0x0c);
    let imm = matches!(opcode, 0x03 | 0x05 | 0x09 | 0x0b);
    let mut headers = Vec::new();
    if reth {
        headers.extend(rng.bytes(16));
    }
    if imm {
        headers.extend(rng.bytes(4));
    }
    let qp = *rng.pick(&[0u32, 1, 17, 0xff_ffff]);
    bth_payload(opcode, qp, &headers, &payload(rng))
}

fn write(b: impl FnOnce(&mut Vec<u8>) -> Result<(), String>) -> Vec<u8> {
    let mut out = Vec::new();
    b(&mut out).unwrap_or_else(|e| panic!("building a packet: {e}"));
    out
}

/// A well-formed packet.
fn valid(rng: &mut Rng) -> Vec<u8> {
    let (s4, d4, ttl) = (addr4(rng), addr4(rng), *rng.pick(&TTLS));
    let (s6, d6) = (addr6(rng), addr6(rng));
    let (sp, dp) = (port(rng), port(rng));
    let data = payload(rng);
    let eth = PacketBuilder::ethernet2(mac(1), mac(2));
    match rng.below(11) {
        0 => arp_request(s4, d4),
        1 => ipv4_udp(s4, d4, ttl, sp, dp, &data),
        2 => {
            let flags = rng.byte();
            let mut b = eth
                .ipv4(s4, d4, ttl)
                .tcp(sp, dp, rng.next_u64() as u32, 1024);
            if flags & 1 != 0 {
                b = b.syn();
            }
            if flags & 2 != 0 {
                b = b.fin();
            }
            if flags & 4 != 0 {
                b = b.rst();
            }
            if flags & 8 != 0 {
                b = b.psh();
            }
            write(|o| b.write(o, &data).map_err(|e| e.to_string()))
        }
        3 => ipv6_udp(s6, d6, sp, dp, &data),
        4 => ipv6_tcp(s6, d6, sp, dp, &data),
        5 => ipv4_udp(s4, d4, ttl, sp, 4791, &roce_udp_payload(rng)),
        6 => ipv6_udp(s6, d6, sp, 4791, &roce_udp_payload(rng)),
        7 => {
            // IPv4 with options (ihl 6..=15): NOPs and an end-of-options.
            let words = rng.range(1, 10);
            let mut options = vec![1u8; words * 4];
            options[words * 4 - 1] = 0;
            let mut h =
                Ipv4Header::new(0, ttl, IpNumber::UDP, s4, d4).unwrap_or_else(|e| panic!("{e}"));
            h.options = options[..].try_into().unwrap_or_else(|e| panic!("{e:?}"));
            let b = eth.ip(IpHeaders::Ipv4(h, Default::default())).udp(sp, dp);
            write(|o| b.write(o, &data).map_err(|e| e.to_string()))
        }
        8 => {
            let b = eth.ipv4(s4, d4, ttl).icmpv4_echo_request(1, 2);
            write(|o| b.write(o, &data).map_err(|e| e.to_string()))
        }
        9 => {
            let b = eth.ipv6(s6, d6, 64).icmpv6_echo_request(1, 2);
            write(|o| b.write(o, &data).map_err(|e| e.to_string()))
        }
        _ => {
            let vid = VlanId::try_new(rng.range(1, 4094) as u16).unwrap_or_else(|e| panic!("{e}"));
            let b = eth.single_vlan(vid).ipv4(s4, d4, ttl).udp(sp, dp);
            write(|o| b.write(o, &data).map_err(|e| e.to_string()))
        }
    }
}

/// A valid packet damaged in one to four places.
fn mutated(rng: &mut Rng) -> Vec<u8> {
    let mut p = valid(rng);
    for _ in 0..rng.range(1, 4) {
        let len = p.len();
        match rng.below(9) {
            0 if len > 0 => {
                let bit = rng.below(len * 8);
                p[bit / 8] ^= 1 << (bit % 8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                p[at] = rng.byte();
            }
            2 => p.truncate(rng.below(len + 1)),
            3 => {
                let n = rng.range(1, 64);
                p.extend(rng.bytes(n));
            }
            4 if len > 14 => p[14] = *rng.pick(&[0x45, 0x44, 0x40, 0x4f, 0x46, 0x60, 0x00, 0xff]),
            5 if len > 19 => {
                let at = if p[12..14] == [0x86, 0xdd] { 18 } else { 16 };
                let v = *rng.pick(&[0u16, 1, 19, 20, 21, 40, 0xffff]);
                p[at..at + 2].copy_from_slice(&v.to_be_bytes());
            }
            6 if len > 13 => {
                let t = *rng.pick(&[0x0800u16, 0x86dd, 0x0806, 0x8100, 0x88cc, 0]);
                p[12..14].copy_from_slice(&t.to_be_bytes());
            }
            7 if len > 22 => p[22] = *rng.pick(&TTLS),
            8 if len > 23 => p[23] = *rng.pick(&[0u8, 1, 6, 17, 41, 58, 255]),
            _ => {}
        }
    }
    p
}

/// Random bytes, sometimes with a real ethertype.
fn random(rng: &mut Rng) -> Vec<u8> {
    let len = if rng.one_in(10) {
        rng.range(0, 1600)
    } else {
        rng.range(0, 90)
    };
    let mut p = rng.bytes(len);
    if len >= 14 && rng.one_in(2) {
        let t = *rng.pick(&[0x0800u16, 0x86dd, 0x0806]);
        p[12..14].copy_from_slice(&t.to_be_bytes());
    }
    p
}

fn corpus(seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..PACKETS)
        .map(|i| match i % 3 {
            0 => random(&mut rng),
            1 => valid(&mut rng),
            _ => mutated(&mut rng),
        })
        .collect()
}

/// One's complement sum of a header's 16-bit words: 0xffff when its checksum is right.
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

/// Runs `packets` through `module` on a worker thread, watching it packet by packet.
fn watched(label: &str, module: Arc<Module>, packets: Arc<Vec<(u64, Vec<u8>)>>) -> SimResult {
    // The index of the packet being processed, plus one (0: not started).
    let progress = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let (progress, packets, module) = (progress.clone(), packets.clone(), module.clone());
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let feed = packets.iter().enumerate().map(|(i, (ts, p))| {
                    progress.store(i + 1, Ordering::SeqCst);
                    (*ts, p.as_slice())
                });
                scenic_sim::capture::simulate(
                    &module,
                    feed,
                    None,
                    &[],
                    &scenic_sim::capture::SimOptions::default(),
                )
            }));
            let _ = tx.send(outcome);
        });
    }
    let mut seen = 0;
    let mut since = Instant::now();
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(Ok(Ok(result))) => return result,
            Ok(Ok(Err(e))) => panic!("{label}: {e}"),
            Ok(Err(panic)) => {
                let n = progress.load(Ordering::SeqCst);
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let packet = n
                    .checked_sub(1)
                    .map(|i| hex(&packets[i].1))
                    .unwrap_or_default();
                panic!("{label}: panic at packet {n} ({packet}): {msg}");
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let n = progress.load(Ordering::SeqCst);
                if n != seen {
                    seen = n;
                    since = Instant::now();
                } else if since.elapsed() > PER_PACKET {
                    let packet = n
                        .checked_sub(1)
                        .map(|i| hex(&packets[i].1))
                        .unwrap_or_default();
                    panic!("{label}: packet {n} took more than {PER_PACKET:?} ({packet})");
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                panic!("{label}: the worker thread vanished")
            }
        }
    }
}

/// The drop reasons each slow-path example has.
fn allowed_drops(name: &str) -> &'static [&'static str] {
    match name {
        "l3_router.sn" => &["drop", "parser_error:packet_too_short"],
        "flow_monitor.sn" => &["parser_error:packet_too_short"],
        "firewall.sn" => &["drop"],
        _ => &[],
    }
}

fn check(name: &str, packets: &[(u64, Vec<u8>)], result: &SimResult) {
    let n = packets.len();
    assert_eq!(result.summary.packets_in, n as u64, "{name}");
    let stream = matches!(
        name,
        "partition.sn" | "xor_cipher.sn" | "inline tcp scramble"
    );
    let mut outs_per_input = vec![0usize; n];
    for out in &result.packets {
        let i = input_of(out.ts_ns);
        let input = &packets[i].1;
        let ctx = || format!("{name}, packet {} ({})", i + 1, hex(input));
        outs_per_input[i] += 1;
        assert!(
            Ethernet2Header::from_slice(&out.data).is_ok(),
            "{}: output is not Ethernet: {}",
            ctx(),
            hex(&out.data)
        );
        let input_ok = PacketHeaders::from_ethernet_slice(input).is_ok();
        if input_ok {
            if let Err(e) = PacketHeaders::from_ethernet_slice(&out.data) {
                panic!(
                    "{}: a well-formed input gave a malformed output ({e}): {}",
                    ctx(),
                    hex(&out.data)
                );
            }
        }
        if stream {
            // Only payload changes; the packet keeps its length and leaves on the pass port.
            assert_eq!(out.port, PASS_PORT, "{}", ctx());
            assert_eq!(out.data.len(), input.len(), "{}", ctx());
            if input_ok {
                let h = PacketHeaders::from_ethernet_slice(input).unwrap_or_else(|e| panic!("{e}"));
                // Where etherparse's payload starts (as a pointer into the input: bytes past the
                // IP packet's end are in neither etherparse's payload nor the simulator's).
                let headers = h.payload.slice().as_ptr() as usize - input.as_ptr() as usize;
                assert_eq!(
                    out.data[..headers],
                    input[..headers],
                    "{}: headers changed",
                    ctx()
                );
            }
            continue;
        }
        if name == "l3_router.sn" && out.port != HOST_PORT {
            assert!(out.port <= 3, "{}: port {}", ctx(), out.port);
            assert_eq!(
                input[12..14],
                [0x08, 0x00],
                "{}: forwarded a non-IPv4 packet",
                ctx()
            );
            assert_eq!(out.data.len(), input.len(), "{}", ctx());
            assert_eq!(out.data[22], input[22].wrapping_sub(1), "{}: TTL", ctx());
            assert_eq!(out.data[14] & 0x0f, 5, "{}: forwarded with options", ctx());
            assert_eq!(out.data[34..], input[34..], "{}: payload changed", ctx());
            if ones_sum(&input[14..34]) == 0xffff {
                assert_eq!(
                    ones_sum(&out.data[14..34]),
                    0xffff,
                    "{}: bad checksum out: {}",
                    ctx(),
                    hex(&out.data)
                );
                if input_ok {
                    let (h, _) = Ipv4Header::from_slice(&out.data[14..])
                        .unwrap_or_else(|e| panic!("{}: {e}", ctx()));
                    // etherparse leaves out the reserved flag bit; compare only when it is clear.
                    if out.data[20] & 0x80 == 0 {
                        assert_eq!(h.header_checksum, h.calc_header_checksum(), "{}", ctx());
                    }
                }
            }
        } else {
            assert_eq!(out.port, HOST_PORT, "{}", ctx());
            assert_eq!(&out.data, input, "{}: the host copy differs", ctx());
        }
    }
    if !stream {
        let dropped: u64 = result.summary.dropped.values().sum();
        assert_eq!(
            result.packets.len() as u64 + dropped,
            n as u64,
            "{name}: {:?}",
            result.summary
        );
        assert!(
            outs_per_input.iter().all(|c| *c <= 1),
            "{name}: a packet came out twice"
        );
        for reason in result.summary.dropped.keys() {
            assert!(
                allowed_drops(name).contains(&reason.as_str()),
                "{name}: dropped for {reason}"
            );
        }
        // The programs' own drops are the ones their CSRs count.
        let csr = |n: &str| {
            result
                .summary
                .csrs
                .iter()
                .find(|(c, _)| c == n)
                .and_then(|(_, v)| v.parse::<u64>().ok())
        };
        let drops = result.summary.dropped.get("drop").copied().unwrap_or(0);
        match name {
            "firewall.sn" => assert_eq!(csr("dropped"), Some(drops), "{name}"),
            "l3_router.sn" => assert_eq!(csr("ttl_expired"), Some(drops), "{name}"),
            _ => {}
        }
    }
}

#[test]
fn random_and_mutated_packets_through_every_example() {
    let started = Instant::now();
    let packets = Arc::new(numbered(corpus(0xf022_5eed)));
    let parsed = packets
        .iter()
        .filter(|(_, p)| PacketHeaders::from_ethernet_slice(p).is_ok())
        .count();
    assert!(
        parsed > PACKETS / 3,
        "only {parsed} packets are well formed"
    );
    let mut programs: Vec<(String, Module)> = all_examples()
        .into_iter()
        .map(|n| {
            let m = lower_example(&n);
            (n, m)
        })
        .collect();
    assert!(
        programs.len() >= 7,
        "examples: {:?}",
        programs.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    programs.push((
        "inline tcp scramble".into(),
        lower_source("tcp_scramble.sn", TCP_SCRAMBLE),
    ));
    let mut ran = 0;
    for (name, module) in programs {
        if module.scus.is_empty() {
            // Congestion controllers only: nothing to feed packets to.
            let err = support::simulate(&module, &packets[..1])
                .err()
                .map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.contains("no scu")),
                "{name}: {err:?}"
            );
            continue;
        }
        let t = Instant::now();
        let result = watched(&name, Arc::new(module), packets.clone());
        check(&name, &packets, &result);
        println!(
            "{name}: {} packets in {:.2} s: out {:?}, dropped {:?}, words {}",
            packets.len(),
            t.elapsed().as_secs_f64(),
            result.summary.out_per_port,
            result.summary.dropped,
            result.summary.words
        );
        ran += 1;
    }
    assert!(ran >= 6);
    println!("fuzz: {:.1} s", started.elapsed().as_secs_f64());
}
