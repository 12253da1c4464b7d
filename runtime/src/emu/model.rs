//! The emulator's loader of model containers (`docs/device.md` §3.3): the checks a `LOAD` makes,
//! in the document's order, and the [`Unit`] it builds on the reference interpreter.
//!
//! Order (the first failing check gives the code): CRC (`E_IMAGE_CRC`); container well-formed and
//! manifest readable (`E_IMAGE_FORMAT`); manifest and control format versions known
//! (`E_VERSION`); `STAGE_UNIT` names an `scu` for an SCU slot, a `cc` for a CC slot (`E_UNIT`);
//! hash, unit name, format and compiler equal the staged identity (`E_IDENTITY`); `D ≤ 1920`
//! (`E_TOO_WIDE`). Kind and length are the server's checks before this one runs. The model itself
//! must then read and validate, and name the unit the manifest names (`E_IMAGE_FORMAT`): a
//! container whose manifest and model disagree is damaged, whatever its CRC says.
//!
//! A CC slot loads a `cc` the same way into a [`CcUnit`]: `FLOWS` is the manifest's
//! `ccs[u].flows`, the output kind its `ccs[u].output`, `CSR_WORDS` its params. A cc with more
//! flows than an output block holds (8192, §4.4) does not fit the slot (`E_RESOURCES`).

use scenic_ir::valid::Validator;
use scenic_scu_abi::control::FORMAT_VERSION as CONTROL_FORMAT;
use scenic_scu_abi::manifest::{AttachKind, Manifest, ManifestError, FORMAT_VERSION};

use super::cc_events::OUTPUT_WORDS;
use super::cc_unit::{output_code, CcUnit};
use super::unit::Unit;
use super::LoadedUnit;
use crate::abi::codes::Code;
use crate::container::{self, StagedIdentity, UnitKind, MAX_DATA_BITS};

/// What the host staged besides the image: the identity registers and the CRC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Staged {
    /// `STAGE_SHA256` … `STAGE_UNIT`.
    pub identity: StagedIdentity,
    /// `STAGE_CRC32`.
    pub crc32: u32,
}

/// A loaded unit of either kind.
#[derive(Debug)]
pub enum Loaded {
    /// An scu, for an SCU slot's bank.
    Scu(Unit),
    /// A cc, for a CC slot's bank 0.
    Cc(CcUnit),
}

/// Loads a model container for a slot of kind `kind`: the unit and its identity-block fields.
pub fn load(image: &[u8], staged: &Staged, kind: UnitKind) -> Result<(Loaded, LoadedUnit), Code> {
    if container::crc32(image) != staged.crc32 {
        return Err(Code::ImageCrc);
    }
    let (manifest_bytes, model_bytes) = container::parse(image).map_err(|_| Code::ImageFormat)?;
    let manifest = read_manifest(manifest_bytes)?;
    if manifest.control.format_version != CONTROL_FORMAT {
        return Err(Code::Version);
    }
    let unit = staged.identity.unit;
    let expected = StagedIdentity::of(&manifest, kind, unit).map_err(|e| match e {
        container::ContainerError::NoUnit { .. } => Code::Unit,
        _ => Code::ImageFormat,
    })?;
    if expected != staged.identity {
        return Err(Code::Identity);
    }
    if manifest.control.data_bits > MAX_DATA_BITS {
        return Err(Code::TooWide);
    }
    let module = read_model(model_bytes)?;
    match kind {
        UnitKind::Scu => load_scu(&manifest, module, unit).map(|(u, l)| (Loaded::Scu(u), l)),
        UnitKind::Cc => load_cc(&manifest, module, unit).map(|(u, l)| (Loaded::Cc(u), l)),
    }
}

fn read_model(model: &[u8]) -> Result<scenic_ir::program::Module, Code> {
    let text = std::str::from_utf8(model).map_err(|_| Code::ImageFormat)?;
    let module = scenic_ir::model::from_json(text).map_err(|_| Code::ImageFormat)?;
    Validator::new()
        .validate(&module)
        .map_err(|_| Code::ImageFormat)?;
    Ok(module)
}

fn load_cc(
    manifest: &Manifest,
    module: scenic_ir::program::Module,
    unit: u16,
) -> Result<(CcUnit, LoadedUnit), Code> {
    let entry = manifest.ccs.get(usize::from(unit)).ok_or(Code::Unit)?;
    let cc = module
        .ccs
        .iter()
        .find(|(_, c)| c.name == entry.name)
        .map(|(id, _)| id)
        .ok_or(Code::ImageFormat)?;
    if entry.flows > OUTPUT_WORDS {
        return Err(Code::Resources);
    }
    let loaded = LoadedUnit {
        csr_words: entry.params.len() as u64,
        flows: entry.flows,
        attach: 3,
        output_kind: output_code(entry.output),
    };
    let data_bits = manifest.control.data_bits;
    Ok((CcUnit::new(module, cc, entry.clone(), data_bits), loaded))
}

fn read_manifest(bytes: &[u8]) -> Result<Manifest, Code> {
    let text = std::str::from_utf8(bytes).map_err(|_| Code::ImageFormat)?;
    Manifest::from_json(text)
        .map_err(|e| match e {
            ManifestError::UnsupportedVersion { .. } => Code::Version,
            _ => Code::ImageFormat,
        })
        .and_then(|m| {
            if m.format_version == FORMAT_VERSION {
                Ok(m)
            } else {
                Err(Code::Version)
            }
        })
}

fn load_scu(
    manifest: &Manifest,
    module: scenic_ir::program::Module,
    unit: u16,
) -> Result<(Unit, LoadedUnit), Code> {
    let entry = manifest.scus.get(usize::from(unit)).ok_or(Code::Unit)?;
    let control = manifest
        .control
        .scus
        .iter()
        .find(|s| s.name == entry.name)
        .cloned()
        .ok_or(Code::ImageFormat)?;
    let scu = module
        .scus
        .iter()
        .find(|(_, s)| s.name == entry.name)
        .map(|(id, _)| id)
        .ok_or(Code::ImageFormat)?;
    let attach = match entry.attach {
        AttachKind::SlowPath => 0,
        AttachKind::Rdma => 1,
        AttachKind::Tcp => 2,
    };
    let loaded = LoadedUnit {
        csr_words: control.csrs.len() as u64,
        flows: 0,
        attach,
        output_kind: 0,
    };
    Ok((
        Unit::new(module, scu, control, manifest.control.data_bits),
        loaded,
    ))
}
