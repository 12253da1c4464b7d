//! C-simulation: compile a kernel and its testbench with g++, run the testbench, and drive it as a
//! [`Device`] so that STF tests and differential tests run on the generated C++ exactly as on the
//! interpreter.
//!
//! Compilation is cached: the build directory is named by a hash of every source file given to
//! g++ and the flags, under `$SCENIC_CACHE/csim/` (default `~/.cache/scenicc/csim/`), so a second
//! test run (or a second test using the same kernel) does not recompile. A build happens in a
//! private temporary directory renamed into place, so concurrent tests never see half a build.
//!
//! The headers: `AP_TYPES` names AMD's ap_types directory (`scripts/fetch-ap-types.sh` prints
//! it); our `hls_stream.h` and `ap_axi_sdata.h` shims and the support library come with this
//! crate.

pub mod cc_sim;
mod host;
mod stream;

pub use host::CsimNote;

use crate::{Kernel, KernelFiles};
use num_bigint::BigUint;
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
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

type DevResult<T> = Result<T, DeviceError>;

/// The flags every C-simulation build uses (the issue's; `-I` paths are added per build).
pub const CXX_FLAGS: &[&str] = &[
    "-std=c++14",
    "-O2",
    "-Wno-unknown-pragmas",
    "-Wno-maybe-uninitialized",
    "-Wno-uninitialized",
];

/// Why a C-simulation could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum CsimError {
    /// Neither `AP_TYPES` nor `--ap-types` names the ap_types headers.
    #[error("the ap_types headers were not found: set AP_TYPES (or pass --ap-types DIR) to the directory that `scripts/fetch-ap-types.sh` prints")]
    NoApTypes,
    /// The directory given has no `ap_int.h`.
    #[error(
        "{0} does not hold ap_int.h (expected the directory printed by scripts/fetch-ap-types.sh)"
    )]
    BadApTypes(PathBuf),
    /// g++ failed.
    #[error("g++ failed on {dir}:\n{stderr}")]
    Compile {
        /// The build directory (kept for inspection).
        dir: PathBuf,
        /// What g++ said.
        stderr: String,
    },
    /// A file or process operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> CsimError {
    let what = what.into();
    move |source| CsimError::Io { what, source }
}

/// The ap_types directory: `explicit`, else `$AP_TYPES`.
pub fn ap_types(explicit: Option<&Path>) -> Result<PathBuf, CsimError> {
    let dir = match explicit {
        Some(p) => p.to_path_buf(),
        None => match std::env::var_os("AP_TYPES") {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => return Err(CsimError::NoApTypes),
        },
    };
    if !dir.join("ap_int.h").is_file() {
        return Err(CsimError::BadApTypes(dir));
    }
    Ok(dir)
}

/// The cache root: `$SCENIC_CACHE/csim`, else `$XDG_CACHE_HOME/scenicc/csim`, else
/// `~/.cache/scenicc/csim`, else the temporary directory.
pub fn cache_root() -> PathBuf {
    if let Some(v) = std::env::var_os("SCENIC_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(v).join("csim");
    }
    if let Some(v) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(v).join("scenicc/csim");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join(".cache/scenicc/csim");
    }
    std::env::temp_dir().join("scenicc-csim")
}

/// 64-bit FNV-1a: stable across runs and Rust versions, enough to key a cache.
fn fnv(data: &[u8], mut h: u64) -> u64 {
    for b in data {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The support library's headers (`backend-hls/include/`), read from this crate's source tree.
fn support_library() -> Result<Vec<(String, String)>, CsimError> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let mut files = Vec::new();
    let entries = std::fs::read_dir(&dir).map_err(io(format!("reading {}", dir.display())))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "hpp" || e == "h") {
            let text = std::fs::read_to_string(&path)
                .map_err(io(format!("reading {}", path.display())))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((name, text));
        }
    }
    files.sort();
    Ok(files)
}

/// Compiles a kernel's testbench (cached); the path of the executable.
pub fn build(
    kernel: &Kernel,
    support: &[(String, String)],
    ap_types: &Path,
    extra_flags: &[&str],
) -> Result<PathBuf, CsimError> {
    let library = support_library()?;
    let mut sources: Vec<(String, String)> = vec![
        (format!("src/{}.hpp", kernel.top), kernel.hpp.clone()),
        (format!("src/{}.cpp", kernel.top), kernel.cpp.clone()),
        (format!("src/{}_tb.cpp", kernel.top), kernel.tb.clone()),
        ("shims/hls_stream.h".into(), crate::SHIM_HLS_STREAM_H.into()),
        (
            "shims/ap_axi_sdata.h".into(),
            crate::SHIM_AP_AXI_SDATA_H.into(),
        ),
    ];
    sources.extend(support.iter().map(|(n, t)| (format!("src/{n}"), t.clone())));
    sources.extend(
        library
            .into_iter()
            .map(|(n, t)| (format!("include/{n}"), t)),
    );
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (name, text) in &sources {
        h = fnv(name.as_bytes(), h);
        h = fnv(&[0], h);
        h = fnv(text.as_bytes(), h);
    }
    for f in CXX_FLAGS.iter().chain(extra_flags) {
        h = fnv(f.as_bytes(), h);
    }
    h = fnv(ap_types.to_string_lossy().as_bytes(), h);
    let root = cache_root();
    let dir = root.join(format!("{}-{h:016x}", kernel.top));
    let exe = dir.join("tb");
    if exe.is_file() {
        return Ok(exe);
    }
    std::fs::create_dir_all(&root).map_err(io(format!("creating {}", root.display())))?;
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = root.join(format!(
        ".build-{}-{}-{nonce}",
        kernel.top,
        std::process::id()
    ));
    for (name, text) in &sources {
        let path = tmp.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io(format!("creating {}", parent.display())))?;
        }
        std::fs::write(&path, text).map_err(io(format!("writing {}", path.display())))?;
    }
    let mut cmd = Command::new(std::env::var_os("CXX").unwrap_or_else(|| "g++".into()));
    cmd.current_dir(&tmp)
        .args(CXX_FLAGS)
        .args(extra_flags)
        .args(["-Ishims", "-Iinclude", "-Isrc", "-isystem"])
        .arg(ap_types)
        .arg(format!("src/{}.cpp", kernel.top))
        .arg(format!("src/{}_tb.cpp", kernel.top))
        .args(["-o", "tb"]);
    let output = cmd.output().map_err(io("running g++ (is it installed?)"))?;
    if !output.status.success() {
        return Err(CsimError::Compile {
            dir: tmp,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another build of the same sources won the race: use it.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(exe)
}

/// One running testbench (also the cc testbenches of [`crate::csim::cc_sim`]).
pub(crate) struct Tb {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_path: PathBuf,
}

impl Tb {
    pub(crate) fn spawn(exe: &Path) -> Result<Tb, CsimError> {
        let stderr_path = std::env::temp_dir().join(format!(
            "scenicc-tb-{}-{:x}.stderr",
            std::process::id(),
            fnv(exe.to_string_lossy().as_bytes(), 7) ^ u64::from(std::process::id())
        ));
        let stderr = std::fs::File::create(&stderr_path)
            .map_err(io("creating the testbench's stderr file"))?;
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .map_err(io(format!("starting {}", exe.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(CsimError::Io {
                what: "the testbench's pipes".into(),
                source: std::io::Error::other("missing"),
            });
        };
        Ok(Tb {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            stderr_path,
        })
    }

    /// Sends one request line; the answer lines before `done`.
    pub(crate) fn request(&mut self, line: &str) -> Result<Vec<String>, DeviceError> {
        let protocol = |problem: String| DeviceError::Protocol {
            device: "hls-csim",
            problem,
        };
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| DeviceError::Io {
                device: "hls-csim",
                source,
            })?;
        let mut out = Vec::new();
        loop {
            let mut l = String::new();
            let n = self
                .stdout
                .read_line(&mut l)
                .map_err(|source| DeviceError::Io {
                    device: "hls-csim",
                    source,
                })?;
            if n == 0 {
                let err = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
                return Err(protocol(format!(
                    "the testbench exited after `{line}`: {}",
                    err.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
                )));
            }
            let l = l.trim_end().to_string();
            if l == "done" {
                break;
            }
            if let Some(msg) = l.strip_prefix("error ") {
                return Err(protocol(format!("`{line}`: {msg}")));
            }
            out.push(l);
        }
        Ok(out)
    }
}

impl Drop for Tb {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.stderr_path);
    }
}

/// The generated kernels of a module, C-simulated: a [`Device`] for STF and differential tests.
pub struct CsimDevice<'m> {
    module: &'m Module,
    control: ControlLayout,
    tbs: Vec<Option<Tb>>,
    handles: HashMap<u64, (ScuId, u16, u32)>,
    next_handle: u64,
    ccs: crate::csim::cc_sim::CcSim,
    /// Every notification so far, in order.
    pub notifications: Vec<CsimNote>,
    /// How many of `notifications` `Device::notifications` has returned.
    notes_read: usize,
    /// Every DMA transfer of the stream kernels so far, in the order they left (csim/stream.rs).
    pub transfers: Vec<scenic_interp::stream::DmaTransfer>,
}

/// What went wrong creating a [`CsimDevice`].
#[derive(Debug, thiserror::Error)]
pub enum CsimSetupError {
    /// Generating the kernels failed.
    #[error(transparent)]
    Generate(#[from] crate::Error),
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
            ccs: crate::csim::cc_sim::CcSim::new(module, files, ap_types, extra_flags)?,
            notifications: Vec::new(),
            notes_read: 0,
            transfers: Vec::new(),
        })
    }

    /// Generates, builds and starts the kernels of a validated module in one step.
    pub fn for_module(
        module: &'m Module,
        info: &scenic_ir::ModuleInfo,
        options: &crate::Options,
        ap_types: &Path,
    ) -> Result<CsimDevice<'m>, CsimSetupError> {
        let files = crate::write_kernel(module, info, options)?;
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

    /// The notifications of cc `name`'s kernel so far ([`crate::csim::cc_sim::CcSim::notifications`]).
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
