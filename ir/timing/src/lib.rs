//! scenic-timing: timing analysis of the IR, on the core alone. Timing analysis: estimated latency and initiation interval (II) of every body, and the cycle
//! budget check of congestion-controller handlers.
//!
//! The NIC moves 512 bits per cycle at 391 MHz, 200 Gb/s. A packet of `s` bytes occupies the wire for
//! `s·8 / line_rate` seconds, so at line rate a stage has `⌊s·8 / line_rate · clock⌋` cycles for it
//! ([`Options::budget_cycles`]): 65 cycles for a full-size RoCE packet (4178 B: 167.12 ns × 391 MHz =
//! 65.3), but only 1 cycle for a 64 B packet. That is why every per-packet stage must accept a packet
//! every cycle (II = 1), while a congestion controller, which sees at most one event per packet,
//! has the budget of a full packet (`cc … budget 65 cycles`).
//!
//! The analysis schedules each body ASAP over the cost model of [`cost`] (operations start when their
//! operands are ready; `docs/timing.md` lists the scheduling rules), which gives:
//!
//! - the **latency**: the cycle at which the last effect of the body is done;
//! - the **II**: 1, unless a stateful object (a CSR the program writes, a map, a cc's per-flow state)
//!   is read and written back with a dependency chain of more than one cycle in between, so the next
//!   packet, word or event has to wait for the write (the recurrence bound of modulo scheduling);
//! - the **critical path**: the operations that decided the latency, with their spans and cycles.
//!
//! These are ESTIMATES, not synthesis results: the HLS backend requests the matching pragmas and Vitis
//! HLS reports the real figures. The model and its reasons are in `docs/timing.md`.

#![deny(missing_docs)]

mod analysis;
mod budget;
pub mod cost;
mod expr;
mod parser;
mod report;
mod schedule;
mod stmt;
mod time;

pub use analysis::analyze;
pub use budget::{budget_errors, check_budgets, TimingError};
pub use report::{BodyKind, BodyTiming, CostlyOp, IiLimit, TimingNote, TimingReport};

use serde::{Deserialize, Serialize};

/// The hardware the estimates are for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// The kernel clock in MHz (SCENIC: 391).
    pub clock_mhz: f64,
    /// The datapath width in bits: one beat per cycle (512).
    pub datapath_bits: u32,
    /// The line rate in bit/s (200 Gb/s).
    pub line_rate_bps: u64,
    /// The largest packet in bytes (a full-size RoCE packet: 4178).
    pub mtu_bytes: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            clock_mhz: 391.0,
            datapath_bits: 512,
            line_rate_bps: 200_000_000_000,
            mtu_bytes: 4178,
        }
    }
}

impl Options {
    /// One clock cycle in ns (2.558 ns at 391 MHz).
    pub fn cycle_ns(&self) -> f64 {
        1000.0 / self.clock_mhz
    }

    /// How long a packet of `bytes` bytes occupies the wire at line rate, in ns.
    pub fn packet_ns(&self, bytes: u64) -> f64 {
        bytes as f64 * 8.0 * 1e9 / self.line_rate_bps as f64
    }

    /// Cycles available per packet of `bytes` bytes at line rate: `⌊bytes·8 / line_rate · clock⌋`
    /// (4178 B: 65; 64 B: 1). 0 for nonsensical options.
    pub fn budget_cycles(&self, bytes: u64) -> u64 {
        let cycles = self.packet_ns(bytes) * self.clock_mhz / 1000.0;
        if cycles.is_finite() && cycles > 0.0 {
            // The epsilon keeps an exact whole number of cycles from rounding down.
            (cycles + 1e-9).floor() as u64
        } else {
            0
        }
    }

    /// Cycles available per MTU-size packet: the budget of a congestion controller.
    pub fn mtu_budget(&self) -> u64 {
        self.budget_cycles(u64::from(self.mtu_bytes))
    }

    /// Beats (datapath words) a packet of `bytes` bytes takes.
    pub fn beats(&self, bytes: u64) -> u64 {
        bytes
            .saturating_mul(8)
            .div_ceil(u64::from(self.datapath_bits.max(1)))
    }

    /// The datapath's own rate in bit/s (512 × 391 MHz = 200.2 Gb/s, just above the line rate).
    pub fn datapath_bps(&self) -> f64 {
        f64::from(self.datapath_bits) * self.clock_mhz * 1e6
    }

    /// The smallest packet, in bytes, whose wire time leaves at least `ii` cycles: a stage with this
    /// II keeps line rate for packets at least this big (64 B for II 1 at the defaults).
    pub fn line_rate_min_bytes(&self, ii: u32) -> u64 {
        let per_byte = 8.0 * self.clock_mhz * 1e6 / self.line_rate_bps as f64;
        if !per_byte.is_finite() || per_byte <= 0.0 {
            return u64::MAX;
        }
        let mut bytes = (f64::from(ii) / per_byte).ceil() as u64;
        for _ in 0..16 {
            if self.budget_cycles(bytes) >= u64::from(ii) {
                break;
            }
            bytes += 1;
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_budget() {
        let o = Options::default();
        assert!((o.packet_ns(4178) - 167.12).abs() < 1e-9);
        assert_eq!(o.budget_cycles(4178), 65);
        assert_eq!(o.mtu_budget(), 65);
        assert_eq!(o.budget_cycles(64), 1);
        assert_eq!(o.beats(64), 1);
        assert_eq!(o.beats(4178), 66);
        assert_eq!(o.line_rate_min_bytes(1), 64);
        assert_eq!(o.line_rate_min_bytes(5), 320);
        assert!(o.datapath_bps() >= o.line_rate_bps as f64);
    }

    #[test]
    fn nonsense_options_do_not_panic() {
        let o = Options {
            clock_mhz: 0.0,
            datapath_bits: 0,
            line_rate_bps: 0,
            mtu_bytes: 0,
        };
        assert_eq!(o.budget_cycles(64), 0);
        assert_eq!(o.beats(64), 512);
        assert_eq!(o.line_rate_min_bytes(1), u64::MAX);
    }
}
