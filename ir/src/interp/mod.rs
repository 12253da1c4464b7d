//! The reference interpreter: the golden semantics every hardware backend is checked against.
//!
//! [`bits`] holds the value representation, [`ops`] the IR's operators and casts on typed values,
//! and [`intrinsics`] the standard library's hashes and checksums.

pub mod bits;
pub mod cc;
mod classify;
pub mod context;
mod effects;
mod eval;
pub mod exec;
pub mod frame;
mod hash;
pub mod headers;
pub mod intrinsics;
pub mod map;
pub mod ops;
pub mod packet;
pub mod pattern;
pub mod runtime;
pub mod state;
pub mod stream;
pub mod value;

pub use context::{Destination, Exec, Notification};
pub use packet::PacketOutcome;
pub use runtime::Machine;
