//! The P4 reader's lowering of what the round trip needs, each on a small hand-written program run
//! by the interpreter: `hash` (crc32, crc16, csum16 against the algorithms' published check values),
//! `@scenic_csr` on registers, Vitis `Counter`s and Vitis user-metadata fields (CSRs in offset
//! order with their access and initial value; `set_csr`/`check_csr` through STF), the Vitis shell
//! inputs (`ingress_port`, `packet_length`, `timestamp_ns`), `Counter<W, S>` indexed by `bit<S>`,
//! malformed annotations reported as E0702 at their line, and v1model's `ingress_global_timestamp`
//! (microseconds, computed only when the program reads it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenic_ir::Module;
use scenic_lower::p4::compile_source;

fn lower(name: &str, text: &str) -> Module {
    let (report, module) = compile_source(name, text);
    match module {
        Some(m) if report.error_count() == 0 => m,
        _ => panic!("{name}:\n{}", report.render_plain()),
    }
}

fn stf(module: &Module, text: &str) {
    let report = scenic_sim::stf::run_text(module, text, None);
    let failures: Vec<String> = report
        .failures
        .iter()
        .map(|f| format!("{}:{}: {}", f.pos.line, f.pos.column, f.message))
        .collect();
    assert!(report.ok(), "{}", failures.join("\n"));
}

/// A v1model program whose ingress hashes the 72-bit field `data` three ways.
const HASHES: &str = r#"
#include <core.p4>
#include <v1model.p4>
header in_t { bit<72> data; }
header out_t { bit<32> crc32; bit<16> crc16; bit<16> csum; bit<8> low; }
struct headers_t { in_t i; out_t o; }
struct metadata_t { }
parser P(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { packet.extract(hdr.i); packet.extract(hdr.o); transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        hash(hdr.o.crc32, HashAlgorithm.crc32, 32w0, { hdr.i.data }, 64w4294967296);
        hash(hdr.o.crc16, HashAlgorithm.crc16, 16w0, { hdr.i.data }, 32w65536);
        hash(hdr.o.csum, HashAlgorithm.csum16, 16w0, { hdr.i.data[71:8] }, 32w65536);
        hash(hdr.o.low, HashAlgorithm.crc32, 8w1, { hdr.i.data }, 32w16);
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out packet, in headers_t hdr) { apply { packet.emit(hdr.i); packet.emit(hdr.o); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn hash_matches_the_algorithms_check_values() {
    let module = lower("hashes.p4", HASHES);
    // "123456789": CRC-32 0xcbf43926, CRC-16/ARC 0xbb3d (the catalogue's check values); the
    // Internet checksum of "12345678" is ~(0x3132 + 0x3334 + 0x3536 + 0x3738) = ~0xd0d4 = 0x2f2b;
    // the last field is 1 + (0xcbf43926 & 15) = 7.
    stf(
        &module,
        "packet 0 313233343536373839 00000000 0000 0000 00\n\
         expect 1 313233343536373839 cbf43926 bb3d 2f2b 07 $\n",
    );
}

/// A v1model program with three annotated CSRs (written out of offset order) and a counter.
const CSRS: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<48> b; }
struct headers_t { h_t h; }
struct metadata_t { }
parser P(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { packet.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    @scenic_csr("seen", 2, "readonly", 64w0) register<bit<64>>(1) seen;
    @scenic_csr("mac", 0, "read-write", 48w0x20000000001) register<bit<48>>(1) mac;
    @scenic_csr("limit", 1, "param", 8w7) register<bit<8>>(1) limit;
    apply {
        bit<64> n;
        seen.read(n, 0);
        seen.write(0, n + 1);
        bit<48> m;
        mac.read(m, 0);
        hdr.h.b = m;
        bit<8> l;
        limit.read(l, 0);
        hdr.h.a = l;
        sm.egress_spec = 2;
    }
}
control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out packet, in headers_t hdr) { apply { packet.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn scenic_csr_registers_are_csrs_in_offset_order() {
    let module = lower("csrs.p4", CSRS);
    let scu = module.scus.values().next().unwrap();
    let csrs: Vec<_> = scu
        .csrs
        .values()
        .map(|c| {
            (
                c.name.as_str(),
                c.init.to_u64(),
                c.host_readonly,
                c.is_param,
            )
        })
        .collect();
    assert_eq!(
        csrs,
        vec![
            ("mac", Some(0x20000000001), false, false),
            ("limit", Some(7), false, true),
            ("seen", Some(0), true, false),
        ]
    );
    assert!(scu.maps.is_empty(), "a CSR register is not an array map");
    stf(
        &module,
        "packet 0 00 000000000000\n\
         expect 2 07 020000000001 $\n\
         set_csr mac 0x0a0b0c0d0e0f\n\
         set_csr limit 9\n\
         packet 0 00 000000000000\n\
         expect 2 09 0a0b0c0d0e0f $\n\
         wait\n\
         check_csr seen == 2\n\
         check_csr mac == 0x0a0b0c0d0e0f\n",
    );
}

/// A Vitis program: shell inputs and a CSR input in user metadata, a CSR counter, a counter
/// indexed by `bit<2>`.
const VITIS: &str = r#"
#include <core.p4>
#include <xsa.p4>
header h_t { bit<8> port; bit<16> len; bit<64> ts; bit<32> key; bit<2> idx; bit<6> pad; }
struct headers_t { h_t h; }
struct metadata_t {
    bit<8> ingress_port;
    bit<16> packet_length;
    bit<64> timestamp_ns;
    bit<8> egress_port;
    bit<1> to_host;
    @scenic_csr("key", 0, "read-write", 32w0xabcd) bit<32> csr_key;
}
parser P(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { packet.extract(hdr.h); transition accept; }
}
control M(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    @scenic_csr("hits", 1, "readonly", 64w0) Counter<bit<64>, bit<1>>(1, CounterType_t.PACKETS) hits;
    Counter<bit<64>, bit<2>>(4, CounterType_t.PACKETS) by_idx;
    apply {
        hdr.h.port = meta.ingress_port;
        hdr.h.len = meta.packet_length;
        hdr.h.ts = meta.timestamp_ns;
        hdr.h.key = meta.csr_key;
        hits.count(1w0);
        by_idx.count(hdr.h.idx);
        meta.egress_port = 3;
        meta.to_host = 0;
    }
}
control D(packet_out packet, in headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { packet.emit(hdr.h); }
}
XilinxPipeline(P(), M(), D()) main;
"#;

#[test]
fn vitis_shell_inputs_csr_inputs_and_counters() {
    let module = lower("vitis.p4", VITIS);
    let scu = module.scus.values().next().unwrap();
    let names: Vec<_> = scu.csrs.values().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["key", "hits"]);
    // Port 5, 16 bytes, at t = 0x1234 ns (`wait` advances virtual time).
    stf(
        &module,
        "wait 4660\n\
         packet 5 00 0000 0000000000000000 00000000 80\n\
         expect 3 05 0010 0000000000001234 0000abcd 80 $\n\
         set_csr key 7\n\
         packet 1 00 0000 0000000000000000 00000000 40\n\
         expect 3 01 0010 0000000000001234 00000007 40 $\n\
         wait\n\
         check_csr hits == 2\n\
         check_counter by_idx(2) packets == 1\n\
         check_counter by_idx(1) packets == 1\n\
         check_counter by_idx(0) packets == 0\n",
    );
}

#[test]
fn a_malformed_annotation_is_e0702_at_its_line() {
    let bad = CSRS.replace(
        r#"@scenic_csr("limit", 1, "param", 8w7)"#,
        r#"@scenic_csr("limit", one, "param", 8w7)"#,
    );
    let (report, module) = compile_source("bad.p4", &bad);
    assert!(module.is_none());
    let text = report.render_plain();
    assert!(text.contains("error[E0702]"), "{text}");
    assert!(text.contains("--> bad.p4:14:"), "{text}");
    let twice = CSRS.replace(r#"("limit", 1,"#, r#"("mac", 1,"#);
    let (report, _) = compile_source("twice.p4", &twice);
    assert!(report.render_plain().contains("one name or offset"));
    let gap = CSRS.replace(r#"("seen", 2,"#, r#"("seen", 5,"#);
    let (report, _) = compile_source("gap.p4", &gap);
    assert!(report.render_plain().contains("leaves a gap"));
}

/// Mangled versions of the hand-written router and of the programs above (prefixes, deleted lines,
/// dropped `;`, `}` and `)`, sampled so the test stays a few seconds in a debug build: a read costs
/// ~25 ms, the architecture files included) are read without a panic: each gives a module or
/// diagnostics.
#[test]
fn mangled_programs_never_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let router = std::fs::read_to_string(root.join("examples/p4/basic_router.p4")).unwrap();
    let mut runs = 0;
    for text in [router.as_str(), HASHES, CSRS, VITIS] {
        let mut variants: Vec<String> = Vec::new();
        let boundaries: Vec<usize> = (0..text.len())
            .step_by(97)
            .filter(|i| text.is_char_boundary(*i))
            .collect();
        variants.extend(boundaries.iter().map(|&i| text[..i].to_string()));
        let lines: Vec<&str> = text.lines().collect();
        for skip in (0..lines.len()).step_by(2) {
            let kept: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| *l)
                .collect();
            variants.push(kept.join("\n"));
        }
        let closers = text
            .char_indices()
            .filter(|(_, c)| matches!(c, ';' | '}' | ')'))
            .step_by(5);
        for (i, _) in closers {
            variants.push(format!("{}{}", &text[..i], &text[i + 1..]));
        }
        for v in &variants {
            let (report, module) = compile_source("mangled.p4", v);
            assert!(module.is_some() || report.error_count() > 0);
            runs += 1;
        }
    }
    assert!(runs > 200, "{runs}");
}

/// A v1model program that copies `ingress_global_timestamp` into the packet when `READ` is
/// replaced by the read, and writes a constant otherwise.
const TIMESTAMP: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<48> ts; }
struct headers_t { h_t h; }
struct metadata_t { }
parser P(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { packet.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.ts = READ; sm.egress_spec = 1; }
}
control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out packet, in headers_t hdr) { apply { packet.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// Whether any expression of the parser divides (the microseconds of the v1model prologue).
fn parser_divides(module: &Module) -> bool {
    let scu = module.scus.values().next().unwrap();
    let parser = scu.parser.as_ref().unwrap();
    parser.body.exprs.values().any(|e| {
        matches!(
            e,
            scenic_ir::Expr::Binary(scenic_ir::body::BinaryOp::Div, _, _)
        )
    })
}

#[test]
fn ingress_global_timestamp_is_microseconds_and_computed_only_when_read() {
    let read = lower(
        "ts.p4",
        &TIMESTAMP.replace("READ", "sm.ingress_global_timestamp"),
    );
    assert!(parser_divides(&read));
    let mut machine = scenic_interp::Machine::new(&read);
    let scu = read.scus.keys().next().unwrap();
    let outcome = machine.process_packet(scu, &[0; 6], 0, 5_000_123_456);
    assert_eq!(outcome.outputs.len(), 1, "{outcome:?}");
    // 5,000,123,456 ns is 5,000,123 µs.
    let ts = outcome.outputs[0].1[..6].to_vec();
    assert_eq!(ts, 5_000_123u64.to_be_bytes()[2..].to_vec());
    // Not read: no division is left for a P4 target to refuse, and the IR stays valid.
    let unread = lower("ts.p4", &TIMESTAMP.replace("READ", "48w7"));
    assert!(!parser_divides(&unread));
    scenic_ir::Validator::new().validate(&unread).unwrap();
    // Read only as a whole struct copied elsewhere counts as read.
    let whole = TIMESTAMP
        .replace(
            "struct metadata_t { }",
            "struct metadata_t { standard_metadata_t saved; }",
        )
        .replace("READ", "48w7; meta.saved = sm");
    assert!(parser_divides(&lower("ts.p4", &whole)));
}
