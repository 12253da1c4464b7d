//! [`BuildError`]: `scenicc build` failing for a reason of its own: a bad `-o` for the target, a
//! package that cannot be written, a program without kernels, Vitis missing or failing.

use crate::failure::Failure;
use crate::{EXIT_ERRORS, EXIT_USAGE};
use miette::Diagnostic;
use scenic_backend_hls::package::PackageError;

/// `scenicc build` could not make what was asked.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum BuildError {
    /// A P4 target with a `.xo` output.
    #[error("`--target {target}` writes a package directory with `p4/<scu>.p4`, not a `.xo`")]
    #[diagnostic(
        code(scenicc::build::xo_for_p4),
        help("give a directory as `-o`, or use `--target hls` for the kernel object")
    )]
    XoForP4 {
        /// The target given.
        target: String,
    },
    /// The package could not be assembled in memory.
    #[error("cannot assemble the SCU package of `{file}`")]
    #[diagnostic(
        code(scenicc::build::assemble),
        help("the cause below names what the manifest or the model cannot hold")
    )]
    Assemble {
        /// The program.
        file: String,
        /// Why.
        #[source]
        source: PackageError,
    },
    /// The package could not be written.
    #[error("cannot write the SCU package to `{dir}`")]
    #[diagnostic(
        code(scenicc::build::write_package),
        help("`-o` must be a new directory, or a package an earlier build wrote (it has manifest.json), that you may write to")
    )]
    WritePackage {
        /// The package directory.
        dir: String,
        /// Why.
        #[source]
        source: PackageError,
    },
    /// The package's `p4/` could not be replaced.
    #[error("cannot {action} `{path}`")]
    #[diagnostic(
        code(scenicc::build::write_p4),
        help("the package directory and its `p4/` must be writable")
    )]
    WriteP4 {
        /// `remove`, `create` or `write`.
        action: &'static str,
        /// The file or directory.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A P4 target for a program without scus.
    #[error("`{file}` has no scu, so there is no P4 program to write for {target}")]
    #[diagnostic(
        code(scenicc::build::no_scu_for_p4),
        help("P4 programs are written for scus; build congestion controllers with `--target hls`")
    )]
    NoScuForP4 {
        /// The program.
        file: String,
        /// The P4 target.
        target: String,
    },
    /// A `.xo` of a program without kernels.
    #[error("the program has no scu and no cc, so there is no kernel to make `{out}` of")]
    #[diagnostic(
        code(scenicc::build::no_kernel),
        help("the package (manifest and model only) is in {dir}; give a directory as `-o` to write only the package")
    )]
    NoKernel {
        /// The `.xo` asked for.
        out: String,
        /// Where the package was written.
        dir: String,
    },
    /// Neither `v++` nor `vitis_hls` is on `PATH`.
    #[error("neither `v++` nor `vitis_hls` is on PATH, so `{out}` was not made")]
    #[diagnostic(
        code(scenicc::build::no_vitis),
        help("the SCU package is written to {dir}; on a machine with Vitis (after sourcing its settings64.sh) run\n{commands}\nor `make -C {hls} xo`, which does the same for every kernel")
    )]
    NoVitis {
        /// The `.xo` asked for.
        out: String,
        /// The package directory.
        dir: String,
        /// The commands to run, one kernel per line pair.
        commands: String,
        /// The package's `hls/` directory.
        hls: String,
    },
    /// The Vitis tool could not be started.
    #[error("cannot run `{command}`")]
    #[diagnostic(
        code(scenicc::build::tool_not_run),
        help("check that the tool on PATH is executable")
    )]
    ToolNotRun {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The Vitis tool failed.
    #[error("`{command}` failed ({status})")]
    #[diagnostic(
        code(scenicc::build::tool_failed),
        help("the tool's log above says why; the kernel directory is kept for inspection")
    )]
    ToolFailed {
        /// The command line.
        command: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// The Vitis tool left no `.xo`.
    #[error("`{command}` succeeded but left no .xo in {dir}")]
    #[diagnostic(
        code(scenicc::build::no_xo),
        help("the tool's log above may say why; `make -C <package>/hls xo` runs the same flow")
    )]
    NoXo {
        /// The command line.
        command: String,
        /// The kernel directory.
        dir: String,
    },
    /// The `.xo` could not be copied to `-o`.
    #[error("cannot copy {from} to {to}")]
    #[diagnostic(
        code(scenicc::build::copy_xo),
        help("`-o` must be a file you may write")
    )]
    CopyXo {
        /// The `.xo` the tool made.
        from: String,
        /// The `-o` file.
        to: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl Failure for BuildError {
    fn exit_code(&self) -> u8 {
        match self {
            BuildError::XoForP4 { .. }
            | BuildError::WritePackage { .. }
            | BuildError::WriteP4 { .. }
            | BuildError::CopyXo { .. } => EXIT_USAGE,
            BuildError::Assemble { .. }
            | BuildError::NoScuForP4 { .. }
            | BuildError::NoKernel { .. }
            | BuildError::NoVitis { .. }
            | BuildError::ToolNotRun { .. }
            | BuildError::ToolFailed { .. }
            | BuildError::NoXo { .. } => EXIT_ERRORS,
        }
    }
}
