// scenic_hash_core.hpp — the hashed key store under hash maps, LRU maps and exact tables.
//
// Not instantiated by generated code directly: scenic::hash_map, scenic::lru_map and
// scenic::exact_table wrap it. Documented here because their figures (memory, cycles, the
// probability of a stash overflow) come from it.
//
// Structure (why it runs at line rate)
// ------------------------------------
// Two banks of BUCKETS buckets each; a bucket holds WAYS (key, payload) slots and an occupancy
// mask. A key has one candidate bucket per bank, chosen by scenic::index_hash (bank 0 CRC-32C,
// bank 1 CRC-32K over the key; low BBITS bits). Plus a STASH of fully associative register slots
// for keys whose two candidate buckets are both full.
//   - probe (every operation starts with it): hash the key (XOR network, 1 cycle), read both
//     candidate buckets — every (bank, way) array is its own BRAM, all read in parallel at the
//     bucket's address (2 cycles, registered output) — and compare
//     the key with the 2 * WAYS slots and the STASH registers in parallel (1 cycle). 3 cycles,
//     no loop, no chain: II 1 for a sequence of lookups.
//   - place (insert of a new key, after a probe): the less occupied candidate bucket, bank 0 on
//     ties ("two choices, go left"), its lowest free way: one write to one bank (1 cycle). Both
//     full: the lowest free stash register, counted in `collisions`. Never moves other keys, so
//     a data-path insert is a fixed 4-cycle read-modify-write.
//   - erase: one write that clears the way; if a stash key has the freed bucket as its
//     candidate in that bank, it moves into the freed way in the same write ("stash drain"), so
//     the stash empties as keys leave.
//   - place_or_kick (host-side inserts of exact tables only): like place, but when both buckets
//     are full it first tries a bounded cuckoo random walk of up to MAX_KICKS moves (each kicks
//     a key to its candidate bucket in the other bank), and undoes the walk if it fails before
//     using the stash. Up to MAX_KICKS * ~4 cycles, fine for a control request.
// CAM=true (tables and maps of at most 16 entries) uses only the stash: a fully associative
// register CAM of STASH >= N slots, exact by construction.
//
// Only `count` (maintained by the wrappers against their size N) decides whether a new key is
// admitted; the buckets are sized so that the stash is practically never needed and never
// full. If the stash IS full when a new key needs it, the insert fails although the structure
// holds fewer than N keys: that is counted in `overflows` (host-readable), never silent. Measured
// figures are in the wrappers' comments and docs/hls.md.
//
// API
// ---
// template <int KW, typename P, int BBITS, int WAYS, int STASH, bool CAM>
// class scenic::hash_core {
//   static const int BUCKETS = 1 << BBITS, SLOTS = 2 * BUCKETS * WAYS + STASH;
//   static const int LOCW;                  // bits of a packed location (loc_t::pack)
//   struct loc_t { unsigned where;          // 0: bank 0, 1: bank 1, 2: stash
//                  unsigned bucket, way;    // way = stash index when where == 2
//                  ap_uint<LOCW> pack() const; static loc_t unpack(ap_uint<LOCW>); };
//   struct probe_t { bool found; loc_t at; P payload; unsigned cand[2]; ap_uint<WAYS> used[2]; };
//   void probe(const ap_uint<KW>& key, probe_t& p) const;
//   bool place(const ap_uint<KW>& key, const P& pay, const probe_t& p, loc_t& at);
//   bool place_or_kick(const ap_uint<KW>& key, const P& pay, const probe_t& p);
//   // erase: if a stash entry moved into the freed slot, returns true with its new location
//   // and payload (an LRU map's node must learn where its index entry now is).
//   bool erase(const loc_t& at, loc_t& moved_to, P& moved_payload);
//   P payload(const loc_t& at) const; void set_payload(const loc_t& at, const P& pay);
//   bool slot(unsigned s, ap_uint<KW>& key, P& pay) const;   // host iteration, s < SLOTS
//   void clear();                                            // BUCKETS iterations, II 1
//   ap_uint<32> count() const, stash_used() const, stash_peak() const;
//   ap_uint<64> collisions() const, overflows() const;
//   void count_overflow();                                   // for wrappers' own refusals
// };
// A static instance starts empty (all-zero storage is the empty state); otherwise call clear().

#ifndef SCENIC_HASH_CORE_HPP
#define SCENIC_HASH_CORE_HPP

#include "scenic_common.hpp"

namespace scenic {

template <int KW, typename P, int BBITS, int WAYS, int STASH, bool CAM>
class hash_core {
  public:
    static const int BUCKETS = 1 << BBITS;
    static const int SLOTS = 2 * BUCKETS * WAYS + STASH;
    static const int MAX_KICKS = 64;
    static const int WAYBITS = clog2<(WAYS > STASH ? WAYS : STASH)>::value < 1
                                   ? 1
                                   : clog2<(WAYS > STASH ? WAYS : STASH)>::value;
    static const int BUCKBITS = BBITS < 1 ? 1 : BBITS;
    static const int LOCW = 2 + BUCKBITS + WAYBITS;

    struct loc_t {
        unsigned where;
        unsigned bucket;
        unsigned way;
        ap_uint<LOCW> pack() const {
            ap_uint<LOCW> v = 0;
            v.range(1, 0) = where;
            v.range(1 + BUCKBITS, 2) = bucket;
            v.range(LOCW - 1, 2 + BUCKBITS) = way;
            return v;
        }
        static loc_t unpack(const ap_uint<LOCW>& v) {
            loc_t l;
            l.where = (unsigned)v.range(1, 0).to_uint();
            l.bucket = (unsigned)v.range(1 + BUCKBITS, 2).to_uint();
            l.way = (unsigned)v.range(LOCW - 1, 2 + BUCKBITS).to_uint();
            return l;
        }
    };

    struct probe_t {
        bool found;
        loc_t at;
        P payload;
        unsigned cand[2];
        ap_uint<WAYS> used[2];
    };

    void probe(const ap_uint<KW>& key, probe_t& p) const {
        bank_pragmas();
        p.found = false;
        p.at.where = 0;
        p.at.bucket = 0;
        p.at.way = 0;
        p.payload = zero<P>();
        for (int b = 0; b < 2; b++) {
#pragma HLS UNROLL
            p.cand[b] = CAM ? 0u : candidate(key, b);
            p.used[b] = CAM ? ap_uint<WAYS>(0) : valid_[b][p.cand[b]];
        }
        if (!CAM) {
            for (int b = 0; b < 2; b++) {
#pragma HLS UNROLL
                for (int w = 0; w < WAYS; w++) {
#pragma HLS UNROLL
                    if (p.used[b][w] && key_[b][w][p.cand[b]] == key) {
                        p.found = true;
                        p.at.where = (unsigned)b;
                        p.at.bucket = p.cand[b];
                        p.at.way = (unsigned)w;
                        p.payload = pay_[b][w][p.cand[b]];
                    }
                }
            }
        }
        for (int s = 0; s < STASH; s++) {
#pragma HLS UNROLL
            if (s_valid_[s] && s_key_[s] == key) {
                p.found = true;
                p.at.where = 2;
                p.at.bucket = 0;
                p.at.way = (unsigned)s;
                p.payload = s_pay_[s];
            }
        }
    }

    // Stores a new key (the caller has probed it and found it absent).
    bool place(const ap_uint<KW>& key, const P& pay, const probe_t& p, loc_t& at) {
        bank_pragmas();
        if (!CAM) {
            int n0 = popcount(p.used[0]);
            int n1 = popcount(p.used[1]);
            int b = -1;
            if (n0 < WAYS && n0 <= n1) {
                b = 0;
            } else if (n1 < WAYS) {
                b = 1;
            }
            if (b >= 0) {
                int w = first_free(p.used[b]);
                put(b, p.cand[b], w, key, pay);
                at.where = (unsigned)b;
                at.bucket = p.cand[b];
                at.way = (unsigned)w;
                count_++;
                return true;
            }
        }
        return to_stash(key, pay, p.cand, at);
    }

    // Host-side insert of a new key with cuckoo moves (exact tables). Returns false (counted in
    // overflows) only when the walk and the stash both fail; the structure is then unchanged.
    bool place_or_kick(const ap_uint<KW>& key, const P& pay, const probe_t& p) {
        loc_t at = p.at;
        if (CAM || popcount(p.used[0]) < WAYS || popcount(p.used[1]) < WAYS) {
            return place(key, pay, p, at);
        }
        // Random walk: the homeless entry evicts a way of its candidate bucket in `bank`; the
        // evicted entry becomes homeless and tries its candidate in the other bank.
        unsigned path_bucket[MAX_KICKS] = {0};
        unsigned path_way[MAX_KICKS] = {0};
        ap_uint<KW> cur_key = key;
        P cur_pay = pay;
        int bank = (int)(next_random() & 1u);
        int steps = 0;
        bool homed = false;
        for (int k = 0; k < MAX_KICKS; k++) {
#pragma HLS PIPELINE off
            unsigned i = candidate(cur_key, bank);
            ap_uint<WAYS> used = valid_[bank][i];
            if (popcount(used) < WAYS) {
                put(bank, i, first_free(used), cur_key, cur_pay);
                homed = true;
                break;
            }
            unsigned w = next_random() % (unsigned)WAYS;
            ap_uint<KW> victim_key = key_[bank][w][i];
            P victim_pay = pay_[bank][w][i];
            key_[bank][w][i] = cur_key;
            pay_[bank][w][i] = cur_pay;
            cur_key = victim_key;
            cur_pay = victim_pay;
            path_bucket[k] = i;
            path_way[k] = w;
            steps = k + 1;
            bank = 1 - bank;
        }
        if (homed) {
            count_++;
            return true;
        }
        // Still one entry without a bucket: the stash, or undo the walk.
        unsigned cand[2];
        cand[0] = candidate(cur_key, 0);
        cand[1] = candidate(cur_key, 1);
        if (to_stash(cur_key, cur_pay, cand, at)) {
            return true;
        }
        for (int k = MAX_KICKS - 1; k >= 0; k--) {
#pragma HLS PIPELINE off
            if (k < steps) {
                bank = 1 - bank;
                unsigned i = path_bucket[k];
                unsigned w = path_way[k];
                ap_uint<KW> back_key = key_[bank][w][i];
                P back_pay = pay_[bank][w][i];
                key_[bank][w][i] = cur_key;
                pay_[bank][w][i] = cur_pay;
                cur_key = back_key;
                cur_pay = back_pay;
            }
        }
        return false;
    }

    bool erase(const loc_t& at, loc_t& moved_to, P& moved_payload) {
        bank_pragmas();
        moved_to = at;
        moved_payload = zero<P>();
        count_--;
        if (at.where == 2) {
            s_valid_[at.way] = false;
            stash_used_--;
            return false;
        }
        const int b = (int)at.where;
        ap_uint<WAYS> used = valid_[b][at.bucket];
        used[at.way] = 0;
        // Stash drain: a stash key whose candidate in this bank is this bucket takes the way.
        int from = -1;
        for (int s = STASH - 1; s >= 0; s--) {
#pragma HLS UNROLL
            if (s_valid_[s] && s_cand_[s][b] == at.bucket) {
                from = s;
            }
        }
        if (from >= 0) {
            key_[b][at.way][at.bucket] = s_key_[from];
            pay_[b][at.way][at.bucket] = s_pay_[from];
            used[at.way] = 1;
            moved_payload = s_pay_[from];
            s_valid_[from] = false;
            stash_used_--;
        }
        valid_[b][at.bucket] = used;
        return from >= 0;
    }

    P payload(const loc_t& at) const {
        if (at.where == 2) {
            return s_pay_[at.way];
        }
        return pay_[at.where][at.way][at.bucket];
    }

    void set_payload(const loc_t& at, const P& pay) {
        if (at.where == 2) {
            s_pay_[at.way] = pay;
        } else {
            pay_[at.where][at.way][at.bucket] = pay;
        }
    }

    // Host iteration: slot s in [0, SLOTS): bank-major, then bucket, then way; then the stash.
    bool slot(unsigned s, ap_uint<KW>& key, P& pay) const {
        const unsigned PER_BANK = (unsigned)BUCKETS * (unsigned)WAYS;
        if (s >= 2 * PER_BANK) {
            unsigned j = s - 2 * PER_BANK;
            if (j >= (unsigned)STASH || !s_valid_[j]) {
                return false;
            }
            key = s_key_[j];
            pay = s_pay_[j];
            return true;
        }
        unsigned b = s / PER_BANK;
        unsigned i = (s % PER_BANK) / (unsigned)WAYS;
        unsigned w = s % (unsigned)WAYS;
        if (CAM || !valid_[b][i][w]) {
            return false;
        }
        key = key_[b][w][i];
        pay = pay_[b][w][i];
        return true;
    }

    void clear() {
        bank_pragmas();
        if (!CAM) {
            for (int i = 0; i < BUCKETS; i++) {
#pragma HLS PIPELINE II = 1
                valid_[0][i] = 0;
                valid_[1][i] = 0;
            }
        }
        for (int s = 0; s < STASH; s++) {
#pragma HLS UNROLL
            s_valid_[s] = false;
        }
        count_ = 0;
        stash_used_ = 0;
    }

    ap_uint<32> count() const { return count_; }
    ap_uint<32> stash_used() const { return stash_used_; }
    ap_uint<32> stash_peak() const { return stash_peak_; }
    ap_uint<64> collisions() const { return collisions_; }
    ap_uint<64> overflows() const { return overflows_; }
    void count_overflow() { overflows_++; }

  private:
    // Storage. Banks: one BRAM per (bank, way) array, all ways of a bucket read together (the
    // pragmas below); the stash: registers.
    ap_uint<WAYS> valid_[2][BUCKETS];
    ap_uint<KW> key_[2][WAYS][BUCKETS];
    P pay_[2][WAYS][BUCKETS];
    bool s_valid_[STASH];
    ap_uint<KW> s_key_[STASH];
    P s_pay_[STASH];
    unsigned s_cand_[STASH][2];
    ap_uint<32> count_;
    ap_uint<32> stash_used_;
    ap_uint<32> stash_peak_;
    ap_uint<64> collisions_;
    ap_uint<64> overflows_;
    unsigned rng_;

    void bank_pragmas() const {
#pragma HLS ARRAY_PARTITION variable = valid_ complete dim = 1
#pragma HLS ARRAY_PARTITION variable = key_ complete dim = 1
#pragma HLS ARRAY_PARTITION variable = key_ complete dim = 2
#pragma HLS ARRAY_PARTITION variable = pay_ complete dim = 1
#pragma HLS ARRAY_PARTITION variable = pay_ complete dim = 2
#pragma HLS BIND_STORAGE variable = key_ type = ram_2p impl = bram
#pragma HLS BIND_STORAGE variable = pay_ type = ram_2p impl = bram
#pragma HLS ARRAY_PARTITION variable = s_valid_ complete
#pragma HLS ARRAY_PARTITION variable = s_key_ complete
#pragma HLS ARRAY_PARTITION variable = s_pay_ complete
#pragma HLS ARRAY_PARTITION variable = s_cand_ complete dim = 0
    }

    static unsigned candidate(const ap_uint<KW>& key, int bank) {
        return (unsigned)(index_hash<KW>(key, bank).to_uint() & (unsigned)(BUCKETS - 1));
    }

    static int popcount(const ap_uint<WAYS>& m) {
        int n = 0;
        for (int w = 0; w < WAYS; w++) {
#pragma HLS UNROLL
            n += m[w] ? 1 : 0;
        }
        return n;
    }

    static int first_free(const ap_uint<WAYS>& m) {
        int f = 0;
        for (int w = WAYS - 1; w >= 0; w--) {
#pragma HLS UNROLL
            if (!m[w]) {
                f = w;
            }
        }
        return f;
    }

    void put(int b, unsigned i, int w, const ap_uint<KW>& key, const P& pay) {
        key_[b][w][i] = key;
        pay_[b][w][i] = pay;
        ap_uint<WAYS> used = valid_[b][i];
        used[w] = 1;
        valid_[b][i] = used;
    }

    bool to_stash(const ap_uint<KW>& key, const P& pay, const unsigned cand[2], loc_t& at) {
        int s_free = -1;
        for (int s = STASH - 1; s >= 0; s--) {
#pragma HLS UNROLL
            if (!s_valid_[s]) {
                s_free = s;
            }
        }
        if (s_free < 0) {
            overflows_++;
            return false;
        }
        s_valid_[s_free] = true;
        s_key_[s_free] = key;
        s_pay_[s_free] = pay;
        s_cand_[s_free][0] = cand[0];
        s_cand_[s_free][1] = cand[1];
        at.where = 2;
        at.bucket = 0;
        at.way = (unsigned)s_free;
        count_++;
        stash_used_++;
        if (stash_used_ > stash_peak_) {
            stash_peak_ = stash_used_;
        }
        if (!CAM) {
            collisions_++;
        }
        return true;
    }

    // xorshift32 for the cuckoo walk's victim choice; a zero state (static start) is seeded.
    unsigned next_random() {
        unsigned x = rng_ == 0 ? 0x9E3779B9u : rng_;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        rng_ = x;
        return x;
    }
};

}  // namespace scenic

#endif  // SCENIC_HASH_CORE_HPP
