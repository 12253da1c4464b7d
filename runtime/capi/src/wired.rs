//! The wired emulator for C: `scenic_emulator_start_wired` runs the emulated NIC's datapath over
//! in-process wires (`scenic_runtime::net::Wire`), and `scenic_emulator_send` /
//! `scenic_emulator_receive` put frames on a network port and take what the NIC sent to the host
//! or out of a port, so C and C++ programs test units on packets without root.
//!
//! Invariant: a frame taken from a wire is never lost to a short buffer: `receive` keeps it (per
//! wire) and reports the length it needs, and the next call with room returns it.

use std::ffi::{c_char, c_int, CString};
use std::path::Path;
use std::time::Duration;

use scenic_runtime::emu::thread::EmuThread;
use scenic_runtime::net::Wire;

use crate::{fail, fail_null, object, text, ScenicEmulator};

/// Starts an emulated device serving `map_path` whose datapath runs over `ports` network ports
/// (1–4) and a host side, each an in-process wire; NULL on failure.
#[no_mangle]
pub extern "C" fn scenic_emulator_start_wired(
    map_path: *const c_char,
    ports: u8,
) -> *mut ScenicEmulator {
    let started = text(map_path, "map_path").and_then(|path| {
        let device = CString::new(path).map_err(|e| e.to_string())?;
        let emu = EmuThread::start_wired(Path::new(path), ports).map_err(|e| e.to_string())?;
        Ok(ScenicEmulator::new(emu, device))
    });
    match started {
        Ok(e) => Box::into_raw(Box::new(e)),
        Err(e) => fail_null(e),
    }
}

/// The wire of `port` (-1: the host side).
fn wire(emu: &ScenicEmulator, port: c_int) -> Result<&Wire, String> {
    let found = match port {
        -1 => emu.emu.host(),
        p => u8::try_from(p).ok().and_then(|p| emu.emu.port(p)),
    };
    found.ok_or_else(|| match port {
        -1 => "this emulator has no host side: start it with scenic_emulator_start_wired".into(),
        p => format!("this emulator has no network port {p}"),
    })
}

/// Puts the `len` bytes at `frame` (an Ethernet frame, no FCS) on network port `port`'s wire:
/// they arrive at the NIC as from the network.
#[no_mangle]
pub extern "C" fn scenic_emulator_send(
    emu: *const ScenicEmulator,
    port: c_int,
    frame: *const u8,
    len: usize,
) -> c_int {
    let sent = object(emu, "emu").and_then(|e| {
        if port < 0 {
            return Err(format!(
                "port {port}: frames are sent on network ports 0 to 3"
            ));
        }
        if frame.is_null() {
            return Err("frame is NULL".into());
        }
        // SAFETY: C passes `len` readable bytes at `frame` for the call (the header says so).
        let bytes = unsafe { std::slice::from_raw_parts(frame, len) };
        wire(e, port)?.send(bytes).map_err(|err| err.to_string())
    });
    match sent {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

/// The next frame the NIC sent to the host (`port` -1) or out of network port `port`, waiting up
/// to `timeout_ns`: copied to `buf` (room for `cap` bytes) with its length in `*len`, or `*len` 0
/// when none came. A frame longer than `cap` fails with its length in `*len` and is kept for the
/// next call.
#[no_mangle]
pub extern "C" fn scenic_emulator_receive(
    emu: *const ScenicEmulator,
    port: c_int,
    timeout_ns: u64,
    buf: *mut u8,
    cap: usize,
    len: *mut usize,
) -> c_int {
    // SAFETY: `len` is NULL (checked) or points to a size_t the caller owns.
    let Some(len) = (unsafe { len.as_mut() }) else {
        return fail("the output pointer is NULL");
    };
    let got = object(emu, "emu").and_then(|e| {
        let w = wire(e, port)?;
        let mut pending = e.pending.lock().unwrap_or_else(|p| p.into_inner());
        let frame = match pending.remove(&port) {
            Some(f) => Some(f),
            None => w
                .recv(Duration::from_nanos(timeout_ns))
                .map_err(|err| err.to_string())?,
        };
        let Some(frame) = frame else {
            return Ok(0);
        };
        if frame.len() > cap || buf.is_null() {
            let n = frame.len();
            pending.insert(port, frame);
            *len = n;
            return Err(format!(
                "a frame of {n} bytes does not fit a buffer of {cap}"
            ));
        }
        // SAFETY: `buf` has room for `cap` ≥ frame.len() bytes (the header's contract).
        unsafe { std::ptr::copy_nonoverlapping(frame.as_ptr(), buf, frame.len()) };
        Ok(frame.len())
    });
    match got {
        Ok(n) => {
            *len = n;
            0
        }
        Err(e) => fail(e),
    }
}
