//! Shared by the runtime's integration tests: an emulated device with models on a server thread
//! over a temporary map, and packages built from the repository's examples.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod packages;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use scenic_runtime::abi::codes::Code;
use scenic_runtime::abi::slot::{self, Bank, SlotOp};
use scenic_runtime::abi::slot_block;
use scenic_runtime::container::{self, StagedIdentity, UnitKind};
use scenic_runtime::emu::banks::Banks;
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::Device;

use packages::example_package;

/// A server thread with the model loader on, on a temporary map.
pub struct Emu {
    pub path: std::path::PathBuf,
    pub banks: Banks,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Emu {
    /// Four SCU slots and two CC slots, models on.
    pub fn start_models() -> Emu {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map");
        let mut server = EmuServer::create_path(&path, EmuConfig::default()).unwrap();
        let banks = server.enable_models();
        let stop = Arc::new(AtomicBool::new(false));
        let s = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let freeze = AtomicBool::new(false);
            server.run(&s, &freeze).unwrap()
        });
        Emu {
            path,
            banks,
            stop,
            thread: Some(thread),
            _dir: dir,
        }
    }

    /// A client of the map.
    pub fn open(&self) -> Device {
        Device::open(self.path.to_str().unwrap()).unwrap()
    }
}

impl Drop for Emu {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Stages `image` with the identity of `manifest_json`'s unit `unit`, then `LOAD`s it.
pub fn stage_and_load(
    dev: &Device,
    k: u8,
    image: &[u8],
    identity: &StagedIdentity,
    crc: u32,
) -> Result<u32, Code> {
    dev.stage_image(k, 1, image).unwrap();
    let base = slot_block(k).unwrap();
    for (i, w) in identity.sha256_words().iter().enumerate() {
        dev.write(base + slot::STAGE_SHA256 + 8 * i as u64, *w)
            .unwrap();
    }
    dev.write(base + slot::STAGE_NAME_HASH, identity.name_hash)
        .unwrap();
    dev.write(base + slot::STAGE_FORMAT, identity.format)
        .unwrap();
    dev.write(base + slot::STAGE_COMPILER, identity.compiler)
        .unwrap();
    dev.write(base + slot::STAGE_UNIT, u64::from(identity.unit))
        .unwrap();
    dev.write(base + slot::STAGE_CRC32, u64::from(crc)).unwrap();
    match dev.slot_command(k, SlotOp::Load, 0) {
        Ok(c) => Ok(c.detail),
        Err(e) => Err(e.code().unwrap_or_else(|| panic!("{e}"))),
    }
}

pub fn identity_of(manifest: &[u8], unit: u16) -> StagedIdentity {
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(manifest).unwrap())
        .unwrap();
    StagedIdentity::of(&m, UnitKind::Scu, unit).unwrap()
}

/// Loads and activates `name` in slot `k`; the bank it went to.
pub fn load_example(dev: &Device, k: u8, name: &str) -> Bank {
    let (manifest, model) = example_package(name);
    let image = container::build(&manifest, &model);
    let id = identity_of(&manifest, 0);
    let bank = stage_and_load(dev, k, &image, &id, container::crc32(&image)).unwrap();
    dev.slot_command(k, SlotOp::Activate, 0).unwrap();
    if bank == 0 {
        Bank::B0
    } else {
        Bank::B1
    }
}

/// Sends one request entry to slot `k`'s control queue and waits (at most 10 s) for its response.
pub fn call(
    dev: &Device,
    k: u8,
    entry: &scenic_runtime::frame::ControlEntry,
) -> scenic_runtime::frame::ControlEntry {
    use scenic_runtime::ring::{Consumer, Producer, RingLayout};
    let r = dev.region();
    let mut req = Producer::attach(r, RingLayout::control_requests(k)).unwrap();
    let mut rsp = Consumer::attach(r, RingLayout::control_responses(k)).unwrap();
    assert!(req.push(r, &entry.encode()).unwrap());
    let mut raw = [0u8; 256];
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !rsp.pop(r, &mut raw).unwrap() {
        assert!(std::time::Instant::now() < until, "no response");
        std::thread::sleep(std::time::Duration::from_micros(50));
    }
    scenic_runtime::frame::ControlEntry::decode(&raw)
}
