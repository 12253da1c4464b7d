// scenic_common.hpp — shared building blocks of the scenic HLS support library.
//
// Part of the project-written support library of scenicc's Vitis HLS backend (see
// scenic_hls.hpp for the overview and docs/hls.md, "The support library"). Header-only, C++11
// clean (Coyote builds kernels with -std=c++11; we test with -std=c++11 and -std=c++14),
// synthesizable: static sizes, no heap, no recursion at run time, bounded loops.
//
// API
// ---
// namespace scenic {
//
//   template <typename T> struct zero_value { static T get(); };
//   template <typename T> T zero();
//       The zero value of a map value / table data type (docs/language.md §3.12): what `get` of an
//       absent key returns and what an `array` map cell holds before any insert. Specialised here
//       for ap_uint<W>, ap_int<W>, bool and the C++ integer types (value 0). For any other type
//       (the generator's structs) the primary template returns `T()`: give the struct a default
//       constructor, or default member initialisers (`ap_uint<8> f = 0;`), that zero every field,
//       or specialise `scenic::zero_value<S>` yourself. Never relies on ap_[u]int's default
//       constructor, which leaves the value uninitialised.
//
//   clog2<N>::value        ceil(log2(N)) for N >= 1 (clog2<1> = 0), a compile-time constant.
//   bits_for<N>::value     bits needed to hold the numbers 0..N (at least 1).
//   pow2_ceil<N>::value    the smallest power of two >= N (N >= 1).
//
//   template <int KW> ap_uint<32> index_hash(const ap_uint<KW>& key, int bank);
//       The hash that places a key in a bucket of bank 0 or 1 of the hashed structures
//       (scenic_hash_core.hpp): bank 0 is CRC-32C (Castagnoli, reflected 0x82F63B78), bank 1 is
//       CRC-32K (Koopman, reflected 0xEB31D82E), both over the key's bits, least significant
//       first, initial value 0xFFFFFFFF. Linear over GF(2): after unrolling it is a pure XOR
//       network (one LUT6 tree, about ceil(log6(KW))/3 cycles, 1 cycle for keys <= 216 bits), no
//       memory, no carry chain. Two different polynomials so that keys colliding in one bank do
//       not collide in the other (their kernels differ). Only the low bits are used.
//
//   template <typename T, int N, bool REGS> struct cells;
//       A plain array of N values with `T read(i)`, `void write(i, v)`; REGS=true partitions it
//       into registers (for N <= 16 cells: parallel access, a mux), REGS=false binds it to a
//       dual-port block RAM (one read and one write per cycle; reads take 2 cycles with the
//       registered output). Zero-initialised static storage is all zeros.
//
// }

#ifndef SCENIC_COMMON_HPP
#define SCENIC_COMMON_HPP

#include "ap_int.h"

namespace scenic {

// ---- zero values -------------------------------------------------------------------------------

template <typename T>
struct zero_value {
    static T get() { return T(); }
};
template <int W>
struct zero_value<ap_uint<W> > {
    static ap_uint<W> get() { return ap_uint<W>(0); }
};
template <int W>
struct zero_value<ap_int<W> > {
    static ap_int<W> get() { return ap_int<W>(0); }
};
template <>
struct zero_value<bool> {
    static bool get() { return false; }
};
template <>
struct zero_value<unsigned char> {
    static unsigned char get() { return 0; }
};
template <>
struct zero_value<unsigned short> {
    static unsigned short get() { return 0; }
};
template <>
struct zero_value<unsigned int> {
    static unsigned int get() { return 0; }
};
template <>
struct zero_value<unsigned long> {
    static unsigned long get() { return 0; }
};
template <>
struct zero_value<unsigned long long> {
    static unsigned long long get() { return 0; }
};
template <>
struct zero_value<int> {
    static int get() { return 0; }
};
template <>
struct zero_value<long long> {
    static long long get() { return 0; }
};

template <typename T>
inline T zero() {
    return zero_value<T>::get();
}

// ---- compile-time arithmetic (templates, so C++11 compilers and HLS fold them) -----------------

template <unsigned long long N>
struct clog2 {
    // ceil(log2(N)): 1 + clog2(ceil(N / 2)).
    static const int value = 1 + clog2<(N + 1) / 2>::value;
};
template <>
struct clog2<1> {
    static const int value = 0;
};
template <>
struct clog2<0> {
    static const int value = 0;
};

template <unsigned long long N>
struct bits_for {
    // Bits to hold 0..N: clog2(N + 1), at least 1.
    static const int value = clog2<N + 1>::value < 1 ? 1 : clog2<N + 1>::value;
};

template <unsigned long long N>
struct pow2_ceil {
    static const unsigned long long value = 1ULL << clog2<N>::value;
};

template <bool C, int A, int B>
struct select_int {
    static const int value = A;
};
template <int A, int B>
struct select_int<false, A, B> {
    static const int value = B;
};

// ---- index hashing -----------------------------------------------------------------------------

// One reflected CRC-32 over the 32 bits of `word` (least significant first): the loop unrolls into
// an XOR network. Native uint32_t keeps C simulation fast; HLS synthesises it the same way.
inline unsigned crc32_word(unsigned crc, unsigned word, unsigned poly) {
    crc ^= word;
    for (int b = 0; b < 32; b++) {
#pragma HLS UNROLL
        unsigned lsb = crc & 1u;
        crc = (crc >> 1) ^ (poly & (0u - lsb));
    }
    return crc;
}

template <int KW>
inline ap_uint<32> index_hash(const ap_uint<KW>& key, int bank) {
    const unsigned poly = bank == 0 ? 0x82F63B78u : 0xEB31D82Eu;
    const int WORDS = (KW + 31) / 32;
    // The key zero-extended to whole 32-bit words (the extension is constant, so it is free).
    ap_uint<WORDS * 32> rest = key;
    unsigned crc = 0xFFFFFFFFu;
    for (int w = 0; w < WORDS; w++) {
#pragma HLS UNROLL
        // Truncating copies and constant shifts, not range(): see scenic_intrinsics.hpp.
        unsigned word = (unsigned)ap_uint<32>(rest).to_uint();
        rest >>= 32;
        crc = crc32_word(crc, word, poly);
    }
    return ap_uint<32>(crc);
}

// ---- cell arrays -------------------------------------------------------------------------------

template <typename T, int N, bool REGS>
struct cells;

// Registers: every cell is a flip-flop group; any number of reads and writes per cycle.
template <typename T, int N>
struct cells<T, N, true> {
    T v[N];
    T read(unsigned i) const {
#pragma HLS ARRAY_PARTITION variable = v complete
        return v[i];
    }
    void write(unsigned i, const T& x) {
#pragma HLS ARRAY_PARTITION variable = v complete
        v[i] = x;
    }
};

// Block RAM: one read port and one write port (RAM_S2P), reads registered (2 cycles).
template <typename T, int N>
struct cells<T, N, false> {
    T v[N];
    T read(unsigned i) const {
#pragma HLS BIND_STORAGE variable = v type = ram_s2p impl = bram
        return v[i];
    }
    void write(unsigned i, const T& x) {
#pragma HLS BIND_STORAGE variable = v type = ram_s2p impl = bram
        v[i] = x;
    }
};

}  // namespace scenic

#endif  // SCENIC_COMMON_HPP
