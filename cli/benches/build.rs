//! `scenicc build` of every example, end to end (the release binary, a fresh process per run, as a
//! user types it): the figures for the target of under 200 ms per example.
//!
//! `cargo bench -p scenicc --bench build` prints, per example, the fastest, median and slowest of
//! 15 runs, and exits 1 if a median is over the budget.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 15;
const BUDGET: Duration = Duration::from_millis(200);

fn main() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut names: Vec<String> = std::fs::read_dir(&examples)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sn"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let out = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => {
            eprintln!("error: cannot make a temporary directory: {err}");
            std::process::exit(2);
        }
    };
    println!("scenicc build, {RUNS} runs each (fresh process per run; ms)");
    println!(
        "{:<18} {:>8} {:>8} {:>8}",
        "example", "min", "median", "max"
    );
    let mut over = Vec::new();
    for name in &names {
        let mut times = Vec::with_capacity(RUNS);
        for run in 0..RUNS {
            let target = out.path().join(format!("{name}.{run}"));
            let start = Instant::now();
            let status = Command::new(env!("CARGO_BIN_EXE_scenicc"))
                .arg("-q")
                .arg(examples.join(name))
                .arg("-o")
                .arg(&target)
                .status();
            let elapsed = start.elapsed();
            if !status.is_ok_and(|s| s.success()) {
                eprintln!("error: scenicc build {name} failed");
                std::process::exit(1);
            }
            times.push(elapsed);
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let median = times[RUNS / 2];
        println!(
            "{name:<18} {:>8.1} {:>8.1} {:>8.1}",
            ms(times[0]),
            ms(median),
            ms(times[RUNS - 1])
        );
        if median > BUDGET {
            over.push(name.clone());
        }
    }
    if !over.is_empty() {
        eprintln!(
            "error: over the {} ms budget: {}",
            BUDGET.as_millis(),
            over.join(", ")
        );
        std::process::exit(1);
    }
    println!("all under {} ms", BUDGET.as_millis());
}
