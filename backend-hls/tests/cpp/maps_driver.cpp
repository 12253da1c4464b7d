// Map driver: runs map operations from a file against static instances of scenic::array_map,
// hash_map and lru_map (static, so the zero-initialised initial state is what is tested) and
// prints one result line per operation. Line format: `<map id> <op> [key hex] [value hex]`.
//   g k: get(k) -> value    G k: get(k, v) -> "found value"    c k: contains -> 0/1
//   i k v: insert -> 0/1    r k: remove -> 0/1    p k: peek -> "found value"
//   I: host_iterate over all slots -> "count k:v ..."    J: iterate(pos, ...) -> the same
//   s: size    f: failed inserts    x: clear -> "ok"    q: "stash_used stash_peak collisions overflows"
#include "scenic_hls.hpp"

#include "driver_common.hpp"

// A struct value (64 bits: a is the high 16, b the low 48), zero by its constructor.
struct pair_v {
    ap_uint<16> a;
    ap_uint<48> b;
    pair_v() : a(0), b(0) {}
};

template <typename V>
struct conv;
template <>
struct conv<ap_uint<64> > {
    static ap_uint<64> from(const ap_uint<64>& x) { return x; }
    static ap_uint<64> to(const ap_uint<64>& v) { return v; }
};
template <>
struct conv<pair_v> {
    static pair_v from(const ap_uint<64>& x) {
        pair_v p;
        p.a = x.range(63, 48);
        p.b = x.range(47, 0);
        return p;
    }
    static ap_uint<64> to(const pair_v& v) {
        ap_uint<64> x = 0;
        x.range(63, 48) = v.a;
        x.range(47, 0) = v.b;
        return x;
    }
};

template <class M>
std::string size_line(M& m) {
    return drv::hex<32>(m.size());
}
template <int KW, class V, int N, bool R>
std::string size_line(scenic::array_map<KW, V, N, R>&) {
    return "-";
}

template <class M>
std::string stats_line(M& m) {
    return drv::hex<32>(m.stash_used()) + " " + drv::hex<32>(m.stash_peak()) + " " +
           drv::hex<64>(m.collisions()) + " " + drv::hex<64>(m.overflows());
}
template <int KW, class V, int N, bool R>
std::string stats_line(scenic::array_map<KW, V, N, R>&) {
    return "-";
}

template <int KW, typename V, class M>
void step(M& m, const std::vector<std::string>& op) {
    const std::string what = drv::arg(op, 1);
    ap_uint<KW> k = drv::parse_hex<KW>(drv::arg(op, 2));
    V v = conv<V>::from(drv::parse_hex<64>(drv::arg(op, 3)));
    std::string out;
    if (what == "g") {
        out = drv::hex<64>(conv<V>::to(m.get(k)));
    } else if (what == "G") {
        V got = conv<V>::from(0);
        bool found = m.get(k, got);
        out = std::string(found ? "1 " : "0 ") + drv::hex<64>(conv<V>::to(got));
    } else if (what == "c") {
        out = m.contains(k) ? "1" : "0";
    } else if (what == "i") {
        out = m.insert(k, v) ? "1" : "0";
    } else if (what == "r") {
        out = m.remove(k) ? "1" : "0";
    } else if (what == "p") {
        V got = conv<V>::from(0);
        bool found = m.peek(k, got);
        out = std::string(found ? "1 " : "0 ") + drv::hex<64>(conv<V>::to(got));
    } else if (what == "I" || what == "J") {
        std::string items;
        unsigned n = 0;
        ap_uint<32> pos = 0;
        while (pos < (unsigned)M::SLOTS) {
            ap_uint<KW> key = 0;
            V val = conv<V>::from(0);
            bool found = false;
            if (what == "I") {
                found = m.host_iterate(pos, key, val);
            } else {
                ap_uint<32> next = 0;
                found = m.iterate(pos, key, val, next);
                if (!found && next != (unsigned)M::SLOTS) {
                    std::printf("error: iterate ended with next %u\n", (unsigned)next);
                }
                pos = next;
            }
            if (found) {
                n++;
                items += " " + drv::hex<KW>(key) + ":" + drv::hex<64>(conv<V>::to(val));
            }
        }
        out = drv::hex<32>(ap_uint<32>(n)) + items;
    } else if (what == "s") {
        out = size_line(m);
    } else if (what == "f") {
        out = drv::hex<64>(m.failed_inserts());
    } else if (what == "x") {
        m.clear();
        out = "ok";
    } else if (what == "q") {
        out = stats_line(m);
    } else {
        out = "error: unknown op " + what;
    }
    std::printf("%s\n", out.c_str());
}

// The instances: (id, class, key width, value type, size).
#define MAPS(X)                                   \
    X(0, hash_map, 32, ap_uint<64>, 1)            \
    X(1, hash_map, 32, ap_uint<64>, 4)            \
    X(2, hash_map, 32, ap_uint<64>, 16)           \
    X(3, hash_map, 32, ap_uint<64>, 17)           \
    X(4, hash_map, 32, ap_uint<64>, 100)          \
    X(5, hash_map, 32, ap_uint<64>, 1000)         \
    X(6, hash_map, 104, ap_uint<64>, 300)         \
    X(7, hash_map, 200, ap_uint<64>, 64)          \
    X(8, hash_map, 8, ap_uint<64>, 256)           \
    X(9, hash_map, 32, pair_v, 50)                \
    X(10, hash_map, 16, ap_uint<64>, 4096)        \
    X(20, lru_map, 32, ap_uint<64>, 1)            \
    X(21, lru_map, 32, ap_uint<64>, 2)            \
    X(22, lru_map, 32, ap_uint<64>, 16)           \
    X(23, lru_map, 32, ap_uint<64>, 17)           \
    X(24, lru_map, 32, ap_uint<64>, 100)          \
    X(25, lru_map, 32, ap_uint<64>, 1000)         \
    X(26, lru_map, 104, ap_uint<64>, 300)         \
    X(27, lru_map, 200, ap_uint<64>, 33)          \
    X(28, lru_map, 8, ap_uint<64>, 256)           \
    X(29, lru_map, 16, pair_v, 64)                \
    X(30, lru_map, 16, ap_uint<64>, 4096)         \
    X(40, array_map, 8, ap_uint<64>, 1)           \
    X(41, array_map, 8, ap_uint<64>, 16)          \
    X(42, array_map, 8, ap_uint<64>, 17)          \
    X(43, array_map, 8, ap_uint<64>, 256)         \
    X(44, array_map, 16, ap_uint<64>, 1000)       \
    X(45, array_map, 64, ap_uint<64>, 5)          \
    X(46, array_map, 4, ap_uint<64>, 16)          \
    X(47, array_map, 8, pair_v, 100)

#define DECLARE(ID, CLASS, KW, V, N) static scenic::CLASS<KW, V, N> map_##ID;
MAPS(DECLARE)

int main(int argc, char** argv) {
    std::vector<std::vector<std::string> > ops = drv::read_ops(argc, argv);
    for (size_t i = 0; i < ops.size(); i++) {
        const std::vector<std::string>& op = ops[i];
        int id = (int)drv::num(drv::arg(op, 0));
        switch (id) {
#define DISPATCH(ID, CLASS, KW, V, N) \
    case ID:                          \
        step<KW, V>(map_##ID, op);    \
        break;
            MAPS(DISPATCH)
            default:
                std::printf("error: no map %d\n", id);
        }
    }
    return 0;
}
