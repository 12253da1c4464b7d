//! scenic-io: the file formats `scenicc sim` and `scenicc test` read and write, independent of the
//! interpreter (it depends on the IR core's types only).
//!
//! - [`pcap`]: classic libpcap capture files, read (both byte orders, micro- and nanosecond
//!   timestamps) and written (what `scenicc sim --out` produces).
//! - [`pcapng`]: pcapng capture files, read (multiple sections and interfaces, any timestamp
//!   resolution) and written (a minimal single-interface writer).
//! - [`open`] sniffs which of the two a byte buffer holds and returns one iterator, [`Packets`], over
//!   its [`Record`]s; [`read_all`] collects them.
//! - [`stream`]: the same records, and the same errors at the same offsets, read piece by piece
//!   from any `Read` through a small buffer, for captures too large to hold (`scenicc sim`).
//! - [`stf`]: p4c's STF packet tests plus scenicc's extensions (virtual time, congestion events,
//!   CSRs, stream words and DMA outputs), parsed into a typed AST, and the expected-packet matcher.
//! - [`entries`]: the table-entry JSON files of `scenicc sim --entries`.
//! - [`value`]: the textual values both of the last two share (integers, addresses, prefixes,
//!   ternary and range matches, quantities such as `55us`).
//!
//! Invariants shared by every reader here: no input makes them panic, allocate in proportion to a
//! length field rather than to the input, or loop forever; every malformed input is a structured
//! error (one `thiserror` enum per format) that says where (a byte offset, or a line and column)
//! and what. The capture readers borrow packet data from the input buffer (or the stream's), so a
//! capture is never copied packet by packet. The formats are documented for users in
//! `docs/testing.md`.

#![deny(missing_docs)]

pub mod entries;
pub mod pcap;
pub mod pcapng;
pub mod stf;
pub mod stream;
pub mod value;

#[cfg(test)]
pub(crate) mod testutil;

/// One captured packet, borrowed from the capture's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// Timestamp in nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// Length of the packet on the wire (may exceed `data.len()` when the capture truncated it).
    pub orig_len: u32,
    /// The captured bytes.
    pub data: &'a [u8],
    /// The link type (1 = Ethernet); see <https://www.tcpdump.org/linktypes.html>.
    pub link_type: u32,
    /// The capture interface: always 0 in pcap files; the interface index within its section in
    /// pcapng files.
    pub interface: u32,
}

/// The byte order of a capture file, as given by its magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl ByteOrder {
    /// Reads a `u16` at `offset`, or `None` past the end.
    pub(crate) fn u16_at(self, bytes: &[u8], offset: usize) -> Option<u16> {
        let b: [u8; 2] = bytes.get(offset..offset.checked_add(2)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u16::from_le_bytes(b),
            ByteOrder::Big => u16::from_be_bytes(b),
        })
    }

    /// Reads a `u64` at `offset`, or `None` past the end.
    pub(crate) fn u64_at(self, bytes: &[u8], offset: usize) -> Option<u64> {
        let b: [u8; 8] = bytes.get(offset..offset.checked_add(8)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u64::from_le_bytes(b),
            ByteOrder::Big => u64::from_be_bytes(b),
        })
    }

    /// Reads a `u32` at `offset`, or `None` past the end.
    pub(crate) fn u32_at(self, bytes: &[u8], offset: usize) -> Option<u32> {
        let b: [u8; 4] = bytes.get(offset..offset.checked_add(4)?)?.try_into().ok()?;
        Some(match self {
            ByteOrder::Little => u32::from_le_bytes(b),
            ByteOrder::Big => u32::from_be_bytes(b),
        })
    }
}

/// Which capture format a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Classic libpcap.
    Pcap,
    /// pcapng.
    Pcapng,
}

/// Tells the format from the first four bytes, or `None` if they are neither format's magic.
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    let magic: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    if u32::from_be_bytes(magic) == pcapng::BLOCK_SHB {
        return Some(Format::Pcapng);
    }
    let be = u32::from_be_bytes(magic);
    let le = u32::from_le_bytes(magic);
    [pcap::MAGIC_MICROS, pcap::MAGIC_NANOS]
        .iter()
        .any(|m| *m == be || *m == le)
        .then_some(Format::Pcap)
}

/// An error reading a capture of either format.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The buffer starts with neither format's magic number.
    #[error("not a pcap or pcapng file: it starts with {found}")]
    UnknownFormat {
        /// The first bytes, in hex, or a note that the file is empty or shorter than 4 bytes.
        found: String,
    },
    /// A pcap error.
    #[error(transparent)]
    Pcap(#[from] pcap::PcapError),
    /// A pcapng error.
    #[error(transparent)]
    Pcapng(#[from] pcapng::PcapngError),
    /// Reading the capture failed ([`stream::CaptureStream`] only).
    #[error("cannot read the capture: {0}")]
    Io(std::io::Error),
}

/// The records of a capture of either format, in file order. Created by [`open`].
///
/// After an error the iterator ends (it yields `None`).
#[derive(Clone, Debug)]
pub struct Packets<'a>(Inner<'a>);

#[derive(Clone, Debug)]
enum Inner<'a> {
    Pcap(pcap::Reader<'a>),
    Pcapng(pcapng::Reader<'a>),
}

impl Packets<'_> {
    /// The format of the capture.
    pub fn format(&self) -> Format {
        match &self.0 {
            Inner::Pcap(_) => Format::Pcap,
            Inner::Pcapng(_) => Format::Pcapng,
        }
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<Record<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            Inner::Pcap(r) => r.next().map(|r| r.map_err(CaptureError::from)),
            Inner::Pcapng(r) => r.next().map(|r| r.map_err(CaptureError::from)),
        }
    }
}

/// Opens a capture held in `bytes`, pcap or pcapng (told by [`sniff`]), checking its file header.
pub fn open(bytes: &[u8]) -> Result<Packets<'_>, CaptureError> {
    match sniff(bytes) {
        Some(Format::Pcap) => Ok(Packets(Inner::Pcap(pcap::Reader::new(bytes)?))),
        Some(Format::Pcapng) => Ok(Packets(Inner::Pcapng(pcapng::Reader::new(bytes)?))),
        None => Err(CaptureError::UnknownFormat {
            found: describe_start(bytes),
        }),
    }
}

/// Reads every record of a capture of either format.
pub fn read_all(bytes: &[u8]) -> Result<Vec<Record<'_>>, CaptureError> {
    open(bytes)?.collect()
}

/// The first (up to) four bytes in hex, for error messages.
fn describe_start(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "nothing (the file is empty)".to_string();
    }
    let hex: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let short = if bytes.len() < 4 {
        format!(" (only {} bytes)", bytes.len())
    } else {
        String::new()
    };
    format!("{}{short}", hex.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcap_file() -> Vec<u8> {
        let mut w = pcap::Writer::new(Vec::new()).unwrap();
        w.write_packet(1_000_000_000, &[1, 2, 3]).unwrap();
        w.write_packet(2_000_000_000, &[4, 5]).unwrap();
        w.into_inner()
    }

    fn pcapng_file() -> Vec<u8> {
        let mut w = pcapng::Writer::new(Vec::new()).unwrap();
        w.write_packet(1_000_000_001, &[1, 2, 3]).unwrap();
        w.write_packet(2_000_000_002, &[4, 5]).unwrap();
        w.into_inner()
    }

    #[test]
    fn sniffs_both_formats() {
        assert_eq!(sniff(&pcap_file()), Some(Format::Pcap));
        assert_eq!(sniff(&pcapng_file()), Some(Format::Pcapng));
        assert_eq!(sniff(&[0xd4, 0xc3, 0xb2, 0xa1]), Some(Format::Pcap));
        assert_eq!(sniff(&[0xa1, 0xb2, 0x3c, 0x4d]), Some(Format::Pcap));
        assert_eq!(sniff(b"GIF8"), None);
        assert_eq!(sniff(&[0x0a, 0x0d]), None);
    }

    #[test]
    fn open_reads_either_format_through_one_iterator() {
        let a = pcap_file();
        let b = pcapng_file();
        let pa = open(&a).unwrap();
        assert_eq!(pa.format(), Format::Pcap);
        let ra: Vec<_> = pa.map(Result::unwrap).collect();
        let rb = read_all(&b).unwrap();
        assert_eq!(ra.len(), 2);
        assert_eq!(rb.len(), 2);
        assert_eq!((ra[0].ts_ns, ra[0].data), (1_000_000_000, &[1u8, 2, 3][..]));
        assert_eq!((rb[1].ts_ns, rb[1].data), (2_000_000_002, &[4u8, 5][..]));
        assert!(ra.iter().chain(&rb).all(|r| r.link_type == 1));
    }

    #[test]
    fn unknown_format_says_what_the_file_starts_with() {
        let e = open(b"").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
        let e = open(b"\x7fELF....").unwrap_err().to_string();
        assert_eq!(e, "not a pcap or pcapng file: it starts with 7f 45 4c 46");
        let e = open(b"\xd4\xc3").unwrap_err().to_string();
        assert!(e.contains("only 2 bytes"), "{e}");
    }

    #[test]
    fn errors_pass_through_with_their_positions() {
        let mut a = pcap_file();
        a.truncate(a.len() - 1);
        let errs: Vec<_> = open(&a).unwrap().filter_map(Result::err).collect();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].to_string().contains("record 1"), "{}", errs[0]);
        let mut b = pcapng_file();
        b.truncate(b.len() - 1);
        assert!(read_all(&b).is_err());
    }
}
