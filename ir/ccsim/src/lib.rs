//! scenic-ccsim: the congestion-control workbench (issue 13). A deterministic, seeded,
//! packet-level discrete-event simulator of a RoCE-style fabric whose senders are paced by a `cc`
//! program running on the reference interpreter, per flow, exactly as `scenicc test` runs it.
//!
//! - [`scenario`]: the TOML scenario files (and [`units`], their quantities);
//! - [`event`]: the event queue (time in ps, ties in push order) and the seeded generator;
//! - [`fabric`]: switch egress ports (finite buffers, RED/ECN marking) and routes;
//! - [`int`]: in-band network telemetry stamped at egress and echoed to `on int` controllers;
//! - [`host`]: senders (pacing, window, go-back-N) and receivers (ACKs, NACKs, CNPs);
//! - [`control`]: the controllers, one interpreter [`scenic_interp::Machine`] per param set;
//! - [`sim`]: the event loop; [`stats`] and [`report`]: what a run measures and writes.
//!
//! Docs: docs/cc-sim.md. Entry point: [`run`].

#![deny(missing_docs)]

pub mod control;
pub mod event;
pub mod fabric;
pub mod int;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod units;

pub use report::Summary;
pub use scenario::{Scenario, ScenarioError};
pub use sim::{host, stats};

use scenic_ir::Module;

/// What a run produced.
pub struct Outcome {
    /// The figures (`summary.json`).
    pub summary: Summary,
    /// `rates.csv`: per-flow controller output and throughput per sample.
    pub rates_csv: String,
    /// `queue.csv`: bottleneck queue depth and cumulative marks and drops per sample.
    pub queue_csv: String,
}

/// Simulates `scenario` with the cc of `module`; `seed` overrides the scenario's.
pub fn run(
    module: &Module,
    scenario: &Scenario,
    seed: Option<u64>,
) -> Result<Outcome, ScenarioError> {
    let cc = control::Controllers::new(module, scenario)?;
    let seed = seed.unwrap_or(scenario.seed);
    let mut sim = sim::Simulation::new(scenario, cc, seed);
    sim.run();
    let summary = sim.summary();
    Ok(Outcome {
        summary,
        rates_csv: std::mem::take(&mut sim.stats.rates_csv),
        queue_csv: std::mem::take(&mut sim.stats.queue_csv),
    })
}

impl Outcome {
    /// Writes `summary.json`, `rates.csv` and `queue.csv` into `dir`.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<()> {
        report::write(dir, &self.summary, &self.rates_csv, &self.queue_csv)
    }
}
