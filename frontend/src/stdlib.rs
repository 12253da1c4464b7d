//! The standard library.
//!
//! `std::net` (protocol headers and constants) is scenic source, built into the compiler and loaded
//! like any module. `std::hash` and `std::checksum` are intrinsics: their signatures are checked by
//! [`crate::typeck`] and their semantics are defined in `docs/language.md` (the interpreter and the
//! backends implement them). Both are also reachable without `use` as `hash::...` and `checksum::...`.

/// Names of built-in files start with this, so diagnostics are never reported against them.
pub const STD_PREFIX: &str = "<std>";

/// `(module path, display name, source)` of every standard module written in scenic.
pub const MODULES: &[(&str, &str, &str)] =
    &[("std::net", "<std>/net.sn", include_str!("../std/net.sn"))];

/// The intrinsic modules: `std::hash`, `std::checksum`.
pub const INTRINSIC_MODULES: &[&str] = &["hash", "checksum"];
