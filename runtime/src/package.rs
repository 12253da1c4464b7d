//! [`Package::open`]: an SCU package directory (`scenicc build` output) read and verified before
//! anything of it reaches a device.
//!
//! What is checked, in order, each failure a [`PackageError`] naming the file and what is wrong:
//! 1. `manifest.json` is readable and a manifest of a known `format_version`
//!    ([`Manifest::from_json`]);
//! 2. `program.compiler_version` is this runtime's version (the workspace's: compiler and runtime
//!    are released together, and the control records and the model are versioned with them);
//! 3. `model/module.json` is readable, a module ([`scenic_ir::model::from_json`]), and valid
//!    ([`scenic_ir::Validator`]);
//! 4. the model belongs to the manifest: the same scus and ccs by name, and the control layout
//!    recomputed from the model ([`ControlLayout::new`]) equals the manifest's `control`.
//!
//! Invariants of an open [`Package`]: the manifest and the model agree (the layout the runtime
//! encodes records with is the one the model, hence the device, decodes them with); the bytes kept
//! are the exact file bytes, so [`Package::container`] is what `docs/device.md` §3.3 stages and the
//! device's identity check sees the same manifest.

use std::path::{Path, PathBuf};

use scenic_ir::entities::ScuId;
use scenic_ir::program::{Module, Scu};
use scenic_ir::valid::ModuleInfo;
use scenic_scu_abi::control::{ControlLayout, ScuControl};
use scenic_scu_abi::manifest::{Manifest, ManifestError};

use crate::container::{self, ContainerError, StagedIdentity, UnitKind};

/// The version of this runtime, which must equal the compiler version of a package it loads.
pub const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why a package could not be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A file could not be read (missing, permissions, not UTF-8).
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// `manifest.json` is damaged or of an unknown format version.
    #[error("{}: {error}", path.display())]
    Manifest {
        /// The manifest's path.
        path: PathBuf,
        /// The reader's error (it names the line and column, or the version).
        error: ManifestError,
    },
    /// The package was built by another compiler version.
    #[error(
        "{}: the package was built by scenicc {found}, this runtime is {RUNTIME_VERSION}; rebuild \
         the package with scenicc {RUNTIME_VERSION} (`scenicc build`)",
        path.display()
    )]
    CompilerVersion {
        /// The manifest's path.
        path: PathBuf,
        /// The version the manifest names.
        found: String,
    },
    /// `model/module.json` is damaged or not a valid module.
    #[error("{}: {message}", path.display())]
    Model {
        /// The model's path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The model does not belong to the manifest.
    #[error(
        "{}: the model does not belong to the manifest: {what}; the package is damaged or mixed \
         from two builds: rebuild it",
        dir.display()
    )]
    Mismatch {
        /// The package directory.
        dir: PathBuf,
        /// What differs.
        what: String,
    },
    /// No unit of that name (or index), or several units and none named.
    #[error("package `{program}`: {problem} (units: {known})")]
    Unit {
        /// The program's name.
        program: String,
        /// What is wrong.
        problem: String,
        /// The units the package has (`scu incast_firewall`, `cc dcqcn`).
        known: String,
    },
    /// The identity words could not be computed.
    #[error("{}: {error}", path.display())]
    Identity {
        /// The manifest's path.
        path: PathBuf,
        /// What is wrong.
        error: ContainerError,
    },
}

impl PackageError {
    /// The exit code of the `scenic` command line: 2 for a file that cannot be read (I/O), 1 for a
    /// package that is damaged, mismatched or of another version.
    pub fn exit_code(&self) -> u8 {
        match self {
            PackageError::Io { .. } => 2,
            _ => 1,
        }
    }
}

/// An open, verified SCU package.
#[derive(Debug)]
pub struct Package {
    dir: PathBuf,
    manifest: Manifest,
    manifest_bytes: Vec<u8>,
    module_bytes: Vec<u8>,
    module: Module,
    info: ModuleInfo,
}

fn read(path: &Path) -> Result<(Vec<u8>, String), PackageError> {
    let io = |message: String| PackageError::Io {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| io(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes.clone()).map_err(|e| {
        io(format!(
            "not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((bytes, text))
}

impl Package {
    /// Reads and verifies the package in `dir` (module doc for the checks).
    pub fn open(dir: impl AsRef<Path>) -> Result<Package, PackageError> {
        let given = dir.as_ref();
        let dir = std::fs::canonicalize(given).map_err(|e| PackageError::Io {
            path: given.to_path_buf(),
            message: format!("cannot open the package directory: {e}"),
        })?;
        let manifest_path = dir.join("manifest.json");
        let (manifest_bytes, text) = read(&manifest_path)?;
        let manifest = Manifest::from_json(&text).map_err(|error| PackageError::Manifest {
            path: manifest_path.clone(),
            error,
        })?;
        if manifest.program.compiler_version != RUNTIME_VERSION {
            return Err(PackageError::CompilerVersion {
                path: manifest_path,
                found: manifest.program.compiler_version.clone(),
            });
        }
        let model_path = dir.join("model").join("module.json");
        let (module_bytes, text) = read(&model_path)?;
        let model_error = |message: String| PackageError::Model {
            path: model_path.clone(),
            message,
        };
        let module = scenic_ir::model::from_json(&text)
            .map_err(|e| model_error(format!("not a scenic module: {e}")))?;
        let info = scenic_ir::Validator::new()
            .validate(&module)
            .map_err(|e| model_error(format!("the module is not valid: {e}")))?;
        let package = Package {
            dir,
            manifest,
            manifest_bytes,
            module_bytes,
            module,
            info,
        };
        package.check_agreement()?;
        Ok(package)
    }

    /// Step 4 of the module doc: the model belongs to the manifest.
    fn check_agreement(&self) -> Result<(), PackageError> {
        let mismatch = |what: String| PackageError::Mismatch {
            dir: self.dir.clone(),
            what,
        };
        let model_scus: Vec<&str> = self.module.scus.values().map(|s| s.name.as_str()).collect();
        let manifest_scus: Vec<&str> = self.manifest.scus.iter().map(|s| s.name.as_str()).collect();
        if model_scus != manifest_scus {
            return Err(mismatch(format!(
                "the manifest's scus are [{}], the model's [{}]",
                manifest_scus.join(", "),
                model_scus.join(", ")
            )));
        }
        let model_ccs: Vec<&str> = self.module.ccs.values().map(|c| c.name.as_str()).collect();
        let manifest_ccs: Vec<&str> = self.manifest.ccs.iter().map(|c| c.name.as_str()).collect();
        if model_ccs != manifest_ccs {
            return Err(mismatch(format!(
                "the manifest's ccs are [{}], the model's [{}]",
                manifest_ccs.join(", "),
                model_ccs.join(", ")
            )));
        }
        let layout = ControlLayout::new(&self.module, &self.info);
        if layout != self.manifest.control {
            return Err(mismatch(describe_layout_difference(
                &self.manifest.control,
                &layout,
            )));
        }
        Ok(())
    }

    /// The package directory (absolute).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The model.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The model's validation facts.
    pub fn info(&self) -> &ModuleInfo {
        &self.info
    }

    /// The program's name.
    pub fn name(&self) -> &str {
        &self.manifest.program.name
    }

    /// The unit named `which` (an scu or cc name, or an scu index); with `None`, the package's only
    /// scu (or its only cc when it has no scu). Errors list the units.
    pub fn unit(&self, which: Option<&str>) -> Result<(UnitKind, u16), PackageError> {
        let scus = self.manifest.scus.iter().map(|s| s.name.as_str());
        let ccs = self.manifest.ccs.iter().map(|c| c.name.as_str());
        let error = |problem: String| PackageError::Unit {
            program: self.name().to_string(),
            problem,
            known: self.unit_list(),
        };
        let index = |i: usize| u16::try_from(i).map_err(|_| error("too many units".into()));
        match which {
            Some(name) => {
                if let Some(i) = scus.clone().position(|s| s == name) {
                    return Ok((UnitKind::Scu, index(i)?));
                }
                if let Some(i) = ccs.clone().position(|c| c == name) {
                    return Ok((UnitKind::Cc, index(i)?));
                }
                match name.parse::<usize>() {
                    Ok(i) if i < self.manifest.scus.len() => Ok((UnitKind::Scu, index(i)?)),
                    _ => Err(error(format!("no unit `{name}`"))),
                }
            }
            None => match (self.manifest.scus.len(), self.manifest.ccs.len()) {
                (1, _) => Ok((UnitKind::Scu, 0)),
                (0, 1) => Ok((UnitKind::Cc, 0)),
                (0, 0) => Err(error("the package has no scu and no cc".into())),
                _ => Err(error(
                    "the package has several units: name one (`--unit NAME`)".into(),
                )),
            },
        }
    }

    fn unit_list(&self) -> String {
        let scus = self.manifest.scus.iter().map(|s| format!("scu {}", s.name));
        let ccs = self.manifest.ccs.iter().map(|c| format!("cc {}", c.name));
        let all: Vec<String> = scus.chain(ccs).collect();
        if all.is_empty() {
            "none".into()
        } else {
            all.join(", ")
        }
    }

    /// The name of a unit.
    pub fn unit_name(&self, kind: UnitKind, index: u16) -> Result<&str, PackageError> {
        container::unit_name(&self.manifest, kind, index)
            .map_err(|error| self.identity_error(error))
    }

    /// The model container of §3.3: the exact bytes of `manifest.json` and `model/module.json`.
    pub fn container(&self) -> Vec<u8> {
        container::build(&self.manifest_bytes, &self.module_bytes)
    }

    /// The identity a bank loaded with this unit carries (§3.2).
    pub fn identity(&self, kind: UnitKind, index: u16) -> Result<StagedIdentity, PackageError> {
        StagedIdentity::of(&self.manifest, kind, index).map_err(|error| self.identity_error(error))
    }

    fn identity_error(&self, error: ContainerError) -> PackageError {
        PackageError::Identity {
            path: self.dir.join("manifest.json"),
            error,
        }
    }

    /// The control layout of scu `index`.
    pub fn scu_control(&self, index: u16) -> Option<&ScuControl> {
        self.manifest.control.scus.get(usize::from(index))
    }

    /// The model's scu `index`.
    pub fn scu_def(&self, index: u16) -> Option<&Scu> {
        let id = ScuId::from_u32(u32::from(index));
        self.module.scus.get(id)
    }
}

/// The first difference between two layouts, named (`scu incast_firewall: table acl`).
fn describe_layout_difference(manifest: &ControlLayout, model: &ControlLayout) -> String {
    if manifest.data_bits != model.data_bits || manifest.format_version != model.format_version {
        return format!(
            "control format {} with D = {} in the manifest, format {} with D = {} from the model",
            manifest.format_version, manifest.data_bits, model.format_version, model.data_bits
        );
    }
    for (a, b) in manifest.scus.iter().zip(&model.scus) {
        let differs = |what: &str, name: &str| format!("scu `{}`: {what} `{name}` differs", a.name);
        for (x, y) in a.csrs.iter().zip(&b.csrs) {
            if x != y {
                return differs("CSR", &x.name);
            }
        }
        for (x, y) in a.tables.iter().zip(&b.tables) {
            if x != y {
                return differs("table", &x.name);
            }
        }
        for (x, y) in a.maps.iter().zip(&b.maps) {
            if x != y {
                return differs("map", &x.name);
            }
        }
        if a != b {
            return format!("scu `{}`: its control records differ", a.name);
        }
    }
    "the control layouts differ".to_string()
}
