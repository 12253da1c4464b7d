// E0704: two constants with one name
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers_t { eth_t eth; }
struct meta_t { }
const bit<9> OUT_PORT = 1;
const bit<9> OUT_PORT = 2;
parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control MyIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = OUT_PORT; }
}
control MyEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Nothing(inout headers_t hdr, inout meta_t m) { apply { } }
control MyDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(MyParser(), Nothing(), MyIngress(), MyEgress(), Nothing(), MyDeparser()) main;
