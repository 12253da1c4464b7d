// scenic_map_lru.hpp — `map m: lru_hash<bit<KW>, V>[N];` (docs/language.md §7.11).
//
// Semantics: exactly the interpreter's MapState of kind LruHash (ir/src/interp/state.rs):
//   get(k)       the value of k (scenic::zero<V>() when absent); a present k becomes the most
//                recently used;
//   contains(k)  whether k is present; does NOT change recency;
//   insert(k,v)  a present k: replaces its value, becomes most recently used, true; a new k when
//                the map holds N keys: first evicts the globally least recently used key, then
//                stores k as the most recently used; never fails (see "Limits");
//   remove(k)    removes k; true if it was present.
// "Used" means get (hit) or insert, in program order, over the whole map: the victim is the key
// whose last get/insert is the oldest, as the interpreter's stamp order.
// Host operations (control path; each atomic with respect to packets):
//   peek(k, v)   the value without changing recency, and whether k is present;
//   host_insert / host_remove   = insert / remove (a host insert refreshes and may evict, as
//                MapState::insert does);
//   clear()      removes every key;
//   host_iterate(cursor, k, v)  as scenic::hash_map (storage order, does not change recency).
//
// API
// ---
// template <int KW, typename V, int N>      // key ap_uint<KW>, value V (copyable), N >= 1 keys
// class scenic::lru_map {
//   static const int CAPACITY = N, SLOTS, ITER_SCAN = 64, BUCKETS, STASH; static const bool CAM;
//   V    get(const ap_uint<KW>& k);
//   bool get(const ap_uint<KW>& k, V& v);    // the same (refreshes), value in v; returns
//                                            // whether k was present
//   bool contains(const ap_uint<KW>& k);
//   bool insert(const ap_uint<KW>& k, const V& v);
//   bool remove(const ap_uint<KW>& k);
//   bool peek(const ap_uint<KW>& k, V& v);
//   bool host_insert(const ap_uint<KW>& k, const V& v);
//   bool host_remove(const ap_uint<KW>& k);
//   void clear();
//   bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, V& v, ap_uint<32>& next);
//   bool host_iterate(ap_uint<32>& cursor, ap_uint<KW>& k, V& v);
//                                            // both as hash_map; neither refreshes recency
//   bool lru_key(ap_uint<KW>& k);            // the key the next eviction would remove (host,
//                                            // diagnostics); false when empty
//   ap_uint<32> size();
//   ap_uint<64> evictions();                 // keys evicted by inserts into a full map
//   ap_uint<64> failed_inserts();            // inserts that returned false (only overflows;
//                                            // the interpreter's count is always 0)
//   ap_uint<32> stash_used(), stash_peak(); ap_uint<64> collisions(), overflows();
//                                            // as hash_map: overflows counts inserts refused
//                                            // (false) below N because the index stash was
//                                            // full; expected to stay 0
// };
// A `static` instance starts empty (all-zero storage is the empty state, including the free
// list: slots are handed out from a high-water mark); a non-static one must call clear() first.
//
// Hardware
//   - index: the hash_map structure (scenic_hash_core.hpp) mapping key -> node slot: N <= 16 a
//     register CAM; otherwise 2 banks x B = pow2_ceil(ceil(N / 8)) buckets x 8 ways (load <=
//     50%) + an 8-slot register stash;
//   - nodes: N slots in BRAM holding the value, the recency list's prev/next pointers and the
//     location of the slot's index entry (so an eviction removes the victim's index entry
//     without hashing the victim's key); head (most recent), tail (least recent), the free list
//     and the high-water mark are registers. Pointers are slot + 1 (0 = none).
//   Memory: index 16·B·(KW + P + 1) + nodes N·(width(V) + 2·P + L) bits of BRAM, P =
//     ceil(log2(N + 1)), L = 2 + log2 B + 3 (location). Example: N = 65536, KW = 32, V = 32
//     bits: index 6.8 Mbit + nodes 4.4 Mbit.
//   Cycles (estimates at 391 MHz): contains 3; get/insert of a present key: probe 3, node read
//     2, relink 2 (5 pointer writes over two dual-port arrays) = 7; insert with eviction: + the
//     victim's index erase (1) and a second probe of the new key (3) = 11; remove 7. Each
//     get/insert is a read-modify-write of the shared recency list, so a body that uses the map
//     on every packet has II ≈ 7 (11 when it evicts): line rate for packets of >= 7·64 B
//     (≥ 11·64 B) at 200 Gb/s — report it as the map's II limit.
// Limits: as hash_map, an insert returns false (counted in overflows, the map unchanged except
//   that the victim of a full map has been evicted, as the interpreter would also have done)
//   only when both index buckets and the stash are full — never observed in the tests.

#ifndef SCENIC_MAP_LRU_HPP
#define SCENIC_MAP_LRU_HPP

#include "scenic_hash_core.hpp"

namespace scenic {

template <int KW, typename V, int N>
class lru_map {
  public:
    static const bool CAM = N <= 16;
    static const int WAYS = 8;
    static const int STASH = CAM ? N : 8;
    static const int BBITS = CAM ? 0 : clog2<(N + WAYS - 1) / WAYS>::value;
    static const int PW = bits_for<N>::value;
    typedef ap_uint<PW> ptr_t;
    typedef hash_core<KW, ptr_t, BBITS, WAYS, STASH, CAM> core_t;
    typedef ap_uint<core_t::LOCW> packed_loc_t;
    static const int CAPACITY = N;
    static const int SLOTS = core_t::SLOTS;
    static const int ITER_SCAN = 64;
    static const int BUCKETS = core_t::BUCKETS;

    V get(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (!p.found) {
            return zero<V>();
        }
        V v = val_[p.payload - 1];
        touch(p.payload);
        return v;
    }

    bool get(const ap_uint<KW>& k, V& v) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (!p.found) {
            v = zero<V>();
            return false;
        }
        v = val_[p.payload - 1];
        touch(p.payload);
        return true;
    }

    bool contains(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        return p.found;
    }

    bool insert(const ap_uint<KW>& k, const V& v) {
        node_pragmas();
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (p.found) {
            val_[p.payload - 1] = v;
            touch(p.payload);
            return true;
        }
        ptr_t slot = 0;
        if (core_.count() >= (unsigned)N) {
            // Full: the tail is the least recently used key. Its index entry goes (the node
            // knows where it is), then the new key is probed again: the erase may have freed a
            // way in one of its candidate buckets, or drained the stash into one.
            slot = tail_;
            erase_index(loc_[slot - 1]);
            unlink(slot);
            evictions_++;
            core_.probe(k, p);
        } else {
            slot = alloc();
        }
        typename core_t::loc_t at = p.at;
        if (!core_.place(k, slot, p, at)) {
            release(slot);
            failed_++;
            return false;
        }
        val_[slot - 1] = v;
        loc_[slot - 1] = at.pack();
        push_front(slot);
        return true;
    }

    bool remove(const ap_uint<KW>& k) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        if (!p.found) {
            return false;
        }
        ptr_t slot = p.payload;
        erase_index(p.at.pack());
        unlink(slot);
        release(slot);
        return true;
    }

    bool peek(const ap_uint<KW>& k, V& v) {
        typename core_t::probe_t p;
        core_.probe(k, p);
        v = p.found ? val_[p.payload - 1] : zero<V>();
        return p.found;
    }

    bool host_insert(const ap_uint<KW>& k, const V& v) { return insert(k, v); }
    bool host_remove(const ap_uint<KW>& k) { return remove(k); }

    void clear() {
        core_.clear();
        head_ = 0;
        tail_ = 0;
        free_ = 0;
        hwm_ = 0;
    }

    bool iterate(const ap_uint<32>& pos, ap_uint<KW>& k, V& v, ap_uint<32>& next) {
        // Slots pos, pos + 1, ... : a constant trip bound with an early exit.
        for (unsigned i = 0; i < (unsigned)SLOTS; i++) {
#pragma HLS PIPELINE II = 1
            const unsigned s = (unsigned)pos.to_uint() + i;
            if (s >= (unsigned)SLOTS) {
                break;
            }
            ptr_t slot = 0;
            if (core_.slot(s, k, slot)) {
                v = val_[slot - 1];
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
            ptr_t slot = 0;
            if (core_.slot(s, k, slot)) {
                v = val_[slot - 1];
                return true;
            }
        }
        return false;
    }

    bool lru_key(ap_uint<KW>& k) {
        if (tail_ == 0) {
            return false;
        }
        typename core_t::loc_t at = core_t::loc_t::unpack(loc_[tail_ - 1]);
        ptr_t slot = 0;
        unsigned s = at.where == 2 ? (unsigned)(2 * BUCKETS * WAYS) + at.way
                                   : (at.where * (unsigned)BUCKETS + at.bucket) * WAYS + at.way;
        return core_.slot(s, k, slot);
    }

    ap_uint<32> size() const { return core_.count(); }
    ap_uint<64> evictions() const { return evictions_; }
    ap_uint<64> failed_inserts() const { return failed_; }
    ap_uint<32> stash_used() const { return core_.stash_used(); }
    ap_uint<32> stash_peak() const { return core_.stash_peak(); }
    ap_uint<64> collisions() const { return core_.collisions(); }
    ap_uint<64> overflows() const { return core_.overflows(); }

  private:
    core_t core_;
    V val_[N];
    ptr_t prev_[N];
    ptr_t next_[N];
    packed_loc_t loc_[N];
    ptr_t head_;  // most recently used
    ptr_t tail_;  // least recently used
    ptr_t free_;  // released slots, linked through next_
    ptr_t hwm_;   // slots 1..hwm_ have been handed out at least once
    ap_uint<64> evictions_;
    ap_uint<64> failed_;

    void node_pragmas() {
#pragma HLS BIND_STORAGE variable = val_ type = ram_2p impl = bram
#pragma HLS BIND_STORAGE variable = prev_ type = ram_2p impl = bram
#pragma HLS BIND_STORAGE variable = next_ type = ram_2p impl = bram
#pragma HLS BIND_STORAGE variable = loc_ type = ram_2p impl = bram
    }

    // Removes an index entry; a stash entry drained into its place tells its node where it is.
    void erase_index(const packed_loc_t& packed) {
        typename core_t::loc_t at = core_t::loc_t::unpack(packed);
        typename core_t::loc_t moved = at;
        ptr_t moved_slot = 0;
        if (core_.erase(at, moved, moved_slot)) {
            loc_[moved_slot - 1] = moved.pack();
        }
    }

    void unlink(const ptr_t& s) {
        ptr_t p = prev_[s - 1];
        ptr_t n = next_[s - 1];
        if (p != 0) {
            next_[p - 1] = n;
        } else {
            head_ = n;
        }
        if (n != 0) {
            prev_[n - 1] = p;
        } else {
            tail_ = p;
        }
    }

    void push_front(const ptr_t& s) {
        prev_[s - 1] = 0;
        next_[s - 1] = head_;
        if (head_ != 0) {
            prev_[head_ - 1] = s;
        } else {
            tail_ = s;
        }
        head_ = s;
    }

    void touch(const ptr_t& s) {
        if (head_ != s) {
            unlink(s);
            push_front(s);
        }
    }

    // A free slot; the caller guarantees size() < N, so the free list or the high-water mark has
    // one.
    ptr_t alloc() {
        if (free_ != 0) {
            ptr_t s = free_;
            free_ = next_[s - 1];
            return s;
        }
        hwm_ = hwm_ + 1;
        return hwm_;
    }

    void release(const ptr_t& s) {
        next_[s - 1] = free_;
        free_ = s;
    }
};

}  // namespace scenic

#endif  // SCENIC_MAP_LRU_HPP
