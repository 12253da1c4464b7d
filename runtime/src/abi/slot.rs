//! A slot block (`docs/device.md` §3): its registers, identity blocks, staging registers, control
//! and notification queue registers and entry layouts, bank states and `SLOT_CMD` opcodes.
//!
//! Every offset here is from the slot block's base ([`super::slot_block`]). Both slot kinds (SCU and
//! CC) share the layout.

use super::{regs, Access};

const RO: Option<Access> = Some(Access::Ro);
const RW: Option<Access> = Some(Access::Rw);

regs! {
    /// §3.2 slot registers.
    SLOT {
        /// `[0..8)` kind ([`SlotKind`]), `[8..16)` slot index.
        SLOT_INFO = 0x000, RO;
        /// Bank states and flags ([`SlotStateWord`]).
        SLOT_STATE = 0x008, RO;
        /// Slot command ([`SlotOp`]).
        SLOT_CMD = 0x010, Some(Access::Cmd);
        /// Result of `SLOT_CMD`; detail = the bank acted on.
        SLOT_RESULT = 0x018, RO;
        /// Last refused access to this block ([`super::ErrorWord`]).
        SLOT_ERROR = 0x020, RO;
        /// `PKT_SEQ` of the first input the newly active bank took at the last switch.
        SWITCH_SEQ = 0x028, RO;
        /// Switches done.
        SWITCH_COUNT = 0x030, RO;
        /// Packets per round-robin turn.
        ARB_WEIGHT = 0x038, RW;
        /// Inputs that entered the slot.
        PKT_SEQ = 0x040, RO;
        /// Their bytes.
        RX_BYTES = 0x048, RO;
        /// Packets sent to a port.
        OUT_NET_PKTS = 0x050, RO;
        /// Their bytes.
        OUT_NET_BYTES = 0x058, RO;
        /// Packets sent to the host.
        OUT_HOST_PKTS = 0x060, RO;
        /// Their bytes.
        OUT_HOST_BYTES = 0x068, RO;
        /// Packets the program dropped.
        DROP_PROGRAM = 0x070, RO;
        /// Packets dropped for parser errors.
        DROP_PARSER = 0x078, RO;
        /// Inputs steered here while no bank was active.
        DROP_NO_UNIT = 0x080, RO;
        /// Inputs dropped because the input FIFO was full.
        DROP_FULL = 0x088, RO;
        /// Inputs copied to the warming bank.
        MIRRORED = 0x090, RO;
    }
}

/// Identity block of bank `b` (0 or 1) starts at `IDENTITY_BASE + b × IDENTITY_STRIDE`.
pub const IDENTITY_BASE: u64 = 0x200;
/// Distance between the two banks' identity blocks.
pub const IDENTITY_STRIDE: u64 = 0x80;

/// Offset (in the slot block) of bank `b`'s identity block.
pub const fn identity_block(bank: Bank) -> u64 {
    IDENTITY_BASE + bank as u64 * IDENTITY_STRIDE
}

regs! {
    /// §3.2 per-bank identity block (offsets from [`identity_block`]); all `RO`.
    IDENTITY {
        /// The manifest's `program.source_sha256` (4 words).
        SOURCE_SHA256 = 0x00, None;
        /// First 8 bytes of SHA-256 of the unit's name.
        NAME_HASH = 0x20, None;
        /// Manifest format, control format, `D`.
        FORMAT = 0x28, None;
        /// Compiler version.
        COMPILER = 0x30, None;
        /// Unit index and attach kind.
        UNIT = 0x38, None;
        /// CSR words of the unit.
        CSR_WORDS = 0x40, None;
        /// 0, or the code of the last failed load into this bank.
        LOAD_STATUS = 0x48, None;
        /// How long the last load took, in ns.
        LOAD_NS = 0x50, None;
        /// CC flow slots.
        FLOWS = 0x58, None;
    }
}

regs! {
    /// §3.3 staging registers.
    STAGE {
        /// Image kind: 1 model container, 2 partial bitstream.
        STAGE_KIND = 0x100, RW;
        /// Total image bytes.
        STAGE_LEN = 0x108, RW;
        /// Image offset of the window's byte 0 for the next `STAGE_WRITE`.
        STAGE_OFFSET = 0x110, RW;
        /// Bytes of the window to append (1–65536).
        STAGE_CHUNK = 0x118, RW;
        /// Host bus address of the image (DMA).
        STAGE_DMA_ADDR = 0x120, RW;
        /// Expected `SOURCE_SHA256` (4 words).
        STAGE_SHA256 = 0x128, RW;
        /// Expected `NAME_HASH`.
        STAGE_NAME_HASH = 0x148, RW;
        /// Expected `FORMAT`.
        STAGE_FORMAT = 0x150, RW;
        /// Expected `COMPILER`.
        STAGE_COMPILER = 0x158, RW;
        /// Which unit of the package.
        STAGE_UNIT = 0x160, RW;
        /// CRC-32 of the image.
        STAGE_CRC32 = 0x168, RW;
        /// Image bytes received so far.
        STAGE_FILLED = 0x170, RO;
        /// Largest image accepted.
        STAGE_MAX = 0x178, RO;
    }
}

/// The staging window (§3.3): 64 KiB at block + 0x30000.
pub const STAGE_WINDOW: u64 = 0x3_0000;
/// Largest chunk of one `STAGE_WRITE`.
pub const STAGE_CHUNK_MAX: u64 = 0x1_0000;
/// `ACTIVATE` argument bit 0, `CARRY` (`F_STATE_CARRY`): copy the old unit's state at the switch.
pub const ACTIVATE_CARRY: u64 = 1;
/// The CSR window (§3.5): CSR word `N` at block + 0x20000 + 8N.
pub const CSR_WINDOW: u64 = 0x2_0000;
/// Words in the CSR window.
pub const CSR_WINDOW_WORDS: u64 = 8192;
/// CC per-flow outputs (§4.4) at block + 0x10000 + 8 × flow.
pub const CC_OUTPUTS: u64 = 0x1_0000;

regs! {
    /// §3.6 control queue registers.
    CONTROL_QUEUE {
        /// Entries, entry bytes, max data bits.
        CQ_INFO = 0x300, RO;
        /// Requests written (host); the doorbell.
        CQ_REQ_PROD = 0x308, Some(Access::ProdHost);
        /// Requests taken (device).
        CQ_REQ_CONS = 0x310, Some(Access::ConsDevice);
        /// Responses written (device).
        CQ_RSP_PROD = 0x318, Some(Access::ProdDevice);
        /// Responses read (host).
        CQ_RSP_CONS = 0x320, Some(Access::ConsHost);
        /// Requests answered with a device status.
        CQ_MALFORMED = 0x328, RO;
    }
}

/// Control request ring entries start here.
pub const CQ_REQ_RING: u64 = 0x4000;
/// Control response ring entries start here.
pub const CQ_RSP_RING: u64 = 0x8000;
/// Entries of each control ring.
pub const CQ_ENTRIES: u32 = 64;
/// Bytes per control entry.
pub const CQ_ENTRY_BYTES: u64 = 256;
/// Most data bits of a control record (`(256 − 16) × 8`).
pub const CQ_MAX_DATA_BITS: u64 = 1920;
/// `CQ_INFO` value.
pub const CQ_INFO_WORD: u64 = CQ_ENTRIES as u64 | CQ_ENTRY_BYTES << 16 | CQ_MAX_DATA_BITS << 32;

regs! {
    /// §3.7 notification queue registers.
    NOTIFY_QUEUE {
        /// Entries, entry bytes.
        NQ_INFO = 0x380, RO;
        /// Records written (device).
        NQ_PROD = 0x388, Some(Access::ProdDevice);
        /// Records read (host).
        NQ_CONS = 0x390, Some(Access::ConsHost);
        /// Records dropped because the ring was full.
        NQ_OVERFLOW = 0x398, RO;
    }
}

/// Notification ring entries start here.
pub const NQ_RING: u64 = 0xC000;
/// Entries of the notification ring.
pub const NQ_ENTRIES: u32 = 512;
/// Bytes per notification record.
pub const NQ_ENTRY_BYTES: u64 = 32;
/// `NQ_INFO` value.
pub const NQ_INFO_WORD: u64 = NQ_ENTRIES as u64 | NQ_ENTRY_BYTES << 16;

/// `SLOT_INFO.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SlotKind {
    /// No slot here.
    Absent = 0,
    /// An SCU slot.
    Scu = 1,
    /// A CC slot.
    Cc = 2,
}

/// A bank of a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Bank {
    /// Bank 0.
    B0 = 0,
    /// Bank 1.
    B1 = 1,
}

impl Bank {
    /// The other bank.
    pub const fn other(self) -> Bank {
        match self {
            Bank::B0 => Bank::B1,
            Bank::B1 => Bank::B0,
        }
    }
    /// Bank from its index (bit 16 of `SLOT_STATE`, bit 0 otherwise).
    pub const fn from_bit(bit: bool) -> Bank {
        if bit {
            Bank::B1
        } else {
            Bank::B0
        }
    }
    /// 0 or 1.
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Bank states (§3.4, the `SLOT_STATE` bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BankState {
    /// Holds nothing.
    Empty = 0,
    /// Being loaded.
    Loading = 1,
    /// Loaded, not acting.
    Shadow = 2,
    /// Processes the slot's inputs.
    Active = 3,
    /// No longer takes inputs; finishes those it holds.
    Draining = 4,
}

impl BankState {
    /// Every state, by code.
    pub const ALL: [BankState; 5] = [
        BankState::Empty,
        BankState::Loading,
        BankState::Shadow,
        BankState::Active,
        BankState::Draining,
    ];
    /// The state of a code, or `None` for an unknown code.
    pub fn from_code(code: u8) -> Option<BankState> {
        BankState::ALL.get(code as usize).copied()
    }
    /// The document's name (`EMPTY`, ...).
    pub const fn doc_name(self) -> &'static str {
        match self {
            BankState::Empty => "EMPTY",
            BankState::Loading => "LOADING",
            BankState::Shadow => "SHADOW",
            BankState::Active => "ACTIVE",
            BankState::Draining => "DRAINING",
        }
    }
}

/// `SLOT_STATE` bit 16: the active bank.
pub const STATE_ACTIVE_BANK: u64 = 1 << 16;
/// `SLOT_STATE` bit 17: a bank is active.
pub const STATE_HAS_ACTIVE: u64 = 1 << 17;
/// `SLOT_STATE` bit 18: the non-active bank sees live inputs.
pub const STATE_MIRROR: u64 = 1 << 18;
/// `SLOT_STATE` bit 19: a draining bank has nothing in flight.
pub const STATE_QUIESCED: u64 = 1 << 19;

/// `SLOT_CMD` opcodes (§3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum SlotOp {
    /// Load the staged image into the other bank.
    Load = 0x01,
    /// Make the other (`SHADOW`) bank active at the next input boundary.
    Activate = 0x02,
    /// The active bank drains; the slot has no active bank.
    Deactivate = 0x03,
    /// Free the other bank (argument bit 0: 1 the `DRAINING` one, 0 the `SHADOW` one).
    Free = 0x04,
    /// Start (argument bit 0 = 1) or stop the warm-up copy.
    Mirror = 0x05,
    /// Clear staging.
    StageReset = 0x06,
    /// Append the staging window's chunk.
    StageWrite = 0x07,
    /// Zero a queue's indices (argument bit 0 control, bit 1 notification).
    QueueReset = 0x08,
}

impl SlotOp {
    /// Every opcode.
    pub const ALL: [SlotOp; 8] = [
        SlotOp::Load,
        SlotOp::Activate,
        SlotOp::Deactivate,
        SlotOp::Free,
        SlotOp::Mirror,
        SlotOp::StageReset,
        SlotOp::StageWrite,
        SlotOp::QueueReset,
    ];
    /// The opcode of a byte, or `None`.
    pub fn from_code(code: u8) -> Option<SlotOp> {
        SlotOp::ALL.into_iter().find(|op| *op as u8 == code)
    }
    /// The document's name (`LOAD`, ...).
    pub const fn doc_name(self) -> &'static str {
        match self {
            SlotOp::Load => "LOAD",
            SlotOp::Activate => "ACTIVATE",
            SlotOp::Deactivate => "DEACTIVATE",
            SlotOp::Free => "FREE",
            SlotOp::Mirror => "MIRROR",
            SlotOp::StageReset => "STAGE_RESET",
            SlotOp::StageWrite => "STAGE_WRITE",
            SlotOp::QueueReset => "QUEUE_RESET",
        }
    }
}

/// The decoded `SLOT_STATE` register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotStateWord {
    /// Bank 0 and bank 1 states (an unknown code decodes as `None`).
    pub banks: [Option<BankState>; 2],
    /// The active bank, when one is.
    pub active: Option<Bank>,
    /// `MIRROR`.
    pub mirror: bool,
    /// `QUIESCED`.
    pub quiesced: bool,
}

impl SlotStateWord {
    /// Decodes the register.
    pub fn decode(word: u64) -> SlotStateWord {
        let has_active = word & STATE_HAS_ACTIVE != 0;
        SlotStateWord {
            banks: [
                BankState::from_code(word as u8),
                BankState::from_code((word >> 8) as u8),
            ],
            active: has_active.then_some(Bank::from_bit(word & STATE_ACTIVE_BANK != 0)),
            mirror: word & STATE_MIRROR != 0,
            quiesced: word & STATE_QUIESCED != 0,
        }
    }
    /// Encodes the register (an unknown state encodes as `EMPTY`).
    pub fn encode(self) -> u64 {
        let code = |b: Option<BankState>| b.unwrap_or(BankState::Empty) as u64;
        let mut word = code(self.banks[0]) | code(self.banks[1]) << 8;
        if let Some(bank) = self.active {
            word |= STATE_HAS_ACTIVE
                | if bank == Bank::B1 {
                    STATE_ACTIVE_BANK
                } else {
                    0
                };
        }
        if self.mirror {
            word |= STATE_MIRROR;
        }
        if self.quiesced {
            word |= STATE_QUIESCED;
        }
        word
    }
}
