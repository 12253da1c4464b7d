//! scenic-interp: the reference interpreter, the golden semantics every hardware backend is checked
//! against. It depends on the IR core only.
//!
//!
//! It computes with what it shares with constant folding in [`scenic_ir::proc`]: [`scenic_ir::proc::bits`]
//! holds the value representation, [`scenic_ir::proc::ops`] the IR's operators and casts on typed
//! values, [`scenic_ir::proc::intrinsics`] the standard library's hashes and checksums; [`pattern`]
//! adds tuple and pre-sized pattern matching.
//!
//! [`compile`] turns every body of a module into closures once, when the [`Machine`] is made;
//! running a packet, payload word or congestion signal runs those closures in a context
//! ([`context`]) that reaches the machine's state: tables ([`state`], `classify`), maps
//! ([`map`]), the packet's headers ([`headers`]). [`packet`], [`stream`] and [`cc`] are the entry
//! points; [`runtime`] holds the machine and its host-side API.

#![deny(missing_docs)]

pub mod cc;
pub mod cc_timers;
mod classify;
pub mod compile;
pub mod context;
mod hash;
pub mod headers;
pub mod map;
pub mod packet;
pub mod pattern;
pub mod runtime;
pub mod state;
pub mod stream;
pub mod value;

pub use context::{Destination, Notification};
pub use packet::PacketOutcome;
pub use runtime::Machine;
