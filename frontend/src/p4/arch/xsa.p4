/* scenicc's declaration of AMD Vitis Networking P4's XilinxPipeline architecture, written for
 * scenicc from the publicly documented facts about it (docs/p4.md). It is not AMD's xsa.p4: it
 * declares the names and types scenicc's P4 reader and P4 backend use. */

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
