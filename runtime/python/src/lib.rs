//! `scenic._native`: the Python extension module of the `scenic` package, a thin pyo3 layer over
//! `scenic-runtime`. Every check (names from the manifest, widths, actions, hot-swap rules) is the
//! runtime's: this crate converts arguments and results and turns the runtime's errors into
//! `scenic.ScenicError` with the runtime's message. The Python half (`python/scenic/__init__.py`)
//! adds the mapping objects (`slot.csr[...]`, `slot.tables[...]`), NumPy/pandas views and the
//! paper's vocabulary (`ScenicReconfig`, `ScenicThread`).

mod device;
mod emulator;
mod errors;
mod slot;

use pyo3::prelude::*;

/// The module `scenic._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenicError", m.py().get_type::<errors::ScenicError>())?;
    m.add_class::<device::Device>()?;
    m.add_class::<slot::Slot>()?;
    m.add_class::<slot::Notification>()?;
    m.add_class::<emulator::Emulator>()?;
    m.add_function(wrap_pyfunction!(slot::rust_csr_loop, m)?)?;
    Ok(())
}
