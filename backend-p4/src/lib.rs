//! The P4 backends: IR → P4_16 for AMD Vitis Networking P4 (`XilinxPipeline`) and for v1model
//! (p4c/bmv2).
//!
//! [`write_p4`] takes a validated module and returns one P4_16 program for one `scu`, or every
//! reason the program cannot be expressed on the chosen [`Target`] (one [`Error`] per construct,
//! each with its span, the target and what to do instead). It never panics and never silently
//! changes the program's meaning: the P4 it prints behaves like the reference interpreter on every
//! packet, or it is refused.
//!
//! # How the IR maps to P4
//!
//! The module is first copied and simplified by the IR's own passes (`function-inlining`,
//! `loop-unrolling`, `constant-folding`, `dead-code-elimination`): P4 has no function calls with
//! side effects on the pipeline and no loops, and both passes are exact.
//!
//! | IR | P4_16 |
//! |---|---|
//! | header layout | `header NAME_t { bit<N> f; ... }` |
//! | struct layout (values in code) | `struct NAME_t { ... }` |
//! | header instances and stacks | `struct headers_t { NAME_t inst; NAME_t[N] stack; }` |
//! | `meta` | fields of the user metadata struct `metadata_t` |
//! | parser states, selects | `parser ScuParser`, `transition select(...)`; alternatives become one case each |
//! | `reject(e)` | `verify(false, error.E)`; built-in errors are core.p4's `PacketTooShort`, `NoMatch`, `StackOutOfBounds` |
//! | control, `on parser_error` | one control (`ScuIngress` / `ScuMatchAction`) branching on `parser_error` |
//! | tables | `table` with `key` (`@name` = the source key), `actions`, `default_action`, `size`, `entries` (`const entries` for constant tables) |
//! | actions | `action`s of that control; `no_action` is core.p4's `NoAction` |
//! | `match t.apply()` | `switch (t.apply().action_run)`; action data read in an arm is copied by the action into a control variable |
//! | counters | v1model `counter`, Vitis `Counter<bit<64>, bit<S>>` |
//! | CSRs, params | v1model: one-cell `register`s; Vitis: user-metadata inputs (read-only) or `Counter`s (increment-only) |
//! | `drop()` | v1model `mark_to_drop`, Vitis `standard_metadata.drop = 1` |
//! | `to_network(p)`, `to_host()` | v1model `egress_spec` (host = CPU port 256); Vitis user metadata `egress_port`, `to_host` |
//! | deparser | `packet.emit(...)` in order; its other statements move to the end of the control when that is exact |
//!
//! Early exits (`return`, `drop()`) become structured control flow: the code after an `if` whose
//! branch always exits moves into its `else`; elsewhere a `scenic_done` flag guards the rest.
//! Reading a field of a header that may be invalid gives 0 in scenic but an unspecified value in P4,
//! so such reads are guarded (a validity analysis leaves reads of headers known to be valid alone).
//! Vitis Networking P4 allows no conditionals in actions: an action that needs one is emitted as an
//! action that only records its data, and its body runs in the control right after the lookup.
//!
//! The metadata layouts, the port numbering and every restriction are documented in `docs/p4.md`.

#![deny(missing_docs)]

pub mod analysis;
pub mod conv;
pub mod error;
pub mod keywords;
pub mod namer;
mod prepare;
pub mod writer;

pub use error::{Construct, Error, Errors};

use scenic_ir::{Module, ModuleInfo};
use std::fmt;

/// The P4 architecture to write for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// AMD Vitis Networking P4: `XilinxPipeline(Parser, MatchAction, Deparser)` from `xsa.p4`.
    VitisP4,
    /// P4_16 v1model (`V1Switch`), for p4c and bmv2's simple_switch.
    V1Model,
}

impl Target {
    /// The name on the command line (`--target vitis-p4`).
    pub fn name(self) -> &'static str {
        match self {
            Target::VitisP4 => "vitis-p4",
            Target::V1Model => "v1model",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to write the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The architecture.
    pub target: Target,
    /// The scu to write; `None` writes the module's only scu.
    pub scu: Option<String>,
    /// v1model: the `egress_spec` of the host (bmv2's `--cpu-port`); network ports are 0..=255.
    pub cpu_port: u16,
}

impl Options {
    /// The defaults for `target`: the only scu, CPU port 256.
    pub fn new(target: Target) -> Options {
        Options {
            target,
            scu: None,
            cpu_port: DEFAULT_CPU_PORT,
        }
    }
}

/// The v1model port of the host (the STF port numbering of `docs/testing.md` uses 256 too).
pub const DEFAULT_CPU_PORT: u16 = 256;

/// Writes the P4 program of one scu of `module`, or every reason it cannot be written.
pub fn write_p4(module: &Module, info: &ModuleInfo, options: &Options) -> Result<String, Errors> {
    let _ = info; // the module is re-validated after the passes; `info` proves it was valid before
    let prepared = prepare::prepare(module, options)?;
    writer::write(&prepared, options)
}
