// E0712: a header field written through an `in` parameter
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { }
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control MyIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control MyEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Nothing(inout headers_t hdr, inout meta_t m) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { hdr.eth.type = 0x800; pkt.emit(hdr); } }
V1Switch(MyParser(), Nothing(), MyIngress(), MyEgress(), Nothing(), MyDeparser()) main;
