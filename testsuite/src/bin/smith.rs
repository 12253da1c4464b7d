//! `smith`: scenic-smith's command line. Generates the programs of a range of seeds, compares
//! them on the chosen backends, minimises and writes every finding, and prints one line per
//! finding and a final `N programs, N mismatches` line; exit 1 on any finding.
//!
//! `smith --seeds A..B [--backends interp,passes,p4,hls-csim] [--timeout SECS] [--jobs N]
//! [--stats] [--out DIR] [--no-minimize] [--show]`
//!
//! Seeds run in a worker process (this binary with the hidden `--worker`, `smith::worker`) so that
//! a seed taking longer than `--timeout` (default 60 s) is killed and reported as a finding
//! (`seed N: timeout after S s in STAGE`) while the campaign goes on; `--timeout 0` runs the seeds
//! in this process with no timeout. With `hls-csim`, `--jobs N` (default 2) threads of this process
//! compile the kernels of the next seeds into the C-simulation build cache while the current one
//! runs (`smith::csim_batch`); `--jobs 0` compiles each where it runs.

use scenic_testsuite::smith::worker::{Pool, SeedLine};
use scenic_testsuite::smith::{self, Backend};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: smith --seeds A..B [--backends interp,passes,p4,hls-csim] [--timeout SECS] [--jobs N] [--stats] [--out DIR] [--no-minimize] [--show]";

struct Args {
    seeds: std::ops::Range<u64>,
    backends: Vec<Backend>,
    /// `--backends` as given, for the worker's command line.
    backends_arg: String,
    stats: bool,
    out: PathBuf,
    minimize: bool,
    show: bool,
    /// Seconds per seed; 0: no worker, no timeout.
    timeout: u64,
    /// The hidden worker mode: seeds on stdin, answers on stdout.
    worker: bool,
    /// Threads compiling hls-csim kernels ahead.
    jobs: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seeds: 0..100,
        backends: vec![Backend::Interp, Backend::Passes],
        backends_arg: "interp,passes".into(),
        stats: false,
        out: PathBuf::from("smith-out"),
        minimize: true,
        show: false,
        timeout: 60,
        worker: false,
        jobs: 2,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seeds" => {
                let v = it.next().ok_or("--seeds needs A..B")?;
                let (a, b) = v.split_once("..").ok_or("--seeds takes A..B")?;
                let a: u64 = a.parse().map_err(|_| format!("bad seed `{a}`"))?;
                let b: u64 = b.parse().map_err(|_| format!("bad seed `{b}`"))?;
                args.seeds = a..b;
            }
            "--backends" => {
                let v = it.next().ok_or("--backends needs a list")?;
                args.backends = v
                    .split(',')
                    .map(|b| Backend::parse(b.trim()))
                    .collect::<Result<_, _>>()?;
                args.backends_arg = v;
            }
            "--timeout" => {
                let v = it.next().ok_or("--timeout needs seconds")?;
                args.timeout = v.parse().map_err(|_| format!("bad --timeout `{v}`"))?;
            }
            "--jobs" => {
                let v = it.next().ok_or("--jobs needs a number")?;
                args.jobs = v.parse().map_err(|_| format!("bad --jobs `{v}`"))?;
            }
            "--stats" => args.stats = true,
            "--no-minimize" => args.minimize = false,
            "--show" => args.show = true,
            "--worker" => args.worker = true,
            "--out" => args.out = PathBuf::from(it.next().ok_or("--out needs a directory")?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    // Panics are findings, reported with their message: keep the default hook's noise out.
    std::panic::set_hook(Box::new(|_| {}));
    if args.worker {
        smith::worker::serve(&mut |seed, stage| process_seed(&args, seed, stage));
        return ExitCode::SUCCESS;
    }
    campaign(&args)
}

/// Runs the seeds (in a worker unless `--timeout 0`), prints the findings and the totals.
fn campaign(args: &Args) -> ExitCode {
    let prebuilder = match csim_prebuilder(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let mut stats = smith::stats::Stats::default();
    let mut outcomes = smith::stats::Stats::default();
    let (mut programs, mut findings, mut unchecked) = (0u64, 0u64, 0u64);
    let mut pool = (args.timeout > 0).then(|| Pool::new(worker_args(args)));
    for seed in args.seeds.clone() {
        if seed % 1000 == 0 {
            eprintln!("[{:.0} s] seed {seed}", start.elapsed().as_secs_f64());
        }
        if args.show {
            show(&smith::generate(seed));
        }
        if let Some(p) = &prebuilder {
            p.wait_for(seed);
        }
        let began = Instant::now();
        let answer = match pool.as_mut() {
            Some(pool) => pool.run(seed, Duration::from_secs(args.timeout)),
            None => Ok(process_seed(args, seed, &mut |_| {})),
        };
        let took = began.elapsed().as_secs_f64();
        if took > 2.0 {
            eprintln!("seed {seed} took {took:.1} s");
        }
        let answer = match answer {
            Ok(a) => a,
            Err(stuck) => {
                println!("{}", stuck.describe(seed));
                programs += 1;
                findings += 1;
                continue;
            }
        };
        stats.merge(&answer.stats);
        outcomes.merge(&answer.outcomes);
        if let Some(line) = &answer.line {
            println!("{line}");
        }
        if !answer.checked {
            unchecked += 1;
            continue;
        }
        programs += 1;
        findings += u64::from(answer.finding);
    }
    let secs = start.elapsed().as_secs_f64();
    if args.stats {
        println!("{}", stats.table());
    }
    if args.backends.contains(&Backend::P4) {
        print_p4(&outcomes);
    }
    if args.backends.contains(&Backend::HlsCsim) {
        print_csim(&outcomes);
    }
    println!(
        "{} generator bugs (programs that did not check); {:.1} s, {:.1} programs/s",
        unchecked,
        secs,
        programs as f64 / secs.max(1e-9)
    );
    println!("{programs} programs, {findings} mismatches");
    if findings > 0 || unchecked > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The worker's command line: the options that decide what a seed does.
fn worker_args(args: &Args) -> Vec<String> {
    let mut v = vec![
        "--worker".to_string(),
        "--backends".into(),
        args.backends_arg.clone(),
        "--out".into(),
        args.out.display().to_string(),
    ];
    if !args.minimize {
        v.push("--no-minimize".into());
    }
    v
}

/// One seed, start to end: run, write a generator bug's program or a finding's reproduction.
fn process_seed(args: &Args, seed: u64, stage: &mut dyn FnMut(&str)) -> SeedLine {
    let report = smith::run_seed_staged(seed, &args.backends, stage);
    let mut answer = SeedLine {
        checked: report.check_error.is_none(),
        stats: report.case.stats.clone(),
        outcomes: report.outcomes.clone(),
        ..SeedLine::default()
    };
    if let Some(why) = &report.not_expressible {
        // Stats travel from the worker as `key=count` words: no blanks or `=` in a key.
        let key: String = why
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("_")
            .replace('=', ":");
        answer
            .outcomes
            .hit_owned(format!("hls-csim.not-expressible.{key}"));
    }
    if let Some(diags) = &report.check_error {
        let first = diags.lines().find(|l| l.starts_with("error")).unwrap_or("");
        let path = args.out.join(format!("unchecked-{seed}.sn"));
        let _ = std::fs::create_dir_all(&args.out);
        let _ = std::fs::write(
            &path,
            format!("{}\n/*\n{diags}*/\n", report.case.program.source),
        );
        answer.line = Some(format!(
            "seed {seed}: generator bug, the program does not check: {first} ({})",
            path.display()
        ));
        return answer;
    }
    if let Some(f) = report.findings.first() {
        stage(&format!("minimize ({})", f.describe()));
        answer.finding = true;
        answer.line = Some(report_finding(args, seed, &report, f));
    }
    answer
}

/// Minimises and writes the seed's first finding (the others are usually the same bug seen
/// through `all` and the pass alone); returns its line.
fn report_finding(
    args: &Args,
    seed: u64,
    report: &smith::SeedReport,
    f: &smith::Finding,
) -> String {
    let (source, ops) = if args.minimize {
        smith::minimize::minimize(&report.case, f, 3000)
    } else {
        (report.case.program.source.clone(), report.case.ops.clone())
    };
    let repro = smith::reproduction(&report.case, seed, f, &source, &ops);
    let written = write(&args.out, seed, &repro);
    format!(
        "seed {seed}: {} ({} more findings){}{}",
        f.describe().replace('\n', " "),
        report.findings.len() - 1,
        written,
        if repro.stf_reproduces {
            ""
        } else {
            " [the STF alone does not show it]"
        }
    )
}

/// The P4 outcomes: per target, programs compared and not P4-expressible (by code).
fn print_p4(outcomes: &smith::stats::Stats) {
    for t in smith::p4::TARGETS {
        let n = |what: &str| outcomes.count(&format!("p4.{}.{what}", t.name()));
        let prefix = format!("p4.{}.not-expressible.", t.name());
        let codes: Vec<String> = outcomes
            .iter()
            .filter_map(|(k, v)| Some(format!("{} {v}", k.strip_prefix(&prefix)?)))
            .collect();
        println!(
            "p4 {}: {} compared, {} not P4-expressible ({}); of those, {} compared by their P4-expressible part ({} without one); {} findings",
            t.name(),
            n("compared"),
            n("not-expressible"),
            codes.join(", "),
            n("projected.compared"),
            n("projection-failed"),
            n("finding")
        );
    }
}

/// The hls-csim outcomes: programs the HLS backend refused, by the shape of the refusal.
fn print_csim(outcomes: &smith::stats::Stats) {
    let prefix = "hls-csim.not-expressible.";
    for (k, v) in outcomes.iter() {
        if let Some(why) = k.strip_prefix(prefix) {
            println!(
                "{v} programs not expressible on hls-csim: {}",
                why.replace('_', " ")
            );
        }
    }
}

/// The threads that compile the next seeds' kernels ahead (`--jobs`), with `hls-csim` only; an
/// error when the ap_types headers are missing.
fn csim_prebuilder(args: &Args) -> Result<Option<smith::csim_batch::Prebuilder>, String> {
    if !args.backends.contains(&Backend::HlsCsim) {
        return Ok(None);
    }
    let ap_types = scenic_hls_csim::ap_types(None).map_err(|e| e.to_string())?;
    if args.jobs == 0 {
        return Ok(None);
    }
    let ahead = 2 * args.jobs as u64;
    Ok(Some(smith::csim_batch::Prebuilder::start(
        args.seeds.clone(),
        args.jobs,
        ahead,
        ap_types,
    )))
}

fn write(dir: &std::path::Path, seed: u64, repro: &smith::Reproduction) -> String {
    let sn = dir.join(format!("mismatch-{seed}.sn"));
    let stf = dir.join(format!("mismatch-{seed}.stf"));
    let ok = std::fs::create_dir_all(dir).is_ok()
        && std::fs::write(&sn, &repro.source).is_ok()
        && std::fs::write(&stf, &repro.stf).is_ok()
        && repro
            .p4
            .as_ref()
            .is_none_or(|p4| std::fs::write(dir.join(format!("mismatch-{seed}.p4")), p4).is_ok());
    if ok {
        format!("; written {}", sn.display())
    } else {
        format!("; could not write {}", sn.display())
    }
}

/// `--show`: the program, its inputs as STF and the reference transcript.
fn show(case: &smith::Case) {
    println!("{}", case.program.source);
    if let Ok(module) = smith::lower(&case.program.source) {
        if let Ok(t) = smith::transcript(&module, &module, case, &case.ops, "the reference") {
            println!("--- STF\n{}", t.stf_text().join("\n"));
            println!("--- transcript\n{}", t.lines.join("\n"));
        }
    }
}
