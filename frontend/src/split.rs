//! Splitting a source file into chunks.
//!
//! Before pest runs, a file is cut into *chunks*: each top-level item, the head of each `scu`/`cc`
//! item (the text before its `{`), and each member of an `scu`/`cc` body. Each chunk is parsed on its
//! own, which gives two things: error recovery at item boundaries (a syntax error in one member cannot
//! hide errors in the next), and incrementality (salsa re-parses only chunks whose text changed).
//!
//! The splitter only needs comments and bracket nesting to find boundaries: an item or member ends at a
//! `;` at nesting depth 0, or at the `}` that closes its first depth-0 block, except for items that end
//! with `;` by definition (`const`, `csr`, `map`, ...), which may contain braces in their initialiser.
//! Invariants: chunks are in source order, do not overlap, and never contain the braces of the
//! enclosing `scu`/`cc` body.

use crate::span::Span;

/// What a chunk holds, which decides the grammar rule that parses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// A top-level item other than `scu`/`cc`.
    Item,
    /// `scu NAME on ATTACH` (before the `{`).
    ScuHead,
    /// `cc NAME ...` (before the `{`).
    CcHead,
    /// A member of the `scu`/`cc` whose head is chunk `parent`.
    Member {
        /// Index of the head chunk.
        parent: u32,
    },
}

/// One chunk: a kind and a byte range of the file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// How to parse it.
    pub kind: ChunkKind,
    /// Where it is in the file.
    pub span: Span,
}

/// A problem the splitter itself finds: unterminated comments and unbalanced braces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SplitError {
    /// `/*` without `*/`.
    UnterminatedComment(Span),
    /// A `{` whose `}` never comes: the span is the opening brace.
    UnclosedBrace(Span),
    /// A closing bracket with no opening one.
    UnexpectedClose(Span),
}

/// The chunks of a file, in source order, and the splitter's own errors.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SplitFile {
    /// The chunks.
    pub chunks: Vec<Chunk>,
    /// Structural errors.
    pub errors: Vec<SplitError>,
}

/// Items and members that always end with `;`, even when an initialiser contains braces.
const SEMICOLON_ITEMS: &[&str] = &[
    "use", "const", "param", "csr", "map", "counter", "meter", "out", "state", "output",
];

/// Cuts `text` into chunks.
pub fn split(text: &str) -> SplitFile {
    let mut splitter = Splitter {
        bytes: text.as_bytes(),
        pos: 0,
        out: SplitFile::default(),
    };
    splitter.top_level();
    splitter.out
}

struct Splitter<'a> {
    bytes: &'a [u8],
    pos: usize,
    out: SplitFile,
}

/// How a scan for the end of a chunk stopped.
enum Stop {
    /// At the `;` or `}` that ends the chunk (position after it).
    End(usize),
    /// At the `{` that opens an `scu`/`cc` body (position of the brace).
    Body(usize),
    /// At a `}` that closes the enclosing body (position of the brace), or at end of file.
    Outer(usize),
}

impl<'a> Splitter<'a> {
    fn top_level(&mut self) {
        while self.skip_trivia() {
            let start = self.pos;
            let word = self.word_at(start);
            if word == "scu" || word == "cc" {
                self.container(start, word == "scu");
            } else {
                match self.scan_chunk(start, word, false) {
                    Stop::End(end) | Stop::Outer(end) | Stop::Body(end) => {
                        self.push(ChunkKind::Item, start, end);
                        if end < self.bytes.len() && self.bytes[end] == b'}' && end == self.pos {
                            self.out
                                .errors
                                .push(SplitError::UnexpectedClose(Span::new(end, end + 1)));
                            self.pos = end + 1;
                        }
                    }
                }
            }
        }
    }

    /// An `scu` or `cc` item: its head, then its members until the closing `}`.
    fn container(&mut self, start: usize, is_scu: bool) {
        let head_kind = if is_scu {
            ChunkKind::ScuHead
        } else {
            ChunkKind::CcHead
        };
        let stop = self.scan_chunk(start, "", true);
        let brace = match stop {
            Stop::Body(brace) => brace,
            Stop::End(end) | Stop::Outer(end) => {
                // No body: keep the head so the parser reports what is missing.
                self.push(head_kind, start, end);
                return;
            }
        };
        let parent = self.out.chunks.len() as u32;
        self.push(head_kind, start, trim_end(self.bytes, start, brace));
        self.pos = brace + 1;
        loop {
            if !self.skip_trivia() {
                self.unclosed(brace);
                return;
            }
            if self.bytes[self.pos] == b'}' {
                self.pos += 1;
                return;
            }
            let member_start = self.pos;
            let word = self.word_at(member_start);
            match self.scan_chunk(member_start, word, false) {
                Stop::End(end) => self.push(ChunkKind::Member { parent }, member_start, end),
                Stop::Outer(end) | Stop::Body(end) => {
                    self.push(
                        ChunkKind::Member { parent },
                        member_start,
                        trim_end(self.bytes, member_start, end),
                    );
                    self.pos = end;
                }
            }
        }
    }

    fn push(&mut self, kind: ChunkKind, start: usize, end: usize) {
        if end > start {
            self.out.chunks.push(Chunk {
                kind,
                span: Span::new(start, end),
            });
        }
    }

    /// Scans from `start` to the end of one chunk and leaves `self.pos` after it.
    fn scan_chunk(&mut self, start: usize, first_word: &str, head: bool) -> Stop {
        let ends_with_semicolon = SEMICOLON_ITEMS.contains(&first_word);
        let mut stack: Vec<(u8, usize)> = Vec::new();
        self.pos = start;
        while self.pos < self.bytes.len() {
            if self.skip_comment() {
                continue;
            }
            let at = self.pos;
            let byte = self.bytes[at];
            self.pos += 1;
            match byte {
                b'{' if head && stack.is_empty() => return Stop::Body(at),
                b'{' | b'(' | b'[' => stack.push((byte, at)),
                b'}' | b')' | b']' => {
                    if stack.pop().is_none() {
                        if byte == b'}' {
                            self.pos = at;
                            return Stop::Outer(at);
                        }
                        self.out
                            .errors
                            .push(SplitError::UnexpectedClose(Span::new(at, at + 1)));
                        continue;
                    }
                    if byte == b'}' && stack.is_empty() && !ends_with_semicolon {
                        return Stop::End(self.pos);
                    }
                }
                b';' if stack.is_empty() => return Stop::End(self.pos),
                _ => {}
            }
        }
        if let Some(&(_, open)) = stack.first() {
            if self.bytes[open] == b'{' {
                self.unclosed(open);
            }
        }
        Stop::Outer(self.bytes.len())
    }

    /// Records an unclosed `{`, unless an unterminated comment swallowed its `}` (already reported).
    fn unclosed(&mut self, brace: usize) {
        let comment_ate_it = self
            .out
            .errors
            .iter()
            .any(|e| matches!(e, SplitError::UnterminatedComment(_)));
        if !comment_ate_it {
            self.out
                .errors
                .push(SplitError::UnclosedBrace(Span::new(brace, brace + 1)));
        }
    }

    /// Skips whitespace and comments; false at end of input.
    fn skip_trivia(&mut self) -> bool {
        loop {
            while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if !self.skip_comment() {
                return self.pos < self.bytes.len();
            }
        }
    }

    /// Skips one comment at `self.pos`, if there is one.
    fn skip_comment(&mut self) -> bool {
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(b"//") {
            let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            self.pos += len;
            true
        } else if rest.starts_with(b"/*") {
            match rest[2..].windows(2).position(|w| w == b"*/") {
                Some(end) => self.pos += end + 4,
                None => {
                    let at = self.pos;
                    self.out
                        .errors
                        .push(SplitError::UnterminatedComment(Span::new(at, at + 2)));
                    self.pos = self.bytes.len();
                }
            }
            true
        } else {
            false
        }
    }

    /// The identifier-like word starting at `at` (empty if none).
    fn word_at(&self, at: usize) -> &'a str {
        let bytes: &'a [u8] = self.bytes;
        let len = bytes[at..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(bytes.len() - at);
        std::str::from_utf8(&bytes[at..at + len]).unwrap_or("")
    }
}

/// `end` moved back over trailing whitespace, but not before `start`.
fn trim_end(bytes: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(ChunkKind, &str)> {
        split(src)
            .chunks
            .iter()
            .map(|c| (c.kind, &src[c.span.range()]))
            .collect()
    }

    #[test]
    fn items_and_members() {
        let src = "use std::net::{ethernet};\nconst A: bit<8> = 1;\nscu s on slow_path {\n  csr x: bit<8> = 1;\n  control { if a { b(); } }\n}\nfn f() { }";
        let got = texts(src);
        assert_eq!(got.len(), 6);
        assert_eq!(got[0].1, "use std::net::{ethernet};");
        assert_eq!(got[2], (ChunkKind::ScuHead, "scu s on slow_path"));
        assert_eq!(
            got[3],
            (ChunkKind::Member { parent: 2 }, "csr x: bit<8> = 1;")
        );
        assert_eq!(
            got[4],
            (ChunkKind::Member { parent: 2 }, "control { if a { b(); } }")
        );
        assert_eq!(got[5], (ChunkKind::Item, "fn f() { }"));
    }

    #[test]
    fn semicolon_items_keep_braced_initialisers() {
        let got = texts("const P: pair = pair { a: 1 };\nconst Q: bit<8> = 2;");
        assert_eq!(got[0].1, "const P: pair = pair { a: 1 };");
        assert_eq!(got[1].1, "const Q: bit<8> = 2;");
    }

    #[test]
    fn comments_hide_braces() {
        let got = texts("fn f() { /* } */ // }\n }\nfn g() {}");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn unterminated_comment_and_brace_are_reported() {
        let out = split("fn f() { /* never closed");
        assert!(matches!(out.errors[0], SplitError::UnterminatedComment(_)));
        let out = split("scu s on slow_path { control { }");
        assert!(out
            .errors
            .iter()
            .any(|e| matches!(e, SplitError::UnclosedBrace(_))));
    }

    #[test]
    fn member_missing_terminator_stops_at_body_end() {
        let got = texts("scu s on slow_path { csr x: bit<8> = 1 }\nfn g() {}");
        assert_eq!(got[1].1, "csr x: bit<8> = 1");
        assert_eq!(got[2].1, "fn g() {}");
    }
}
