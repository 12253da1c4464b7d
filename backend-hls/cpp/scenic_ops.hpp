// scenic_ops.hpp: the IR's operators on ap_[u]int values, exactly as scenic's reference
// interpreter defines them (ir/src/interp/ops.rs, docs/language.md §4), for generated kernels.
//
// Written for scenicc (Apache-2.0). The kernel writer (backend-hls) emits plain ap_int arithmetic
// where C++ already gives the language's result (wrapping + - *, bitwise operators, comparisons)
// and calls these helpers where it does not: division and remainder by zero give 0, shifts by the
// width or more give 0 (-1 for >> of a negative int), saturating + and -, and the scaled
// fixed-point product and quotient (truncated toward zero, wrapped). Every helper is a small
// template over the operand widths: synthesizable, no loops, no state.
#ifndef SCENIC_OPS_HPP
#define SCENIC_OPS_HPP

#include <ap_int.h>

namespace scn {

// ---- shifts: an amount at or past the width gives 0 (or -1 for >> of a negative int) ----------

template <int N, int M>
ap_uint<N> shl(const ap_uint<N>& x, const ap_uint<M>& s) {
    if (s >= N) return ap_uint<N>(0);
    return ap_uint<N>(x << int(s));
}

template <int N, int M>
ap_int<N> shl(const ap_int<N>& x, const ap_uint<M>& s) {
    if (s >= N) return ap_int<N>(0);
    return ap_int<N>(ap_uint<N>(ap_uint<N>(x) << int(s)));
}

template <int N, int M>
ap_uint<N> shr(const ap_uint<N>& x, const ap_uint<M>& s) {
    if (s >= N) return ap_uint<N>(0);
    return ap_uint<N>(x >> int(s));
}

template <int N, int M>
ap_int<N> shr(const ap_int<N>& x, const ap_uint<M>& s) {
    if (s >= N) return x < 0 ? ap_int<N>(-1) : ap_int<N>(0);
    return ap_int<N>(x >> int(s));
}

// ---- division and remainder: by zero gives 0; int truncates toward zero, MIN / -1 wraps --------

template <int N>
ap_uint<N> div(const ap_uint<N>& a, const ap_uint<N>& b) {
    if (b == 0) return ap_uint<N>(0);
    return ap_uint<N>(a / b);
}

template <int N>
ap_int<N> div(const ap_int<N>& a, const ap_int<N>& b) {
    if (b == 0) return ap_int<N>(0);
    // Computed one bit wider so that MIN / -1 = 2^(N-1) exists before it wraps back to MIN.
    ap_int<N + 1> q = ap_int<N + 1>(a) / ap_int<N + 1>(b);
    return ap_int<N>(q);
}

template <int N>
ap_uint<N> rem(const ap_uint<N>& a, const ap_uint<N>& b) {
    if (b == 0) return ap_uint<N>(0);
    return ap_uint<N>(a % b);
}

template <int N>
ap_int<N> rem(const ap_int<N>& a, const ap_int<N>& b) {
    if (b == 0) return ap_int<N>(0);
    ap_int<N + 1> r = ap_int<N + 1>(a) % ap_int<N + 1>(b);
    return ap_int<N>(r);
}

// ---- saturating + and -: unsigned clamps to 0 ..= 2^N-1, signed to MIN ..= MAX ----------------

template <int N>
ap_uint<N> sat_add(const ap_uint<N>& a, const ap_uint<N>& b) {
    ap_uint<N + 1> s = ap_uint<N + 1>(a) + ap_uint<N + 1>(b);
    if (s[N]) return ~ap_uint<N>(0);
    return ap_uint<N>(s);
}

template <int N>
ap_uint<N> sat_sub(const ap_uint<N>& a, const ap_uint<N>& b) {
    if (a < b) return ap_uint<N>(0);
    return ap_uint<N>(a - b);
}

template <int N>
ap_int<N> sat_clamp(const ap_int<N + 1>& s) {
    ap_int<N + 1> hi = ap_int<N + 1>(ap_uint<N>(~ap_uint<N>(0)) >> 1);
    ap_int<N + 1> lo = ap_int<N + 1>(-1) - hi;
    if (s > hi) return ap_int<N>(hi);
    if (s < lo) return ap_int<N>(lo);
    return ap_int<N>(s);
}

template <int N>
ap_int<N> sat_add(const ap_int<N>& a, const ap_int<N>& b) {
    return sat_clamp<N>(ap_int<N + 1>(a) + ap_int<N + 1>(b));
}

template <int N>
ap_int<N> sat_sub(const ap_int<N>& a, const ap_int<N>& b) {
    return sat_clamp<N>(ap_int<N + 1>(a) - ap_int<N + 1>(b));
}

// ---- min and max ---------------------------------------------------------------------------------

template <typename T>
T min_(const T& a, const T& b) {
    return b < a ? b : a;
}

template <typename T>
T max_(const T& a, const T& b) {
    return b > a ? b : a;
}

// ---- scaled products and quotients (fixed point, rate * fixed, ...) -------------------------------
// MulScaled(F): (lhs * rhs) >> F, exact, truncated toward zero, wrapped to lhs's width. rhs is
// unsigned. A signed lhs scales its magnitude and gets its sign back, so truncation is toward zero.

template <int F, int N, int M>
ap_uint<N> mul_scaled(const ap_uint<N>& a, const ap_uint<M>& b) {
    ap_uint<N + M> p = ap_uint<N + M>(a) * ap_uint<N + M>(b);
    return ap_uint<N>(p >> F);
}

template <int F, int N, int M>
ap_int<N> mul_scaled(const ap_int<N>& a, const ap_uint<M>& b) {
    bool neg = a < 0;
    ap_uint<N> mag = neg ? ap_uint<N>(ap_uint<N>(0) - ap_uint<N>(a)) : ap_uint<N>(a);
    ap_uint<N> q = mul_scaled<F>(mag, b);
    return ap_int<N>(neg ? ap_uint<N>(ap_uint<N>(0) - q) : q);
}

// DivScaled(F): (lhs << F) / rhs, exact, truncated toward zero, wrapped; by zero gives 0.
template <int F, int N, int M>
ap_uint<N> div_scaled(const ap_uint<N>& a, const ap_uint<M>& b) {
    const int W = (N + F > M) ? N + F : M;
    if (b == 0) return ap_uint<N>(0);
    ap_uint<W> num = ap_uint<W>(a) << F;
    ap_uint<W> q = num / ap_uint<W>(b);
    return ap_uint<N>(q);
}

template <int F, int N, int M>
ap_int<N> div_scaled(const ap_int<N>& a, const ap_uint<M>& b) {
    bool neg = a < 0;
    ap_uint<N> mag = neg ? ap_uint<N>(ap_uint<N>(0) - ap_uint<N>(a)) : ap_uint<N>(a);
    ap_uint<N> q = div_scaled<F>(mag, b);
    return ap_int<N>(neg ? ap_uint<N>(ap_uint<N>(0) - q) : q);
}

// ---- bit patterns ----------------------------------------------------------------------------------

// The N-bit pattern of a value (an int's two's complement), for concatenation, slices and records.
template <int N>
ap_uint<N> bits(const ap_uint<N>& x) {
    return x;
}

template <int N>
ap_uint<N> bits(const ap_int<N>& x) {
    return ap_uint<N>(x);
}

inline ap_uint<1> bits(bool x) {
    return ap_uint<1>(x ? 1 : 0);
}

// Number of set bits of a beat's keep (the valid bytes; keep is contiguous from byte 0).
template <int N>
ap_uint<16> popcount(const ap_uint<N>& x) {
    ap_uint<16> n = 0;
    for (int i = 0; i < N; ++i) {
#pragma HLS UNROLL
        n += x[i] ? 1 : 0;
    }
    return n;
}

}  // namespace scn

#endif  // SCENIC_OPS_HPP
