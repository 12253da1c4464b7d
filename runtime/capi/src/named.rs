//! The API by name for C (docs/cpp.md, "By name"): CSRs, tables, counters, maps and notifications
//! of a slot's unit, named as in its package's manifest, and the wired emulator's frames. Like
//! the rest of the crate it only converts: every check is the runtime's (`Scu`).
//!
//! Conventions as in the crate root; besides, arrays come as a pointer and a count (NULL is
//! allowed with a count of 0), a table key or action argument is text in the STF `add` syntax
//! (`"10.0.0.0/8"`, `"_"`, `"0x0800&&&0xff00"`, `"7000..=7099"`, a number), and map keys and
//! values are 64-bit (a wider one is refused with the runtime's width in the message).

use std::ffi::{c_char, c_int};
use std::time::Duration;

use num_bigint::BigUint;
use scenic_runtime::notify::Notifications;
use scenic_runtime::scu::ScuError;
use scenic_runtime::Scu;

use crate::{fail, object, store, text, ScenicThread};

/// `n` C strings from `p` (NULL allowed when `n` is 0).
fn texts<'a>(p: *const *const c_char, n: usize, what: &str) -> Result<Vec<&'a str>, String> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(format!("{what} is NULL with a count of {n}"));
    }
    // SAFETY: C passes an array of `n` string pointers that lives for the call (the header says so).
    let items = unsafe { std::slice::from_raw_parts(p, n) };
    items
        .iter()
        .enumerate()
        .map(|(i, s)| text(*s, &format!("{what}[{i}]")))
        .collect()
}

/// A table name, an action name and its `nargs` arguments from C.
fn action_call<'a>(
    table: *const c_char,
    action: *const c_char,
    args: *const *const c_char,
    nargs: usize,
) -> Result<(&'a str, &'a str, Vec<&'a str>), String> {
    Ok((
        text(table, "table")?,
        text(action, "action")?,
        texts(args, nargs, "args")?,
    ))
}

/// Runs `f` on the thread's unit; the runtime's error as text.
fn on_unit<R>(
    thread: *const ScenicThread,
    f: impl for<'a> FnOnce(&Scu<'a>) -> Result<R, ScuError>,
) -> Result<R, String> {
    let t = object(thread, "thread")?;
    t.handle.with_scu(f).map_err(|e| e.to_string())
}

fn done(r: Result<(), String>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

fn u64_of(v: &BigUint, what: &str) -> Result<u64, String> {
    u64::try_from(v).map_err(|_| format!("{what} {v:#x} is wider than 64 bits"))
}

/// Reads the CSR or param `name` into `*value`.
#[no_mangle]
pub extern "C" fn scenic_csr_get(
    thread: *const ScenicThread,
    name: *const c_char,
    value: *mut u64,
) -> c_int {
    let read = text(name, "name").and_then(|n| on_unit(thread, |s| s.csr_get(n)));
    match read {
        Ok(v) => store(value, v),
        Err(e) => fail(e),
    }
}

/// Writes `value` to the CSR or param `name` (refused when readonly or too wide).
#[no_mangle]
pub extern "C" fn scenic_csr_set(
    thread: *const ScenicThread,
    name: *const c_char,
    value: u64,
) -> c_int {
    done(text(name, "name").and_then(|n| on_unit(thread, |s| s.csr_set(n, value))))
}

/// Adds an entry to `table`: `nkeys` key patterns in key order, the action and `nargs`
/// arguments; `priority` < 0 for none (a priority table then puts it after the others). Its
/// handle goes to `*handle`.
#[no_mangle]
pub extern "C" fn scenic_table_add(
    thread: *const ScenicThread,
    table: *const c_char,
    keys: *const *const c_char,
    nkeys: usize,
    action: *const c_char,
    args: *const *const c_char,
    nargs: usize,
    priority: i64,
    handle: *mut u32,
) -> c_int {
    let added = (|| {
        let (table, action) = (text(table, "table")?, text(action, "action")?);
        let (keys, args) = (texts(keys, nkeys, "keys")?, texts(args, nargs, "args")?);
        let priority = match priority {
            p if p < 0 => None,
            p => Some(u32::try_from(p).map_err(|_| format!("priority {p} is over 2^32 - 1"))?),
        };
        on_unit(thread, |s| {
            s.table_add_text(table, &keys, action, &args, priority)
        })
    })();
    match added {
        // SAFETY: `handle` is NULL (checked) or points to a u32 the caller owns.
        Ok(h) => match unsafe { handle.as_mut() } {
            Some(out) => {
                *out = h;
                0
            }
            None => fail("the output pointer is NULL"),
        },
        Err(e) => fail(e),
    }
}

/// Replaces the action and arguments of the entry `handle` of `table`.
#[no_mangle]
pub extern "C" fn scenic_table_modify(
    thread: *const ScenicThread,
    table: *const c_char,
    handle: u32,
    action: *const c_char,
    args: *const *const c_char,
    nargs: usize,
) -> c_int {
    done(
        action_call(table, action, args, nargs).and_then(|(table, action, args)| {
            on_unit(thread, |s| {
                s.table_modify_text(table, handle, action, &args)
            })
        }),
    )
}

/// Removes the entry `handle` of `table`.
#[no_mangle]
pub extern "C" fn scenic_table_remove(
    thread: *const ScenicThread,
    table: *const c_char,
    handle: u32,
) -> c_int {
    done(text(table, "table").and_then(|t| on_unit(thread, |s| s.table_remove(t, handle))))
}

/// Removes every run-time entry of `table`.
#[no_mangle]
pub extern "C" fn scenic_table_clear(thread: *const ScenicThread, table: *const c_char) -> c_int {
    done(text(table, "table").and_then(|t| on_unit(thread, |s| s.table_clear(t))))
}

/// Replaces the default action of `table` (refused for a constant table).
#[no_mangle]
pub extern "C" fn scenic_table_set_default(
    thread: *const ScenicThread,
    table: *const c_char,
    action: *const c_char,
    args: *const *const c_char,
    nargs: usize,
) -> c_int {
    done(
        action_call(table, action, args, nargs).and_then(|(table, action, args)| {
            let args = scenic_runtime::scu::table::parse_args(&args).map_err(|e| e.to_string())?;
            on_unit(thread, |s| s.table_set_default(table, action, &args))
        }),
    )
}

/// Cell `index` of counter `name`: packets into `*packets`, bytes into `*bytes`.
#[no_mangle]
pub extern "C" fn scenic_counter_read(
    thread: *const ScenicThread,
    name: *const c_char,
    index: u64,
    packets: *mut u64,
    bytes: *mut u64,
) -> c_int {
    let read = text(name, "name").and_then(|n| on_unit(thread, |s| s.counter_read(n, index)));
    match read {
        Ok((p, b)) => match store(packets, p) {
            0 => store(bytes, b),
            rc => rc,
        },
        Err(e) => fail(e),
    }
}

/// Zeroes cell `index` of counter `name`, or every cell when `index` < 0.
#[no_mangle]
pub extern "C" fn scenic_counter_reset(
    thread: *const ScenicThread,
    name: *const c_char,
    index: i64,
) -> c_int {
    let index = u64::try_from(index).ok();
    done(text(name, "name").and_then(|n| on_unit(thread, |s| s.counter_reset(n, index))))
}

/// Looks `key` up in map `name`: `*found` is 1 and `*value` the value, or `*found` is 0.
#[no_mangle]
pub extern "C" fn scenic_map_get(
    thread: *const ScenicThread,
    name: *const c_char,
    key: u64,
    value: *mut u64,
    found: *mut c_int,
) -> c_int {
    let got = text(name, "name").and_then(|n| {
        let v = on_unit(thread, |s| s.map_get(n, &BigUint::from(key)))?;
        v.map(|v| u64_of(&v, "the value")).transpose()
    });
    let (hit, v) = match got {
        Ok(Some(v)) => (1, v),
        Ok(None) => (0, 0),
        Err(e) => return fail(e),
    };
    // SAFETY: `found` is NULL (checked) or points to an int the caller owns.
    match unsafe { found.as_mut() } {
        Some(out) => *out = hit,
        None => return fail("the output pointer is NULL"),
    }
    store(value, v)
}

/// Inserts or replaces `key` → `value` in map `name` (refused when full or too wide).
#[no_mangle]
pub extern "C" fn scenic_map_set(
    thread: *const ScenicThread,
    name: *const c_char,
    key: u64,
    value: u64,
) -> c_int {
    done(text(name, "name").and_then(|n| {
        on_unit(thread, |s| {
            s.map_insert(n, &BigUint::from(key), &BigUint::from(value))
        })
    }))
}

/// Removes `key` from map `name`; `*removed` is 1 if it was there, else 0.
#[no_mangle]
pub extern "C" fn scenic_map_remove(
    thread: *const ScenicThread,
    name: *const c_char,
    key: u64,
    removed: *mut c_int,
) -> c_int {
    let gone =
        text(name, "name").and_then(|n| on_unit(thread, |s| s.map_remove(n, &BigUint::from(key))));
    match gone {
        // SAFETY: `removed` is NULL (checked) or points to an int the caller owns.
        Ok(g) => match unsafe { removed.as_mut() } {
            Some(out) => {
                *out = c_int::from(g);
                0
            }
            None => fail("the output pointer is NULL"),
        },
        Err(e) => fail(e),
    }
}

/// One notification (docs/device.md §3.7).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ScenicNotification {
    /// Per-slot number; a gap is a loss.
    pub seq: u64,
    /// `NOW_NS` when the unit raised it.
    pub time_ns: u64,
    /// Records lost between the previous one of this call and this one.
    pub lost_before: u64,
    /// The 32-bit value.
    pub value: u32,
    /// 0 host, 1 Arm.
    pub target: u8,
    /// The slot that raised it.
    pub slot: u8,
    /// The bank that raised it.
    pub bank: u8,
    /// Bit 0 `FROM_SHADOW`.
    pub flags: u8,
}

/// Takes up to `max` notifications of the thread's slot into `out`, waiting up to `timeout_ns`
/// for the first; their number goes to `*count` (0 when none came).
#[no_mangle]
pub extern "C" fn scenic_notifications(
    thread: *const ScenicThread,
    timeout_ns: u64,
    out: *mut ScenicNotification,
    max: usize,
    count: *mut usize,
) -> c_int {
    let got = object(thread, "thread").and_then(|t| {
        if out.is_null() && max > 0 {
            return Err("out is NULL with a max of more than 0".to_string());
        }
        let dev = t.handle.device();
        let mut ring = Notifications::new(dev, t.handle.index(), t.handle.state().clone())
            .map_err(|e| e.to_string())?;
        ring.wait(Duration::from_nanos(timeout_ns), max)
            .map_err(|e| e.to_string())
    });
    let events = match got {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    for (i, e) in events.iter().enumerate() {
        let n = ScenicNotification {
            seq: e.record.seq,
            time_ns: e.record.time_ns,
            lost_before: e.lost_before,
            value: e.record.value,
            target: e.record.target,
            slot: e.record.slot,
            bank: e.record.bank,
            flags: e.record.flags,
        };
        // SAFETY: `out` points to `max` elements the caller owns and `wait` returned at most
        // `max` events.
        unsafe { out.add(i).write(n) };
    }
    // SAFETY: `count` is NULL (checked) or points to a size_t the caller owns.
    match unsafe { count.as_mut() } {
        Some(c) => {
            *c = events.len();
            0
        }
        None => fail("the output pointer is NULL"),
    }
}
