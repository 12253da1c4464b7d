// scenic_intrinsics.hpp — std::hash, std::checksum and the builtins min/max (docs/language.md
// §9.2–9.4), bit-exact with ir/src/interp/intrinsics.rs and ops.rs (`min`, `max`).
//
// "The bytes of a value": an ap_uint<N> gives ceil(N/8) bytes, most significant first; a width
// that is not a multiple of 8 (16 for ones_complement) is padded with zero bits on the right
// (after the least significant bit), exactly as the interpreter pads (programs only pass
// multiples of 8, resp. 16).
//
// API (namespace scenic; every function is pure, no state)
// ---
// template <int N> ap_uint<32> crc32(const ap_uint<N>& data);
//     CRC-32/IEEE 802.3: reflected, poly 0x04C11DB7, init and final XOR 0xFFFFFFFF.
// template <int N> ap_uint<16> crc16(const ap_uint<N>& data);
//     CRC-16/ARC: reflected, poly 0x8005, init 0, no final XOR.
// template <int N> ap_uint<32> murmur3_32(const ap_uint<N>& data, const ap_uint<32>& seed);
//     MurmurHash3_x86_32(bytes, ceil(N/8), seed): 4-byte blocks read little-endian.
// template <int N, int M> ap_uint<32> toeplitz(const ap_uint<N>& data, const ap_uint<M>& key);
//     Microsoft RSS: for each data bit i (0 = most significant) that is 1, XOR in key bits
//     [i, i+32) counted from key's most significant bit; key bits past M read 0.
// template <int N> ap_uint<16> ones_complement(const ap_uint<N>& data);
//     RFC 1071: ~(ones'-complement sum of the 16-bit big-endian words).
// inline ap_uint<16> checksum_update(const ap_uint<16>& hc, const ap_uint<16>& old_word,
//                                    const ap_uint<16>& new_word);
//     RFC 1624 eqn. 3: ~(~hc + ~old + new) in ones'-complement arithmetic.
// template <typename T> T min(const T& a, const T& b);   // b if b < a, else a
// template <typename T> T max(const T& a, const T& b);   // b if a < b, else a
//     Signedness follows the C++ type: ap_int<N> compares signed, ap_uint<N> unsigned, as the
//     interpreter's ops::min/max do for int<N> / bit<N>.
// Byte-array forms, for data whose length is only known at run time (at most MAX bytes; len =
// 0 is allowed: crc32 -> 0, crc16 -> 0, murmur3 -> fmix32(seed), ones_complement -> 0xffff,
// toeplitz -> 0):
// template <int MAX> ap_uint<32> crc32_bytes(const ap_uint<8> bytes[MAX], int len);
// template <int MAX> ap_uint<16> crc16_bytes(const ap_uint<8> bytes[MAX], int len);
// template <int MAX> ap_uint<32> murmur3_32_bytes(const ap_uint<8> bytes[MAX], int len,
//                                                 const ap_uint<32>& seed);
// template <int MAX, int KEYBYTES> ap_uint<32> toeplitz_bytes(const ap_uint<8> bytes[MAX],
//                                  int len, const ap_uint<8> key[KEYBYTES]);
// template <int MAX> ap_uint<16> ones_complement_bytes(const ap_uint<8> bytes[MAX], int len);
//     (an odd last byte is padded with a zero byte).
//
// Hardware (estimates at 391 MHz, as scenic_ir::timing::cost): every loop has constant bounds
// and is fully unrolled. crc32/crc16/toeplitz are linear over GF(2): an XOR network of LUT6,
// ceil(ceil(log6 n)/3) cycles for n data bits, at least 1 (the per-bit conditional XOR by a
// constant, the byte-table form of the interpreter, and the bitwise form here all compute the
// same function). murmur3: 2 32-bit multiplies per 4-byte block in parallel plus the h·5 + c
// chain, 4 multiplies + 2 per block. ones_complement: an adder tree and the end-around carry
// fold, ceil(log2(n/16)/2) + 1. checksum_update: 2. min/max: one comparator (a carry chain) and
// a mux. The byte-array forms with a run-time `len` add a mux per byte (`i < len`).

#ifndef SCENIC_INTRINSICS_HPP
#define SCENIC_INTRINSICS_HPP

#include "scenic_common.hpp"

namespace scenic {

// ---- byte extraction ---------------------------------------------------------------------------

// The ceil(N/8) bytes of `data`, most significant first, zero-padded on the right. Bytes are
// taken from the low end with truncating copies and constant shifts (wiring once unrolled):
// g++ reports a false "undefined behavior" in ap_private's range() for some wide widths.
template <int N>
inline void value_bytes(const ap_uint<N>& data, ap_uint<8> out[(N + 7) / 8]) {
    const int NB = (N + 7) / 8;
    ap_uint<NB * 8> rest = ap_uint<NB * 8>(data) << (NB * 8 - N);
    for (int i = NB - 1; i >= 0; i--) {
#pragma HLS UNROLL
        out[i] = ap_uint<8>(rest);
        rest >>= 8;
    }
}

// ---- CRCs --------------------------------------------------------------------------------------

// One byte into a reflected CRC (native unsigned: fast C simulation, the same XOR network).
inline unsigned crc_reflected_byte(unsigned crc, unsigned byte, unsigned poly) {
    crc ^= byte & 0xffu;
    for (int b = 0; b < 8; b++) {
#pragma HLS UNROLL
        unsigned lsb = crc & 1u;
        crc = (crc >> 1) ^ (poly & (0u - lsb));
    }
    return crc;
}

template <int MAX>
inline ap_uint<32> crc32_bytes(const ap_uint<8> bytes[MAX], int len) {
    unsigned crc = 0xFFFFFFFFu;
    for (int i = 0; i < MAX; i++) {
#pragma HLS UNROLL
        if (i < len) {
            crc = crc_reflected_byte(crc, (unsigned)bytes[i].to_uint(), 0xEDB88320u);
        }
    }
    return ap_uint<32>(~crc);
}

template <int MAX>
inline ap_uint<16> crc16_bytes(const ap_uint<8> bytes[MAX], int len) {
    unsigned crc = 0;
    for (int i = 0; i < MAX; i++) {
#pragma HLS UNROLL
        if (i < len) {
            crc = crc_reflected_byte(crc, (unsigned)bytes[i].to_uint(), 0xA001u);
        }
    }
    return ap_uint<16>(crc & 0xffffu);
}

template <int N>
inline ap_uint<32> crc32(const ap_uint<N>& data) {
    const int NB = (N + 7) / 8;
    ap_uint<8> b[NB];
    value_bytes<N>(data, b);
    return crc32_bytes<NB>(b, NB);
}

template <int N>
inline ap_uint<16> crc16(const ap_uint<N>& data) {
    const int NB = (N + 7) / 8;
    ap_uint<8> b[NB];
    value_bytes<N>(data, b);
    return crc16_bytes<NB>(b, NB);
}

// ---- MurmurHash3 x86_32 ------------------------------------------------------------------------

inline unsigned rotl32(unsigned x, int r) { return (x << r) | (x >> (32 - r)); }

inline unsigned murmur3_mix(unsigned k) {
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    return k;
}

inline unsigned murmur3_fmix(unsigned h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

template <int MAX>
inline ap_uint<32> murmur3_32_bytes(const ap_uint<8> bytes[MAX], int len,
                                    const ap_uint<32>& seed) {
    unsigned h = (unsigned)seed.to_uint();
    const int blocks = len / 4;
    for (int j = 0; j < MAX / 4; j++) {
#pragma HLS UNROLL
        if (j < blocks) {
            unsigned k = (unsigned)bytes[4 * j].to_uint() |
                         ((unsigned)bytes[4 * j + 1].to_uint() << 8) |
                         ((unsigned)bytes[4 * j + 2].to_uint() << 16) |
                         ((unsigned)bytes[4 * j + 3].to_uint() << 24);
            h ^= murmur3_mix(k);
            h = rotl32(h, 13) * 5u + 0xe6546b64u;
        }
    }
    // Tail: the last len % 4 bytes, the first of them least significant.
    const int tail = len % 4;
    const int base = len - tail;
    unsigned k = 0;
    for (int t = 2; t >= 0; t--) {
#pragma HLS UNROLL
        if (t < tail && base + t < MAX) {
            k = (k << 8) | (unsigned)bytes[base + t].to_uint();
        }
    }
    if (tail != 0) {
        h ^= murmur3_mix(k);
    }
    return ap_uint<32>(murmur3_fmix(h ^ (unsigned)len));
}

template <int N>
inline ap_uint<32> murmur3_32(const ap_uint<N>& data, const ap_uint<32>& seed) {
    const int NB = (N + 7) / 8;
    ap_uint<8> b[NB];
    value_bytes<N>(data, b);
    return murmur3_32_bytes<NB>(b, NB, seed);
}

// ---- Toeplitz (RSS) ----------------------------------------------------------------------------

template <int N, int M>
inline ap_uint<32> toeplitz(const ap_uint<N>& data, const ap_uint<M>& key) {
    // Data bits past N are padding zeros and contribute nothing; key bit t (from the most
    // significant) is key[M-1-t], 0 past the end. Constant indices after unrolling: XOR network.
    unsigned result = 0;
    for (int i = 0; i < N; i++) {
#pragma HLS UNROLL
        if (data[N - 1 - i]) {
            unsigned window = 0;
            for (int j = 0; j < 32; j++) {
#pragma HLS UNROLL
                unsigned bit = (i + j < M) ? (unsigned)key[M - 1 - (i + j)] : 0u;
                window |= bit << (31 - j);
            }
            result ^= window;
        }
    }
    return ap_uint<32>(result);
}

template <int MAX, int KEYBYTES>
inline ap_uint<32> toeplitz_bytes(const ap_uint<8> bytes[MAX], int len,
                                  const ap_uint<8> key[KEYBYTES]) {
    unsigned result = 0;
    for (int i = 0; i < MAX * 8; i++) {
#pragma HLS UNROLL
        if (i / 8 < len && bytes[i / 8][7 - i % 8]) {
            unsigned window = 0;
            for (int j = 0; j < 32; j++) {
#pragma HLS UNROLL
                int t = i + j;
                unsigned bit = (t / 8 < KEYBYTES) ? (unsigned)key[t / 8][7 - t % 8] : 0u;
                window |= bit << (31 - j);
            }
            result ^= window;
        }
    }
    return ap_uint<32>(result);
}

// ---- Internet checksum -------------------------------------------------------------------------

// Folds the carries of a ones'-complement sum into 16 bits (at most 5 folds for 64 bits).
inline unsigned ones_fold(unsigned long long sum) {
    for (int i = 0; i < 6; i++) {
#pragma HLS UNROLL
        if (sum > 0xffffULL) {
            sum = (sum & 0xffffULL) + (sum >> 16);
        }
    }
    return (unsigned)sum;
}

template <int N>
inline ap_uint<16> ones_complement(const ap_uint<N>& data) {
    const int NW = (N + 15) / 16;
    ap_uint<NW * 16> rest = ap_uint<NW * 16>(data) << (NW * 16 - N);
    unsigned long long sum = 0;
    for (int w = 0; w < NW; w++) {
#pragma HLS UNROLL
        sum += (unsigned long long)ap_uint<16>(rest).to_uint();
        rest >>= 16;
    }
    return ap_uint<16>(~ones_fold(sum) & 0xffffu);
}

template <int MAX>
inline ap_uint<16> ones_complement_bytes(const ap_uint<8> bytes[MAX], int len) {
    unsigned long long sum = 0;
    for (int i = 0; i < MAX; i++) {
#pragma HLS UNROLL
        if (i < len) {
            unsigned b = (unsigned)bytes[i].to_uint();
            sum += (i % 2 == 0) ? (unsigned long long)(b << 8) : (unsigned long long)b;
        }
    }
    return ap_uint<16>(~ones_fold(sum) & 0xffffu);
}

inline ap_uint<16> checksum_update(const ap_uint<16>& hc, const ap_uint<16>& old_word,
                                   const ap_uint<16>& new_word) {
    unsigned long long sum = (unsigned long long)((~(unsigned)hc.to_uint()) & 0xffffu) +
                             (unsigned long long)((~(unsigned)old_word.to_uint()) & 0xffffu) +
                             (unsigned long long)new_word.to_uint();
    return ap_uint<16>(~ones_fold(sum) & 0xffffu);
}

// ---- builtins ----------------------------------------------------------------------------------

template <typename T>
inline T min(const T& a, const T& b) {
    return b < a ? b : a;
}

template <typename T>
inline T max(const T& a, const T& b) {
    return a < b ? b : a;
}

}  // namespace scenic

#endif  // SCENIC_INTRINSICS_HPP
