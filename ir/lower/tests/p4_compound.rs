//! P4_16 §12.1 compound assignments (`a op= b` is `a = a op b`, `a` evaluated once) in the P4
//! reader: every operator on header fields, a metadata field, a local and a slice, run by the
//! interpreter on one packet whose expected bytes are computed by hand below; an l-value holding
//! a call is refused (it would be evaluated twice), and `+ =` is not an operator.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenic_lower::p4::compile_source;

/// x = 0xF0, y = 0x13 (19); every result is 8 bits (wrapping), `|+|`/`|-|` saturate.
const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header in_t { bit<8> x; bit<8> y; }
header out_t { bit<8> add; bit<8> sub; bit<8> mul; bit<8> div; bit<8> mod; bit<8> shl; bit<8> shr;
               bit<8> band; bit<8> bxor; bit<8> bor; bit<8> sadd; bit<8> ssub; bit<8> nib; }
struct headers_t { in_t i; out_t o; }
struct metadata_t { bit<8> m; }
parser P(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { packet.extract(hdr.i); packet.extract(hdr.o); transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> x = hdr.i.x;
        hdr.o.add = x;   hdr.o.add += hdr.i.y;
        hdr.o.sub = x;   hdr.o.sub -= hdr.i.y;
        hdr.o.mul = x;   hdr.o.mul *= hdr.i.y;
        hdr.o.div = x;   hdr.o.div /= 19;
        hdr.o.mod = x;   hdr.o.mod %= 19;
        hdr.o.shl = x;   hdr.o.shl <<= 3;
        hdr.o.shr = x;   hdr.o.shr >>= 3;
        meta.m = x;      meta.m &= hdr.i.y;     hdr.o.band = meta.m;
        x ^= hdr.i.y;    hdr.o.bxor = x;
        hdr.o.bor = hdr.i.x;  hdr.o.bor |= hdr.i.y;
        hdr.o.sadd = hdr.i.x; hdr.o.sadd |+|= hdr.i.y;
        hdr.o.ssub = hdr.i.y; hdr.o.ssub |-|= hdr.i.x;
        hdr.o.nib = 8w0xAF; hdr.o.nib[3:0] += 4w3;
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out packet, in headers_t hdr) { apply { packet.emit(hdr.i); packet.emit(hdr.o); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn every_compound_operator_is_its_binary_operator() {
    let (report, module) = compile_source("compound.p4", PROGRAM);
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    let module = module.unwrap();
    // add 0xF0+0x13 = 0x103 → 03; sub 0xF0-0x13 = DD; mul 240*19 = 4560 = 0x11D0 → D0;
    // div 240/19 = 12 = 0C; mod 240%19 = 12 = 0C; shl 0xF0<<3 = 0x780 → 80; shr 0xF0>>3 = 1E;
    // and F0&13 = 10; xor F0^13 = E3; or F0|13 = F3; sadd 240+19 > 255 → FF; ssub 19-240 < 0
    // → 00; nib: 0xAF with its low nibble F+3 = 0x12 → 2: A2.
    let stf = "packet 0 F0 13 00000000000000000000000000\n\
               expect 1 F0 13 03 DD D0 0C 0C 80 1E 10 E3 F3 FF 00 A2 $\n";
    let report = scenic_sim::stf::run_text(&module, stf, None);
    assert!(report.ok(), "{:?}", report.failures);
    assert_eq!(report.passed, 1);
}

#[test]
fn an_l_value_with_a_call_is_refused_and_split_operators_are_syntax_errors() {
    let with_call = PROGRAM.replace(
        "hdr.o.add = x;   hdr.o.add += hdr.i.y;",
        "hdr.o.add = x;   hdr.o.add[hdr.i.y.minSizeInBits() - 1 : 0] += 1;",
    );
    let (report, _) = compile_source("call.p4", &with_call);
    let text = report.render_plain();
    assert!(
        text.contains("compound assignments to an l-value with a call in it"),
        "{text}"
    );
    let split = PROGRAM.replace("hdr.o.add += hdr.i.y;", "hdr.o.add + = hdr.i.y;");
    let (report, _) = compile_source("split.p4", &split);
    let text = report.render_plain();
    assert!(
        text.contains("E0701") && text.contains("split.p4:16"),
        "{text}"
    );
}
