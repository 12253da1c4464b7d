//! The SCU ABI: what a compiled SCU package promises the runtime, and the encoding both sides of
//! the control path share.
//!
//! [`manifest`] is the package's `manifest.json` (program, ports, CSR map, tables, maps, timing
//! estimates), built from a validated module and its timing report; [`control`] lays out and
//! encodes the control records (table entries, map and counter requests, mailbox responses) the
//! host writes to and reads from an SCU. The compiler, the packages and the runtime depend on this
//! crate, never on one another for these formats.

#![deny(missing_docs)]

pub mod control;
pub mod manifest;
