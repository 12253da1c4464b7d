//! The reference interpreter: the golden semantics every hardware backend is checked against.
//!
//! [`bits`] holds the value representation, [`ops`] the IR's operators and casts on typed values,
//! and [`intrinsics`] the standard library's hashes and checksums.

pub mod bits;
pub mod intrinsics;
pub mod ops;
