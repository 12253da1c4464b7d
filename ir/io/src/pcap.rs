//! Classic libpcap capture files: a zero-copy [`Reader`] over a byte buffer and a [`Writer`].
//!
//! Format: the tcpdump `pcap-savefile(5)` manual page and the IETF draft
//! `draft-ietf-opsawg-pcap` ("PCAP Capture File Format"). A file is a 24-byte global header
//! (magic, version 2.4, time zone offset, significant figures, snapshot length, link type) followed
//! by records, each a 16-byte header (seconds, sub-second fraction, captured length, original length)
//! and the captured bytes. The magic number gives the byte order of every other field and the unit
//! of the fraction: `a1b2c3d4` microseconds, `a1b23c4d` nanoseconds (read either way round).
//!
//! Reading ([`Reader::new`], then iterate; or [`read_all`]): timestamps become nanoseconds since the
//! epoch (`u64`; a 32-bit second count cannot overflow it). The link type is reported in [`Header`],
//! never refused (1 is Ethernet). A record whose captured length exceeds the snapshot length (when
//! that is non-zero) or [`MAX_RECORD_LEN`] is an error, as is any truncation; each error names the
//! record's index and byte offset. A sub-second fraction out of range (≥ 10^6 µs or 10^9 ns) is
//! accepted and simply added, as libpcap does. Records borrow their bytes from the input, and the
//! reader allocates nothing, so a large capture is held once.
//!
//! Writing ([`Writer`]): little-endian, version 2.4, zone 0, snapshot length [`DEFAULT_SNAPLEN`],
//! link type Ethernet unless chosen otherwise; microsecond timestamps (magic `a1b2c3d4`, the
//! fraction truncated) or nanosecond ones. Packets are never silently truncated: a packet longer than
//! the snapshot length, or a timestamp past 2106 (32-bit seconds), is an error.

use super::{ByteOrder, Record};
use std::io::Write;

/// Magic number of microsecond-resolution files.
pub const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
/// Magic number of nanosecond-resolution files.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Link type of Ethernet frames.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The largest captured length read, whatever the snapshot length says (256 MiB).
pub const MAX_RECORD_LEN: u32 = 256 << 20;
/// The snapshot length written by [`Writer`] (as tcpdump's default).
pub const DEFAULT_SNAPLEN: u32 = 262_144;
/// Size of the global header.
pub const HEADER_LEN: usize = 24;
/// Size of a record header.
pub const RECORD_HEADER_LEN: usize = 16;

/// The unit of the sub-second part of timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// Microseconds (magic `a1b2c3d4`).
    Micros,
    /// Nanoseconds (magic `a1b23c4d`).
    Nanos,
}

/// The global header of a pcap file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// Byte order of the file.
    pub byte_order: ByteOrder,
    /// Timestamp resolution.
    pub resolution: Resolution,
    /// Major and minor version (2 and 4 in every current file).
    pub version: (u16, u16),
    /// Offset of local time from UTC, in seconds (0 in practice; not applied to timestamps).
    pub thiszone: i32,
    /// Timestamp accuracy (0 in practice).
    pub sigfigs: u32,
    /// The snapshot length: the most bytes captured per packet (0: no limit).
    pub snaplen: u32,
    /// The link type: the low 16 bits of the header's link-type field (1 = Ethernet).
    pub link_type: u32,
    /// The link-type field as written (its upper bits may describe a frame check sequence).
    pub link_type_raw: u32,
}

/// An error reading or writing a pcap file.
#[derive(Debug, thiserror::Error)]
pub enum PcapError {
    /// The file is shorter than the 24-byte global header.
    #[error("truncated pcap file: the global header needs 24 bytes, the file has {len}")]
    TruncatedHeader {
        /// Length of the file.
        len: usize,
    },
    /// The first four bytes are not a pcap magic number.
    #[error("not a pcap file: magic number {magic:08x} at offset 0 (expected a1b2c3d4 or a1b23c4d, in either byte order)")]
    BadMagic {
        /// The first four bytes, read big-endian.
        magic: u32,
    },
    /// The major version is not 2.
    #[error("unsupported pcap version {major}.{minor} at offset 4 (expected 2.x)")]
    UnsupportedVersion {
        /// Major version.
        major: u16,
        /// Minor version.
        minor: u16,
    },
    /// The file ends inside a record header.
    #[error(
        "record {index} at offset {offset}: truncated record header ({available} of 16 bytes)"
    )]
    TruncatedRecordHeader {
        /// Index of the record (0-based).
        index: u64,
        /// Byte offset of its header.
        offset: usize,
        /// Bytes present.
        available: usize,
    },
    /// A record's captured length exceeds the snapshot length or [`MAX_RECORD_LEN`].
    #[error("record {index} at offset {offset}: captured length {incl_len} exceeds the {what} ({limit})")]
    RecordTooLong {
        /// Index of the record (0-based).
        index: u64,
        /// Byte offset of its header.
        offset: usize,
        /// Its captured length.
        incl_len: u32,
        /// The limit exceeded.
        limit: u32,
        /// Which limit: "snapshot length" or "256 MiB record limit".
        what: &'static str,
    },
    /// The file ends inside a record's data.
    #[error("record {index} at offset {offset}: captured length {incl_len} but only {available} bytes of data follow")]
    TruncatedData {
        /// Index of the record (0-based).
        index: u64,
        /// Byte offset of its header.
        offset: usize,
        /// Its captured length.
        incl_len: u32,
        /// Bytes present after the header.
        available: usize,
    },
    /// [`Writer::write_packet`] got a packet longer than the snapshot length.
    #[error("cannot write a packet of {len} bytes: the snapshot length is {snaplen}")]
    PacketTooLong {
        /// Length of the packet.
        len: usize,
        /// The writer's snapshot length.
        snaplen: u32,
    },
    /// [`Writer::write_packet`] got a timestamp whose seconds do not fit in 32 bits.
    #[error("cannot write timestamp {ts_ns} ns: pcap stores seconds in 32 bits (until 2106)")]
    TimestampOutOfRange {
        /// The timestamp.
        ts_ns: u64,
    },
    /// Writing failed.
    #[error("cannot write the pcap file: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads and checks the global header.
pub fn read_header(bytes: &[u8]) -> Result<Header, PcapError> {
    let head = bytes
        .get(..HEADER_LEN)
        .ok_or(PcapError::TruncatedHeader { len: bytes.len() })?;
    let raw = [head[0], head[1], head[2], head[3]];
    let (byte_order, resolution) = match (u32::from_be_bytes(raw), u32::from_le_bytes(raw)) {
        (MAGIC_MICROS, _) => (ByteOrder::Big, Resolution::Micros),
        (MAGIC_NANOS, _) => (ByteOrder::Big, Resolution::Nanos),
        (_, MAGIC_MICROS) => (ByteOrder::Little, Resolution::Micros),
        (_, MAGIC_NANOS) => (ByteOrder::Little, Resolution::Nanos),
        (magic, _) => return Err(PcapError::BadMagic { magic }),
    };
    let o = byte_order;
    let u16_at = |at| o.u16_at(head, at).unwrap_or(0);
    let u32_at = |at| o.u32_at(head, at).unwrap_or(0);
    let (major, minor) = (u16_at(4), u16_at(6));
    if major != 2 {
        return Err(PcapError::UnsupportedVersion { major, minor });
    }
    let link_type_raw = u32_at(20);
    Ok(Header {
        byte_order,
        resolution,
        version: (major, minor),
        thiszone: u32_at(8) as i32,
        sigfigs: u32_at(12),
        snaplen: u32_at(16),
        link_type: link_type_raw & 0xffff,
        link_type_raw,
    })
}

/// An iterator over the records of a pcap file held in memory. After an error it yields `None`.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: Position,
    failed: bool,
}

impl<'a> Reader<'a> {
    /// Checks the global header and positions the reader at the first record.
    pub fn new(bytes: &'a [u8]) -> Result<Self, PcapError> {
        Ok(Reader {
            at: Position::new(read_header(bytes)?),
            bytes,
            failed: false,
        })
    }

    /// The global header.
    pub fn header(&self) -> &Header {
        &self.at.header
    }

    /// The byte offset of the next record.
    pub fn offset(&self) -> usize {
        self.at.offset
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Record<'a>, PcapError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.at.offset >= self.bytes.len() {
            return None;
        }
        let item = self.at.next_record(self.bytes, 0);
        self.failed = item.is_err();
        Some(item)
    }
}

/// Where a reader is in a pcap file: everything but the bytes, so that one parser serves a file
/// held whole ([`Reader`], `base` 0) and one read piece by piece (`io::stream`), which passes the
/// bytes it holds, `window`, starting at file offset `base`. Offsets are the file's: errors say
/// where in the file, whichever way it was read.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    pub(crate) header: Header,
    pub(crate) offset: usize,
    index: u64,
}

impl Position {
    /// At the first record of a file with `header`.
    pub(crate) fn new(header: Header) -> Position {
        Position {
            header,
            offset: HEADER_LEN,
            index: 0,
        }
    }

    /// How many bytes the next record takes, given `rest`, the file's bytes from the current
    /// offset, or `None` while `rest` does not hold its whole header. A length over the limit counts as
    /// whatever `rest` holds: that record is an error however many bytes follow.
    pub(crate) fn frame(&self, rest: &[u8]) -> Option<usize> {
        // The whole record header first: the parser reads all of it before it judges the length.
        let head = rest.get(..RECORD_HEADER_LEN)?;
        let incl_len = self.header.byte_order.u32_at(head, 8)?;
        if incl_len > self.limit().0 {
            return Some(rest.len());
        }
        Some(RECORD_HEADER_LEN + incl_len as usize)
    }

    /// Parses the record at the current offset and moves past it.
    pub(crate) fn next_record<'a>(
        &mut self,
        window: &'a [u8],
        base: usize,
    ) -> Result<Record<'a>, PcapError> {
        let (record, len) = self.record(window, base)?;
        self.offset += len;
        self.index += 1;
        Ok(record)
    }

    /// The largest captured length read, and what sets it.
    fn limit(&self) -> (u32, &'static str) {
        let snaplen = self.header.snaplen;
        if snaplen != 0 && snaplen < MAX_RECORD_LEN {
            (snaplen, "snapshot length")
        } else {
            (MAX_RECORD_LEN, "256 MiB record limit")
        }
    }

    /// Parses the record at the current offset: the record and the bytes it takes.
    fn record<'a>(&self, window: &'a [u8], base: usize) -> Result<(Record<'a>, usize), PcapError> {
        let (index, offset) = (self.index, self.offset);
        let rest = offset
            .checked_sub(base)
            .and_then(|i| window.get(i..))
            .unwrap_or_default();
        if rest.len() < RECORD_HEADER_LEN {
            return Err(PcapError::TruncatedRecordHeader {
                index,
                offset,
                available: rest.len(),
            });
        }
        let o = self.header.byte_order;
        let field = |i: usize| o.u32_at(rest, 4 * i).unwrap_or(0);
        let (sec, frac, incl_len, orig_len) = (field(0), field(1), field(2), field(3));
        let (limit, what) = self.limit();
        if incl_len > limit {
            return Err(PcapError::RecordTooLong {
                index,
                offset,
                incl_len,
                limit,
                what,
            });
        }
        let data =
            rest[RECORD_HEADER_LEN..]
                .get(..incl_len as usize)
                .ok_or(PcapError::TruncatedData {
                    index,
                    offset,
                    incl_len,
                    available: rest.len() - RECORD_HEADER_LEN,
                })?;
        let frac_ns = match self.header.resolution {
            Resolution::Micros => u64::from(frac) * 1_000,
            Resolution::Nanos => u64::from(frac),
        };
        let record = Record {
            ts_ns: u64::from(sec) * 1_000_000_000 + frac_ns,
            orig_len,
            data,
            link_type: self.header.link_type,
            interface: 0,
        };
        Ok((record, RECORD_HEADER_LEN + incl_len as usize))
    }
}

/// Reads the header and every record.
pub fn read_all(bytes: &[u8]) -> Result<(Header, Vec<Record<'_>>), PcapError> {
    let reader = Reader::new(bytes)?;
    let header = *reader.header();
    Ok((header, reader.collect::<Result<_, _>>()?))
}

/// Writes a pcap file record by record to any [`Write`] (wrap files in a `BufWriter`).
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: W,
    resolution: Resolution,
    snaplen: u32,
}

impl<W: Write> Writer<W> {
    /// Writes the global header of a microsecond-resolution Ethernet capture.
    pub fn new(out: W) -> Result<Self, PcapError> {
        Self::with_options(out, Resolution::Micros, LINKTYPE_ETHERNET)
    }

    /// Writes the global header of a capture with the given resolution and link type.
    pub fn with_options(
        mut out: W,
        resolution: Resolution,
        link_type: u32,
    ) -> Result<Self, PcapError> {
        let magic = match resolution {
            Resolution::Micros => MAGIC_MICROS,
            Resolution::Nanos => MAGIC_NANOS,
        };
        let mut head = Vec::with_capacity(HEADER_LEN);
        head.extend_from_slice(&magic.to_le_bytes());
        head.extend_from_slice(&2u16.to_le_bytes());
        head.extend_from_slice(&4u16.to_le_bytes());
        head.extend_from_slice(&0u32.to_le_bytes());
        head.extend_from_slice(&0u32.to_le_bytes());
        head.extend_from_slice(&DEFAULT_SNAPLEN.to_le_bytes());
        head.extend_from_slice(&link_type.to_le_bytes());
        out.write_all(&head)?;
        Ok(Writer {
            out,
            resolution,
            snaplen: DEFAULT_SNAPLEN,
        })
    }

    /// Appends a packet captured whole (original length = captured length) at `ts_ns` nanoseconds
    /// since the epoch (truncated to microseconds in a microsecond file).
    pub fn write_packet(&mut self, ts_ns: u64, data: &[u8]) -> Result<(), PcapError> {
        let len = u32::try_from(data.len())
            .ok()
            .filter(|n| *n <= self.snaplen)
            .ok_or(PcapError::PacketTooLong {
                len: data.len(),
                snaplen: self.snaplen,
            })?;
        let sec = u32::try_from(ts_ns / 1_000_000_000)
            .map_err(|_| PcapError::TimestampOutOfRange { ts_ns })?;
        let ns = (ts_ns % 1_000_000_000) as u32;
        let frac = match self.resolution {
            Resolution::Micros => ns / 1_000,
            Resolution::Nanos => ns,
        };
        let mut head = [0u8; RECORD_HEADER_LEN];
        for (i, v) in [sec, frac, len, len].into_iter().enumerate() {
            head[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.out.write_all(&head)?;
        self.out.write_all(data)?;
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<(), PcapError> {
        Ok(self.out.flush()?)
    }

    /// Returns the underlying writer (not flushed).
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests;
