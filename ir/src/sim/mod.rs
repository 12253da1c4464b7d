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
