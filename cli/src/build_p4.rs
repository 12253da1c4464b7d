//! The P4 half of `scenicc build --target vitis-p4|v1model`: one P4_16 program per scu of the
//! file, written into the package's `p4/` as `p4/<scu>.p4` (docs/p4.md, "Building a package").
//!
//! Every scu must be expressible on the target: the programs are all written first, and if any scu
//! is refused, every reason (for every scu) is reported as a diagnostic and nothing is written.
//! `p4/` belongs to this module: it is removed before each build of the package, whatever the
//! target, so a package never holds programs from an older build. The architecture files are not
//! copied (the P4 tools carry their own `core.p4`, `v1model.p4` and `xsa.p4`).

use crate::compile::Compiled;
use crate::errors::{shown, BuildError};
use crate::output::{self, Level, Output};
use crate::{EXIT_ERRORS, EXIT_INTERNAL};
use scenic_backend_p4::{write_p4, Error, Options, Target};
use scenic_frontend::CheckReport;
use std::path::Path;
use std::process::ExitCode;

/// The package's P4 directory.
pub const P4_DIR: &str = "p4";

/// The P4 programs of every scu, as `(scu name, text)`; errors are printed.
pub fn programs(
    file: &Path,
    c: &Compiled,
    info: &scenic_ir::ModuleInfo,
    target: Target,
    output: &Output,
) -> Result<Vec<(String, String)>, ExitCode> {
    let mut programs = Vec::new();
    let mut errors: Vec<Error> = Vec::new();
    if c.module.scus.is_empty() {
        return Err(output.fail(&BuildError::NoScuForP4 {
            file: shown(file),
            target: target.to_string(),
        }));
    }
    for scu in c.module.scus.values() {
        let mut options = Options::new(target);
        options.scu = Some(scu.name.clone());
        match write_p4(&c.module, info, &options) {
            Ok(text) => programs.push((scu.name.clone(), text)),
            Err(e) => errors.extend(e.0),
        }
    }
    if errors.is_empty() {
        return Ok(programs);
    }
    let report = CheckReport {
        diagnostics: Vec::new(),
        sources: c.sources.clone(),
    };
    crate::p4::report_errors(&errors, report, output);
    output.summary(
        Level::Error,
        &format!(
            "could not build `{}` for {target} due to {}",
            file.display(),
            output::count(errors.len(), "previous error")
        ),
    );
    let internal = errors.iter().any(|e| matches!(e, Error::Internal(_)));
    Err(ExitCode::from(if internal {
        EXIT_INTERNAL
    } else {
        EXIT_ERRORS
    }))
}

/// Replaces the package's `p4/` with `programs` (none: `p4/` is only removed).
pub fn write(dir: &Path, programs: &[(String, String)]) -> Result<(), BuildError> {
    let p4 = dir.join(P4_DIR);
    let fail = |action: &'static str, path: &Path| {
        let path = shown(path);
        move |source| BuildError::WriteP4 {
            action,
            path,
            source,
        }
    };
    if p4.is_dir() {
        std::fs::remove_dir_all(&p4).map_err(fail("remove", &p4))?;
    }
    if programs.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(&p4).map_err(fail("create", &p4))?;
    for (scu, text) in programs {
        let path = p4.join(format!("{scu}.p4"));
        std::fs::write(&path, text).map_err(fail("write", &path))?;
    }
    Ok(())
}
