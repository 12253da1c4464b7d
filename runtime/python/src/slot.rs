//! `scenic._native.Slot`: one slot of a device: load, swap, and the loaded unit driven by name
//! (CSRs, tables, counters, maps, notifications), each a call of the runtime's [`Scu`].
//!
//! The slot is the runtime's [`SlotHandle`]: it attaches lazily to the package the slot's journal
//! names and re-attaches after any load or swap. Blocking calls release the GIL.

use std::sync::Arc;
use std::time::Duration;

use num_bigint::BigUint;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use scenic_runtime::handle::Reconfigured;
use scenic_runtime::notify::Notifications;
use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, LoadReport, Scu, ScuError, SlotHandle, SwapOptions, SwapReport};

use crate::errors::{refused, to_py};

/// A slot of a device (`Device.slot(k)`).
#[pyclass(module = "scenic._native", frozen)]
pub struct Slot {
    dev: Arc<Device>,
    state: StateDir,
    handle: SlotHandle,
}

impl Slot {
    pub fn new(dev: Arc<Device>, state: StateDir, k: u8) -> PyResult<Slot> {
        let handle = SlotHandle::new(Arc::clone(&dev), state.clone(), k).map_err(to_py)?;
        Ok(Slot { dev, state, handle })
    }

    /// Runs `f` on the attached unit with the GIL released.
    fn with_scu<R: Send>(
        &self,
        py: Python<'_>,
        f: impl for<'a> FnOnce(&Scu<'a>) -> Result<R, ScuError> + Send,
    ) -> PyResult<R> {
        py.allow_threads(|| self.handle.with_scu(f)).map_err(to_py)
    }
}

fn load_dict(py: Python<'_>, r: LoadReport) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("slot", r.slot)?;
    d.set_item("bank", r.bank)?;
    d.set_item("unit", r.unit)?;
    d.set_item("load_ns", r.load_ns)?;
    d.set_item("replaced", r.replaced)?;
    d.set_item("slow_path", r.slow_path)?;
    d.set_item("active", r.active)?;
    Ok(d)
}

fn swap_dict(py: Python<'_>, r: SwapReport) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("slot", r.slot)?;
    d.set_item("old_unit", r.old_unit)?;
    d.set_item("new_unit", r.new_unit)?;
    d.set_item("bank", r.bank)?;
    d.set_item("load_ns", r.load_ns)?;
    d.set_item("switch_seq", r.switch_seq)?;
    d.set_item("warmed_inputs", r.warmed_inputs)?;
    let carried: Vec<String> = r
        .plan
        .carried()
        .map(|i| format!("{} {}", i.kind, i.name))
        .collect();
    let fresh: Vec<(String, String)> = r
        .plan
        .fresh()
        .map(|i| (format!("{} {}", i.kind, i.name), i.reason.clone()))
        .collect();
    d.set_item("carried", carried)?;
    d.set_item("fresh", fresh)?;
    d.set_item("total_time", r.total_time.as_secs_f64())?;
    Ok(d)
}

/// One notification record (device.md §3.7) and the records lost before it.
#[pyclass(module = "scenic._native", frozen, get_all)]
#[derive(Clone)]
pub struct Notification {
    /// `NOW_NS` when the unit raised it.
    pub time_ns: u64,
    /// The slot that raised it.
    pub slot: u8,
    /// 0 host, 1 Arm.
    pub target: u8,
    /// The bank that raised it.
    pub bank: u8,
    /// Bit 0: raised by the shadow bank.
    pub flags: u8,
    /// The 32-bit value.
    pub value: u32,
    /// The slot's notification number.
    pub seq: u64,
    /// Records lost between the previous one read and this one.
    pub lost_before: u64,
}

#[pymethods]
impl Notification {
    fn __repr__(&self) -> String {
        format!(
            "Notification(seq={}, value={}, time_ns={}, target={}, lost_before={})",
            self.seq, self.value, self.time_ns, self.target, self.lost_before
        )
    }
}

fn texts(values: &[String]) -> Vec<&str> {
    values.iter().map(String::as_str).collect()
}

#[pymethods]
impl Slot {
    /// The slot's index.
    #[getter]
    fn index(&self) -> u8 {
        self.handle.index()
    }

    /// Loads unit `unit` (default: the only one) of the package directory `path` and activates it;
    /// a unit running before is replaced (its state is not carried: use `swap`). A report dict.
    #[pyo3(signature = (path, unit=None))]
    fn load<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        unit: Option<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let r = py
            .allow_threads(|| self.handle.load(&path, unit.as_deref()))
            .map_err(to_py)?;
        load_dict(py, r)
    }

    /// Hitless replacement of the running unit by `path`'s, carrying state where the layouts agree
    /// (`carry=False`: nothing carried); `warm_up` seconds of mirrored inputs first. A report dict.
    #[pyo3(signature = (path, unit=None, carry=true, warm_up=0.0))]
    fn swap<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        unit: Option<String>,
        carry: bool,
        warm_up: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let warm_up = Duration::try_from_secs_f64(warm_up)
            .map_err(|e| refused(format!("warm_up {warm_up}: {e}")))?;
        let options = SwapOptions { carry, warm_up };
        let r = py
            .allow_threads(|| self.handle.swap(&path, unit.as_deref(), options))
            .map_err(to_py)?;
        swap_dict(py, r)
    }

    /// The paper's `reconfigure_app`: a swap when a unit is active in the slot, else a load.
    fn reconfigure<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
    ) -> PyResult<Bound<'py, PyDict>> {
        match py.allow_threads(|| self.handle.reconfigure(&path)) {
            Ok(Reconfigured::Loaded(r)) => load_dict(py, r),
            Ok(Reconfigured::Swapped(r)) => swap_dict(py, r),
            Err(e) => Err(to_py(e)),
        }
    }

    /// The running unit's name.
    #[getter]
    fn unit(&self, py: Python<'_>) -> PyResult<String> {
        self.with_scu(py, |s| Ok(s.name().to_string()))
    }

    /// The running unit's CSRs: `(name, offset, width, readonly)` each, in offset order.
    fn csr_list(&self, py: Python<'_>) -> PyResult<Vec<(String, u32, u32, bool)>> {
        self.with_scu(py, |s| {
            Ok(s.control()
                .csrs
                .iter()
                .map(|c| (c.name.clone(), c.offset, c.width, c.host_readonly))
                .collect())
        })
    }

    /// Reads CSR `name`.
    fn csr_get(&self, py: Python<'_>, name: &str) -> PyResult<u64> {
        self.with_scu(py, |s| s.csr_get(name))
    }

    /// Writes CSR `name` (refused when readonly or wider than the CSR; fenced).
    fn csr_set(&self, py: Python<'_>, name: &str, value: u64) -> PyResult<()> {
        self.with_scu(py, |s| s.csr_set(name, value))
    }

    /// Reads the CSR at word `offset`.
    fn csr_get_offset(&self, py: Python<'_>, offset: u32) -> PyResult<u64> {
        self.with_scu(py, |s| s.csr_get_offset(offset))
    }

    /// Writes the CSR at word `offset` (pyCoyote's `set_csr(value, offset)`).
    fn csr_set_offset(&self, py: Python<'_>, offset: u32, value: u64) -> PyResult<()> {
        self.with_scu(py, |s| s.csr_set_offset(offset, value))
    }

    /// A slot register of device.md §3.2 by name (`PKT_SEQ`, `OUT_HOST_PKTS`, `DROP_PROGRAM`, ...).
    fn register(&self, name: &str) -> PyResult<u64> {
        self.handle.register(name).map_err(to_py)
    }

    /// The paper's `get_completed(op)` (`SlotHandle::completed`).
    fn completed(&self, op: &str) -> PyResult<u64> {
        self.handle.completed(op).map_err(to_py)
    }

    /// The names of the unit's tables, counters and maps: `{"tables": [...], ...}`.
    fn names(&self, py: Python<'_>) -> PyResult<(Vec<String>, Vec<String>, Vec<String>)> {
        self.with_scu(py, |s| {
            let c = s.control();
            Ok((
                c.tables.iter().map(|t| t.name.clone()).collect(),
                c.counters.iter().map(|t| t.name.clone()).collect(),
                c.maps.iter().map(|t| t.name.clone()).collect(),
            ))
        })
    }

    /// The key names of table `table`, in key order.
    fn table_keys(&self, py: Python<'_>, table: &str) -> PyResult<Vec<String>> {
        let keys = self.with_scu(py, |s| s.table_keys(table))?;
        Ok(keys
            .into_iter()
            .map(|k| k.split(": ").next().unwrap_or_default().to_string())
            .collect())
    }

    /// Adds an entry: one key per table key in the STF `add` syntax, the action, its arguments;
    /// the entry's handle.
    #[pyo3(signature = (table, keys, action, args, priority=None))]
    fn table_add(
        &self,
        py: Python<'_>,
        table: &str,
        keys: Vec<String>,
        action: &str,
        args: Vec<String>,
        priority: Option<u32>,
    ) -> PyResult<u32> {
        self.with_scu(py, |s| {
            s.table_add_text(table, &texts(&keys), action, &texts(&args), priority)
        })
    }

    /// Replaces entry `handle`'s action and arguments in one step.
    fn table_modify(
        &self,
        py: Python<'_>,
        table: &str,
        handle: u32,
        action: &str,
        args: Vec<String>,
    ) -> PyResult<()> {
        self.with_scu(py, |s| {
            s.table_modify_text(table, handle, action, &texts(&args))
        })
    }

    /// Removes entry `handle`.
    fn table_remove(&self, py: Python<'_>, table: &str, handle: u32) -> PyResult<()> {
        self.with_scu(py, |s| s.table_remove(table, handle))
    }

    /// Removes every run-time entry.
    fn table_clear(&self, py: Python<'_>, table: &str) -> PyResult<()> {
        self.with_scu(py, |s| s.table_clear(table))
    }

    /// Sets the default action.
    fn table_set_default(
        &self,
        py: Python<'_>,
        table: &str,
        action: &str,
        args: Vec<String>,
    ) -> PyResult<()> {
        self.with_scu(py, |s| {
            let args = scenic_runtime::scu::table::parse_args(&texts(&args))?;
            s.table_set_default(table, action, &args)
        })
    }

    /// Every cell of counter `name`: `(packets, bytes)` each.
    fn counter_read_all(&self, py: Python<'_>, name: &str) -> PyResult<Vec<(u64, u64)>> {
        self.with_scu(py, |s| s.counter_read_all(name))
    }

    /// Cell `index` of counter `name`: `(packets, bytes)`.
    fn counter_read(&self, py: Python<'_>, name: &str, index: u64) -> PyResult<(u64, u64)> {
        self.with_scu(py, |s| s.counter_read(name, index))
    }

    /// Zeroes cell `index` of counter `name`, or every cell.
    #[pyo3(signature = (name, index=None))]
    fn counter_reset(&self, py: Python<'_>, name: &str, index: Option<u64>) -> PyResult<()> {
        self.with_scu(py, |s| s.counter_reset(name, index))
    }

    /// Every entry of map `name`: `(key, value)` ints.
    fn map_entries(&self, py: Python<'_>, name: &str) -> PyResult<Vec<(BigUint, BigUint)>> {
        self.with_scu(py, |s| s.map_entries(name))
    }

    /// The value of `key` in map `name`, or None.
    fn map_get(&self, py: Python<'_>, name: &str, key: BigUint) -> PyResult<Option<BigUint>> {
        self.with_scu(py, |s| s.map_get(name, &key))
    }

    /// Inserts or replaces `key` in map `name`.
    fn map_insert(&self, py: Python<'_>, name: &str, key: BigUint, value: BigUint) -> PyResult<()> {
        self.with_scu(py, |s| s.map_insert(name, &key, &value))
    }

    /// Removes `key` from map `name`; whether it was there.
    fn map_remove(&self, py: Python<'_>, name: &str, key: BigUint) -> PyResult<bool> {
        self.with_scu(py, |s| s.map_remove(name, &key))
    }

    /// The notifications the slot raised, oldest first, waiting up to `timeout` seconds for the first.
    #[pyo3(signature = (timeout=0.0, max=64))]
    fn notifications(
        &self,
        py: Python<'_>,
        timeout: f64,
        max: usize,
    ) -> PyResult<Vec<Notification>> {
        let timeout = Duration::try_from_secs_f64(timeout)
            .map_err(|e| refused(format!("timeout {timeout}: {e}")))?;
        let events = py
            .allow_threads(|| {
                let mut ring =
                    Notifications::new(&self.dev, self.handle.index(), self.state.clone())?;
                ring.wait(timeout, max)
            })
            .map_err(to_py)?;
        Ok(events
            .into_iter()
            .map(|e| Notification {
                time_ns: e.record.time_ns,
                slot: e.record.slot,
                target: e.record.target,
                bank: e.record.bank,
                flags: e.record.flags,
                value: e.record.value,
                seq: e.record.seq,
                lost_before: e.lost_before,
            })
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("scenic.Slot({})", self.handle.index())
    }
}

/// `n` calls of the runtime's `csr_set_offset(offset, value)` (`get=false`) or `csr_get_offset`
/// (`get=true`) on `slot` from Rust, with no Python in between; the seconds they took. For the
/// overhead figures of `bench/set_csr.py`.
#[pyfunction]
#[pyo3(signature = (slot, value, offset, n, get=false))]
pub fn rust_csr_loop(
    py: Python<'_>,
    slot: &Slot,
    value: u64,
    offset: u32,
    n: u64,
    get: bool,
) -> PyResult<f64> {
    let attached = slot.handle.attachment().map_err(to_py)?;
    py.allow_threads(|| {
        attached.run(|s| {
            let started = std::time::Instant::now();
            for _ in 0..n {
                if get {
                    s.csr_get_offset(offset)?;
                } else {
                    s.csr_set_offset(offset, value)?;
                }
            }
            Ok::<f64, ScuError>(started.elapsed().as_secs_f64())
        })
    })
    .map_err(to_py)
}
