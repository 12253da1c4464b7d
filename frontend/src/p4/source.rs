//! Source files and the preprocessor: from a root `.p4` file to one expanded text.
//!
//! P4 programs go through the C preprocessor before p4c reads them. The reader implements the part
//! real programs use: `#include <core.p4>`, `<v1model.p4>` and `<xsa.p4>` (the project's own
//! architecture files, built in), `#include "file.p4"` (read through a [`Loader`], relative to the
//! including file), object-like `#define NAME text` and `#undef`, and `#ifdef`/`#ifndef`/`#else`/
//! `#endif` (plus `#if 0`, `#if 1` and `#if defined(X)`). Function-like macros, `#elif` and other
//! `#if` expressions are reported as not supported, never guessed at.
//!
//! The result is one [`Expanded`] text that the parser reads in one go, with a segment map from
//! every byte of it back to a file and offset, so diagnostics point at what the user wrote: text
//! that came from a macro points at the macro's use.

use crate::diag::{codes, Diagnostic, FileId, Loc};
use crate::span::Span;
use std::collections::HashMap;

/// The architecture files scenicc carries: `(include name, text)`.
pub const ARCH_FILES: &[(&str, &str)] = &[
    ("core.p4", include_str!("arch/core.p4")),
    ("v1model.p4", include_str!("arch/v1model.p4")),
    ("xsa.p4", include_str!("arch/xsa.p4")),
];

/// The prefix of built-in file names in diagnostics (`<p4include>/core.p4`).
pub const ARCH_PREFIX: &str = "<p4include>/";

/// How deep `#include`s and macro expansions may nest before the reader gives up (a loop).
const MAX_DEPTH: usize = 32;

/// Reads files named by `#include "..."`.
pub trait Loader {
    /// The display name and text of `path` as included from the file named `from`; `None` when it
    /// cannot be read.
    fn load(&mut self, from: &str, path: &str) -> Option<(String, String)>;
}

/// A loader that reads nothing (programs held in memory).
pub struct NoFiles;

impl Loader for NoFiles {
    fn load(&mut self, _from: &str, _path: &str) -> Option<(String, String)> {
        None
    }
}

/// Reads included files from disk, relative to the including file's directory.
pub struct DiskLoader;

impl Loader for DiskLoader {
    fn load(&mut self, from: &str, path: &str) -> Option<(String, String)> {
        let base = std::path::Path::new(from)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        let full = base.join(path);
        let text = std::fs::read_to_string(&full).ok()?;
        Some((full.display().to_string(), text))
    }
}

/// A file that contributed to the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Its id in diagnostics and IR spans.
    pub id: FileId,
    /// Its display name.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// A run of expanded text and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    /// Offset in the expanded text.
    at: u32,
    /// Length.
    len: u32,
    /// The file.
    file: FileId,
    /// Offset in the file (for a macro expansion: the use's start).
    orig: u32,
    /// For a macro expansion: the length of the use; `None` for copied text.
    macro_use: Option<u32>,
}

/// The preprocessed program.
#[derive(Clone, Debug, Default)]
pub struct Expanded {
    /// The text the parser reads.
    pub text: String,
    /// Every file read, the root first.
    pub files: Vec<SourceFile>,
    segments: Vec<Segment>,
}

impl Expanded {
    /// The file and file span of an expanded-text span.
    pub fn locate(&self, span: Span) -> Option<(FileId, Span)> {
        let i = self
            .segments
            .partition_point(|s| s.at + s.len <= span.lo)
            .min(self.segments.len().checked_sub(1)?);
        let seg = self.segments[i];
        if let Some(len) = seg.macro_use {
            return Some((
                seg.file,
                Span::new(seg.orig as usize, (seg.orig + len) as usize),
            ));
        }
        let lo = seg.orig + span.lo.saturating_sub(seg.at).min(seg.len);
        let hi = seg.orig + span.hi.saturating_sub(seg.at).min(seg.len);
        Some((seg.file, Span { lo, hi: hi.max(lo) }))
    }

    /// A diagnostic's labels rebased from expanded-text spans to file spans.
    pub fn rebase(&self, diag: Diagnostic) -> Diagnostic {
        let fallback = self.files.first().map_or(FileId(0), |f| f.id);
        diag.map_locs(|loc| match loc {
            Loc::Here(span) => match self.locate(span) {
                Some((file, span)) => Loc::File { file, span },
                None => Loc::File {
                    file: fallback,
                    span: Span::default(),
                },
            },
            other => other,
        })
    }

    fn push_copy(&mut self, file: FileId, orig: usize, text: &str) {
        if text.is_empty() {
            return;
        }
        let at = self.text.len() as u32;
        self.text.push_str(text);
        let len = text.len() as u32;
        if let Some(last) = self.segments.last_mut() {
            let contiguous = last.macro_use.is_none()
                && last.file == file
                && last.at + last.len == at
                && last.orig + last.len == orig as u32;
            if contiguous {
                last.len += len;
                return;
            }
        }
        self.segments.push(Segment {
            at,
            len,
            file,
            orig: orig as u32,
            macro_use: None,
        });
    }

    fn push_macro(&mut self, file: FileId, use_span: Span, text: &str) {
        let at = self.text.len() as u32;
        // A space on each side keeps an expansion from gluing onto its neighbours.
        self.text.push(' ');
        self.text.push_str(text);
        self.text.push(' ');
        self.segments.push(Segment {
            at,
            len: text.len() as u32 + 2,
            file,
            orig: use_span.lo,
            macro_use: Some(use_span.len()),
        });
    }
}

/// Expands `root` (named `name`) and everything it includes.
pub fn expand(name: &str, root: &str, loader: &mut dyn Loader) -> (Expanded, Vec<Diagnostic>) {
    let mut pp = Preprocessor {
        out: Expanded::default(),
        diags: Vec::new(),
        macros: HashMap::new(),
        loader,
        depth: 0,
    };
    let id = pp.add_file(name.to_string(), root.to_string());
    pp.file(id);
    (pp.out, pp.diags)
}

/// One `#if` level: whether its text is kept, whether an enclosing level drops everything, and
/// whether an `#else` was seen.
#[derive(Clone, Copy)]
struct Cond {
    active: bool,
    parent_active: bool,
    seen_else: bool,
}

struct Preprocessor<'l> {
    out: Expanded,
    diags: Vec<Diagnostic>,
    macros: HashMap<String, String>,
    loader: &'l mut dyn Loader,
    depth: usize,
}

impl Preprocessor<'_> {
    fn add_file(&mut self, name: String, text: String) -> FileId {
        let id = FileId(self.out.files.len() as u32);
        self.out.files.push(SourceFile { id, name, text });
        id
    }

    fn error(&mut self, code: crate::diag::Code, file: FileId, span: Span, message: String) {
        self.diags
            .push(Diagnostic::at(code, Loc::File { file, span }, message));
    }

    /// Expands one file into the output.
    fn file(&mut self, id: FileId) {
        let text = self.out.files[id.0 as usize].text.clone();
        let mut conds: Vec<Cond> = Vec::new();
        let mut in_comment = false;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let active = conds.last().is_none_or(|c| c.active);
            let trimmed = line.trim_start();
            if !in_comment && trimmed.starts_with('#') {
                let at = start + (line.len() - trimmed.len());
                self.directive(id, trimmed.trim_end(), at, &mut conds);
                // Keep the line break so line numbers of the expanded text stay meaningful.
                if line.ends_with('\n') {
                    self.out.push_copy(id, offset - 1, "\n");
                }
                continue;
            }
            if active {
                self.line(id, line, start, &mut in_comment);
            } else {
                in_comment = scan_comment_state(line, in_comment);
                if line.ends_with('\n') {
                    self.out.push_copy(id, offset - 1, "\n");
                }
            }
        }
        if let Some(open) = conds.last() {
            let _ = open;
            let end = text.len();
            self.error(
                codes::E0707,
                id,
                Span::new(end, end),
                "`#if` or `#ifdef` without a matching `#endif`".into(),
            );
        }
    }

    /// Copies one line, replacing uses of macros.
    fn line(&mut self, id: FileId, line: &str, start: usize, in_comment: &mut bool) {
        let bytes = line.as_bytes();
        let mut i = 0;
        let mut copied = 0;
        while i < bytes.len() {
            if *in_comment {
                match line[i..].find("*/") {
                    Some(p) => {
                        i += p + 2;
                        *in_comment = false;
                    }
                    None => i = bytes.len(),
                }
                continue;
            }
            match bytes[i] {
                b'/' if bytes.get(i + 1) == Some(&b'/') => i = bytes.len(),
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    *in_comment = true;
                    i += 2;
                }
                b'"' => i = skip_string(bytes, i),
                b if b.is_ascii_alphabetic() || b == b'_' => {
                    let end = i + bytes[i..]
                        .iter()
                        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                        .unwrap_or(bytes.len() - i);
                    let word = &line[i..end];
                    if let Some(replacement) = self.expansion(word) {
                        self.out.push_copy(id, start + copied, &line[copied..i]);
                        let span = Span::new(start + i, start + end);
                        self.out.push_macro(id, span, &replacement);
                        copied = end;
                    }
                    i = end;
                }
                b if b.is_ascii_digit() => {
                    // Skip the whole number (`8w0x10`), so its letters are never macro names.
                    i += bytes[i..]
                        .iter()
                        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                        .unwrap_or(bytes.len() - i);
                }
                _ => i += 1,
            }
        }
        self.out.push_copy(id, start + copied, &line[copied..]);
    }

    /// The full expansion of a macro name (macros in the replacement expanded too), if defined.
    fn expansion(&self, word: &str) -> Option<String> {
        let mut text = self.macros.get(word)?.clone();
        let mut seen = vec![word.to_string()];
        for _ in 0..MAX_DEPTH {
            let mut changed = false;
            let mut out = String::new();
            let mut rest = text.as_str();
            while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
                out.push_str(&rest[..start]);
                let tail = &rest[start..];
                let end = tail
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(tail.len());
                let name = &tail[..end];
                match self.macros.get(name) {
                    Some(r) if !seen.iter().any(|s| s == name) => {
                        out.push_str(r);
                        seen.push(name.to_string());
                        changed = true;
                    }
                    _ => out.push_str(name),
                }
                rest = &tail[end..];
            }
            out.push_str(rest);
            text = out;
            if !changed {
                break;
            }
        }
        Some(text)
    }

    /// Handles one directive line (`at`: its offset in the file).
    fn directive(&mut self, id: FileId, line: &str, at: usize, conds: &mut Vec<Cond>) {
        let body = line[1..].trim_start();
        let word_len = body
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(body.len());
        let (word, rest) = body.split_at(word_len);
        let rest = strip_line_comment(rest).trim();
        let span = Span::new(at, at + line.len());
        let active = conds.last().is_none_or(|c| c.active);
        match word {
            "ifdef" | "ifndef" => {
                let defined = self.macros.contains_key(rest);
                let cond = if word == "ifdef" { defined } else { !defined };
                conds.push(Cond {
                    active: active && cond,
                    parent_active: active,
                    seen_else: false,
                });
            }
            "if" => {
                let cond = self.if_condition(id, rest, span);
                conds.push(Cond {
                    active: active && cond,
                    parent_active: active,
                    seen_else: false,
                });
            }
            "else" => match conds.last_mut() {
                Some(c) if !c.seen_else => {
                    c.seen_else = true;
                    c.active = c.parent_active && !c.active;
                }
                _ => self.error(
                    codes::E0707,
                    id,
                    span,
                    "`#else` without a matching `#if`".into(),
                ),
            },
            "endif" => {
                if conds.pop().is_none() {
                    self.error(
                        codes::E0707,
                        id,
                        span,
                        "`#endif` without a matching `#if`".into(),
                    );
                }
            }
            _ if !active => {}
            "define" => self.define(id, rest, span),
            "undef" => {
                self.macros.remove(rest);
            }
            "include" => self.include(id, rest, span),
            "error" => self.error(codes::E0707, id, span, format!("#error {rest}")),
            "elif" | "pragma" | "line" | "warning" | "" => {
                self.unsupported(id, span, &format!("the `#{word}` directive"))
            }
            _ => self.error(
                codes::E0707,
                id,
                span,
                format!("unknown preprocessor directive `#{word}`"),
            ),
        }
    }

    fn unsupported(&mut self, id: FileId, span: Span, what: &str) {
        self.diags.push(
            Diagnostic::at(
                codes::E0702,
                Loc::File { file: id, span },
                format!("not supported yet: {what}"),
            )
            .label("not supported by scenicc's P4 reader")
            .note("docs/p4.md lists the supported subset of P4_16"),
        );
    }

    /// `#if 0`, `#if 1`, `#if defined(X)` / `#if !defined(X)`; anything else is not supported.
    fn if_condition(&mut self, id: FileId, rest: &str, span: Span) -> bool {
        let (negate, expr) = match rest.strip_prefix('!') {
            Some(e) => (true, e.trim()),
            None => (false, rest),
        };
        let value = if let Ok(n) = expr.parse::<i64>() {
            n != 0
        } else if let Some(name) = expr.strip_prefix("defined").map(|r| {
            r.trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim()
        }) {
            self.macros.contains_key(name)
        } else {
            self.unsupported(
                id,
                span,
                "`#if` with an expression other than 0, 1 or defined(X)",
            );
            false
        };
        value != negate
    }

    fn define(&mut self, id: FileId, rest: &str, span: Span) {
        let name_len = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        let (name, value) = rest.split_at(name_len);
        if name.is_empty() {
            self.error(codes::E0707, id, span, "`#define` without a name".into());
        } else if value.starts_with('(') {
            self.unsupported(id, span, "function-like macros");
        } else {
            self.macros
                .insert(name.to_string(), value.trim().to_string());
        }
    }

    fn include(&mut self, id: FileId, rest: &str, span: Span) {
        if self.depth >= MAX_DEPTH {
            self.error(
                codes::E0707,
                id,
                span,
                format!("`#include` nested more than {MAX_DEPTH} deep (an include loop?)"),
            );
            return;
        }
        let (system, name) =
            if let Some(n) = rest.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
                (true, n.trim())
            } else if let Some(n) = rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                (false, n.trim())
            } else {
                self.error(
                    codes::E0707,
                    id,
                    span,
                    "`#include` needs a file name in `<...>` or `\"...\"`".into(),
                );
                return;
            };
        let builtin = ARCH_FILES.iter().find(|(n, _)| *n == name);
        let loaded = match builtin {
            Some((n, text)) => Some((format!("{ARCH_PREFIX}{n}"), text.to_string())),
            None if system => None,
            None => {
                let from = self.out.files[id.0 as usize].name.clone();
                self.loader.load(&from, name)
            }
        };
        let Some((file_name, text)) = loaded else {
            let known: Vec<&str> = ARCH_FILES.iter().map(|(n, _)| *n).collect();
            self.diags.push(
                Diagnostic::at(
                    codes::E0707,
                    Loc::File { file: id, span },
                    format!("cannot include `{name}`"),
                )
                .label(if system {
                    "not an architecture file scenicc knows"
                } else {
                    "file not found next to the including file"
                })
                .note(format!("built-in architecture files: {}", known.join(", "))),
            );
            return;
        };
        let new = self.add_file(file_name, text);
        self.depth += 1;
        self.file(new);
        self.depth -= 1;
        // Line breaks after an included file keep declarations apart.
        self.out.push_copy(id, span.hi as usize, "");
    }
}

/// The index just past the string literal starting at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Whether a block comment is still open at the end of `line`.
fn scan_comment_state(line: &str, mut in_comment: bool) -> bool {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if in_comment {
            match line[i..].find("*/") {
                Some(p) => {
                    i += p + 2;
                    in_comment = false;
                }
                None => return true,
            }
        } else if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'/') {
            return false;
        } else if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            in_comment = true;
            i += 2;
        } else if bytes[i] == b'"' {
            i = skip_string(bytes, i);
        } else {
            i += 1;
        }
    }
    in_comment
}

/// A directive's argument without a trailing `//` comment.
fn strip_line_comment(text: &str) -> &str {
    match text.find("//") {
        Some(p) => &text[..p],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> (Expanded, Vec<Diagnostic>) {
        expand("t.p4", text, &mut NoFiles)
    }

    #[test]
    fn macros_expand_and_map_back_to_their_use() {
        let (e, d) = run("#define N 16\nbit<N> x;\n");
        assert!(d.is_empty(), "{d:?}");
        assert!(e.text.contains("bit< 16 > x;"), "{:?}", e.text);
        let at = e.text.find("16").unwrap_or(0);
        let (file, span) = e.locate(Span::new(at, at + 2)).unwrap();
        assert_eq!(file, FileId(0));
        assert_eq!(&e.files[0].text[span.range()], "N");
    }

    #[test]
    fn ifdef_drops_inactive_text() {
        let (e, d) = run("#ifdef X\nA\n#else\nB\n#endif\n");
        assert!(d.is_empty());
        assert!(e.text.contains('B') && !e.text.contains('A'));
    }

    #[test]
    fn builtin_includes_are_spliced_in_once() {
        let (e, d) = run("#include <core.p4>\n#include <core.p4>\nX\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(e.text.matches("packet_in").count(), 1);
        assert_eq!(e.files.len(), 3);
    }

    #[test]
    fn unknown_includes_and_function_macros_are_reported() {
        let (_, d) = run("#include <tna.p4>\n#define F(x) x\n");
        let ids: Vec<&str> = d.iter().map(|d| d.code.id).collect();
        assert_eq!(ids, ["E0707", "E0702"]);
    }

    #[test]
    fn comments_hide_macro_names_and_directives() {
        let (e, _) = run("#define A 1\n/* A\n#define B 2 */ A // A\n");
        assert!(e.text.contains("/* A\n"), "{:?}", e.text);
        assert!(e.text.contains(" 1 "), "{:?}", e.text);
    }
}
