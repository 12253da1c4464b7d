//! scenic-sim: driving the interpreter (or any [`device::Device`]) from test files and captures: the engine
//! behind `scenicc test` and `scenicc sim`.
//!
//! [`stf`] runs STF tests (`docs/testing.md`); [`setup`] maps names in STF commands and entry files
//! (tables, key names as written in the program, actions and their named parameters, CSRs, ccs) to the
//! interpreter's API and reports names that do not exist. [`capture`] runs a capture's packets in
//! virtual time, handing what comes out to a sink as it happens (`scenicc sim`); `payload` cuts
//! the payload streams of rdma/tcp scus out of packets. [`control`] answers the packed host control
//! requests of `scenic_scu_abi::control` on the interpreter, as the generated kernel does.
//!
//! Port numbers (STF `packet`/`expect`, and file names of `scenicc sim --out-dir`): network ports are
//! 0–255; copies to the host are port [`HOST_PORT`]; words and packets passed on by an rdma/tcp scu
//! are port [`PASS_PORT`]; copies to another scu `k` (in declaration order) are port
//! [`SCU_PORT_BASE`]` + k`.

#![deny(missing_docs)]

pub mod capture;
pub mod control;
pub mod device;
mod payload;
pub mod setup;
pub mod stf;

use scenic_interp::Destination;
use scenic_ir::program::Module;
use scenic_ir::types::Dimension;

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
/// counted once, as if one flow were active). For many steps, build a [`CatchUp`] once instead.
pub fn excessive_catch_up(module: &Module, from_ns: u64, to_ns: u64) -> Option<(u64, String)> {
    CatchUp::new(module).excessive(from_ns, to_ns)
}

/// The periods of a module's `every` blocks and cc timers, gathered once so that checking a step
/// of time (once per packet of a capture) is arithmetic: no allocation, no walk of the module. The
/// text naming a block is only made when a step is refused.
#[derive(Clone, Debug)]
pub struct CatchUp<'m> {
    /// Each block's period (a zero period counted as 1 ns) and name, in the module's order: `every`
    /// blocks scu by scu, then cc timers.
    blocks: Vec<(u64, Periodic<'m>)>,
    /// The shortest period: with `blocks.len()` it bounds the runs of a step by one division.
    shortest: u64,
}

/// A block that runs periodically.
#[derive(Clone, Copy, Debug)]
enum Periodic<'m> {
    Every { period_ns: u64, scu: &'m str },
    Timer { timer: &'m str, cc: &'m str },
}

impl std::fmt::Display for Periodic<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Periodic::Every { period_ns, scu } => {
                write!(f, "`every {period_ns} ns` of scu `{scu}`")
            }
            Periodic::Timer { timer, cc } => write!(f, "timer `{timer}` of cc `{cc}`"),
        }
    }
}

impl<'m> CatchUp<'m> {
    /// The periodic blocks of `module`.
    pub fn new(module: &'m Module) -> Self {
        let every = module.scus.values().flat_map(|scu| {
            scu.every.iter().map(move |e| {
                let what = Periodic::Every {
                    period_ns: e.period_ns,
                    scu: &scu.name,
                };
                (e.period_ns, what)
            })
        });
        let timers = module.ccs.values().flat_map(|cc| {
            cc.timers
                .values()
                .filter(|t| t.period.0 == Dimension::Duration)
                .map(move |t| {
                    let what = Periodic::Timer {
                        timer: &t.name,
                        cc: &cc.name,
                    };
                    (t.period.1, what)
                })
        });
        let blocks: Vec<_> = every.chain(timers).map(|(p, w)| (p.max(1), w)).collect();
        let shortest = blocks.iter().map(|b| b.0).min().unwrap_or(u64::MAX);
        CatchUp { blocks, shortest }
    }

    /// [`excessive_catch_up`] of the module this was built from.
    pub fn excessive(&self, from_ns: u64, to_ns: u64) -> Option<(u64, String)> {
        let gap = to_ns.saturating_sub(from_ns);
        // No block runs more often than the shortest one: the common small step ends here.
        let bound = (self.blocks.len() as u64).saturating_mul(gap / self.shortest);
        if bound <= MAX_CATCH_UP_RUNS {
            return None;
        }
        let mut total = 0u64;
        let mut worst: Option<(u64, &Periodic<'m>)> = None;
        for (period, what) in &self.blocks {
            let runs = gap / period;
            total = total.saturating_add(runs);
            // The first block with the most runs names the step, as the module lists them.
            if worst.is_none_or(|(w, _)| runs > w) {
                worst = Some((runs, what));
            }
        }
        let (_, what) = worst?;
        (total > MAX_CATCH_UP_RUNS).then(|| (total, what.to_string()))
    }
}
