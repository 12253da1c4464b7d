//! `scenicc cc-sim PROGRAM.sn --scenario S.toml --out DIR [--seed N]`: simulate a congestion
//! controller on a RoCE-style fabric (crate `scenic-ccsim`, docs/cc-sim.md).
//!
//! The program is compiled as `scenicc test` compiles it; its cc runs per flow on the reference
//! interpreter. Writes `DIR/summary.json`, `DIR/rates.csv` and `DIR/queue.csv` and prints a short
//! summary. Exit 0 on success, 1 when the program or the scenario has errors (a scenario error names
//! the file, line and column), 2 on usage or I/O problems.

use crate::compile;
use crate::output::{print_stdout, Level, Output};
use crate::{EXIT_ERRORS, EXIT_USAGE};
use scenic_ccsim::Scenario;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `scenicc cc-sim`.
#[derive(Debug, clap::Args)]
pub struct CcSimArgs {
    /// The program: a `.sn` file with a `cc`.
    #[arg(value_name = "PROGRAM.sn")]
    pub file: PathBuf,
    /// The scenario (TOML, docs/cc-sim.md).
    #[arg(long, value_name = "S.toml")]
    pub scenario: PathBuf,
    /// The directory for summary.json and the CSVs (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The random seed (RED marking); overrides the scenario's `seed`.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// Runs `scenicc cc-sim`.
pub fn run(args: &CcSimArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let text = match std::fs::read_to_string(&args.scenario) {
        Ok(text) => text,
        Err(err) => {
            let path = args.scenario.display();
            output.message(Level::Error, &format!("cannot read `{path}`: {err}"));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let scenario = match Scenario::parse(&args.scenario.display().to_string(), &text) {
        Ok(scenario) => scenario,
        Err(err) => {
            output.message(Level::Error, &err.to_string());
            return ExitCode::from(EXIT_ERRORS);
        }
    };
    let module = match compile::lower(&args.file, output, deny_warnings) {
        Ok(module) => module,
        Err(code) => return code,
    };
    output.progress(&format!("simulating {}", scenario.name));
    let started = std::time::Instant::now();
    let outcome = match scenic_ccsim::run(&module, &scenario, args.seed) {
        Ok(outcome) => outcome,
        Err(err) => {
            output.message(Level::Error, &err.to_string());
            return ExitCode::from(EXIT_ERRORS);
        }
    };
    let wall = started.elapsed();
    if let Err(err) = outcome.write(&args.out) {
        let dir = args.out.display();
        output.message(Level::Error, &format!("cannot write into `{dir}`: {err}"));
        return ExitCode::from(EXIT_USAGE);
    }
    let events = outcome.summary.events;
    let rate = events as f64 / wall.as_secs_f64().max(1e-9);
    print_stdout(&outcome.summary.text());
    print_stdout(&format!(
        "wrote {}/summary.json, rates.csv, queue.csv ({:.2} s wall, {:.1} M events/s)\n",
        args.out.display(),
        wall.as_secs_f64(),
        rate / 1e6
    ));
    ExitCode::SUCCESS
}
