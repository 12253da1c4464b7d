// scenic_meter.hpp — `meter m: token_bucket[N] rate R burst B;` (docs/language.md §7.13).
//
// Semantics: bit-exact with the interpreter's Bucket (ir/src/interp/state.rs), integer
// arithmetic only. Tokens are kept in units of 1/8e9 byte (byte · bit/s · ns), so refilling by
// elapsed_ns · rate_bps needs no division:
//   capacity = burst · 8e9;  a bucket starts full (tokens = capacity) with no last time.
//   exceeds(i, len, now_ns):
//     not configured (no rate): false, nothing changes;
//     otherwise: if the bucket has a last time, tokens = min(tokens + (now ∸ last) · rate,
//       capacity) (∸: 0 when now < last); last = max(now, last) (now on first use);
//       then if len · 8e9 > tokens: true (tokens untouched: an exceeding packet takes nothing);
//       else tokens -= len · 8e9, false.
//   i >= N: false (the interpreter ignores a missing bucket; the checker rules it out).
// Configuration: the template gives the declared `rate R burst B` (HAS_RATE = false for a meter
// declared without them: it never exceeds until the host configures it). Host operations:
//   configure(i, rate_bps, burst_bytes)  bucket i becomes Bucket::new(Some(rate), Some(burst)):
//                       the new rate and burst, full, no last time;
//   unconfigure(i)      bucket i becomes Bucket::new(None, None): never exceeds;
//   read(i, has_rate, rate_bps, burst_bytes, tokens)  its configuration and current tokens (in
//                       1/8e9 byte units, as of the last packet that used it);
//   reset_all()         every bucket back to the declared configuration, full (N cycles).
//
// API
// ---
// template <int N, unsigned long long RATE_BPS, unsigned long long BURST_BYTES, bool HAS_RATE,
//           bool REGS = (N <= 16)>
// class scenic::meter {
//   static const int CELLS = N;
//   static const int TOKEN_BITS = 98;        // tokens < 2^64 · 8e9 < 2^97
//   bool exceeds(const ap_uint<32>& i, const ap_uint<64>& len, const ap_uint<64>& now_ns);
//   void configure(const ap_uint<32>& i, const ap_uint<64>& rate_bps,
//                  const ap_uint<64>& burst_bytes);
//   void unconfigure(const ap_uint<32>& i);
//   bool read(const ap_uint<32>& i, bool& has_rate, ap_uint<64>& rate_bps,
//             ap_uint<64>& burst_bytes, ap_uint<TOKEN_BITS>& tokens);
//   void reset_all();
// };
// A `static` instance starts in the declared configuration with every bucket full (all-zero
// storage means "declared configuration, full, never used"); a non-static one must call
// reset_all() first.
//
// Hardware: one record per bucket — flags (host-configured, has rate, used), rate 64, burst 64,
// tokens 98, last time 64 bits = 291 bits — in registers (REGS, N <= 16) or a dual-port BRAM
// (N·291 bits, e.g. 16 buckets: 4.7 Kbit; 1024 buckets: 298 Kbit = 9 BRAM36 wide). exceeds()
// reads the record (2 cycles from BRAM), computes elapsed · rate (a 64x64 multiply, 4 DSP
// cycles, which depends only on the record's last time and the packet's timestamp), adds and
// clamps (129-bit add + compare, 2 cycles), compares with len·8e9 (a constant multiply: shifts
// and adds) and subtracts (1), and writes the record back. As for counters, the last FWD = 3
// written records are forwarded from registers (DEPENDENCE inter false on the BRAM), so packets
// to the same bucket do not wait for the BRAM; the remaining recurrence is tokens -> refill ->
// compare -> tokens (≈ 3 cycles for the 98/129-bit adds) plus the multiply when consecutive
// packets use the same bucket: the timing model's "meter check: BRAM 4 (registers 2)" is the
// latency; consecutive packets on the same bucket can start every ≈ 3–7 cycles. Unconfigured
// meters (HAS_RATE = false, never configured) cost one flag test.

#ifndef SCENIC_METER_HPP
#define SCENIC_METER_HPP

#include "scenic_common.hpp"
#include "scenic_counter.hpp"

namespace scenic {

// One token bucket's record. The all-zero record is "declared configuration, full, unused".
struct meter_cell {
    bool host_set;       // rate/burst below were set by the host (else: the template's)
    bool has_rate;       // host-set configuration has a rate (meaningful when host_set)
    bool used;           // a packet has been metered since the last (re)configuration
    ap_uint<64> rate;    // bit/s (when host_set)
    ap_uint<64> burst;   // bytes (when host_set)
    ap_uint<98> tokens;  // 1/8e9 bytes (when used; an unused bucket is full)
    ap_uint<64> last;    // ns (when used)
};

template <>
struct zero_value<meter_cell> {
    static meter_cell get() {
        meter_cell c;
        c.host_set = false;
        c.has_rate = false;
        c.used = false;
        c.rate = 0;
        c.burst = 0;
        c.tokens = 0;
        c.last = 0;
        return c;
    }
};

template <int N, unsigned long long RATE_BPS, unsigned long long BURST_BYTES, bool HAS_RATE,
          bool REGS = (N <= 16)>
class meter {
  public:
    static const int CELLS = N;
    static const int TOKEN_BITS = 98;
    static const int FWD = 3;

    bool exceeds(const ap_uint<32>& i, const ap_uint<64>& len, const ap_uint<64>& now_ns) {
        if (i >= (unsigned)N) {
            return false;
        }
        unsigned idx = (unsigned)i.to_uint();
        meter_cell c = load(idx);
        bool has_rate = c.host_set ? c.has_rate : HAS_RATE;
        if (!has_rate) {
            return false;
        }
        ap_uint<64> rate = c.host_set ? c.rate : ap_uint<64>(RATE_BPS);
        ap_uint<64> burst = c.host_set ? c.burst : ap_uint<64>(BURST_BYTES);
        ap_uint<98> capacity = ap_uint<98>(burst) * ap_uint<98>(SCALE);
        ap_uint<98> tokens = capacity;
        ap_uint<64> last = now_ns;
        if (c.used) {
            ap_uint<64> elapsed = now_ns > c.last ? ap_uint<64>(now_ns - c.last) : ap_uint<64>(0);
            ap_uint<128> refill = ap_uint<128>(elapsed) * ap_uint<128>(rate);
            ap_uint<130> sum = ap_uint<130>(c.tokens) + ap_uint<130>(refill);
            tokens = sum > ap_uint<130>(capacity) ? capacity : ap_uint<98>(sum);
            last = now_ns > c.last ? now_ns : c.last;
        }
        ap_uint<98> cost = ap_uint<98>(len) * ap_uint<98>(SCALE);
        bool over = cost > tokens;
        c.used = true;
        c.last = last;
        c.tokens = over ? tokens : ap_uint<98>(tokens - cost);
        store(idx, c);
        return over;
    }

    void configure(const ap_uint<32>& i, const ap_uint<64>& rate_bps,
                   const ap_uint<64>& burst_bytes) {
        if (i >= (unsigned)N) {
            return;
        }
        meter_cell c = zero<meter_cell>();
        c.host_set = true;
        c.has_rate = true;
        c.rate = rate_bps;
        c.burst = burst_bytes;
        store((unsigned)i.to_uint(), c);
    }

    void unconfigure(const ap_uint<32>& i) {
        if (i >= (unsigned)N) {
            return;
        }
        meter_cell c = zero<meter_cell>();
        c.host_set = true;
        store((unsigned)i.to_uint(), c);
    }

    bool read(const ap_uint<32>& i, bool& has_rate, ap_uint<64>& rate_bps,
              ap_uint<64>& burst_bytes, ap_uint<TOKEN_BITS>& tokens) {
        has_rate = false;
        rate_bps = 0;
        burst_bytes = 0;
        tokens = 0;
        if (i >= (unsigned)N) {
            return false;
        }
        meter_cell c = load((unsigned)i.to_uint());
        has_rate = c.host_set ? c.has_rate : HAS_RATE;
        rate_bps = c.host_set ? c.rate : ap_uint<64>(RATE_BPS);
        burst_bytes = c.host_set ? c.burst : ap_uint<64>(BURST_BYTES);
        tokens = c.used ? c.tokens : ap_uint<98>(ap_uint<98>(burst_bytes) * ap_uint<98>(SCALE));
        return true;
    }

    void reset_all() {
        for (int i = 0; i < N; i++) {
#pragma HLS PIPELINE II = 1
            cells_.write((unsigned)i, zero<meter_cell>());
        }
        fwd_.reset();
    }

  private:
    static const unsigned long long SCALE = 8000000000ULL;  // bytes * 8 bits * 1e9 ns/s
    cells<meter_cell, N, REGS> cells_;
    forward_regs<meter_cell, FWD> fwd_;

    meter_cell load(unsigned idx) const {
#pragma HLS DEPENDENCE variable = cells_ inter false
        meter_cell c = cells_.read(idx);
        if (!REGS) {
            meter_cell recent = c;
            if (fwd_.find(idx, recent)) {
                c = recent;
            }
        }
        return c;
    }

    void store(unsigned idx, const meter_cell& c) {
        cells_.write(idx, c);
        if (!REGS) {
            fwd_.push(idx, c);
        }
    }
};

}  // namespace scenic

#endif  // SCENIC_METER_HPP
