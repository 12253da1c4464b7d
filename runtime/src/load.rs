//! [`load`]: a package's unit into a slot (`docs/device.md` §3.3, §3.4, §7 steps 1–2).
//!
//! Steps: the unit of the right kind for the slot (an scu in an SCU slot, a cc in a CC slot) and
//! the device's features (`F_STAGE_WINDOW`, `F_IMAGE_MODEL`) are checked first; a leftover `SHADOW`
//! bank (a load never activated) is freed, a `DRAINING` one freed once `QUIESCED`; then the model
//! container is staged, the identity registers, `STAGE_UNIT` and `STAGE_CRC32` written, `LOAD`
//! issued (the device checks everything again and refuses with a §6 code), and in an SCU slot the
//! new bank activated. A bank that was active before is now `DRAINING`: it is freed once
//! `QUIESCED` (a replacement). A `slow_path` scu becomes the slow-path slot (`SLOW_PATH_SLOT`,
//! fenced). The slot's journal (`slotK.json`) is then started afresh: package, unit, bank.
//!
//! Invariant: a refusal before `LOAD` leaves the slot's banks as they were; a refused `LOAD`
//! leaves the target bank `EMPTY` and the active bank untouched (the device's rule).

use std::time::{Duration, Instant};

use scenic_scu_abi::manifest::AttachKind;

use crate::abi::global::Feature;
use crate::abi::slot::{self, Bank, BankState, SlotOp};
use crate::abi::{self};
use crate::container::{crc32, UnitKind};
use crate::device::{Device, DeviceError};
use crate::package::Package;
use crate::scu::{sha_hex, ScuError};
use crate::state::{Journal, StateDir, JOURNAL_FORMAT};

/// How long a draining bank may take to become `QUIESCED`.
pub const QUIESCE_TIMEOUT: Duration = Duration::from_secs(5);

/// Image kind 1, the model container.
pub const IMAGE_MODEL: u64 = 1;

/// What a load did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadReport {
    /// The slot.
    pub slot: u8,
    /// The bank the unit now lives in.
    pub bank: u8,
    /// `scu` or `cc`.
    pub kind: UnitKind,
    /// The unit's name.
    pub unit: String,
    /// `LOAD_NS`: how long the device took.
    pub load_ns: u64,
    /// The bank that was active before (a replacement), now freed.
    pub replaced: Option<u8>,
    /// The slot was made the slow-path slot.
    pub slow_path: bool,
    /// The bank is active (SCU slots); a CC slot's unit stays standby until a CC switch.
    pub active: bool,
    /// Bytes of the staged image.
    pub image_bytes: usize,
}

/// Loads unit `unit` of `pkg` (`None`: its only unit) into slot `k` (module doc).
pub fn load(
    dev: &Device,
    k: u8,
    pkg: &Package,
    unit: Option<&str>,
) -> Result<LoadReport, ScuError> {
    load_with(dev, k, pkg, unit, &StateDir::of(dev)?)
}

fn slot_error(k: u8, problem: String) -> ScuError {
    ScuError::Slot { slot: k, problem }
}

/// [`load`] with an explicit state directory.
pub fn load_with(
    dev: &Device,
    k: u8,
    pkg: &Package,
    unit: Option<&str>,
    state: &StateDir,
) -> Result<LoadReport, ScuError> {
    let (kind, index) = pkg.unit(unit)?;
    let name = pkg.unit_name(kind, index)?.to_string();
    // A slot the device has, before anything else is checked.
    dev.slot_block(k)?;
    let cc_slot = k == abi::CC_SLOT_A || k == abi::CC_SLOT_B;
    if (kind == UnitKind::Cc) != cc_slot {
        return Err(slot_error(
            k,
            format!(
                "`{name}` is a {}, slot {k} is {}",
                kind.name(),
                if cc_slot { "a CC slot" } else { "an SCU slot" }
            ),
        ));
    }
    let id = dev.identity();
    for feature in [Feature::StageWindow, Feature::ImageModel] {
        if !id.has(feature) {
            return Err(slot_error(
                k,
                format!("the device lacks {feature:?}: it cannot load model containers"),
            ));
        }
    }
    let identity = pkg.identity(kind, index)?;
    let before = dev.slot_state(k)?;
    let staged = stage_and_load(dev, k, pkg, kind, index)?;
    let (bank, load_ns, image_bytes) = (staged.bank, staged.load_ns, staged.image_bytes);
    let mut replaced = None;
    let mut slow_path = false;
    if !cc_slot {
        dev.slot_command(k, SlotOp::Activate, 0)?;
        if let Some(old) = before.active {
            free_when_quiesced(dev, k)?;
            replaced = Some(old as u8);
        }
        let attach = pkg
            .manifest()
            .scus
            .get(usize::from(index))
            .map(|s| s.attach);
        if attach == Some(AttachKind::SlowPath) {
            crate::steering::set_slow_path(dev, Some(k))
                .map_err(|e| slot_error(k, e.to_string()))?;
            slow_path = true;
        }
    }
    state.write_journal(
        k,
        &Journal {
            format_version: JOURNAL_FORMAT,
            package: pkg.dir().to_path_buf(),
            kind: kind.name().to_string(),
            unit: name.clone(),
            index,
            source_sha256: sha_hex(&identity.source_sha256),
            bank: bank as u8,
            tables: Default::default(),
        },
    )?;
    Ok(LoadReport {
        slot: k,
        bank: bank as u8,
        kind,
        unit: name,
        load_ns,
        replaced,
        slow_path,
        active: !cc_slot,
        image_bytes,
    })
}

/// What [`stage_and_load`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Staged {
    /// The bank that now holds the unit, `SHADOW`.
    pub bank: Bank,
    /// `LOAD_NS`.
    pub load_ns: u64,
    /// Bytes of the image.
    pub image_bytes: usize,
}

/// Empties the non-active bank, stages the package's container with the unit's identity and
/// issues `LOAD`: the unit is then `SHADOW` in the returned bank.
pub(crate) fn stage_and_load(
    dev: &Device,
    k: u8,
    pkg: &Package,
    kind: UnitKind,
    index: u16,
) -> Result<Staged, ScuError> {
    let base = dev.slot_block(k)?;
    let identity = pkg.identity(kind, index)?;
    clear_other_bank(dev, k)?;
    let image = pkg.container();
    dev.stage_image(k, IMAGE_MODEL, &image)?;
    for (i, word) in identity.sha256_words().iter().enumerate() {
        dev.write(base + slot::STAGE_SHA256 + 8 * i as u64, *word)?;
    }
    dev.write(base + slot::STAGE_NAME_HASH, identity.name_hash)?;
    dev.write(base + slot::STAGE_FORMAT, identity.format)?;
    dev.write(base + slot::STAGE_COMPILER, identity.compiler)?;
    dev.write(base + slot::STAGE_UNIT, u64::from(index))?;
    dev.write(base + slot::STAGE_CRC32, u64::from(crc32(&image)))?;
    let loaded = dev.slot_command(k, SlotOp::Load, 0)?;
    let bank = Bank::from_bit(loaded.detail & 1 == 1);
    let load_ns = dev.read(base + slot::identity_block(bank) + slot::LOAD_NS)?;
    Ok(Staged {
        bank,
        load_ns,
        image_bytes: image.len(),
    })
}

/// Makes the non-active bank `EMPTY`: frees a `SHADOW` bank (a load never activated) and a
/// `DRAINING` one once `QUIESCED`.
fn clear_other_bank(dev: &Device, k: u8) -> Result<(), ScuError> {
    let st = dev.slot_state(k)?;
    let other = match st.active {
        Some(a) => a.other(),
        // No active bank: §3.4's "other" is the draining, else the shadow/loading bank, else 0.
        None => [Bank::B0, Bank::B1]
            .into_iter()
            .find(|b| st.banks[b.index()] == Some(BankState::Draining))
            .or_else(|| {
                [Bank::B0, Bank::B1].into_iter().find(|b| {
                    matches!(
                        st.banks[b.index()],
                        Some(BankState::Shadow | BankState::Loading)
                    )
                })
            })
            .unwrap_or(Bank::B0),
    };
    match st.banks[other.index()] {
        Some(BankState::Empty) => Ok(()),
        Some(BankState::Shadow) => {
            dev.slot_command(k, SlotOp::Free, 0)?;
            Ok(())
        }
        Some(BankState::Draining) => free_when_quiesced(dev, k),
        state => Err(slot_error(
            k,
            format!(
                "bank {} is {}: wait for it, or reset the device",
                other as u8,
                state.map_or("in an unknown state", |s| s.doc_name())
            ),
        )),
    }
}

/// Waits for `QUIESCED`, then frees the draining bank.
pub(crate) fn free_when_quiesced(dev: &Device, k: u8) -> Result<(), ScuError> {
    let started = Instant::now();
    while !dev.slot_state(k)?.quiesced {
        if started.elapsed() > QUIESCE_TIMEOUT {
            return Err(slot_error(
                k,
                format!("the draining bank did not become QUIESCED within {QUIESCE_TIMEOUT:?}"),
            ));
        }
        dev.check_alive()?;
        std::thread::sleep(Duration::from_micros(200));
    }
    dev.slot_command(k, SlotOp::Free, 1)
        .map(|_| ())
        .map_err(|e: DeviceError| e.into())
}
