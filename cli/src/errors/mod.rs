//! The typed application-level errors of scenicc, one enum per command family: [`InputError`]
//! (reading and lowering a program, shared by every command), [`BuildError`] (`build`, the package,
//! the P4 programs and the Vitis run), [`SimError`] (`sim`: captures, entries, output files),
//! [`TestError`] (`test`: STF files and the HLS C simulation), [`EmitError`] (`emit`) and
//! [`ExplainError`] (`explain`).
//!
//! Each is a `thiserror` error and a `miette::Diagnostic` with a code `scenicc::<family>::<what>`,
//! help, its causes as `#[source]` and, where it points into a user file, the file as source code
//! with a label; each implements [`crate::failure::Failure`], which gives the exit code
//! (unchanged from the `String` messages these replace). `Output::fail` prints them.

mod build;
mod emit;
mod input;
mod sim;
mod test;

pub use build::BuildError;
pub use emit::{EmitError, ExplainError};
pub use input::InputError;
pub use sim::SimError;
pub use test::TestError;

/// A path as messages show it.
pub fn shown(path: &std::path::Path) -> String {
    path.display().to_string()
}
