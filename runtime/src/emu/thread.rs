//! [`EmuThread`]: the emulated device with the models on, served by a thread of the calling
//! process, as the runtime's tests run it; for the Python and C APIs' tests, notebooks and examples
//! without `scenic nic up`. It has no network ports: units load, swap and answer by name, but no
//! packet reaches them.
//!
//! Invariant: [`EmuThread::start`] returns once the device's heartbeat moved (so `Device::open`'s
//! 100 ms liveness check holds even when the new threads start late on a loaded machine); the
//! server runs until [`EmuThread::stop`] or drop, which then removes the device's slot journals.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::abi::global;
use crate::emu::{EmuConfig, EmuError, EmuServer};
use crate::region::Region;

/// How long a new device may take to beat for the first time.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running in-process emulated device.
#[derive(Debug)]
pub struct EmuThread {
    map: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Whether the map's `HEARTBEAT` changes within [`START_TIMEOUT`].
fn heartbeat_moves(region: &Region) -> bool {
    let first = region.load(global::HEARTBEAT, Ordering::Acquire).ok();
    let until = Instant::now() + START_TIMEOUT;
    while Instant::now() < until {
        std::thread::sleep(Duration::from_micros(200));
        let now = region.load(global::HEARTBEAT, Ordering::Acquire).ok();
        if now.is_some() && now != first {
            return true;
        }
    }
    false
}

impl EmuThread {
    /// Creates the map at `map` (as [`EmuServer::create_path`]), turns the models on and serves
    /// it on a new thread.
    pub fn start(map: &Path) -> Result<EmuThread, EmuError> {
        let mut server = EmuServer::create_path(map, EmuConfig::default())?;
        server.enable_models();
        let region = server.shared_region();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let freeze = AtomicBool::new(false);
            // A region error ends the server; clients then see the device go away.
            let _ = server.run(&flag, &freeze);
        });
        let mut emu = EmuThread {
            map: map.to_path_buf(),
            stop,
            thread: Some(thread),
        };
        if !heartbeat_moves(&region) {
            emu.stop();
            return Err(EmuError::NotStarted(format!(
                "no heartbeat within {} s",
                START_TIMEOUT.as_secs()
            )));
        }
        Ok(emu)
    }

    /// The map file.
    pub fn map(&self) -> &Path {
        &self.map
    }

    /// Stops the server (clients see the device go away) and removes the device's slot journals;
    /// idempotent.
    pub fn stop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop.store(true, Ordering::Release);
            let _ = t.join();
            crate::state::forget_journals(&self.map);
        }
    }
}

impl Drop for EmuThread {
    fn drop(&mut self) {
        self.stop();
    }
}
