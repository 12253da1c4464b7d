//! Tests of reading captures piece by piece: the stream must agree with the in-memory readers on
//! every record and every error (message and offset) whatever the buffer size and however the
//! source splits its reads, and it must end, not hang or panic, on read errors.

use super::*;
use crate::testutil::{robustness, Rng};
use crate::{open, pcapng::tests::rich_file};
use std::io::{Error, ErrorKind};

/// A source that hands out at most `step` bytes per read (varying with a seed when `step` is 0),
/// reports an `Interrupted` error before every third read, and fails for good with `fail_at`
/// bytes handed out, if given.
struct Trickle<'a> {
    bytes: &'a [u8],
    rng: Rng,
    step: usize,
    reads: usize,
    fail_at: Option<usize>,
    given: usize,
}

impl<'a> Trickle<'a> {
    fn new(bytes: &'a [u8], step: usize) -> Trickle<'a> {
        Trickle {
            bytes,
            rng: Rng::new(step as u64 + 1),
            step,
            reads: 0,
            fail_at: None,
            given: 0,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.reads += 1;
        if self.reads % 3 == 0 {
            return Err(Error::from(ErrorKind::Interrupted));
        }
        if self.fail_at.is_some_and(|at| self.given >= at) {
            return Err(Error::other("the disk went away"));
        }
        let step = if self.step == 0 {
            1 + self.rng.below(9)
        } else {
            self.step
        };
        let n = step.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        self.given += n;
        Ok(n)
    }
}

/// What the in-memory reader makes of `bytes`: each record's timestamp, lengths, link type,
/// interface and data, or the error, as text.
fn in_memory(bytes: &[u8]) -> Vec<String> {
    match open(bytes) {
        Ok(packets) => packets.map(|r| describe(r.as_ref())).collect(),
        Err(e) => vec![e.to_string()],
    }
}

/// The same, read from `source` with a buffer of `capacity` bytes.
fn streamed(source: impl Read, capacity: usize) -> Vec<String> {
    let mut stream = match CaptureStream::with_buffer(source, capacity) {
        Ok(s) => s,
        Err(e) => return vec![e.to_string()],
    };
    let mut seen = Vec::new();
    while let Some(r) = stream.next() {
        seen.push(describe(r.as_ref()));
    }
    assert!(stream.next().is_none(), "nothing after the end or an error");
    seen
}

fn describe(r: Result<&Record<'_>, &CaptureError>) -> String {
    match r {
        Ok(r) => format!(
            "{} {} {} {} {:?}",
            r.ts_ns, r.orig_len, r.link_type, r.interface, r.data
        ),
        Err(e) => e.to_string(),
    }
}

fn pcap_file(n: usize) -> Vec<u8> {
    let mut w = pcap::Writer::with_options(Vec::new(), pcap::Resolution::Nanos, 1).unwrap();
    for i in 0..n {
        let data: Vec<u8> = (0..(i * 37) % 300).map(|b| (b + i) as u8).collect();
        w.write_packet(1_000_000_000 + i as u64 * 7, &data).unwrap();
    }
    w.into_inner()
}

#[test]
fn agrees_with_the_in_memory_readers_whatever_the_buffer_and_the_reads() {
    for file in [pcap_file(40), rich_file(), pcap_file(0)] {
        let expected = in_memory(&file);
        assert!(expected.iter().all(|r| !r.contains("error")));
        for capacity in [1, 7, 64, 300, INITIAL_BUFFER] {
            for step in [0, 1, 5, 4096] {
                let got = streamed(Trickle::new(&file, step), capacity);
                assert_eq!(got, expected, "buffer {capacity}, reads of {step}");
            }
        }
        assert_eq!(streamed(&file[..], INITIAL_BUFFER), expected);
    }
}

#[test]
fn agrees_on_every_truncation_and_corruption() {
    for file in [pcap_file(12), rich_file()] {
        let runs = robustness(&file, 1500, |bytes| {
            let expected = in_memory(bytes);
            assert_eq!(streamed(Trickle::new(bytes, 0), 16), expected);
            assert_eq!(streamed(bytes, 5), expected);
        });
        assert!(runs > 1500);
    }
}

#[test]
fn unknown_and_empty_inputs_say_what_they_start_with() {
    for bytes in [&b""[..], b"\xd4\xc3", b"GIF89a, not a capture"] {
        assert_eq!(streamed(bytes, 2), in_memory(bytes));
    }
    let e = streamed(&b"\x7fELF...."[..], 64);
    assert_eq!(e, ["not a pcap or pcapng file: it starts with 7f 45 4c 46"]);
}

#[test]
fn a_read_error_ends_the_stream_with_it() {
    let file = pcap_file(30);
    let whole = in_memory(&file);
    for fail_at in [0, 10, 30, 500, file.len() - 1] {
        let mut source = Trickle::new(&file, 0);
        source.fail_at = Some(fail_at);
        let got = streamed(source, 32);
        let last = got.last().unwrap();
        assert_eq!(last, "cannot read the capture: the disk went away");
        // Every record before the error is the file's.
        assert_eq!(got[..got.len() - 1], whole[..got.len() - 1]);
    }
}

#[test]
fn the_buffer_grows_to_fit_a_record_and_no_further() {
    // One 100,000-byte record through a 1 KiB buffer.
    let mut w = pcap::Writer::new(Vec::new()).unwrap();
    w.write_packet(1_000_000_000, &vec![7; 100_000]).unwrap();
    let file = w.into_inner();
    let mut s = CaptureStream::with_buffer(Trickle::new(&file, 4096), 1024).unwrap();
    assert_eq!(s.next().unwrap().unwrap().data.len(), 100_000);
    assert!(s.next().is_none());
    assert!(s.input.buf.len() <= 2 * file.len(), "{}", s.input.buf.len());
    // A record header claiming 200 MB, in a file of 40 bytes: the buffer stays small and the
    // error is the truncation, at the end of the file.
    let mut lie = pcap_file(0);
    for v in [1u32, 0, 200_000_000, 200_000_000] {
        lie.extend_from_slice(&v.to_le_bytes());
    }
    let mut s = CaptureStream::with_buffer(&lie[..], 16).unwrap();
    let e = s.next().unwrap().unwrap_err().to_string();
    assert_eq!([e], in_memory(&lie)[..]);
    assert!(s.input.buf.len() <= 64, "{}", s.input.buf.len());
}

#[test]
fn records_stream_from_a_file_larger_than_the_buffer() {
    let file = pcap_file(2_000);
    let path = crate::testutil::temp_file("stream.pcap", &file);
    let source = std::fs::File::open(&path).unwrap();
    let got = streamed(source, INITIAL_BUFFER / 16);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(got.len(), 2_000);
    assert_eq!(got, in_memory(&file));
}
