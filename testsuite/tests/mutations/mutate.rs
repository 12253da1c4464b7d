//! Deterministic mutations of example sources: draws from the repository's PRNG and the mutation kinds.

// ---------------------------------------------------------------------------------------------------
// A small deterministic PRNG.

/// The repository's one PRNG ([`scenic_ir::rng::SplitMix64`]), with the draws mutations use.
pub(crate) struct Rng(scenic_ir::rng::SplitMix64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(scenic_ir::rng::SplitMix64::new(seed))
    }

    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// The seed of mutant `index` of the example called `name` (FNV-1a of the name, mixed with the index).
pub(crate) fn seed_for(name: &str, index: usize) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

// ---------------------------------------------------------------------------------------------------
// Mutations.

/// One way of changing a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    DeleteLine,
    DuplicateLine,
    SwapLines,
    DeleteToken,
    DuplicateToken,
    SwapTokens,
    /// Truncate at a random byte, on a char boundary.
    Truncate,
    /// Truncate in the middle of a multi-byte UTF-8 character (checked through the bytes API).
    TruncateMidUtf8,
    InsertAscii,
    /// Insert arbitrary bytes, usually not UTF-8 (checked through the bytes API).
    InsertBytes,
    /// Replace a random range with a copy of another part of the file.
    ReplaceRange,
}

pub(crate) const KINDS: [Kind; 11] = [
    Kind::DeleteLine,
    Kind::DuplicateLine,
    Kind::SwapLines,
    Kind::DeleteToken,
    Kind::DuplicateToken,
    Kind::SwapTokens,
    Kind::Truncate,
    Kind::TruncateMidUtf8,
    Kind::InsertAscii,
    Kind::InsertBytes,
    Kind::ReplaceRange,
];

impl Kind {
    /// Whether the mutant must go through `add_source_bytes` (it may not be UTF-8).
    fn needs_bytes_api(self) -> bool {
        matches!(self, Kind::TruncateMidUtf8 | Kind::InsertBytes)
    }
}

/// The kinds applied to mutant `index`: one kind each for eleven mutants in fourteen, cycling through
/// all kinds, and 2–3 stacked random kinds for the other three.
pub(crate) fn kinds_for(index: usize, rng: &mut Rng) -> Vec<Kind> {
    let slot = index % (KINDS.len() + 3);
    if slot < KINDS.len() {
        vec![KINDS[slot]]
    } else {
        let count = rng.between(2, 3);
        (0..count).map(|_| KINDS[rng.below(KINDS.len())]).collect()
    }
}

/// Line ranges, each including its `\n` (the last one may not have one).
pub(crate) fn lines(buf: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in buf.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < buf.len() {
        out.push((start, buf.len()));
    }
    out
}

pub(crate) fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Token ranges: maximal runs of identifier characters, maximal runs of non-ASCII bytes (so that
/// characters stay whole), or single punctuation characters. Whitespace is not a token.
pub(crate) fn tokens(buf: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < buf.len() {
        let b = buf[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if is_ident_byte(b) {
            let start = i;
            while i < buf.len() && is_ident_byte(buf[i]) {
                i += 1;
            }
            out.push((start, i));
        } else if b >= 0x80 {
            let start = i;
            while i < buf.len() && buf[i] >= 0x80 {
                i += 1;
            }
            out.push((start, i));
        } else {
            out.push((i, i + 1));
            i += 1;
        }
    }
    out
}

/// Moves `pos` back to the start of a UTF-8 character (a no-op on ASCII and on non-UTF-8 garbage that
/// has no continuation bytes).
pub(crate) fn char_boundary(buf: &[u8], pos: usize) -> usize {
    let mut pos = pos.min(buf.len());
    while pos > 0 && pos < buf.len() && (buf[pos] & 0xC0) == 0x80 {
        pos -= 1;
    }
    pos
}

/// Swaps the non-overlapping ranges `a` and `b` (with `a` before `b`).
pub(crate) fn swap_ranges(buf: &[u8], a: (usize, usize), b: (usize, usize)) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    out.extend_from_slice(&buf[..a.0]);
    out.extend_from_slice(&buf[b.0..b.1]);
    out.extend_from_slice(&buf[a.1..b.0]);
    out.extend_from_slice(&buf[a.0..a.1]);
    out.extend_from_slice(&buf[b.1..]);
    out
}

/// Picks two distinct elements of `ranges` (ordered), often near each other. `None` if there are
/// fewer than two.
pub(crate) fn pick_two(
    ranges: &[(usize, usize)],
    rng: &mut Rng,
) -> Option<((usize, usize), (usize, usize))> {
    if ranges.len() < 2 {
        return None;
    }
    let i = rng.below(ranges.len() - 1);
    let j = if rng.coin() {
        rng.between(i + 1, (i + 8).min(ranges.len() - 1))
    } else {
        rng.between(i + 1, ranges.len() - 1)
    };
    Some((ranges[i], ranges[j]))
}

/// Applies one mutation of `kind` to `buf`.
pub(crate) fn mutate(buf: &[u8], kind: Kind, rng: &mut Rng) -> Vec<u8> {
    let splice = |at: (usize, usize), with: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(buf.len() + with.len());
        out.extend_from_slice(&buf[..at.0]);
        out.extend_from_slice(with);
        out.extend_from_slice(&buf[at.1..]);
        out
    };
    match kind {
        Kind::DeleteLine | Kind::DuplicateLine => {
            let lines = lines(buf);
            if lines.is_empty() {
                return buf.to_vec();
            }
            let line = lines[rng.below(lines.len())];
            if kind == Kind::DeleteLine {
                splice(line, b"")
            } else {
                splice((line.1, line.1), &buf[line.0..line.1])
            }
        }
        Kind::SwapLines => match pick_two(&lines(buf), rng) {
            Some((a, b)) => swap_ranges(buf, a, b),
            None => buf.to_vec(),
        },
        Kind::DeleteToken | Kind::DuplicateToken => {
            let tokens = tokens(buf);
            if tokens.is_empty() {
                return buf.to_vec();
            }
            let token = tokens[rng.below(tokens.len())];
            if kind == Kind::DeleteToken {
                splice(token, b"")
            } else {
                let mut copy = Vec::new();
                if rng.coin() {
                    copy.push(b' ');
                }
                copy.extend_from_slice(&buf[token.0..token.1]);
                splice((token.1, token.1), &copy)
            }
        }
        Kind::SwapTokens => match pick_two(&tokens(buf), rng) {
            Some((a, b)) => swap_ranges(buf, a, b),
            None => buf.to_vec(),
        },
        Kind::Truncate => {
            let at = char_boundary(buf, rng.below(buf.len() + 1));
            buf[..at].to_vec()
        }
        Kind::TruncateMidUtf8 => {
            // Cut inside a multi-byte character: an existing one if there is any, else a `€` inserted
            // at a random place first.
            let starts: Vec<usize> = (0..buf.len()).filter(|&i| buf[i] >= 0xC0).collect();
            if starts.is_empty() {
                let at = char_boundary(buf, rng.below(buf.len() + 1));
                let mut out = buf[..at].to_vec();
                out.extend_from_slice(&"€".as_bytes()[..rng.between(1, 2)]);
                out
            } else {
                let start = starts[rng.below(starts.len())];
                let mut len = 1;
                while start + len < buf.len() && (buf[start + len] & 0xC0) == 0x80 {
                    len += 1;
                }
                buf[..start + rng.between(1, len.max(2) - 1).min(len)].to_vec()
            }
        }
        Kind::InsertAscii => {
            let at = char_boundary(buf, rng.below(buf.len() + 1));
            let count = rng.between(1, 8);
            let bytes: Vec<u8> = (0..count)
                .map(|_| match rng.below(20) {
                    0 => b'\n',
                    1 => b'\t',
                    _ => rng.between(0x20, 0x7E) as u8,
                })
                .collect();
            splice((at, at), &bytes)
        }
        Kind::InsertBytes => {
            let at = rng.below(buf.len() + 1);
            let count = rng.between(1, 8);
            let mut bytes: Vec<u8> = (0..count).map(|_| rng.below(256) as u8).collect();
            // Mostly make sure the result is not UTF-8.
            if rng.below(4) != 0 {
                bytes[0] = rng.between(0x80, 0xFF) as u8;
            }
            splice((at, at), &bytes)
        }
        Kind::ReplaceRange => {
            if buf.is_empty() {
                return buf.to_vec();
            }
            let lo = char_boundary(buf, rng.below(buf.len()));
            let hi = char_boundary(buf, (lo + rng.between(1, 200)).min(buf.len()));
            let src_lo = char_boundary(buf, rng.below(buf.len()));
            let src_hi = char_boundary(buf, (src_lo + rng.between(0, 200)).min(buf.len()));
            let with = buf[src_lo..src_hi].to_vec();
            splice((lo, hi.max(lo)), &with)
        }
    }
}

/// One mutant: its bytes, the kinds applied, and whether it must go through the bytes API.
pub(crate) struct Mutant {
    pub(crate) bytes: Vec<u8>,
    pub(crate) kinds: Vec<Kind>,
    pub(crate) seed: u64,
    pub(crate) via_bytes: bool,
}

/// Mutant `index` of `text` (deterministic).
pub(crate) fn make_mutant(name: &str, text: &str, index: usize) -> Mutant {
    let seed = seed_for(name, index);
    let mut rng = Rng::new(seed);
    let kinds = kinds_for(index, &mut rng);
    let mut bytes = text.as_bytes().to_vec();
    for &kind in &kinds {
        bytes = mutate(&bytes, kind, &mut rng);
    }
    let via_bytes =
        kinds.iter().any(|k| k.needs_bytes_api()) || std::str::from_utf8(&bytes).is_err();
    Mutant {
        bytes,
        kinds,
        seed,
        via_bytes,
    }
}
