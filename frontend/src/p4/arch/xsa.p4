/* scenicc's declaration of AMD Vitis Networking P4's XilinxPipeline architecture, written for
 * scenicc from AMD's public documentation (UG1308, "Target Architecture", "Standard Metadata",
 * "Externs") and the publicly documented facts in docs/p4.md. It is NOT AMD's xsa.p4: it declares
 * the names and types scenicc's P4 reader gives meaning to, so that the reader can read back the
 * programs scenicc's P4 backend writes (the round-trip tests). Compile real designs with the
 * xsa.p4 that ships with Vitis Networking P4.
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

#ifndef _XSA_P4_
#define _XSA_P4_

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
    /* Set to 1 to drop the packet; checked at the deparser's input. */
    bit<1>  drop;
    bit<64> ingress_timestamp;
    bit<16> parsed_bytes;
    error   parser_error;
}

extern UserExtern<I, O> {
    UserExtern(bit<16> fixed_latency_in_cycles);
    void apply(in I in_data, out O out_data);
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

extern Checksum<W> {
    Checksum(HashAlgorithm_t hash);
    W apply<T>(in T data);
}

extern InternetChecksum {
    InternetChecksum();
    void clear();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bit<16> get();
    bit<16> get_state();
    void set_state(in bit<16> checksum_state);
}

parser Parser<H, M>(packet_in packet, out H headers, inout M user_metadata,
                    inout standard_metadata_t standard_metadata);
control MatchAction<H, M>(inout H headers, inout M user_metadata,
                          inout standard_metadata_t standard_metadata);
control Deparser<H, M>(packet_out packet, in H headers, inout M user_metadata,
                       inout standard_metadata_t standard_metadata);

package XilinxPipeline<H, M>(Parser<H, M> prs, MatchAction<H, M> ma, Deparser<H, M> dep);

#endif
