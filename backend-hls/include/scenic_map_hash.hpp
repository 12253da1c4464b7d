// scenic_map_hash.hpp — `map m: hash<bit<KW>, V>[N];` (docs/language.md §7.11).
//
// Semantics: exactly the interpreter's MapState of kind Hash (ir/src/interp/state.rs):
//   get(k)       the value of k, or scenic::zero<V>() when k is absent;
//   contains(k)  whether k is present;
//   insert(k,v)  a present k: replaces its value, returns true (even when the map is full);
//                a new k: false and no change when the map holds N keys (failed_inserts + 1),
//                otherwise stores it and returns true;
//   remove(k)    removes k; true if it was present.
// Host operations (control path; each is atomic with respect to packets):
//   peek(k, v)   like get, and says whether k is present;
//   host_insert / host_remove   = insert / remove;
//   clear()      removes every key;
//   host_iterate(cursor, k, v)  visits the slots of the store (see below).
//
// API
// ---
// template <int KW, typename V, int N>      // key ap_uint<KW>, value V (copyable), N >= 1 keys
// class scenic::hash_map {
//   static const int CAPACITY = N;
//   static const int SLOTS;                  // host iteration cursor range [0, SLOTS]
//   static const int ITER_SCAN = 64;         // slots examined per host_iterate call, at most
//   static const bool CAM;                   // N <= 16: register CAM, no buckets
//   static const int BUCKETS;                // buckets per bank (1 when CAM)
//   static const int STASH;                  // stash register slots
//   V    get(const ap_uint<KW>& k);
//   bool get(const ap_uint<KW>& k, V& v);    // the same value in v; returns contains(k)
//   bool contains(const ap_uint<KW>& k);
//   bool insert(const ap_uint<KW>& k, const V& v);
//   bool remove(const ap_uint<KW>& k);
//   bool peek(const ap_uint<KW>& k, V& v);
//   bool host_insert(const ap_uint<KW>& k, const V& v);
//   bool host_remove(const ap_uint<KW>& k);
//   void clear();
//   bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, V& v, ap_uint<32>& next);
//        OP_MAP_ITERATE: the first stored entry at a slot s >= pos: true, its key and value,
//        next = s + 1; none left: false, next = SLOTS. Scans up to SLOTS - pos slots (II 1,
//        one slot per cycle): at 2^17 slots that is 0.34 ms during which no packet is
//        processed — prefer host_iterate for big maps.
//   bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, V& v);
//        Bounded form: examines slots cursor, cursor+1, ... up to ITER_SCAN of them. At the first occupied
//        slot s it returns true with its key and value and sets cursor = s + 1; otherwise it
//        returns false with cursor advanced past the examined slots. Iteration is complete when
//        cursor == SLOTS (start at 0, call until then). Order: storage order (unspecified). Keys
//        inserted or removed by packets during an iteration may be missed (no snapshot); a key
//        that stays put is visited exactly once.
//   ap_uint<32> size();                      // keys held
//   ap_uint<64> failed_inserts();            // inserts refused because the map was full
//   ap_uint<32> stash_used(), stash_peak();  // keys in the overflow stash now / at most
//   ap_uint<64> collisions();                // keys that went to the stash (both buckets full)
//   ap_uint<64> overflows();                 // inserts refused although size() < N: the stash
//                                            // was full too. Diverges from the interpreter;
//                                            // expected to stay 0 (see "Limits").
// };
// A `static` instance starts empty (all-zero storage is the empty state); a non-static one must
// call clear() first.
//
// Hardware (scenic_hash_core.hpp): N <= 16: a fully associative register CAM of N slots
// (exact, no hashing). N > 16: two banks of B = pow2_ceil(ceil(N / 8)) buckets of 8 ways (so
// 2·8·B >= 2N slots: load <= 50% when full), each (bank, way) a BRAM of B words of KW + width(V)
// bits; a stash of 8 register slots.
//   Memory: 16·B·(KW + width(V) + 1) bits of BRAM, plus registers for the stash,
//     STASH·(KW + width(V) + 2·log2 B + 1) (N <= 16: N·(KW + width(V) + 1), nothing else).
//     Example: N = 65536, KW = 32, V = 64 bits: B = 8192, 12.7 Mbit (~354 BRAM36).
//   Cycles (estimates at 391 MHz): get/contains 3 (hash 1, parallel bank read 2, the compare
//     chained into the read's output); insert/remove 4 (the probe, then one write to one bank,
//     a fixed read-modify-write, never a loop). A sequence of lookups has II 1; packets that
//     insert or remove close a read-to-write recurrence of about 4 cycles (the timing model's
//     "BRAM map: read (hash 3) + chain + write 1"), which the writer reports as the II.
// Limits: an insert fails below N only if both candidate buckets (8 ways each) are full AND the
//   8-slot stash is full. With load <= 50% and stash drain on removal this was never observed:
//   maps of 64, 1000, 4096 and 65536 keys filled to N and churned (20·N random removes and
//   inserts, 200+ trials each) never needed a stash slot; the support-library test prints the
//   measured figures for the real hash function (docs/hls.md). Adversarial keys chosen to
//   collide in both CRCs could force it; `overflows` says so.

#ifndef SCENIC_MAP_HASH_HPP
#define SCENIC_MAP_HASH_HPP

#include "scenic_hash_core.hpp"

namespace scenic {

template <int KW, typename V, int N>
class hash_map {
  public:
    static const bool CAM = N <= 16;
    static const int WAYS = 8;
    static const int STASH = CAM ? N : 8;
    static const int BBITS = CAM ? 0 : clog2<(N + WAYS - 1) / WAYS>::value;
    typedef hash_core<KW, V, BBITS, WAYS, STASH, CAM> core_t;
    static const int CAPACITY = N;
    static const int SLOTS = core_t::SLOTS;
    static const int ITER_SCAN = 64;
    static const int BUCKETS = core_t::BUCKETS;

    V get(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        return p.found ? p.payload : zero<V>();
    }

    bool get(const ap_uint<KW>& k, V& v) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        v = p.found ? p.payload : zero<V>();
        return p.found;
    }

    bool contains(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        return p.found;
    }

    bool insert(const ap_uint<KW>& k, const V& v) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (p.found) {
            core_.set_payload(p.at, v);
            return true;
        }
        if (core_.count() >= (unsigned)N) {
            failed_++;
            return false;
        }
        typename core_t::loc_t at = p.at;
        return core_.place(k, v, p, at);
    }

    bool remove(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (!p.found) {
            return false;
        }
        typename core_t::loc_t moved = p.at;
        V moved_value = zero<V>();
        core_.erase(p.at, moved, moved_value);
        return true;
    }

    bool peek(const ap_uint<KW>& k, V& v) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        v = p.found ? p.payload : zero<V>();
        return p.found;
    }

    bool host_insert(const ap_uint<KW>& k, const V& v) { return insert(k, v); }
    bool host_remove(const ap_uint<KW>& k) { return remove(k); }
    void clear() { core_.clear(); }

    bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, V& v, ap_uint<32>& next) {
        // Slots pos, pos + 1, ... : a constant trip bound with an early exit.
        for (unsigned i = 0; i < (unsigned)SLOTS; i++) {
#pragma HLS PIPELINE II = 1
            const unsigned s = (unsigned)pos.to_uint() + i;
            if (s >= (unsigned)SLOTS) {
                break;
            }
            if (core_.slot(s, k, v)) {
                next = s + 1;
                return true;
            }
        }
        next = SLOTS;
        return false;
    }

    bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, V& v) {
        for (int i = 0; i < ITER_SCAN; i++) {
#pragma HLS PIPELINE II = 1
            if (cursor >= (unsigned)SLOTS) {
                return false;
            }
            unsigned s = (unsigned)cursor.to_uint();
            cursor = cursor + 1;
            if (core_.slot(s, k, v)) {
                return true;
            }
        }
        return false;
    }

    ap_uint<32> size() const { return core_.count(); }
    ap_uint<64> failed_inserts() const { return failed_; }
    ap_uint<32> stash_used() const { return core_.stash_used(); }
    ap_uint<32> stash_peak() const { return core_.stash_peak(); }
    ap_uint<64> collisions() const { return core_.collisions(); }
    ap_uint<64> overflows() const { return core_.overflows(); }

  private:
    core_t core_;
    ap_uint<64> failed_;
};

}  // namespace scenic

#endif  // SCENIC_MAP_HASH_HPP
