// scenic_exact_table.hpp — storage of a large exact-match table (all keys `exact`).
//
// The generator packs a table's key elements into one ap_uint<KW> (first key element most
// significant, as the manifest publishes) and the entry's action id and arguments into a value
// D; this class stores key -> D. Semantics: exactly the interpreter's TableState with the Exact
// strategy (ir/src/interp/state.rs):
//   lookup(k, d)   hit: d = the entry's data, true; miss: false (d untouched). Counts hits/misses.
//   insert(k, d)   TABLE_FULL when the table holds N entries (checked first, as TableState), else
//                  TABLE_DUPLICATE when k is present, else stores it: TABLE_OK. TABLE_OVERFLOW
//                  (never returned by the interpreter) when the hashed store could not place k
//                  although fewer than N entries are held — see "Limits"; the table is then
//                  unchanged.
//   insert_const(k, d)  the same for a constant entry (counts toward N; remove and clear leave it).
//   remove(k)      removes a run-time entry; false when k is absent or constant. (The interpreter
//                  removes by entry handle; the host runtime keeps handle -> key.)
//   update(k, d)   replaces the data of a run-time entry in place (one payload write: the key
//                  stays in its slot, a lookup sees the old data or the new); false when k is
//                  absent or constant (TableState::modify).
//   clear()        removes every run-time entry (TableState::clear_runtime); constants stay.
//   iterate(pos, k, d, is_const, next) / host_iterate(cursor, k, d, is_const)  as
//                  scenic::hash_map's iterate / host_iterate, plus the entry's constant flag.
//
// API
// ---
// enum { TABLE_OK = 0, TABLE_FULL = 2, TABLE_DUPLICATE = 3, TABLE_OVERFLOW = 11 };
//   (the codes of scenic_ir::control::Status Ok, Full, Duplicate; 11 is not a Status yet)
// template <int KW, typename D, int N>      // key ap_uint<KW>, data D (copyable), N >= 1 entries
// class scenic::exact_table {
//   static const int CAPACITY = N, SLOTS, ITER_SCAN = 64, BUCKETS, STASH; static const bool CAM;
//   bool lookup(const ap_uint<KW>& k, D& d);
//   ap_uint<8> insert(const ap_uint<KW>& k, const D& d);
//   ap_uint<8> insert_const(const ap_uint<KW>& k, const D& d);
//   bool remove(const ap_uint<KW>& k);
//   bool update(const ap_uint<KW>& k, const D& d);
//   void clear();
//   bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, D& d, bool& is_const,
//                ap_uint<32>& next);
//   bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, D& d, bool& is_const);
//   ap_uint<32> size();                      // entries held, constant ones included
//   ap_uint<64> hits(), misses();
//   ap_uint<32> stash_used(), stash_peak();
//   ap_uint<64> collisions();                // inserts that ended in the stash
//   ap_uint<64> overflows();                 // TABLE_OVERFLOW results; expected to stay 0
// };
// A `static` instance starts empty; a non-static one must call clear() first (clear() on a
// fresh instance also drops nothing it should keep: there are no constants yet).
//
// Hardware (scenic_hash_core.hpp): N <= 16: a register CAM. Otherwise a bucketed cuckoo hash:
// 2 banks x B buckets x 8 ways, B = pow2_ceil(ceil(N / (0.9 · 16))) so the load when full is at
// most 90% (between 45% and 90% after rounding B up), and an 8-slot register stash.
//   lookup (the data path): hash 1 + parallel read of both candidate buckets 2 + 16 parallel key
//     compares and the stash, chained = 3 cycles, read-only, II 1 — the timing model's "table
//     apply, exact keys: 3".
//   insert (host): a probe; a free way in either candidate bucket is used directly; otherwise a
//     cuckoo random walk moves up to 64 entries to their other candidate bucket (each move ~4
//     cycles: hash, read, write), then the stash; a failed walk is undone. remove: probe + 1
//     write (a stash entry whose bucket is freed moves into it). clear: B cycles.
//   Memory: 16·B·(KW + width(D) + 2) bits of BRAM (valid and constant flags per slot), stash
//     registers 8·(KW + width(D) + 2·log2 B + 2). Example: N = 65536, KW = 104 (5-tuple),
//     D = 32 bits: B = 8192, 18.1 Mbit.
// Limits: TABLE_OVERFLOW needs a failed 64-step walk AND a full stash. For (2 banks, 8 ways) the
//   cuckoo load threshold is above 99%; at <= 90% load a random walk essentially always
//   succeeds within a few steps. The support-library test fills tables to N with random keys
//   and with structured keys (sequential, strided) and reports the stash use it measured
//   (docs/hls.md); no overflow was seen.

#ifndef SCENIC_EXACT_TABLE_HPP
#define SCENIC_EXACT_TABLE_HPP

#include "scenic_hash_core.hpp"

namespace scenic {

enum { TABLE_OK = 0, TABLE_FULL = 2, TABLE_DUPLICATE = 3, TABLE_OVERFLOW = 11 };

// An entry's data plus whether it is constant.
template <typename D>
struct table_slot {
    D data;
    bool is_const;
};

template <typename D>
struct zero_value<table_slot<D> > {
    static table_slot<D> get() {
        table_slot<D> s;
        s.data = zero<D>();
        s.is_const = false;
        return s;
    }
};

template <int KW, typename D, int N>
class exact_table {
  public:
    static const bool CAM = N <= 16;
    static const int WAYS = 8;
    static const int STASH = CAM ? N : 8;
    // Buckets per bank: ceil(N / (0.9 * 2 * WAYS)) = ceil(10 N / 144), rounded up to a power of 2.
    static const int BBITS = CAM ? 0 : clog2<(10ULL * N + 143) / 144>::value;
    typedef table_slot<D> slot_t;
    typedef hash_core<KW, slot_t, BBITS, WAYS, STASH, CAM> core_t;
    static const int CAPACITY = N;
    static const int SLOTS = core_t::SLOTS;
    static const int ITER_SCAN = 64;
    static const int BUCKETS = core_t::BUCKETS;

    bool lookup(const ap_uint<KW>& k, D& d) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (p.found) {
            d = p.payload.data;
            hits_++;
        } else {
            misses_++;
        }
        return p.found;
    }

    ap_uint<8> insert(const ap_uint<KW>& k, const D& d) { return add(k, d, false); }
    ap_uint<8> insert_const(const ap_uint<KW>& k, const D& d) { return add(k, d, true); }

    bool remove(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (!p.found || p.payload.is_const) {
            return false;
        }
        typename core_t::loc_t moved = p.at;
        slot_t moved_slot = zero<slot_t>();
        core_.erase(p.at, moved, moved_slot);
        return true;
    }

    bool update(const ap_uint<KW>& k, const D& d) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (!p.found || p.payload.is_const) {
            return false;
        }
        slot_t v;
        v.data = d;
        v.is_const = false;
        core_.set_payload(p.at, v);
        return true;
    }

    // Removes every run-time entry: a walk over all slots (SLOTS steps, host-side), the stash
    // first, so that the stash drain can only move constant entries into freed ways.
    void clear() {
        const unsigned STASH_FIRST = (unsigned)(SLOTS - STASH);
        for (unsigned i = 0; i < (unsigned)SLOTS; i++) {
#pragma HLS PIPELINE off
            unsigned s = (i + STASH_FIRST) % (unsigned)SLOTS;
            ap_uint<KW> k = 0;
            slot_t v = zero<slot_t>();
            if (core_.slot(s, k, v) && !v.is_const) {
                remove(k);
            }
        }
    }

    bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, D& d, bool& is_const,
                 ap_uint<32>& next) {
        // Slots pos, pos + 1, ... : a constant trip bound with an early exit.
        for (unsigned i = 0; i < (unsigned)SLOTS; i++) {
#pragma HLS PIPELINE II = 1
            const unsigned s = (unsigned)pos.to_uint() + i;
            if (s >= (unsigned)SLOTS) {
                break;
            }
            slot_t v = zero<slot_t>();
            if (core_.slot(s, k, v)) {
                d = v.data;
                is_const = v.is_const;
                next = s + 1;
                return true;
            }
        }
        next = SLOTS;
        return false;
    }

    bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, D& d, bool& is_const) {
        for (int i = 0; i < ITER_SCAN; i++) {
#pragma HLS PIPELINE II = 1
            if (cursor >= (unsigned)SLOTS) {
                return false;
            }
            unsigned s = (unsigned)cursor.to_uint();
            cursor = cursor + 1;
            slot_t v = zero<slot_t>();
            if (core_.slot(s, k, v)) {
                d = v.data;
                is_const = v.is_const;
                return true;
            }
        }
        return false;
    }

    ap_uint<32> size() const { return core_.count(); }
    ap_uint<64> hits() const { return hits_; }
    ap_uint<64> misses() const { return misses_; }
    ap_uint<32> stash_used() const { return core_.stash_used(); }
    ap_uint<32> stash_peak() const { return core_.stash_peak(); }
    ap_uint<64> collisions() const { return core_.collisions(); }
    ap_uint<64> overflows() const { return core_.overflows(); }

  private:
    core_t core_;
    ap_uint<64> hits_;
    ap_uint<64> misses_;

    ap_uint<8> add(const ap_uint<KW>& k, const D& d, bool is_const) {
        if (core_.count() >= (unsigned)N) {
            return ap_uint<8>(TABLE_FULL);
        }
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (p.found) {
            return ap_uint<8>(TABLE_DUPLICATE);
        }
        slot_t v;
        v.data = d;
        v.is_const = is_const;
        return core_.place_or_kick(k, v, p) ? ap_uint<8>(TABLE_OK) : ap_uint<8>(TABLE_OVERFLOW);
    }
};

}  // namespace scenic

#endif  // SCENIC_EXACT_TABLE_HPP
