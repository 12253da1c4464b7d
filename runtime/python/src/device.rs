//! `scenic.Device`: an open device (`emu:NAME`, a map path, later `/dev/scenicN`) and its state
//! directory; `dev.slot(k)` hands out [`Slot`]s that share the one mapping.

use std::sync::Arc;

use pyo3::prelude::*;
use scenic_runtime::state::StateDir;

use crate::errors::to_py;
use crate::slot::Slot;

/// An open SCENIC device.
///
/// `Device("emu:emu0")` opens the emulated NIC `emu0` (`/dev/shm/scenic-emu0`, as `scenic nic up
/// emu0` serves it); a name holding a `/` is a map file's path. Opening checks the interface
/// version, the status and that the device's heartbeat moves.
#[pyclass(module = "scenic._native", frozen)]
pub struct Device {
    dev: Arc<scenic_runtime::Device>,
    state: StateDir,
    name: String,
}

#[pymethods]
impl Device {
    #[new]
    fn new(py: Python<'_>, name: &str) -> PyResult<Device> {
        let dev = py
            .allow_threads(|| scenic_runtime::Device::open(name))
            .map_err(to_py)?;
        let state = StateDir::of(&dev).map_err(to_py)?;
        Ok(Device {
            dev: Arc::new(dev),
            state,
            name: name.to_string(),
        })
    }

    /// The name the device was opened with.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The number of SCU slots.
    #[getter]
    fn scu_slots(&self) -> u8 {
        self.dev.identity().slots.scu_slots
    }

    /// The interface version, `(major, minor)`.
    #[getter]
    fn version(&self) -> (u16, u16) {
        let id = self.dev.identity();
        (id.major, id.minor)
    }

    /// Slot `k` (an SCU slot, or CC slot 16/17).
    fn slot(&self, k: u8) -> PyResult<Slot> {
        Slot::new(Arc::clone(&self.dev), self.state.clone(), k)
    }

    /// The slot the slow path (traffic no steering table claims, device.md §2.3) goes through, or
    /// `None` when it goes straight to the host. Setting it is fenced; the device refuses a slot
    /// that is not an SCU slot (`ScenicError`, the old value kept).
    #[getter]
    fn slow_path_slot(&self) -> PyResult<Option<u8>> {
        let v = self
            .dev
            .read(scenic_runtime::abi::global::SLOW_PATH_SLOT)
            .map_err(to_py)?
            & 0xFF;
        Ok((v != 0xFF).then_some(v as u8))
    }

    #[setter]
    fn set_slow_path_slot(&self, py: Python<'_>, slot: Option<u8>) -> PyResult<()> {
        py.allow_threads(|| scenic_runtime::steering::set_slow_path(&self.dev, slot))
            .map_err(to_py)
    }

    /// Waits until every earlier write reached the device (device.md §1.3); the fence value.
    fn fence(&self, py: Python<'_>) -> PyResult<u64> {
        py.allow_threads(|| self.dev.fence()).map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!("scenic.Device({:?})", self.name)
    }
}
