//! Driving the interpreter (or any [`device::Device`]) from test files and captures: the engine
//! behind `scenicc test` and `scenicc sim`.
//!
//! [`stf`] runs STF tests (`docs/testing.md`); [`setup`] maps names in STF commands and entry files
//! (tables, key names as written in the program, actions and their named parameters, CSRs, ccs) to the
//! interpreter's API and reports names that do not exist.
//!
//! Port numbers (STF `packet`/`expect`, and file names of `scenicc sim --out-dir`): network ports are
//! 0–255; copies to the host are port [`HOST_PORT`]; words and packets passed on by an rdma/tcp scu
//! are port [`PASS_PORT`]; copies to another scu `k` (in declaration order) are port
//! [`SCU_PORT_BASE`]` + k`.

pub mod capture;
pub mod device;
pub mod setup;
pub mod stf;

use crate::interp::Destination;
use crate::program::Module;
use crate::types::Dimension;

/// The STF port of copies sent to the host.
pub const HOST_PORT: u32 = 256;
/// The STF port of words and packets passed on unchanged (rdma/tcp scus).
pub const PASS_PORT: u32 = 257;
/// The STF port of copies to scu 0; scu `k` is this plus `k`.
pub const SCU_PORT_BASE: u32 = 512;

/// The STF port number of a destination.
pub fn port_of(dest: &Destination) -> u32 {
    match dest {
        Destination::Host => HOST_PORT,
        Destination::Network(p) => u32::from(*p),
        Destination::Scu(s) => SCU_PORT_BASE + cranelift_entity::EntityRef::index(*s) as u32,
        Destination::Pass => PASS_PORT,
    }
}

/// The most periodic runs (`every` blocks and cc timers, summed) one step of virtual time may
/// cause. The interpreter runs every missed period, as the program means; a capture whose
/// timestamps jump (a record stamped 0 before real ones, a capture left running overnight) would
/// otherwise make a simulation run for days instead of failing with a clear message.
pub const MAX_CATCH_UP_RUNS: u64 = 1_000_000;

/// Periodic work that moving time from `from_ns` to `to_ns` would cause, when it exceeds
/// [`MAX_CATCH_UP_RUNS`]: `(runs, what)`, `what` naming the block with the most runs (each cc timer
/// counted once, as if one flow were active).
pub fn excessive_catch_up(module: &Module, from_ns: u64, to_ns: u64) -> Option<(u64, String)> {
    let gap = to_ns.saturating_sub(from_ns);
    let every = module.scus.values().flat_map(|scu| {
        scu.every.iter().map(move |e| {
            (
                e.period_ns,
                format!("`every {} ns` of scu `{}`", e.period_ns, scu.name),
            )
        })
    });
    let timers = module.ccs.values().flat_map(|cc| {
        cc.timers
            .values()
            .filter(|t| t.period.0 == Dimension::Duration)
            .map(move |t| {
                (
                    t.period.1,
                    format!("timer `{}` of cc `{}`", t.name, cc.name),
                )
            })
    });
    let mut total = 0u64;
    let mut worst: Option<(u64, String)> = None;
    for (period, what) in every.chain(timers) {
        let runs = gap / period.max(1);
        total = total.saturating_add(runs);
        if worst.as_ref().is_none_or(|(w, _)| runs > *w) {
            worst = Some((runs, what));
        }
    }
    let (_, what) = worst?;
    (total > MAX_CATCH_UP_RUNS).then_some((total, what))
}
