//! The device in another process: this test binary re-runs itself as the device side (the
//! `device_child` test, which does nothing unless `SCENIC_RT_CHILD` is set), like
//! `testsuite/tests/mutations/nasty.rs`. The host side opens the map file the child created and
//! checks identity, version refusal, scratch, fences, slot commands, and a device that stops its
//! heartbeat or shuts down.

// A test binary: a failed unwrap in a helper is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use scenic_runtime::abi::global;
use scenic_runtime::abi::slot::{BankState, SlotOp};
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::{Device, DeviceError};

/// `PATH` or `PATH|version2`: where the child serves its map, and how.
const CHILD_ENV: &str = "SCENIC_RT_CHILD";

/// Not a test by itself: the device half of the tests below. Serves the map until `PATH.stop`
/// exists (then shuts down: `READY` clear); while `PATH.freeze` exists it stops polling (the
/// heartbeat stops, `READY` stays set). Gives up after 60 s.
#[test]
fn device_child() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (path, mode) = spec.split_once('|').unwrap_or((spec.as_str(), ""));
    let version = if mode == "version2" {
        0x0002_0000
    } else {
        0x0001_0000
    };
    let config = EmuConfig {
        instance: "child".into(),
        scu_slots: 2,
        version,
        ..EmuConfig::default()
    };
    let mut server = EmuServer::create_path(Path::new(path), config).unwrap();
    let (stop, freeze) = (format!("{path}.stop"), format!("{path}.freeze"));
    let started = Instant::now();
    let mut frozen = false;
    let mut heartbeat = server.heartbeat();
    for i in 0u64.. {
        if i % 64 == 0 {
            if Path::new(&stop).exists() || started.elapsed() > Duration::from_secs(60) {
                break;
            }
            frozen = Path::new(&freeze).exists();
        }
        if !frozen {
            server.poll().unwrap();
            heartbeat.beat().unwrap();
        }
        std::thread::sleep(Duration::from_micros(10));
    }
    server.shutdown().unwrap();
}

/// A child process serving a map; killed on drop if it is still running.
struct ChildDevice {
    child: Child,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl ChildDevice {
    fn spawn(mode: &str) -> ChildDevice {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map");
        let exe = std::env::current_exe().unwrap();
        let child = Command::new(exe)
            .args(["--exact", "device_child", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, format!("{}|{mode}", path.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        ChildDevice {
            child,
            path,
            _dir: dir,
        }
    }

    /// Opens the device once the child has published it (up to 20 s: the child is a fresh process).
    fn open(&self) -> Result<Device, DeviceError> {
        let started = Instant::now();
        loop {
            match Device::open(self.path.to_str().unwrap()) {
                Ok(dev) => return Ok(dev),
                Err(e @ DeviceError::Version { .. }) => return Err(e),
                Err(e) if started.elapsed() > Duration::from_secs(20) => return Err(e),
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    fn touch(&self, suffix: &str) {
        std::fs::write(format!("{}.{suffix}", self.path.display()), b"").unwrap();
    }

    fn wait_exit(&mut self) {
        let started = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "child did not exit"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for ChildDevice {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn a_device_in_another_process_serves_identity_scratch_fences_and_slots() {
    let mut child = ChildDevice::spawn("");
    let dev = child.open().unwrap();
    assert_eq!(dev.identity().instance, "child");
    assert_eq!(dev.identity().slots.scu_slots, 2);
    assert_eq!(dev.read(global::MAGIC).unwrap(), 0x0000_4349_4E45_4353);
    for p in [0, u64::MAX, 0x5555_AAAA_0F0F_F0F0] {
        assert_eq!(dev.scratch_round_trip(p).unwrap(), p);
    }
    for _ in 0..200 {
        dev.fence().unwrap();
    }
    dev.stage_image(1, 1, &vec![7u8; 150_000]).unwrap();
    assert_eq!(
        dev.read(scenic_runtime::abi::slot_block(1).unwrap() + 0x170)
            .unwrap(),
        150_000
    );
    dev.slot_command(1, SlotOp::Load, 0).unwrap();
    dev.slot_command(1, SlotOp::Activate, 0).unwrap();
    let st = dev.slot_state(1).unwrap();
    assert_eq!(st.banks, [Some(BankState::Active), Some(BankState::Empty)]);
    let err = dev.slot_command(1, SlotOp::Activate, 0).unwrap_err();
    assert_eq!(err.code(), Some(scenic_runtime::abi::codes::Code::BadState));
    assert!(err.to_string().contains("E_BAD_STATE (0x0002)"), "{err}");
    child.touch("stop");
    child.wait_exit();
    let err = dev.read(global::SCRATCH).unwrap_err();
    assert_eq!(err.to_string(), "device went away: STATUS.READY is clear");
}

#[test]
fn a_device_of_another_major_version_is_refused() {
    let child = ChildDevice::spawn("version2");
    let err = child.open().unwrap_err();
    assert_eq!(
        err.to_string(),
        "device speaks interface 2.0, this runtime reads 1.x"
    );
    child.touch("stop");
}

#[test]
fn a_device_process_that_hangs_went_away_within_the_heartbeat_bound() {
    let child = ChildDevice::spawn("");
    let dev = child.open().unwrap();
    dev.scratch_round_trip(3).unwrap();
    child.touch("freeze");
    let started = Instant::now();
    let err = loop {
        match dev.fence() {
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => break e,
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never noticed the hang"
        );
    };
    assert!(matches!(err, DeviceError::Gone(_)), "{err}");
    assert!(err.to_string().contains("HEARTBEAT stuck"), "{err}");
}

#[test]
fn a_killed_device_process_went_away() {
    let mut child = ChildDevice::spawn("");
    let dev = child.open().unwrap();
    dev.scratch_round_trip(9).unwrap();
    child.child.kill().unwrap();
    child.child.wait().unwrap();
    // Killed: READY is still set in the file, but the heartbeat no longer moves (§1.6).
    let started = Instant::now();
    let err = loop {
        match dev.read(global::SCRATCH) {
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => break e,
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never noticed");
    };
    assert!(matches!(err, DeviceError::Gone(_)), "{err}");
    assert!(started.elapsed() < Duration::from_millis(1000));
}
