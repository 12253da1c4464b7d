//! Tests of the pcapng reader and writer: hand-built files (both byte orders, several sections and
//! interfaces, every timestamp resolution, all three packet blocks, unknown blocks), every error,
//! robustness against truncation and corruption, and interoperability with tcpdump and editcap.

use super::*;
use crate::testutil::{robustness, run_tool, temp_file};

/// Builds pcapng files block by block in one byte order.
struct Builder {
    order: ByteOrder,
    bytes: Vec<u8>,
}

impl Builder {
    fn new(order: ByteOrder) -> Builder {
        Builder {
            order,
            bytes: Vec::new(),
        }
    }

    fn u16s(&self, v: u16) -> [u8; 2] {
        match self.order {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }

    fn u32s(&self, v: u32) -> [u8; 4] {
        match self.order {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }

    /// Appends a block with the given body (padded to 4 bytes).
    fn block(mut self, kind: u32, body: &[u8]) -> Builder {
        let mut body = body.to_vec();
        body.resize(body.len().div_ceil(4) * 4, 0);
        let len = self.u32s(body.len() as u32 + 12);
        let kind = self.u32s(kind);
        self.bytes.extend_from_slice(&kind);
        self.bytes.extend_from_slice(&len);
        self.bytes.extend_from_slice(&body);
        self.bytes.extend_from_slice(&len);
        self
    }

    fn shb(self) -> Builder {
        let mut body = self.u32s(BYTE_ORDER_MAGIC).to_vec();
        body.extend_from_slice(&self.u16s(1));
        body.extend_from_slice(&self.u16s(0));
        body.extend_from_slice(&[0xff; 8]);
        self.block(BLOCK_SHB, &body)
    }

    /// An IDB with the given options (code, value).
    fn idb(self, link: u16, snaplen: u32, options: &[(u16, &[u8])]) -> Builder {
        let mut body = self.u16s(link).to_vec();
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&self.u32s(snaplen));
        for (code, value) in options {
            body.extend_from_slice(&self.u16s(*code));
            body.extend_from_slice(&self.u16s(value.len() as u16));
            body.extend_from_slice(value);
            body.resize(body.len().div_ceil(4) * 4, 0);
        }
        if !options.is_empty() {
            body.extend_from_slice(&[0; 4]);
        }
        self.block(BLOCK_IDB, &body)
    }

    fn epb(self, iface: u32, ticks: u64, data: &[u8], orig: u32) -> Builder {
        let mut body = Vec::new();
        for v in [
            iface,
            (ticks >> 32) as u32,
            ticks as u32,
            data.len() as u32,
            orig,
        ] {
            body.extend_from_slice(&self.u32s(v));
        }
        body.extend_from_slice(data);
        self.block(BLOCK_EPB, &body)
    }

    fn spb(self, orig: u32, data: &[u8]) -> Builder {
        let mut body = self.u32s(orig).to_vec();
        body.extend_from_slice(data);
        self.block(BLOCK_SPB, &body)
    }

    fn opb(self, iface: u16, ticks: u64, data: &[u8]) -> Builder {
        let mut body = self.u16s(iface).to_vec();
        body.extend_from_slice(&[0, 0]);
        for v in [
            (ticks >> 32) as u32,
            ticks as u32,
            data.len() as u32,
            data.len() as u32,
        ] {
            body.extend_from_slice(&self.u32s(v));
        }
        body.extend_from_slice(data);
        self.block(BLOCK_OPB, &body)
    }
}

/// A two-section file: little-endian (µs and ms interfaces, all packet blocks, an unknown block),
/// then big-endian (binary resolution with an offset).
pub(crate) fn rich_file() -> Vec<u8> {
    let le = Builder::new(ByteOrder::Little)
        .shb()
        .idb(1, 0, &[])
        .idb(101, 1500, &[(2, b"eth0"), (OPT_IF_TSRESOL, &[3])])
        .block(0x0bad, &[1, 2, 3, 4, 5])
        .epb(0, 1_500_000, &[1, 2, 3], 60)
        .epb(1, 2_500, &[4, 5, 6, 7, 8], 5)
        .spb(3, &[9, 9, 9])
        .opb(1, 7, &[0xaa]);
    let be = Builder::new(ByteOrder::Big)
        .shb()
        .idb(
            1,
            64,
            &[
                (OPT_IF_TSRESOL, &[0x80 | 10]),
                (OPT_IF_TSOFFSET, &100i64.to_be_bytes()),
            ],
        )
        .epb(0, 3 * 1024 + 512, &[0xbb; 64], 64);
    [le.bytes, be.bytes].concat()
}

#[test]
fn reads_sections_interfaces_and_all_packet_blocks() {
    let bytes = rich_file();
    let records = read_all(&bytes).unwrap();
    let summary: Vec<_> = records
        .iter()
        .map(|r| (r.ts_ns, r.orig_len, r.data.len(), r.link_type, r.interface))
        .collect();
    assert_eq!(
        summary,
        vec![
            (1_500_000_000, 60, 3, 1, 0),
            (2_500_000_000, 5, 5, 101, 1),
            (2_500_000_000, 3, 3, 1, 0), // SPB: previous timestamp, interface 0
            (7_000_000, 1, 1, 101, 1),
            (100_000_000_000 + 3_500_000_000, 64, 64, 1, 0),
        ]
    );
    assert_eq!(records[1].data, &[4, 5, 6, 7, 8]);
    let mut reader = Reader::new(&bytes).unwrap();
    assert_eq!(reader.byte_order(), ByteOrder::Little);
    for _ in reader.by_ref() {}
    assert_eq!(reader.sections(), 2);
    assert_eq!(reader.byte_order(), ByteOrder::Big);
    assert_eq!(reader.interfaces().len(), 1);
    assert_eq!(
        reader.interfaces()[0].ts_resolution,
        TsResolution::Binary(10)
    );
    assert_eq!(reader.interfaces()[0].ts_offset_s, 100);
}

#[test]
fn timestamp_resolutions() {
    assert_eq!(TsResolution::from_option(6), TsResolution::MICROS);
    assert_eq!(TsResolution::Decimal(9).to_ns(17), Some(17));
    assert_eq!(TsResolution::Decimal(0).to_ns(17), Some(17_000_000_000));
    assert_eq!(TsResolution::Decimal(12).to_ns(17_999), Some(17));
    assert_eq!(TsResolution::Decimal(127).to_ns(u64::MAX), Some(0));
    assert_eq!(TsResolution::Decimal(0).to_ns(u64::MAX), None);
    assert_eq!(TsResolution::Binary(1).to_ns(3), Some(1_500_000_000));
    assert_eq!(TsResolution::Binary(30).to_ns(1 << 30), Some(1_000_000_000));
    assert_eq!(TsResolution::Binary(127).to_ns(u64::MAX), Some(0));
    assert_eq!(TsResolution::Binary(0).to_ns(u64::MAX), None);
}

#[test]
fn negative_offsets_and_overflow_are_errors_not_wraps() {
    let neg = (-5i64).to_le_bytes();
    let bytes = Builder::new(ByteOrder::Little)
        .shb()
        .idb(1, 0, &[(OPT_IF_TSOFFSET, &neg)])
        .epb(0, 6_000_000, &[], 0)
        .epb(0, 4_000_000, &[], 0)
        .bytes;
    let mut reader = Reader::new(&bytes).unwrap();
    assert_eq!(reader.next().unwrap().unwrap().ts_ns, 1_000_000_000);
    let err = reader.next().unwrap().unwrap_err();
    assert!(
        matches!(err, PcapngError::TimestampOutOfRange { offset: 96 }),
        "{err}"
    );
    assert!(reader.next().is_none());
}

#[test]
fn header_errors() {
    assert!(matches!(
        Reader::new(b"\xd4\xc3\xb2\xa1xxxxxxxxxxxxxxxxxxxx"),
        Err(PcapngError::NotPcapng { found: 0xd4c3_b2a1 })
    ));
    assert!(matches!(
        Reader::new(&[0x0a, 0x0d]),
        Err(PcapngError::TruncatedBlockHeader { offset: 0, .. })
    ));
    let mut bytes = Builder::new(ByteOrder::Little).shb().bytes;
    bytes[8] = 0x4e;
    let err = Reader::new(&bytes).unwrap_err();
    assert!(matches!(
        err,
        PcapngError::BadByteOrderMagic {
            offset: 0,
            found: 0x4e3c_2b1a
        }
    ));
    let mut bytes = Builder::new(ByteOrder::Big).shb().bytes;
    bytes[13] = 2;
    let err = Reader::new(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "offset 0: unsupported pcapng version 2.0 (expected 1.x)"
    );
}

/// The error of the first failing packet of a file.
fn first_error(bytes: &[u8]) -> PcapngError {
    match Reader::new(bytes) {
        Err(e) => e,
        Ok(r) => r.filter_map(Result::err).next().expect("an error"),
    }
}

/// Offset of the EPB in the file [`corrupted`] builds.
const EPB_AT: usize = 48;

/// The first error of a file (SHB, IDB with snaplen 8, a 4-byte EPB at [`EPB_AT`]) once `f` has
/// corrupted it.
fn corrupted(f: impl Fn(&mut Vec<u8>)) -> PcapngError {
    let mut v = Builder::new(ByteOrder::Little)
        .shb()
        .idb(1, 8, &[])
        .epb(0, 0, &[1, 2, 3, 4], 4)
        .bytes;
    assert_eq!(
        Builder::new(ByteOrder::Little)
            .shb()
            .idb(1, 8, &[])
            .bytes
            .len(),
        EPB_AT
    );
    f(&mut v);
    first_error(&v)
}

#[test]
fn block_errors_name_their_offset() {
    let at = EPB_AT;
    let e = corrupted(|v| v[at + 4] = 13);
    assert!(
        matches!(
            e,
            PcapngError::BadBlockLength {
                offset: 48,
                length: 13,
                ..
            }
        ),
        "{e}"
    );
    let e = corrupted(|v| v[at + 4] = 8);
    assert!(
        matches!(
            e,
            PcapngError::BadBlockLength {
                offset: 48,
                length: 8,
                ..
            }
        ),
        "{e}"
    );
    let e = corrupted(|v| v.truncate(v.len() - 1));
    assert!(
        matches!(
            e,
            PcapngError::TruncatedBlock {
                offset: 48,
                length: 36,
                available: 35,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "offset 48: block of type 0x6 has length 36 but only 35 bytes remain"
    );
}

#[test]
fn block_errors_name_their_offset_too() {
    let at = EPB_AT;
    let e = corrupted(|v| v.truncate(at + 5));
    assert!(
        matches!(
            e,
            PcapngError::TruncatedBlockHeader {
                offset: 48,
                available: 5,
                ..
            }
        ),
        "{e}"
    );
    let e = corrupted(|v| {
        let n = v.len();
        v[n - 4] = 40;
    });
    assert!(
        matches!(
            e,
            PcapngError::LengthMismatch {
                leading: 36,
                trailing: 40,
                ..
            }
        ),
        "{e}"
    );
    let e = corrupted(|v| v[at + 8] = 1);
    assert!(
        matches!(
            e,
            PcapngError::UnknownInterface {
                interface: 1,
                count: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = corrupted(|v| v[at + 20] = 9);
    assert!(
        matches!(
            e,
            PcapngError::PacketTooLong {
                caplen: 9,
                limit: 8,
                index: 0,
                ..
            }
        ),
        "{e}"
    );
    let e = corrupted(|v| v[at + 20] = 5);
    assert!(
        matches!(
            e,
            PcapngError::BodyTooShort {
                needed: 25,
                body_len: 24,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn option_and_short_block_errors() {
    let bytes = Builder::new(ByteOrder::Big)
        .shb()
        .idb(1, 0, &[(OPT_IF_TSRESOL, &[6, 6])])
        .bytes;
    let e = first_error(&bytes);
    assert!(
        matches!(
            e,
            PcapngError::BadOption {
                offset: 44,
                code: 9,
                length: 2
            }
        ),
        "{e}"
    );
    let mut bytes = Builder::new(ByteOrder::Big)
        .shb()
        .idb(1, 0, &[(2, b"abcd")])
        .bytes;
    bytes[46 + 1] = 200; // option length beyond the block
    let e = first_error(&bytes);
    assert!(
        matches!(e, PcapngError::BadOption { length: 200, .. }),
        "{e}"
    );
    let bytes = Builder::new(ByteOrder::Big)
        .shb()
        .idb(1, 0, &[])
        .block(BLOCK_EPB, &[0; 8])
        .bytes;
    assert!(matches!(
        first_error(&bytes),
        PcapngError::BodyTooShort { needed: 20, .. }
    ));
    let bytes = Builder::new(ByteOrder::Big)
        .shb()
        .block(BLOCK_IDB, &[0; 4])
        .bytes;
    assert!(matches!(
        first_error(&bytes),
        PcapngError::BodyTooShort { needed: 8, .. }
    ));
    let bytes = Builder::new(ByteOrder::Big)
        .shb()
        .spb(4, &[1, 2, 3, 4])
        .bytes;
    assert!(matches!(
        first_error(&bytes),
        PcapngError::UnknownInterface {
            interface: 0,
            count: 0,
            ..
        }
    ));
}

#[test]
fn spb_is_cut_to_snaplen_and_block() {
    let bytes = Builder::new(ByteOrder::Little)
        .shb()
        .idb(1, 2, &[])
        .spb(100, &[1, 2, 3])
        .bytes;
    let r = read_all(&bytes).unwrap();
    assert_eq!((r[0].orig_len, r[0].data), (100, &[1u8, 2][..]));
    let bytes = Builder::new(ByteOrder::Little)
        .shb()
        .idb(1, 0, &[])
        .spb(100, &[1, 2, 3])
        .bytes;
    assert_eq!(
        read_all(&bytes).unwrap()[0].data,
        &[1, 2, 3, 0],
        "padding counts as data"
    );
}

#[test]
fn writer_round_trips() {
    let mut w = Writer::new(Vec::new()).unwrap();
    w.write_packet(1_700_000_000_123_456_789, &[1, 2, 3, 4, 5])
        .unwrap();
    w.write_packet(u64::MAX, &[]).unwrap();
    w.flush().unwrap();
    let bytes = w.into_inner();
    let r = read_all(&bytes).unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].ts_ns, r[0].data, r[0].orig_len),
        (1_700_000_000_123_456_789, &[1u8, 2, 3, 4, 5][..], 5)
    );
    assert_eq!(r[1].ts_ns, u64::MAX);
    let reader = Reader::new(&bytes).unwrap();
    assert!(
        reader.interfaces().is_empty(),
        "the IDB is read with the first packet"
    );
}

#[test]
fn robust_against_truncation_and_corruption() {
    let runs = robustness(&rich_file(), 5000, |b| {
        if let Ok(reader) = Reader::new(b) {
            for r in reader.flatten() {
                assert!(r.data.len() <= b.len());
            }
        }
    });
    assert!(runs > 5000);
}

fn ethernet_frame(i: u8) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, i, 0x02, 0, 0, 0, 0, 0xee, 0x88, 0xb5];
    f.extend(std::iter::repeat_n(i, 46));
    f
}

#[test]
fn tcpdump_reads_what_the_writer_writes() {
    let mut w = Writer::new(Vec::new()).unwrap();
    for i in 0..4u8 {
        w.write_packet(1_700_000_000_000_000_007 + u64::from(i), &ethernet_frame(i))
            .unwrap();
    }
    let path = temp_file("writer.pcapng", &w.into_inner());
    let args = [
        "-r".as_ref(),
        path.as_os_str(),
        "-nn".as_ref(),
        "-tt".as_ref(),
        "--time-stamp-precision=nano".as_ref(),
    ];
    let out = run_tool("tcpdump", &args);
    let _ = std::fs::remove_file(&path);
    let Some(out) = out else { return };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tcpdump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout
            .lines()
            .filter(|l| !l.starts_with(char::is_whitespace))
            .count(),
        4,
        "{stdout}"
    );
    assert!(
        stdout.starts_with("1700000000.000000007 02:00:00:00:00:ee > 02:00:00:00:00:00"),
        "{stdout}"
    );
}

#[test]
fn tcpdump_reads_hand_built_big_endian_files_like_we_do() {
    let bytes = Builder::new(ByteOrder::Big)
        .shb()
        .idb(1, 0, &[(OPT_IF_TSRESOL, &[3])])
        .block(0x0bad, &[1, 2, 3, 4])
        .epb(0, 1_700_000_000_250, &ethernet_frame(1), 60)
        .bytes;
    assert_eq!(
        read_all(&bytes).unwrap()[0].ts_ns,
        1_700_000_000_250_000_000
    );
    let path = temp_file("be.pcapng", &bytes);
    let out = run_tool(
        "tcpdump",
        &[
            "-r".as_ref(),
            path.as_os_str(),
            "-nn".as_ref(),
            "-tt".as_ref(),
        ],
    );
    let _ = std::fs::remove_file(&path);
    let Some(out) = out else { return };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tcpdump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("1700000000.250000 "), "{stdout}");
}

#[test]
fn reads_what_editcap_converts() {
    let mut w = crate::pcap::Writer::new(Vec::new()).unwrap();
    for i in 0..3u8 {
        w.write_packet(1_000_000_000 * u64::from(i) + 5_000, &ethernet_frame(i))
            .unwrap();
    }
    let src = temp_file("editcap-in.pcap", &w.into_inner());
    let dst = src.with_extension("pcapng");
    let args = [
        "-F".as_ref(),
        "pcapng".as_ref(),
        src.as_os_str(),
        dst.as_os_str(),
    ];
    let out = run_tool("editcap", &args);
    let converted = std::fs::read(&dst);
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&dst);
    let Some(out) = out else { return };
    assert!(
        out.status.success(),
        "editcap failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let converted = converted.unwrap();
    let r = read_all(&converted).unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!(r[2].ts_ns, 2_000_005_000);
    assert_eq!(r[1].data, &ethernet_frame(1)[..]);
}
