//! Shared by the host API tests: packages built from `examples/*.sn` into a temporary directory
//! (as `scenicc build` does), and an emulated device served by a thread on a temporary map.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::Device;

#[path = "../common/packages.rs"]
pub mod packages;

/// Builds `examples/NAME.sn` into `dir` (the package layout of `scenicc build`).
pub fn build_package(example: &str, dir: &Path) {
    packages::write_example_package(example, dir);
}

/// Builds a program text into `dir`.
pub fn build_source(file: &str, text: &str, dir: &Path) {
    let mut session = scenic_frontend::Session::new();
    session.add_source(file, text);
    let report = scenic_lower::check::check(&mut session, Default::default());
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    let root = session.roots()[0];
    let module = scenic_lower::lower_file(session.db(), root).unwrap();
    let info = scenic_ir::Validator::new().validate(&module).unwrap();
    let inputs = scenic_backend_hls::package::BuildInputs {
        module: &module,
        info: &info,
        source_file: file,
        source_text: text,
        root_file_id: root.id(session.db()).0,
    };
    let package = scenic_backend_hls::package::build(&inputs).unwrap();
    package.write(dir).unwrap();
}

/// A package built once per test into its own temporary directory.
pub struct TestPackage {
    pub dir: PathBuf,
    _tmp: tempfile::TempDir,
}

impl TestPackage {
    pub fn new(example: &str) -> TestPackage {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(example);
        build_package(example, &dir);
        TestPackage { dir, _tmp: tmp }
    }
}

/// A server thread on a temporary map.
pub struct Emu {
    pub path: PathBuf,
    pub state: PathBuf,
    banks: Option<scenic_runtime::emu::banks::Banks>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Emu {
    /// The stage-1 server: loads are accepted (the default loader), nothing runs.
    pub fn start() -> Emu {
        Emu::start_with(|_| {})
    }

    /// The emulated device with its models: loads build units, the queues are served.
    pub fn start_models() -> Emu {
        let mut banks = None;
        let mut emu = Emu::start_with(|s| banks = Some(s.enable_models()));
        emu.banks = banks;
        emu
    }

    /// Starts a server after `setup` (a loader, ...).
    pub fn start_with(setup: impl FnOnce(&mut EmuServer)) -> Emu {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map");
        let mut server = EmuServer::create_path(&path, EmuConfig::default()).unwrap();
        setup(&mut server);
        let stop = Arc::new(AtomicBool::new(false));
        let freeze = Arc::new(AtomicBool::new(false));
        let s = Arc::clone(&stop);
        let thread = std::thread::spawn(move || server.run(&s, &freeze).unwrap());
        let state = dir.path().join("state");
        Emu {
            path,
            state,
            banks: None,
            stop,
            thread: Some(thread),
            _dir: dir,
        }
    }

    /// The packet engine of slot `k` on the models' banks ([`Emu::start_models`] only).
    pub fn engine(&self, k: u8) -> scenic_runtime::emu::banks::ModelEngine {
        let banks = self
            .banks
            .clone()
            .expect("an emulator started with its models");
        scenic_runtime::emu::banks::ModelEngine::new(banks, k)
    }

    pub fn open(&self) -> Device {
        Device::open_path(&self.path).unwrap()
    }

    pub fn state_dir(&self) -> scenic_runtime::state::StateDir {
        scenic_runtime::state::StateDir::at(&self.state).unwrap()
    }

    pub fn stop(&mut self) {
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
