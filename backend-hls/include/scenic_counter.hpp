// scenic_counter.hpp — `counter c: packets|bytes|packets_and_bytes[N];` (docs/language.md §7.12).
//
// Semantics: exactly the interpreter (ir/src/interp/effects.rs `count`, runtime.rs CounterCell):
// each cell has a 64-bit packet count and a 64-bit byte count, both starting at 0;
//   count(i, len)  i < N: packets += 1 unless KIND == COUNT_BYTES, bytes += len unless
//                  KIND == COUNT_PACKETS (both wrap modulo 2^64); i >= N: nothing (the checker
//                  makes that impossible; the interpreter ignores it too).
// `len` is the packet's length in bytes (packet.len).
// Host operations: read(i, packets, bytes) (false and zeros for i >= N), clear(i) (both counts
// to 0), clear_all() (N cycles).
//
// API
// ---
// enum { COUNT_PACKETS = 1, COUNT_BYTES = 2, COUNT_PACKETS_AND_BYTES = 3 };
// template <int N, int KIND, bool REGS = (N <= 16)>
// class scenic::counter {
//   static const int CELLS = N;
//   void count(const ap_uint<32>& i, const ap_uint<64>& len);
//   bool read(const ap_uint<32>& i, ap_uint<64>& packets, ap_uint<64>& bytes);
//   void clear(const ap_uint<32>& i);
//   void clear_all();
// };
// A `static` instance starts at zero; a non-static one must call clear_all() first.
//
// Hardware: one 128-bit cell per index (64 for a packets-only or bytes-only counter): registers
// when REGS (N <= 16), else a dual-port BRAM. count() is a read-modify-write: read (2 cycles
// from BRAM), one 64-bit add (1), write (1). So that back-to-back packets hitting the same cell
// do not wait for the write (II would be 4), the last FWD = 3 writes are kept in registers and
// a read takes the newest matching one instead of the BRAM's (a forwarding register file,
// `DEPENDENCE inter false` on the BRAM: the forwarding covers every write still in flight). The
// only recurrence left is the 64-bit add itself: II 1 — the timing model's "counter update:
// registers 1, BRAM 3, never limits II". Memory: N·128 (or N·64) bits + 3·(32 + 128) registers.

#ifndef SCENIC_COUNTER_HPP
#define SCENIC_COUNTER_HPP

#include "scenic_common.hpp"

namespace scenic {

enum { COUNT_PACKETS = 1, COUNT_BYTES = 2, COUNT_PACKETS_AND_BYTES = 3 };

// One counter cell.
struct counter_cell {
    ap_uint<64> packets;
    ap_uint<64> bytes;
};

template <>
struct zero_value<counter_cell> {
    static counter_cell get() {
        counter_cell c;
        c.packets = 0;
        c.bytes = 0;
        return c;
    }
};

// The last FWD writes to a BRAM array, newest first, so a read issued before an earlier write
// has landed still sees it. Correct for any access pattern: writes go to the BRAM and here.
template <typename T, int FWD>
struct forward_regs {
    bool valid[FWD];
    unsigned index[FWD];
    T value[FWD];

    // Returns true (with the newest value written to `i`) when a recent write matches.
    bool find(unsigned i, T& out) const {
#pragma HLS ARRAY_PARTITION variable = valid complete
#pragma HLS ARRAY_PARTITION variable = index complete
#pragma HLS ARRAY_PARTITION variable = value complete
        bool hit = false;
        for (int f = FWD - 1; f >= 0; f--) {
#pragma HLS UNROLL
            if (valid[f] && index[f] == i) {
                out = value[f];
                hit = true;
            }
        }
        return hit;
    }

    void push(unsigned i, const T& v) {
        for (int f = FWD - 1; f > 0; f--) {
#pragma HLS UNROLL
            valid[f] = valid[f - 1];
            index[f] = index[f - 1];
            value[f] = value[f - 1];
        }
        valid[0] = true;
        index[0] = i;
        value[0] = v;
    }

    void reset() {
        for (int f = 0; f < FWD; f++) {
#pragma HLS UNROLL
            valid[f] = false;
            index[f] = 0;
        }
    }
};

template <int N, int KIND, bool REGS = (N <= 16)>
class counter {
  public:
    static const int CELLS = N;
    static const int FWD = 3;

    void count(const ap_uint<32>& i, const ap_uint<64>& len) {
        if (i >= (unsigned)N) {
            return;
        }
        unsigned idx = (unsigned)i.to_uint();
        counter_cell c = load(idx);
        if (KIND != COUNT_BYTES) {
            c.packets = c.packets + 1;
        }
        if (KIND != COUNT_PACKETS) {
            c.bytes = c.bytes + len;
        }
        store(idx, c);
    }

    bool read(const ap_uint<32>& i, ap_uint<64>& packets, ap_uint<64>& bytes) {
        if (i >= (unsigned)N) {
            packets = 0;
            bytes = 0;
            return false;
        }
        counter_cell c = load((unsigned)i.to_uint());
        packets = c.packets;
        bytes = c.bytes;
        return true;
    }

    void clear(const ap_uint<32>& i) {
        if (i < (unsigned)N) {
            store((unsigned)i.to_uint(), zero<counter_cell>());
        }
    }

    void clear_all() {
        for (int i = 0; i < N; i++) {
#pragma HLS PIPELINE II = 1
            cells_.write((unsigned)i, zero<counter_cell>());
        }
        fwd_.reset();
    }

  private:
    cells<counter_cell, N, REGS> cells_;
    forward_regs<counter_cell, FWD> fwd_;

    counter_cell load(unsigned idx) const {
#pragma HLS DEPENDENCE variable = cells_ inter false
        counter_cell c = cells_.read(idx);
        if (!REGS) {
            counter_cell recent = c;
            if (fwd_.find(idx, recent)) {
                c = recent;
            }
        }
        return c;
    }

    void store(unsigned idx, const counter_cell& c) {
        cells_.write(idx, c);
        if (!REGS) {
            fwd_.push(idx, c);
        }
    }
};

}  // namespace scenic

#endif  // SCENIC_COUNTER_HPP
