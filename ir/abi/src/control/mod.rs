//! The host control interface of an SCU: how the host (the runtime, the C-simulation device, a
//! test) reads and writes CSRs, installs table entries, reads counters, reads and writes maps and
//! configures meters while the SCU runs.
//!
//! One description, shared by everyone who speaks it: the HLS backend generates the kernel's
//! decoder from a [`ControlLayout`], the C-simulation device encodes requests with it, the manifest
//! embeds it (it is serde-serialisable) and the runtime will use the same encoders on hardware.
//!
//! **Transport.** The kernel has two streams, `ctrl_in` (requests) and `ctrl_out` (responses); one
//! request gives exactly one response, in order. A request is `{op: 8, target: 16, index: 32,
//! data: D}`, a response `{status: 8, data: D}`, where `D` ([`ControlLayout::data_bits`]) is the
//! widest encoded record of the module rounded up to a multiple of 64 (at least 128). Packed into
//! one `ap_uint` each, least significant bits first: request = `data | index << D | target << (D+32)
//! | op << (D+48)` (`D + 56` bits), response = `data | status << D` (`D + 8` bits).
//!
//! **Registers.** On Coyote the host sees 64-bit words in the user CSR window (byte address
//! `0x20000 + 8 × offset`): first the program's CSRs and params (offset = declaration order, see
//! [`scenic_ir::valid::CsrInfo`]), then the mailbox ([`Mailbox`]): `D/64` request data words, the index
//! word, the command word (writing it issues the request), the status word and `D/64` response data
//! words. The generated `vfpga_top.svh` bridges these words to the two streams. CSR reads and writes
//! also have ops of their own, so a test harness can use the streams alone.
//!
//! **Targets.** CSR ops name the CSR's word offset; table, map, counter and meter ops name the
//! object's index in its arena (`TableId`, `MapId`, …, declaration order).
//!
//! **Records.** Every record is a little-endian bit string: a field `(lo, width)` occupies bits
//! `lo .. lo+width` of the data. Struct values (map values) put their first field in the lowest bits,
//! arrays their element 0, recursively (the packing of Vitis HLS `aggregate`). Table entries:
//! [`TableControl`]; counters: packets in bits 0..64, bytes in bits 64..128; meter configuration:
//! rate (bit/s) in bits 0..64, burst (bytes) in bits 64..128; map requests: the key in bits
//! `0..key_bits`, then the value.
//!
//! Invariants: every `lo + width` of a record is at most `data_bits`; ids and offsets are those of
//! the module the layout was built from.

mod encode;
mod layout;

pub use encode::{decode_counter, encode_meter, ControlError, DecodedEntry};
pub use layout::{
    flatten, strategy_of, type_bits, ActionControl, ControlLayout, CounterControl, CsrControl,
    FieldLayout, KeyControl, KeyEncoding, MapControl, MeterControl, ScuControl, TableControl,
    TableStrategy,
};

use num_bigint::BigUint;
use num_traits::{One, Zero};
use serde::{Deserialize, Serialize};

/// Version of the interface described here; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

/// Bits of the op code in a request.
pub const OP_BITS: u32 = 8;
/// Bits of the target in a request.
pub const TARGET_BITS: u32 = 16;
/// Bits of the index in a request.
pub const INDEX_BITS: u32 = 32;
/// Bits of the status in a response.
pub const STATUS_BITS: u32 = 8;
/// Bits of a table entry's priority (run-time entries of ternary/range tables; lower wins).
pub const PRIORITY_BITS: u32 = 32;
/// Bits of an action's position in its table.
pub const ACTION_BITS: u32 = 8;
/// Bits of a prefix length (lpm keys).
pub const PREFIX_LEN_BITS: u32 = 16;
/// Bits of an entry handle (returned by `TableAdd`, named by `TableRemove` and `TableModify`).
pub const HANDLE_BITS: u32 = 32;

/// What a request asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Op {
    /// Read a CSR or param (target: offset). Response data: the value, zero-extended.
    CsrRead = 0x01,
    /// Write a CSR or param (target: offset; data: the value, low bits kept). `ReadOnly` for a
    /// `readonly` CSR.
    CsrWrite = 0x02,
    /// Add a run-time table entry (data: the entry record). Response data: its handle.
    /// `BadAction` for an action the table lacks, then `Constant` for a constant table.
    TableAdd = 0x10,
    /// Remove the run-time entry whose handle is `index`. `NotFound` when there is none.
    TableRemove = 0x11,
    /// Remove every run-time entry of the table.
    TableClear = 0x12,
    /// Replace the default action (data: an entry record; only action and arguments are read).
    /// `BadAction` for an action the table lacks, then `Constant` for a constant table, whose
    /// default cannot be replaced (language.md §7.9.3); the default is then unchanged.
    TableSetDefault = 0x13,
    /// Replace the action and arguments of the run-time entry whose handle is `index` (data: an
    /// entry record; only action and arguments are read: the entry keeps its keys, priority,
    /// handle and place in the search order). In one step: a packet before it sees the old
    /// action, a packet after it the new one, never none. `BadAction` for an action the table
    /// lacks, then `Constant` for a constant table (whose entries cannot be modified, language.md
    /// §7.9.5), then `NotFound` when no run-time entry has that handle (constant entries have
    /// none); the entry is then unchanged.
    TableModify = 0x14,
    /// Read counter cell `index`. Response data: packets, bytes.
    CounterRead = 0x20,
    /// Zero counter cell `index`.
    CounterClear = 0x21,
    /// Look a key up (data: the key). `NotFound` when absent; data: the value. No LRU refresh.
    MapGet = 0x30,
    /// Insert or replace (data: key, value). `Full` when a new key does not fit.
    MapInsert = 0x31,
    /// Remove a key (data: the key). `NotFound` when absent.
    MapRemove = 0x32,
    /// Iterate: the first stored entry at or after position `index`. Response data: key, value,
    /// then the next position (32 bits at `key_bits + value_bits`); `End` when none is left.
    MapIterate = 0x33,
    /// Set meter cell `index`'s rate and burst (data: rate, burst); the bucket refills to full.
    MeterConfigure = 0x40,
}

impl Op {
    /// Every op, for decoders and tests.
    pub const ALL: [Op; 14] = [
        Op::CsrRead,
        Op::CsrWrite,
        Op::TableAdd,
        Op::TableRemove,
        Op::TableClear,
        Op::TableSetDefault,
        Op::TableModify,
        Op::CounterRead,
        Op::CounterClear,
        Op::MapGet,
        Op::MapInsert,
        Op::MapRemove,
        Op::MapIterate,
        Op::MeterConfigure,
    ];

    /// The op with this code.
    pub fn from_code(code: u8) -> Option<Op> {
        Op::ALL.into_iter().find(|op| *op as u8 == code)
    }

    /// The name used in generated code (`OP_TABLE_ADD`).
    pub fn const_name(self) -> &'static str {
        match self {
            Op::CsrRead => "OP_CSR_READ",
            Op::CsrWrite => "OP_CSR_WRITE",
            Op::TableAdd => "OP_TABLE_ADD",
            Op::TableRemove => "OP_TABLE_REMOVE",
            Op::TableClear => "OP_TABLE_CLEAR",
            Op::TableSetDefault => "OP_TABLE_SET_DEFAULT",
            Op::TableModify => "OP_TABLE_MODIFY",
            Op::CounterRead => "OP_COUNTER_READ",
            Op::CounterClear => "OP_COUNTER_CLEAR",
            Op::MapGet => "OP_MAP_GET",
            Op::MapInsert => "OP_MAP_INSERT",
            Op::MapRemove => "OP_MAP_REMOVE",
            Op::MapIterate => "OP_MAP_ITERATE",
            Op::MeterConfigure => "OP_METER_CONFIGURE",
        }
    }
}

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Status {
    /// Done.
    Ok = 0,
    /// The key, entry handle or map key does not exist.
    NotFound = 1,
    /// The table or map is full.
    Full = 2,
    /// An exact table already holds an entry with these keys.
    Duplicate = 3,
    /// The table is constant (only constant entries): it takes no run-time entry, its entries
    /// cannot be modified and its default action cannot be replaced.
    Constant = 4,
    /// No CSR, table, map, counter or meter with this target.
    BadTarget = 5,
    /// The index is out of range (counter cell, meter cell).
    BadIndex = 6,
    /// A host write to a `readonly` CSR.
    ReadOnly = 7,
    /// The op is unknown or does not apply to the target.
    BadOp = 8,
    /// The entry names an action the table does not have.
    BadAction = 9,
    /// Map iteration: no entry at or after the position.
    End = 10,
}

impl Status {
    /// Every status, for decoders and tests.
    pub const ALL: [Status; 11] = [
        Status::Ok,
        Status::NotFound,
        Status::Full,
        Status::Duplicate,
        Status::Constant,
        Status::BadTarget,
        Status::BadIndex,
        Status::ReadOnly,
        Status::BadOp,
        Status::BadAction,
        Status::End,
    ];

    /// The status with this code.
    pub fn from_code(code: u8) -> Option<Status> {
        Status::ALL.into_iter().find(|s| *s as u8 == code)
    }

    /// The name used in generated code (`ST_FULL`).
    pub fn const_name(self) -> &'static str {
        match self {
            Status::Ok => "ST_OK",
            Status::NotFound => "ST_NOT_FOUND",
            Status::Full => "ST_FULL",
            Status::Duplicate => "ST_DUPLICATE",
            Status::Constant => "ST_CONSTANT",
            Status::BadTarget => "ST_BAD_TARGET",
            Status::BadIndex => "ST_BAD_INDEX",
            Status::ReadOnly => "ST_READ_ONLY",
            Status::BadOp => "ST_BAD_OP",
            Status::BadAction => "ST_BAD_ACTION",
            Status::End => "ST_END",
        }
    }
}

/// One request on `ctrl_in`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// What to do.
    pub op: Op,
    /// Which object (CSR offset, or arena index).
    pub target: u16,
    /// Cell, entry handle or iteration position.
    pub index: u32,
    /// The record (at most `data_bits` bits).
    pub data: BigUint,
}

/// One response on `ctrl_out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// How it ended (the raw code, so that unknown codes survive decoding).
    pub status: u8,
    /// The record.
    pub data: BigUint,
}

impl Response {
    /// The status, if the code is known.
    pub fn status(&self) -> Option<Status> {
        Status::from_code(self.status)
    }
}

/// Where the mailbox sits in the CSR word space (offsets in 64-bit words).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mailbox {
    /// Offset of request data word 0 (bits 0..64 of the data); the first word after the CSRs.
    pub request_data: u32,
    /// Number of request (and response) data words: `data_bits / 64`.
    pub data_words: u32,
    /// Offset of the index word (bits 0..32).
    pub index: u32,
    /// Offset of the command word: bits 0..8 op, 8..24 target. Writing it issues the request.
    pub command: u32,
    /// Offset of the status word: bits 0..8 status of the last response, bit 8 set while a request
    /// is in flight, bits 16..48 a count of completed requests (it wraps).
    pub status: u32,
    /// Offset of response data word 0.
    pub response_data: u32,
    /// One past the last mailbox word.
    pub end: u32,
}

impl Mailbox {
    /// The mailbox after `csr_words` CSR words, for `data_bits` of data.
    pub fn new(csr_words: u32, data_bits: u32) -> Mailbox {
        let data_words = data_bits.div_ceil(64);
        let request_data = csr_words;
        let index = request_data + data_words;
        let command = index + 1;
        let status = command + 1;
        let response_data = status + 1;
        Mailbox {
            request_data,
            data_words,
            index,
            command,
            status,
            response_data,
            end: response_data + data_words,
        }
    }
}

/// The low `width` bits of `v`.
pub fn low_bits(v: &BigUint, width: u32) -> BigUint {
    v & ((BigUint::one() << width as usize) - BigUint::one())
}

/// Bits `lo .. lo+width` of `v`.
pub fn get_field(v: &BigUint, lo: u32, width: u32) -> BigUint {
    low_bits(&(v >> lo as usize), width)
}

/// Writes `value` (its low `width` bits) into bits `lo .. lo+width` of `v`.
pub fn put_field(v: &mut BigUint, lo: u32, width: u32, value: &BigUint) {
    let mask = ((BigUint::one() << width as usize) - BigUint::one()) << lo as usize;
    // `!` is not defined on `BigUint`: clear the field by subtracting what it holds.
    let held = &*v & &mask;
    *v -= held;
    *v |= low_bits(value, width) << lo as usize;
}

impl Request {
    /// The request packed for `ctrl_in`: `data | index << D | target << (D+32) | op << (D+48)`.
    pub fn pack(&self, data_bits: u32) -> BigUint {
        let d = data_bits as usize;
        low_bits(&self.data, data_bits)
            | (BigUint::from(self.index) << d)
            | (BigUint::from(self.target) << (d + 32))
            | (BigUint::from(self.op as u8) << (d + 48))
    }

    /// The request from its packed form; `None` for an unknown op code.
    pub fn unpack(bits: &BigUint, data_bits: u32) -> Option<Request> {
        let op = Op::from_code(to_u8(&get_field(bits, data_bits + 48, OP_BITS)))?;
        Some(Request {
            op,
            target: to_u64(&get_field(bits, data_bits + 32, TARGET_BITS)) as u16,
            index: to_u64(&get_field(bits, data_bits, INDEX_BITS)) as u32,
            data: get_field(bits, 0, data_bits),
        })
    }
}

impl Response {
    /// The response packed for `ctrl_out`: `data | status << D`.
    pub fn pack(&self, data_bits: u32) -> BigUint {
        low_bits(&self.data, data_bits) | (BigUint::from(self.status) << data_bits as usize)
    }

    /// The response from its packed form.
    pub fn unpack(bits: &BigUint, data_bits: u32) -> Response {
        Response {
            status: to_u8(&get_field(bits, data_bits, STATUS_BITS)),
            data: get_field(bits, 0, data_bits),
        }
    }
}

/// `v` as a u64 (its low 64 bits).
pub fn to_u64(v: &BigUint) -> u64 {
    v.iter_u64_digits().next().unwrap_or(0)
}

fn to_u8(v: &BigUint) -> u8 {
    (to_u64(v) & 0xff) as u8
}

/// Whether `v` is zero.
pub fn is_zero(v: &BigUint) -> bool {
    v.is_zero()
}

#[cfg(test)]
mod tests;
