// Exact-table driver: operations on static scenic::exact_table instances, one result per line.
// Line format: `<table id> <op> [key hex] [data hex]`.
//   a k d: insert -> status    A k d: insert_const -> status    r k: remove -> 0/1
//   l k: lookup -> "1 data" / "0"    x: clear -> "ok"    s: size    h: "hits misses"
//   I: host_iterate -> "count k:d:c ..."    J: iterate(pos, ...) -> the same
//   q: "stash_used stash_peak collisions overflows"
#include "scenic_hls.hpp"

#include "driver_common.hpp"

template <int KW, class T>
void step(T& t, const std::vector<std::string>& op) {
    const std::string what = drv::arg(op, 1);
    ap_uint<KW> k = drv::parse_hex<KW>(drv::arg(op, 2));
    ap_uint<40> d = drv::parse_hex<40>(drv::arg(op, 3));
    std::string out;
    if (what == "a") {
        out = drv::hex<8>(t.insert(k, d));
    } else if (what == "A") {
        out = drv::hex<8>(t.insert_const(k, d));
    } else if (what == "r") {
        out = t.remove(k) ? "1" : "0";
    } else if (what == "l") {
        ap_uint<40> got = 0;
        out = t.lookup(k, got) ? "1 " + drv::hex<40>(got) : std::string("0");
    } else if (what == "x") {
        t.clear();
        out = "ok";
    } else if (what == "s") {
        out = drv::hex<32>(t.size());
    } else if (what == "h") {
        out = drv::hex<64>(t.hits()) + " " + drv::hex<64>(t.misses());
    } else if (what == "I" || what == "J") {
        std::string items;
        unsigned n = 0;
        ap_uint<32> pos = 0;
        while (pos < (unsigned)T::SLOTS) {
            ap_uint<KW> key = 0;
            ap_uint<40> data = 0;
            bool is_const = false;
            bool found = false;
            if (what == "I") {
                found = t.host_iterate(pos, key, data, is_const);
            } else {
                ap_uint<32> next = 0;
                found = t.iterate(pos, key, data, is_const, next);
                pos = next;
            }
            if (found) {
                n++;
                items += " " + drv::hex<KW>(key) + ":" + drv::hex<40>(data) + (is_const ? ":1" : ":0");
            }
        }
        out = drv::hex<32>(ap_uint<32>(n)) + items;
    } else if (what == "q") {
        out = drv::hex<32>(t.stash_used()) + " " + drv::hex<32>(t.stash_peak()) + " " +
              drv::hex<64>(t.collisions()) + " " + drv::hex<64>(t.overflows());
    } else {
        out = "error: unknown op " + what;
    }
    std::printf("%s\n", out.c_str());
}

// The instances: (id, key width, size). 14745 entries fill 2 x 1024 x 8 slots to 90%, the most
// the geometry allows.
#define TABLES(X)     \
    X(0, 32, 8)       \
    X(1, 32, 17)      \
    X(2, 32, 1000)    \
    X(3, 104, 4096)   \
    X(4, 16, 65000)   \
    X(5, 32, 14745)   \
    X(6, 200, 300)

#define DECLARE(ID, KW, N) static scenic::exact_table<KW, ap_uint<40>, N> table_##ID;
TABLES(DECLARE)

int main(int argc, char** argv) {
    std::vector<std::vector<std::string> > ops = drv::read_ops(argc, argv);
    for (size_t i = 0; i < ops.size(); i++) {
        const std::vector<std::string>& op = ops[i];
        switch ((int)drv::num(drv::arg(op, 0))) {
#define DISPATCH(ID, KW, N)          \
    case ID:                         \
        step<KW>(table_##ID, op);    \
        break;
            TABLES(DISPATCH)
            default:
                std::printf("error: no table\n");
        }
    }
    return 0;
}
