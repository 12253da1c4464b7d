// Intrinsics driver: one call per line, the result in hex. Values are hex; W, N, M decimal.
//   crc32|crc16|ones W data    murmur W data seed    toep N M data key    upd hc old new
//   umin|umax W a b (ap_uint)   smin|smax W a b (ap_int)
//   crc32b|crc16b|onesb bytes    murmurb bytes seed    toepb bytes key   ("-" for no bytes)
#include "scenic_hls.hpp"

#include "driver_common.hpp"

#define WIDTHS(X)                                                                                  \
    X(1) X(7) X(8) X(12) X(15) X(16) X(17) X(24) X(32) X(33) X(40) X(48) X(56) X(63) X(64) X(65) \
        X(72) X(96) X(104) X(127) X(128) X(129) X(136) X(200) X(256) X(320) X(512) X(1000)       \
            X(1023) X(1024)

#define MINMAX_WIDTHS(X) X(1) X(2) X(8) X(16) X(33) X(64) X(65) X(128) X(200)

#define TOEPLITZ(X) X(64, 320) X(96, 320) X(288, 320) X(8, 40) X(12, 44) X(1, 33) X(992, 1024) \
    X(200, 320) X(32, 1024) X(100, 131)

static const int MAXB = 300;

static std::string bytes_arg(const std::string& s, ap_uint<8> out[MAXB], int& len) {
    std::vector<ap_uint<8> > b = drv::parse_bytes(s == "-" ? std::string() : s);
    len = (int)b.size();
    for (int i = 0; i < MAXB; i++) {
        out[i] = i < len ? b[i] : ap_uint<8>(0);
    }
    return std::string();
}

int main(int argc, char** argv) {
    std::vector<std::vector<std::string> > ops = drv::read_ops(argc, argv);
    for (size_t i = 0; i < ops.size(); i++) {
        const std::vector<std::string>& op = ops[i];
        const std::string f = drv::arg(op, 0);
        const int w = (int)drv::num(drv::arg(op, 1));
        std::string out = "error: " + f;
        if (f == "crc32" || f == "crc16" || f == "ones" || f == "murmur") {
            switch (w) {
#define CASE_HASH(W)                                                                  \
    case W: {                                                                         \
        ap_uint<W> d = drv::parse_hex<W>(drv::arg(op, 2));                            \
        if (f == "crc32") {                                                           \
            out = drv::hex<32>(scenic::crc32<W>(d));                                  \
        } else if (f == "crc16") {                                                    \
            out = drv::hex<16>(scenic::crc16<W>(d));                                  \
        } else if (f == "ones") {                                                     \
            out = drv::hex<16>(scenic::ones_complement<W>(d));                        \
        } else {                                                                      \
            out = drv::hex<32>(scenic::murmur3_32<W>(d, drv::parse_hex<32>(drv::arg(op, 3)))); \
        }                                                                             \
        break;                                                                        \
    }
                WIDTHS(CASE_HASH)
                default:
                    out = "error: width";
            }
        } else if (f == "toep") {
            const int m = (int)drv::num(drv::arg(op, 2));
#define CASE_TOEP(N, M)                                                               \
    if (w == N && m == M) {                                                           \
        out = drv::hex<32>(scenic::toeplitz<N, M>(drv::parse_hex<N>(drv::arg(op, 3)), \
                                                  drv::parse_hex<M>(drv::arg(op, 4)))); \
    }
            TOEPLITZ(CASE_TOEP)
        } else if (f == "upd") {
            out = drv::hex<16>(scenic::checksum_update(drv::parse_hex<16>(drv::arg(op, 1)),
                                                       drv::parse_hex<16>(drv::arg(op, 2)),
                                                       drv::parse_hex<16>(drv::arg(op, 3))));
        } else if (f == "umin" || f == "umax" || f == "smin" || f == "smax") {
            switch (w) {
#define CASE_MINMAX(W)                                                                \
    case W: {                                                                         \
        ap_uint<W> a = drv::parse_hex<W>(drv::arg(op, 2));                            \
        ap_uint<W> b = drv::parse_hex<W>(drv::arg(op, 3));                            \
        if (f == "umin") {                                                            \
            out = drv::hex<W>(scenic::min(a, b));                                     \
        } else if (f == "umax") {                                                     \
            out = drv::hex<W>(scenic::max(a, b));                                     \
        } else {                                                                      \
            ap_int<W + 1> sa = a;                                                     \
            ap_int<W + 1> sb = b;                                                     \
            /* reinterpret the W-bit pattern as an ap_int<W> (W >= 2) */              \
            ap_int<(W < 2 ? 2 : W)> xa = ap_uint<(W < 2 ? 2 : W)>(a);                 \
            ap_int<(W < 2 ? 2 : W)> xb = ap_uint<(W < 2 ? 2 : W)>(b);                 \
            (void)sa;                                                                 \
            (void)sb;                                                                 \
            ap_int<(W < 2 ? 2 : W)> r = f == "smin" ? scenic::min(xa, xb) : scenic::max(xa, xb); \
            out = drv::hex<(W < 2 ? 2 : W)>(ap_uint<(W < 2 ? 2 : W)>(r));             \
        }                                                                             \
        break;                                                                        \
    }
                MINMAX_WIDTHS(CASE_MINMAX)
                default:
                    out = "error: width";
            }
        } else if (f == "crc32b" || f == "crc16b" || f == "onesb" || f == "murmurb" ||
                   f == "toepb") {
            ap_uint<8> b[MAXB];
            int len = 0;
            bytes_arg(drv::arg(op, 1), b, len);
            if (f == "crc32b") {
                out = drv::hex<32>(scenic::crc32_bytes<MAXB>(b, len));
            } else if (f == "crc16b") {
                out = drv::hex<16>(scenic::crc16_bytes<MAXB>(b, len));
            } else if (f == "onesb") {
                out = drv::hex<16>(scenic::ones_complement_bytes<MAXB>(b, len));
            } else if (f == "murmurb") {
                out = drv::hex<32>(scenic::murmur3_32_bytes<MAXB>(b, len, drv::parse_hex<32>(drv::arg(op, 2))));
            } else {
                ap_uint<8> key[40];
                std::vector<ap_uint<8> > k = drv::parse_bytes(drv::arg(op, 2));
                for (int j = 0; j < 40; j++) {
                    key[j] = j < (int)k.size() ? k[j] : ap_uint<8>(0);
                }
                out = drv::hex<32>(scenic::toeplitz_bytes<MAXB, 40>(b, len, key));
            }
        }
        std::printf("%s\n", out.c_str());
    }
    return 0;
}
