//! `scenic.Emulator`: the emulated SCENIC device in this process (the device server with the
//! models on, as the runtime's tests run it), for tests, notebooks and the docs' examples without
//! `scenic nic up`. It has no network ports: units are loaded, driven by name and swapped, but no
//! packet reaches them.
//!
//! Invariant: the server thread runs from construction until `close()` (or the object's end), then
//! the map file and the slot journals of the device are removed.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use std::time::{Duration, Instant};

use pyo3::prelude::*;
use scenic_runtime::abi::global;
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::Region;

use crate::errors::{refused, to_py};

/// How long a new device may take to beat for the first time.
const START_TIMEOUT: Duration = Duration::from_secs(10);

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

struct Running {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// An emulated device served by a thread of this process.
///
/// `Emulator()` makes a private map in a temporary directory; `Emulator("emu1")` serves
/// `emu:emu1` (`/dev/shm/scenic-emu1`), which other processes (the `scenic` CLI) can open too.
/// `device` is the name to give `Device(...)`. Use it as a context manager, or call `close()`.
#[pyclass(module = "scenic._native", frozen)]
pub struct Emulator {
    device: String,
    map: PathBuf,
    running: Mutex<Option<Running>>,
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
        let mut server = EmuServer::create_path(&map, EmuConfig::default()).map_err(to_py)?;
        server.enable_models();
        let region = server.shared_region();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let freeze = AtomicBool::new(false);
            // A region error ends the server; clients then see the device go away.
            let _ = server.run(&flag, &freeze);
        });
        // `Device::open` wants a heartbeat that moves within 100 ms; on a loaded machine the new
        // threads may not run that soon, so the device is handed out once it has beaten.
        let beating = py.allow_threads(|| heartbeat_moves(&region));
        if !beating {
            stop.store(true, Ordering::Release);
            let _ = thread.join();
            return Err(refused(format!(
                "the emulated device at {} did not start: no heartbeat within {} s",
                map.display(),
                START_TIMEOUT.as_secs()
            )));
        }
        Ok(Emulator {
            device,
            map,
            running: Mutex::new(Some(Running { stop, thread })),
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
        if let Some(r) = running {
            r.stop.store(true, Ordering::Release);
            py.allow_threads(|| {
                let _ = r.thread.join();
            });
            scenic_runtime::state::forget_journals(&self.map);
            if self._dir.is_none() {
                let _ = std::fs::remove_file(&self.map);
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

impl Drop for Emulator {
    fn drop(&mut self) {
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(r) = running {
            r.stop.store(true, Ordering::Release);
            let _ = r.thread.join();
            scenic_runtime::state::forget_journals(&self.map);
        }
    }
}
