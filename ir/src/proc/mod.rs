//! Helpers every backend shares that work on names and values rather than on the IR's structure
//! (naga's `proc`): today the [`Namer`] that turns the program's names into a target's identifiers.

pub mod namer;

pub use namer::{Language, Namer, Rules};
