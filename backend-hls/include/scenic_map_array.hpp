// scenic_map_array.hpp — `map m: array<bit<KW>, V>[N];` (docs/language.md §7.11).
//
// Semantics: exactly the interpreter's MapState of kind Array (ir/src/interp/state.rs): every key
// k < N is present, its cell starting at scenic::zero<V>().
//   get(k)       cell k, or zero<V>() when k >= N;
//   contains(k)  k < N;
//   insert(k,v)  k < N: cell k = v, true; k >= N: false, nothing changes (failed_inserts + 1);
//   remove(k)    k < N: cell k = zero<V>(), true; k >= N: false.
// Host operations: read(k, v) and peek(k, v) (= get, and whether k < N), host_insert / host_remove (= insert /
// remove), clear() (every cell back to zero, N cycles), host_iterate(cursor, k, v): cells
// cursor, cursor + 1, ... — every cell is present, so each call returns cell `cursor` (k =
// cursor) and advances it; iteration is complete when cursor == SLOTS == N.
//
// API
// ---
// template <int KW, typename V, int N, bool REGS = (N <= 16)>
// class scenic::array_map {                  // N <= 2^KW (the checker guarantees it)
//   static const int CAPACITY = N, SLOTS = N, ITER_SCAN = 1;
//   V    get(const ap_uint<KW>& k);
//   bool get(const ap_uint<KW>& k, V& v);    // the same value in v; returns k < N
//   bool contains(const ap_uint<KW>& k);
//   bool insert(const ap_uint<KW>& k, const V& v);
//   bool remove(const ap_uint<KW>& k);
//   bool read(const ap_uint<KW>& k, V& v);
//   bool host_insert(const ap_uint<KW>& k, const V& v);
//   bool host_remove(const ap_uint<KW>& k);
//   void clear();
//   bool peek(const ap_uint<KW>& k, V& v);   // = read (no recency in an array map)
//   bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, V& v, ap_uint<32>& next);
//        pos < N: cell pos (k = pos), next = pos + 1, true; else false, next = N.
//   bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, V& v);
//   ap_uint<64> failed_inserts();
// };
// A `static` instance starts with every cell zero (all-zero storage), provided zero<V>() is the
// all-zero bit pattern (true for ap_uint/ap_int/bool and for structs of them zeroed field by
// field); a non-static one must call clear() first.
//
// Hardware: N cells of width(V) bits, addressed by k directly, no hashing. REGS (default for
// N <= 16): registers, get 0 cycles (a mux), insert 0 (a register write) — the timing model's
// "array of <= 16 cells is a register file". Otherwise a dual-port BRAM (N·width(V) bits):
// get 2 cycles (registered read), insert/remove 1 (a write); a read-then-write of the same
// map in one body closes a recurrence of 2 + chain + 1 cycles (the writer reports the II).
// The k < N test is one comparator (free when N = 2^KW).

#ifndef SCENIC_MAP_ARRAY_HPP
#define SCENIC_MAP_ARRAY_HPP

#include "scenic_common.hpp"

namespace scenic {

template <int KW, typename V, int N, bool REGS = (N <= 16)>
class array_map {
  public:
    static const int CAPACITY = N;
    static const int SLOTS = N;
    static const int ITER_SCAN = 1;

    V get(const ap_uint<KW>& k) {
        if (!in_range(k)) {
            return zero<V>();
        }
        return cells_.read(index(k));
    }

    bool get(const ap_uint<KW>& k, V& v) {
        v = get(k);
        return in_range(k);
    }

    bool contains(const ap_uint<KW>& k) { return in_range(k); }

    bool insert(const ap_uint<KW>& k, const V& v) {
        if (!in_range(k)) {
            failed_++;
            return false;
        }
        cells_.write(index(k), v);
        return true;
    }

    bool remove(const ap_uint<KW>& k) {
        if (!in_range(k)) {
            return false;
        }
        cells_.write(index(k), zero<V>());
        return true;
    }

    bool read(const ap_uint<KW>& k, V& v) {
        v = get(k);
        return in_range(k);
    }

    bool peek(const ap_uint<KW>& k, V& v) { return read(k, v); }

    bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, V& v, ap_uint<32>& next) {
        if (pos >= (unsigned)N) {
            next = N;
            return false;
        }
        unsigned i = (unsigned)pos.to_uint();
        k = i;
        v = cells_.read(i);
        next = i + 1;
        return true;
    }

    bool host_insert(const ap_uint<KW>& k, const V& v) { return insert(k, v); }
    bool host_remove(const ap_uint<KW>& k) { return remove(k); }

    void clear() {
        for (int i = 0; i < N; i++) {
#pragma HLS PIPELINE II = 1
            cells_.write((unsigned)i, zero<V>());
        }
    }

    bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, V& v) {
        if (cursor >= (unsigned)N) {
            return false;
        }
        unsigned i = (unsigned)cursor.to_uint();
        cursor = cursor + 1;
        k = i;
        v = cells_.read(i);
        return true;
    }

    ap_uint<64> failed_inserts() const { return failed_; }

  private:
    cells<V, N, REGS> cells_;
    ap_uint<64> failed_;

    // k < N, compared at the key's full width (a key wider than 32 bits must not be truncated).
    static bool in_range(const ap_uint<KW>& k) {
        const int W = KW > 33 ? KW : 33;
        return ap_uint<W>(k) < ap_uint<W>((unsigned long long)N);
    }

    static unsigned index(const ap_uint<KW>& k) {
        const int IW = clog2<N>::value < 1 ? 1 : clog2<N>::value;
        return (unsigned)ap_uint<IW>(k).to_uint();
    }
};

}  // namespace scenic

#endif  // SCENIC_MAP_ARRAY_HPP
