//! `scenicc build FILE -o OUT` (and the bare `scenicc FILE -o OUT`): compile a program into an SCU
//! package, and for `OUT` ending in `.xo` run the Vitis flow on it.
//!
//! - `OUT` a directory: the package (`docs/package.md`) is written there.
//! - `OUT` ending in `.xo`: the package is written next to it, in `<OUT without .xo>.pkg/`; then, if
//!   `v++` (preferred, `v++ -c --mode hls`) or `vitis_hls` (`vitis_hls -f run_hls.tcl`) is on
//!   `PATH`, every kernel is synthesized in its directory and its `.xo` copied to `OUT` (several
//!   kernels: `<stem>_<kernel>.xo` beside `OUT`). Without either tool the exit code is 1 and the
//!   message names the package directory and the exact command to run on a machine with Vitis.
//!
//! - `--target vitis-p4|v1model`: the package as above, plus each scu as a P4_16 program in
//!   `p4/<scu>.p4` (`build_p4`); every scu must be expressible on the target.
//!
//! Errors the backend finds at a construct (a table too large for on-chip memory, ...) are printed
//! like diagnostics, with the source location. Exit codes as for every command: 0 built, 1 the
//! program (or the Vitis run) failed, 2 usage or I/O problems, 101 internal errors.

use crate::build_p4;
use crate::compile::{self, Compiled};
use crate::errors::{shown, BuildError};
use crate::output::{Level, Output};
use crate::EXIT_ERRORS;
use scenic_backend_hls::package::{self, Package};
use scenic_ir::ModuleInfo;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// What `build` produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// Vitis HLS kernels for the SCU package.
    Hls,
    /// The package, plus each scu as a P4_16 program for AMD Vitis Networking P4 in `p4/<scu>.p4`.
    VitisP4,
    /// The package, plus each scu as a P4_16 program for v1model (p4c, bmv2) in `p4/<scu>.p4`.
    V1model,
}

impl Target {
    /// The P4 target this build target names, if any.
    fn p4(self) -> Option<scenic_backend_p4::Target> {
        match self {
            Target::Hls => None,
            Target::VitisP4 => Some(scenic_backend_p4::Target::VitisP4),
            Target::V1model => Some(scenic_backend_p4::Target::V1Model),
        }
    }
}

/// Arguments of `scenicc build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The program.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write: a package directory, or a `.xo` file (runs Vitis when it is installed;
    /// `--target hls` only).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// What to build: `hls`, or `vitis-p4`/`v1model` (the package and its `p4/<scu>.p4`).
    #[arg(long, value_enum, default_value_t = Target::Hls)]
    pub target: Target,
}

/// The Vitis tool found on `PATH`, and how it is run in a kernel directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `v++ -c --mode hls --config hls_config.cfg --work_dir build` (Vitis 2023.2 and later).
    VppHls(PathBuf),
    /// `vitis_hls -f run_hls.tcl`.
    VitisHls(PathBuf),
}

impl Tool {
    /// The command line, as arguments after the program.
    pub fn args(&self) -> Vec<&'static str> {
        match self {
            Tool::VppHls(_) => vec![
                "-c",
                "--mode",
                "hls",
                "--config",
                "hls_config.cfg",
                "--work_dir",
                "build",
            ],
            Tool::VitisHls(_) => vec!["-f", "run_hls.tcl"],
        }
    }

    fn program(&self) -> &Path {
        match self {
            Tool::VppHls(p) | Tool::VitisHls(p) => p,
        }
    }
}

/// `v++` if it is on `PATH`, else `vitis_hls`, else none.
pub fn find_tool(path: Option<OsString>) -> Option<Tool> {
    let dirs: Vec<PathBuf> = path.map_or_else(Vec::new, |p| std::env::split_paths(&p).collect());
    let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| is_executable(p));
    find("v++")
        .map(Tool::VppHls)
        .or_else(|| find("vitis_hls").map(Tool::VitisHls))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Runs `scenicc build`.
pub fn run(args: &BuildArgs, output: &Output, deny_warnings: bool) -> ExitCode {
    let p4_target = args.target.p4();
    let wants_xo = args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xo"));
    if let (Some(t), true) = (p4_target, wants_xo) {
        let target = t.to_string();
        return output.fail(&BuildError::XoForP4 { target });
    }
    let compiled = match compile::lower_with_sources(&args.file, output, deny_warnings) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let info = match compile::validate(&compiled.module, "lowering", output) {
        Ok(info) => info,
        Err(code) => return code,
    };
    let package = match package_of(&args.file, &compiled, &info, output) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let programs = match p4_target {
        Some(t) => match build_p4::programs(&args.file, &compiled, &info, t, output) {
            Ok(p) => p,
            Err(code) => return code,
        },
        None => Vec::new(),
    };
    let dir = if wants_xo {
        args.output.with_extension("pkg")
    } else {
        args.output.clone()
    };
    if let Err(source) = package.write(&dir) {
        let dir = shown(&dir);
        return output.fail(&BuildError::WritePackage { dir, source });
    }
    if let Err(err) = build_p4::write(&dir, &programs) {
        return output.fail(&err);
    }
    let kernels = package.kernels();
    if let Some(t) = p4_target {
        output.summary(
            Level::Ok,
            &format!(
                "wrote the SCU package {} with {} for {t} in {}/",
                dir.display(),
                crate::output::count(programs.len(), "P4 program"),
                build_p4::P4_DIR
            ),
        );
        return ExitCode::SUCCESS;
    }
    if !wants_xo {
        let what = match kernels.as_slice() {
            [] => "no kernels: the program has no scu and no cc".to_string(),
            [one] => format!("kernel `{one}`"),
            many => format!("{} kernels", many.len()),
        };
        output.summary(
            Level::Ok,
            &format!("wrote the SCU package {} ({what})", dir.display()),
        );
        return ExitCode::SUCCESS;
    }
    xo(&args.output, &dir, &kernels, output)
}

/// Generates the kernels of `c` (validated: `info`) and assembles the package; errors are printed.
pub fn package_of(
    file: &Path,
    c: &Compiled,
    info: &ModuleInfo,
    output: &Output,
) -> Result<Package, ExitCode> {
    let inputs = package::BuildInputs {
        module: &c.module,
        info,
        source_file: &file.display().to_string(),
        source_text: &c.root.1,
        root_file_id: c.root.0,
    };
    match package::build(&inputs) {
        Ok(p) => Ok(p),
        Err(package::BuildError::Backend(err)) => {
            output.span_error(&c.sources, &err.to_string(), err.span());
            output.summary(
                Level::Error,
                &format!(
                    "could not build `{}` due to 1 previous error",
                    file.display()
                ),
            );
            Err(ExitCode::from(EXIT_ERRORS))
        }
        Err(package::BuildError::Package(source)) => Err(output.fail(&BuildError::Assemble {
            file: shown(file),
            source,
        })),
    }
}

/// The `.xo` half: run Vitis in every kernel directory, or say what to run where.
fn xo(out: &Path, dir: &Path, kernels: &[String], output: &Output) -> ExitCode {
    match make_xos(out, dir, kernels, output) {
        Ok(made) => {
            output.summary(
                Level::Ok,
                &format!("wrote {} (package in {})", made.join(", "), dir.display()),
            );
            ExitCode::SUCCESS
        }
        Err(err) => output.fail(&err),
    }
}

/// The `.xo` of every kernel, by the Vitis tool on `PATH`: the files written.
fn make_xos(
    out: &Path,
    dir: &Path,
    kernels: &[String],
    output: &Output,
) -> Result<Vec<String>, BuildError> {
    if kernels.is_empty() {
        return Err(BuildError::NoKernel {
            out: shown(out),
            dir: shown(dir),
        });
    }
    let Some(tool) = find_tool(std::env::var_os("PATH")) else {
        return Err(no_vitis(out, dir, kernels));
    };
    let mut made = Vec::new();
    for k in kernels {
        let target = if kernels.len() == 1 {
            out.to_path_buf()
        } else {
            let stem = out
                .file_stem()
                .map_or_else(|| "scu".to_string(), |s| s.to_string_lossy().into_owned());
            out.with_file_name(format!("{stem}_{k}.xo"))
        };
        synthesize(&tool, &dir.join("hls").join(k), k, &target, output)?;
        made.push(shown(&target));
    }
    Ok(made)
}

/// Vitis is not installed: the error names the package and the commands to run elsewhere.
fn no_vitis(out: &Path, dir: &Path, kernels: &[String]) -> BuildError {
    let commands: Vec<String> = kernels
        .iter()
        .map(|k| {
            format!(
                "  cd {} && v++ -c --mode hls --config hls_config.cfg --work_dir build\n  \
                 (or: cd {0} && vitis_hls -f run_hls.tcl)",
                dir.join("hls").join(k).display()
            )
        })
        .collect();
    BuildError::NoVitis {
        out: shown(out),
        dir: shown(dir),
        commands: commands.join("\n"),
        hls: shown(&dir.join("hls")),
    }
}

/// Runs the tool in one kernel directory and copies its `.xo` to `target`.
fn synthesize(
    tool: &Tool,
    kdir: &Path,
    kernel: &str,
    target: &Path,
    output: &Output,
) -> Result<(), BuildError> {
    let command = format!(
        "cd {} && {} {}",
        kdir.display(),
        tool.program().display(),
        tool.args().join(" ")
    );
    output.progress(&format!("running {command}"));
    // The tool's log goes to stderr: stdout is kept for what a pipe wants.
    let status = Command::new(tool.program())
        .args(tool.args())
        .current_dir(kdir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(status) => return Err(BuildError::ToolFailed { command, status }),
        Err(source) => return Err(BuildError::ToolNotRun { command, source }),
    }
    let Some(xo) = find_xo(kdir, kernel) else {
        let dir = shown(kdir);
        return Err(BuildError::NoXo { command, dir });
    };
    std::fs::copy(&xo, target)
        .map(|_| ())
        .map_err(|source| BuildError::CopyXo {
            from: shown(&xo),
            to: shown(target),
            source,
        })
}

/// `<kernel>.xo` in the kernel directory (where run_hls.tcl and hls_config.cfg export it), else
/// the first `.xo` under the directory in path order (where v++ versions put theirs).
fn find_xo(kdir: &Path, kernel: &str) -> Option<PathBuf> {
    let direct = kdir.join(format!("{kernel}.xo"));
    if direct.is_file() {
        return Some(direct);
    }
    let mut found = Vec::new();
    let mut stack = vec![kdir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "xo") {
                found.push(p);
            }
        }
    }
    found.sort();
    found.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_commands() {
        let vpp = Tool::VppHls("v++".into());
        assert_eq!(
            vpp.args().join(" "),
            "-c --mode hls --config hls_config.cfg --work_dir build"
        );
        assert_eq!(
            Tool::VitisHls("vitis_hls".into()).args().join(" "),
            "-f run_hls.tcl"
        );
        assert_eq!(find_tool(None), None);
    }
}
