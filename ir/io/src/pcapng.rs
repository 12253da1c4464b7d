//! pcapng capture files: a zero-copy [`Reader`] over a byte buffer and a minimal [`Writer`].
//!
//! Format: IETF draft `draft-ietf-opsawg-pcapng` ("PCAP Now Generic"). A file is a sequence of
//! blocks, each `type, total length, body, total length` with lengths a multiple of 4 and at least 12.
//! A section header block (SHB, type `0a0d0d0a`) starts every section; its byte-order magic
//! `1a2b3c4d` gives the byte order of everything up to the next SHB. Interface description blocks
//! (IDB, type 1) declare interfaces, numbered from 0 within the section: link type, snapshot length,
//! and the options `if_tsresol` (code 9: 10^-n s if the top bit is clear, else 2^-n s; default
//! microseconds) and `if_tsoffset` (code 14: seconds added to every timestamp). Packets come in
//! enhanced packet blocks (EPB, type 6), simple packet blocks (SPB, type 3; interface 0, no
//! timestamp) and obsolete packet blocks (type 2). Every other block type is skipped.
//!
//! Reading ([`Reader::new`], then iterate): timestamps become nanoseconds since the epoch
//! (truncated when the resolution is finer; an error if they do not fit in `u64` or fall before
//! 1970). An SPB has no timestamp: it gets the previous packet's timestamp in the file (0 before any),
//! so virtual time never goes backwards. Errors name the byte offset of the block (or option) at
//! fault. A packet longer than its interface's snapshot length (when non-zero) or
//! [`MAX_PACKET_LEN`] is an error. Packet data is borrowed; nothing is allocated per packet.
//!
//! Writing ([`Writer`]): one little-endian section (version 1.0, unknown length) with one Ethernet
//! interface whose `if_tsresol` is nanoseconds, then one EPB per packet. tcpdump (libpcap ≥ 1.1)
//! and Wireshark read it.

use super::{ByteOrder, Record};
use std::io::Write;

/// Block type of a section header block (the same in both byte orders).
pub const BLOCK_SHB: u32 = 0x0a0d_0d0a;
/// Block type of an interface description block.
pub const BLOCK_IDB: u32 = 1;
/// Block type of an obsolete packet block.
pub const BLOCK_OPB: u32 = 2;
/// Block type of a simple packet block.
pub const BLOCK_SPB: u32 = 3;
/// Block type of an enhanced packet block.
pub const BLOCK_EPB: u32 = 6;
/// The byte-order magic of section header blocks.
pub const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
/// The largest captured packet read (256 MiB).
pub const MAX_PACKET_LEN: u32 = 256 << 20;

const OPT_ENDOFOPT: u16 = 0;
const OPT_IF_TSRESOL: u16 = 9;
const OPT_IF_TSOFFSET: u16 = 14;

/// The timestamp unit of an interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsResolution {
    /// 10^-n seconds.
    Decimal(u8),
    /// 2^-n seconds.
    Binary(u8),
}

impl TsResolution {
    /// The default: microseconds.
    pub const MICROS: TsResolution = TsResolution::Decimal(6);

    /// Decodes an `if_tsresol` byte.
    pub fn from_option(byte: u8) -> TsResolution {
        if byte & 0x80 == 0 {
            TsResolution::Decimal(byte)
        } else {
            TsResolution::Binary(byte & 0x7f)
        }
    }

    /// Converts a count of units to nanoseconds, truncating; `None` if it does not fit in `u64`.
    pub fn to_ns(self, ticks: u64) -> Option<u64> {
        let ns = match self {
            TsResolution::Decimal(n) if n <= 9 => u128::from(ticks) * 10u128.pow(9 - u32::from(n)),
            TsResolution::Decimal(n) => match 10u128.checked_pow(u32::from(n) - 9) {
                Some(div) => u128::from(ticks) / div,
                None => 0,
            },
            TsResolution::Binary(n) => (u128::from(ticks) * 1_000_000_000) >> n.min(127),
        };
        u64::try_from(ns).ok()
    }
}

/// An interface declared by an IDB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interface {
    /// Link type (1 = Ethernet).
    pub link_type: u16,
    /// Snapshot length (0: no limit).
    pub snaplen: u32,
    /// Timestamp unit.
    pub ts_resolution: TsResolution,
    /// Seconds added to every timestamp (`if_tsoffset`).
    pub ts_offset_s: i64,
}

/// An error reading or writing a pcapng file.
#[derive(Debug, thiserror::Error)]
pub enum PcapngError {
    /// The file does not start with a section header block.
    #[error("not a pcapng file: the first block has type {found:08x} at offset 0 (expected a section header block, 0a0d0d0a)")]
    NotPcapng {
        /// The first four bytes, read big-endian.
        found: u32,
    },
    /// The file ends inside a block header (or an SHB's byte-order magic).
    #[error("offset {offset}: truncated block header ({available} of {needed} bytes)")]
    TruncatedBlockHeader {
        /// Offset of the block.
        offset: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes present.
        available: usize,
    },
    /// An SHB's byte-order magic is neither `1a2b3c4d` nor `4d3c2b1a`.
    #[error("offset {offset}: section header block with byte-order magic {found:08x} (expected 1a2b3c4d)")]
    BadByteOrderMagic {
        /// Offset of the block.
        offset: usize,
        /// The magic, read big-endian.
        found: u32,
    },
    /// An SHB's major version is not 1.
    #[error("offset {offset}: unsupported pcapng version {major}.{minor} (expected 1.x)")]
    UnsupportedVersion {
        /// Offset of the block.
        offset: usize,
        /// Major version.
        major: u16,
        /// Minor version.
        minor: u16,
    },
    /// A block length is below 12 or not a multiple of 4.
    #[error("offset {offset}: block of type {block_type:#x} has invalid length {length} (must be a multiple of 4, at least 12)")]
    BadBlockLength {
        /// Offset of the block.
        offset: usize,
        /// Its type.
        block_type: u32,
        /// Its length.
        length: u32,
    },
    /// A block extends past the end of the file.
    #[error("offset {offset}: block of type {block_type:#x} has length {length} but only {available} bytes remain")]
    TruncatedBlock {
        /// Offset of the block.
        offset: usize,
        /// Its type.
        block_type: u32,
        /// Its length.
        length: u32,
        /// Bytes remaining from its start.
        available: usize,
    },
    /// The trailing length of a block differs from the leading one.
    #[error("offset {offset}: block of type {block_type:#x} has length {leading} at its start but {trailing} at its end")]
    LengthMismatch {
        /// Offset of the block.
        offset: usize,
        /// Its type.
        block_type: u32,
        /// The leading length.
        leading: u32,
        /// The trailing length.
        trailing: u32,
    },
    /// A block's body is too short for its fixed fields or its packet data.
    #[error("offset {offset}: block of type {block_type:#x} needs {needed} bytes of body, has {body_len}")]
    BodyTooShort {
        /// Offset of the block.
        offset: usize,
        /// Its type.
        block_type: u32,
        /// Bytes needed.
        needed: u64,
        /// Bytes in the body.
        body_len: usize,
    },
    /// A packet's captured length exceeds its interface's snapshot length or [`MAX_PACKET_LEN`].
    #[error("offset {offset}: packet {index} has captured length {caplen}, more than the {what} ({limit})")]
    PacketTooLong {
        /// Offset of the block.
        offset: usize,
        /// Index of the packet in the file (0-based).
        index: u64,
        /// Its captured length.
        caplen: u32,
        /// The limit exceeded.
        limit: u32,
        /// Which limit: "snapshot length" or "256 MiB packet limit".
        what: &'static str,
    },
    /// A packet refers to an interface not declared in its section.
    #[error(
        "offset {offset}: packet refers to interface {interface}, but the section declares {count}"
    )]
    UnknownInterface {
        /// Offset of the block.
        offset: usize,
        /// The interface index.
        interface: u32,
        /// Interfaces declared so far in the section.
        count: usize,
    },
    /// An option runs past the end of its block, or a known option has the wrong length.
    #[error("offset {offset}: malformed option {code} of length {length}")]
    BadOption {
        /// Offset of the option.
        offset: usize,
        /// Its code.
        code: u16,
        /// Its length.
        length: u16,
    },
    /// A timestamp does not fit in `u64` nanoseconds since the epoch.
    #[error("offset {offset}: timestamp out of range (before 1970 or after 2554)")]
    TimestampOutOfRange {
        /// Offset of the block.
        offset: usize,
    },
    /// [`Writer::write_packet`] got a packet longer than 4 GiB.
    #[error("cannot write a packet of {len} bytes")]
    PacketTooLongToWrite {
        /// Length of the packet.
        len: usize,
    },
    /// Writing failed.
    #[error("cannot write the pcapng file: {0}")]
    Io(#[from] std::io::Error),
}

/// One block: where it starts, its type, its body.
struct Block<'a> {
    offset: usize,
    kind: u32,
    body: &'a [u8],
}

/// An iterator over the packets of a pcapng file held in memory. After an error it yields `None`.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: Position,
}

impl<'a> Reader<'a> {
    /// Checks that the file starts with a section header block and positions the reader there.
    pub fn new(bytes: &'a [u8]) -> Result<Self, PcapngError> {
        Ok(Reader {
            at: Position::start(bytes)?,
            bytes,
        })
    }

    /// The byte order of the current section.
    pub fn byte_order(&self) -> ByteOrder {
        self.at.order
    }

    /// The interfaces declared so far in the current section.
    pub fn interfaces(&self) -> &[Interface] {
        &self.at.interfaces
    }

    /// The number of sections started so far.
    pub fn sections(&self) -> u32 {
        self.at.sections
    }
}

/// Where a reader is in a pcapng file: everything but the bytes, so that one parser serves a file
/// held whole ([`Reader`], `base` 0) and one read piece by piece (`io::stream`), which passes the
/// bytes it holds, `window`, starting at file offset `base`. Offsets are the file's: errors say
/// where in the file, whichever way it was read.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    pub(crate) offset: usize,
    order: ByteOrder,
    interfaces: Vec<Interface>,
    sections: u32,
    packets: u64,
    last_ts: u64,
    failed: bool,
}

impl Position {
    /// Checks that `window` (from file offset 0) starts with a section header block, and reads it.
    pub(crate) fn start(window: &[u8]) -> Result<Position, PcapngError> {
        let first = ByteOrder::Big.u32_at(window, 0);
        if first != Some(BLOCK_SHB) {
            if window.len() < 4 {
                return Err(PcapngError::TruncatedBlockHeader {
                    offset: 0,
                    needed: 12,
                    available: window.len(),
                });
            }
            return Err(PcapngError::NotPcapng {
                found: first.unwrap_or(0),
            });
        }
        let mut at = Position {
            offset: 0,
            order: ByteOrder::Little,
            interfaces: Vec::new(),
            sections: 0,
            packets: 0,
            last_ts: 0,
            failed: false,
        };
        // Validate the first SHB eagerly, so that a broken file header is refused at once.
        let block = at.block(window, 0)?;
        at.section(&block)?;
        Ok(at)
    }

    /// [`frame`] of the next block, given `rest`, the file's bytes from the current offset.
    pub(crate) fn frame(&self, rest: &[u8]) -> Option<(usize, bool)> {
        frame(rest, self.order)
    }

    /// Reads the block at the current offset and moves past it.
    fn block<'a>(&mut self, window: &'a [u8], base: usize) -> Result<Block<'a>, PcapngError> {
        let offset = self.offset;
        let rest = offset
            .checked_sub(base)
            .and_then(|i| window.get(i..))
            .unwrap_or_default();
        let truncated = |needed| PcapngError::TruncatedBlockHeader {
            offset,
            needed,
            available: rest.len(),
        };
        self.order = match block_order(rest, self.order) {
            Ok(Some(order)) => order,
            Ok(None) => return Err(truncated(12)),
            Err(found) => return Err(PcapngError::BadByteOrderMagic { offset, found }),
        };
        let o = self.order;
        let kind = o.u32_at(rest, 0).ok_or(truncated(12))?;
        let length = o.u32_at(rest, 4).ok_or(truncated(12))?;
        if length < 12 || length % 4 != 0 {
            return Err(PcapngError::BadBlockLength {
                offset,
                block_type: kind,
                length,
            });
        }
        let block = rest
            .get(..length as usize)
            .ok_or(PcapngError::TruncatedBlock {
                offset,
                block_type: kind,
                length,
                available: rest.len(),
            })?;
        let trailing = o.u32_at(block, block.len() - 4).unwrap_or(0);
        if trailing != length {
            return Err(PcapngError::LengthMismatch {
                offset,
                block_type: kind,
                leading: length,
                trailing,
            });
        }
        self.offset += block.len();
        Ok(Block {
            offset,
            kind,
            body: &block[8..block.len() - 4],
        })
    }

    /// Starts a section from an SHB.
    fn section(&mut self, block: &Block<'_>) -> Result<(), PcapngError> {
        let o = self.order;
        let (major, minor) = match (o.u16_at(block.body, 4), o.u16_at(block.body, 6)) {
            (Some(major), Some(minor)) if block.body.len() >= 16 => (major, minor),
            _ => return Err(too_short(block, 16)),
        };
        if major != 1 {
            return Err(PcapngError::UnsupportedVersion {
                offset: block.offset,
                major,
                minor,
            });
        }
        self.interfaces.clear();
        self.sections += 1;
        Ok(())
    }

    /// Declares an interface from an IDB.
    fn interface(&mut self, block: &Block<'_>) -> Result<(), PcapngError> {
        let o = self.order;
        let (Some(link_type), Some(snaplen)) = (o.u16_at(block.body, 0), o.u32_at(block.body, 4))
        else {
            return Err(too_short(block, 8));
        };
        let mut iface = Interface {
            link_type,
            snaplen,
            ts_resolution: TsResolution::MICROS,
            ts_offset_s: 0,
        };
        let mut at = 8;
        while let (Some(code), Some(length)) =
            (o.u16_at(block.body, at), o.u16_at(block.body, at + 2))
        {
            let option_offset = block.offset + 8 + at;
            let bad = || PcapngError::BadOption {
                offset: option_offset,
                code,
                length,
            };
            if code == OPT_ENDOFOPT {
                break;
            }
            let value = block
                .body
                .get(at + 4..at + 4 + usize::from(length))
                .ok_or_else(bad)?;
            match (code, value) {
                (OPT_IF_TSRESOL, [b]) => iface.ts_resolution = TsResolution::from_option(*b),
                (OPT_IF_TSOFFSET, v) if v.len() == 8 => {
                    iface.ts_offset_s = o.u64_at(v, 0).unwrap_or(0) as i64;
                }
                (OPT_IF_TSRESOL | OPT_IF_TSOFFSET, _) => return Err(bad()),
                _ => {}
            }
            at += 4 + usize::from(length).div_ceil(4) * 4;
        }
        self.interfaces.push(iface);
        Ok(())
    }

    /// Parses a packet block (EPB, SPB or OPB).
    fn packet<'a>(&mut self, block: &Block<'a>) -> Result<Record<'a>, PcapngError> {
        let o = self.order;
        let b = block.body;
        let field = |at| o.u32_at(b, at).unwrap_or(0);
        let (interface, ts, caplen, orig_len, data_at) = match block.kind {
            BLOCK_SPB => {
                let orig_len = o.u32_at(b, 0).ok_or_else(|| too_short(block, 4))?;
                let avail = u32::try_from(b.len() - 4).unwrap_or(u32::MAX);
                let iface = self.iface(block, 0)?;
                let mut caplen = orig_len.min(avail);
                if iface.snaplen != 0 {
                    caplen = caplen.min(iface.snaplen);
                }
                (0, None, caplen, orig_len, 4)
            }
            kind => {
                if b.len() < 20 {
                    return Err(too_short(block, 20));
                }
                let interface = if kind == BLOCK_OPB {
                    u32::from(o.u16_at(b, 0).unwrap_or(0))
                } else {
                    field(0)
                };
                let ticks = (u64::from(field(4)) << 32) | u64::from(field(8));
                (interface, Some(ticks), field(12), field(16), 20)
            }
        };
        let iface = self.iface(block, interface)?;
        self.check_caplen(block, &iface, caplen)?;
        let data = b
            .get(data_at..data_at + caplen as usize)
            .ok_or_else(|| too_short(block, data_at as u64 + u64::from(caplen)))?;
        let ts_ns = match ts {
            Some(ticks) => timestamp(&iface, ticks).ok_or(PcapngError::TimestampOutOfRange {
                offset: block.offset,
            })?,
            None => self.last_ts,
        };
        self.last_ts = ts_ns;
        self.packets += 1;
        Ok(Record {
            ts_ns,
            orig_len,
            data,
            link_type: u32::from(iface.link_type),
            interface,
        })
    }

    /// The interface a packet refers to.
    fn iface(&self, block: &Block<'_>, interface: u32) -> Result<Interface, PcapngError> {
        self.interfaces
            .get(interface as usize)
            .copied()
            .ok_or(PcapngError::UnknownInterface {
                offset: block.offset,
                interface,
                count: self.interfaces.len(),
            })
    }

    /// Checks a captured length against the limits.
    fn check_caplen(
        &self,
        block: &Block<'_>,
        iface: &Interface,
        caplen: u32,
    ) -> Result<(), PcapngError> {
        let (limit, what) = if iface.snaplen != 0 && iface.snaplen < MAX_PACKET_LEN {
            (iface.snaplen, "snapshot length")
        } else {
            (MAX_PACKET_LEN, "256 MiB packet limit")
        };
        if caplen > limit {
            return Err(PcapngError::PacketTooLong {
                offset: block.offset,
                index: self.packets,
                caplen,
                limit,
                what,
            });
        }
        Ok(())
    }

    /// Reads the block at the current offset: a packet, or `None` for a block that only sets up
    /// (section, interface) or that this reader skips.
    pub(crate) fn next_block<'a>(
        &mut self,
        window: &'a [u8],
        base: usize,
    ) -> Result<Option<Record<'a>>, PcapngError> {
        let block = self.block(window, base)?;
        match block.kind {
            BLOCK_SHB => self.section(&block).map(|()| None),
            BLOCK_IDB => self.interface(&block).map(|()| None),
            BLOCK_EPB | BLOCK_SPB | BLOCK_OPB => self.packet(&block).map(Some),
            _ => Ok(None),
        }
    }

    /// Reads blocks of `window` (the whole file) until the next packet or the end of the file.
    fn next_packet<'a>(&mut self, window: &'a [u8]) -> Option<Result<Record<'a>, PcapngError>> {
        while self.offset < window.len() {
            match self.next_block(window, 0) {
                Ok(None) => continue,
                Ok(Some(record)) => return Some(Ok(record)),
                Err(e) => return Some(Err(e)),
            }
        }
        None
    }

    /// [`Position::next_packet`], yielding nothing more after an error.
    fn next_checked<'a>(&mut self, window: &'a [u8]) -> Option<Result<Record<'a>, PcapngError>> {
        if self.failed {
            return None;
        }
        let item = self.next_packet(window);
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}

/// How many bytes the block that starts `rest` takes and whether it holds a packet (`current` is
/// the section's byte order), or `None` while `rest` holds less than its first 12 bytes. A length
/// that cannot be (under 12, or not a multiple of 4) or a section header of unknown byte order
/// counts as whatever `rest` holds: that block is an error however many bytes follow.
pub(crate) fn frame(rest: &[u8], current: ByteOrder) -> Option<(usize, bool)> {
    // The 12 bytes the parser reads before it judges a block (type, length, byte-order magic).
    rest.get(..12)?;
    let Ok(order) = block_order(rest, current) else {
        return Some((rest.len(), false));
    };
    let order = order?;
    let (kind, length) = (order.u32_at(rest, 0)?, order.u32_at(rest, 4)?);
    let packet = matches!(kind, BLOCK_EPB | BLOCK_SPB | BLOCK_OPB);
    if length < 12 || length % 4 != 0 {
        return Some((rest.len(), packet));
    }
    Some((length as usize, packet))
}

/// The byte order of the block that starts `rest`: a section header's own (from its magic; `Err`
/// with the magic found when it is neither order's), else `current`, the section's. `None` while
/// `rest` is too short to tell.
fn block_order(rest: &[u8], current: ByteOrder) -> Result<Option<ByteOrder>, u32> {
    let Some(kind_be) = ByteOrder::Big.u32_at(rest, 0) else {
        return Ok(None);
    };
    if kind_be != BLOCK_SHB {
        return Ok(Some(current));
    }
    match ByteOrder::Big.u32_at(rest, 8) {
        None => Ok(None),
        Some(BYTE_ORDER_MAGIC) => Ok(Some(ByteOrder::Big)),
        Some(0x4d3c_2b1a) => Ok(Some(ByteOrder::Little)),
        Some(found) => Err(found),
    }
}

/// The error for a body shorter than `needed`.
fn too_short(block: &Block<'_>, needed: u64) -> PcapngError {
    PcapngError::BodyTooShort {
        offset: block.offset,
        block_type: block.kind,
        needed,
        body_len: block.body.len(),
    }
}

/// A timestamp in ns since the epoch, with the interface's resolution and offset.
fn timestamp(iface: &Interface, ticks: u64) -> Option<u64> {
    let ns = i128::from(iface.ts_resolution.to_ns(ticks)?);
    let total = ns + i128::from(iface.ts_offset_s) * 1_000_000_000;
    u64::try_from(total).ok()
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Record<'a>, PcapngError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.at.next_checked(self.bytes)
    }
}

/// Reads every packet.
pub fn read_all(bytes: &[u8]) -> Result<Vec<Record<'_>>, PcapngError> {
    Reader::new(bytes)?.collect()
}

/// Writes a one-section, one-interface (Ethernet, nanosecond timestamps) pcapng file.
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    /// Writes the section header and interface description blocks.
    pub fn new(mut out: W) -> Result<Self, PcapngError> {
        let mut shb = Vec::with_capacity(28);
        // Version 1.0 is two little-endian u16s, 1 then 0: the same bytes as the u32 1.
        for v in [BLOCK_SHB, 28, BYTE_ORDER_MAGIC, 1] {
            shb.extend_from_slice(&v.to_le_bytes());
        }
        shb.extend_from_slice(&(-1i64).to_le_bytes());
        shb.extend_from_slice(&28u32.to_le_bytes());
        let mut idb = Vec::with_capacity(32);
        for v in [BLOCK_IDB, 32, 1, 0] {
            idb.extend_from_slice(&v.to_le_bytes());
        }
        idb.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0]); // if_tsresol = 10^-9
        idb.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
        idb.extend_from_slice(&32u32.to_le_bytes());
        out.write_all(&shb)?;
        out.write_all(&idb)?;
        Ok(Writer { out })
    }

    /// Appends an enhanced packet block for `data`, captured whole at `ts_ns`.
    pub fn write_packet(&mut self, ts_ns: u64, data: &[u8]) -> Result<(), PcapngError> {
        let too_long = PcapngError::PacketTooLongToWrite { len: data.len() };
        let len = u32::try_from(data.len()).map_err(|_| too_long)?;
        let padded = len.div_ceil(4).checked_mul(4);
        let total = padded
            .and_then(|p| p.checked_add(32))
            .ok_or(PcapngError::PacketTooLongToWrite { len: data.len() })?;
        let mut head = Vec::with_capacity(28);
        for v in [
            BLOCK_EPB,
            total,
            0,
            (ts_ns >> 32) as u32,
            ts_ns as u32,
            len,
            len,
        ] {
            head.extend_from_slice(&v.to_le_bytes());
        }
        self.out.write_all(&head)?;
        self.out.write_all(data)?;
        self.out
            .write_all(&[0u8; 3][..(total - 32 - len) as usize])?;
        self.out.write_all(&total.to_le_bytes())?;
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<(), PcapngError> {
        Ok(self.out.flush()?)
    }

    /// Returns the underlying writer (not flushed).
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
pub(crate) mod tests;
