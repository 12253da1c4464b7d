//! The global area of the map (`docs/device.md` §2, §4.1, §4.3, §5): identity, status, reset,
//! fence, steering, network ports, host rings, interrupts, CC selection and the CC event ring.
//!
//! Offsets are from the start of the map, except [`PORT`], whose offsets are from port block `p`
//! ([`port_block`]). Field layouts of the identity registers are the `*_SHIFT`/`*_MASK` constants
//! and the small decoders below.

use super::{regs, Access, PORT_BLOCK_BASE, PORT_BLOCK_STRIDE};

const RO: Option<Access> = Some(Access::Ro);
const RW: Option<Access> = Some(Access::Rw);
const CMD: Option<Access> = Some(Access::Cmd);

regs! {
    /// §2.2 identity, status and control registers.
    GLOBAL {
        /// `"SCENIC\0\0"`; anything else is not a SCENIC device.
        MAGIC = 0x000, RO;
        /// Interface version: `[16..32)` major, `[0..16)` minor.
        VERSION = 0x008, RO;
        /// Slot counts: `[0..8)` SCU slots, `[8..16)` CC slots, `[16..32)` CC flows, `[32..40)` ports.
        SLOTS = 0x010, RO;
        /// Datapath clock in Hz.
        CLOCK_HZ = 0x018, RO;
        /// Line rate in bit/s.
        LINE_RATE_BPS = 0x020, RO;
        /// Feature bits ([`Feature`]).
        FEATURES = 0x028, RO;
        /// Bit 0 `READY`, bit 1 `RESETTING`, bit 2 `FATAL`, `[16..32)` fatal code.
        STATUS = 0x030, RO;
        /// Last refused global access ([`super::ErrorWord`]).
        ERROR = 0x038, RO;
        /// Any value, for tests.
        SCRATCH = 0x040, RW;
        /// Global reset command.
        RESET = 0x048, CMD;
        /// Host side of the fence pair.
        HOST_FENCE = 0x050, RW;
        /// Device side of the fence pair: the last `HOST_FENCE` value applied.
        DEV_FENCE = 0x058, RO;
        /// The device's poll period in ns (0 on the card).
        POLL_NS = 0x060, RO;
        /// Device time in ns.
        NOW_NS = 0x068, RO;
        /// Size of the map.
        BAR_BYTES = 0x070, RO;
        /// Increases at least every millisecond while the device runs.
        HEARTBEAT = 0x078, RO;
        /// Result of `RESET`.
        RESET_RESULT = 0x080, RO;
        /// Up to 8 ASCII bytes naming the instance, NUL-padded.
        INSTANCE = 0x088, RO;
    }
}

regs! {
    /// §2.3 steering registers.
    STEER {
        /// `[0..32)` RoCE entries, `[32..64)` TCP entries.
        STEER_CAPS = 0x1000, RO;
        /// `[0..8)` the slow-path slot, `0xFF` none.
        SLOW_PATH_SLOT = 0x1008, RW;
        /// RoCE: `[0..24)` QPN; TCP: `[0..32)` flow id.
        STEER_KEY = 0x1010, RW;
        /// `[0..32)` entry index, `[32..40)` slot, bit 40 valid.
        STEER_VALUE = 0x1018, RW;
        /// Steering command.
        STEER_CMD = 0x1020, CMD;
        /// Result of `STEER_CMD`.
        STEER_RESULT = 0x1028, RO;
        /// READ/LOOKUP: the entry's key.
        STEER_RD_KEY = 0x1030, RO;
        /// READ/LOOKUP: the entry's value.
        STEER_RD_VALUE = 0x1038, RO;
        /// `[0..32)` RoCE misses, `[32..64)` TCP misses.
        STEER_MISSES = 0x1040, RO;
    }
}

regs! {
    /// §2.4 network port block registers (offsets from [`port_block`]); all `RO`.
    PORT {
        /// Frames received.
        RX_PKTS = 0x00, None;
        /// Their bytes.
        RX_BYTES = 0x08, None;
        /// Frames dropped before steering.
        RX_DROPS = 0x10, None;
        /// Frames sent.
        TX_PKTS = 0x18, None;
        /// Their bytes.
        TX_BYTES = 0x20, None;
        /// Frames dropped on the way out.
        TX_DROPS = 0x28, None;
        /// Frames classified slow path.
        RX_SLOW_PATH = 0x30, None;
        /// Frames that hit a steering entry.
        RX_STEERED = 0x38, None;
        /// `[0..48)` the port's MAC address.
        MAC_ADDR = 0x40, None;
        /// Bit 0 up; `[32..64)` speed in Mbit/s.
        LINK = 0x48, None;
    }
}

/// Offset of network port block `p` (`p < 4`), or `None`.
pub const fn port_block(p: u8) -> Option<u64> {
    if p < super::MAX_PORTS {
        Some(PORT_BLOCK_BASE + p as u64 * PORT_BLOCK_STRIDE)
    } else {
        None
    }
}

regs! {
    /// §5.1 host ring registers.
    RING {
        /// Bit 0 RX enable, bit 1 TX enable, bit 8 location.
        RING_CTRL = 0x3000, RW;
        /// Where ring memory starts in the map.
        RING_MEM_OFFSET = 0x3008, RO;
        /// Size of ring memory.
        RING_MEM_BYTES = 0x3010, RO;
        /// Bytes per buffer, tag included.
        BUF_BYTES = 0x3018, RO;
        /// Largest L3 MTU the device carries.
        MTU_MAX = 0x3020, RO;
        /// The host's MTU.
        MTU = 0x3028, RW;
        /// RX ring base.
        RX_BASE = 0x3030, RW;
        /// RX ring entries.
        RX_SIZE = 0x3038, RW;
        /// Buffers filled (device).
        RX_PROD = 0x3040, Some(Access::ProdDevice);
        /// Buffers given back (host).
        RX_CONS = 0x3048, Some(Access::ConsHost);
        /// TX ring base.
        TX_BASE = 0x3050, RW;
        /// TX ring entries.
        TX_SIZE = 0x3058, RW;
        /// Frames queued (host); the doorbell.
        TX_PROD = 0x3060, Some(Access::ProdHost);
        /// Frames sent (device).
        TX_CONS = 0x3068, Some(Access::ConsDevice);
        /// Frames put in the RX ring.
        HOST_RX_PKTS = 0x3070, RO;
        /// Their bytes.
        HOST_RX_BYTES = 0x3078, RO;
        /// Frames for the host dropped (RX ring full or disabled).
        HOST_RX_DROPS = 0x3080, RO;
        /// Frames taken from the TX ring.
        HOST_TX_PKTS = 0x3088, RO;
        /// Their bytes.
        HOST_TX_BYTES = 0x3090, RO;
        /// TX frames refused.
        HOST_TX_DROPS = 0x3098, RO;
    }
}

regs! {
    /// §5.5 interrupt and moderation registers.
    INTERRUPT {
        /// Interrupt causes.
        INT_CAUSE = 0x30A0, RO;
        /// 1 = the cause raises its interrupt.
        INT_MASK = 0x30A8, RW;
        /// Bits written are cleared in `INT_CAUSE`.
        INT_ACK = 0x30B0, Some(Access::CmdLike);
        /// RX interrupt timeout in ns.
        RX_COAL_NS = 0x30B8, RW;
        /// RX coalescing count.
        RX_COAL_COUNT = 0x30C0, RW;
        /// TX coalescing count.
        TX_COAL_COUNT = 0x30C8, RW;
        /// MSI-X vectors.
        INT_VECTORS = 0x30D0, RO;
    }
}

regs! {
    /// §4.1 CC selection registers.
    CC {
        /// `[0..8)` the active CC slot (0 A, 1 B); bit 8 `VALID`.
        CC_ACTIVE = 0x4000, RO;
        /// CC command: `SWITCH`, `STOP`.
        CC_CMD = 0x4008, CMD;
        /// Result of `CC_CMD`.
        CC_RESULT = 0x4010, RO;
        /// Sequence number of the first event handled by the new active slot.
        CC_SWITCH_SEQ = 0x4018, RO;
        /// Events processed.
        CC_EVENT_SEQ = 0x4020, RO;
        /// Output kind of the active slot.
        CC_OUTPUT_KIND = 0x4028, RO;
    }
}

regs! {
    /// §4.3 CC event ring registers.
    EVENT {
        /// `[0..16)` entries, `[16..32)` entry bytes.
        EV_INFO = 0x4030, RO;
        /// Events written (host).
        EV_PROD = 0x4038, Some(Access::ProdHost);
        /// Events taken (device).
        EV_CONS = 0x4040, Some(Access::ConsDevice);
        /// Events refused.
        EV_DROPPED = 0x4048, RO;
    }
}

/// CC event ring entries start here (§4.3).
pub const EV_RING_BASE: u64 = 0x8000;
/// CC event ring entries: 512 of 64 bytes fill `0x8000 .. 0x10000`, inside the global 64 KiB the
/// char device maps.
pub const EV_RING_ENTRIES: u32 = 512;
/// Bytes per CC event entry (the 384-bit `cc_event_in` record, padded).
pub const EV_ENTRY_BYTES: u64 = 64;

/// `STATUS` bit 0: the device serves the map.
pub const STATUS_READY: u64 = 1 << 0;
/// `STATUS` bit 1: a global reset is in progress.
pub const STATUS_RESETTING: u64 = 1 << 1;
/// `STATUS` bit 2: the device failed; the fatal code is in `[16..32)`.
pub const STATUS_FATAL: u64 = 1 << 2;
/// The fatal code of a `STATUS` word.
pub const fn status_fatal_code(status: u64) -> u16 {
    (status >> 16) as u16
}

/// `RESET` opcode (`'R'`).
pub const RESET_OPCODE: u8 = 0x52;
/// `RESET` argument key (`"ESE"`).
pub const RESET_KEY: u64 = 0x45_5345;

/// `SLOW_PATH_SLOT` value meaning "no slot".
pub const SLOW_PATH_NONE: u64 = 0xFF;

/// `STEER_CMD` opcodes (§2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SteerOp {
    /// Write a RoCE entry.
    WriteRoce = 0x01,
    /// Write a TCP entry.
    WriteTcp = 0x02,
    /// Read a RoCE entry.
    ReadRoce = 0x03,
    /// Read a TCP entry.
    ReadTcp = 0x04,
    /// Look a QPN up.
    LookupRoce = 0x05,
    /// Look a flow id up.
    LookupTcp = 0x06,
    /// Invalidate every RoCE entry.
    ClearRoce = 0x07,
    /// Invalidate every TCP entry.
    ClearTcp = 0x08,
}

/// `CC_CMD` opcodes (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CcOp {
    /// Make the standby CC slot active at the next event boundary.
    Switch = 0x01,
    /// No active CC slot.
    Stop = 0x02,
}

impl SteerOp {
    /// Every opcode, with the document's name (`WRITE_ROCE`, ...).
    pub const ALL: [(SteerOp, &'static str); 8] = [
        (SteerOp::WriteRoce, "WRITE_ROCE"),
        (SteerOp::WriteTcp, "WRITE_TCP"),
        (SteerOp::ReadRoce, "READ_ROCE"),
        (SteerOp::ReadTcp, "READ_TCP"),
        (SteerOp::LookupRoce, "LOOKUP_ROCE"),
        (SteerOp::LookupTcp, "LOOKUP_TCP"),
        (SteerOp::ClearRoce, "CLEAR_ROCE"),
        (SteerOp::ClearTcp, "CLEAR_TCP"),
    ];
}

impl CcOp {
    /// Every opcode, with the document's name.
    pub const ALL: [(CcOp, &'static str); 2] = [(CcOp::Switch, "SWITCH"), (CcOp::Stop, "STOP")];
}

/// `CC_CMD` `SWITCH` argument bit 0 `CARRY` (with `F_STATE_CARRY`): at the event boundary, the
/// active cc's per-flow state is copied into the standby where the layouts agree (§4.1).
pub const CC_SWITCH_CARRY: u64 = 1;

/// Feature bits of `FEATURES` (§2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Feature {
    /// Host rings may live in the map's ring memory.
    RingDevmem = 0,
    /// Host rings may live in host memory.
    RingHostmem = 1,
    /// Interrupts are delivered (MSI-X).
    Msix = 2,
    /// Images can be written through the staging window.
    StageWindow = 3,
    /// Images can be fetched by DMA.
    StageDma = 4,
    /// Image kind 1 (model container) loads.
    ImageModel = 5,
    /// Image kind 2 (partial bitstream) loads.
    ImageBitstream = 6,
    /// The host may inject CC events.
    CcEventInject = 7,
    /// RoCEv2 steering by QPN.
    SteerRoce = 8,
    /// TCP steering by flow id.
    SteerTcp = 9,
    /// `MTU_MAX` > 1500.
    Jumbo = 10,
    /// `ACTIVATE` can carry the old unit's state into the new one (`CARRY`).
    StateCarry = 11,
}

impl Feature {
    /// Every feature, in bit order.
    pub const ALL: [Feature; 12] = [
        Feature::RingDevmem,
        Feature::RingHostmem,
        Feature::Msix,
        Feature::StageWindow,
        Feature::StageDma,
        Feature::ImageModel,
        Feature::ImageBitstream,
        Feature::CcEventInject,
        Feature::SteerRoce,
        Feature::SteerTcp,
        Feature::Jumbo,
        Feature::StateCarry,
    ];
    /// The bit's mask in `FEATURES`.
    pub const fn mask(self) -> u64 {
        1 << self as u8
    }
    /// The document's name (`F_RING_DEVMEM`, ...).
    pub const fn doc_name(self) -> &'static str {
        match self {
            Feature::RingDevmem => "F_RING_DEVMEM",
            Feature::RingHostmem => "F_RING_HOSTMEM",
            Feature::Msix => "F_MSIX",
            Feature::StageWindow => "F_STAGE_WINDOW",
            Feature::StageDma => "F_STAGE_DMA",
            Feature::ImageModel => "F_IMAGE_MODEL",
            Feature::ImageBitstream => "F_IMAGE_BITSTREAM",
            Feature::CcEventInject => "F_CC_EVENT_INJECT",
            Feature::SteerRoce => "F_STEER_ROCE",
            Feature::SteerTcp => "F_STEER_TCP",
            Feature::Jumbo => "F_JUMBO",
            Feature::StateCarry => "F_STATE_CARRY",
        }
    }
}

/// The features the emulator sets (§2.2: bits 0, 3, 5, 7, 8, 9, 10, 11).
pub const EMULATOR_FEATURES: u64 =
    (1 << 0) | (1 << 3) | (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11);

/// The fields of the `SLOTS` register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotsWord {
    /// SCU slots (1–16).
    pub scu_slots: u8,
    /// CC slots (0 or 2).
    pub cc_slots: u8,
    /// Most flows a CC slot holds.
    pub cc_flows: u16,
    /// Network ports (1–4).
    pub ports: u8,
}

impl SlotsWord {
    /// Packs the word.
    pub fn encode(self) -> u64 {
        self.scu_slots as u64
            | (self.cc_slots as u64) << 8
            | (self.cc_flows as u64) << 16
            | (self.ports as u64) << 32
    }
    /// Unpacks the word.
    pub fn decode(word: u64) -> SlotsWord {
        SlotsWord {
            scu_slots: word as u8,
            cc_slots: (word >> 8) as u8,
            cc_flows: (word >> 16) as u16,
            ports: (word >> 32) as u8,
        }
    }
}
