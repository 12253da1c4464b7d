//! scenic-ccsim: the congestion-control workbench (issue 13). A deterministic, seeded,
//! packet-level discrete-event simulator of a RoCE-style fabric whose senders are paced by a `cc`
//! program running on the reference interpreter, per flow, exactly as `scenicc test` runs it.
//!
//! - [`scenario`]: the TOML scenario files (and [`units`], their quantities; [`workload`], flows
//!   drawn from a size distribution);
//! - [`event`]: the event queue (time in ps, ties in push order) and the seeded generator;
//! - [`fabric`]: switch egress ports (finite buffers, RED/ECN marking) and routes;
//! - [`ideal`]: a flow's FCT alone on an empty network (the denominator of its slowdown);
//! - [`int`]: in-band network telemetry stamped at egress and echoed to `on int` controllers;
//! - [`host`]: senders (pacing, window, go-back-N) and receivers (ACKs, NACKs, CNPs);
//! - [`control`]: the controllers, one interpreter [`scenic_interp::Machine`] per param set;
//!   [`dual`]: the standby of a hot swap beside the running one;
//! - [`fairshare`]: max-min fair shares (water-filling);
//! - [`sim`]: the event loop; [`stats`] and [`report`]: what a run measures and writes;
//! - [`plot`]: the plots (SVG, and PNG with a system font).
//!
//! Docs: docs/cc-sim.md. Entry point: [`run`].

#![deny(missing_docs)]

pub mod control;
pub mod dual;
pub mod event;
pub mod fabric;
pub mod fairshare;
pub mod ideal;
pub mod int;
pub mod plot;
pub mod report;
pub mod scenario;
pub mod sim;
pub mod units;
pub mod workload;

pub use report::{Summary, Written};
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
    /// The samples as numbers, for the plots.
    pub series: stats::TimeSeries,
}

/// Simulates `scenario` with the cc of `module`; `seed` overrides the scenario's.
pub fn run(
    module: &Module,
    scenario: &Scenario,
    seed: Option<u64>,
) -> Result<Outcome, ScenarioError> {
    run_with(module, scenario, seed, None, &mut |_| {})
}

/// [`run`], with the controllers swapped mid-run as `swap` says ([`dual`]).
pub fn run_with_swap<'m>(
    module: &'m Module,
    scenario: &Scenario,
    seed: Option<u64>,
    swap: Option<&dual::Swap<'m>>,
) -> Result<Outcome, ScenarioError> {
    run_with(module, scenario, seed, swap, &mut |_| {})
}

/// [`run_with_swap`], telling `progress` the fraction of the simulated time done (0 to 1) every
/// [`sim::PROGRESS_EVERY`] events; `progress` decides whether to show it (the simulator never
/// reads the clock).
pub fn run_with<'m>(
    module: &'m Module,
    scenario: &Scenario,
    seed: Option<u64>,
    swap: Option<&dual::Swap<'m>>,
    progress: &mut dyn FnMut(f64),
) -> Result<Outcome, ScenarioError> {
    let cc = dual::Dual::new(module, scenario, swap)?;
    let seed = seed.unwrap_or(scenario.seed);
    let mut sim = sim::Simulation::new(scenario, cc, seed);
    sim.run_with_progress(progress);
    let summary = sim.summary();
    Ok(Outcome {
        summary,
        rates_csv: std::mem::take(&mut sim.stats.rates_csv),
        queue_csv: std::mem::take(&mut sim.stats.queue_csv),
        series: std::mem::take(&mut sim.stats.series),
    })
}

impl Outcome {
    /// Writes `summary.json`, `rates.csv`, `queue.csv` and the plots ([`plot`]) into `dir`
    /// (created if missing). Without a system font for the PNGs, writes the SVG plots only and
    /// says so in [`Written::warnings`].
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<Written> {
        self.write_with_font(dir, plot::font::system())
    }

    /// [`Outcome::write`] with the PNGs' font given: a registered font's path, or why there is
    /// none (then the PNGs are skipped).
    pub fn write_with_font(
        &self,
        dir: &std::path::Path,
        font: Result<&std::path::Path, &str>,
    ) -> std::io::Result<Written> {
        let mut files = report::write(dir, &self.summary, &self.rates_csv, &self.queue_csv)?;
        files.extend(plot::write(dir, &self.summary, &self.series, font)?);
        let warnings = font.err().map(str::to_string).into_iter().collect();
        Ok(Written { files, warnings })
    }
}
