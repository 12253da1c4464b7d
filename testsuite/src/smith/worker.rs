//! `smith`'s per-seed timeout: seeds run in a child worker process (the same binary in its hidden
//! `--worker` mode), because a thread stuck in a pass cannot be stopped, while a process can be
//! killed. The parent writes one seed per line on the worker's stdin; the worker answers with
//! `stage NAME` lines as it enters each stage (generation, lowering, the reference, each variant,
//! minimisation) and then exactly one `done` line carrying the seed's outcome ([`SeedLine`]).
//! When a seed's answer takes longer than the timeout, the parent kills the worker, reports the
//! seed as a finding (`seed N: timeout after S s in STAGE`) and starts a new worker for the next
//! seed; a worker that dies (an abort, a stack overflow) is reported and replaced the same way.
//!
//! The worker's stdout carries only this protocol; everything else it says goes to stderr.

use super::stats::Stats;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What one seed gave, as the worker reports it.
#[derive(Clone, Debug, Default)]
pub struct SeedLine {
    /// The program passed `scenicc check`.
    pub checked: bool,
    /// The seed is a finding (or, unchecked, a generator bug).
    pub finding: bool,
    /// The line to print, if any (a finding or a generator bug).
    pub line: Option<String>,
    /// What the generator emitted.
    pub stats: Stats,
    /// Backend outcomes that are not findings.
    pub outcomes: Stats,
}

/// Tabs and newlines would break the one-line protocol.
fn flat(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

impl SeedLine {
    /// The `done` line.
    pub fn encode(&self) -> String {
        format!(
            "done\t{}\t{}\t{}\t{}\t{}",
            u8::from(self.checked),
            u8::from(self.finding),
            flat(self.line.as_deref().unwrap_or("")),
            self.stats.encode(),
            self.outcomes.encode()
        )
    }

    /// Reads a `done` line back.
    pub fn decode(line: &str) -> Option<SeedLine> {
        let mut f = line.strip_prefix("done\t")?.split('\t');
        let checked = f.next()? == "1";
        let finding = f.next()? == "1";
        let text = f.next()?;
        let stats = Stats::decode(f.next().unwrap_or(""));
        let outcomes = Stats::decode(f.next().unwrap_or(""));
        Some(SeedLine {
            checked,
            finding,
            line: (!text.is_empty()).then(|| text.to_string()),
            stats,
            outcomes,
        })
    }
}

/// What the worker does with one seed: run it, telling the callback each stage it enters.
pub type Process<'a> = dyn FnMut(u64, &mut dyn FnMut(&str)) -> SeedLine + 'a;

/// The worker's loop: one seed per line of stdin, answered on stdout, until stdin closes.
pub fn serve(process: &mut Process<'_>) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(seed) = line.trim().parse::<u64>() else {
            continue;
        };
        let mut stage = |s: &str| {
            let _ = writeln!(out, "stage {}", flat(s));
            let _ = out.flush();
        };
        let answer = process(seed, &mut stage);
        let _ = writeln!(out, "{}", answer.encode());
        let _ = out.flush();
    }
}

/// Why a seed has no answer.
#[derive(Clone, Debug)]
pub enum Stuck {
    /// It ran longer than the timeout; the worker was killed.
    Timeout {
        /// The stage it was in.
        stage: String,
        /// Seconds waited.
        secs: f64,
    },
    /// The worker exited (or could not be started) before answering.
    Died {
        /// The stage it was in.
        stage: String,
        /// What is known of its end.
        status: String,
    },
}

impl Stuck {
    /// The finding line of `seed`.
    pub fn describe(&self, seed: u64) -> String {
        match self {
            Stuck::Timeout { stage, secs } => {
                format!("seed {seed}: timeout after {secs:.0} s in {stage}")
            }
            Stuck::Died { stage, status } => {
                format!("seed {seed}: the worker died in {stage} ({status})")
            }
        }
    }
}

/// A running worker.
struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// The parent's side: starts workers with `args` and hands them seeds.
pub struct Pool {
    args: Vec<String>,
    running: Option<Running>,
}

impl Pool {
    /// A pool whose workers run this executable with `args` (which include `--worker`).
    pub fn new(args: Vec<String>) -> Pool {
        Pool {
            args,
            running: None,
        }
    }

    fn start(&mut self) -> Result<&mut Running, String> {
        if self.running.is_none() {
            let exe = std::env::current_exe().map_err(|e| format!("no executable: {e}"))?;
            let mut child = Command::new(exe)
                .args(&self.args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| format!("cannot start a worker: {e}"))?;
            let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                let _ = child.kill();
                let _ = child.wait();
                return Err("the worker has no pipes".into());
            };
            let (tx, lines) = channel();
            // Reads the worker's answers; ends at its EOF (when it exits or is killed).
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            self.running = Some(Running {
                child,
                stdin,
                lines,
            });
        }
        self.running.as_mut().ok_or_else(|| "no worker".to_string())
    }

    /// Kills the worker (if any) and reaps it.
    fn stop(&mut self) -> String {
        match self.running.take() {
            Some(mut r) => {
                let _ = r.child.kill();
                r.child
                    .wait()
                    .map_or_else(|e| e.to_string(), |s| s.to_string())
            }
            None => "not running".into(),
        }
    }

    /// Runs `seed` on the worker, waiting at most `timeout`.
    pub fn run(&mut self, seed: u64, timeout: Duration) -> Result<SeedLine, Stuck> {
        let began = Instant::now();
        let mut stage = "start".to_string();
        let running = match self.start() {
            Ok(r) => r,
            Err(status) => return Err(Stuck::Died { stage, status }),
        };
        if writeln!(running.stdin, "{seed}")
            .and_then(|_| running.stdin.flush())
            .is_err()
        {
            let status = self.stop();
            return Err(Stuck::Died { stage, status });
        }
        loop {
            let left = timeout.saturating_sub(began.elapsed());
            let Some(r) = self.running.as_mut() else {
                return Err(Stuck::Died {
                    stage,
                    status: "not running".into(),
                });
            };
            match r.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(s) = line.strip_prefix("stage ") {
                        stage = s.to_string();
                    } else if let Some(answer) = SeedLine::decode(&line) {
                        return Ok(answer);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.stop();
                    let secs = began.elapsed().as_secs_f64();
                    return Err(Stuck::Timeout { stage, secs });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.stop();
                    return Err(Stuck::Died { stage, status });
                }
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing stdin ends the worker's loop; then reap it.
        if let Some(mut r) = self.running.take() {
            drop(r.stdin);
            let _ = r.child.wait();
        }
    }
}
