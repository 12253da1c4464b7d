// Meter and counter driver: operations on static scenic::meter and scenic::counter instances.
// Meter lines `m <id> <op> ...`:
//   e i len now: exceeds -> 0/1    c i rate burst: configure -> ok    u i: unconfigure -> ok
//   R i: read -> "found has_rate rate burst tokens"    z: reset_all -> ok
// Counter lines `k <id> <op> ...`:
//   n i len: count -> ok    R i: read -> "found packets bytes"    x i: clear -> ok
//   z: clear_all -> ok
// Numbers are decimal.
#include "scenic_hls.hpp"

#include "driver_common.hpp"

template <class M>
void meter_step(M& m, const std::vector<std::string>& op) {
    const std::string what = drv::arg(op, 2);
    ap_uint<32> i = (unsigned)drv::num(drv::arg(op, 3));
    std::string out = "ok";
    if (what == "e") {
        out = m.exceeds(i, ap_uint<64>(drv::num(drv::arg(op, 4))),
                        ap_uint<64>(drv::num(drv::arg(op, 5))))
                  ? "1"
                  : "0";
    } else if (what == "c") {
        m.configure(i, ap_uint<64>(drv::num(drv::arg(op, 4))),
                    ap_uint<64>(drv::num(drv::arg(op, 5))));
    } else if (what == "u") {
        m.unconfigure(i);
    } else if (what == "R") {
        bool has = false;
        ap_uint<64> rate = 0;
        ap_uint<64> burst = 0;
        ap_uint<M::TOKEN_BITS> tokens = 0;
        bool found = m.read(i, has, rate, burst, tokens);
        out = std::string(found ? "1 " : "0 ") + (has ? "1 " : "0 ") + drv::hex<64>(rate) + " " +
              drv::hex<64>(burst) + " " + drv::hex<M::TOKEN_BITS>(tokens);
    } else if (what == "z") {
        m.reset_all();
    } else {
        out = "error: unknown op " + what;
    }
    std::printf("%s\n", out.c_str());
}

template <class C>
void counter_step(C& c, const std::vector<std::string>& op) {
    const std::string what = drv::arg(op, 2);
    ap_uint<32> i = (unsigned)drv::num(drv::arg(op, 3));
    std::string out = "ok";
    if (what == "n") {
        c.count(i, ap_uint<64>(drv::num(drv::arg(op, 4))));
    } else if (what == "R") {
        ap_uint<64> packets = 0;
        ap_uint<64> bytes = 0;
        bool found = c.read(i, packets, bytes);
        out = std::string(found ? "1 " : "0 ") + drv::hex<64>(packets) + " " + drv::hex<64>(bytes);
    } else if (what == "x") {
        c.clear(i);
    } else if (what == "z") {
        c.clear_all();
    } else {
        out = "error: unknown op " + what;
    }
    std::printf("%s\n", out.c_str());
}

// (id, cells, rate bit/s, burst bytes, has rate)
#define METERS(X)                                   \
    X(0, 4, 1000000000ULL, 64ULL, true)             \
    X(1, 64, 10000000000ULL, 262144ULL, true)       \
    X(2, 4, 0ULL, 0ULL, false)                      \
    X(3, 2, 1000000000ULL, 0ULL, true)              \
    X(4, 32, 400000000000ULL, 9000ULL, true)        \
    X(5, 1, 8ULL, 1ULL, true)                       \
    X(6, 20, 0ULL, 1500ULL, false)

// (id, cells, kind)
#define COUNTERS(X)                                 \
    X(0, 1, scenic::COUNT_PACKETS_AND_BYTES)        \
    X(1, 16, scenic::COUNT_PACKETS)                 \
    X(2, 256, scenic::COUNT_BYTES)                  \
    X(3, 1000, scenic::COUNT_PACKETS_AND_BYTES)     \
    X(4, 17, scenic::COUNT_PACKETS_AND_BYTES)

#define DECLARE_METER(ID, N, RATE, BURST, HAS) static scenic::meter<N, RATE, BURST, HAS> meter_##ID;
#define DECLARE_COUNTER(ID, N, KIND) static scenic::counter<N, KIND> counter_##ID;
METERS(DECLARE_METER)
COUNTERS(DECLARE_COUNTER)

int main(int argc, char** argv) {
    std::vector<std::vector<std::string> > ops = drv::read_ops(argc, argv);
    for (size_t i = 0; i < ops.size(); i++) {
        const std::vector<std::string>& op = ops[i];
        int id = (int)drv::num(drv::arg(op, 1));
        if (drv::arg(op, 0) == "m") {
            switch (id) {
#define DISPATCH_METER(ID, N, RATE, BURST, HAS) \
    case ID:                                    \
        meter_step(meter_##ID, op);             \
        break;
                METERS(DISPATCH_METER)
                default:
                    std::printf("error: no meter\n");
            }
        } else {
            switch (id) {
#define DISPATCH_COUNTER(ID, N, KIND) \
    case ID:                          \
        counter_step(counter_##ID, op); \
        break;
                COUNTERS(DISPATCH_COUNTER)
                default:
                    std::printf("error: no counter\n");
            }
        }
    }
    return 0;
}
