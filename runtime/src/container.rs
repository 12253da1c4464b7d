//! The model container (image kind 1, `docs/device.md` §3.3) and the identity a load is checked
//! against: what the host stages and what the emulated device parses, in one place so both sides
//! read the same bytes the same way.
//!
//! A container is a 32-byte header (`"SCNMODEL"`, version 1, the byte lengths `m` and `n`), then the
//! package's `manifest.json` (`m` bytes) and `model/module.json` (`n` bytes), unchanged. The
//! [`StagedIdentity`] of a unit is computed from the manifest alone: `SOURCE_SHA256`, `NAME_HASH`
//! (the first 8 bytes, little-endian, of SHA-256 of the unit's name), `FORMAT` and `COMPILER`.
//!
//! Invariants: [`parse`] never panics on any input and refuses a header whose lengths do not add up
//! to the image; [`crc32`] is CRC-32/ISO-HDLC (zlib's `crc32`), the check value of `"123456789"`
//! being `0xCBF43926`.

use scenic_scu_abi::manifest::Manifest;
use sha2::{Digest, Sha256};

/// The container's magic, bytes 0..8.
pub const MAGIC: &[u8; 8] = b"SCNMODEL";
/// The container version this runtime writes and reads.
pub const VERSION: u32 = 1;
/// Bytes of the header.
pub const HEADER_BYTES: usize = 32;
/// Largest control data width `D` a device entry carries: (256 − 16) × 8 (§3.6).
pub const MAX_DATA_BITS: u32 = 1920;

/// Which kind of unit a slot runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// An `scu` (SCU slots).
    Scu,
    /// A `cc` (CC slots).
    Cc,
}

/// The identity registers a load is checked against (`STAGE_SHA256` … `STAGE_COMPILER`), equal to
/// the bank's identity block once loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StagedIdentity {
    /// `program.source_sha256`, hex-decoded.
    pub source_sha256: [u8; 32],
    /// First 8 bytes (LE) of SHA-256 of the unit's name.
    pub name_hash: u64,
    /// `[0..16)` manifest format, `[16..32)` control format, `[32..48)` `D`.
    pub format: u64,
    /// `[32..48)` major, `[16..32)` minor, `[0..16)` patch.
    pub compiler: u64,
    /// The unit's index in `scus[]` or `ccs[]`.
    pub unit: u16,
}

/// Why a container or an identity could not be made or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// The header is not a model container's.
    #[error("not a model container: {0}")]
    Format(String),
    /// The manifest does not say what the identity needs.
    #[error("manifest: {0}")]
    Manifest(String),
    /// No unit of that kind and index.
    #[error("the package has no {kind} number {index}")]
    NoUnit {
        /// `scu` or `cc`.
        kind: &'static str,
        /// The index asked for.
        index: u16,
    },
}

/// The container of a package: its `manifest.json` and `model/module.json` texts, unchanged.
pub fn build(manifest_json: &[u8], module_json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + manifest_json.len() + module_json.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(manifest_json.len() as u64).to_le_bytes());
    out.extend_from_slice(&(module_json.len() as u64).to_le_bytes());
    out.extend_from_slice(manifest_json);
    out.extend_from_slice(module_json);
    out
}

/// The manifest and model bytes of a container.
pub fn parse(image: &[u8]) -> Result<(&[u8], &[u8]), ContainerError> {
    let bad = |what: &str| ContainerError::Format(what.to_string());
    if image.len() < HEADER_BYTES {
        return Err(bad("shorter than its 32-byte header"));
    }
    if &image[0..8] != MAGIC {
        return Err(bad("magic is not \"SCNMODEL\""));
    }
    let word32 =
        |at: usize| u32::from_le_bytes([image[at], image[at + 1], image[at + 2], image[at + 3]]);
    let word64 = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&image[at..at + 8]);
        u64::from_le_bytes(b)
    };
    if word32(8) != VERSION {
        return Err(ContainerError::Format(format!(
            "container version {} (this device reads {VERSION})",
            word32(8)
        )));
    }
    if word32(12) != 0 {
        return Err(bad("reserved header bytes 12..16 are not 0"));
    }
    let (m, n) = (word64(16), word64(24));
    let body = (image.len() - HEADER_BYTES) as u64;
    if m.checked_add(n) != Some(body) {
        return Err(ContainerError::Format(format!(
            "header says {m} + {n} bytes, the image holds {body} after the header"
        )));
    }
    let split = HEADER_BYTES + m as usize;
    Ok((&image[HEADER_BYTES..split], &image[split..]))
}

impl UnitKind {
    /// The manifest's name for the kind.
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Scu => "scu",
            UnitKind::Cc => "cc",
        }
    }

    /// The `UNIT` attach code of a CC unit (SCU units take theirs from the manifest).
    pub const CC_ATTACH: u8 = 3;
}

impl StagedIdentity {
    /// The identity of unit `index` of kind `kind` in `manifest`.
    pub fn of(
        manifest: &Manifest,
        kind: UnitKind,
        index: u16,
    ) -> Result<StagedIdentity, ContainerError> {
        let name = unit_name(manifest, kind, index)?;
        Ok(StagedIdentity {
            source_sha256: decode_sha256(&manifest.program.source_sha256)?,
            name_hash: name_hash(name),
            format: format_word(
                manifest.format_version,
                manifest.control.format_version,
                manifest.control.data_bits,
            ),
            compiler: compiler_word(&manifest.program.compiler_version)?,
            unit: index,
        })
    }

    /// `SOURCE_SHA256` as the four words of `STAGE_SHA256` (first byte lowest).
    pub fn sha256_words(&self) -> [u64; 4] {
        let mut words = [0u64; 4];
        for (w, chunk) in words.iter_mut().zip(self.source_sha256.chunks(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            *w = u64::from_le_bytes(b);
        }
        words
    }
}

/// The name of unit `index` of kind `kind`.
pub fn unit_name(manifest: &Manifest, kind: UnitKind, index: u16) -> Result<&str, ContainerError> {
    let name = match kind {
        UnitKind::Scu => manifest
            .scus
            .get(usize::from(index))
            .map(|s| s.name.as_str()),
        UnitKind::Cc => manifest
            .ccs
            .get(usize::from(index))
            .map(|c| c.name.as_str()),
    };
    name.ok_or(ContainerError::NoUnit {
        kind: kind.name(),
        index,
    })
}

/// `NAME_HASH` of a unit name.
pub fn name_hash(name: &str) -> u64 {
    let digest = Sha256::digest(name.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(b)
}

/// The `FORMAT` word.
pub fn format_word(manifest_format: u32, control_format: u32, data_bits: u32) -> u64 {
    u64::from(manifest_format & 0xFFFF)
        | u64::from(control_format & 0xFFFF) << 16
        | u64::from(data_bits & 0xFFFF) << 32
}

/// The `COMPILER` word of a `MAJOR.MINOR.PATCH` version (a pre-release or build suffix is ignored).
pub fn compiler_word(version: &str) -> Result<u64, ContainerError> {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<Option<u16>> = core.split('.').map(|p| p.parse().ok()).collect();
    match parts.as_slice() {
        [Some(major), Some(minor), Some(patch)] => {
            Ok(u64::from(*major) << 32 | u64::from(*minor) << 16 | u64::from(*patch))
        }
        _ => Err(ContainerError::Manifest(format!(
            "compiler_version `{version}` is not MAJOR.MINOR.PATCH"
        ))),
    }
}

fn decode_sha256(hex: &str) -> Result<[u8; 32], ContainerError> {
    let bad = || ContainerError::Manifest(format!("source_sha256 `{hex}` is not 64 hex digits"));
    if hex.len() != 64 || !hex.is_ascii() {
        return Err(bad());
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(out)
}

/// CRC-32/ISO-HDLC (zlib's `crc32`) of `bytes`: `STAGE_CRC32`. The language's `crc32` intrinsic
/// is the same CRC (IEEE 802.3), so there is one implementation.
pub fn crc32(bytes: &[u8]) -> u32 {
    scenic_ir::proc::intrinsics::crc32(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_values() {
        // The catalogue's check value of CRC-32/ISO-HDLC, and zlib's crc32 of "" and of "a".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
    }

    #[test]
    fn containers_round_trip_and_damage_is_refused() {
        let image = build(b"{\"m\":1}", b"[1,2,3]");
        assert_eq!(&image[..8], b"SCNMODEL");
        assert_eq!(image.len(), 32 + 7 + 7);
        assert_eq!(parse(&image), Ok((&b"{\"m\":1}"[..], &b"[1,2,3]"[..])));
        for cut in 0..image.len() {
            assert!(parse(&image[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = image.clone();
        bad[0] = b'X';
        assert!(parse(&bad).is_err());
        let mut bad = image.clone();
        bad[8] = 2;
        assert!(parse(&bad).is_err());
        let mut bad = image;
        bad[16] = 0xFF;
        assert!(parse(&bad).is_err());
    }

    #[test]
    fn identity_words() {
        assert_eq!(compiler_word("0.1.0"), Ok(0x1_0000));
        assert_eq!(compiler_word("2.3.4-rc1"), Ok(2 << 32 | 3 << 16 | 4));
        assert!(compiler_word("1.2").is_err());
        assert_eq!(format_word(1, 1, 256), 1 | 1 << 16 | 256 << 32);
        // SHA-256("abc") = ba7816bf 8f01cfea …: the first 8 bytes little-endian.
        assert_eq!(name_hash("abc"), 0xeacf_018f_bf16_78ba);
        assert!(decode_sha256("zz").is_err());
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let sha = decode_sha256(hex).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sha[0], 0xba);
        assert_eq!(sha[31], 0xad);
    }
}
