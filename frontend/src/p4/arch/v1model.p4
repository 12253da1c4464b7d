/* scenicc's declaration of the v1model architecture (the one p4c's BMv2 simple_switch runs),
 * written for scenicc from the architecture's public documentation. It is not p4c's file: it
 * declares what scenicc's P4 reader gives meaning to (docs/p4.md, "P4 input") and the rest of
 * v1model's names, so programs that mention them parse and get a clear "not supported yet". */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include <core.p4>

#define V1MODEL_VERSION 20200408

match_kind {
    range,
    optional,
    selector
}

typedef bit<9>  PortId_t;
typedef bit<48> EgressInstance_t;
typedef bit<8>  ClassOfService_t;
typedef bit<32> PktInstanceType_t;

struct standard_metadata_t {
    PortId_t ingress_port;
    /* Set by ingress: the output port; 511 drops (mark_to_drop). */
    PortId_t egress_spec;
    /* In egress: the output port chosen by ingress. */
    PortId_t egress_port;
    bit<32>  instance_type;
    bit<32>  packet_length;
    bit<32>  enq_timestamp;
    bit<19>  enq_qdepth;
    bit<32>  deq_timedelta;
    bit<19>  deq_qdepth;
    bit<48>  ingress_global_timestamp;
    bit<48>  egress_global_timestamp;
    bit<16>  mcast_grp;
    bit<16>  egress_rid;
    /* 1 when a verify_checksum call found a wrong checksum. */
    bit<1>   checksum_error;
    /* The error the parser stopped with, error.NoError if none. */
    error    parser_error;
    bit<3>   priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}

extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}

extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

extern register<T> {
    register(bit<32> size);
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}

extern action_profile {
    action_profile(bit<32> size);
}

extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

enum CloneType {
    I2E,
    E2E
}

/* Marks the packet to be dropped: egress_spec = 511 (see docs/p4.md). */
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

extern void random<T>(out T result, in T lo, in T hi);
extern void digest<T>(in bit<32> receiver, in T data);
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);
extern void resubmit<T>(in T data);
extern void recirculate<T>(in T data);
extern void clone(in CloneType type, in bit<32> session);
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);
extern void truncate(in bit<32> length);
extern void assert(in bool check);
extern void assume(in bool check);
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* Checksums over a list of fields; the only algorithm scenicc supports is csum16. */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

parser Parser<H, M>(packet_in b, out H parsedHdr, inout M meta, inout standard_metadata_t standard_metadata);
control VerifyChecksum<H, M>(inout H hdr, inout M meta);
control Ingress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control Egress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control ComputeChecksum<H, M>(inout H hdr, inout M meta);
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p, VerifyChecksum<H, M> vr, Ingress<H, M> ig, Egress<H, M> eg,
                       ComputeChecksum<H, M> ck, Deparser<H> dep);

#endif
