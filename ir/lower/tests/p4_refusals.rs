//! A construct outside the P4 reader's subset is one error where it is written, not one more at
//! every use: a header union declared once and used in a parser, a table key and a control gives
//! exactly one E0702, naming header unions at the declaration.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use scenic_lower::p4::compile_source;

const UNION: &str = r#"
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union u_t { a_t a; b_t b; }
struct headers_t { u_t u; }
struct metadata_t { }
parser P(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start { packet.extract(hdr.u.a); transition accept; }
}
control V(inout headers_t hdr, inout metadata_t meta) { apply { } }
control I(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.u.a.x = v; }
    table t { key = { hdr.u.a.x: exact; } actions = { set; NoAction; } default_action = NoAction(); }
    apply {
        if (hdr.u.b.isValid()) { hdr.u.b.y = 1; }
        t.apply();
    }
}
control E(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout metadata_t meta) { apply { } }
control D(packet_out packet, in headers_t hdr) { apply { packet.emit(hdr.u); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn a_header_union_is_refused_once() {
    let (report, module) = compile_source("union.p4", UNION);
    let text = report.render_plain();
    assert!(module.is_none(), "{text}");
    assert_eq!(report.error_count(), 1, "{text}");
    assert!(
        text.contains("error[E0702]") && text.contains("header unions"),
        "{text}"
    );
}
