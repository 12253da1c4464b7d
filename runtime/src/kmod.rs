//! The kmod's char device `/dev/scenicN`: the ioctl ABI of `kmod/scenic_abi.h` mirrored in Rust,
//! and the grants the runtime needs before it maps the device (docs/kmod.md, device.md §5.7).
//!
//! The structs are `#[repr(C)]` copies of the header's, field for field; `tests/kmod_abi.rs`
//! compiles the header with the system C compiler and compares every size, offset and ioctl
//! number with these, so the two cannot drift apart silently.
//!
//! [`grant_slots`] is what [`crate::region::Region::open`] does for a char device: the kmod
//! inserts a slot block's pages into a mapping only once the slot was granted on the open file
//! (`SCENIC_IOC_GRANT_SLOT`, `CAP_NET_ADMIN`), so the runtime, which maps the whole map as it does
//! the emulator's file, grants every present slot first.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// `SCENIC_IOC_INFO`'s payload: the device's identity.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Info {
    /// `BAR_BYTES`.
    pub bar_bytes: u64,
    /// `VERSION`.
    pub version: u64,
    /// `FEATURES`.
    pub features: u64,
    /// SCU slots.
    pub scu_slots: u32,
    /// CC slots (0 or 2).
    pub cc_slots: u32,
    /// Network ports.
    pub ports: u32,
    /// `N` of `/dev/scenicN`.
    pub minor: u32,
    /// `INSTANCE`, NUL-padded ASCII.
    pub instance: [u8; 8],
}

/// `SCENIC_IOC_WAIT`'s payload.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wait {
    /// The slot.
    pub slot: u32,
    /// `INT_CAUSE` bits to wait for (2 notification, 3 control response).
    pub causes: u32,
    /// How long at most.
    pub timeout_ns: u64,
    /// The causes that held.
    pub seen: u32,
    /// Zero.
    pub pad: u32,
}

/// `SCENIC_IOC_SLOT_CMD`'s payload: a `SLOT_CMD` the kernel issues and waits for.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SlotCmd {
    /// The slot.
    pub slot: u32,
    /// The opcode.
    pub op: u32,
    /// The 40-bit argument.
    pub arg: u64,
    /// `SLOT_RESULT`.
    pub result: u64,
}

/// `SCENIC_IOC_STEER`'s payload: a `STEER_CMD` (or [`STEER_SLOW_PATH`]) under the kernel's lock.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Steer {
    /// The `STEER_CMD` opcode, or [`STEER_SLOW_PATH`].
    pub op: u32,
    /// Zero.
    pub pad: u32,
    /// `STEER_KEY`.
    pub key: u64,
    /// `STEER_VALUE` (or the slow-path slot).
    pub value: u64,
    /// `STEER_RESULT`.
    pub result: u64,
    /// `STEER_RD_KEY`.
    pub rd_key: u64,
    /// `STEER_RD_VALUE`.
    pub rd_value: u64,
}

/// `SCENIC_IOC_MEM_REGISTER` / `SCENIC_IOC_MEM_UNREGISTER`'s payload.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mem {
    /// User address.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// Bus address of the first DMA segment.
    pub dma_addr: u64,
    /// The registration.
    pub id: u32,
    /// DMA segments.
    pub segments: u32,
}

/// `SCENIC_STEER_SLOW_PATH`: the steering ioctl's opcode that writes `SLOW_PATH_SLOT`.
pub const STEER_SLOW_PATH: u32 = 0x80;

const MAGIC: u64 = b'S' as u64;
const WRITE: u64 = 1;
const READ: u64 = 2;

/// Linux's `_IOC(dir, 'S', nr, size)` on x86-64 and AArch64.
const fn ioc(dir: u64, nr: u64, size: usize) -> u64 {
    dir << 30 | (size as u64) << 16 | MAGIC << 8 | nr
}

/// `_IOR('S', 1, struct scenic_info)`.
pub const IOC_INFO: u64 = ioc(READ, 1, size_of::<Info>());
/// `_IOW('S', 2, __u32)`.
pub const IOC_GRANT_SLOT: u64 = ioc(WRITE, 2, size_of::<u32>());
/// `_IOWR('S', 3, struct scenic_wait)`.
pub const IOC_WAIT: u64 = ioc(READ | WRITE, 3, size_of::<Wait>());
/// `_IO('S', 4)`.
pub const IOC_RESET: u64 = ioc(0, 4, 0);
/// `_IOWR('S', 5, struct scenic_slot_cmd)`.
pub const IOC_SLOT_CMD: u64 = ioc(READ | WRITE, 5, size_of::<SlotCmd>());
/// `_IOWR('S', 6, struct scenic_steer)`.
pub const IOC_STEER: u64 = ioc(READ | WRITE, 6, size_of::<Steer>());
/// `_IOWR('S', 7, struct scenic_mem)`.
pub const IOC_MEM_REGISTER: u64 = ioc(READ | WRITE, 7, size_of::<Mem>());
/// `_IOW('S', 8, struct scenic_mem)`.
pub const IOC_MEM_UNREGISTER: u64 = ioc(WRITE, 8, size_of::<Mem>());

/// One ioctl whose payload is `T`.
fn ioctl<T>(file: &File, request: u64, arg: &mut T) -> io::Result<()> {
    // SAFETY: `arg` is a valid, exclusively borrowed `T` for the call, and `request` encodes
    // `size_of::<T>()` (the constants above), so the kernel reads and writes within it.
    let ret = unsafe {
        libc::ioctl(
            file.as_raw_fd(),
            request as libc::Ioctl,
            std::ptr::from_mut(arg),
        )
    };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `SCENIC_IOC_INFO`.
pub fn info(file: &File) -> io::Result<Info> {
    let mut info = Info::default();
    ioctl(file, IOC_INFO, &mut info)?;
    Ok(info)
}

/// Grants every present slot block on `file` (SCU slots, and CC slots 16 and 17 when the device
/// has them), so a mapping of the whole map reaches them. Needs `CAP_NET_ADMIN`.
pub fn grant_slots(file: &File) -> io::Result<Info> {
    let info = info(file)?;
    let cc: &[u32] = if info.cc_slots == 2 { &[16, 17] } else { &[] };
    for k in (0..info.scu_slots).chain(cc.iter().copied()) {
        let mut slot = k;
        ioctl(file, IOC_GRANT_SLOT, &mut slot)?;
    }
    Ok(info)
}
