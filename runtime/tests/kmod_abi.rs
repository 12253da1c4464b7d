//! The kmod's ioctl ABI (`kmod/scenic_abi.h`) against its Rust mirror (`scenic_runtime::kmod`):
//! the header is compiled with the system C compiler (`cc`, as the kmod's build needs one anyway)
//! into a program that prints every struct size, field offset and ioctl number, and each is
//! compared with Rust's `size_of`, `offset_of!` and constants. Also checked against device.md
//! §5.7's numbering: magic 'S', INFO 1 (read), GRANT_SLOT 2 (write), WAIT 3, RESET 4.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::process::Command;

use scenic_runtime::kmod::{self, Info, Mem, SlotCmd, Steer, Wait};

const PROGRAM: &str = r#"
#include <stddef.h>
#include <stdio.h>
#include "scenic_abi.h"
#define S(t) printf("sizeof %s %zu\n", #t, sizeof(struct t))
#define O(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(struct t, f))
#define N(x) printf("ioctl %s %lu\n", #x, (unsigned long)(x))
int main(void)
{
	S(scenic_info); O(scenic_info, bar_bytes); O(scenic_info, version); O(scenic_info, features);
	O(scenic_info, scu_slots); O(scenic_info, cc_slots); O(scenic_info, ports);
	O(scenic_info, minor); O(scenic_info, instance);
	S(scenic_wait); O(scenic_wait, slot); O(scenic_wait, causes); O(scenic_wait, timeout_ns);
	O(scenic_wait, seen);
	S(scenic_slot_cmd); O(scenic_slot_cmd, slot); O(scenic_slot_cmd, op);
	O(scenic_slot_cmd, arg); O(scenic_slot_cmd, result);
	S(scenic_steer); O(scenic_steer, op); O(scenic_steer, key); O(scenic_steer, value);
	O(scenic_steer, result); O(scenic_steer, rd_key); O(scenic_steer, rd_value);
	S(scenic_mem); O(scenic_mem, addr); O(scenic_mem, len); O(scenic_mem, dma_addr);
	O(scenic_mem, id); O(scenic_mem, segments);
	N(SCENIC_IOC_INFO); N(SCENIC_IOC_GRANT_SLOT); N(SCENIC_IOC_WAIT); N(SCENIC_IOC_RESET);
	N(SCENIC_IOC_SLOT_CMD); N(SCENIC_IOC_STEER); N(SCENIC_IOC_MEM_REGISTER);
	N(SCENIC_IOC_MEM_UNREGISTER); N(SCENIC_STEER_SLOW_PATH);
	return 0;
}
"#;

/// Compiles and runs the program: "kind name value" lines as a map "kind name" → value.
fn c_layout() -> HashMap<String, u64> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("abi.c");
    let exe = dir.path().join("abi");
    std::fs::write(&src, PROGRAM).unwrap();
    let kmod = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kmod");
    let cc = Command::new("cc")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(&kmod)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("a C compiler `cc` (the kmod needs one too)");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (key, value) = l.rsplit_once(' ').unwrap();
            (key.to_string(), value.parse().unwrap())
        })
        .collect()
}

#[test]
fn struct_layouts_match_the_header() {
    let c = c_layout();
    let check = |key: &str, rust: usize| {
        assert_eq!(c.get(key).copied(), Some(rust as u64), "{key}");
    };
    check("sizeof scenic_info", size_of::<Info>());
    check(
        "offsetof scenic_info.bar_bytes",
        offset_of!(Info, bar_bytes),
    );
    check("offsetof scenic_info.version", offset_of!(Info, version));
    check("offsetof scenic_info.features", offset_of!(Info, features));
    check(
        "offsetof scenic_info.scu_slots",
        offset_of!(Info, scu_slots),
    );
    check("offsetof scenic_info.cc_slots", offset_of!(Info, cc_slots));
    check("offsetof scenic_info.ports", offset_of!(Info, ports));
    check("offsetof scenic_info.minor", offset_of!(Info, minor));
    check("offsetof scenic_info.instance", offset_of!(Info, instance));
    check("sizeof scenic_wait", size_of::<Wait>());
    check("offsetof scenic_wait.slot", offset_of!(Wait, slot));
    check("offsetof scenic_wait.causes", offset_of!(Wait, causes));
    check(
        "offsetof scenic_wait.timeout_ns",
        offset_of!(Wait, timeout_ns),
    );
    check("offsetof scenic_wait.seen", offset_of!(Wait, seen));
    check("sizeof scenic_slot_cmd", size_of::<SlotCmd>());
    check("offsetof scenic_slot_cmd.slot", offset_of!(SlotCmd, slot));
    check("offsetof scenic_slot_cmd.op", offset_of!(SlotCmd, op));
    check("offsetof scenic_slot_cmd.arg", offset_of!(SlotCmd, arg));
    check(
        "offsetof scenic_slot_cmd.result",
        offset_of!(SlotCmd, result),
    );
    check("sizeof scenic_steer", size_of::<Steer>());
    check("offsetof scenic_steer.op", offset_of!(Steer, op));
    check("offsetof scenic_steer.key", offset_of!(Steer, key));
    check("offsetof scenic_steer.value", offset_of!(Steer, value));
    check("offsetof scenic_steer.result", offset_of!(Steer, result));
    check("offsetof scenic_steer.rd_key", offset_of!(Steer, rd_key));
    check(
        "offsetof scenic_steer.rd_value",
        offset_of!(Steer, rd_value),
    );
    check("sizeof scenic_mem", size_of::<Mem>());
    check("offsetof scenic_mem.addr", offset_of!(Mem, addr));
    check("offsetof scenic_mem.len", offset_of!(Mem, len));
    check("offsetof scenic_mem.dma_addr", offset_of!(Mem, dma_addr));
    check("offsetof scenic_mem.id", offset_of!(Mem, id));
    check("offsetof scenic_mem.segments", offset_of!(Mem, segments));
}

#[test]
fn ioctl_numbers_match_the_header() {
    let c = c_layout();
    for (name, rust) in [
        ("SCENIC_IOC_INFO", kmod::IOC_INFO),
        ("SCENIC_IOC_GRANT_SLOT", kmod::IOC_GRANT_SLOT),
        ("SCENIC_IOC_WAIT", kmod::IOC_WAIT),
        ("SCENIC_IOC_RESET", kmod::IOC_RESET),
        ("SCENIC_IOC_SLOT_CMD", kmod::IOC_SLOT_CMD),
        ("SCENIC_IOC_STEER", kmod::IOC_STEER),
        ("SCENIC_IOC_MEM_REGISTER", kmod::IOC_MEM_REGISTER),
        ("SCENIC_IOC_MEM_UNREGISTER", kmod::IOC_MEM_UNREGISTER),
        ("SCENIC_STEER_SLOW_PATH", u64::from(kmod::STEER_SLOW_PATH)),
    ] {
        assert_eq!(
            c.get(&format!("ioctl {name}")).copied(),
            Some(rust),
            "{name}"
        );
    }
}

/// device.md §5.7: magic 'S'; INFO `_IOR 1`, GRANT_SLOT `_IOW 2`, WAIT `_IOWR 3`, RESET `_IO 4`
/// (Linux's encoding: direction in bits 30..32, 1 write, 2 read; size 16..30; type 8..16).
#[test]
fn numbers_follow_device_md() {
    let fields = |n: u64| (n >> 30, (n >> 16) & 0x3FFF, (n >> 8) & 0xFF, n & 0xFF);
    assert_eq!(
        fields(kmod::IOC_INFO),
        (2, size_of::<Info>() as u64, 0x53, 1)
    );
    assert_eq!(fields(kmod::IOC_GRANT_SLOT), (1, 4, 0x53, 2));
    assert_eq!(
        fields(kmod::IOC_WAIT),
        (3, size_of::<Wait>() as u64, 0x53, 3)
    );
    assert_eq!(fields(kmod::IOC_RESET), (0, 0, 0x53, 4));
}
