//! Status codes (`docs/device.md` §6), device statuses of control responses (§3.6) and fatal codes.
//!
//! [`Code`] is both the typed view of a 16-bit code and an error with a clear message: every code
//! the document names is a variant; a code this runtime does not know is [`Code::Unknown`], shown
//! with its number (§2.5: "treat an error code it does not know as an error").

/// A status code of a command result, `LOAD_STATUS`, `ERROR` or `SLOT_ERROR` (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Code {
    /// `OK` (0x0000).
    #[error("OK (0x0000): done")]
    Ok,
    /// `E_BAD_COMMAND` (0x0001).
    #[error("E_BAD_COMMAND (0x0001): the device does not know the command's opcode")]
    BadCommand,
    /// `E_BAD_STATE` (0x0002).
    #[error("E_BAD_STATE (0x0002): the transition is not allowed from the slot's current states")]
    BadState,
    /// `E_SEQ` (0x0003).
    #[error("E_SEQ (0x0003): the command's sequence number was 0")]
    Seq,
    /// `E_READ_ONLY` (0x0004).
    #[error("E_READ_ONLY (0x0004): the host wrote a read-only register")]
    ReadOnly,
    /// `E_NOT_FOUND` (0x0005).
    #[error("E_NOT_FOUND (0x0005): no valid steering entry has the key")]
    NotFound,
    /// `E_QUEUE_OVERRUN` (0x0006).
    #[error("E_QUEUE_OVERRUN (0x0006): a host ring index moved backwards or more than the ring ahead; the ring is stopped until reset")]
    QueueOverrun,
    /// `E_RESET_KEY` (0x0007).
    #[error("E_RESET_KEY (0x0007): the reset argument is not the key")]
    ResetKey,
    /// `E_IMAGE_KIND` (0x0010).
    #[error("E_IMAGE_KIND (0x0010): the image kind is not supported by this device")]
    ImageKind,
    /// `E_IMAGE_LEN` (0x0011).
    #[error("E_IMAGE_LEN (0x0011): the image is incomplete, a chunk lies past STAGE_LEN or exceeds 64 KiB, or STAGE_LEN exceeds STAGE_MAX")]
    ImageLen,
    /// `E_IMAGE_CRC` (0x0012).
    #[error("E_IMAGE_CRC (0x0012): the image's CRC-32 differs from STAGE_CRC32")]
    ImageCrc,
    /// `E_IMAGE_FORMAT` (0x0013).
    #[error("E_IMAGE_FORMAT (0x0013): the container, manifest or model is unreadable")]
    ImageFormat,
    /// `E_VERSION` (0x0014).
    #[error("E_VERSION (0x0014): the manifest or control format version is unknown to the device")]
    Version,
    /// `E_UNIT` (0x0015).
    #[error("E_UNIT (0x0015): STAGE_UNIT does not name a unit of the slot's kind in the package")]
    Unit,
    /// `E_IDENTITY` (0x0016).
    #[error("E_IDENTITY (0x0016): the staged identity differs from the image's manifest")]
    Identity,
    /// `E_TOO_WIDE` (0x0017).
    #[error("E_TOO_WIDE (0x0017): the unit's control data is wider than 1920 bits")]
    TooWide,
    /// `E_RESOURCES` (0x0018).
    #[error("E_RESOURCES (0x0018): the unit does not fit the slot")]
    Resources,
    /// `E_STEER_SLOT` (0x0020).
    #[error("E_STEER_SLOT (0x0020): no such SCU slot")]
    SteerSlot,
    /// `E_STEER_KIND` (0x0021).
    #[error("E_STEER_KIND (0x0021): the slot's unit is not attached the way the steering table needs (rdma/tcp)")]
    SteerKind,
    /// `E_STEER_INDEX` (0x0022).
    #[error("E_STEER_INDEX (0x0022): the steering entry index is beyond the table's capacity")]
    SteerIndex,
    /// `E_STEER_DUP` (0x0023).
    #[error("E_STEER_DUP (0x0023): another valid steering entry has this key")]
    SteerDup,
    /// `E_CSR_READONLY` (0x0030).
    #[error("E_CSR_READONLY (0x0030): the CSR is read-only")]
    CsrReadonly,
    /// `E_CSR_UNMAPPED` (0x0031).
    #[error("E_CSR_UNMAPPED (0x0031): the CSR word is beyond the unit's CSR_WORDS")]
    CsrUnmapped,
    /// `E_CSR_NO_BANK` (0x0032).
    #[error("E_CSR_NO_BANK (0x0032): the slot has no active bank")]
    CsrNoBank,
    /// `E_RING_CONFIG` (0x0040).
    #[error("E_RING_CONFIG (0x0040): bad ring size, base or location, or a change while the ring is enabled")]
    RingConfig,
    /// `E_MTU` (0x0041).
    #[error("E_MTU (0x0041): the MTU is above MTU_MAX or below 68")]
    Mtu,
    /// `E_CC_NO_STANDBY` (0x0050).
    #[error("E_CC_NO_STANDBY (0x0050): no loaded standby CC slot")]
    CcNoStandby,
    /// `E_CC_MISMATCH` (0x0051).
    #[error("E_CC_MISMATCH (0x0051): the standby CC slot's flows or output kind differ from the active one's")]
    CcMismatch,
    /// `E_CC_EVENT` (0x0052).
    #[error("E_CC_EVENT (0x0052): a CC event with kind > 8 or flow >= FLOWS was skipped")]
    CcEvent,
    /// A code this runtime does not know.
    #[error("unknown device error code {0:#06x}")]
    Unknown(u16),
}

impl Code {
    /// Every code the document names, in table order.
    pub const ALL: [Code; 29] = [
        Code::Ok,
        Code::BadCommand,
        Code::BadState,
        Code::Seq,
        Code::ReadOnly,
        Code::NotFound,
        Code::QueueOverrun,
        Code::ResetKey,
        Code::ImageKind,
        Code::ImageLen,
        Code::ImageCrc,
        Code::ImageFormat,
        Code::Version,
        Code::Unit,
        Code::Identity,
        Code::TooWide,
        Code::Resources,
        Code::SteerSlot,
        Code::SteerKind,
        Code::SteerIndex,
        Code::SteerDup,
        Code::CsrReadonly,
        Code::CsrUnmapped,
        Code::CsrNoBank,
        Code::RingConfig,
        Code::Mtu,
        Code::CcNoStandby,
        Code::CcMismatch,
        Code::CcEvent,
    ];

    /// The code's number.
    pub const fn number(self) -> u16 {
        match self {
            Code::Ok => 0x0000,
            Code::BadCommand => 0x0001,
            Code::BadState => 0x0002,
            Code::Seq => 0x0003,
            Code::ReadOnly => 0x0004,
            Code::NotFound => 0x0005,
            Code::QueueOverrun => 0x0006,
            Code::ResetKey => 0x0007,
            Code::ImageKind => 0x0010,
            Code::ImageLen => 0x0011,
            Code::ImageCrc => 0x0012,
            Code::ImageFormat => 0x0013,
            Code::Version => 0x0014,
            Code::Unit => 0x0015,
            Code::Identity => 0x0016,
            Code::TooWide => 0x0017,
            Code::Resources => 0x0018,
            Code::SteerSlot => 0x0020,
            Code::SteerKind => 0x0021,
            Code::SteerIndex => 0x0022,
            Code::SteerDup => 0x0023,
            Code::CsrReadonly => 0x0030,
            Code::CsrUnmapped => 0x0031,
            Code::CsrNoBank => 0x0032,
            Code::RingConfig => 0x0040,
            Code::Mtu => 0x0041,
            Code::CcNoStandby => 0x0050,
            Code::CcMismatch => 0x0051,
            Code::CcEvent => 0x0052,
            Code::Unknown(n) => n,
        }
    }

    /// The document's name (`E_BAD_STATE`, ...); `"unknown"` for an unknown code.
    pub const fn doc_name(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::BadCommand => "E_BAD_COMMAND",
            Code::BadState => "E_BAD_STATE",
            Code::Seq => "E_SEQ",
            Code::ReadOnly => "E_READ_ONLY",
            Code::NotFound => "E_NOT_FOUND",
            Code::QueueOverrun => "E_QUEUE_OVERRUN",
            Code::ResetKey => "E_RESET_KEY",
            Code::ImageKind => "E_IMAGE_KIND",
            Code::ImageLen => "E_IMAGE_LEN",
            Code::ImageCrc => "E_IMAGE_CRC",
            Code::ImageFormat => "E_IMAGE_FORMAT",
            Code::Version => "E_VERSION",
            Code::Unit => "E_UNIT",
            Code::Identity => "E_IDENTITY",
            Code::TooWide => "E_TOO_WIDE",
            Code::Resources => "E_RESOURCES",
            Code::SteerSlot => "E_STEER_SLOT",
            Code::SteerKind => "E_STEER_KIND",
            Code::SteerIndex => "E_STEER_INDEX",
            Code::SteerDup => "E_STEER_DUP",
            Code::CsrReadonly => "E_CSR_READONLY",
            Code::CsrUnmapped => "E_CSR_UNMAPPED",
            Code::CsrNoBank => "E_CSR_NO_BANK",
            Code::RingConfig => "E_RING_CONFIG",
            Code::Mtu => "E_MTU",
            Code::CcNoStandby => "E_CC_NO_STANDBY",
            Code::CcMismatch => "E_CC_MISMATCH",
            Code::CcEvent => "E_CC_EVENT",
            Code::Unknown(_) => "unknown",
        }
    }

    /// The code of a number (never fails: unknown numbers give [`Code::Unknown`]).
    pub fn from_number(n: u16) -> Code {
        Code::ALL
            .into_iter()
            .find(|c| c.number() == n)
            .unwrap_or(Code::Unknown(n))
    }
}

/// A device status of a control response (§3.6): the request did not reach a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum DeviceStatus {
    /// `DS_NO_BANK` (0x80).
    #[error("DS_NO_BANK (0x80): the addressed bank is not in a state that serves requests")]
    NoBank,
    /// `DS_BAD_LENGTH` (0x81).
    #[error("DS_BAD_LENGTH (0x81): more data words than the bank's D/64, or data bits >= D set")]
    BadLength,
    /// `DS_BAD_FLAGS` (0x82).
    #[error("DS_BAD_FLAGS (0x82): a reserved flag or header byte is non-zero")]
    BadFlags,
    /// `DS_BAD_OP` (0x83).
    #[error("DS_BAD_OP (0x83): the op code is not a scenic_ir::control::Op")]
    BadOp,
}

impl DeviceStatus {
    /// Every device status, in table order.
    pub const ALL: [DeviceStatus; 4] = [
        DeviceStatus::NoBank,
        DeviceStatus::BadLength,
        DeviceStatus::BadFlags,
        DeviceStatus::BadOp,
    ];
    /// The status byte.
    pub const fn number(self) -> u8 {
        match self {
            DeviceStatus::NoBank => 0x80,
            DeviceStatus::BadLength => 0x81,
            DeviceStatus::BadFlags => 0x82,
            DeviceStatus::BadOp => 0x83,
        }
    }
    /// The document's name.
    pub const fn doc_name(self) -> &'static str {
        match self {
            DeviceStatus::NoBank => "DS_NO_BANK",
            DeviceStatus::BadLength => "DS_BAD_LENGTH",
            DeviceStatus::BadFlags => "DS_BAD_FLAGS",
            DeviceStatus::BadOp => "DS_BAD_OP",
        }
    }
}

/// Fatal code (`STATUS[16..32)`): the emulator's model engine failed.
pub const FATAL_ENGINE: u16 = 0x0001;
/// Fatal code: the card's PR controller or DMA engine reported a fault.
pub const FATAL_HARDWARE: u16 = 0x0002;
/// Fatal code: the shared-memory file was truncated.
pub const FATAL_TRUNCATED: u16 = 0x0003;
