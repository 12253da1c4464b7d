//! Parsing P4_16: pest recognises the expanded text (`p4.pest`), the submodules walk pest's pairs
//! and build the [`ast`](super::ast) with expanded-text spans.
//!
//! A syntax error is E0701 with pest's failure position and the tokens it expected. Constructs the
//! grammar recognises only to refuse them (`for` loops, keywords used as names, malformed numbers)
//! become specific diagnostics here; everything else outside the supported subset parses and is
//! refused by the checker, where its meaning is known.

mod decl;
mod expr;
mod stmt;
mod table;

use super::ast::{Annotation, Expr, ExprId, ExprKind, Ident, Program};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use pest::error::InputLocation;
use pest::iterators::Pair;
use pest::Parser as _;

/// The pest parser generated from `p4.pest`, and its `Rule` enum (one variant per rule of
/// the grammar, which documents them). In a module of their own because pest generates the enum
/// without documentation, which the crate's `deny(missing_docs)` would refuse.
mod generated {
    #![allow(missing_docs)]
    /// The parser.
    #[derive(pest_derive::Parser)]
    #[grammar = "p4/p4.pest"]
    pub struct P4Parser;
}

pub use generated::{P4Parser, Rule};

/// The deepest bracket nesting the reader accepts; it keeps pest's recursion and every later
/// recursive walk within the stack.
pub const MAX_NESTING: usize = 64;

/// The deepest expression tree kept (operator chains nest without brackets).
pub const MAX_EXPR_DEPTH: u32 = 256;

/// Parses an expanded program. On a syntax error the program is empty and the error is reported.
pub fn parse_program(text: &str) -> (Program, Vec<Diagnostic>) {
    enable_error_detail();
    if let Some(diag) = nesting_limit(text) {
        return (Program::default(), vec![diag]);
    }
    let mut b = Builder::new(text);
    match P4Parser::parse(Rule::program, text) {
        Ok(mut pairs) => {
            let decls = pairs
                .next()
                .map(|p| {
                    p.into_inner()
                        .filter(|d| d.as_rule() == Rule::decl)
                        .filter_map(|d| b.decl(d))
                        .collect()
                })
                .unwrap_or_default();
            let program = Program {
                decls,
                expr_count: b.next_expr,
            };
            (program, b.diags)
        }
        Err(err) => (Program::default(), vec![syntax_error(text, &err)]),
    }
}

/// Walks pest pairs and builds AST nodes; owns the expression counter and the diagnostics.
pub(super) struct Builder<'t> {
    _text: std::marker::PhantomData<&'t str>,
    pub(super) next_expr: u32,
    pub(super) diags: Vec<Diagnostic>,
    depths: Vec<u32>,
    too_deep_reported: bool,
}

impl<'t> Builder<'t> {
    fn new(_text: &'t str) -> Builder<'t> {
        Builder {
            _text: std::marker::PhantomData,
            next_expr: 0,
            diags: Vec::new(),
            depths: Vec::new(),
            too_deep_reported: false,
        }
    }

    /// A fresh expression; a tree deeper than [`MAX_EXPR_DEPTH`] becomes an error node.
    pub(super) fn mk_expr(&mut self, kind: ExprKind, span: Span, children: &[ExprId]) -> Expr {
        let depth = 1 + children
            .iter()
            .map(|c| self.depths.get(c.index()).copied().unwrap_or(1))
            .max()
            .unwrap_or(0);
        let kind = if depth > MAX_EXPR_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.diags.push(too_deep(span, "operators"));
            }
            ExprKind::Error
        } else {
            kind
        };
        let id = ExprId(self.next_expr);
        self.next_expr += 1;
        self.depths
            .push(if kind == ExprKind::Error { 1 } else { depth });
        Expr { id, kind, span }
    }

    /// A name (`name` rule: an identifier, a soft keyword or a keyword, which is reported).
    pub(super) fn name(&mut self, pair: Pair<'t, Rule>) -> Ident {
        let span = span_of(&pair);
        let inner = pair.clone().into_inner().next();
        if let Some(p) = &inner {
            if p.as_rule() == Rule::bad_keyword_ident {
                self.diags.push(
                    Diagnostic::new(
                        codes::E0701,
                        span,
                        format!("`{}` is a keyword and cannot be used as a name", p.as_str()),
                    )
                    .label("reserved word")
                    .help(format!("choose another name, such as `{}_`", p.as_str())),
                );
            }
        }
        Ident {
            name: pair.as_str().trim().to_string(),
            span,
        }
    }

    /// An identifier from a terminal pair.
    pub(super) fn ident(&self, pair: &Pair<'t, Rule>) -> Ident {
        Ident {
            name: pair.as_str().trim().to_string(),
            span: span_of(pair),
        }
    }

    /// Annotations (`annotations` rule).
    pub(super) fn annotations(&self, pair: Pair<'t, Rule>) -> Vec<Annotation> {
        pair.into_inner()
            .filter(|p| p.as_rule() == Rule::annotation)
            .map(|a| {
                let span = span_of(&a);
                let mut parts = a.into_inner();
                let name = parts.next().map(|n| self.ident(&n)).unwrap_or(Ident {
                    name: String::new(),
                    span,
                });
                let body = parts.next().map(|b| {
                    let s = b.as_str();
                    s.get(1..s.len().saturating_sub(1))
                        .unwrap_or("")
                        .to_string()
                });
                Annotation { name, body, span }
            })
            .collect()
    }

    /// Reports a construct the reader does not support (E0702).
    pub(super) fn unsupported(&mut self, span: Span, what: &str) {
        self.diags.push(unsupported(span, what));
    }
}

/// "not supported yet: WHAT" (E0702) at `span`.
pub fn unsupported(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(codes::E0702, span, format!("not supported yet: {what}"))
        .label("not supported by scenicc's P4 reader")
        .note("docs/p4.md lists the supported subset of P4_16")
}

/// The span of a pair, without trailing whitespace.
pub(super) fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let s = pair.as_span();
    let trimmed = pair.as_str().trim_end().len();
    Span::new(s.start(), s.start() + trimmed)
}

fn too_deep(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(codes::E0701, span, format!("{what} nested too deeply"))
        .label("the limit is reached here")
        .note(format!(
            "scenicc reads at most {MAX_NESTING} levels of brackets and expressions {MAX_EXPR_DEPTH} operators deep"
        ))
        .help("split the expression or name intermediate values")
}

/// E0701 when brackets (outside comments and strings) nest deeper than [`MAX_NESTING`].
fn nesting_limit(text: &str) -> Option<Diagnostic> {
    let bytes = text.as_bytes();
    let (mut depth, mut angles, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(bytes.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2 + bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |p| p + 2);
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                if bytes[i] == b'{' {
                    angles = 0;
                }
                if depth > MAX_NESTING {
                    return Some(too_deep(Span::new(i, i + 1), "brackets"));
                }
            }
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if bytes[i] == b'}' {
                    angles = 0;
                }
            }
            // Type arguments nest with `<`; comparisons never close, so the count starts over
            // at every statement boundary.
            b'<' => {
                angles += 1;
                if angles > MAX_NESTING {
                    return Some(too_deep(Span::new(i, i + 1), "brackets"));
                }
            }
            b'>' => angles = angles.saturating_sub(1),
            b';' => angles = 0,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Asks pest to record the tokens it expected at the failure point, so E0701 can name them.
fn enable_error_detail() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| pest::set_error_detail(true));
}

/// Turns a pest failure into E0701, naming what was expected.
fn syntax_error(text: &str, err: &pest::error::Error<Rule>) -> Diagnostic {
    let coarse = match err.location {
        InputLocation::Pos(pos) => pos,
        InputLocation::Span((start, _)) => start,
    };
    let mut expected: Vec<String> = err
        .parse_attempts()
        .map(|a| {
            a.expected_tokens()
                .into_iter()
                .map(|t| t.to_string())
                .filter(|t| !t.trim().is_empty() && t != "BUILTIN_RULE" && !t.contains(".."))
                .filter(|t| !matches!(t.as_str(), "//" | "/*" | "@"))
                .map(|t| format!("`{}`", t.trim()))
                .collect()
        })
        .unwrap_or_default();
    let pos = match err.parse_attempts() {
        Some(a) if !expected.is_empty() => a.max_position,
        _ => coarse,
    };
    expected.sort();
    expected.dedup();
    let found = describe_found(text, pos);
    // Operators that could continue an expression say nothing useful one by one.
    let before = expected.len();
    expected.retain(|t| !OPERATORS.contains(&t.trim_matches('`')));
    if expected.len() < before {
        expected.push("an operator".to_string());
    }
    if expected.iter().any(|e| e == "`;`") && expected.len() <= 4 {
        let end = text
            .get(..pos.min(text.len()))
            .unwrap_or("")
            .trim_end()
            .len();
        return Diagnostic::new(
            codes::E0701,
            Span::new(end, end),
            format!("expected `;`, found {found}"),
        )
        .label("add `;` here")
        .help("statements and declarations end with `;`");
    }
    let list = match expected.len() {
        0 => "something else".to_string(),
        1..=8 => join_or(&expected),
        n => format!(
            "{} or one of {} other tokens",
            expected[..6].join(", "),
            n - 6
        ),
    };
    Diagnostic::new(
        codes::E0701,
        token_span(text, pos),
        format!("syntax error: expected {list}, found {found}"),
    )
    .label(format!("unexpected {found}"))
}

/// Tokens that continue an expression.
const OPERATORS: &[&str] = &[
    "!=", "%", "&&", "&&&", "&", "*", "+", "++", "-", "/", "<", "<<", "<=", "==", ">", ">=", ">>",
    "^", "|", "||", "|+|", "|-|", ".", "[", "(", "?", "..", "=",
];

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// What is at `pos`, for "found ..." messages.
fn describe_found(text: &str, pos: usize) -> String {
    let rest = text.get(pos..).unwrap_or("");
    match rest.chars().next() {
        None => "end of input".to_string(),
        Some(c) if c.is_alphanumeric() || c == '_' => format!(
            "`{}`",
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        ),
        Some(c) => format!("`{c}`"),
    }
}

/// The span of the token at `pos` (at least one character, unless at the end).
fn token_span(text: &str, pos: usize) -> Span {
    let pos = pos.min(text.len());
    let rest = text.get(pos..).unwrap_or("");
    let len = match rest.chars().next() {
        None => 0,
        Some(c) if c.is_alphanumeric() || c == '_' => rest
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(rest.len(), |(i, _)| i),
        Some(c) => c.len_utf8(),
    };
    Span::new(pos, pos + len)
}
