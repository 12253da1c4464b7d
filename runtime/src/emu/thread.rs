//! [`EmuThread`]: the emulated device with the models on, served by threads of the calling
//! process, as the runtime's tests run it; for the Python and C APIs' tests, notebooks and examples
//! without `scenic nic up`. [`EmuThread::start`] has no network ports: units load, swap and answer
//! by name, but no packet reaches them. [`EmuThread::start_wired`] runs the datapath too, its
//! ports and host side in-process [`Wire`]s: frames sent on a port's wire reach the slots, and what
//! the NIC sends comes back on the port's or the host's wire (no root, no veth, no TAP).
//!
//! Invariant: both return once the device's heartbeat moved (so `Device::open`'s 100 ms liveness
//! check holds even when the new threads start late on a loaded machine); the device runs until
//! [`EmuThread::stop`] or drop, which then removes the device's slot journals.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::abi::global;
use crate::emu::{EmuConfig, EmuError, EmuServer};
use crate::net::{wire, FrameIo, Wire};
use crate::region::Region;

/// How long a new device may take to beat for the first time.
pub const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running in-process emulated device.
#[derive(Debug)]
pub struct EmuThread {
    map: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    ports: Vec<Wire>,
    host: Option<Wire>,
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
    /// it on a new thread; no datapath.
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
        EmuThread {
            map: map.to_path_buf(),
            stop,
            thread: Some(thread),
            ports: Vec::new(),
            host: None,
        }
        .beating(&region)
    }

    /// As [`EmuThread::start`], with the datapath running over `ports` network ports (1–4) and a
    /// host side, each an in-process [`Wire`] ([`EmuThread::port`], [`EmuThread::host`]).
    pub fn start_wired(map: &Path, ports: u8) -> Result<EmuThread, EmuError> {
        if !(1..=4).contains(&ports) {
            return Err(EmuError::NotStarted(format!(
                "{ports} network ports: the emulated NIC has 1 to 4"
            )));
        }
        let config = EmuConfig {
            ports,
            ..EmuConfig::default()
        };
        let mut server = EmuServer::create_path(map, config)?;
        let banks = server.enable_models();
        let region = server.shared_region();
        let wire_err = |e: std::io::Error| EmuError::NotStarted(format!("a wire: {e}"));
        let mut user_ends = Vec::new();
        let mut device_ends: Vec<Box<dyn FrameIo>> = Vec::new();
        for _ in 0..ports {
            let (user, device) = wire().map_err(wire_err)?;
            user_ends.push(user);
            device_ends.push(Box::new(device));
        }
        let (host, host_device) = wire().map_err(wire_err)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            // A region error ends both threads; clients then see the device go away.
            let _ = super::serve::serve(
                &mut server,
                banks,
                device_ends,
                Box::new(host_device),
                &flag,
                || {},
            );
        });
        EmuThread {
            map: map.to_path_buf(),
            stop,
            thread: Some(thread),
            ports: user_ends,
            host: Some(host),
        }
        .beating(&region)
    }

    /// `self` once its heartbeat moved, else stopped and an error.
    fn beating(mut self, region: &Region) -> Result<EmuThread, EmuError> {
        if heartbeat_moves(region) {
            return Ok(self);
        }
        self.stop();
        Err(EmuError::NotStarted(format!(
            "no heartbeat within {} s",
            START_TIMEOUT.as_secs()
        )))
    }

    /// The wire of network port `p` (started with [`EmuThread::start_wired`]).
    pub fn port(&self, p: u8) -> Option<&Wire> {
        self.ports.get(usize::from(p))
    }

    /// The host side's wire: what the NIC sends to the host (the TAP of `scenic nic up`).
    pub fn host(&self) -> Option<&Wire> {
        self.host.as_ref()
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
