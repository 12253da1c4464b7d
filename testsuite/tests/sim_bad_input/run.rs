//! Running captures: temporary files, the `scenicc sim` command line, and every scu example in the
//! library under a time bound.

use super::*;

/// The examples with an scu (`dcqcn.sn` and `window_cc.sn` hold only congestion controllers).
pub(crate) const SCU_EXAMPLES: [&str; 5] = [
    "firewall.sn",
    "flow_monitor.sn",
    "l3_router.sn",
    "partition.sn",
    "xor_cipher.sn",
];

/// A small valid capture: an ARP request, an IPv4/UDP and a RoCEv2 packet.
pub(crate) fn small_capture() -> Vec<(u64, Vec<u8>)> {
    numbered(vec![
        arp_request([10, 0, 0, 2], [10, 0, 0, 1]),
        ipv4_udp([10, 0, 0, 2], [10, 1, 0, 9], 64, 1234, 53, b"query"),
        roce_send_only(17, &[0x5a; 40]),
    ])
}

/// Writes `bytes` to a file in a new temporary directory.
pub(crate) fn temp_file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (dir, path)
}

/// `scenicc sim <example> --in <input> --out <dir>/out.pcap` and more arguments.
pub(crate) fn sim_cli(example_name: &str, input: &Path, extra: &[&OsStr]) -> Run {
    let out = input.with_file_name("out.pcap");
    let program = example(example_name);
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("sim"),
        program.as_os_str(),
        OsStr::new("--in"),
        input.as_os_str(),
        OsStr::new("--out"),
        out.as_os_str(),
    ];
    args.extend_from_slice(extra);
    run_scenicc(args)
}

/// Runs every scu example over `records` in the library, each within a time bound; the results
/// must be consistent (one outcome per packet on the slow path, well-formed outputs).
pub(crate) fn simulate_all(records: &[(u64, Vec<u8>)], what: &str) {
    for name in SCU_EXAMPLES {
        let module = std::sync::Arc::new(lower_example(name));
        let packets = records.to_vec();
        let label = format!("{name} on {what}");
        let m = module.clone();
        let result = within(Duration::from_secs(20), &label, move || {
            simulate(&m, &packets)
        })
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(result.summary.packets_in, records.len() as u64, "{label}");
        if name != "partition.sn" && name != "xor_cipher.sn" {
            let out: u64 = result.summary.out_per_port.values().sum();
            let dropped: u64 = result.summary.dropped.values().sum();
            assert_eq!(
                out + dropped,
                records.len() as u64,
                "{label}: {:?}",
                result.summary
            );
        }
        for p in &result.packets {
            assert!(
                p.data.len() >= 14,
                "{label}: an output shorter than an Ethernet header"
            );
        }
    }
}

/// `scenicc sim firewall.sn` on the small capture with `json` as its `--entries` file.
pub(crate) fn entries_run(json: &str) -> Run {
    let (dir, path) = temp_file("in.pcap", &pcap_file(&small_capture()));
    let entries = dir.path().join("entries.json");
    std::fs::write(&entries, json).unwrap_or_else(|e| panic!("{e}"));
    sim_cli(
        "firewall.sn",
        &path,
        &[OsStr::new("--entries"), entries.as_os_str()],
    )
}
