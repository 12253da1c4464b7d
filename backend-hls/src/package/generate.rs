//! [`build`]: the whole backend for one program: the kernel writer ([`crate::write_kernel`]), then
//! [`Package::assemble`]. This is what `scenicc build` and `scenicc emit manifest` call.

use super::{Generated, KernelText, Package, PackageError, PackageOptions};
use scenic_ir::{Module, ModuleInfo};

/// What [`build`] needs: a validated module and the source it came from.
#[derive(Clone, Copy, Debug)]
pub struct BuildInputs<'a> {
    /// The program.
    pub module: &'a Module,
    /// Its validation facts.
    pub info: &'a ModuleInfo,
    /// The source file as given (`examples/firewall.sn`).
    pub source_file: &'a str,
    /// Its text.
    pub source_text: &'a str,
    /// The frontend's id of the source file (for `// file.sn:LINE` comments in the kernels).
    pub root_file_id: u32,
}

/// Why [`build`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The kernel writer refused a construct (a limit, an unsupported construct), with its span.
    #[error(transparent)]
    Backend(crate::Error),
    /// The package could not be assembled.
    #[error(transparent)]
    Package(PackageError),
}

/// Generates every scu's kernel and assembles the package (a program without scus gets a package
/// with its manifest and model only).
pub fn build(inputs: &BuildInputs<'_>) -> Result<Package, BuildError> {
    let mut options = crate::Options::default();
    options
        .sources
        .add(inputs.root_file_id, inputs.source_file, inputs.source_text);
    let generated = if inputs.module.scus.is_empty() && inputs.module.ccs.is_empty() {
        Generated::new(Vec::new(), Vec::new())
    } else {
        let files = crate::write_kernel(inputs.module, inputs.info, &options)
            .map_err(BuildError::Backend)?;
        let text = |k: crate::Kernel| KernelText {
            scu: k.scu,
            top: k.top,
            hpp: k.hpp,
            cpp: k.cpp,
            tb: k.tb,
            ports: k.ports,
            ii: k.ii,
            window_beats: k.window_beats,
        };
        let kernels = files.kernels.into_iter().map(text).collect();
        let ccs = files.ccs.into_iter().map(text).collect();
        Generated::new(kernels, files.support).with_ccs(ccs)
    };
    let package_options = PackageOptions {
        timing: options.timing.clone(),
        part: options.part.clone(),
        source_file: inputs.source_file.to_string(),
        source_sha256: String::new(),
    };
    Package::assemble(
        inputs.module,
        inputs.info,
        &package_options,
        inputs.source_text,
        &generated,
    )
    .map_err(BuildError::Package)
}
