//! The outputs of a run: `summary.json` ([`Summary`]), the time-series CSVs and the text summary
//! (the plots are [`crate::plot`]'s).
//!
//! Invariant: everything written depends only on the scenario, the program and the seed (no wall
//! time, no addresses, no hash-map order), so one seed gives byte-identical files.

use crate::scenario::TopologyKind;
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// Per-flow figures.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    /// Index in the scenario (after `count` expansion).
    pub id: usize,
    /// Start time.
    pub start_us: f64,
    /// Size, if sized.
    pub size_bytes: Option<u64>,
    /// Mean controller rate while active (rate controllers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_rate_gbps: Option<f64>,
    /// Controller rate at the end (rate controllers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_rate_gbps: Option<f64>,
    /// Mean window while active (window controllers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_window_bytes: Option<f64>,
    /// Window at the end (window controllers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_window_bytes: Option<u64>,
    /// Payload bytes delivered in order.
    pub bytes_delivered: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Payload bytes retransmitted.
    pub bytes_resent: u64,
    /// Delivered payload over the flow's active time.
    pub avg_throughput_gbps: f64,
    /// Delivered payload in the measurement window over its length.
    pub window_throughput_gbps: f64,
    /// Flow completion time, if sized and complete.
    pub fct_us: Option<f64>,
    /// The FCT the flow would have alone on an empty network ([`crate::ideal`]), if sized and
    /// complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_fct_us: Option<f64>,
    /// `fct_us / ideal_fct_us`, if sized and complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<f64>,
    /// CNPs received.
    pub cnps: u64,
    /// NACKs received.
    pub nacks: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// When it stopped sending, if it had a `stop` time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_us: Option<f64>,
    /// Mean |throughput − max-min fair share| / fair share over its settled samples (none if it
    /// had none).
    pub fair_share_error: Option<f64>,
    /// The samples `fair_share_error` averages.
    pub fair_share_samples: u64,
}

/// One bottleneck link's figures over the window.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    /// `S0->S1` (switch to switch), `S0->R` (the incast switch's port to the receiver).
    pub link: String,
    /// Its rate.
    pub rate_gbps: f64,
    /// Wire bytes sent in the window over its capacity.
    pub utilisation: f64,
    /// Time-averaged queue in the window.
    pub queue_avg_bytes: f64,
    /// Largest queue of the run.
    pub queue_max_bytes: u64,
}

/// The hot swap (`--swap T=OTHER.sn`).
#[derive(Clone, Debug, Serialize)]
pub struct SwapSummary {
    /// The requested switch time.
    pub at_us: f64,
    /// When the standby took over (none if the run ended first).
    pub switched_at_us: Option<f64>,
    /// The swap program's cc.
    pub to_cc: String,
    /// The cc pacing the senders at the end.
    pub active_at_end: String,
}

/// Fabric figures.
#[derive(Clone, Debug, Serialize)]
pub struct FabricSummary {
    /// Bottleneck utilisation in the window (wire bytes).
    pub bottleneck_utilisation: f64,
    /// Jain's index of the window throughputs of `jain_flows` (none if no flow qualifies).
    pub jain_fairness: Option<f64>,
    /// The flows active for the whole window.
    pub jain_flows: Vec<usize>,
    /// Time-averaged bottleneck queue in the window.
    pub queue_avg_bytes: f64,
    /// 99th percentile of the queue samples in the window.
    pub queue_p99_bytes: u64,
    /// Largest bottleneck queue of the run.
    pub queue_max_bytes: u64,
    /// Packets dropped (all ports).
    pub drops: u64,
    /// Packets ECN-marked (all ports).
    pub marks: u64,
    /// CNPs sent by receivers.
    pub cnps: u64,
    /// Every bottleneck link (the fields above are the first one's, port 0).
    pub bottlenecks: Vec<LinkSummary>,
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// The controller.
    pub cc: String,
    /// `rate` or `window`.
    pub output: String,
    /// The topology.
    pub topology: TopologyKind,
    /// The seed used.
    pub seed: u64,
    /// Simulated time.
    pub duration_us: f64,
    /// Measurement window start.
    pub window_from_us: f64,
    /// Measurement window end.
    pub window_to_us: f64,
    /// Bottleneck link rate.
    pub bottleneck_rate_gbps: f64,
    /// Per flow.
    pub flows: Vec<FlowSummary>,
    /// The fabric.
    pub fabric: FabricSummary,
    /// Events simulated.
    pub events: u64,
    /// The hot swap, if one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap: Option<SwapSummary>,
}

impl Summary {
    /// A short text summary.
    pub fn text(&self) -> String {
        let mut t = String::new();
        let f = &self.fabric;
        let _ = writeln!(
            t,
            "{}: cc `{}` on {:?}, {} flow(s), {:.0} Gb/s bottleneck, {:.1} us simulated ({} events)",
            self.scenario,
            self.cc,
            self.topology,
            self.flows.len(),
            self.bottleneck_rate_gbps,
            self.duration_us,
            self.events
        );
        let _ = writeln!(
            t,
            "window {:.1}-{:.1} us: utilisation {:.1}%, Jain {}, queue avg {:.0} B p99 {} B max {} B; drops {}, marks {}, CNPs {}",
            self.window_from_us,
            self.window_to_us,
            f.bottleneck_utilisation * 100.0,
            f.jain_fairness.map_or("n/a".to_string(), |j| format!("{j:.3}")),
            f.queue_avg_bytes,
            f.queue_p99_bytes,
            f.queue_max_bytes,
            f.drops,
            f.marks,
            f.cnps
        );
        if f.bottlenecks.len() > 1 {
            for link in &f.bottlenecks {
                let _ = writeln!(
                    t,
                    "  link {}: utilisation {:.1}%, queue avg {:.0} B max {} B",
                    link.link,
                    link.utilisation * 100.0,
                    link.queue_avg_bytes,
                    link.queue_max_bytes
                );
            }
        }
        if let Some(swap) = &self.swap {
            let at = swap
                .switched_at_us
                .map_or("not reached".to_string(), |t| format!("at {t:.1} us"));
            let _ = writeln!(t, "swap `{}` -> `{}`: {at}", self.cc, swap.to_cc);
        }
        for fl in &self.flows {
            let out = match (fl.final_rate_gbps, fl.final_window_bytes) {
                (Some(r), _) => format!(
                    "rate {r:.2} Gb/s (avg {:.2})",
                    fl.avg_rate_gbps.unwrap_or(0.0)
                ),
                (None, Some(w)) => format!(
                    "window {w} B (avg {:.0})",
                    fl.avg_window_bytes.unwrap_or(0.0)
                ),
                (None, None) => String::new(),
            };
            let fct = match (fl.fct_us, fl.slowdown) {
                (Some(f), Some(s)) => format!(", FCT {f:.1} us (slowdown {s:.2})"),
                (Some(f), None) => format!(", FCT {f:.1} us"),
                (None, _) => String::new(),
            };
            let _ = writeln!(
                t,
                "  flow {}: {out}, throughput in window {:.2} Gb/s, {} B delivered{fct}",
                fl.id, fl.window_throughput_gbps, fl.bytes_delivered
            );
        }
        t
    }
}

/// What [`crate::Outcome::write`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The files written into the directory, by name, in the order written.
    pub files: Vec<String>,
    /// Why something was not written (no font for the PNG plots), for the user.
    pub warnings: Vec<String>,
}

/// Writes `summary.json`, `rates.csv` and `queue.csv` into `dir` (created if missing); returns
/// their names.
pub fn write(
    dir: &Path,
    summary: &Summary,
    rates_csv: &str,
    queue_csv: &str,
) -> std::io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("summary.json"), json + "\n")?;
    std::fs::write(dir.join("rates.csv"), rates_csv)?;
    std::fs::write(dir.join("queue.csv"), queue_csv)?;
    Ok(["summary.json", "rates.csv", "queue.csv"]
        .map(String::from)
        .to_vec())
}
