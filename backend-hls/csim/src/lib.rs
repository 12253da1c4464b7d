//! The HLS C-simulation harness: compiles the kernels and testbenches that `scenic-backend-hls`
//! generates with g++ against AMD's ap_types headers, runs each testbench as a child process,
//! and drives them as a [`scenic_sim::device::Device`] ([`CsimDevice`]), so that STF tests
//! (`scenicc test --target hls-csim`) and the differential tests run on the generated C++ exactly
//! as on the interpreter.
//!
//! What this crate owns, and what it does not:
//!
//! - [`compile`]: finding the headers ([`ap_types`]: `--ap-types`, else `AP_TYPES`, the directory
//!   `scripts/fetch-ap-types.sh` prints), the g++ flags ([`CXX_FLAGS`]) and the build cache
//!   ([`build`], [`cache_root`]).
//! - `pch`: the precompiled header of the kernels' leading includes (ap_types, shims, support
//!   library), keyed into the same cache, used only where it changes nothing.
//! - `tb`: one running testbench and its line protocol on stdin/stdout.
//! - [`CsimDevice`]: every scu kernel of a module, plus [`cc_sim::CcSim`] for its congestion
//!   controllers, behind the `Device` trait; `host` (notifications, maps) and `stream` (the
//!   words of rdma/tcp kernels) are parts of it.
//! - It generates nothing: the kernels, testbenches, support library (`backend-hls/include/`) and
//!   shims (`backend-hls/shims/`) come from `scenic-backend-hls`, which does not depend on this
//!   crate, on `scenic-sim` or on the interpreter. Control requests use the records of
//!   `scenic_scu_abi::control`, exactly as the runtime does.
//!
//! Invariants:
//!
//! - A build is keyed by every source file given to g++ (kernel, testbench, support headers,
//!   shims), the flags and the ap_types path; it happens in a private temporary directory renamed
//!   into place, so concurrent tests never see half a build and a cached build is never stale.
//! - Every testbench process is ended when its [`CsimDevice`] (or `CcSim`) is dropped (`quit`,
//!   then wait), and its stderr file removed.
//! - Device errors name the device `hls-csim`; a testbench that exits or answers `error …` is a
//!   [`DeviceError::Protocol`] carrying its last stderr lines, never a panic.
//!
//! The support library (`backend-hls/include/`) is the one embedded in `scenic-backend-hls` at
//! build time ([`scenic_backend_hls::package::support_library`]), so an installed `scenicc` runs
//! C-simulation without the source tree.

#![deny(missing_docs)]

pub mod cc_sim;
pub mod compile;
mod host;
mod pch;
mod stream;
mod tb;
mod toolchain;

pub use compile::{ap_types, build, cache_root, CsimError, CXX_FLAGS};
pub use host::CsimNote;

use num_bigint::BigUint;
use scenic_backend_hls::KernelFiles;
use scenic_interp::cc::CcEvent;
use scenic_interp::context::Notification;
use scenic_interp::runtime::{AddEntryError, CounterCell};
use scenic_interp::state::EntryError;
use scenic_interp::Destination;
use scenic_ir::entities::{CcId, ScuId};
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::KeyMatch;
use scenic_ir::Module;
use scenic_scu_abi::control::{decode_counter, ControlLayout, Op, Request, ScuControl, Status};
use scenic_sim::device::{Device, DeviceError, WordOutput};
use std::collections::HashMap;
use std::path::Path;
use tb::Tb;

type DevResult<T> = Result<T, DeviceError>;

/// The generated kernels of a module, C-simulated: a [`Device`] for STF and differential tests.
pub struct CsimDevice<'m> {
    module: &'m Module,
    control: ControlLayout,
    tbs: Vec<Option<Tb>>,
    handles: HashMap<u64, (ScuId, u16, u32)>,
    next_handle: u64,
    ccs: crate::cc_sim::CcSim,
    /// Every notification so far, in order.
    pub notifications: Vec<CsimNote>,
    /// How many of `notifications` `Device::notifications` has returned.
    notes_read: usize,
    /// Every DMA transfer of the stream kernels so far, in the order they left (stream.rs).
    pub transfers: Vec<scenic_interp::stream::DmaTransfer>,
}

/// What went wrong creating a [`CsimDevice`].
#[derive(Debug, thiserror::Error)]
pub enum CsimSetupError {
    /// Generating the kernels failed.
    #[error(transparent)]
    Generate(#[from] scenic_backend_hls::Error),
    /// Building or starting them failed.
    #[error(transparent)]
    Csim(#[from] CsimError),
}

impl<'m> CsimDevice<'m> {
    /// Builds (or reuses) every scu's kernel of `module` and starts its testbench.
    pub fn new(
        module: &'m Module,
        files: &KernelFiles,
        ap_types: &Path,
        extra_flags: &[&str],
    ) -> Result<CsimDevice<'m>, CsimError> {
        let mut tbs = Vec::new();
        for kernel in &files.kernels {
            let exe = build(kernel, &files.support, ap_types, extra_flags)?;
            tbs.push(Some(Tb::spawn(&exe)?));
        }
        Ok(CsimDevice {
            module,
            control: files.control.clone(),
            tbs,
            handles: HashMap::new(),
            next_handle: 1,
            ccs: crate::cc_sim::CcSim::new(module, files, ap_types, extra_flags)?,
            notifications: Vec::new(),
            notes_read: 0,
            transfers: Vec::new(),
        })
    }

    /// Generates, builds and starts the kernels of a validated module in one step.
    pub fn for_module(
        module: &'m Module,
        info: &scenic_ir::ModuleInfo,
        options: &scenic_backend_hls::Options,
        ap_types: &Path,
    ) -> Result<CsimDevice<'m>, CsimSetupError> {
        let files = scenic_backend_hls::write_kernel(module, info, options)?;
        Ok(CsimDevice::new(module, &files, ap_types, &[])?)
    }

    fn tb(&mut self, scu: ScuId) -> Result<&mut Tb, DeviceError> {
        self.tbs
            .get_mut(cranelift_entity::EntityRef::index(scu))
            .and_then(Option::as_mut)
            .ok_or(DeviceError::Unsupported {
                device: "hls-csim",
                what: "run an scu without a kernel",
            })
    }

    fn layout(&self, scu: ScuId) -> Result<&ScuControl, DeviceError> {
        self.control
            .scus
            .get(cranelift_entity::EntityRef::index(scu))
            .ok_or(DeviceError::Unsupported {
                device: "hls-csim",
                what: "control an scu without a kernel",
            })
    }

    fn note(&mut self, scu: ScuId, line: &str) -> bool {
        let mut parts = line.split_whitespace();
        if parts.next() != Some("notify") {
            return false;
        }
        let to_arm = parts.next() == Some("1");
        let value = parts.next().and_then(|v| v.parse().ok()).unwrap_or(0);
        let name = self
            .module
            .scus
            .get(scu)
            .map_or(String::new(), |s| s.name.clone());
        self.notifications.push(CsimNote {
            scu: name,
            to_arm,
            value,
        });
        true
    }

    /// The notifications of cc `name`'s kernel so far ([`crate::cc_sim::CcSim::notifications`]).
    pub fn cc_notifications(&self, name: &str) -> Vec<CsimNote> {
        self.ccs.notifications(name)
    }

    /// Sends one control request to scu `scu`'s kernel.
    pub fn ctrl(
        &mut self,
        scu: ScuId,
        req: &Request,
    ) -> Result<(Option<Status>, BigUint), DeviceError> {
        let line = format!(
            "ctrl {} {} {} {}",
            req.op as u8,
            req.target,
            req.index,
            req.data.to_str_radix(16)
        );
        let lines = self.tb(scu)?.request(&line)?;
        let mut resp = None;
        for l in &lines {
            if self.note(scu, l) {
                continue;
            }
            let mut parts = l.split_whitespace();
            if parts.next() == Some("resp") {
                let status: u8 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(u8::MAX);
                let data = parts
                    .next()
                    .and_then(|d| BigUint::parse_bytes(d.as_bytes(), 16))
                    .unwrap_or_default();
                resp = Some((Status::from_code(status), data));
            }
        }
        resp.ok_or_else(|| DeviceError::Protocol {
            device: "hls-csim",
            problem: format!("no response to `{line}`"),
        })
    }
}

fn entry_error(status: Option<Status>, size: u64, action: &str) -> DeviceError {
    match status {
        Some(Status::Full) => DeviceError::Entry(AddEntryError::Entry(EntryError::Full(size))),
        Some(Status::Duplicate) => DeviceError::Entry(AddEntryError::Entry(EntryError::Duplicate)),
        Some(Status::Constant) => DeviceError::Entry(AddEntryError::Entry(EntryError::Constant)),
        Some(Status::BadAction) => DeviceError::Entry(AddEntryError::NoSuchAction(action.into())),
        other => DeviceError::Protocol {
            device: "hls-csim",
            problem: format!("unexpected status {other:?} adding an entry"),
        },
    }
}

fn hex(data: &[u8]) -> String {
    if data.is_empty() {
        return "-".into();
    }
    data.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s == "-" {
        return Some(Vec::new());
    }
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

impl Device for CsimDevice<'_> {
    fn module(&self) -> &Module {
        self.module
    }

    fn advance_time(&mut self, now_ns: u64) -> Result<(), DeviceError> {
        for i in 0..self.tbs.len() {
            let scu = cranelift_entity::EntityRef::new(i);
            let lines = self.tb(scu)?.request(&format!("time {now_ns}"))?;
            for l in lines {
                self.note(scu, &l);
            }
        }
        self.ccs.advance_time(now_ns)
    }

    fn packet(
        &mut self,
        scu: ScuId,
        data: &[u8],
        port: u8,
        now_ns: u64,
    ) -> Result<Vec<(Destination, Vec<u8>)>, DeviceError> {
        // Every kernel sees the time move, as the interpreter's every blocks of all scus do.
        for i in 0..self.tbs.len() {
            let other = cranelift_entity::EntityRef::new(i);
            if other != scu {
                let lines = self.tb(other)?.request(&format!("time {now_ns}"))?;
                for l in lines {
                    self.note(other, &l);
                }
            }
        }
        self.ccs.advance_time(now_ns)?;
        let line = format!("packet {port} {now_ns} {}", hex(data));
        let lines = self.tb(scu)?.request(&line)?;
        let mut outputs = Vec::new();
        for l in &lines {
            if self.note(scu, l) {
                continue;
            }
            let parts: Vec<&str> = l.split_whitespace().collect();
            let bad = || DeviceError::Protocol {
                device: "hls-csim",
                problem: format!("unexpected line `{l}`"),
            };
            let [out, kind, n, bytes] = parts[..] else {
                return Err(bad());
            };
            if out != "out" {
                return Err(bad());
            }
            let n: u64 = n.parse().map_err(|_| bad())?;
            let bytes = unhex(bytes).ok_or_else(bad)?;
            let dest = match kind {
                "net" => Destination::Network(n as u8),
                "host" => Destination::Host,
                "scu" => Destination::Scu(cranelift_entity::EntityRef::new(n as usize)),
                _ => return Err(bad()),
            };
            outputs.push((dest, bytes));
        }
        Ok(outputs)
    }

    fn word(
        &mut self,
        scu: ScuId,
        flow: u64,
        word: &Bits,
        keep: u64,
        last: bool,
        now_ns: u64,
    ) -> Result<WordOutput, DeviceError> {
        self.stream_word(scu, flow, word, keep, last, now_ns)
    }

    fn add_entry(
        &mut self,
        scu: ScuId,
        table: &str,
        keys: &[KeyMatch],
        action: &str,
        args: &[BigUint],
        priority: u64,
    ) -> Result<u64, DeviceError> {
        let def = &self.module.scus[scu];
        let (tid, t) = def
            .tables
            .iter()
            .find(|(_, t)| t.name == table)
            .ok_or_else(|| DeviceError::Entry(AddEntryError::NoSuchTable(table.into())))?;
        if keys.len() != t.keys.len() {
            return Err(DeviceError::Entry(AddEntryError::KeyCount {
                expected: t.keys.len(),
                found: keys.len(),
            }));
        }
        let position = t
            .actions
            .iter()
            .position(|a| def.actions[*a].name == action)
            .ok_or_else(|| DeviceError::Entry(AddEntryError::NoSuchAction(action.into())))?;
        let size = t.size;
        let tc = self
            .layout(scu)?
            .tables
            .get(cranelift_entity::EntityRef::index(tid))
            .cloned()
            .ok_or_else(|| DeviceError::Entry(AddEntryError::NoSuchTable(table.into())))?;
        let data = tc
            .encode_entry(keys, position as u32, args, priority)
            .map_err(|e| DeviceError::Protocol {
                device: "hls-csim",
                problem: e.to_string(),
            })?;
        let req = Request {
            op: Op::TableAdd,
            target: tc.target,
            index: 0,
            data,
        };
        let (status, out) = self.ctrl(scu, &req)?;
        if status != Some(Status::Ok) {
            return Err(entry_error(status, size, action));
        }
        let kernel_handle = scenic_scu_abi::control::to_u64(&out) as u32;
        let handle = self.next_handle;
        self.next_handle += 1;
        self.handles.insert(handle, (scu, tc.target, kernel_handle));
        Ok(handle)
    }

    fn remove_entry(&mut self, scu: ScuId, table: &str, handle: u64) -> Result<bool, DeviceError> {
        let Some(tc) = self.layout(scu)?.table(table).cloned() else {
            return Ok(false);
        };
        let Some((s, target, kh)) = self.handles.get(&handle).copied() else {
            return Ok(false);
        };
        if s != scu || target != tc.target {
            return Ok(false);
        }
        let req = Request {
            op: Op::TableRemove,
            target,
            index: kh,
            data: BigUint::default(),
        };
        let (status, _) = self.ctrl(scu, &req)?;
        self.handles.remove(&handle);
        Ok(status == Some(Status::Ok))
    }

    fn clear_entries(&mut self, scu: ScuId, table: &str) -> Result<bool, DeviceError> {
        let Some(tc) = self.layout(scu)?.table(table).cloned() else {
            return Ok(false);
        };
        let req = Request {
            op: Op::TableClear,
            target: tc.target,
            index: 0,
            data: BigUint::default(),
        };
        let (status, _) = self.ctrl(scu, &req)?;
        self.handles
            .retain(|_, (s, t, _)| !(*s == scu && *t == tc.target));
        Ok(status == Some(Status::Ok))
    }

    fn set_default(
        &mut self,
        scu: ScuId,
        table: &str,
        action: &str,
        args: &[BigUint],
    ) -> Result<(), DeviceError> {
        let tc = self
            .layout(scu)?
            .table(table)
            .cloned()
            .ok_or_else(|| DeviceError::Entry(AddEntryError::NoSuchTable(table.into())))?;
        let position = tc
            .actions
            .iter()
            .position(|a| a.name == action)
            .ok_or_else(|| DeviceError::Entry(AddEntryError::NoSuchAction(action.into())))?;
        let data = tc
            .encode_default(position as u32, args)
            .map_err(|e| DeviceError::Protocol {
                device: "hls-csim",
                problem: e.to_string(),
            })?;
        let req = Request {
            op: Op::TableSetDefault,
            target: tc.target,
            index: 0,
            data,
        };
        let (status, _) = self.ctrl(scu, &req)?;
        match status {
            Some(Status::Ok) => Ok(()),
            other => Err(entry_error(other, 0, action)),
        }
    }

    fn set_csr(&mut self, scu: ScuId, name: &str, value: u64) -> Result<bool, DeviceError> {
        let Some(csr) = self.layout(scu)?.csr(name).cloned() else {
            return Ok(false);
        };
        let req = Request {
            op: Op::CsrWrite,
            target: csr.offset as u16,
            index: 0,
            data: BigUint::from(value),
        };
        match self.ctrl(scu, &req)?.0 {
            Some(Status::Ok) => Ok(true),
            other => Err(DeviceError::Protocol {
                device: "hls-csim",
                problem: format!("writing CSR `{name}`: status {other:?}"),
            }),
        }
    }

    fn csr(&mut self, scu: ScuId, name: &str) -> Result<Option<u64>, DeviceError> {
        let Some(csr) = self.layout(scu)?.csr(name).cloned() else {
            return Ok(None);
        };
        let req = Request {
            op: Op::CsrRead,
            target: csr.offset as u16,
            index: 0,
            data: BigUint::default(),
        };
        let (status, data) = self.ctrl(scu, &req)?;
        Ok((status == Some(Status::Ok)).then(|| scenic_scu_abi::control::to_u64(&data)))
    }

    fn set_cc_param(&mut self, cc: &str, param: &str, value: u64) -> Result<bool, DeviceError> {
        self.ccs.set_param(cc, param, value)
    }

    fn cc_param(&mut self, cc: &str, param: &str) -> Result<Option<u64>, DeviceError> {
        self.ccs.param(cc, param)
    }

    fn counter(
        &mut self,
        scu: ScuId,
        name: &str,
        index: usize,
    ) -> Result<Option<CounterCell>, DeviceError> {
        let Some(c) = self.layout(scu)?.counter(name).cloned() else {
            return Ok(None);
        };
        let Ok(index) = u32::try_from(index) else {
            return Ok(None);
        };
        let req = Request {
            op: Op::CounterRead,
            target: c.target,
            index,
            data: BigUint::default(),
        };
        let (status, data) = self.ctrl(scu, &req)?;
        if status != Some(Status::Ok) {
            return Ok(None);
        }
        let (packets, bytes) = decode_counter(&data);
        Ok(Some(CounterCell { packets, bytes }))
    }

    fn cc_event(
        &mut self,
        cc: CcId,
        flow: u64,
        event: CcEvent,
        now_ns: u64,
    ) -> Result<(), DeviceError> {
        // The scu kernels see the time move too, as the interpreter's `every` blocks do.
        for i in 0..self.tbs.len() {
            let scu = cranelift_entity::EntityRef::new(i);
            let lines = self.tb(scu)?.request(&format!("time {now_ns}"))?;
            for l in lines {
                self.note(scu, &l);
            }
        }
        self.ccs.event(cc, flow, event, now_ns)
    }

    fn notifications(&mut self) -> Result<Vec<Notification>, DeviceError> {
        Ok(self.new_notifications())
    }

    fn map_write(&mut self, scu: ScuId, map: &str, k: &BigUint, v: &BigUint) -> DevResult<bool> {
        self.write_map(scu, map, k, v)
    }

    fn map_read(&mut self, scu: ScuId, map: &str, k: &BigUint) -> DevResult<Option<BigUint>> {
        self.read_map(scu, map, k)
    }

    fn cc_output(&mut self, cc: CcId, flow: u64) -> Result<Option<u64>, DeviceError> {
        self.ccs.output(cc, flow)
    }
}
