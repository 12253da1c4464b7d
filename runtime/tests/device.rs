//! The device-interface layer against the minimal emulated device, in one process: the server runs
//! in a thread sharing the map file. Expected values are the ones `docs/device.md` gives (copied
//! here as literals where the document states a value), not ones read back from the code.

// A test binary: a failed unwrap in a helper is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use scenic_runtime::abi::codes::Code;
use scenic_runtime::abi::global;
use scenic_runtime::abi::slot::{self, BankState, SlotOp, SlotStateWord};
use scenic_runtime::abi::{slot_block, ErrorWord};
use scenic_runtime::emu::{EmuConfig, EmuServer, LoadedUnit, Loader};
use scenic_runtime::{Device, DeviceError};

/// A server thread on a temporary map.
struct Emu {
    path: std::path::PathBuf,
    stop: Arc<AtomicBool>,
    freeze: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Emu {
    fn start(config: EmuConfig) -> Emu {
        Emu::start_with(config, None)
    }
    fn start_with(config: EmuConfig, loader: Option<Loader>) -> Emu {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map");
        let mut server = EmuServer::create_path(&path, config).unwrap();
        if let Some(loader) = loader {
            server.set_loader(loader);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let freeze = Arc::new(AtomicBool::new(false));
        let (s, f) = (Arc::clone(&stop), Arc::clone(&freeze));
        let thread = std::thread::spawn(move || server.run(&s, &f).unwrap());
        Emu {
            path,
            stop,
            freeze,
            thread: Some(thread),
            _dir: dir,
        }
    }
    fn open(&self) -> Device {
        Device::open(self.path.to_str().unwrap()).unwrap()
    }
    fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for Emu {
    fn drop(&mut self) {
        self.stop();
    }
}

fn state(dev: &Device, k: u8) -> SlotStateWord {
    dev.slot_state(k).unwrap()
}

fn banks(dev: &Device, k: u8) -> [BankState; 2] {
    let s = state(dev, k);
    [s.banks[0].unwrap(), s.banks[1].unwrap()]
}

/// Stages a small model-kind image (kind 1) so that `LOAD` passes this stage's checks.
fn stage(dev: &Device, k: u8) {
    dev.stage_image(k, 1, b"SCNMODEL\x01\0\0\0\0\0\0\0")
        .unwrap();
}

fn refused(result: Result<impl std::fmt::Debug, DeviceError>) -> Code {
    match result {
        Err(e) => e.code().unwrap_or_else(|| panic!("not a refusal: {e}")),
        Ok(v) => panic!("accepted: {v:?}"),
    }
}

#[test]
fn open_reads_the_identity_the_document_gives() {
    let emu = Emu::start(EmuConfig {
        scu_slots: 3,
        ports: 2,
        ..EmuConfig::default()
    });
    let dev = emu.open();
    let id = dev.identity();
    assert_eq!((id.major, id.minor), (1, 0));
    assert_eq!(id.slots.scu_slots, 3);
    assert_eq!(id.slots.cc_slots, 2);
    assert_eq!(id.slots.ports, 2);
    assert_eq!(
        id.clock_hz, 391_000_000,
        "§2.2: the emulator models 391 MHz"
    );
    // §2.2: "The emulator sets 0, 3, 5, 7, 8, 9, 10, 11".
    assert_eq!(
        id.features,
        (1 << 0) | (1 << 3) | (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11)
    );
    assert_eq!(id.poll_ns, 10_000, "§1.5: default poll period 10,000 ns");
    assert_eq!(id.instance, "emu0");
    let r = |off| dev.read(off).unwrap();
    assert_eq!(r(global::MAGIC), 0x0000_4349_4E45_4353);
    assert_eq!(r(global::BAR_BYTES), 0x200_0000);
    assert_eq!(r(global::ERROR), 0, "no refused access yet");
    assert_eq!(r(global::STATUS) & 1, 1, "READY");
    // §3.2/§3.6/§3.7 per-slot reset values.
    let s0 = slot_block(0).unwrap();
    assert_eq!(r(s0 + slot::SLOT_INFO), 1, "kind SCU, index 0");
    assert_eq!(r(slot_block(2).unwrap() + slot::SLOT_INFO), 1 | 2 << 8);
    assert_eq!(
        r(slot_block(3).unwrap() + slot::SLOT_INFO),
        0,
        "beyond SCU_SLOTS: absent"
    );
    assert_eq!(
        r(slot_block(16).unwrap() + slot::SLOT_INFO),
        2 | 16 << 8,
        "CC slot A"
    );
    assert_eq!(r(s0 + slot::ARB_WEIGHT), 1);
    assert_eq!(r(s0 + slot::CQ_INFO), 64 | 256 << 16 | 1920 << 32);
    assert_eq!(r(s0 + slot::NQ_INFO), 512 | 32 << 16);
    assert_eq!(r(global::SLOW_PATH_SLOT), 0xFF);
    assert_eq!(r(global::MTU), 1500);
    assert_eq!(r(global::RX_SIZE), 512);
    assert_eq!(r(global::TX_BASE), 0x80_0000);
    assert_eq!(r(global::EV_INFO), 512 | 64 << 16);
    // id.heartbeat: HEARTBEAT and NOW_NS increase over 5 ms.
    let (h, n) = (r(global::HEARTBEAT), r(global::NOW_NS));
    std::thread::sleep(Duration::from_millis(5));
    assert!(r(global::HEARTBEAT) > h && r(global::NOW_NS) > n);
}

#[test]
fn an_unknown_major_is_refused_and_a_higher_minor_accepted() {
    let emu = Emu::start(EmuConfig {
        version: 0x0002_0000,
        ..EmuConfig::default()
    });
    let err = Device::open(emu.path.to_str().unwrap()).unwrap_err();
    assert!(
        matches!(err, DeviceError::Version { major: 2, minor: 0 }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "device speaks interface 2.0, this runtime reads 1.x"
    );
    let emu = Emu::start(EmuConfig {
        version: 0x0001_0007,
        ..EmuConfig::default()
    });
    assert_eq!(emu.open().identity().minor, 7);
}

#[test]
fn not_a_device_and_bad_names_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let zeros = dir.path().join("zeros");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(0x200_0000)
        .unwrap();
    let err = Device::open(zeros.to_str().unwrap()).unwrap_err();
    assert!(
        matches!(err, DeviceError::NotScenic { magic: 0, .. }),
        "{err}"
    );
    let short = dir.path().join("short");
    std::fs::write(&short, b"SCENIC\0\0").unwrap();
    let err = Device::open(short.to_str().unwrap()).unwrap_err();
    assert!(err.to_string().contains("holds 8 bytes"), "{err}");
    for bad in ["", "emu:", "emu:a/b", "emu:../x", "emu:name with space"] {
        assert!(
            matches!(Device::open(bad), Err(DeviceError::BadName(_))),
            "{bad:?}"
        );
    }
    let missing = Device::open(dir.path().join("none").to_str().unwrap()).unwrap_err();
    assert!(missing.to_string().contains("cannot open"), "{missing}");
}

#[test]
fn emu_names_live_in_dev_shm() {
    let name = format!("rt-test-{}", std::process::id());
    let mut server = EmuServer::create(&format!("emu:{name}"), EmuConfig::default()).unwrap();
    let path = format!("/dev/shm/scenic-{name}");
    assert!(std::path::Path::new(&path).exists());
    let stop = AtomicBool::new(false);
    let freeze = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| server.run(&stop, &freeze).unwrap());
        let dev = Device::open(&format!("emu:{name}"));
        stop.store(true, Ordering::Release);
        assert_eq!(dev.unwrap().identity().instance, "emu0");
    });
    std::fs::remove_file(path).unwrap();
}

#[test]
fn scratch_round_trips_every_pattern() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    let mut patterns = vec![0, u64::MAX];
    patterns.extend((0..64).map(|b| 1u64 << b));
    for p in patterns {
        assert_eq!(dev.scratch_round_trip(p).unwrap(), p);
    }
}

#[test]
fn every_fence_value_is_echoed() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    let mut last = 0;
    for _ in 0..1000 {
        let v = dev.fence().unwrap();
        assert_ne!(v, last);
        assert_eq!(dev.read(global::DEV_FENCE).unwrap(), v);
        last = v;
    }
}

#[test]
fn a_write_to_a_read_only_register_is_undone_and_recorded() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    let before = ErrorWord::decode(dev.read(global::ERROR).unwrap());
    dev.region()
        .store(global::CLOCK_HZ, 5, Ordering::Release)
        .unwrap();
    dev.fence().unwrap();
    assert_eq!(
        dev.read(global::CLOCK_HZ).unwrap(),
        391_000_000,
        "unchanged"
    );
    let after = ErrorWord::decode(dev.read(global::ERROR).unwrap());
    assert_eq!(after.code, 0x0004, "E_READ_ONLY");
    assert_eq!(after.offset, 0x018);
    assert_eq!(after.count, before.count + 1);
}

#[test]
fn seq_zero_and_unknown_opcodes_are_refused_and_change_nothing() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    let s0 = slot_block(0).unwrap();
    let before = dev.read(s0 + slot::SLOT_STATE).unwrap();
    // seq 0: the result carries E_SEQ with seq 0 (written raw: the client never sends seq 0).
    dev.region()
        .store(s0 + slot::SLOT_CMD, SlotOp::Load as u64, Ordering::Release)
        .unwrap();
    let started = Instant::now();
    while dev.read(s0 + slot::SLOT_RESULT).unwrap() != 0x0003 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no E_SEQ result"
        );
        std::thread::sleep(Duration::from_micros(50));
    }
    assert_eq!(refused(dev.slot_command_raw(0, 0x7F, 0)), Code::BadCommand);
    assert_eq!(refused(dev.slot_command_raw(0, 0x00, 0)), Code::BadCommand);
    assert_eq!(dev.read(s0 + slot::SLOT_STATE).unwrap(), before);
    let err = dev.slot_command(0, SlotOp::Load, 1 << 40).unwrap_err();
    assert!(err.to_string().contains("does not fit 40 bits"), "{err}");
}

#[test]
fn a_swap_walks_every_state_of_section_3_4() {
    let emu = Emu::start(EmuConfig {
        quiesce_polls: 200,
        ..EmuConfig::default()
    });
    let dev = emu.open();
    let s0 = slot_block(0).unwrap();
    use BankState::*;
    stage(&dev, 0);
    let sha: Vec<u64> = (1..=4).collect();
    for (i, w) in sha.iter().enumerate() {
        dev.write(s0 + slot::STAGE_SHA256 + 8 * i as u64, *w)
            .unwrap();
    }
    dev.write(s0 + slot::STAGE_FORMAT, 256 << 32 | 1 << 16 | 1)
        .unwrap();
    assert_eq!(
        dev.slot_command(0, SlotOp::Load, 0).unwrap().detail,
        0,
        "bank 0"
    );
    assert_eq!(banks(&dev, 0), [Shadow, Empty]);
    let id0 = s0 + slot::identity_block(slot::Bank::B0);
    assert_eq!(dev.read(id0 + slot::SOURCE_SHA256 + 24).unwrap(), 4);
    assert_eq!(
        dev.read(id0 + slot::FORMAT).unwrap(),
        256 << 32 | 1 << 16 | 1
    );
    assert!(dev.read(id0 + slot::LOAD_NS).unwrap() > 0);
    dev.slot_command(0, SlotOp::Activate, 0).unwrap();
    // §7: bank 0 ACTIVE, bit 17 HAS_ACTIVE, bit 16 = 0.
    assert_eq!(dev.read(s0 + slot::SLOT_STATE).unwrap(), 3 | 1 << 17);
    assert_eq!(
        dev.slot_command(0, SlotOp::Load, 0).unwrap().detail,
        1,
        "bank 1"
    );
    assert_eq!(banks(&dev, 0), [Active, Shadow]);
    dev.slot_command(0, SlotOp::Mirror, 1).unwrap();
    assert!(state(&dev, 0).mirror);
    dev.slot_command(0, SlotOp::Activate, 0).unwrap();
    let st = dev.read(s0 + slot::SLOT_STATE).unwrap();
    assert_eq!(st & 0xFFFF, 4 | 3 << 8, "bank 0 DRAINING, bank 1 ACTIVE");
    assert_eq!(
        st & (1 << 16 | 1 << 17 | 1 << 18),
        1 << 16 | 1 << 17,
        "active bank 1, MIRROR cleared"
    );
    assert_eq!(dev.read(s0 + slot::SWITCH_COUNT).unwrap(), 2);
    // swap.drain: FREE before QUIESCED is refused.
    assert_eq!(
        refused(dev.slot_command(0, SlotOp::Free, 1)),
        Code::BadState
    );
    wait_quiesced(&dev, 0);
    assert_eq!(dev.slot_command(0, SlotOp::Free, 1).unwrap().detail, 0);
    assert_eq!(banks(&dev, 0), [Empty, Active]);
    assert_eq!(
        dev.read(id0 + slot::SOURCE_SHA256 + 24).unwrap(),
        0,
        "identity zero while EMPTY"
    );
    // DEACTIVATE of bank 1, then FREE reaches it (device.md's "other" rule as fixed in 1.0).
    assert_eq!(
        dev.slot_command(0, SlotOp::Deactivate, 0).unwrap().detail,
        1
    );
    assert_eq!(banks(&dev, 0), [Empty, Draining]);
    assert_eq!(state(&dev, 0).active, None);
    wait_quiesced(&dev, 0);
    assert_eq!(dev.slot_command(0, SlotOp::Free, 1).unwrap().detail, 1);
    assert_eq!(banks(&dev, 0), [Empty, Empty]);
}

fn wait_quiesced(dev: &Device, k: u8) {
    let started = Instant::now();
    while !state(dev, k).quiesced {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never QUIESCED"
        );
        std::thread::sleep(Duration::from_micros(100));
    }
}

#[test]
fn failed_loads_leave_the_bank_empty_with_load_status() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    let s0 = slot_block(0).unwrap();
    let id0 = s0 + slot::identity_block(slot::Bank::B0);
    dev.stage_image(0, 2, b"bitstream").unwrap();
    assert_eq!(
        refused(dev.slot_command(0, SlotOp::Load, 0)),
        Code::ImageKind,
        "no F_IMAGE_BITSTREAM"
    );
    assert_eq!(banks(&dev, 0), [BankState::Empty, BankState::Empty]);
    assert_eq!(dev.read(id0 + slot::LOAD_STATUS).unwrap(), 0x0010);
    // An image whose STAGE_LEN was never filled.
    dev.slot_command(0, SlotOp::StageReset, 0).unwrap();
    dev.write(s0 + slot::STAGE_KIND, 1).unwrap();
    dev.write(s0 + slot::STAGE_LEN, 100).unwrap();
    assert_eq!(
        refused(dev.slot_command(0, SlotOp::Load, 0)),
        Code::ImageLen
    );
    assert_eq!(dev.read(id0 + slot::LOAD_STATUS).unwrap(), 0x0011);
    // STAGE_WRITE refusals: a chunk past STAGE_LEN, a chunk > 64 KiB, an empty chunk.
    for (offset, chunk) in [(90, 20), (0, 0x1_0001), (0, 0)] {
        dev.write(s0 + slot::STAGE_OFFSET, offset).unwrap();
        dev.write(s0 + slot::STAGE_CHUNK, chunk).unwrap();
        assert_eq!(
            refused(dev.slot_command(0, SlotOp::StageWrite, 0)),
            Code::ImageLen
        );
    }
    assert_eq!(dev.read(s0 + slot::STAGE_FILLED).unwrap(), 0);
    // A good load into bank 0 afterwards; then a failing load of bank 1 leaves bank 0 untouched.
    stage(&dev, 0);
    dev.slot_command(0, SlotOp::Load, 0).unwrap();
    assert_eq!(dev.read(id0 + slot::LOAD_STATUS).unwrap(), 0);
    dev.slot_command(0, SlotOp::Activate, 0).unwrap();
    dev.stage_image(0, 2, b"x").unwrap();
    assert_eq!(
        refused(dev.slot_command(0, SlotOp::Load, 0)),
        Code::ImageKind
    );
    assert_eq!(banks(&dev, 0), [BankState::Active, BankState::Empty]);
}

#[test]
fn global_reset_needs_the_key_and_restores_reset_values() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    stage(&dev, 1);
    dev.slot_command(1, SlotOp::Load, 0).unwrap();
    dev.write(global::SCRATCH, 77).unwrap();
    dev.write(global::MTU, 9000).unwrap();
    dev.fence().unwrap();
    let channel = scenic_runtime::command::Channel {
        cmd: global::RESET,
        result: global::RESET_RESULT,
    };
    assert_eq!(
        refused(dev.command(channel, 0x52, 0x45_5346)),
        Code::ResetKey
    );
    assert_eq!(
        refused(dev.command(channel, 0x53, 0x45_5345)),
        Code::BadCommand
    );
    assert_eq!(
        banks(&dev, 1),
        [BankState::Shadow, BankState::Empty],
        "bad key: unchanged"
    );
    assert_eq!(dev.read(global::SCRATCH).unwrap(), 77);
    dev.reset().unwrap();
    assert_eq!(banks(&dev, 1), [BankState::Empty, BankState::Empty]);
    assert_eq!(dev.read(global::SCRATCH).unwrap(), 0);
    assert_eq!(dev.read(global::MTU).unwrap(), 1500);
    assert_eq!(dev.read(global::SLOW_PATH_SLOT).unwrap(), 0xFF);
    assert_eq!(
        dev.read(slot_block(1).unwrap() + slot::STAGE_FILLED)
            .unwrap(),
        0
    );
    assert_eq!(
        dev.read(global::MAGIC).unwrap(),
        0x0000_4349_4E45_4353,
        "identity kept"
    );
    assert_eq!(dev.read(global::STATUS).unwrap(), 1, "READY, not RESETTING");
    assert_eq!(
        dev.scratch_round_trip(5).unwrap(),
        5,
        "the fence pair still works"
    );
}

#[test]
fn cc_slots_load_into_bank_0_and_refuse_scu_only_commands() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    for op in [SlotOp::Activate, SlotOp::Deactivate, SlotOp::Mirror] {
        assert_eq!(
            refused(dev.slot_command(16, op, 1)),
            Code::BadState,
            "{op:?}"
        );
    }
    stage(&dev, 16);
    assert_eq!(dev.slot_command(16, SlotOp::Load, 0).unwrap().detail, 0);
    assert_eq!(banks(&dev, 16), [BankState::Shadow, BankState::Empty]);
    assert_eq!(
        refused(dev.slot_command(16, SlotOp::Load, 0)),
        Code::BadState,
        "bank 0 is taken"
    );
    assert_eq!(
        refused(dev.slot_command(16, SlotOp::Activate, 0)),
        Code::BadState
    );
    dev.slot_command(16, SlotOp::Free, 0).unwrap();
    assert_eq!(banks(&dev, 16), [BankState::Empty, BankState::Empty]);
}

#[test]
fn absent_slots_are_errors_before_anything_is_written() {
    let emu = Emu::start(EmuConfig {
        scu_slots: 2,
        cc_slots: 0,
        ..EmuConfig::default()
    });
    let dev = emu.open();
    for k in [2u8, 15, 16, 17, 18, 255] {
        let err = dev.slot_command(k, SlotOp::Load, 0).unwrap_err();
        assert!(
            matches!(err, DeviceError::NoSlot { slot, scu: 2, cc: 0 } if slot == k),
            "{err}"
        );
    }
    assert_eq!(
        dev.read(slot_block(2).unwrap() + slot::SLOT_CMD).unwrap(),
        0
    );
}

#[test]
fn a_stopped_heartbeat_is_a_device_that_went_away() {
    let emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    dev.scratch_round_trip(1).unwrap();
    emu.freeze.store(true, Ordering::Release);
    let started = Instant::now();
    let err = loop {
        match dev.slot_state(0) {
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => break e,
        }
        assert!(started.elapsed() < Duration::from_secs(5), "never noticed");
    };
    assert!(matches!(err, DeviceError::Gone(_)), "{err}");
    assert!(err.to_string().starts_with("device went away"), "{err}");
    // §1.6: unchanged for 100 ms (counted from the last beat the client saw, which may precede
    // the freeze), and noticed promptly.
    assert!(err.to_string().contains("for more than 100 ms"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "noticed late: {:?}",
        started.elapsed()
    );
    // Nothing is retried: even once the device runs again.
    emu.freeze.store(false, Ordering::Release);
    std::thread::sleep(Duration::from_millis(5));
    assert!(matches!(
        dev.read(global::SCRATCH),
        Err(DeviceError::Gone(_))
    ));
    // A command waiting when the device hangs ends with "went away", not a 5 s timeout.
    let dev = emu.open();
    emu.freeze.store(true, Ordering::Release);
    std::thread::sleep(Duration::from_millis(2));
    let started = Instant::now();
    let err = dev.slot_command(0, SlotOp::StageReset, 0).unwrap_err();
    assert!(matches!(err, DeviceError::Gone(_)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_device_that_shut_down_went_away() {
    let mut emu = Emu::start(EmuConfig::default());
    let dev = emu.open();
    emu.stop();
    let err = dev.read(global::SCRATCH).unwrap_err();
    assert_eq!(err.to_string(), "device went away: STATUS.READY is clear");
    let err = Device::open(emu.path.to_str().unwrap()).unwrap_err();
    assert!(matches!(err, DeviceError::Gone(_)), "{err}");
}

#[test]
fn a_second_server_on_a_live_map_is_refused_and_a_stale_one_replaced() {
    let mut emu = Emu::start(EmuConfig::default());
    let err = EmuServer::create_path(&emu.path, EmuConfig::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("already served by a running device"),
        "{err}"
    );
    let dev = emu.open();
    assert_eq!(
        dev.scratch_round_trip(4).unwrap(),
        4,
        "the first device is untouched"
    );
    emu.stop();
    let server = EmuServer::create_path(
        &emu.path,
        EmuConfig {
            scu_slots: 1,
            ..EmuConfig::default()
        },
    );
    assert_eq!(
        server.unwrap().config().scu_slots,
        1,
        "a stopped device's file is replaced"
    );
}

/// §4.1: the dual CC slots. The loader reports 64 flows for everything except an image whose first
/// byte is `b'W'` (128 flows, window output), so a mismatch can be staged.
#[test]
fn cc_switch_follows_section_4_1() {
    let loader: Loader = Box::new(|req| {
        let wide = req.image.first() == Some(&b'W');
        let (flows, output_kind) = if wide { (128, 2) } else { (64, 1) };
        Ok(LoadedUnit {
            flows,
            output_kind,
            attach: 3,
            csr_words: 4,
        })
    });
    let emu = Emu::start_with(EmuConfig::default(), Some(loader));
    let dev = emu.open();
    let cc = scenic_runtime::command::Channel {
        cmd: global::CC_CMD,
        result: global::CC_RESULT,
    };
    let (switch, stop) = (0x01, 0x02);
    assert_eq!(
        refused(dev.command(cc, switch, 0)),
        Code::CcNoStandby,
        "nothing loaded"
    );
    assert_eq!(refused(dev.command(cc, 0x03, 0)), Code::BadCommand);
    dev.stage_image(16, 1, b"cc A").unwrap();
    dev.slot_command(16, SlotOp::Load, 0).unwrap();
    let id_a = slot_block(16).unwrap() + slot::identity_block(slot::Bank::B0);
    assert_eq!(dev.read(id_a + slot::FLOWS).unwrap(), 64);
    assert_eq!(
        dev.read(id_a + slot::UNIT).unwrap() >> 16 & 0xFF,
        3,
        "attach cc"
    );
    dev.command(cc, switch, 0).unwrap();
    assert_eq!(
        dev.read(global::CC_ACTIVE).unwrap(),
        0x100,
        "A active, VALID"
    );
    assert_eq!(dev.read(global::CC_OUTPUT_KIND).unwrap(), 1);
    assert_eq!(banks(&dev, 16)[0], BankState::Active);
    assert_eq!(state(&dev, 16).active, Some(slot::Bank::B0));
    assert_eq!(
        refused(dev.slot_command(16, SlotOp::Free, 0)),
        Code::BadState,
        "the active one"
    );
    assert_eq!(
        refused(dev.command(cc, switch, 0)),
        Code::CcNoStandby,
        "B empty"
    );
    dev.stage_image(17, 1, b"Wide").unwrap();
    dev.slot_command(17, SlotOp::Load, 0).unwrap();
    assert_eq!(
        refused(dev.command(cc, switch, 0)),
        Code::CcMismatch,
        "64 vs 128 flows"
    );
    assert_eq!(dev.read(global::CC_ACTIVE).unwrap(), 0x100, "unchanged");
    dev.slot_command(17, SlotOp::Free, 0).unwrap();
    dev.stage_image(17, 1, b"cc B").unwrap();
    dev.slot_command(17, SlotOp::Load, 0).unwrap();
    dev.command(cc, switch, 0).unwrap();
    assert_eq!(dev.read(global::CC_ACTIVE).unwrap(), 0x101, "B active");
    assert_eq!(
        banks(&dev, 16)[0],
        BankState::Shadow,
        "A standby, still loaded"
    );
    assert_eq!(banks(&dev, 17)[0], BankState::Active);
    dev.command(cc, switch, 0).unwrap();
    assert_eq!(
        dev.read(global::CC_ACTIVE).unwrap(),
        0x100,
        "and back: as cheap"
    );
    dev.command(cc, stop, 0).unwrap();
    assert_eq!(
        dev.read(global::CC_ACTIVE).unwrap() & 0x100,
        0,
        "no active CC"
    );
    assert_eq!(banks(&dev, 16)[0], BankState::Shadow);
    dev.slot_command(16, SlotOp::Free, 0).unwrap();
    dev.reset().unwrap();
    assert_eq!(banks(&dev, 17)[0], BankState::Empty);
    assert_eq!(dev.read(global::CC_ACTIVE).unwrap(), 0);
}
