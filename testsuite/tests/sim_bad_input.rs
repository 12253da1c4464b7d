//! `scenicc sim` on bad input: never a panic, never a hang; a clear error naming the file and the
//! place, or, for a bad packet, the program's parser-reject path.
//!
//! Captures: missing, garbage, every prefix of a valid pcap and pcapng file, zero-length and 9000-byte
//! packets, random bytes in valid records, packets that end inside each header an example's parser
//! extracts, and a pcapng file full of unusual blocks. Command line: `--entries` with unknown names
//! and wrong match forms, `--csr` and `--scu` with unknown names. A capture through a pipe
//! (`--in /dev/stdin`), good and bad, runs as the same file does. Each runs through the library
//! (`scenic_io` and `scenic_sim::capture`) and, where the command line has its own handling,
//! through the `scenicc` binary.
//!
//! Three bugs found here (time jumps, Ethernet padding as payload, IPv4 and TCP header lengths below
//! the minimum) are fixed; their reproducers are regression tests at the end.

mod support;

use etherparse::PacketHeaders;
use scenic_sim::capture::{self, SimOptions};
use scenic_sim::{HOST_PORT, PASS_PORT};
use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;
use support::packets::*;
use support::*;

#[path = "sim_bad_input/pcapng.rs"]
mod pcapng;
#[path = "sim_bad_input/pipe.rs"]
mod pipe;
#[path = "sim_bad_input/run.rs"]
mod run;

use pcapng::*;
use run::*;

// ---------------------------------------------------------------------------------------------
// Unreadable captures through the command line: exit code 2 and a message naming the file.

#[test]
fn cli_missing_capture_is_reported_with_its_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let missing = dir.path().join("no-such-capture.pcap");
    let run = sim_cli("l3_router.sn", &missing, &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("no-such-capture.pcap"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
}

#[test]
fn cli_garbage_capture_is_reported_with_its_name() {
    for (name, bytes) in [
        ("empty.pcap", &b""[..]),
        ("short.pcap", &b"\xd4\xc3"[..]),
        ("text.pcap", &b"this is not a capture at all\n"[..]),
        (
            "elf.pcap",
            &b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"[..],
        ),
    ] {
        let (_dir, path) = temp_file(name, bytes);
        let run = sim_cli("flow_monitor.sn", &path, &[]);
        assert_eq!(run.code, 2, "{name}: {run:?}");
        assert!(run.stderr.contains(name), "{name}: {}", run.stderr);
        assert!(
            run.stderr.contains("not a pcap or pcapng file"),
            "{name}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

/// Every prefix of a small pcap through the binary: a prefix that ends between records is a valid
/// shorter capture (exit 0, that many packets in); any other is an error (exit 2) that names the
/// file and the record or the header.
#[test]
fn cli_every_prefix_of_a_pcap() {
    let packets = small_capture();
    let file = pcap_file(&packets);
    let mut boundaries = vec![24];
    for (_, p) in &packets {
        boundaries.push(boundaries[boundaries.len() - 1] + 16 + p.len());
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for len in 0..=file.len() {
        let path = dir.path().join("prefix.pcap");
        std::fs::write(&path, &file[..len]).unwrap_or_else(|e| panic!("{e}"));
        let run = sim_cli("l3_router.sn", &path, &[]);
        match boundaries.iter().position(|b| *b == len) {
            Some(n) => {
                assert_eq!(run.code, 0, "prefix {len}: {}", run.stderr);
                assert_eq!(
                    summary_totals(&run.stderr).map(|t| t.0),
                    Some(n as u64),
                    "prefix {len}"
                );
            }
            None => {
                assert_eq!(run.code, 2, "prefix {len}: {run:?}");
                assert!(
                    run.stderr.contains("prefix.pcap"),
                    "prefix {len}: {}",
                    run.stderr
                );
                if len >= 24 {
                    let record = boundaries.iter().filter(|b| **b <= len).count() - 1;
                    assert!(
                        run.stderr.contains(&format!("record {record} ")),
                        "prefix {len} should name record {record}: {}",
                        run.stderr
                    );
                }
            }
        }
    }
}

/// Every prefix of a pcap and a pcapng file through the library: the reader reports an error or
/// the records before the cut, and those records simulate.
#[test]
fn library_every_prefix_of_pcap_and_pcapng() {
    for (format, file) in [
        ("pcap", pcap_file(&small_capture())),
        ("pcapng", small_pcapng()),
    ] {
        assert_eq!(
            scenic_io::read_all(&file).map(|r| r.len()).ok(),
            Some(3),
            "{format}"
        );
        let modules: Vec<_> = SCU_EXAMPLES.iter().map(|n| lower_example(n)).collect();
        for len in 0..file.len() {
            let prefix = &file[..len];
            let mut good = Vec::new();
            let mut error = None;
            match scenic_io::open(prefix) {
                Err(e) => error = Some(e.to_string()),
                Ok(records) => {
                    for r in records {
                        match r {
                            Ok(r) => good.push((r.ts_ns, r.data.to_vec())),
                            Err(e) => {
                                error = Some(e.to_string());
                                break;
                            }
                        }
                    }
                }
            }
            if let Some(e) = &error {
                assert!(!e.is_empty(), "{format} prefix {len}: an empty message");
                if len >= 4 {
                    assert!(
                        e.contains("offset") || e.contains("header"),
                        "{format} prefix {len}: {e}"
                    );
                }
            }
            assert!(good.len() <= 3);
            for module in &modules {
                let result = simulate(module, &good).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(result.summary.packets_in, good.len() as u64);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Odd packets.

#[test]
fn zero_length_packets_are_rejected_by_the_parser() {
    let packets = numbered(vec![
        Vec::new(),
        Vec::new(),
        ipv4_udp([10, 0, 0, 2], [10, 1, 0, 9], 64, 1, 2, b"x"),
    ]);
    for name in SCU_EXAMPLES {
        let module = lower_example(name);
        let result = simulate(&module, &packets).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dropped = &result.summary.dropped;
        match name {
            "l3_router.sn" | "flow_monitor.sn" => {
                assert_eq!(
                    dropped.get("parser_error:packet_too_short"),
                    Some(&2),
                    "{name}: {dropped:?}"
                );
            }
            "firewall.sn" => {
                // Its `on parser_error` counts and drops.
                assert_eq!(dropped.get("drop"), Some(&2), "{name}: {dropped:?}");
                let malformed = result.summary.csrs.iter().find(|(n, _)| n == "malformed");
                assert_eq!(malformed.map(|(_, v)| v.as_str()), Some("2"));
            }
            // rdma: no RoCE payload, nothing reaches the kernel.
            _ => assert_eq!(
                (result.summary.words, result.packets.len()),
                (0, 0),
                "{name}"
            ),
        }
        // The good packet after them is processed as usual.
        if name != "partition.sn" && name != "xor_cipher.sn" {
            assert_eq!(result.packets.len(), 1, "{name}");
        }
    }
    let (_dir, path) = temp_file("zero.pcap", &pcap_file(&packets));
    let run = sim_cli("l3_router.sn", &path, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("dropped (parser_error:packet_too_short): 2"),
        "{}",
        run.stderr
    );
}

#[test]
fn jumbo_packets_are_processed_whole() {
    // 9000-byte IP packets (the usual jumbo MTU), 9014-byte frames.
    let payload: Vec<u8> = (0..9014 - 42).map(|i| (i * 7 + 3) as u8).collect();
    let udp = ipv4_udp([10, 0, 0, 2], [10, 1, 0, 9], 64, 1234, 9999, &payload);
    assert_eq!(udp.len(), 9014);
    let roce_payload: Vec<u8> = (0..9014 - 58).map(|i| (i * 13 + 1) as u8).collect();
    let roce = roce_send_only(5, &roce_payload);
    assert_eq!(roce.len(), 9014);
    let packets = numbered(vec![udp.clone(), roce.clone()]);

    // l3_router forwards both (RoCE is IPv4 too) with the payload intact.
    let result =
        simulate(&lower_example("l3_router.sn"), &packets).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.packets.len(), 2);
    let out = &result.packets[0];
    assert_eq!(out.port, 2);
    assert_eq!(out.data.len(), 9014);
    assert_eq!(out.data[34..], udp[34..], "the payload must be kept");
    let h = PacketHeaders::from_ethernet_slice(&out.data).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.payload.slice(), &payload[..]);

    // The slow-path monitors pass them to the host unchanged.
    for name in ["flow_monitor.sn", "firewall.sn"] {
        let result = simulate(&lower_example(name), &packets).unwrap_or_else(|e| panic!("{e}"));
        let outs: Vec<&Vec<u8>> = result.packets.iter().map(|p| &p.data).collect();
        assert_eq!(outs, vec![&udp, &roce], "{name}");
    }

    // xor_cipher: the RoCE payload, 141 words of 64 bytes (the last one short), passes unchanged
    // (no QP is keyed) and the packet leaves whole on the pass port.
    let result =
        simulate(&lower_example("xor_cipher.sn"), &packets).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.summary.words, roce_payload.len().div_ceil(64) as u64);
    assert_eq!(result.packets.len(), 1);
    assert_eq!(
        (result.packets[0].port, &result.packets[0].data),
        (PASS_PORT, &roce)
    );

    // partition: every 16-byte row is placed; the message end flushes every partial buffer.
    let result =
        simulate(&lower_example("partition.sn"), &packets).unwrap_or_else(|e| panic!("{e}"));
    let rows = (roce_payload.len() / 16) as u64;
    let seen = result
        .summary
        .csrs
        .iter()
        .find(|(n, _)| n == "rows_seen")
        .map(|(_, v)| v.clone());
    assert_eq!(seen, Some(rows.to_string()));
    let pushed: usize = result.transfers.iter().map(|(_, t)| t.data.len()).sum();
    assert!(
        pushed >= rows as usize * 16,
        "{pushed} bytes pushed for {rows} rows"
    );

    // And through the binary, with per-destination files.
    let (dir, path) = temp_file("jumbo.pcap", &pcap_file(&packets));
    let out_dir = dir.path().join("out");
    let run = sim_cli(
        "l3_router.sn",
        &path,
        &[OsStr::new("--out-dir"), out_dir.as_os_str()],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The UDP packet to 10.1.0.9 leaves on port 2, the RoCE one to 10.0.0.2 on port 1.
    for file in ["port1.pcap", "port2.pcap"] {
        let bytes = std::fs::read(out_dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let packets = read_pcap(&bytes);
        assert_eq!(packets.len(), 1, "{file}");
        assert_eq!(packets[0].1.len(), 9014, "{file}");
    }
}

/// Random bytes as a whole capture file, including files that start with a valid magic number and
/// a valid header: the library reports an error or reads records, never panics.
#[test]
fn garbage_bytes_as_a_capture() {
    let mut rng = Rng::new(0x5eed_0001);
    let pcap_header = pcap_file(&[]);
    let pcapng_header = {
        let mut f = shb(true, &[]);
        f.extend(idb(true, 0, &[]));
        f
    };
    let module = lower_example("flow_monitor.sn");
    for i in 0..3000 {
        let len = rng.range(0, 300);
        let mut bytes = match i % 4 {
            0 => Vec::new(),
            1 => pcap_header.clone(),
            2 => pcapng_header.clone(),
            _ => pcapng_header[..rng.below(pcapng_header.len())].to_vec(),
        };
        bytes.extend(rng.bytes(len));
        let records: Vec<(u64, Vec<u8>)> = match scenic_io::open(&bytes) {
            Err(e) => {
                assert!(!e.to_string().is_empty());
                continue;
            }
            Ok(it) => it
                .map_while(Result::ok)
                .map(|r| (r.ts_ns, r.data.to_vec()))
                .collect(),
        };
        // Random timestamps jump: the simulator either runs the records or stops at a jump too
        // big to catch up on (see `a_time_jump_fails_fast_naming_the_every_block`).
        match simulate(&module, &records) {
            Ok(result) => assert_eq!(result.summary.packets_in, records.len() as u64),
            Err(e) => assert!(e.to_string().contains("time jumps"), "{e}"),
        }
    }
    for (name, bytes) in [
        ("random.pcap", rng.bytes(4096)),
        ("random-after-header.pcap", {
            let mut b = pcap_header.clone();
            b.extend(rng.bytes(4096));
            b
        }),
    ] {
        let (_dir, path) = temp_file(name, &bytes);
        let run = sim_cli("flow_monitor.sn", &path, &[]);
        assert_eq!(run.code, 2, "{name}: {run:?}");
        assert!(run.stderr.contains(name), "{}", run.stderr);
    }
}

/// Random bytes as packets in valid records, through every example and the binary.
#[test]
fn garbage_packets_in_valid_records() {
    let mut rng = Rng::new(0x5eed_0002);
    let packets = numbered(
        (0..400)
            .map(|_| {
                let len = rng.range(0, 120);
                rng.bytes(len)
            })
            .collect(),
    );
    simulate_all(&packets, "random packets");
    let (_dir, path) = temp_file("garbage-packets.pcap", &pcap_file(&packets));
    for name in SCU_EXAMPLES {
        let run = sim_cli(name, &path, &[]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert_eq!(
            summary_totals(&run.stderr).map(|t| t.0),
            Some(400),
            "{name}: {}",
            run.stderr
        );
    }
}

/// A packet that ends inside each header an example's parser extracts is rejected with
/// `packet_too_short`: dropped, or handed to the program's `on parser_error`.
#[test]
fn a_packet_ending_inside_each_header() {
    let v4: [u8; 4] = [10, 0, 0, 2];
    let v6: [u8; 16] = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
    let arp = arp_request(v4, [10, 0, 0, 1]);
    let tcp4 = ipv4_tcp(v4, [10, 1, 0, 9], 64, 40000, 80, b"data");
    let udp4 = ipv4_udp(v4, [10, 1, 0, 9], 64, 40000, 53, b"data");
    let tcp6 = ipv6_tcp(v6, v6, 40000, 80, b"data");
    let udp6 = ipv6_udp(v6, v6, 40000, 53, b"data");
    // (example, packet, where the headers its parser extracts end)
    let cases: [(&str, &Vec<u8>, usize); 10] = [
        ("l3_router.sn", &arp, 42),     // ethernet, arp
        ("l3_router.sn", &udp4, 34),    // ethernet, ipv4
        ("flow_monitor.sn", &tcp4, 54), // ethernet, ipv4, tcp
        ("flow_monitor.sn", &udp4, 42), // ethernet, ipv4, udp
        ("flow_monitor.sn", &tcp6, 74), // ethernet, ipv6, tcp
        ("flow_monitor.sn", &udp6, 62), // ethernet, ipv6, udp
        ("firewall.sn", &tcp4, 54),     // ethernet, ipv4, tcp
        ("firewall.sn", &udp4, 42),     // ethernet, ipv4, udp
        ("firewall.sn", &arp, 14),      // ethernet only: ARP is not parsed further
        ("firewall.sn", &tcp6, 14),     // ethernet only: IPv6 is not parsed
    ];
    let mut modules = std::collections::BTreeMap::new();
    let mut checked = 0;
    for (name, packet, end) in cases {
        let module = modules.entry(name).or_insert_with(|| lower_example(name));
        // The whole packet is accepted.
        let whole =
            simulate(module, &numbered(vec![packet.clone()])).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            whole.summary.dropped.is_empty(),
            "{name}: {:?}",
            whole.summary.dropped
        );
        for len in 0..end {
            let cut = packet[..len].to_vec();
            let result = simulate(module, &numbered(vec![cut])).unwrap_or_else(|e| panic!("{e}"));
            let dropped = &result.summary.dropped;
            assert!(
                result.packets.is_empty(),
                "{name}, cut at {len}: {:?}",
                result.packets
            );
            if name == "firewall.sn" {
                assert_eq!(dropped.get("drop"), Some(&1), "{name}, cut at {len}");
                let csr = |n: &str| {
                    result
                        .summary
                        .csrs
                        .iter()
                        .find(|(c, _)| c == n)
                        .map(|(_, v)| v.clone())
                };
                assert_eq!(
                    csr("malformed").as_deref(),
                    Some("1"),
                    "{name}, cut at {len}"
                );
                assert_eq!(csr("dropped").as_deref(), Some("1"), "{name}, cut at {len}");
            } else {
                assert_eq!(
                    dropped.get("parser_error:packet_too_short"),
                    Some(&1),
                    "{name}, cut at {len}: {dropped:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 300);
    // The rdma examples cut RoCE headers themselves: a packet ending inside them has no payload.
    let roce = roce_send_only(3, &[1; 64]);
    for name in ["partition.sn", "xor_cipher.sn"] {
        let module = lower_example(name);
        for len in 0..=54 {
            let result = simulate(&module, &numbered(vec![roce[..len].to_vec()]))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                (result.summary.words, result.packets.len()),
                (0, 0),
                "{name}, cut at {len}"
            );
        }
    }
}

/// A pcapng file with the unusual: options everywhere, unknown, custom, name-resolution and
/// statistics blocks, simple and obsolete packet blocks, a zero-length packet, nanosecond
/// resolution, and a second section in big-endian byte order.
#[test]
fn pcapng_with_odd_blocks() {
    let p1 = ipv4_udp([10, 0, 0, 2], [10, 1, 0, 9], 64, 1, 2, b"one");
    let p2 = ipv4_tcp([10, 0, 0, 2], [192, 168, 1, 1], 64, 3, 4, b"two!!");
    let p3 = arp_request([10, 0, 0, 2], [10, 0, 0, 1]);
    let p4 = ipv4_udp([10, 0, 0, 2], [172, 16, 0, 1], 9, 5, 6, b"three");
    let t0: u64 = 1_700_000_000_000_000_000; // ns
    let f = odd_pcapng(t0, [&p1, &p2, &p3, &p4]);

    let records = scenic_io::read_all(&f).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(u64, &[u8])> = records.iter().map(|r| (r.ts_ns, r.data)).collect();
    let want: Vec<(u64, &[u8])> = vec![
        (t0, &p1),
        (t0, &p2),
        (t0 + 2_000, &[]),
        (t0 + 3_000, &p3),
        (t0 + 4_000, &p4),
    ];
    assert_eq!(got, want);
    simulate_all(
        &want
            .iter()
            .map(|(t, p)| (*t, p.to_vec()))
            .collect::<Vec<_>>(),
        "odd pcapng",
    );

    let (_dir, path) = temp_file("odd.pcapng", &f);
    let run = sim_cli("l3_router.sn", &path, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        summary_totals(&run.stderr),
        Some((5, 4, 1)),
        "{}",
        run.stderr
    );

    // Broken blocks: a length that is not a multiple of 4, one shorter than a block, one running
    // past the end, and leading and trailing lengths that differ. Each is an error naming the file
    // and an offset.
    for (what, bytes) in broken_pcapngs(&f) {
        let err = scenic_io::read_all(&bytes).map(|r| r.len());
        let msg = err
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| panic!("{what}: no error"));
        assert!(msg.contains("offset"), "{what}: {msg}");
        let (_dir, path) = temp_file("broken.pcapng", &bytes);
        let run = sim_cli("l3_router.sn", &path, &[]);
        assert_eq!(run.code, 2, "{what}: {run:?}");
        assert!(
            run.stderr.contains("broken.pcapng") && run.stderr.contains("offset"),
            "{what}: {}",
            run.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Command-line options naming what the program does not have.

#[test]
fn entries_with_bad_names_or_forms_are_clear_errors() {
    let cases: [(&str, &[&str]); 7] = [
        (
            r#"{"format_version": 1, "tables": {"acl": [{"key": {"ip.source": "10.0.0.0/8"}, "action": "allow"}]}}"#,
            &["acl", "ip.source", "ip.src"],
        ),
        (
            // ip.src is lpm: a range does not fit it.
            r#"{"format_version": 1, "tables": {"acl": [{"key": {"ip.src": "1..=5"}, "action": "allow"}]}}"#,
            &["acl", "ip.src", "lpm"],
        ),
        (
            // meta.l4_dst is a range key: a prefix does not fit it.
            r#"{"format_version": 1, "tables": {"acl": [{"key": {"meta.l4_dst": {"value": 80, "prefix_len": 8}}, "action": "allow"}]}}"#,
            &["acl", "meta.l4_dst", "range"],
        ),
        (
            r#"{"format_version": 1, "tables": {"acls": [{"action": "allow"}]}}"#,
            &["acls", "acl"],
        ),
        (
            r#"{"format_version": 1, "tables": {"acl": [{"action": "permit"}]}}"#,
            &["permit"],
        ),
        (
            r#"{"format_version": 1, "tables": {"acl": [{"action": "limit", "args": {"klass": 3}}]}}"#,
            &["limit", "klass"],
        ),
        (
            r#"{"format_version": 1, "csrs": {"droped": 1}}"#,
            &["droped"],
        ),
    ];
    for (json, needles) in cases {
        let run = entries_run(json);
        // Names the program lacks are errors in the input (1); files that do not parse are 2.
        assert_eq!(run.code, 1, "{json}: {run:?}");
        for n in needles {
            assert!(
                run.stderr.contains(n),
                "{json}: the message should name `{n}`: {}",
                run.stderr
            );
        }
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    // An entries file that is not valid JSON, or has the wrong shape: exit 2, with line and column.
    for json in [
        r#"{"format_version": 1, "tables": {"acl": [}"#,
        r#"{"tables": {}}"#,
        r#"{"format_version": 1, "tables": {"acl": [{"key": {"ip.src": "10.0.0.1/8"}, "action": "allow"}]}}"#,
    ] {
        let run = entries_run(json);
        assert_eq!(run.code, 2, "{json}: {run:?}");
        assert!(
            run.stderr.contains("entries.json") && run.stderr.contains("line "),
            "{json}: {}",
            run.stderr
        );
    }
}

#[test]
fn unknown_csr_and_scu_names_are_clear_errors() {
    let (_dir, path) = temp_file("in.pcap", &pcap_file(&small_capture()));
    let run = sim_cli(
        "firewall.sn",
        &path,
        &[OsStr::new("--csr"), OsStr::new("no_such_csr=1")],
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("no_such_csr"), "{}", run.stderr);
    let run = sim_cli(
        "firewall.sn",
        &path,
        &[OsStr::new("--csr"), OsStr::new("dropped")],
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("NAME=VALUE"), "{}", run.stderr);
    let run = sim_cli(
        "firewall.sn",
        &path,
        &[OsStr::new("--csr"), OsStr::new("dropped=lots")],
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("lots"), "{}", run.stderr);
    let run = sim_cli(
        "firewall.sn",
        &path,
        &[OsStr::new("--scu"), OsStr::new("no_such_scu")],
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("no_such_scu"), "{}", run.stderr);
    // A program with no scu at all (only congestion controllers).
    let run = sim_cli("dcqcn.sn", &path, &[]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("no scu"), "{}", run.stderr);
    // The library says the same.
    let module = lower_example("firewall.sn");
    let err = capture::simulate(
        &module,
        [],
        None,
        &[("no_such_csr".into(), 1)],
        &SimOptions::default(),
    )
    .err()
    .map(|e| e.to_string());
    assert!(err.is_some_and(|e| e.contains("no_such_csr")));
    let options = SimOptions {
        scu: Some("nope".into()),
        trace: false,
    };
    let err = capture::simulate(&module, [], None, &[], &options)
        .err()
        .map(|e| e.to_string());
    assert!(err.is_some_and(|e| e.contains("nope")));
}

#[test]
fn tracing_a_bad_capture_does_not_change_the_outcome() {
    let mut rng = Rng::new(0x5eed_0003);
    let mut packets = small_capture();
    packets.extend(numbered((0..50).map(|_| rng.bytes(60)).collect()));
    let module = lower_example("l3_router.sn");
    let plain = simulate(&module, &packets).unwrap_or_else(|e| panic!("{e}"));
    let options = SimOptions {
        scu: None,
        trace: true,
    };
    let traced = capture::simulate(
        &module,
        packets.iter().map(|(t, p)| (*t, p.as_slice())),
        None,
        &[],
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plain.packets, traced.packets);
    assert_eq!(plain.summary, traced.summary);
    assert_eq!(traced.traces.len(), packets.len());
    let (_dir, path) = temp_file("trace.pcap", &pcap_file(&packets));
    let run = sim_cli("l3_router.sn", &path, &[OsStr::new("--trace")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("packet 1:"), "{}", run.stderr);
    let _ = HOST_PORT;
}

// ---------------------------------------------------------------------------------------------
// Regression tests of bugs these tests found.

/// Regression: virtual time starts at the first packet and the interpreter runs every missed
/// period of an `every` block, so a capture whose timestamps jump (a record stamped 0, a pcapng
/// simple packet block, which gets the previous packet's timestamp or 0, before a real one, or a
/// capture left running overnight) used to make `scenicc sim` run `every 1ms` billions of times
/// (days, terabytes). Such a step now stops the simulation at once with an error that names the
/// packet, the block and the number of runs.
#[test]
fn a_time_jump_fails_fast_naming_the_every_block() {
    let p = ipv4_udp([10, 0, 0, 2], [10, 1, 0, 9], 64, 1, 2, b"x");
    let packets = vec![(0, p.clone()), (1_700_000_000_000_000_000, p)];
    let module = std::sync::Arc::new(lower_example("firewall.sn"));
    let result = within(
        Duration::from_secs(5),
        "two packets through firewall.sn",
        move || simulate(&module, &packets).map(|r| r.summary.notifications),
    );
    let Err(err) = result else {
        panic!("expected an error, got {result:?}");
    };
    let message = err.to_string();
    assert!(message.contains("at packet 2"), "{message}");
    assert!(
        message.contains("`every 1000000 ns` of scu `incast_firewall`"),
        "{message}"
    );
    // A gap within the limit still runs every period: 10 s of `every 1ms` is 10,000 runs.
    let p = ipv4_udp([10, 0, 0, 2], [10, 1, 0, 9], 64, 1, 2, b"x");
    let packets = vec![(0, p.clone()), (10_000_000_000, p)];
    let result =
        simulate(&lower_example("firewall.sn"), &packets).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.summary.notifications, 10_000);
}

/// Regression (ir/sim/src/capture.rs, `tcp_payload` and `roce_payload`): the payload ends where the
/// IP packet ends (IPv4 total length / IPv6 payload length), not at the end of the frame. Frames
/// shorter than 60 bytes are padded on the wire, and captures of real NICs show the padding: a pure
/// TCP ACK (54 bytes, padded to 60) must feed no bytes into the connection's stream, and a RoCE
/// packet without payload (58 bytes, padded to 60) must not feed 2 bytes of its ICRC.
#[test]
fn ethernet_padding_never_becomes_stream_payload() {
    let counter = lower_source(
        "tcp_words.sn",
        "scu tcp_words on tcp(flow) {\n    stream(word: bit<512>) {\n        pass(word);\n    }\n}\n",
    );
    let mut ack = Vec::new();
    etherparse::PacketBuilder::ethernet2(mac(1), mac(2))
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .tcp(1000, 2000, 1, 100)
        .ack(5)
        .write(&mut ack, &[])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ack.len(), 54);
    ack.resize(60, 0); // Ethernet padding, as on the wire
    let tcp = simulate(&counter, &numbered(vec![ack])).unwrap_or_else(|e| panic!("{e}"));
    let mut empty_send = roce_send_only(3, &[]);
    assert_eq!(empty_send.len(), 58);
    empty_send.resize(60, 0);
    let roce = simulate(&lower_example("xor_cipher.sn"), &numbered(vec![empty_send]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (tcp.summary.words, roce.summary.words),
        (0, 0),
        "padding was fed to the stream kernels as payload"
    );
}

/// Regression (ir/sim/src/capture.rs, `l4` and `tcp_payload`): an IPv4 header length below 5 words
/// or a TCP data offset below 5 words used to be taken as it was, so the payload handed to a tcp scu
/// started inside the IP or TCP header and the words it passed were written back over those
/// headers. A NIC's TCP stack drops such packets (RFC 791 and RFC 9293 make 5 the minimum), so the
/// simulator feeds nothing. Here a scu that XORs every word must not touch the IPv4 header (ihl 0)
/// or the TCP header (data offset 0).
#[test]
fn short_header_lengths_feed_nothing_to_tcp_kernels() {
    let scramble = lower_source(
        "scramble.sn",
        "scu scramble on tcp(flow) {\n    stream(word: bit<512>) {\n        pass(~word);\n    }\n}\n",
    );
    let good = ipv4_tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, 1000, 2000, b"payload");
    let mut bad_ihl = good.clone();
    bad_ihl[14] = 0x40; // version 4, ihl 0
    let mut bad_offset = good.clone();
    bad_offset[34 + 12] = 0x00; // data offset 0
    let result =
        simulate(&scramble, &numbered(vec![bad_ihl, bad_offset])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        result.summary.words,
        0,
        "header bytes were fed to the kernel: {:?}",
        result
            .packets
            .iter()
            .map(|p| hex(&p.data))
            .collect::<Vec<_>>()
    );
}
