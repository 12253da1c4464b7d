//! What every pass, the interpreter and the backends share that is not the IR's data itself
//! (naga's `proc`): the bit-vector arithmetic ([`bits`]) and the operators on it ([`ops`],
//! [`intrinsics`], scalar [`pattern`] matching) that give the IR its meaning and that constant
//! folding and the interpreter both compute with; the central [`walk`]er over code and
//! [`compact`]ion of what a rewrite left unreferenced; and the [`Namer`] that turns the program's
//! names into a target's identifiers.

pub mod bits;
pub mod compact;
pub mod intrinsics;
pub mod namer;
pub mod ops;
pub mod pattern;
pub mod walk;

pub use namer::{Language, Namer, Rules};
