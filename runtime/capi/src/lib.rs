//! `libscenic_c`: the SCENIC runtime for C and C++, an `extern "C"` layer over `scenic-runtime` with
//! the header `include/scenic.h` (checked against this file by `tests/header.rs`) and the
//! header-only C++ wrapper `include/scenic/scenic.hpp` (docs/cpp.md).
//!
//! Conventions: objects are opaque pointers made by `*_open`/`*_start` and freed by
//! `*_close`/`*_stop` (NULL is accepted and ignored); a function returns 0 (or a pointer) on success
//! and -1 (or NULL) on failure, with the runtime's message in `scenic_last_error()` (per thread,
//! valid until the thread's next failing call). Every check is the runtime's.
//!
//! Unsafe code: a C API dereferences the pointers C hands it; each dereference is in one of the
//! small helpers below, which check for NULL. This crate allows `unsafe_code` for that alone.

#![allow(unsafe_code)]

mod named;
mod wired;

pub use named::ScenicNotification;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr, CString};
use std::path::Path;
use std::sync::{Arc, Mutex};

use scenic_runtime::emu::thread::EmuThread;
use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, SlotHandle};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(message: impl std::fmt::Display) -> c_int {
    // A message with a NUL byte is cut there rather than lost.
    let text = message.to_string();
    let text = text.split('\0').next().unwrap_or_default().to_string();
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(text).unwrap_or_default());
    -1
}

fn fail_null<T>(message: impl std::fmt::Display) -> *mut T {
    fail(message);
    std::ptr::null_mut()
}

/// A C string argument as UTF-8.
fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, String> {
    if p.is_null() {
        return Err(format!("{what} is NULL"));
    }
    // SAFETY: C passes a NUL-terminated string that lives for the call (the header says so).
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|_| format!("{what} is not UTF-8"))
}

/// A reference to an object this library made.
fn object<'a, T>(p: *const T, what: &str) -> Result<&'a T, String> {
    // SAFETY: a non-NULL pointer is one of ours (made by Box::into_raw, not yet freed): the
    // header's contract.
    unsafe { p.as_ref() }.ok_or_else(|| format!("{what} is NULL"))
}

fn store(out: *mut u64, value: u64) -> c_int {
    // SAFETY: `out` is NULL (checked) or points to a u64 the caller owns.
    match unsafe { out.as_mut() } {
        Some(slot) => {
            *slot = value;
            0
        }
        None => fail("the output pointer is NULL"),
    }
}

/// The message of the calling thread's last failure ("" if none).
#[no_mangle]
pub extern "C" fn scenic_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// An in-process emulated device, with or without wired ports.
pub struct ScenicEmulator {
    emu: EmuThread,
    device: CString,
    /// Frames taken from a wire that did not fit the caller's buffer, by port (-1: host).
    pending: Mutex<HashMap<c_int, Vec<u8>>>,
}

impl ScenicEmulator {
    fn new(emu: EmuThread, device: CString) -> ScenicEmulator {
        ScenicEmulator {
            emu,
            device,
            pending: Mutex::new(HashMap::new()),
        }
    }
}

/// Starts an emulated device serving the map file `map_path`; NULL on failure.
#[no_mangle]
pub extern "C" fn scenic_emulator_start(map_path: *const c_char) -> *mut ScenicEmulator {
    let path = match text(map_path, "map_path") {
        Ok(p) => p,
        Err(e) => return fail_null(e),
    };
    let device = match CString::new(path) {
        Ok(d) => d,
        Err(e) => return fail_null(e),
    };
    match EmuThread::start(Path::new(path)) {
        Ok(emu) => Box::into_raw(Box::new(ScenicEmulator::new(emu, device))),
        Err(e) => fail_null(e),
    }
}

/// The name to open the emulator's device with (valid while the emulator is).
#[no_mangle]
pub extern "C" fn scenic_emulator_device(emu: *const ScenicEmulator) -> *const c_char {
    match object(emu, "emu") {
        Ok(e) => e.device.as_ptr(),
        Err(e) => {
            fail(e);
            std::ptr::null()
        }
    }
}

/// Stops and frees an emulator.
///
/// # Safety
/// The pointer is NULL or one `scenic_emulator_start` returned and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn scenic_emulator_stop(emu: *mut ScenicEmulator) {
    if !emu.is_null() {
        // SAFETY: made by Box::into_raw in scenic_emulator_start, freed once (the contract).
        let mut e = unsafe { Box::from_raw(emu) };
        e.emu.stop();
    }
}

/// An open device.
pub struct ScenicDevice {
    dev: Arc<Device>,
    state: StateDir,
}

/// Opens a device (`emu:NAME` or a map path); NULL on failure.
#[no_mangle]
pub extern "C" fn scenic_device_open(name: *const c_char) -> *mut ScenicDevice {
    let opened = text(name, "name").and_then(|n| {
        let dev = Device::open(n).map_err(|e| e.to_string())?;
        let state = StateDir::of(&dev).map_err(|e| e.to_string())?;
        Ok(ScenicDevice {
            dev: Arc::new(dev),
            state,
        })
    });
    match opened {
        Ok(d) => Box::into_raw(Box::new(d)),
        Err(e) => fail_null(e),
    }
}

/// Closes a device (threads opened on it keep their own reference).
///
/// # Safety
/// The pointer is NULL or one `scenic_device_open` returned and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn scenic_device_close(dev: *mut ScenicDevice) {
    if !dev.is_null() {
        // SAFETY: made by Box::into_raw in scenic_device_open, freed once (the contract).
        drop(unsafe { Box::from_raw(dev) });
    }
}

/// Sets the slot the slow path goes through (docs/device.md §2.3); `slot` < 0: straight to the
/// host. Fenced; a slot that is not an SCU slot is refused and the old value kept.
#[no_mangle]
pub extern "C" fn scenic_device_set_slow_path(dev: *const ScenicDevice, slot: c_int) -> c_int {
    let done = object(dev, "dev").and_then(|d| {
        let slot = match slot {
            s if s < 0 => None,
            s => Some(u8::try_from(s).map_err(|_| format!("slot {s} is not a slot"))?),
        };
        scenic_runtime::steering::set_slow_path(&d.dev, slot).map_err(|e| e.to_string())
    });
    match done {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

/// The paper's `reconfigure_app(slot, path)`: the package directory `path` into `slot`, a hitless
/// swap when a unit runs there, else a load.
#[no_mangle]
pub extern "C" fn scenic_reconfigure_app(
    dev: *const ScenicDevice,
    slot: u8,
    path: *const c_char,
) -> c_int {
    let done = object(dev, "dev").and_then(|d| {
        let dir = text(path, "path")?;
        let handle = SlotHandle::new(Arc::clone(&d.dev), d.state.clone(), slot)
            .map_err(|e| e.to_string())?;
        handle
            .reconfigure(Path::new(dir))
            .map_err(|e| e.to_string())
    });
    match done {
        Ok(_) => 0,
        Err(e) => fail(e),
    }
}

/// A slot handle (the paper's `ScenicThread(slot)`).
pub struct ScenicThread {
    handle: SlotHandle,
}

/// Opens slot `slot` of `dev`; NULL on failure.
#[no_mangle]
pub extern "C" fn scenic_thread_open(dev: *const ScenicDevice, slot: u8) -> *mut ScenicThread {
    let opened = object(dev, "dev").and_then(|d| {
        SlotHandle::new(Arc::clone(&d.dev), d.state.clone(), slot).map_err(|e| e.to_string())
    });
    match opened {
        Ok(handle) => Box::into_raw(Box::new(ScenicThread { handle })),
        Err(e) => fail_null(e),
    }
}

/// Frees a slot handle.
///
/// # Safety
/// The pointer is NULL or one `scenic_thread_open` returned and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn scenic_thread_close(thread: *mut ScenicThread) {
    if !thread.is_null() {
        // SAFETY: made by Box::into_raw in scenic_thread_open, freed once (the contract).
        drop(unsafe { Box::from_raw(thread) });
    }
}

/// Writes `value` to the CSR at word `offset` (refused when readonly, too wide or no CSR).
#[no_mangle]
pub extern "C" fn scenic_set_csr(thread: *const ScenicThread, value: u64, offset: u32) -> c_int {
    let done = object(thread, "thread").and_then(|t| {
        t.handle
            .with_scu(|s| s.csr_set_offset(offset, value))
            .map_err(|e| e.to_string())
    });
    match done {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

/// Reads the CSR at word `offset` into `*value`.
#[no_mangle]
pub extern "C" fn scenic_get_csr(
    thread: *const ScenicThread,
    offset: u32,
    value: *mut u64,
) -> c_int {
    let read = object(thread, "thread").and_then(|t| {
        t.handle
            .with_scu(|s| s.csr_get_offset(offset))
            .map_err(|e| e.to_string())
    });
    match read {
        Ok(v) => store(value, v),
        Err(e) => fail(e),
    }
}

/// The paper's `get_completed(op)` into `*value`: `remote_write`/`remote_read`/`remote_send` are
/// `PKT_SEQ`; any other `op` a slot register of device.md §3.2 by name.
#[no_mangle]
pub extern "C" fn scenic_get_completed(
    thread: *const ScenicThread,
    op: *const c_char,
    value: *mut u64,
) -> c_int {
    let read = object(thread, "thread").and_then(|t| {
        let op = text(op, "op")?;
        t.handle.completed(op).map_err(|e| e.to_string())
    });
    match read {
        Ok(v) => store(value, v),
        Err(e) => fail(e),
    }
}
