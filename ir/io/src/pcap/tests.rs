//! Tests of the pcap reader and writer: hand-built files in both byte orders and resolutions, every
//! error, robustness against truncation and corruption, and interoperability with tcpdump.

use super::*;
use crate::testutil::{robustness, run_tool, temp_file};

/// A hand-built record: seconds, fraction, captured length, original length, data.
type Rec<'a> = (u32, u32, u32, u32, &'a [u8]);

fn build(order: ByteOrder, magic: u32, snaplen: u32, link: u32, records: &[Rec]) -> Vec<u8> {
    let w32 = |v: &mut Vec<u8>, x: u32| match order {
        ByteOrder::Little => v.extend_from_slice(&x.to_le_bytes()),
        ByteOrder::Big => v.extend_from_slice(&x.to_be_bytes()),
    };
    let mut v = Vec::new();
    w32(&mut v, magic);
    let version = match order {
        ByteOrder::Little => [2, 0, 4, 0],
        ByteOrder::Big => [0, 2, 0, 4],
    };
    v.extend_from_slice(&version);
    for x in [0, 0, snaplen, link] {
        w32(&mut v, x);
    }
    for &(sec, frac, incl, orig, data) in records {
        for x in [sec, frac, incl, orig] {
            w32(&mut v, x);
        }
        v.extend_from_slice(data);
    }
    v
}

const PKT_A: &[u8] = &[0xde, 0xad, 0xbe, 0xef];
const PKT_B: &[u8] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

fn sample(order: ByteOrder, magic: u32) -> Vec<u8> {
    build(
        order,
        magic,
        65535,
        1,
        &[(10, 20, 4, 60, PKT_A), (11, 999_999, 10, 10, PKT_B)],
    )
}

#[test]
fn reads_all_four_magics() {
    for (order, magic, unit) in [
        (ByteOrder::Little, MAGIC_MICROS, 1_000),
        (ByteOrder::Big, MAGIC_MICROS, 1_000),
        (ByteOrder::Little, MAGIC_NANOS, 1),
        (ByteOrder::Big, MAGIC_NANOS, 1),
    ] {
        let bytes = sample(order, magic);
        let (header, records) = read_all(&bytes).unwrap();
        assert_eq!(header.byte_order, order);
        assert_eq!(header.version, (2, 4));
        assert_eq!(header.snaplen, 65535);
        assert_eq!(header.link_type, LINKTYPE_ETHERNET);
        let res = if unit == 1 {
            Resolution::Nanos
        } else {
            Resolution::Micros
        };
        assert_eq!(header.resolution, res);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].ts_ns, 10_000_000_000 + 20 * unit);
        assert_eq!(records[0].orig_len, 60);
        assert_eq!(records[0].data, PKT_A);
        assert_eq!(records[1].ts_ns, 11_000_000_000 + 999_999 * unit);
        assert_eq!(records[1].data, PKT_B);
    }
}

#[test]
fn empty_capture_and_other_link_types() {
    let bytes = build(ByteOrder::Little, MAGIC_MICROS, 0, 0x0400_0065, &[]);
    let (header, records) = read_all(&bytes).unwrap();
    assert!(records.is_empty());
    assert_eq!(header.link_type, 0x65);
    assert_eq!(header.link_type_raw, 0x0400_0065);
    assert_eq!(header.snaplen, 0);
}

#[test]
fn snaplen_zero_means_no_limit_but_256_mib_still_applies() {
    let bytes = build(
        ByteOrder::Little,
        MAGIC_MICROS,
        0,
        1,
        &[(0, 0, 4, 4, PKT_A)],
    );
    assert_eq!(read_all(&bytes).unwrap().1.len(), 1);
    let huge = MAX_RECORD_LEN + 1;
    let bytes = build(
        ByteOrder::Big,
        MAGIC_MICROS,
        u32::MAX,
        1,
        &[(0, 0, huge, huge, &[])],
    );
    let err = read_all(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            PcapError::RecordTooLong {
                limit: MAX_RECORD_LEN,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn header_errors() {
    let err = Reader::new(&[0xd4, 0xc3, 0xb2]).unwrap_err();
    assert!(matches!(err, PcapError::TruncatedHeader { len: 3 }));
    assert_eq!(
        err.to_string(),
        "truncated pcap file: the global header needs 24 bytes, the file has 3"
    );
    let mut bytes = sample(ByteOrder::Little, MAGIC_MICROS);
    bytes[0] = 0xd5;
    let err = Reader::new(&bytes).unwrap_err();
    assert!(
        matches!(err, PcapError::BadMagic { magic: 0xd5c3_b2a1 }),
        "{err}"
    );
    assert!(err
        .to_string()
        .starts_with("not a pcap file: magic number d5c3b2a1 at offset 0"));
    let mut bytes = sample(ByteOrder::Little, MAGIC_MICROS);
    bytes[4] = 1;
    let err = Reader::new(&bytes).unwrap_err();
    assert!(
        matches!(err, PcapError::UnsupportedVersion { major: 1, minor: 4 }),
        "{err}"
    );
}

#[test]
fn record_errors_name_index_and_offset() {
    let bytes = sample(ByteOrder::Little, MAGIC_MICROS);
    // Second record header starts at 24 + 16 + 4 = 44.
    let errs: Vec<_> = Reader::new(&bytes[..50]).unwrap().collect();
    assert!(errs[0].is_ok());
    let err = errs[1].as_ref().unwrap_err();
    assert!(matches!(
        err,
        PcapError::TruncatedRecordHeader {
            index: 1,
            offset: 44,
            available: 6
        }
    ));
    assert_eq!(
        err.to_string(),
        "record 1 at offset 44: truncated record header (6 of 16 bytes)"
    );
    assert_eq!(errs.len(), 2, "the reader stops after an error");

    let err = read_all(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(matches!(
        err,
        PcapError::TruncatedData {
            index: 1,
            offset: 44,
            incl_len: 10,
            available: 7
        }
    ));
    assert_eq!(
        err.to_string(),
        "record 1 at offset 44: captured length 10 but only 7 bytes of data follow"
    );

    let bytes = build(ByteOrder::Big, MAGIC_NANOS, 8, 1, &[(0, 0, 10, 10, PKT_B)]);
    let err = read_all(&bytes).unwrap_err();
    assert!(matches!(
        err,
        PcapError::RecordTooLong {
            index: 0,
            offset: 24,
            incl_len: 10,
            limit: 8,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "record 0 at offset 24: captured length 10 exceeds the snapshot length (8)"
    );
}

#[test]
fn huge_lengths_do_not_allocate() {
    // A 4 GiB length with no data must fail fast, without allocating.
    let bytes = build(
        ByteOrder::Little,
        MAGIC_MICROS,
        u32::MAX,
        1,
        &[(0, 0, u32::MAX, 0, &[])],
    );
    assert!(matches!(
        read_all(&bytes),
        Err(PcapError::RecordTooLong { .. })
    ));
}

#[test]
fn writer_round_trips_in_both_resolutions() {
    for res in [Resolution::Micros, Resolution::Nanos] {
        let mut w = Writer::with_options(Vec::new(), res, LINKTYPE_ETHERNET).unwrap();
        w.write_packet(1_234_567_891, PKT_A).unwrap();
        w.write_packet(u64::from(u32::MAX) * 1_000_000_000, PKT_B)
            .unwrap();
        w.write_packet(5, &[]).unwrap();
        w.flush().unwrap();
        let bytes = w.into_inner();
        assert_eq!(
            &bytes[..4],
            if res == Resolution::Micros {
                [0xd4, 0xc3, 0xb2, 0xa1]
            } else {
                [0x4d, 0x3c, 0xb2, 0xa1]
            }
        );
        let (header, records) = read_all(&bytes).unwrap();
        assert_eq!(header.resolution, res);
        assert_eq!((header.snaplen, header.link_type), (DEFAULT_SNAPLEN, 1));
        let first = if res == Resolution::Micros {
            1_234_567_000
        } else {
            1_234_567_891
        };
        assert_eq!(records[0].ts_ns, first);
        assert_eq!(records[0].data, PKT_A);
        assert_eq!(records[0].orig_len, 4);
        assert_eq!(records[1].ts_ns, u64::from(u32::MAX) * 1_000_000_000);
        assert_eq!(records[2].data, &[] as &[u8]);
    }
}

#[test]
fn writer_refuses_what_pcap_cannot_hold() {
    let mut w = Writer::new(Vec::new()).unwrap();
    let big = vec![0u8; DEFAULT_SNAPLEN as usize + 1];
    let err = w.write_packet(0, &big).unwrap_err();
    assert!(matches!(
        err,
        PcapError::PacketTooLong {
            len: 262_145,
            snaplen: 262_144
        }
    ));
    let err = w
        .write_packet((u64::from(u32::MAX) + 1) * 1_000_000_000, PKT_A)
        .unwrap_err();
    assert!(
        matches!(err, PcapError::TimestampOutOfRange { .. }),
        "{err}"
    );
    let bytes = w.into_inner();
    let (_, records) = read_all(&bytes).unwrap();
    assert!(records.is_empty(), "failed writes leave nothing behind");
}

#[test]
fn iterates_a_large_capture_lazily() {
    let mut w = Writer::new(Vec::new()).unwrap();
    for i in 0..100_000u64 {
        w.write_packet(i * 1_000, &i.to_be_bytes()).unwrap();
    }
    let bytes = w.into_inner();
    let mut reader = Reader::new(&bytes).unwrap();
    let mut n = 0u64;
    for r in reader.by_ref() {
        let r = r.unwrap();
        assert_eq!(r.data, &n.to_be_bytes());
        assert_eq!(r.ts_ns, n * 1_000);
        n += 1;
    }
    assert_eq!(n, 100_000);
    assert_eq!(reader.offset(), bytes.len());
}

#[test]
fn robust_against_truncation_and_corruption() {
    for (order, magic) in [
        (ByteOrder::Little, MAGIC_MICROS),
        (ByteOrder::Big, MAGIC_NANOS),
    ] {
        let bytes = sample(order, magic);
        let runs = robustness(&bytes, 3000, |b| {
            if let Ok(reader) = Reader::new(b) {
                for r in reader.flatten() {
                    assert!(r.data.len() <= b.len());
                }
            }
        });
        assert!(runs > 3000);
    }
}

fn ethernet_frame(i: u8) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, i, 0x02, 0, 0, 0, 0, 0xee, 0x88, 0xb5];
    f.extend(std::iter::repeat_n(i, 46));
    f
}

#[test]
fn tcpdump_reads_what_the_writer_writes() {
    for (res, precision, stamp) in [
        (Resolution::Micros, "micro", "1700000000.123456"),
        (Resolution::Nanos, "nano", "1700000000.123456789"),
    ] {
        let mut w = Writer::with_options(Vec::new(), res, LINKTYPE_ETHERNET).unwrap();
        for i in 0..3u8 {
            w.write_packet(1_700_000_000_123_456_789 + u64::from(i), &ethernet_frame(i))
                .unwrap();
        }
        let path = temp_file(&format!("{precision}.pcap"), &w.into_inner());
        let p = format!("--time-stamp-precision={precision}");
        let args = [
            "-r".as_ref(),
            path.as_os_str(),
            "-nn".as_ref(),
            "-tt".as_ref(),
            "-c".as_ref(),
            "3".as_ref(),
            p.as_ref(),
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
            3,
            "{stdout}"
        );
        assert!(stdout.starts_with(stamp), "{stdout}");
        assert!(
            stdout.contains("02:00:00:00:00:ee > 02:00:00:00:00:01"),
            "{stdout}"
        );
    }
}

#[test]
fn tshark_reads_what_the_writer_writes() {
    let mut w = Writer::new(Vec::new()).unwrap();
    w.write_packet(0, &ethernet_frame(7)).unwrap();
    let path = temp_file("tshark.pcap", &w.into_inner());
    let out = run_tool("tshark", &["-r".as_ref(), path.as_os_str()]);
    let _ = std::fs::remove_file(&path);
    if let Some(out) = out {
        assert!(
            out.status.success(),
            "tshark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    }
}
