//! Mutation testing of the frontend: every example in `examples/*.sn` is mutated hundreds of ways and
//! every mutant is checked in-process. For each mutant the check must not panic, must terminate, and
//! every diagnostic must be renderable with a real location: each label is a `Loc::File` whose span
//! lies within that file's text, `render_plain` and `json_lines` work, the `-->` line of the plain
//! rendering agrees with the JSON location, and every JSON line has `line >= 1` and `column >= 1`.
//!
//! Mutants are deterministic: the repository's SplitMix64 is seeded from the example's name and the
//! mutant's index, so a failure report (`firewall.sn #123 [SwapLines, InsertBytes]`) is reproducible.
//! Set `SCENIC_MUTANT_DUMP=<dir>` to have failing mutants written to that directory.
//!
//! The mutants run on one worker thread per core. Mutants that may not be UTF-8 go through
//! `add_source_bytes` in a fresh session; of the others, half get a fresh session (`add_source`, as the
//! CLI does) and half replace the text of a session kept across mutants (`set_text`, an incremental
//! check, which also exercises the rebasing of reused chunk results). One incremental check in four is
//! compared with a fresh check of the same text: the diagnostics must be equal.
//!
//! A second test runs fixed nasty inputs (empty file, deep nesting, a 1 MB literal, NUL bytes, ...).
//! Deep nesting can overflow the stack, which aborts the whole process, so each nasty input is checked
//! in a child process (this test binary re-run on `nasty_input_child`) on a thread with a normal 2 MiB
//! stack; a crash is reported with the input's name and the child's stderr. To turn a fuzzer crash into
//! a regression test, add its input to `nasty_inputs` (see `docs/fuzzing.md`).

use scenic_frontend::diag::Loc;
use scenic_frontend::{stdlib, CheckOptions, Session};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Once};
use std::time::{Duration, Instant};

/// Mutants per example (at least 300).
const MUTANTS_PER_EXAMPLE: usize = 320;

/// How long one mutant may take before the check is declared not to terminate.
const MUTANT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long one nasty input may take (in a child process) before it is killed.
const NASTY_TIMEOUT: Duration = Duration::from_secs(120);

/// The stack of the thread that checks a nasty input: the default size of a spawned thread.
const NORMAL_STACK: usize = 2 * 1024 * 1024;

#[path = "mutations/mutate.rs"]
mod mutate;
#[path = "mutations/nasty.rs"]
mod nasty;
#[path = "mutations/validate.rs"]
mod validate;

use mutate::*;
use validate::*;

// ---------------------------------------------------------------------------------------------------
// The mutation test.

/// The examples, sorted by name: `(file name, text)`.
fn examples() -> Vec<(String, String)> {
    let dir = Path::new("../examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "sn"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (name, text)
        })
        .collect()
}

/// Messages from the worker threads to the watchdog.
enum Progress {
    /// Worker `.0` started checking the mutant described by `.1`.
    Started(usize, String),
    /// Worker `.0` is done.
    Done(usize, Summary),
}

#[derive(Default)]
struct Summary {
    mutants: usize,
    per_example: BTreeMap<String, usize>,
    fresh: usize,
    incremental: usize,
    compared: usize,
    diagnostics: usize,
    clean: usize,
    codes: BTreeMap<&'static str, usize>,
    /// `(example, mutant index, report)`.
    failures: Vec<(String, usize, String)>,
}

impl Summary {
    fn merge(&mut self, other: Summary) {
        self.mutants += other.mutants;
        for (name, n) in other.per_example {
            *self.per_example.entry(name).or_default() += n;
        }
        self.fresh += other.fresh;
        self.incremental += other.incremental;
        self.compared += other.compared;
        self.diagnostics += other.diagnostics;
        self.clean += other.clean;
        for (code, n) in other.codes {
            *self.codes.entry(code).or_default() += n;
        }
        self.failures.extend(other.failures);
    }

    fn record(&mut self, seen: &Seen) {
        self.diagnostics += seen.diagnostics;
        if seen.diagnostics == 0 {
            self.clean += 1;
        }
        for (code, n) in &seen.codes {
            *self.codes.entry(code).or_default() += n;
        }
    }
}

fn describe(name: &str, index: usize, mutant: &Mutant, how: &str) -> String {
    format!(
        "{name} #{index} {:?} (seed {:#018x}, {} bytes, {how})",
        mutant.kinds,
        mutant.seed,
        mutant.bytes.len(),
    )
}

/// A session kept across mutants of one example: each mutant replaces the file's text, so the check is
/// incremental (salsa reuses the standard library and every unchanged chunk). This exercises the
/// rebasing of reused chunk results to moved positions, and is several times faster than a fresh
/// session.
struct Incremental {
    session: Session,
    file: scenic_frontend::db::SourceFile,
}

/// Checks `text` incrementally in `inc` (created on first use; dropped after a panic, since a panic
/// may leave the database inconsistent). Returns the result and the diagnostics for comparison.
fn check_incremental(
    inc: &mut Option<Incremental>,
    name: &str,
    text: &str,
) -> Result<(Seen, Vec<scenic_frontend::diag::Diagnostic>), Vec<String>> {
    let mut taken = inc.take();
    let outcome = catch(|| {
        let state = taken.get_or_insert_with(|| {
            let mut session = Session::new();
            let file = session.add_source(name, String::new());
            Incremental { session, file }
        });
        state.session.set_text(state.file, text.to_string());
        let report = state.session.check(CheckOptions::default());
        let db = state.session.db();
        let my_id = state.file.id(db);
        let my_text = state.file.text(db).clone();
        let plain = report.render_plain();
        let json = report.json_lines();
        validate(&report, my_id, &my_text, &plain, &json).map(|seen| (seen, report.diagnostics))
    });
    match outcome {
        Ok(result) => {
            *inc = taken;
            result
        }
        Err(panic) => Err(vec![format!("panicked: {panic}")]),
    }
}

/// A share of the work: mutants `range` of example `example`.
struct Job {
    example: usize,
    range: std::ops::Range<usize>,
}

/// Mutants per job; jobs are handed out to the workers one at a time.
const JOB_SIZE: usize = 40;

fn run_job(
    worker: usize,
    (name, text): &(String, String),
    job: &Job,
    tx: &mpsc::Sender<Progress>,
    dump: Option<&Path>,
    summary: &mut Summary,
) {
    let mut inc: Option<Incremental> = None;
    for index in job.range.clone() {
        let mutant = make_mutant(name, text, index);
        // Mutants that need the bytes API, and every other one, get a fresh session (as the CLI
        // does); the rest are checked incrementally, and one in four of those is also checked fresh to
        // compare the diagnostics.
        let utf8 = std::str::from_utf8(&mutant.bytes).ok();
        let incremental = utf8.filter(|_| !mutant.via_bytes && index % 2 == 1);
        let how = if mutant.via_bytes {
            "fresh session, add_source_bytes"
        } else if incremental.is_some() {
            "incremental session, set_text"
        } else {
            "fresh session, add_source"
        };
        let description = describe(name, index, &mutant, how);
        let _ = tx.send(Progress::Started(worker, description.clone()));
        summary.mutants += 1;
        *summary.per_example.entry(name.clone()).or_default() += 1;
        let result = match incremental {
            Some(text) => {
                summary.incremental += 1;
                check_incremental(&mut inc, name, text).and_then(|(seen, diags)| {
                    if index % 8 != 1 {
                        return Ok(seen);
                    }
                    summary.compared += 1;
                    let fresh = catch(|| {
                        let mut session = Session::new();
                        session.add_source(name.as_str(), text.to_string());
                        session.check(CheckOptions::default()).diagnostics
                    })
                    .map_err(|panic| vec![format!("panicked in the fresh check: {panic}")])?;
                    if fresh == diags {
                        Ok(seen)
                    } else {
                        Err(vec![format!(
                            "the incremental check differs from a fresh one:\n      incremental: \
                             {diags:?}\n      fresh: {fresh:?}"
                        )])
                    }
                })
            }
            None => {
                summary.fresh += 1;
                check_input(name, &mutant.bytes, mutant.via_bytes)
            }
        };
        match result {
            Ok(seen) => summary.record(&seen),
            Err(problems) => {
                let mut report = description;
                for problem in problems {
                    let _ = write!(report, "\n    {problem}");
                }
                if let Some(dir) = dump {
                    let path = dir.join(format!("{}-{index}.sn", name.trim_end_matches(".sn")));
                    if std::fs::create_dir_all(dir).is_ok()
                        && std::fs::write(&path, &mutant.bytes).is_ok()
                    {
                        let _ = write!(report, "\n    written to {}", path.display());
                    }
                }
                summary.failures.push((name.clone(), index, report));
            }
        }
    }
}

#[test]
fn mutated_examples_never_panic_and_locate_every_diagnostic() {
    let started = Instant::now();
    let examples = std::sync::Arc::new(examples());
    assert!(
        examples.len() >= 7,
        "expected the seven examples in ../examples, found {}",
        examples.len()
    );
    // Every example must check clean; otherwise its mutants test less than they seem to.
    let mut unclean = Vec::new();
    for (name, text) in examples.iter() {
        match check_input(name, text.as_bytes(), false) {
            Ok(seen) if seen.diagnostics == 0 => {}
            Ok(seen) => unclean.push(format!("{name}: {} diagnostics", seen.diagnostics)),
            Err(problems) => unclean.push(format!("{name}: {}", problems.join("; "))),
        }
    }
    assert!(
        unclean.is_empty(),
        "examples that do not check clean: {unclean:?}"
    );

    let jobs: Vec<Job> = (0..examples.len())
        .flat_map(|example| {
            (0..MUTANTS_PER_EXAMPLE)
                .step_by(JOB_SIZE)
                .map(move |lo| Job {
                    example,
                    range: lo..(lo + JOB_SIZE).min(MUTANTS_PER_EXAMPLE),
                })
        })
        .collect();
    let jobs = std::sync::Arc::new(jobs);
    let next_job = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4));
    let dump = std::env::var_os("SCENIC_MUTANT_DUMP").map(PathBuf::from);
    let (tx, rx) = mpsc::channel();
    for worker in 0..workers {
        let (tx, examples, jobs, next_job, dump) = (
            tx.clone(),
            examples.clone(),
            jobs.clone(),
            next_job.clone(),
            dump.clone(),
        );
        // Worker threads, so that a check that never terminates is caught by the watchdog below (the
        // stuck thread is left behind; the test fails and the process exits).
        std::thread::Builder::new()
            .name(format!("mutants-{worker}"))
            .spawn(move || {
                let mut summary = Summary::default();
                loop {
                    let n = next_job.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(n) else { break };
                    let example = &examples[job.example];
                    run_job(worker, example, job, &tx, dump.as_deref(), &mut summary);
                }
                let _ = tx.send(Progress::Done(worker, summary));
            })
            .expect("spawn a mutant worker");
    }
    drop(tx);

    // The watchdog: every worker's current mutant must finish within MUTANT_TIMEOUT.
    let mut current: Vec<Option<(String, Instant)>> = vec![None; workers];
    let mut done = 0;
    let mut summary = Summary::default();
    while done < workers {
        match rx.recv_timeout(Duration::from_millis(500)) {
            Ok(Progress::Started(worker, description)) => {
                current[worker] = Some((description, Instant::now()));
            }
            Ok(Progress::Done(worker, part)) => {
                current[worker] = None;
                summary.merge(part);
                done += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("a mutant worker died; last mutants: {current:?}")
            }
        }
        for (description, since) in current.iter().flatten() {
            assert!(
                since.elapsed() < MUTANT_TIMEOUT,
                "the check did not terminate within {} s on mutant {description}",
                MUTANT_TIMEOUT.as_secs()
            );
        }
    }

    let elapsed = started.elapsed();
    let per_example: Vec<String> = summary
        .per_example
        .iter()
        .map(|(name, n)| format!("{name}: {n}"))
        .collect();
    let mut top: Vec<(&str, usize)> = summary.codes.iter().map(|(c, n)| (*c, *n)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let top: Vec<String> = top.iter().map(|(c, n)| format!("{c}×{n}")).collect();
    eprintln!(
        "mutation test: {} mutants ({}) on {workers} threads in {:.1} s; {} in fresh sessions, {} \
         incremental ({} of them compared with a fresh check); {} diagnostics, {} mutants clean; {} \
         distinct codes: {}",
        summary.mutants,
        per_example.join(", "),
        elapsed.as_secs_f64(),
        summary.fresh,
        summary.incremental,
        summary.compared,
        summary.diagnostics,
        summary.clean,
        summary.codes.len(),
        top.join(" "),
    );
    for (name, n) in &summary.per_example {
        assert!(
            *n >= 300,
            "{name}: only {n} mutants (at least 300 per example)"
        );
    }
    summary
        .failures
        .sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    assert!(
        summary.failures.is_empty(),
        "{} of {} mutants failed:\n{}",
        summary.failures.len(),
        summary.mutants,
        summary
            .failures
            .iter()
            .map(|(_, _, report)| report.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
