//! [`TestError`]: `scenicc test` failing before or outside its tests: an STF file that cannot be
//! read, the HLS C simulation without its headers or its compiler. A test that fails, or an STF line
//! that does not parse, is a result (`N passed, N failed` on stdout), not one of these.

use crate::failure::Failure;
use crate::{EXIT_ERRORS, EXIT_USAGE};
use miette::Diagnostic;
use scenic_hls_csim::CsimError;

/// `scenicc test` could not run its tests.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum TestError {
    /// An STF file cannot be read.
    #[error("cannot read `{path}`")]
    #[diagnostic(
        code(scenicc::test::read),
        help("check that the path names a readable STF file")
    )]
    Read {
        /// The path as given.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The ap_types headers are missing.
    #[error("`--backend hls-csim` needs AMD's ap_types headers")]
    #[diagnostic(
        code(scenicc::test::ap_types),
        help("run scripts/fetch-ap-types.sh and pass the directory it prints as `--ap-types DIR` (or set AP_TYPES)")
    )]
    ApTypes {
        /// What was wrong with them.
        #[source]
        source: CsimError,
    },
    /// The C-simulated kernels could not be built or started.
    #[error("cannot build the C-simulated kernels")]
    #[diagnostic(
        code(scenicc::test::csim),
        help("`--backend hls-csim` compiles the kernels with g++, which must be on PATH; the cause says what failed")
    )]
    Csim {
        /// What failed.
        #[source]
        source: CsimError,
    },
}

impl Failure for TestError {
    fn exit_code(&self) -> u8 {
        match self {
            TestError::Read { .. } | TestError::ApTypes { .. } => EXIT_USAGE,
            TestError::Csim { .. } => EXIT_ERRORS,
        }
    }
}
