/* xsa.p4: scenicc's own declaration of the AMD Vitis Networking P4 "XilinxPipeline"
 * architecture, written from AMD's public documentation (UG1308, "Target Architecture",
 * "Standard Metadata", "Externs") and public descriptions of the file's contents. It is NOT AMD's
 * xsa.p4: it exists so that scenicc's P4 reader can read back the programs scenicc writes for
 * Vitis Networking P4 (the round-trip tests). Compile real designs with the xsa.p4 that ships
 * with Vitis Networking P4.
 *
 * What the documentation says and this file follows:
 * - three engines: a parser, one MatchAction control (ingress and egress merged), a deparser;
 *   the deparser also takes the user metadata and the standard metadata;
 * - standard metadata: drop (reset to 0 for every packet, checked at the deparser's input),
 *   ingress_timestamp (a 64-bit cycle counter), parsed_bytes, parser_error; no ports (ports
 *   travel in user metadata);
 * - match kinds exact, lpm, ternary (core.p4) and range, field_mask, unused;
 * - externs Counter (64-bit, saturating, at most 65,536 cells), Checksum, InternetChecksum and
 *   UserExtern, allowed in the MatchAction control. */
#ifndef SCENIC_XSA_P4
#define SCENIC_XSA_P4

#include <core.p4>

error {
    HeaderDepthLimitExceeded
}

match_kind {
    range,
    field_mask,
    unused
}

struct standard_metadata_t {
    bit<1> drop;
    bit<64> ingress_timestamp;
    bit<16> parsed_bytes;
    error parser_error;
}

extern UserExtern<I, O> {
    UserExtern(bit<16> fixed_latency_in_cycles);
    void apply(in I data_in, out O data_out);
}

enum CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

extern Counter<W, S> {
    Counter(bit<32> number_of_cells, CounterType_t type);
    void count(in S index);
}

enum HashAlgorithm_t {
    CRC32,
    CRC16,
    ONES_COMPLEMENT16
}

extern Checksum<H> {
    Checksum(HashAlgorithm_t algorithm);
    void apply<T>(in T data, out H result);
}

extern InternetChecksum {
    InternetChecksum();
    void clear();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bit<16> get();
}

parser Parser<H, M>(packet_in packet, out H hdr, inout M user_meta, inout standard_metadata_t standard_meta);
control MatchAction<H, M>(inout H hdr, inout M user_meta, inout standard_metadata_t standard_meta);
control Deparser<H, M>(packet_out packet, in H hdr, inout M user_meta, inout standard_metadata_t standard_meta);

package XilinxPipeline<H, M>(Parser<H, M> p, MatchAction<H, M> ma, Deparser<H, M> dp);

#endif
