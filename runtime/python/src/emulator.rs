//! `scenic.Emulator`: the runtime's in-process emulated device ([`EmuThread`]) for tests,
//! notebooks and the docs' examples without `scenic nic up` (no network ports).
//!
//! Invariant: the map of `Emulator()` lives in a temporary directory removed with the object; that
//! of `Emulator("NAME")` (`/dev/shm/scenic-NAME`) is removed by `close()`.

use std::sync::Mutex;

use pyo3::prelude::*;
use scenic_runtime::emu::thread::EmuThread;

use crate::errors::{refused, to_py};

/// An emulated device served by a thread of this process.
///
/// `Emulator()` makes a private map in a temporary directory; `Emulator("emu1")` serves
/// `emu:emu1` (`/dev/shm/scenic-emu1`), which other processes (the `scenic` CLI) can open too.
/// `device` is the name to give `Device(...)`. Use it as a context manager, or call `close()`.
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
    #[pyo3(signature = (name=None))]
    fn new(py: Python<'_>, name: Option<&str>) -> PyResult<Emulator> {
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
        let emu = py.allow_threads(|| EmuThread::start(&map)).map_err(to_py)?;
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
