//! The device interface of `docs/device.md` (v1.0) as typed constants: one source of truth.
//!
//! Every register offset, stride, field layout, command opcode and status code of the document is
//! here, and nowhere else in the crate. Offsets are byte offsets into the map (global registers) or
//! into a block (`+offset` tables: slot blocks, port blocks, identity blocks). Each register table of
//! the document is mirrored by a `&[Reg]` slice ([`global::GLOBAL`], [`slot::SLOT`], ...) that the
//! test `tests/abi_doc.rs` compares, name by name and offset by offset, with the markdown tables of
//! `docs/device.md`, so the document and the code cannot drift apart. The kmod's C header will be
//! generated from (or tested against) the same slices.
//!
//! Invariants: every register offset is a multiple of 8; every block is 4 KiB aligned; nothing here
//! allocates or panics.

pub mod c_names;
pub mod codes;
pub mod global;
pub mod slot;
pub mod sv;

/// Who may write a register and how (`docs/device.md` §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read-only for the host; the device owns the value.
    Ro,
    /// Read-write; the device reads it and applies it within `POLL_NS`.
    Rw,
    /// A command register: a non-zero command word, taken (reset to 0) by the device.
    Cmd,
    /// A command-like register whose written bits are acted on (`INT_ACK`).
    CmdLike,
    /// A producer index written by the host.
    ProdHost,
    /// A producer index written by the device.
    ProdDevice,
    /// A consumer index written by the host.
    ConsHost,
    /// A consumer index written by the device.
    ConsDevice,
}

impl Access {
    /// The access column's text in `docs/device.md` (`RO`, `PROD (host)`, ...).
    pub fn doc_name(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::Cmd => "CMD",
            Access::CmdLike => "CMD-like",
            Access::ProdHost => "PROD (host)",
            Access::ProdDevice => "PROD (device)",
            Access::ConsHost => "CONS (host)",
            Access::ConsDevice => "CONS (device)",
        }
    }
}

/// One register (or multi-word field) of a table of `docs/device.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reg {
    /// The name, as the document spells it.
    pub name: &'static str,
    /// Byte offset: from the map's start, or from the block's base for `+offset` tables.
    pub offset: u64,
    /// Access kind; `None` where the document's table has no access column (all `RO`).
    pub access: Option<Access>,
}

/// Declares register constants and the slice listing them, in the document's order.
macro_rules! regs {
    ($(#[$tm:meta])* $table:ident { $( $(#[$m:meta])* $name:ident = $off:expr, $acc:expr; )* }) => {
        $( $(#[$m])* pub const $name: u64 = $off; )*
        $(#[$tm])*
        pub const $table: &[$crate::abi::Reg] = &[
            $( $crate::abi::Reg { name: stringify!($name), offset: $off, access: $acc }, )*
        ];
    };
}
pub(crate) use regs;

/// Size of the whole map (`BAR_BYTES`, §2.1): 32 MiB.
pub const MAP_BYTES: u64 = 0x200_0000;
/// Offset of slot block 0 (§2.1).
pub const SLOT_BLOCK_BASE: u64 = 0x10_0000;
/// Distance between slot blocks: 256 KiB (§3.1).
pub const SLOT_BLOCK_STRIDE: u64 = 0x4_0000;
/// Slot blocks in the map: SCU slots 0–15 and CC slots A (16) and B (17).
pub const SLOT_BLOCKS: u8 = 18;
/// Most SCU slots a device has (§2.2 `SLOTS`).
pub const MAX_SCU_SLOTS: u8 = 16;
/// Block index of CC slot A.
pub const CC_SLOT_A: u8 = 16;
/// Block index of CC slot B.
pub const CC_SLOT_B: u8 = 17;
/// Start of ring memory (§2.1, the reset value of `RING_MEM_OFFSET`).
pub const RING_MEM_START: u64 = 0x100_0000;
/// Size of ring memory (§2.1, the reset value of `RING_MEM_BYTES`).
pub const RING_MEM_LEN: u64 = 0x100_0000;
/// Base of network port block `p` is `PORT_BLOCK_BASE + p × PORT_BLOCK_STRIDE` (§2.4).
pub const PORT_BLOCK_BASE: u64 = 0x2000;
/// Stride of network port blocks (§2.4).
pub const PORT_BLOCK_STRIDE: u64 = 0x100;
/// Most network ports (§2.2 `SLOTS[32..40)`).
pub const MAX_PORTS: u8 = 4;

/// Byte offset of slot block `k` (no range check: see [`slot_block`]).
pub const fn slot_block_unchecked(k: u8) -> u64 {
    SLOT_BLOCK_BASE + k as u64 * SLOT_BLOCK_STRIDE
}

/// Byte offset of slot block `k`, or `None` when `k ≥ 18`.
pub const fn slot_block(k: u8) -> Option<u64> {
    if k < SLOT_BLOCKS {
        Some(slot_block_unchecked(k))
    } else {
        None
    }
}

/// The interface version this crate implements (§2.5): major 1, minor 0.
pub const VERSION_MAJOR: u16 = 1;
/// Minor version this crate implements.
pub const VERSION_MINOR: u16 = 0;
/// `VERSION` register value of this crate's interface: `major << 16 | minor`.
pub const VERSION_WORD: u64 = (VERSION_MAJOR as u64) << 16 | VERSION_MINOR as u64;
/// `MAGIC` register value: the bytes `"SCENIC\0\0"` read as a little-endian word.
pub const MAGIC_WORD: u64 = 0x0000_4349_4E45_4353;
/// `HEARTBEAT` unchanged this long means the device went away (§1.6).
pub const HEARTBEAT_TIMEOUT_MS: u64 = 100;

/// The command word of §1.2: opcode `[0..8)`, argument `[8..48)`, `seq` `[48..64)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandWord {
    /// The opcode.
    pub opcode: u8,
    /// The argument, at most 40 bits.
    pub arg: u64,
    /// The host's sequence number (non-zero for a valid command).
    pub seq: u16,
}

/// Largest command argument (40 bits).
pub const CMD_ARG_MAX: u64 = (1 << 40) - 1;

impl CommandWord {
    /// Packs the word; `None` when the argument does not fit 40 bits.
    pub fn encode(self) -> Option<u64> {
        (self.arg <= CMD_ARG_MAX)
            .then_some(self.opcode as u64 | self.arg << 8 | (self.seq as u64) << 48)
    }
    /// Unpacks a command word.
    pub fn decode(word: u64) -> CommandWord {
        CommandWord {
            opcode: (word & 0xFF) as u8,
            arg: (word >> 8) & CMD_ARG_MAX,
            seq: (word >> 48) as u16,
        }
    }
}

/// The result word of §1.2: status `[0..16)`, detail `[16..48)`, `seq` `[48..64)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultWord {
    /// A §6 code (`OK` = 0).
    pub status: u16,
    /// Per command (the bank acted on, an entry index, ...).
    pub detail: u32,
    /// The `seq` of the command answered.
    pub seq: u16,
}

impl ResultWord {
    /// Packs the word.
    pub fn encode(self) -> u64 {
        self.status as u64 | (self.detail as u64) << 16 | (self.seq as u64) << 48
    }
    /// Unpacks a result word.
    pub fn decode(word: u64) -> ResultWord {
        ResultWord {
            status: (word & 0xFFFF) as u16,
            detail: ((word >> 16) & 0xFFFF_FFFF) as u32,
            seq: (word >> 48) as u16,
        }
    }
}

/// The `ERROR`/`SLOT_ERROR` layout: code `[0..16)`, offset `[16..48)`, count `[48..64)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorWord {
    /// The §6 code of the last refused access.
    pub code: u16,
    /// Byte offset of the access (map offset for `ERROR`, block offset for `SLOT_ERROR`).
    pub offset: u32,
    /// Errors so far (wraps).
    pub count: u16,
}

impl ErrorWord {
    /// Packs the word.
    pub fn encode(self) -> u64 {
        self.code as u64 | (self.offset as u64) << 16 | (self.count as u64) << 48
    }
    /// Unpacks the word.
    pub fn decode(word: u64) -> ErrorWord {
        ErrorWord {
            code: (word & 0xFFFF) as u16,
            offset: ((word >> 16) & 0xFFFF_FFFF) as u32,
            count: (word >> 48) as u16,
        }
    }
}
