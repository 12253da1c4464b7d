//! The server's staging, load and queue-reset commands (`docs/device.md` §3.3, §3.4).
//!
//! The staged image is kept per slot block in the server (`images`); `STAGE_FILLED` is the highest
//! end of any chunk written. `LOAD` checks, in the document's order, what this stage can check
//! (kind supported, image complete) and leaves the rest to the loader hook; on success the staged
//! identity becomes the bank's identity block, on failure the bank is `EMPTY` and its `LOAD_STATUS`
//! holds the code.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::model::Staged;
use super::{EmuServer, LoadRequest, LoadedUnit};
use crate::abi::codes::Code;
use crate::abi::global::{Feature, EMULATOR_FEATURES};
use crate::abi::slot::{self, Bank, SlotOp};
use crate::abi::{self, CommandWord};
use crate::container::StagedIdentity;
use crate::region::RegionError;

impl EmuServer {
    pub(super) fn staging_or_queue(
        &mut self,
        k: u8,
        cmd: CommandWord,
    ) -> Result<Code, RegionError> {
        let base = abi::slot_block_unchecked(k);
        let i = k as usize;
        match SlotOp::from_code(cmd.opcode) {
            Some(SlotOp::StageReset) => {
                self.images[i] = Vec::new();
                self.region
                    .store(base + slot::STAGE_FILLED, 0, Ordering::Release)?;
                Ok(Code::Ok)
            }
            Some(SlotOp::StageWrite) => self.stage_write(k),
            Some(SlotOp::QueueReset) => {
                if cmd.arg & 1 != 0 {
                    for reg in [
                        slot::CQ_REQ_PROD,
                        slot::CQ_REQ_CONS,
                        slot::CQ_RSP_PROD,
                        slot::CQ_RSP_CONS,
                    ] {
                        self.region.store(base + reg, 0, Ordering::Release)?;
                    }
                    self.restart_queue(k);
                }
                if cmd.arg & 2 != 0 {
                    for reg in [slot::NQ_PROD, slot::NQ_CONS] {
                        self.region.store(base + reg, 0, Ordering::Release)?;
                    }
                }
                Ok(Code::Ok)
            }
            _ => Ok(Code::BadCommand),
        }
    }

    fn stage_write(&mut self, k: u8) -> Result<Code, RegionError> {
        let base = abi::slot_block_unchecked(k);
        let r = |off| self.region.load(base + off, Ordering::Acquire);
        let (len, offset, chunk) = (
            r(slot::STAGE_LEN)?,
            r(slot::STAGE_OFFSET)?,
            r(slot::STAGE_CHUNK)?,
        );
        let end = offset.checked_add(chunk);
        let fits = matches!(end, Some(e) if e <= len);
        if len > super::EMU_STAGE_MAX || chunk == 0 || chunk > slot::STAGE_CHUNK_MAX || !fits {
            return Ok(Code::ImageLen);
        }
        let (Ok(start), Ok(n), Ok(total)) = (
            usize::try_from(offset),
            usize::try_from(chunk),
            usize::try_from(len),
        ) else {
            return Ok(Code::ImageLen);
        };
        let image = &mut self.images[k as usize];
        if image.len() < total {
            image.resize(total, 0);
        }
        self.region
            .read_bytes(base + slot::STAGE_WINDOW, &mut image[start..start + n])?;
        let filled = r(slot::STAGE_FILLED)?.max(offset + chunk);
        self.region
            .store(base + slot::STAGE_FILLED, filled, Ordering::Release)?;
        Ok(Code::Ok)
    }

    fn load_checks(&mut self, k: u8, bank: Bank) -> Result<Result<LoadedUnit, Code>, RegionError> {
        let base = abi::slot_block_unchecked(k);
        let r = |off| self.region.load(base + off, Ordering::Acquire);
        let kind = r(slot::STAGE_KIND)?;
        let supported = kind == 1 && EMULATOR_FEATURES & Feature::ImageModel.mask() != 0;
        if !supported {
            return Ok(Err(Code::ImageKind));
        }
        let len = r(slot::STAGE_LEN)?;
        if len == 0 || r(slot::STAGE_FILLED)? != len {
            return Ok(Err(Code::ImageLen));
        }
        let staged = self.staged(k)?;
        let image = &self.images[k as usize];
        let take = usize::try_from(len).map_or(image.len(), |n| n.min(image.len()));
        let req = LoadRequest {
            slot: k,
            bank,
            kind,
            image: &image[..take],
            staged,
        };
        Ok((self.loader)(&req))
    }

    /// Performs a `LOAD` into `bank` (already `LOADING`); returns the result's status.
    /// The identity registers and CRC the host staged in slot `k`.
    fn staged(&self, k: u8) -> Result<Staged, RegionError> {
        let base = abi::slot_block_unchecked(k);
        let r = |off| self.region.load(base + off, Ordering::Acquire);
        let mut sha = [0u8; 32];
        self.region
            .read_bytes(base + slot::STAGE_SHA256, &mut sha)?;
        Ok(Staged {
            identity: StagedIdentity {
                source_sha256: sha,
                name_hash: r(slot::STAGE_NAME_HASH)?,
                format: r(slot::STAGE_FORMAT)?,
                compiler: r(slot::STAGE_COMPILER)?,
                unit: (r(slot::STAGE_UNIT)? & 0xFFFF) as u16,
            },
            crc32: r(slot::STAGE_CRC32)? as u32,
        })
    }

    pub(super) fn load(&mut self, k: u8, bank: Bank) -> Result<Code, RegionError> {
        let started = Instant::now();
        let base = abi::slot_block_unchecked(k);
        let id = base + slot::identity_block(bank);
        let loaded = self.load_checks(k, bank)?;
        self.region.zero(id, slot::IDENTITY_STRIDE)?;
        let ok = loaded.is_ok();
        let status = loaded.err().unwrap_or(Code::Ok);
        if let Ok(unit) = loaded {
            let mut staged = [0u8; 0x38];
            self.region
                .read_bytes(base + slot::STAGE_SHA256, &mut staged[..0x20])?;
            self.region
                .write_bytes(id + slot::SOURCE_SHA256, &staged[..0x20])?;
            let copy = [
                (slot::STAGE_NAME_HASH, slot::NAME_HASH),
                (slot::STAGE_FORMAT, slot::FORMAT),
                (slot::STAGE_COMPILER, slot::COMPILER),
            ];
            for (from, to) in copy {
                let v = self.region.load(base + from, Ordering::Acquire)?;
                self.region.store(id + to, v, Ordering::Relaxed)?;
            }
            let unit_word = self
                .region
                .load(base + slot::STAGE_UNIT, Ordering::Acquire)?
                & 0xFFFF;
            let unit_word = unit_word | u64::from(unit.attach) << 16;
            self.region
                .store(id + slot::UNIT, unit_word, Ordering::Relaxed)?;
            self.region
                .store(id + slot::CSR_WORDS, unit.csr_words, Ordering::Relaxed)?;
            self.region
                .store(id + slot::FLOWS, unit.flows, Ordering::Relaxed)?;
            self.output_kind[k as usize] = unit.output_kind;
            let ns = started.elapsed().as_nanos().clamp(1, u64::MAX as u128) as u64;
            self.region
                .store(id + slot::LOAD_NS, ns, Ordering::Release)?;
        } else {
            self.region.store(
                id + slot::LOAD_STATUS,
                u64::from(status.number()),
                Ordering::Release,
            )?;
        }
        self.slots[k as usize].finish_load(bank, ok);
        Ok(status)
    }
}
