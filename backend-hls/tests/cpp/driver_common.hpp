// Shared helpers of the support-library test drivers (test code, not synthesizable): reading the
// operation file, hex in and out of ap_uint<W>.
#ifndef SCENIC_TEST_DRIVER_COMMON_HPP
#define SCENIC_TEST_DRIVER_COMMON_HPP

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ap_int.h"

namespace drv {

// The value of a hex string (no prefix; extra high digits are dropped, as a wrap to W bits).
template <int W>
ap_uint<W> parse_hex(const std::string& s) {
    ap_uint<W> v = 0;
    for (size_t i = 0; i < s.size(); i++) {
        char c = s[i];
        unsigned d = (c >= '0' && c <= '9') ? unsigned(c - '0')
                     : (c >= 'a' && c <= 'f') ? unsigned(c - 'a' + 10)
                     : (c >= 'A' && c <= 'F') ? unsigned(c - 'A' + 10)
                                              : 0u;
        v = (v << 4) | ap_uint<W>(d);
    }
    return v;
}

// Lower-case hex without leading zeros ("0" for zero), as Rust's {:x}.
template <int W>
std::string hex(const ap_uint<W>& v) {
    static const char* digits = "0123456789abcdef";
    const int NIB = (W + 3) / 4;
    ap_uint<NIB * 4> x = v;
    std::string s;
    for (int i = 0; i < NIB; i++) {
        s.insert(s.begin(), digits[(unsigned)ap_uint<4>(x).to_uint()]);
        x >>= 4;
    }
    size_t first = s.find_first_not_of('0');
    return first == std::string::npos ? std::string("0") : s.substr(first);
}

// The bytes of a hex string ("" -> none).
inline std::vector<ap_uint<8> > parse_bytes(const std::string& s) {
    std::vector<ap_uint<8> > out;
    for (size_t i = 0; i + 1 < s.size(); i += 2) {
        out.push_back(parse_hex<8>(s.substr(i, 2)));
    }
    return out;
}

// Every line of the file named by argv[1], split into words.
inline std::vector<std::vector<std::string> > read_ops(int argc, char** argv) {
    std::vector<std::vector<std::string> > ops;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OPS_FILE\n", argv[0]);
        std::exit(2);
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        std::exit(2);
    }
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> op;
        std::string w;
        while (words >> w) {
            op.push_back(w);
        }
        ops.push_back(op);
    }
    return ops;
}

inline std::string arg(const std::vector<std::string>& op, size_t i) {
    return i < op.size() ? op[i] : std::string();
}

inline unsigned long long num(const std::string& s) { return std::strtoull(s.c_str(), 0, 10); }

}  // namespace drv

#endif
