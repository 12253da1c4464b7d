//! [`EmitError`] and [`ExplainError`]: `scenicc emit` and `scenicc explain` refusing what they are
//! asked (an empty or unknown pass name, an scu the program lacks, a code that does not exist).

use crate::failure::Failure;
use crate::{EXIT_ERRORS, EXIT_USAGE};
use miette::Diagnostic;
use scenic_opt::PassError;

/// `scenicc emit` cannot print what was asked.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum EmitError {
    /// `--passes a,,b`.
    #[error("`--passes` has an empty pass name")]
    #[diagnostic(
        code(scenicc::emit::empty_pass),
        help("separate pass names with single commas; `--passes help` lists them")
    )]
    EmptyPass,
    /// An unknown pass, or one that cannot run.
    #[error("`--passes` cannot run as given")]
    #[diagnostic(
        code(scenicc::emit::passes),
        help("`scenicc emit ir --passes help FILE` lists the passes and aliases")
    )]
    Passes {
        /// What the pass manager refused.
        #[source]
        source: PassError,
    },
    /// `emit hls` of a program with no scu and no cc.
    #[error("`{file}` has no scu and no cc, so there is no HLS kernel to print")]
    #[diagnostic(
        code(scenicc::emit::no_kernel),
        help("HLS kernels are made of scus and congestion controllers")
    )]
    NoKernel {
        /// The program.
        file: String,
    },
    /// `emit hls --scu NAME` names no scu or cc of the program.
    #[error("the program has no scu or cc named `{name}`")]
    #[diagnostic(
        code(scenicc::emit::no_such_kernel),
        help("`--scu` takes the name of an scu or cc the program defines")
    )]
    NoSuchKernel {
        /// The name given.
        name: String,
    },
}

impl Failure for EmitError {
    fn exit_code(&self) -> u8 {
        match self {
            EmitError::NoKernel { .. } => EXIT_ERRORS,
            _ => EXIT_USAGE,
        }
    }
}

/// `scenicc explain` has nothing to explain.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum ExplainError {
    /// A code that is in neither the catalogue nor docs/errors.md.
    #[error("no such diagnostic code `{0}`")]
    #[diagnostic(
        code(scenicc::explain::unknown_code),
        help("run `scenicc explain --list` to see every code")
    )]
    UnknownCode(String),
}

impl Failure for ExplainError {
    fn exit_code(&self) -> u8 {
        EXIT_USAGE
    }
}
