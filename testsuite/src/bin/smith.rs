//! `smith`: scenic-smith's command line. Generates the programs of a range of seeds, compares
//! them on the chosen backends, minimises and writes every finding, and prints one line per
//! finding and a final `N programs, N mismatches` line; exit 1 on any finding.
//!
//! `smith --seeds A..B [--backends interp,passes] [--stats] [--out DIR] [--no-minimize] [--show]`

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
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seeds: 0..100,
        backends: vec![Backend::Interp, Backend::Passes],
        stats: false,
        out: PathBuf::from("smith-out"),
        minimize: true,
        show: false,
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
            "--out" => args.out = PathBuf::from(it.next().ok_or("--out needs a directory")?),
            "-h" | "--help" => {
                return Err("usage: smith --seeds A..B [--backends interp,passes] [--stats] [--out DIR] [--no-minimize] [--show]".into())
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
    let start = Instant::now();
    let mut stats = smith::stats::Stats::default();
    let (mut programs, mut findings, mut unchecked) = (0u64, 0u64, 0u64);
    for seed in args.seeds.clone() {
        if seed % 1000 == 0 {
            eprintln!("[{:.0} s] seed {seed}", start.elapsed().as_secs_f64());
        }
        let began = Instant::now();
        let report = smith::run_seed(seed, &args.backends);
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
    let (source, ops) = if args.minimize {
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
            println!("--- STF\n{}", t.stf_text().join("\n"));
            println!("--- transcript\n{}", t.lines.join("\n"));
        }
    }
}
