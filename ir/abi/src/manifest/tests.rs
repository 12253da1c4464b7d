//! Tests of building, writing and reading manifests (goldens of the examples are in
//! backend-hls/tests/package.rs, where the manifest carries kernels and ports).

use super::build::sha256_hex;
use super::*;
use scenic_ir::Validator;

const PROGRAM: &str = "\
use std::net::{ethernet, ipv4};
struct stats { packets: bit<32>, last: bit<16> }
scu fw on slow_path {
    csr seen: bit<32> readonly;
    csr limit: bit<16>;
    param mode: bit<2> = 1;
    headers { eth: ethernet, ip: ipv4 }
    parser {
        state start {
            extract(eth);
            match eth.ether_type { 0x0800 => ip4, _ => accept }
        }
        state ip4 { extract(ip); accept }
    }
    action set(port: bit<8>, tag: bit<12>) { seen += 1; }
    table acl {
        key { ip.src: lpm, ip.protocol: ternary }
        actions { set }
        default set(3, 0x123);
        size 64;
    }
    map flows: lru_hash<bit<24>, stats>[128];
    counter c: packets_and_bytes[4];
    control {
        if ip.valid() {
            let _ = acl.apply();
            let mut s = flows.get(ip.src[31:8]);
            s.packets |+|= 1;
            let _ = flows.insert(ip.src[31:8], s);
        }
        c.count(0);
    }
    every 1ms { seen = 0; }
}
cc w per flow[16] budget 65 cycles {
    param step: bit<16> = 8;
    state cwnd: size = 4096B;
    state acked: bit<8> = 0;
    output window cwnd;
    on ack(a) { cwnd = cwnd + a.bytes; acked = acked + (step as bit<8>); }
}
";

fn manifest(text: &str) -> Manifest {
    let report = scenic_lower::check::check_source("fw.sn", text, Default::default());
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    let mut session = scenic_frontend::Session::new();
    session.add_source("fw.sn", text);
    let module = scenic_lower::lower_file(session.db(), session.roots()[0])
        .unwrap_or_else(|err| panic!("lowering failed: {err}"));
    let info = Validator::new()
        .validate(&module)
        .unwrap_or_else(|err| panic!("invalid IR: {err}"));
    let report = scenic_timing::analyze(&module, &scenic_timing::Options::default());
    let source = Source {
        file: "dir/fw.sn",
        text,
    };
    Manifest::build(&module, &info, &report, source, &BackendFacts::default())
        .unwrap_or_else(|err| panic!("manifest: {err}"))
}

#[test]
fn program_facts() {
    let m = manifest(PROGRAM);
    assert_eq!(m.format_version, 1);
    assert_eq!(m.program.name, "fw");
    assert_eq!(m.program.source_file, "dir/fw.sn");
    assert_eq!(m.program.source_sha256, sha256_hex(PROGRAM.as_bytes()));
    assert_eq!(m.program.compiler, "scenicc");
    assert_eq!(m.csr_window.base, 0x20000);
    assert_eq!(m.scus[0].csr_base, 0x20000);
    // Three CSRs and the mailbox: 3 + 2 data words + index, command, status + 2 response words.
    assert_eq!(m.control.scus[0].mailbox.end, 10);
    assert_eq!(m.csr_window.stride_bytes, 16 * 8);
}

#[test]
fn sha256_of_known_texts() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn csrs_have_offsets_addresses_and_access() {
    let m = manifest(PROGRAM);
    let csrs = &m.scus[0].csrs;
    let got: Vec<(&str, u32, u64, u32, CsrAccess, &str)> = csrs
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.offset,
                c.byte_address,
                c.width,
                c.access,
                c.init.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("seen", 0, 0x20000, 32, CsrAccess::Readonly, "0x0"),
            ("limit", 1, 0x20008, 16, CsrAccess::ReadWrite, "0x0"),
            ("mode", 2, 0x20010, 2, CsrAccess::Param, "0x1"),
        ]
    );
}

#[test]
fn table_key_and_action_layouts() {
    let m = manifest(PROGRAM);
    let t = &m.scus[0].tables[0];
    assert_eq!(t.name, "acl");
    assert_eq!(t.ranking, Ranking::Priority);
    assert_eq!(t.key_bits, 40);
    let keys: Vec<(&str, MatchKindName, u32)> = t
        .keys
        .iter()
        .map(|k| (k.name.as_str(), k.match_kind, k.width))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("ip.src", MatchKindName::Lpm, 32),
            ("ip.protocol", MatchKindName::Ternary, 8),
        ]
    );
    let set = &t.actions[0];
    assert_eq!((set.id, set.name.as_str(), set.data_bits), (0, "set", 20));
    let params: Vec<(&str, u64, u64)> = set
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.width, p.lo))
        .collect();
    // The entry record: action 0..8, priority 8..40, ip.src 40..72 with its prefix length
    // 72..88, ip.protocol 88..96 with its mask 96..104, then the arguments.
    assert_eq!(params, vec![("port", 8, 104), ("tag", 12, 112)]);
    let src = &t.keys[0];
    assert_eq!(src.encoding, "lpm");
    assert_eq!((src.value.lo, src.value.width), (40, 32));
    assert_eq!((src.aux.lo, src.aux.width), (72, 16));
    assert_eq!(t.keys[1].encoding, "ternary");
    assert_eq!((t.keys[1].aux.lo, t.keys[1].aux.width), (96, 8));
    assert_eq!((t.action_field.lo, t.action_field.width), (0, 8));
    assert_eq!((t.priority_field.lo, t.priority_field.width), (8, 32));
    assert_eq!(t.record_bits, 124);
    assert_eq!(t.default.name, "set");
    assert_eq!(t.default.args, vec!["0x3".to_string(), "0x123".to_string()]);
    assert!(t.default.host_may_change);
    assert!(t.actions.iter().any(|a| a.name == "no_action"));
}

#[test]
fn maps_counters_every_and_ccs() {
    let m = manifest(PROGRAM);
    let s = &m.scus[0];
    let map = &s.maps[0];
    assert_eq!(
        (map.kind, map.key_bits, map.value_bits, map.size),
        (MapKindName::LruHash, 24, 48, 128)
    );
    let fields: Vec<(&str, u32, u32)> = map
        .value_fields
        .iter()
        .map(|f| (f.name.as_str(), f.width, f.lo))
        .collect();
    assert_eq!(
        fields,
        vec![("flows.packets", 32, 0), ("flows.last", 16, 32)]
    );
    assert_eq!(s.counters[0].kind, CounterKindName::PacketsAndBytes);
    assert_eq!(s.every[0].period_ns, 1_000_000);
    assert!(s.summary.packet.is_some());
    assert_eq!(
        s.parser_errors[..3],
        ["packet_too_short", "no_match", "stack_overflow"]
    );
    let cc = &m.ccs[0];
    assert_eq!((cc.flows, cc.budget_cycles), (16, Some(65)));
    assert_eq!(cc.output, CcOutputKind::Window);
    assert_eq!(cc.output_state, "cwnd");
    assert_eq!(cc.state_bits, 72);
    let state: Vec<(&str, u64, u64)> = cc
        .state
        .iter()
        .map(|v| (v.name.as_str(), v.width, v.lo))
        .collect();
    assert_eq!(state, vec![("cwnd", 64, 0), ("acked", 8, 64)]);
    assert_eq!(cc.params[0].default, "0x8");
    assert_eq!(cc.handlers.len(), 1);
    assert_eq!(cc.handlers[0].event, "on ack");
    assert!(!cc.handlers[0].over_budget);
}

#[test]
fn json_round_trip_is_exact_and_deterministic() {
    let m = manifest(PROGRAM);
    let text = m.to_json_pretty();
    assert!(text.ends_with("}\n"));
    assert_eq!(text, manifest(PROGRAM).to_json_pretty());
    let back = Manifest::from_json(&text).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(back, m);
    assert_eq!(back.to_json_pretty(), text);
}

#[test]
fn unknown_keys_are_ignored() {
    let text = manifest(PROGRAM).to_json_pretty();
    let text = text.replacen('{', "{\n  \"added_later\": [1, 2],", 1);
    assert!(Manifest::from_json(&text).is_ok());
}

#[test]
fn reading_errors_are_clear() {
    let err = Manifest::from_json("{ \"format_version\": 1, ").map(|_| ());
    assert!(
        matches!(err, Err(ManifestError::Json { line: 1, .. })),
        "{err:?}"
    );
    assert_eq!(
        Manifest::from_json("{}").map(|_| ()),
        Err(ManifestError::MissingVersion)
    );
    let err = Manifest::from_json("{\"format_version\": 7}").map(|_| ());
    assert_eq!(
        err,
        Err(ManifestError::UnsupportedVersion {
            found: 7,
            supported: 1
        })
    );
    let err = Manifest::from_json("{\"format_version\": \"1\"}").map(|_| ());
    assert!(matches!(err, Err(ManifestError::Json { .. })), "{err:?}");
    let err = Manifest::from_json("{\n  \"format_version\": 1\n}").map(|_| ());
    let Err(ManifestError::Json {
        line,
        column,
        message,
    }) = err
    else {
        panic!("expected a JSON error, got {err:?}");
    };
    assert_eq!((line, column), (3, 1));
    assert!(message.contains("missing field `program`"), "{message}");
    let shown = Manifest::from_json("[1")
        .map(|_| ())
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        shown.as_deref(),
        Some("manifest.json:1:2: EOF while parsing a list")
    );
}

#[test]
fn a_kernel_count_mismatch_is_an_error() {
    let text = PROGRAM;
    let mut session = scenic_frontend::Session::new();
    session.add_source("fw.sn", text);
    let Ok(module) = scenic_lower::lower_file(session.db(), session.roots()[0]) else {
        panic!("lowering failed");
    };
    let Ok(info) = Validator::new().validate(&module) else {
        panic!("invalid IR");
    };
    let report = scenic_timing::analyze(&module, &scenic_timing::Options::default());
    let kernel = Kernel {
        name: "a".into(),
        ip: "a_hls_ip".into(),
        pipeline_ii: 1,
        header_window_beats: 1,
        ports: Vec::new(),
    };
    let backend = BackendFacts {
        kernels: vec![kernel.clone(), kernel],
        cc_kernels: Vec::new(),
    };
    let source = Source {
        file: "fw.sn",
        text,
    };
    let err = Manifest::build(&module, &info, &report, source, &backend).map(|_| ());
    assert_eq!(
        err,
        Err(ManifestError::KernelCount {
            kernels: 2,
            scus: 1
        })
    );
}
