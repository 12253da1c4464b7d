//! `scenicc cc-sim PROGRAM.sn --scenario S.toml --out DIR [--seed N] [--swap T=OTHER.sn]`: simulate
//! a congestion controller on a RoCE-style fabric (crate `scenic-ccsim`, docs/cc-sim.md); with
//! `--swap`, OTHER's cc runs beside it as a standby and takes over at simulated time T.
//!
//! The program is compiled as `scenicc test` compiles it; its cc runs per flow on the reference
//! interpreter. Writes `DIR/summary.json`, `DIR/rates.csv`, `DIR/queue.csv` and the plots (SVG, and
//! PNG when a system font is found) and prints a short summary listing them. On a terminal, long
//! runs show a progress bar on stderr ([`progress`]). Exit 0 on success, 1 when the program or the scenario has errors (a scenario error names
//! the file, line and column), 2 on usage or I/O problems.

use crate::compile;
use crate::output::{print_stdout, Level, Output};
use crate::{EXIT_ERRORS, EXIT_USAGE};
use scenic_ccsim::dual::Swap;
use scenic_ccsim::{units, Outcome, Scenario, Written};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

mod progress;

/// Arguments of `scenicc cc-sim`.
#[derive(Debug, clap::Args)]
pub struct CcSimArgs {
    /// The program: a `.sn` file with a `cc`.
    #[arg(value_name = "PROGRAM.sn")]
    pub file: PathBuf,
    /// The scenario (TOML, docs/cc-sim.md).
    #[arg(long, value_name = "S.toml")]
    pub scenario: PathBuf,
    /// The directory for summary.json, the CSVs and the plots (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The random seed (RED marking); overrides the scenario's `seed`.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Hot swap: OTHER.sn's cc receives every signal from the start and paces the senders from
    /// simulated time T on (a duration: `5ms`).
    #[arg(long, value_name = "T=OTHER.sn")]
    pub swap: Option<String>,
}

/// `T=OTHER.sn` split into the time (ps) and the program path.
fn parse_swap(arg: &str) -> Result<(u64, PathBuf), String> {
    let Some((at, path)) = arg.split_once('=') else {
        return Err(format!(
            "--swap takes T=OTHER.sn (like `5ms=hpcc.sn`), not `{arg}`"
        ));
    };
    let at = units::parse(units::Kind::Duration, at).map_err(|e| format!("--swap: {e}"))?;
    if path.is_empty() {
        return Err("--swap: no program after `=`".to_string());
    }
    Ok((at, PathBuf::from(path)))
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
    let swap = match args.swap.as_deref().map(parse_swap).transpose() {
        Ok(swap) => swap,
        Err(err) => {
            output.message(Level::Error, &err);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let module = match compile::lower(&args.file, output, deny_warnings) {
        Ok(module) => module,
        Err(code) => return code,
    };
    let other = match &swap {
        Some((_, path)) => match compile::lower(path, output, deny_warnings) {
            Ok(module) => Some(module),
            Err(code) => return code,
        },
        None => None,
    };
    let swap = swap.zip(other.as_ref()).map(|((at, path), module)| Swap {
        at,
        module,
        name: path.display().to_string(),
    });
    output.progress(&format!("simulating {}", scenario.name));
    let started = std::time::Instant::now();
    let outcome = match simulate(&module, &scenario, args.seed, swap.as_ref(), output) {
        Ok(outcome) => outcome,
        Err(err) => {
            output.message(Level::Error, &err.to_string());
            return ExitCode::from(EXIT_ERRORS);
        }
    };
    let wall = started.elapsed();
    let started = std::time::Instant::now();
    let written = match outcome.write(&args.out) {
        Ok(written) => written,
        Err(err) => {
            let dir = args.out.display();
            output.message(Level::Error, &format!("cannot write into `{dir}`: {err}"));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    for warning in &written.warnings {
        output.message(Level::Warning, warning);
    }
    print_stdout(&outcome.summary.text());
    print_stdout(&files_line(
        args,
        &outcome,
        &written,
        wall,
        started.elapsed(),
    ));
    ExitCode::SUCCESS
}

/// Runs the simulation, with a progress bar when one may be drawn.
fn simulate<'m>(
    module: &'m scenic_ir::Module,
    scenario: &Scenario,
    seed: Option<u64>,
    swap: Option<&Swap<'m>>,
    output: &Output,
) -> Result<Outcome, scenic_ccsim::ScenarioError> {
    if !output.progress_bar() {
        return scenic_ccsim::run_with_swap(module, scenario, seed, swap);
    }
    let mut bar = progress::Bar::new(&scenario.name);
    let outcome = scenic_ccsim::run_with(module, scenario, seed, swap, &mut |f| bar.update(f));
    bar.finish();
    outcome
}

/// `wrote DIR: summary.json, rates.csv, ... (S s simulating, M events/s; S s writing)`.
fn files_line(
    args: &CcSimArgs,
    outcome: &Outcome,
    written: &Written,
    simulating: Duration,
    writing: Duration,
) -> String {
    let rate = outcome.summary.events as f64 / simulating.as_secs_f64().max(1e-9);
    format!(
        "wrote {}: {} ({:.2} s simulating, {:.1} M events/s; {:.2} s writing)\n",
        args.out.display(),
        written.files.join(", "),
        simulating.as_secs_f64(),
        rate / 1e6,
        writing.as_secs_f64()
    )
}
