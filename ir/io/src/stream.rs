//! Captures read piece by piece from any [`Read`]: a [`CaptureStream`] yields the records of a
//! pcap or pcapng file, and its errors at the same file offsets, exactly as [`super::open`] does
//! on the whole file held in memory, while holding only a buffer of [`INITIAL_BUFFER`] bytes. So
//! `scenicc sim` runs a capture larger than the machine's memory, and does not pay for faulting in
//! a copy of the whole file first.
//!
//! Invariants: `buf[..len]` holds the file's bytes from offset `base`, and the parser's position
//! (the file offset of the next record or block) lies in `base..=base + len`; the bytes before it
//! are consumed and dropped at the next read. Before a record is parsed, the bytes it takes are in
//! the buffer (its framing, read from its header, says how many) unless the file ends first, so a
//! truncation is reported as the in-memory reader reports it: at the end of the file. The buffer
//! grows only when one record does not fit, and only as that record's bytes arrive, so a length
//! field cannot make it allocate more than the input holds. A read error ends the stream as
//! [`CaptureError::Io`]; after any error the stream yields nothing more.

use super::{describe_start, pcap, pcapng, sniff, ByteOrder, CaptureError, Format, Record};
use std::io::{ErrorKind, Read};

/// The buffer a stream starts with: large enough that refills are rare, small enough to stay in a
/// core's L2 cache, where the simulation then reads each packet.
pub const INITIAL_BUFFER: usize = 256 << 10;

/// The records of a capture read from a [`Read`], in file order. Call [`CaptureStream::next`]
/// until it returns `None`; each record borrows the stream's buffer until the next call.
pub struct CaptureStream<R> {
    input: Input<R>,
    parser: Parser,
    failed: bool,
}

/// The format's parser, positioned in the file.
enum Parser {
    Pcap(pcap::Position),
    Pcapng(pcapng::Position),
}

impl Parser {
    /// The file offset of the next record or block.
    fn offset(&self) -> usize {
        match self {
            Parser::Pcap(p) => p.offset,
            Parser::Pcapng(p) => p.offset,
        }
    }
}

impl<R: Read> CaptureStream<R> {
    /// Reads the file header of the capture `source` holds, pcap or pcapng (told by
    /// [`sniff`]), and checks it as [`super::open`] does.
    pub fn new(source: R) -> Result<Self, CaptureError> {
        Self::with_buffer(source, INITIAL_BUFFER)
    }

    /// [`CaptureStream::new`] with a buffer of `capacity` bytes to start with (at least 1).
    pub fn with_buffer(source: R, capacity: usize) -> Result<Self, CaptureError> {
        let mut input = Input {
            source,
            buf: vec![0; capacity.max(1)],
            len: 0,
            base: 0,
            eof: false,
        };
        input.fill(0, |_| Some(4))?;
        let parser = match sniff(input.window()) {
            Some(Format::Pcap) => {
                input.fill(0, |_| Some(pcap::HEADER_LEN))?;
                Parser::Pcap(pcap::Position::new(pcap::read_header(input.window())?))
            }
            Some(Format::Pcapng) => {
                input.fill(0, |rest| {
                    pcapng::frame(rest, ByteOrder::Little).map(|f| f.0)
                })?;
                Parser::Pcapng(pcapng::Position::start(input.window())?)
            }
            None => {
                return Err(CaptureError::UnknownFormat {
                    found: describe_start(input.window()),
                })
            }
        };
        Ok(CaptureStream {
            input,
            parser,
            failed: false,
        })
    }

    /// The format of the capture.
    pub fn format(&self) -> Format {
        match self.parser {
            Parser::Pcap(_) => Format::Pcap,
            Parser::Pcapng(_) => Format::Pcapng,
        }
    }

    /// The next record, or an error (after which there is nothing more), or `None` at the end.
    #[allow(clippy::should_implement_trait)] // a record borrows the stream: not an `Iterator`
    pub fn next(&mut self) -> Option<Result<Record<'_>, CaptureError>> {
        if self.failed {
            return None;
        }
        match self.reach_next_packet() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        }
        let (window, base) = (self.input.window(), self.input.base);
        let item = match &mut self.parser {
            Parser::Pcap(p) => p.next_record(window, base).map_err(CaptureError::from),
            Parser::Pcapng(p) => match p.next_block(window, base) {
                Ok(Some(record)) => Ok(record),
                // `reach_next_packet` stopped at a packet block, told by the parser's own framing.
                Ok(None) => Err(CaptureError::Io(std::io::Error::other(
                    "a packet block yielded no packet",
                ))),
                Err(e) => Err(e.into()),
            },
        };
        self.failed = item.is_err();
        Some(item)
    }

    /// Reads on until the next packet's bytes are in the buffer (or the file ends inside them),
    /// going through pcapng's blocks that set up or are skipped. `false` at the end of the file.
    fn reach_next_packet(&mut self) -> Result<bool, CaptureError> {
        loop {
            let at = self.parser.offset();
            let packet = match &self.parser {
                Parser::Pcap(p) => {
                    self.input.fill(at, |rest| p.frame(rest))?;
                    true
                }
                Parser::Pcapng(p) => {
                    self.input.fill(at, |rest| p.frame(rest).map(|f| f.0))?;
                    p.frame(self.input.rest(at)).is_some_and(|f| f.1)
                }
            };
            if self.input.rest(at).is_empty() {
                return Ok(false);
            }
            if packet {
                return Ok(true);
            }
            if let Parser::Pcapng(p) = &mut self.parser {
                // A section, an interface or a skipped block: no packet comes of it.
                p.next_block(self.input.window(), self.input.base)?;
            }
        }
    }
}

/// The bytes read so far and not yet dropped: `buf[..len]`, from file offset `base`.
struct Input<R> {
    source: R,
    buf: Vec<u8>,
    len: usize,
    base: usize,
    eof: bool,
}

impl<R: Read> Input<R> {
    /// The bytes held.
    fn window(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The bytes held from file offset `at` (none if `at` is outside them).
    fn rest(&self, at: usize) -> &[u8] {
        at.checked_sub(self.base)
            .and_then(|i| self.window().get(i..))
            .unwrap_or_default()
    }

    /// Reads until the unit at file offset `at` is whole or the file ends: `size` says how many
    /// bytes it takes, given the bytes from `at`, or `None` while they do not say yet.
    fn fill(
        &mut self,
        at: usize,
        size: impl Fn(&[u8]) -> Option<usize>,
    ) -> Result<(), CaptureError> {
        loop {
            let rest = self.rest(at);
            if self.eof || size(rest).is_some_and(|n| rest.len() >= n) {
                return Ok(());
            }
            self.read_more(at).map_err(CaptureError::Io)?;
        }
    }

    /// Drops the bytes before file offset `keep`, grows the buffer if what is left fills it, and
    /// reads once more from the source.
    fn read_more(&mut self, keep: usize) -> std::io::Result<()> {
        let start = keep.saturating_sub(self.base).min(self.len);
        if start > 0 {
            self.buf.copy_within(start..self.len, 0);
            self.len -= start;
            self.base += start;
        }
        if self.len == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.source.read(&mut self.buf[self.len..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.len += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests;
