//! `smith`: scenic-smith's command line. Generates the programs of a range of seeds, compares
//! them on the chosen backends, minimises and writes every finding, and prints one line per
//! finding and a final `N programs, N mismatches` line; exit 1 on any finding.
//!
//! `smith --seeds A..B [--backends interp,passes,hls-csim] [--jobs N] [--stats] [--out DIR]
//! [--no-minimize] [--show]`; with `hls-csim`, `--jobs N` (default 2) threads compile the kernels
//! of the seeds ahead while the current one runs (`smith::csim_batch`).

use scenic_testsuite::smith::{self, Backend};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    seeds: std::ops::Range<u64>,
    backends: Vec<Backend>,
    stats: bool,
    out: PathBuf,
    minimize: bool,
    show: bool,
    jobs: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seeds: 0..100,
        backends: vec![Backend::Interp, Backend::Passes],
        stats: false,
        out: PathBuf::from("smith-out"),
        minimize: true,
        show: false,
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
                args.backends = v.split(',').map(|b| Backend::parse(b.trim())).collect::<Result<_, _>>()?;
            }
            "--stats" => args.stats = true,
            "--no-minimize" => args.minimize = false,
            "--show" => args.show = true,
            "--jobs" => {
                let v = it.next().ok_or("--jobs needs a number")?;
                args.jobs = v.parse().map_err(|_| format!("bad --jobs `{v}`"))?;
            }
            "--out" => args.out = PathBuf::from(it.next().ok_or("--out needs a directory")?),
            "-h" | "--help" => {
                return Err("usage: smith --seeds A..B [--backends interp,passes,hls-csim] [--jobs N] [--stats] [--out DIR] [--no-minimize] [--show]".into())
            }
            other => return Err(format!("unknown argument `{other}`")),
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
    let prebuilder = match csim_prebuilder(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut not_expressible = std::collections::BTreeMap::<String, u64>::new();
    let start = Instant::now();
    let mut stats = smith::stats::Stats::default();
    let (mut programs, mut findings, mut unchecked) = (0u64, 0u64, 0u64);
    for seed in args.seeds.clone() {
        if seed % 1000 == 0 {
            eprintln!("[{:.0} s] seed {seed}", start.elapsed().as_secs_f64());
        }
        if let Some(p) = &prebuilder {
            p.wait_for(seed);
        }
        let began = Instant::now();
        let report = smith::run_seed(seed, &args.backends);
        if let Some(why) = &report.not_expressible {
            *not_expressible.entry(why.clone()).or_default() += 1;
        }
        let took = began.elapsed().as_secs_f64();
        if took > 2.0 {
            eprintln!("seed {seed} took {took:.1} s");
        }
        if args.show {
            show(&report);
        }
        stats.merge(&report.case.stats);
        if let Some(diags) = &report.check_error {
            unchecked += 1;
            let first = diags.lines().find(|l| l.starts_with("error")).unwrap_or("");
            let path = args.out.join(format!("unchecked-{seed}.sn"));
            let _ = std::fs::create_dir_all(&args.out);
            let _ = std::fs::write(
                &path,
                format!("{}\n/*\n{diags}*/\n", report.case.program.source),
            );
            println!(
                "seed {seed}: generator bug, the program does not check: {first} ({})",
                path.display()
            );
            continue;
        }
        programs += 1;
        if report_finding(&args, seed, &report) {
            findings += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if args.stats {
        println!("{}", stats.table());
    }
    for (why, n) in &not_expressible {
        println!("{n} programs not expressible on hls-csim: {why}");
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

/// Minimises and writes the seed's first finding (the others are usually the same bug seen
/// through `all` and the pass alone), and prints its line; whether there was one.
fn report_finding(args: &Args, seed: u64, report: &smith::SeedReport) -> bool {
    let Some(f) = report.findings.first() else {
        return false;
    };
    let (source, ops) = if args.minimize && f.variant() == smith::csim::VARIANT {
        // Each candidate program compiles its kernels again: cap the steps and the time.
        let limit = std::time::Duration::from_secs(CSIM_MINIMIZE_SECS);
        smith::minimize::minimize_within(&report.case, f, 400, Some(limit))
    } else if args.minimize {
        smith::minimize::minimize(&report.case, f, 3000)
    } else {
        (report.case.program.source.clone(), report.case.ops.clone())
    };
    let repro = smith::reproduction(&report.case, seed, f, &source, &ops);
    let written = write(&args.out, seed, &repro);
    println!(
        "seed {seed}: {} ({} more findings){}{}",
        f.describe().replace('\n', " "),
        report.findings.len() - 1,
        written,
        if repro.stf_reproduces {
            ""
        } else {
            " [the STF alone does not show it]"
        }
    );
    true
}

/// How long an hls-csim finding's minimisation may take.
const CSIM_MINIMIZE_SECS: u64 = 600;

/// With `hls-csim`, the workers compiling the kernels of the seeds ahead; an error when the
/// ap_types headers are missing (nothing could be compared).
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
        && std::fs::write(&stf, &repro.stf).is_ok();
    if ok {
        format!("; written {}", sn.display())
    } else {
        format!("; could not write {}", sn.display())
    }
}

/// `--show`: the program, its inputs as STF and the reference transcript.
fn show(report: &smith::SeedReport) {
    println!("{}", report.case.program.source);
    if let Ok(module) = smith::lower(&report.case.program.source) {
        if let Ok(t) = smith::transcript(
            &module,
            &module,
            &report.case,
            &report.case.ops,
            "the reference",
        ) {
            println!("--- STF\n{}", t.stf.join("\n"));
            println!("--- transcript\n{}", t.lines.join("\n"));
        }
    }
}
