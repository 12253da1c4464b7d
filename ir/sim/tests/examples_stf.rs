//! The examples' STF tests, and what STF cannot express.
//!
//! `every_example_stf_file_passes` runs each `examples/NAME.stf` and `examples/NAME-*.stf` against
//! `examples/NAME.sn` on the reference interpreter. The other tests drive the machine directly (or
//! through STF text generated here) for what an STF file cannot say or would be unreasonably large
//! for: `notify` values of `every` blocks, map contents, a full flow map, emptying the firewall's
//! 256 KiB token buckets, cc byte counters (`CcEvent::Sent`), and xor_cipher's per-QP modes, which
//! the host sets by writing a map.
//!
//! Expected values are computed here from the language's definitions (docs/language.md), with
//! helpers written for the test (Internet checksum, CRC-32), not taken from the interpreter.

use scenic_frontend::Session;
use scenic_interp::cc::CcEvent;
use scenic_interp::value::Value;
use scenic_interp::{Destination, Machine, Notification};
use scenic_ir::proc::bits::Bits;
use scenic_ir::Module;
use scenic_sim::stf;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The value inside, or a panic naming what was missing (helpers are not test functions, so
/// clippy's `expect_used` applies to them).
fn found<T>(value: Option<T>, what: &str) -> T {
    match value {
        Some(v) => v,
        None => panic!("{what} not found"),
    }
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn lower(path: &Path) -> Module {
    let mut session = Session::new();
    if let Err(err) = session.add_path(path) {
        panic!("cannot read {}: {err}", path.display());
    }
    match scenic_lower::lower_session(&mut session) {
        Ok(module) => module,
        Err(err) => panic!("cannot lower {}: {err}", path.display()),
    }
}

fn example(name: &str) -> Module {
    lower(&examples_dir().join(format!("{name}.sn")))
}

fn files_with(ext: &str) -> Vec<PathBuf> {
    let dir = match std::fs::read_dir(examples_dir()) {
        Ok(dir) => dir,
        Err(err) => panic!("cannot read the examples directory: {err}"),
    };
    let mut paths: Vec<PathBuf> = dir
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string()
}

/// The program an STF file belongs to: `NAME.stf` and `NAME-aspect.stf` test `NAME.sn`.
fn program_of(stf: &Path) -> String {
    let name = stem(stf);
    match name.split_once('-') {
        Some((program, _)) => program.to_string(),
        None => name,
    }
}

/// Runs STF text and panics with every failure.
fn run_stf(module: &Module, name: &str, text: &str) -> usize {
    let report = stf::run_text(module, text, None);
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|f| format!("{name}:{}:{}: {}", f.pos.line, f.pos.column, f.message))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    report.passed
}

#[test]
fn every_example_stf_file_passes() {
    let mut modules = BTreeMap::new();
    let mut failures = Vec::new();
    let stfs = files_with("stf");
    assert!(!stfs.is_empty(), "no examples/*.stf");
    for path in &stfs {
        let program = program_of(path);
        let sn = examples_dir().join(format!("{program}.sn"));
        assert!(
            sn.exists(),
            "{} has no program {}",
            path.display(),
            sn.display()
        );
        let module = modules.entry(program).or_insert_with(|| lower(&sn));
        let text = std::fs::read_to_string(path).expect("readable STF file");
        let report = stf::run_text(module, &text, None);
        let name = format!("examples/{}.stf", stem(path));
        for f in &report.failures {
            failures.push(format!(
                "{name}:{}:{}: {}",
                f.pos.line, f.pos.column, f.message
            ));
        }
        if report.passed == 0 {
            failures.push(format!("{name}: checks nothing"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_example_has_stf_tests() {
    let stf_programs: HashSet<String> = files_with("stf").iter().map(|p| program_of(p)).collect();
    let programs = files_with("sn");
    assert!(programs.len() >= 7);
    let missing: Vec<String> = programs
        .iter()
        .map(|p| stem(p))
        .filter(|p| !stf_programs.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "examples without an STF file: {missing:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Packet helpers, written from the RFCs rather than taken from the interpreter.

/// RFC 1071 Internet checksum.
fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in bytes.chunks(2) {
        let word = (u32::from(pair[0]) << 8) | u32::from(*pair.get(1).unwrap_or(&0));
        sum += word;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// CRC-32 of IEEE 802.3 (reflected, polynomial 0x04C11DB7), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn the_test_helpers_meet_the_reference_vectors() {
    // docs/language.md §9.2 and §9.3.
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    let header = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];
    assert_eq!(internet_checksum(&header), 0xb861);
}

const ETH_IPV4: [u8; 14] = [2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];

/// Ethernet + IPv4 (ihl 5, DF, TTL 64, valid checksum) + `l4`, padded with zeros to `len` bytes.
fn ipv4_packet(src: [u8; 4], dst: [u8; 4], proto: u8, l4: &[u8], len: usize) -> Vec<u8> {
    let ip_len = (len.max(34 + l4.len()) - 14) as u16;
    let mut ip = vec![0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0];
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    let csum = internet_checksum(&ip);
    ip[10..12].copy_from_slice(&csum.to_be_bytes());
    let mut p = ETH_IPV4.to_vec();
    p.extend_from_slice(&ip);
    p.extend_from_slice(l4);
    p.resize(len.max(p.len()), 0);
    p
}

fn udp(sport: u16, dport: u16, payload_len: usize) -> Vec<u8> {
    let mut u = Vec::new();
    u.extend_from_slice(&sport.to_be_bytes());
    u.extend_from_slice(&dport.to_be_bytes());
    u.extend_from_slice(&((8 + payload_len) as u16).to_be_bytes());
    u.extend_from_slice(&[0, 0]);
    u
}

fn tcp(sport: u16, dport: u16, flags: u8) -> Vec<u8> {
    let mut t = Vec::new();
    t.extend_from_slice(&sport.to_be_bytes());
    t.extend_from_slice(&dport.to_be_bytes());
    t.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0x50, flags, 0x10, 0, 0, 0, 0, 0]);
    t
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn csr(m: &Machine<'_>, scu: &str, name: &str) -> u64 {
    let id = found(m.scu_by_name(scu), "the scu");
    found(m.csr(id, name), "the CSR").to_u64()
}

/// The value stored under `key` in map `map` of scu `scu`.
fn map_get(m: &mut Machine<'_>, scu: &str, map: &str, key: Bits) -> Option<Value> {
    let id = found(m.scu_by_name(scu), "the scu");
    let index = found(
        m.module().scus[id]
            .maps
            .values()
            .position(|d| d.name == map),
        "the map",
    );
    let scu = scu_index(m, scu);
    m.scus[scu].maps[index].get(&key)
}

fn scu_index(m: &Machine<'_>, scu: &str) -> usize {
    found(
        m.module().scus.values().position(|s| s.name == scu),
        "the scu",
    )
}

fn field(v: &Value, i: usize) -> u64 {
    match v {
        Value::Struct(fields) => fields[i].bits().to_u64(),
        other => panic!("not a struct: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// firewall

/// The meter: every class has a 10 Gb/s bucket of 256 KiB (262144 bytes), starting full and
/// refilling at 1.25 bytes per ns. Emptying it takes four packets of 65535 bytes (the largest
/// `packet.len`), an STF file of half a megabyte: the STF text is generated here instead.
#[test]
fn firewall_meter_drops_once_the_bucket_is_empty_and_refills_in_time() {
    let module = example("firewall");
    let big = ipv4_packet(
        [10, 1, 1, 1],
        [10, 2, 2, 2],
        17,
        &udp(4000, 53, 65535 - 42),
        65535,
    );
    let small = ipv4_packet([10, 1, 1, 1], [10, 2, 2, 2], 17, &udp(4000, 53, 22), 64);
    let thousand = ipv4_packet([10, 1, 1, 1], [10, 2, 2, 2], 17, &udp(4000, 53, 958), 1000);
    // Constant entry 4: 10.0.0.0/8 -> 10.200.0.0/16, TCP, 7000..=7099: class 1, its own bucket.
    let class1 = ipv4_packet([10, 7, 0, 1], [10, 200, 5, 5], 6, &tcp(40000, 7000, 2), 64);
    assert_eq!((big.len(), small.len(), thousand.len()), (65535, 64, 1000));
    let mut t = String::from("time 0\n");
    let pass = |t: &mut String, p: &[u8]| {
        let _ = writeln!(t, "packet 0 {}\nexpect 256 {} $", hex(p), hex(p));
    };
    let drop = |t: &mut String, p: &[u8]| {
        let _ = writeln!(t, "packet 0 {}", hex(p));
    };
    // 4 x 65535 = 262140 bytes of the 262144: 4 tokens left.
    for _ in 0..4 {
        pass(&mut t, &big);
    }
    drop(&mut t, &small); // 64 > 4: over the limit, dropped, consumes nothing
    t.push_str("wait\ncheck_csr rate_limited == 1\ncheck_csr dropped == 1\n");
    pass(&mut t, &class1); // class 1's bucket is still full
                           // 47 ns refill 58.75 bytes: 62.75 < 64, still over; 1 ns more makes exactly 64: conforms.
    t.push_str("wait 47ns\n");
    drop(&mut t, &small);
    t.push_str("wait 1ns\n");
    pass(&mut t, &small);
    drop(&mut t, &small); // the bucket is empty again
    t.push_str("wait\ncheck_csr rate_limited == 3\ncheck_csr dropped == 3\n");
    // A denied packet is dropped but not rate limited (TCP to port 23, constant entry 2).
    drop(
        &mut t,
        &ipv4_packet([10, 1, 1, 1], [10, 2, 2, 2], 6, &tcp(40000, 23, 2), 64),
    );
    t.push_str("wait\ncheck_csr rate_limited == 3\ncheck_csr dropped == 4\n");
    // One second refills far more than the burst: the bucket holds 262144 again, no more.
    t.push_str("wait 1s\n");
    for _ in 0..4 {
        pass(&mut t, &big);
    }
    // 4 tokens: a 65535-byte packet is over and takes nothing; 800 ns add 1000 bytes, so 1004
    // tokens admit the 1000-byte packet (they would not if the dropped packet had taken any).
    drop(&mut t, &big);
    t.push_str("wait 800ns\n");
    pass(&mut t, &thousand);
    drop(&mut t, &small); // 4 tokens left
    t.push_str("wait\ncheck_csr rate_limited == 5\ncheck_csr dropped == 6\n");
    // Every IPv4 packet is counted in by_pod before the policy, passed or dropped: pod 1 (10.1.x.x)
    // saw nine 65535-byte packets, six of 64 bytes (five small ones and the denied one) and the
    // 1000-byte one; pod 7 the class-1 packet.
    let pod1_packets = 9 + 6 + 1;
    let pod1_bytes = 9 * 65535 + 6 * 64 + 1000;
    let _ = writeln!(
        t,
        "check_counter by_pod(1) packets == {pod1_packets}\ncheck_counter by_pod(1) bytes == {pod1_bytes}\ncheck_counter by_pod(7) packets == 1"
    );
    let passed = run_stf(&module, "firewall meter (generated)", &t);
    assert!(passed >= 20);
}

/// `every 1ms { notify(arm, window_packets); window_packets = 0; }`: one interrupt per
/// millisecond from the scu's start, carrying the IPv4 packets of the window (STF cannot see
/// notifications). Also the per-subnet statistics the Arm cores read from `subnets`.
#[test]
fn firewall_every_1ms_notifies_the_window_and_tracks_subnets() {
    let module = example("firewall");
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("incast_firewall").expect("scu");
    m.advance_time(0); // the scu starts at 0
    let p = |src: [u8; 4]| ipv4_packet(src, [10, 2, 2, 2], 17, &udp(4000, 53, 4), 46);
    for (src, at) in [
        ([10, 3, 7, 1], 100_000),
        ([10, 3, 7, 2], 200_000),
        ([10, 3, 8, 1], 999_999),
    ] {
        let out = m.process_packet(scu, &p(src), 0, at);
        assert_eq!(out.outputs.len(), 1);
        assert_eq!(out.outputs[0].0, Destination::Host);
    }
    // Not IPv4: not counted in the window.
    let mut arp = vec![0xff; 6];
    arp.extend_from_slice(&[2, 0, 0, 0, 0, 2, 0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    m.process_packet(scu, &arp, 0, 999_999);
    // At 1 ms the interrupt runs before this packet: it belongs to the second window.
    m.process_packet(scu, &p([10, 3, 7, 3]), 0, 1_000_000);
    m.process_packet(scu, &p([10, 3, 7, 4]), 0, 2_500_000);
    m.advance_time(4_000_000);
    let seen: Vec<(u64, bool, u32, &str)> = m
        .notifications
        .iter()
        .map(|n: &Notification| (n.time_ns, n.to_arm, n.value, &*n.source))
        .collect();
    assert_eq!(
        seen,
        vec![
            (1_000_000, true, 3, "incast_firewall"),
            (2_000_000, true, 1, "incast_firewall"),
            (3_000_000, true, 1, "incast_firewall"),
            (4_000_000, true, 0, "incast_firewall"),
        ]
    );
    assert_eq!(csr(&m, "incast_firewall", "window_packets"), 0);
    // subnets: key ip.src[31:8], value { packets, bytes, last_seen }.
    let s = map_get(
        &mut m,
        "incast_firewall",
        "subnets",
        Bits::from_u64(24, 0x0a_03_07),
    )
    .expect("10.3.7.0/24 is tracked");
    assert_eq!(
        (field(&s, 0), field(&s, 1), field(&s, 2)),
        (4, 4 * 46, 2_500_000)
    );
    let s = map_get(
        &mut m,
        "incast_firewall",
        "subnets",
        Bits::from_u64(24, 0x0a_03_08),
    )
    .expect("10.3.8.0/24 is tracked");
    assert_eq!((field(&s, 0), field(&s, 1), field(&s, 2)), (1, 46, 999_999));
    assert!(map_get(
        &mut m,
        "incast_firewall",
        "subnets",
        Bits::from_u64(24, 0x0a_03_09)
    )
    .is_none());
}

/// `subnets` is an `lru_hash` of 16384 /24s: a new subnet in a full map evicts the least recently
/// used one (`get` and `insert` refresh a key, §7.11), and inserting never fails.
#[test]
fn firewall_subnets_map_evicts_the_least_recently_used_subnet() {
    let module = example("firewall");
    let mut m = Machine::new(&module);
    let scu = found(m.scu_by_name("incast_firewall"), "the scu");
    let p = |subnet: u32| {
        let [_, a, b, c] = (subnet << 8 | 1).to_be_bytes();
        ipv4_packet([10, a, b, c], [10, 2, 2, 2], 17, &udp(4000, 53, 4), 46)
    };
    // 16384 subnets 10.0.0.0/24 .. 10.63.255.0/24 fill the map; subnet 0 is then used again,
    // which makes subnet 1 the least recently used.
    for subnet in 0..16384 {
        m.process_packet(scu, &p(subnet), 0, u64::from(subnet));
    }
    m.process_packet(scu, &p(0), 0, 20_000);
    m.process_packet(scu, &p(16384), 0, 20_001);
    let key = |subnet: u32| Bits::from_u64(24, u64::from(0x0a_0000 | subnet));
    assert!(
        map_get(&mut m, "incast_firewall", "subnets", key(1)).is_none(),
        "the least recently used subnet was evicted"
    );
    let s = found(
        map_get(&mut m, "incast_firewall", "subnets", key(0)),
        "subnet 0",
    );
    assert_eq!((field(&s, 0), field(&s, 2)), (2, 20_000), "refreshed, kept");
    let s = found(
        map_get(&mut m, "incast_firewall", "subnets", key(16384)),
        "the new subnet",
    );
    assert_eq!(field(&s, 0), 1);
    assert!(map_get(&mut m, "incast_firewall", "subnets", key(2)).is_some());
    assert_eq!(csr(&m, "incast_firewall", "window_packets"), 16386);
}

// ---------------------------------------------------------------------------------------------
// flow_monitor

/// The flow key: CRC-32 over src ++ dst ++ proto ++ sport ++ dport, most significant byte first.
fn flow_key(src: &[u8], dst: &[u8], proto: u8, sport: u16, dport: u16) -> u32 {
    let mut bytes = src.to_vec();
    bytes.extend_from_slice(dst);
    bytes.push(proto);
    bytes.extend_from_slice(&sport.to_be_bytes());
    bytes.extend_from_slice(&dport.to_be_bytes());
    crc32(&bytes)
}

/// The records of the `flows` map (STF cannot read maps), and the 10 ms interrupt.
#[test]
fn flow_monitor_keeps_per_flow_records_and_notifies_new_flows() {
    let module = example("flow_monitor");
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("flow_monitor").expect("scu");
    m.advance_time(0);
    let (a, b) = ([10, 0, 0, 1], [10, 9, 9, 9]);
    let syn = ipv4_packet(a, b, 6, &tcp(40000, 80, 0x02), 54);
    let data = ipv4_packet(a, b, 6, &tcp(40000, 80, 0x10), 154);
    let fin = ipv4_packet(a, b, 6, &tcp(40000, 80, 0x11), 54);
    let dns = ipv4_packet(a, b, 17, &udp(5353, 53, 12), 54);
    for (p, at) in [
        (&syn, 1_000),
        (&data, 2_000),
        (&dns, 2_500),
        (&fin, 12_000_000),
    ] {
        let out = m.process_packet(scu, p, 3, at);
        assert_eq!(out.outputs, vec![(Destination::Host, p.clone())], "passive");
    }
    // struct flow_record { packets: bit<32>, bytes: bit<48>, first_seen, last_seen, closed }
    let key = flow_key(&a, &b, 6, 40000, 80);
    let r = map_get(
        &mut m,
        "flow_monitor",
        "flows",
        Bits::from_u64(32, key.into()),
    )
    .expect("the TCP flow has a record");
    assert_eq!(
        (0..5).map(|i| field(&r, i)).collect::<Vec<_>>(),
        vec![3, 54 + 154 + 54, 1_000, 12_000_000, 1],
        "packets, bytes, first_seen, last_seen, closed (the FIN)"
    );
    let key = flow_key(&a, &b, 17, 5353, 53);
    let r = map_get(
        &mut m,
        "flow_monitor",
        "flows",
        Bits::from_u64(32, key.into()),
    )
    .expect("the UDP flow has a record");
    assert_eq!(
        (0..5).map(|i| field(&r, i)).collect::<Vec<_>>(),
        vec![1, 54, 2_500, 2_500, 0]
    );
    // An RST closes a flow too.
    let rst = ipv4_packet(a, b, 6, &tcp(40001, 80, 0x04), 54);
    m.process_packet(scu, &rst, 3, 13_000_000);
    let key = flow_key(&a, &b, 6, 40001, 80);
    let r = map_get(
        &mut m,
        "flow_monitor",
        "flows",
        Bits::from_u64(32, key.into()),
    )
    .expect("rst");
    assert_eq!(field(&r, 4), 1);
    m.advance_time(30_000_000);
    let seen: Vec<(u64, u32)> = m
        .notifications
        .iter()
        .map(|n| (n.time_ns, n.value))
        .collect();
    // Two new flows in the first 10 ms, none in the second (the FIN's flow was known), one (the
    // RST's) in the third.
    assert_eq!(
        seen,
        vec![(10_000_000, 2), (20_000_000, 1), (30_000_000, 0)]
    );
    assert!(m.notifications.iter().all(|n| n.to_arm));
}

/// `flows` is a `hash` map of 65536 records: a new flow that finds it full is not tracked and is
/// counted in `map_full`, while known flows are still updated. Too many flows for an STF file.
#[test]
fn flow_monitor_counts_new_flows_that_find_the_map_full() {
    let module = example("flow_monitor");
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("flow_monitor").expect("scu");
    m.advance_time(0);
    let dst = [10, 9, 9, 9];
    let mut keys = HashSet::new();
    let mut sent = 0u32;
    let mut tuples = (0u32..).map(|i| {
        let src = [10, 1, (i >> 8) as u8, i as u8];
        let sport = 1024 + (i >> 16) as u16;
        (src, sport)
    });
    // Distinct CRC-32 keys until the map is full (colliding tuples share a record, so count keys).
    while keys.len() < 65536 {
        let (src, sport) = tuples.next().expect("tuples");
        keys.insert(flow_key(&src, &dst, 17, sport, 53));
        m.process_packet(
            scu,
            &ipv4_packet(src, dst, 17, &udp(sport, 53, 0), 42),
            0,
            0,
        );
        sent += 1;
    }
    assert_eq!(csr(&m, "flow_monitor", "new_flows"), 65536);
    assert_eq!(csr(&m, "flow_monitor", "map_full"), 0);
    // Ten more flows with new keys: each finds the map full.
    let mut refused = 0;
    while refused < 10 {
        let (src, sport) = tuples.next().expect("tuples");
        let out = m.process_packet(
            scu,
            &ipv4_packet(src, dst, 17, &udp(sport, 53, 0), 42),
            0,
            0,
        );
        assert_eq!(out.outputs.len(), 1, "still delivered to the host");
        if keys.insert(flow_key(&src, &dst, 17, sport, 53)) {
            refused += 1;
        }
    }
    assert_eq!(csr(&m, "flow_monitor", "map_full"), 10);
    assert_eq!(csr(&m, "flow_monitor", "new_flows"), 65536);
    // A known flow is still updated in the full map, and is not a failure.
    let first = [10, 1, 0, 0];
    m.process_packet(
        scu,
        &ipv4_packet(first, dst, 17, &udp(1024, 53, 0), 42),
        0,
        0,
    );
    assert_eq!(csr(&m, "flow_monitor", "map_full"), 10);
    let key = flow_key(&first, &dst, 17, 1024, 53);
    let r = map_get(
        &mut m,
        "flow_monitor",
        "flows",
        Bits::from_u64(32, key.into()),
    )
    .expect("kept");
    assert!(field(&r, 0) >= 2, "the first flow was counted again");
    assert!(sent >= 65536);
}

// ---------------------------------------------------------------------------------------------
// dcqcn: the byte counter (every 10 MB sent) and hyper increase, which STF cannot drive.

#[test]
fn dcqcn_byte_counter_drives_recovery_and_hyper_increase() {
    let module = example("dcqcn");
    let mut m = Machine::new(&module);
    let cc = m.cc_by_name("dcqcn").expect("cc");
    let flow = 9;
    let ev = |m: &mut Machine<'_>, e: CcEvent, at: u64| {
        m.cc_event(cc, flow, e, at);
    };
    let state = |m: &Machine<'_>, name: &str| m.cc_state(cc, flow, name).expect(name).to_u64();
    let rc = |m: &Machine<'_>| m.cc_output(cc, flow).expect("flow");
    // Every value below follows the formulas of examples/dcqcn.sn in integer arithmetic (see
    // examples/dcqcn.stf): RC <- (RT + RC) / 2 truncated; additive RT += 40 Mb/s; hyper
    // RT += 200 Mb/s * (min(T, BC) - F); alpha in units of 2^-15.
    ev(&mut m, CcEvent::Cnp, 0);
    ev(&mut m, CcEvent::Cnp, 0);
    assert_eq!((rc(&m), state(&m, "rt")), (50_000_000_000, 100_000_000_000));
    // 10 MB: BC = 1, fast recovery.
    ev(&mut m, CcEvent::Sent(10_000_000), 0);
    assert_eq!((rc(&m), state(&m, "bc")), (75_000_000_000, 1));
    // 25 MB: two firings (BC = 2, 3), 5 MB carried over.
    ev(&mut m, CcEvent::Sent(25_000_000), 0);
    assert_eq!((rc(&m), state(&m, "bc")), (93_750_000_000, 3));
    // 5 MB more completes the carried 5 MB: BC = 4.
    ev(&mut m, CcEvent::Sent(5_000_000), 0);
    assert_eq!((rc(&m), state(&m, "bc")), (96_875_000_000, 4));
    // One byte short of a period does nothing; the byte after it fires (BC = 5, still <= F).
    ev(&mut m, CcEvent::Sent(9_999_999), 0);
    assert_eq!((rc(&m), state(&m, "bc")), (96_875_000_000, 4));
    ev(&mut m, CcEvent::Sent(1), 0);
    assert_eq!((rc(&m), state(&m, "bc")), (98_437_500_000, 5));
    // BC = 6 > F with T = 0: additive increase.
    ev(&mut m, CcEvent::Sent(10_000_000), 0);
    assert_eq!((rc(&m), state(&m, "rt")), (99_238_750_000, 100_040_000_000));
    // The rate timer (55 us): T = 1..5 are additive (max(T, BC) = 6 > 5, min(T, BC) <= 5)...
    m.advance_time(275_000);
    assert_eq!(state(&m, "t"), 5);
    assert_eq!(
        (rc(&m), state(&m, "rt")),
        (100_176_210_937, 100_240_000_000)
    );
    assert_eq!(state(&m, "alpha"), 32131, "five alpha decays from 32768");
    // ... and T = 6 with BC = 6 is hyper increase: RT += 200 Mb/s * (6 - 5).
    m.advance_time(330_000);
    assert_eq!(
        (rc(&m), state(&m, "rt")),
        (100_308_105_468, 100_440_000_000)
    );
    // BC = 7, T = 6: hyper with min(T, BC) - F = 1.
    ev(&mut m, CcEvent::Sent(10_000_000), 330_000);
    assert_eq!(
        (rc(&m), state(&m, "rt")),
        (100_474_052_734, 100_640_000_000)
    );
    // T = 7, BC = 7: hyper with 2 steps, RT += 400 Mb/s.
    m.advance_time(385_000);
    assert_eq!(
        (rc(&m), state(&m, "rt")),
        (100_757_026_367, 101_040_000_000)
    );
    // A CNP restarts the byte counter: 5 MB sent before it do not count towards the next firing.
    ev(&mut m, CcEvent::Sent(5_000_000), 385_000);
    ev(&mut m, CcEvent::Cnp, 400_000);
    assert_eq!(
        (rc(&m), state(&m, "rt"), state(&m, "bc")),
        (51_746_826_072, 100_757_026_367, 0)
    );
    ev(&mut m, CcEvent::Sent(9_999_999), 400_000);
    assert_eq!((rc(&m), state(&m, "bc")), (51_746_826_072, 0));
    ev(&mut m, CcEvent::Sent(1), 400_000);
    assert_eq!((rc(&m), state(&m, "bc")), (76_251_926_219, 1));
    // Timers due at an event's time run before it: at 455 us the restarted rate timer fires.
    ev(&mut m, CcEvent::Sent(0), 455_000);
    assert_eq!(
        (rc(&m), state(&m, "t"), state(&m, "bc")),
        (88_504_476_293, 1, 1)
    );
}

// ---------------------------------------------------------------------------------------------
// xor_cipher: per-QP modes live in the `qp_mode` map, which the host writes and STF cannot.

/// Sets `qp`'s mode: the enum `cipher_mode` is plain = 0, current_key = 1, next_key = 2 (its
/// declaration order; the interpreter stores an enum without representation as its index).
fn set_mode(m: &mut Machine<'_>, qp: u64, mode: u64) {
    let scu = scu_index(m, "xor_cipher");
    assert!(
        m.scus[scu].maps[0].insert(Bits::from_u64(24, qp), Value::Bits(Bits::from_u64(2, mode)))
    );
}

/// One message through the stream kernel; the passed-on bytes.
fn message(m: &mut Machine<'_>, qp: u64, data: &[u8]) -> Vec<u8> {
    use scenic_interp::stream::{bytes_word, word_bytes};
    let scu = found(m.scu_by_name("xor_cipher"), "the scu");
    let chunks: Vec<&[u8]> = data.chunks(64).collect();
    let mut out = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let (word, keep) = bytes_word(chunk);
        let o = m.process_word(scu, qp, &word, i + 1 == chunks.len(), keep, 0);
        assert_eq!(o.passed.len(), 1, "one word passed per word");
        for (w, k) in &o.passed {
            out.extend(word_bytes(w, *k));
        }
    }
    out
}

/// Payload byte i XOR byte i mod 8 of the key, least significant first: spread(k) repeats k in
/// every 64-bit lane and payload byte i is bits 8i+7..8i of the word.
fn xor_expected(data: &[u8], key: u64) -> Vec<u8> {
    let k = key.to_le_bytes();
    data.iter().enumerate().map(|(i, b)| b ^ k[i % 8]).collect()
}

#[test]
fn xor_cipher_modes_per_queue_pair_and_key_rotation() {
    let module = example("xor_cipher");
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("xor_cipher").expect("scu");
    let key = 0x9f3c_7a2b_6e41_d8c5u64;
    let next = 0x0123_4567_89ab_cdefu64;
    assert!(m.set_csr(scu, "key", &key.into()));
    assert!(m.set_csr(scu, "next_key", &next.into()));
    set_mode(&mut m, 1, 1);
    set_mode(&mut m, 2, 2);
    let zeros = [0u8; 16];
    // The paper's key on zero bytes shows its little-endian bytes: c5 d8 41 6e 2b 7a 3c 9f.
    assert_eq!(
        message(&mut m, 1, &zeros),
        [
            0xc5, 0xd8, 0x41, 0x6e, 0x2b, 0x7a, 0x3c, 0x9f, 0xc5, 0xd8, 0x41, 0x6e, 0x2b, 0x7a,
            0x3c, 0x9f
        ]
    );
    let data: Vec<u8> = (0..150u32).map(|i| (i * 7 + 3) as u8).collect();
    assert_eq!(message(&mut m, 1, &data), xor_expected(&data, key));
    assert_eq!(message(&mut m, 2, &data), xor_expected(&data, next));
    assert_eq!(
        message(&mut m, 3, &data),
        data,
        "a QP not in the map is plain"
    );
    set_mode(&mut m, 4, 0);
    assert_eq!(message(&mut m, 4, &data), data, "explicitly plain");
    // XOR is its own inverse: ciphering the ciphertext restores the data.
    let once = message(&mut m, 1, &data);
    assert_eq!(message(&mut m, 1, &once), data);
    // Words ciphered: 1 + 3 + 3 + 3 + 3 (16 bytes, then four 150-byte messages of 3 words on
    // ciphered QPs); messages: every message's last word.
    assert_eq!(csr(&m, "xor_cipher", "words_ciphered"), 13);
    assert_eq!(csr(&m, "xor_cipher", "messages"), 7);
    // Rotation: QP 1 moves to next_key, then the new key becomes `key` and QP 2 moves back.
    set_mode(&mut m, 1, 2);
    assert_eq!(message(&mut m, 1, &data), xor_expected(&data, next));
    assert!(m.set_csr(scu, "key", &next.into()));
    set_mode(&mut m, 2, 1);
    assert_eq!(message(&mut m, 2, &data), xor_expected(&data, next));
    assert_eq!(csr(&m, "xor_cipher", "words_ciphered"), 19);
}
