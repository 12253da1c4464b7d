//! `scenic.Emulator`: the runtime's in-process emulated device ([`EmuThread`]) for tests,
//! notebooks and the docs' examples without `scenic nic up`. With `ports=N` its datapath runs over
//! in-process wires: `send` puts a frame on a network port, `receive` takes what the NIC sent to
//! the host or out of a port.
//!
//! Invariant: the map of `Emulator()` lives in a temporary directory removed with the object; that
//! of `Emulator("NAME")` (`/dev/shm/scenic-NAME`) is removed by `close()`.

use std::sync::Mutex;

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use scenic_runtime::emu::thread::EmuThread;
use scenic_runtime::net::Wire;

use crate::errors::{refused, to_py};

/// An emulated device served by a thread of this process.
///
/// `Emulator()` makes a private map in a temporary directory; `Emulator("emu1")` serves
/// `emu:emu1` (`/dev/shm/scenic-emu1`), which other processes (the `scenic` CLI) can open too.
/// `device` is the name to give `Device(...)`. Use it as a context manager, or call `close()`.
/// `ports=0` (the default) runs no datapath; `ports=1..4` runs it over in-process wires
/// (`send`, `receive`).
#[pyclass(module = "scenic._native", frozen)]
pub struct Emulator {
    device: String,
    running: Mutex<Option<EmuThread>>,
    named: bool,
    _dir: Option<tempfile::TempDir>,
}

#[pymethods]
impl Emulator {
    #[new]
    #[pyo3(signature = (name=None, ports=0))]
    fn new(py: Python<'_>, name: Option<&str>, ports: u8) -> PyResult<Emulator> {
        let (dir, map, device) = match name {
            Some(n) => {
                let device = format!("emu:{n}");
                let map = scenic_runtime::device::resolve(&device).map_err(to_py)?;
                (None, map, device)
            }
            None => {
                let dir = tempfile::tempdir()
                    .map_err(|e| refused(format!("a temporary directory for the map: {e}")))?;
                let stem = dir
                    .path()
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned());
                let map = dir
                    .path()
                    .join(format!("scenic-py{}", stem.unwrap_or_default()));
                let device = map.to_string_lossy().into_owned();
                (Some(dir), map, device)
            }
        };
        let emu = py
            .allow_threads(|| match ports {
                0 => EmuThread::start(&map),
                n => EmuThread::start_wired(&map, n),
            })
            .map_err(to_py)?;
        Ok(Emulator {
            device,
            running: Mutex::new(Some(emu)),
            named: name.is_some(),
            _dir: dir,
        })
    }

    /// The name to open the device with: `Device(emu.device)`.
    #[getter]
    fn device(&self) -> &str {
        &self.device
    }

    /// Puts `frame` (Ethernet, no FCS; 1 to 16368 bytes) on network port `port`'s wire: it
    /// arrives at the NIC as from the network. Refused without ports, for a port the emulator
    /// lacks, and when the wire is full (the NIC has not taken earlier frames yet).
    #[pyo3(signature = (frame, port=0))]
    fn send(&self, frame: &[u8], port: u8) -> PyResult<()> {
        self.with_wire(Some(port), |w| w.send(frame))
    }

    /// The next frame the NIC sent to the host (`port=None`) or out of network port `port`,
    /// waiting up to `timeout` seconds; `None` when none came.
    #[pyo3(signature = (timeout=0.0, port=None))]
    fn receive(
        &self,
        py: Python<'_>,
        timeout: f64,
        port: Option<u8>,
    ) -> PyResult<Option<Py<PyBytes>>> {
        if !(timeout.is_finite() && timeout >= 0.0) {
            return Err(refused(format!(
                "timeout {timeout}: give seconds, 0 or more"
            )));
        }
        let wait = Duration::from_secs_f64(timeout.min(3600.0));
        let got = py.allow_threads(|| self.with_wire(port, |w| w.recv(wait)))?;
        Ok(got.map(|f| PyBytes::new(py, &f).unbind()))
    }

    /// Stops the device (clients see it go away) and removes its journals; idempotent.
    fn close(&self, py: Python<'_>) {
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(mut emu) = running {
            py.allow_threads(|| emu.stop());
            if self.named {
                let _ = std::fs::remove_file(emu.map());
            }
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        format!("scenic.Emulator(device={:?})", self.device)
    }
}

impl Emulator {
    /// Runs `f` on the wire of `port` (`None`: the host side), refusing what cannot have one.
    fn with_wire<R>(
        &self,
        port: Option<u8>,
        f: impl FnOnce(&Wire) -> std::io::Result<R>,
    ) -> PyResult<R> {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let Some(emu) = running.as_ref() else {
            return Err(refused("the emulator is closed".to_string()));
        };
        let wire = match port {
            None => emu.host(),
            Some(p) => emu.port(p),
        };
        let Some(wire) = wire else {
            let what = match port {
                None => "host side".to_string(),
                Some(p) => format!("network port {p}"),
            };
            return Err(refused(format!(
                "this emulator has no {what}: start it with Emulator(ports=N), N = 1 to 4"
            )));
        };
        f(wire).map_err(|e| refused(format!("the wire: {e}")))
    }
}
