//! The STF tokenizer and the token cursor the command parsers share.
//!
//! A line is split into tokens at whitespace; `(`, `)` and `,` are tokens of their own, and `#`
//! ends the line. Colons may have spaces around them (`k : 1`): [`merge_colons`] joins such tokens
//! back into `k:1`. Columns are 1-based and count characters.

use super::{CmpOp, StfError};
use crate::value::{self, parse_uint, to_u64};

/// A token: its text and 1-based character column.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tok<'a> {
    /// The text.
    pub(super) text: &'a str,
    /// The column.
    pub(super) col: u32,
}

/// Splits a line into tokens.
pub(super) fn tokenize(line: &str) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    let mut start: Option<(usize, u32)> = None;
    let mut col = 0u32;
    for (at, c) in line.char_indices() {
        col = col.saturating_add(1);
        let single = matches!(c, '(' | ')' | ',');
        if c.is_whitespace() || single || c == '#' {
            if let Some((s, scol)) = start.take() {
                toks.push(Tok {
                    text: &line[s..at],
                    col: scol,
                });
            }
            if c == '#' {
                return toks;
            }
            if single {
                toks.push(Tok {
                    text: &line[at..at + 1],
                    col,
                });
            }
        } else if start.is_none() {
            start = Some((at, col));
        }
    }
    if let Some((s, scol)) = start {
        toks.push(Tok {
            text: &line[s..],
            col: scol,
        });
    }
    toks
}

/// Merges tokens joined by a colon with spaces around it (`k`, `:`, `1` → `k:1`).
pub(super) fn merge_colons<'a>(toks: &[Tok<'a>]) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for t in toks {
        match out.last_mut() {
            Some((prev, _)) if prev.ends_with(':') || t.text.starts_with(':') => {
                prev.push_str(t.text)
            }
            _ => out.push((t.text.to_string(), t.col)),
        }
    }
    out
}

/// The tokens of one line being parsed.
pub(super) struct Line<'a> {
    /// The line number.
    pub(super) line: u32,
    /// Its tokens.
    pub(super) toks: Vec<Tok<'a>>,
    /// Index of the next token.
    pub(super) next: usize,
    /// Column just after the last character (for "end of line" errors).
    pub(super) end_col: u32,
}

impl<'a> Line<'a> {
    pub(super) fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.next).copied()
    }

    pub(super) fn take(&mut self) -> Option<Tok<'a>> {
        let t = self.peek();
        self.next += usize::from(t.is_some());
        t
    }

    pub(super) fn expected(&self, expected: &'static str, found: Option<Tok<'_>>) -> StfError {
        let (column, found) = match found {
            Some(t) => (t.col, format!("`{}`", t.text)),
            None => (self.end_col, "end of line".to_string()),
        };
        StfError::Expected {
            line: self.line,
            column,
            expected,
            found,
        }
    }

    /// The next token, which must exist.
    pub(super) fn word(&mut self, expected: &'static str) -> Result<Tok<'a>, StfError> {
        self.take().ok_or_else(|| self.expected(expected, None))
    }

    /// The next token, which must be a name.
    pub(super) fn name(&mut self, expected: &'static str) -> Result<Tok<'a>, StfError> {
        let t = self.word(expected)?;
        if is_name(t.text) {
            Ok(t)
        } else {
            Err(self.expected(expected, Some(t)))
        }
    }

    /// The next token, which must be `text`.
    pub(super) fn punct(
        &mut self,
        text: &'static str,
        expected: &'static str,
    ) -> Result<(), StfError> {
        match self.take() {
            Some(t) if t.text == text => Ok(()),
            t => Err(self.expected(expected, t)),
        }
    }

    /// Requires the end of the line.
    pub(super) fn end(&mut self) -> Result<(), StfError> {
        match self.take() {
            None => Ok(()),
            t => Err(self.expected("end of line", t)),
        }
    }

    /// A value error at `at` bytes into `text`, which starts at column `col`.
    pub(super) fn value_error(
        &self,
        what: &'static str,
        text: &str,
        col: u32,
        error: value::ValueError,
    ) -> StfError {
        let chars = text.get(..error.at).map_or(0, |s| s.chars().count());
        let column = col.saturating_add(u32::try_from(chars).unwrap_or(u32::MAX));
        StfError::Value {
            line: self.line,
            column,
            what,
            text: text.to_string(),
            error,
        }
    }

    /// A value parsed from the next token.
    pub(super) fn value<T>(
        &mut self,
        what: &'static str,
        parse: impl Fn(&str) -> Result<T, value::ValueError>,
    ) -> Result<T, StfError> {
        let t = self.word(what)?;
        parse(t.text).map_err(|e| self.value_error(what, t.text, t.col, e))
    }

    pub(super) fn u64(&mut self, what: &'static str) -> Result<u64, StfError> {
        self.value(what, |s| parse_uint(s).and_then(|v| to_u64(v, 0)))
    }

    pub(super) fn op(&mut self) -> Result<CmpOp, StfError> {
        let t = self.take();
        let op = match t.map(|t| t.text) {
            Some("==") => CmpOp::Eq,
            Some("!=") => CmpOp::Ne,
            Some("<") => CmpOp::Lt,
            Some("<=") => CmpOp::Le,
            Some(">") => CmpOp::Gt,
            Some(">=") => CmpOp::Ge,
            _ => return Err(self.expected("a comparison (== != < <= > >=)", t)),
        };
        Ok(op)
    }
}

/// Whether `s` is a name: a letter, `_` or `$`, then letters, digits, `_`, `$`, `.`, `[`, `]`.
pub(super) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '[' | ']'))
}
