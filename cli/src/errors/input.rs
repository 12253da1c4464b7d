//! [`InputError`]: what stops a program from being read and lowered, before any command does its
//! own work (`compile`, `p4_input`, `check`).

use crate::failure::Failure;
use crate::{EXIT_ERRORS, EXIT_INTERNAL, EXIT_USAGE};
use miette::Diagnostic;
use scenic_frontend::LoadError;

/// Reading or lowering a program failed.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum InputError {
    /// The program file cannot be read.
    #[error("cannot read `{path}`")]
    #[diagnostic(
        code(scenicc::input::read),
        help("check that the path names a readable file (not a directory)")
    )]
    Read {
        /// The path as given.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The checked program could not be lowered to the IR.
    #[error("cannot lower `{path}` to the IR")]
    #[diagnostic(
        code(scenicc::input::lower),
        help("a program that passes `scenicc check` should always lower: please report this with the program")
    )]
    Lower {
        /// The program.
        path: String,
        /// Why.
        #[source]
        source: scenic_lower::LowerError,
    },
    /// The IR failed validation: a bug in scenicc.
    #[error("internal compiler error: the IR after {after} is invalid")]
    #[diagnostic(
        code(scenicc::input::invalid_ir),
        help("this is a bug in scenicc; please report it with the program")
    )]
    InvalidIr {
        /// The stage after which it was found (`lowering`, a pass).
        after: String,
        /// What the validator found.
        #[source]
        source: scenic_ir::ValidationError,
    },
    /// `--scu NAME` names no scu of the program.
    #[error("no scu named `{name}` in the program ({known})")]
    #[diagnostic(
        code(scenicc::input::no_such_scu),
        help("`--scu` takes the name of an scu the program defines")
    )]
    NoSuchScu {
        /// The name given.
        name: String,
        /// The scus there are (`its scus: `a`, `b``).
        known: String,
    },
}

impl InputError {
    /// The frontend's load error, as this error.
    pub fn load(err: LoadError) -> InputError {
        match err {
            LoadError::Io { path, source } => InputError::Read { path, source },
        }
    }
}

impl Failure for InputError {
    fn exit_code(&self) -> u8 {
        match self {
            InputError::Read { .. } | InputError::NoSuchScu { .. } => EXIT_USAGE,
            InputError::Lower { .. } => EXIT_ERRORS,
            InputError::InvalidIr { .. } => EXIT_INTERNAL,
        }
    }
}
