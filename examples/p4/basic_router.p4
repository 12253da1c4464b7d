/* basic_router.p4: a small IPv4 router for v1model, written for scenicc's P4 reader (not taken from
 * p4c's test suite). It shows the subset `scenicc check/sim/test FILE.p4` accepts (docs/p4.md,
 * "P4 input"):
 *
 * - parser: Ethernet, then IPv4 (EtherType 0x0800) or nothing; IPv4 with options goes to the host;
 * - ingress: an lpm table `ipv4_lpm` (entries added at run time, STF `add`) choosing the output
 *   port and next-hop MAC; TTL decrement, drop when it would reach 0; ARP and unknown traffic to the
 *   CPU port (256, scenicc's host); a per-port packet counter; the router's MAC held in a
 *   register that is a CSR (`@scenic_csr`, so the host writes it with `set_csr`);
 * - compute checksum: the IPv4 header checksum recomputed with `update_checksum` (csum16);
 * - deparser: Ethernet and IPv4 in order.
 *
 * Run its tests: scenicc test examples/p4/basic_router.p4 examples/p4/basic_router.stf */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x0800;
const bit<9> CPU_PORT = 256;

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3> flags;
    bit<13> frag_offset;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t ipv4;
}

struct metadata_t {
    bit<1> routed;
}

parser RouterParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RouterVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control RouterIngress(inout headers_t hdr, inout metadata_t meta,
                      inout standard_metadata_t standard_metadata) {
    @scenic_csr("router_mac", 0, "read-write", 48w0x020000000001)
    register<bit<48>>(1) router_mac;
    counter(4, CounterType.packets_and_bytes) rx_by_port;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
    }

    action forward(bit<9> port, bit<48> next_hop) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dst_addr = next_hop;
        meta.routed = 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dst_addr: lpm;
        }
        actions = {
            forward;
            to_cpu;
            drop;
        }
        size = 256;
        default_action = to_cpu();
    }

    apply {
        if (standard_metadata.ingress_port < 4) {
            rx_by_port.count((bit<32>)standard_metadata.ingress_port);
        }
        to_cpu();
        if (hdr.ipv4.isValid() && hdr.ipv4.ihl == 5) {
            if (hdr.ipv4.ttl <= 1) {
                drop();
            } else {
                ipv4_lpm.apply();
                if (meta.routed == 1) {
                    bit<48> mac;
                    router_mac.read(mac, 0);
                    hdr.ethernet.src_addr = mac;
                    hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
                }
            }
        }
    }
}

control RouterEgress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply { }
}

control RouterComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control RouterDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(RouterParser(), RouterVerifyChecksum(), RouterIngress(), RouterEgress(),
         RouterComputeChecksum(), RouterDeparser()) main;
