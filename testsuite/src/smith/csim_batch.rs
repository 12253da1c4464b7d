//! Batched C-simulation builds for a campaign: worker threads generate and lower the programs of
//! the seeds ahead of the one being compared, write their kernels and compile them with g++
//! into the C-simulation build cache (`scenic_hls_csim::build`), `jobs` at a time. When the
//! campaign reaches a seed, its `CsimDevice` finds every testbench built and only runs it.
//!
//! Invariants:
//!
//! - Workers do exactly what the comparison does later (`generate`, `lower`, `csim::kernels`), so
//!   the kernels they compile are the ones it runs (the cache is keyed by their text): a
//!   prebuild can only save time, never change a result. Whatever goes wrong in a worker (a
//!   program that does not check, a refusal, a g++ error, a panic) is left for the comparison
//!   to find and report; the worker only marks the seed done.
//! - Workers stay at most `ahead` seeds in front of [`Prebuilder::wait_for`]'s seed, so a
//!   campaign that stops early has compiled little for nothing.
//! - [`Prebuilder::wait_for`] returns once the seed's builds ended; the comparison never
//!   compiles a kernel a worker is still compiling.

use super::csim::kernels;
use super::{generate, lower};
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// Shared between the campaign and its workers.
#[derive(Default)]
struct State {
    /// The next seed a worker takes.
    next: u64,
    /// The seed the campaign waits for (workers stay within `ahead` of it).
    current: u64,
    /// Seeds whose builds ended.
    done: BTreeSet<u64>,
    /// The end of the seed range.
    end: u64,
    /// The campaign ended.
    stop: bool,
}

/// Worker threads compiling the kernels of seeds ahead of the campaign.
pub struct Prebuilder {
    shared: Arc<(Mutex<State>, Condvar)>,
    workers: Vec<JoinHandle<()>>,
}

impl Prebuilder {
    /// Starts `jobs` workers over `seeds`, at most `ahead` seeds in front of the campaign.
    pub fn start(seeds: Range<u64>, jobs: usize, ahead: u64, ap_types: PathBuf) -> Prebuilder {
        let shared = Arc::new((
            Mutex::new(State {
                next: seeds.start,
                current: seeds.start,
                end: seeds.end,
                ..State::default()
            }),
            Condvar::new(),
        ));
        let workers = (0..jobs.max(1))
            .map(|_| {
                let shared = Arc::clone(&shared);
                let ap_types = ap_types.clone();
                let end = seeds.end;
                std::thread::spawn(move || work(&shared, end, ahead, &ap_types))
            })
            .collect();
        Prebuilder { shared, workers }
    }

    /// Waits until `seed`'s builds ended (workers take seeds in order, and `seed` is within
    /// `ahead` of itself, so one will), and lets the workers move on to the seeds after it.
    pub fn wait_for(&self, seed: u64) {
        let (lock, cv) = &*self.shared;
        let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
        st.current = seed;
        cv.notify_all();
        while !st.done.contains(&seed) && seed < st.end && !st.stop {
            st = cv.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        let below: Vec<u64> = st.done.range(..seed).copied().collect();
        for s in below {
            st.done.remove(&s);
        }
    }
}

impl Drop for Prebuilder {
    fn drop(&mut self) {
        {
            let (lock, cv) = &*self.shared;
            let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
            st.stop = true;
            cv.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// One worker: takes seeds in order and builds their kernels.
fn work(shared: &(Mutex<State>, Condvar), end: u64, ahead: u64, ap_types: &std::path::Path) {
    let (lock, cv) = shared;
    loop {
        let seed = {
            let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
            while !st.stop && st.next < end && st.next > st.current + ahead {
                st = cv.wait(st).unwrap_or_else(|p| p.into_inner());
            }
            if st.stop || st.next >= end {
                cv.notify_all();
                return;
            }
            st.next += 1;
            st.next - 1
        };
        // A panic here is met again, and reported, by the comparison.
        let _ = std::panic::catch_unwind(|| prebuild(seed, ap_types));
        let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
        st.done.insert(seed);
        cv.notify_all();
    }
}

/// Generates, lowers and writes `seed`'s kernels and builds them into the cache; errors are
/// left for the comparison.
fn prebuild(seed: u64, ap_types: &std::path::Path) {
    let case = generate(seed);
    let Ok(module) = lower(&case.program.source) else {
        return;
    };
    let Ok(files) = kernels(&module) else {
        return;
    };
    for kernel in files.kernels.iter().chain(&files.ccs) {
        if scenic_hls_csim::build(kernel, &files.support, ap_types, &[]).is_err() {
            return;
        }
    }
}
