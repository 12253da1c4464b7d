//! Parsing one chunk of source text into the AST.
//!
//! pest does the recognising (`grammar.pest`); the submodules walk pest's pairs and build
//! [`crate::ast`] nodes with chunk-relative spans. Syntax errors become [`Diagnostic`]s: pest's own
//! failure position and expected tokens for E0001, and the grammar's `bad_*` rules for mistakes that
//! deserve a specific message. A chunk that fails to parse yields an `Error` node, so later stages
//! simply skip it.

mod cond;
mod expr;
mod item;
mod literal;
pub use literal::fmt_rational;
mod stmt;

use crate::ast::{Expr, ExprId, ExprKind, Ident, Item, ItemKind, Member, MemberKind};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::split::ChunkKind;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::Parser;

/// The pest parser generated from `grammar.pest`, and its `Rule` enum (one variant per rule of
/// the grammar, which documents them). In a module of their own because pest generates the enum
/// without documentation, which the crate's `deny(missing_docs)` would refuse.
mod generated {
    #![allow(missing_docs)]
    /// The parser.
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar.pest"]
    pub struct SnParser;
}

pub use generated::{Rule, SnParser};

/// The AST of one chunk.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChunkAst {
    /// A top-level item, or the head of an `scu`/`cc` (as [`ItemKind::Scu`]/[`ItemKind::Cc`]).
    Item(Item),
    /// A member of an `scu`/`cc` body.
    Member(Member),
}

/// The result of parsing one chunk.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParsedChunk {
    /// The AST; an `Error` node if the chunk could not be read.
    pub ast: ChunkAst,
    /// One more than the largest [`ExprId`] in the chunk.
    pub expr_count: u32,
    /// Syntax errors, with chunk-relative spans.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses the text of one chunk.
pub fn parse_chunk(text: &str, kind: ChunkKind) -> ParsedChunk {
    let rule = match kind {
        ChunkKind::Item => Rule::item_entry,
        ChunkKind::ScuHead => Rule::scu_head_entry,
        ChunkKind::CcHead => Rule::cc_head_entry,
        ChunkKind::Member { .. } => Rule::member_entry,
    };
    enable_error_detail();
    let mut builder = Builder::new(text);
    if let Some(diag) = nesting_limit(text) {
        return ParsedChunk {
            ast: error_ast(kind, text),
            expr_count: 0,
            diagnostics: vec![diag],
        };
    }
    let ast = match SnParser::parse(rule, text) {
        Ok(mut pairs) => {
            let entry = pairs.next();
            let node = entry.and_then(|e| builder.children(e).next());
            match (node, kind) {
                (Some(node), ChunkKind::Member { .. }) => ChunkAst::Member(builder.member(node)),
                (Some(node), _) => ChunkAst::Item(builder.item(node)),
                (None, _) => error_ast(kind, text),
            }
        }
        Err(err) => {
            builder.diags.push(syntax_error(text, rule, &err));
            error_ast(kind, text)
        }
    };
    ParsedChunk {
        ast,
        expr_count: builder.next_expr,
        diagnostics: builder.diags,
    }
}

/// Parses a lone expression (for tools and tests).
pub fn parse_expr(text: &str) -> (Option<Expr>, Vec<Diagnostic>) {
    let mut builder = Builder::new(text);
    match SnParser::parse(Rule::expr_entry, text) {
        Ok(mut pairs) => {
            let expr = pairs
                .next()
                .and_then(|entry| builder.children(entry).next())
                .map(|pair| builder.expr(pair));
            (expr, builder.diags)
        }
        Err(err) => (None, vec![syntax_error(text, Rule::expr_entry, &err)]),
    }
}

/// The deepest bracket nesting a chunk may have. Real programs stay far below it; the limit keeps
/// every recursive walk over the AST (here, in the checker and in later stages) within the stack.
pub const MAX_NESTING: usize = 64;

/// The deepest expression tree the builder keeps (long operator chains nest without brackets).
pub const MAX_EXPR_DEPTH: u32 = 256;

/// E0014 when brackets (outside comments) nest deeper than [`MAX_NESTING`].
fn nesting_limit(text: &str) -> Option<Diagnostic> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
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
            b'{' | b'(' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(too_deep(Span::new(i, i + 1), "brackets"));
                }
            }
            b'}' | b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

fn too_deep(span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(codes::E0014, span, format!("{what} nested too deeply"))
        .label("the limit is reached here")
        .note(format!(
            "scenic accepts at most {MAX_NESTING} levels of brackets and expressions {MAX_EXPR_DEPTH} operators deep"
        ))
        .help("split the code into functions or name intermediate values with `let`")
}

/// Asks pest to record the tokens it expected at the failure point, so E0001 can name them.
fn enable_error_detail() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| pest::set_error_detail(true));
}

fn error_ast(kind: ChunkKind, text: &str) -> ChunkAst {
    let span = Span::new(0, text.len());
    match kind {
        ChunkKind::Member { .. } => ChunkAst::Member(Member {
            kind: MemberKind::Error,
            span,
        }),
        _ => ChunkAst::Item(Item {
            kind: ItemKind::Error,
            span,
        }),
    }
}

/// Walks pest pairs and builds AST nodes; owns the expression counter and the diagnostics.
pub(crate) struct Builder<'t> {
    pub(crate) text: &'t str,
    pub(crate) next_expr: u32,
    pub(crate) diags: Vec<Diagnostic>,
    /// Depth of each expression built so far, by id.
    depths: Vec<u32>,
    too_deep_reported: bool,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Builder<'t> {
        Builder {
            text,
            next_expr: 0,
            diags: Vec::new(),
            depths: Vec::new(),
            too_deep_reported: false,
        }
    }

    /// The children of `pair`, without keyword tokens.
    pub(crate) fn children(&self, pair: Pair<'t, Rule>) -> impl Iterator<Item = Pair<'t, Rule>> {
        pair.into_inner()
            .filter(|p| !is_keyword_token(p.as_rule()) && p.as_rule() != Rule::EOI)
    }

    /// A fresh expression node.
    pub(crate) fn mk_expr(&mut self, kind: ExprKind, span: Span) -> Expr {
        let depth = 1 + expr_children(&kind)
            .map(|c| self.depth(c.id))
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
        self.depths.push(if matches!(kind, ExprKind::Error) {
            1
        } else {
            depth
        });
        Expr { id, kind, span }
    }

    fn depth(&self, id: ExprId) -> u32 {
        self.depths.get(id.index()).copied().unwrap_or(1)
    }

    /// A name; a reserved word here is reported (E0006) and kept so checking can go on.
    pub(crate) fn ident(&mut self, pair: Pair<'t, Rule>) -> Ident {
        let span = span_of(&pair);
        if pair.as_rule() == Rule::bad_keyword_ident {
            self.diags.push(
                Diagnostic::new(
                    codes::E0006,
                    span,
                    format!(
                        "`{}` is a keyword and cannot be used as a name",
                        pair.as_str()
                    ),
                )
                .label("reserved word")
                .help(format!("choose another name, such as `{}_`", pair.as_str())),
            );
        }
        Ident {
            name: pair.as_str().to_string(),
            span,
        }
    }
}

/// The direct sub-expressions of an expression (types and patterns aside).
fn expr_children(kind: &ExprKind) -> Box<dyn Iterator<Item = &Expr> + '_> {
    match kind {
        ExprKind::Field { base, .. } | ExprKind::Cast { value: base, .. } => {
            Box::new(std::iter::once(&**base))
        }
        ExprKind::Unary { operand, .. } => Box::new(std::iter::once(&**operand)),
        ExprKind::Index { base, index } => Box::new([&**base, &**index].into_iter()),
        ExprKind::Slice { base, hi, lo } => Box::new([&**base, &**hi, &**lo].into_iter()),
        ExprKind::Binary { lhs, rhs, .. } => Box::new([&**lhs, &**rhs].into_iter()),
        ExprKind::Call { callee, args } => Box::new(std::iter::once(&**callee).chain(args.iter())),
        ExprKind::MethodCall { receiver, args, .. } => {
            Box::new(std::iter::once(&**receiver).chain(args.iter()))
        }
        ExprKind::StructLit { fields, .. } => Box::new(fields.iter().map(|(_, e)| e)),
        ExprKind::Tuple(items) | ExprKind::Array(items) => Box::new(items.iter()),
        ExprKind::If {
            cond,
            then,
            otherwise,
        } => Box::new([&**cond, &**then, &**otherwise].into_iter()),
        ExprKind::Lit(_) | ExprKind::Path(_) | ExprKind::Error => Box::new(std::iter::empty()),
    }
}

/// The chunk-relative span of a pair.
pub(crate) fn span_of(pair: &Pair<'_, Rule>) -> Span {
    // pest may include whitespace consumed by a failed repetition at the end of a pair; labels
    // should end at the last character of the construct.
    let s = pair.as_span();
    let trimmed = pair.as_str().trim_end().len();
    Span::new(s.start(), s.start() + trimmed)
}

fn is_keyword_token(rule: Rule) -> bool {
    use Rule::*;
    matches!(
        rule,
        kw_action
            | kw_accept
            | kw_as
            | kw_cc
            | kw_const
            | kw_control
            | kw_counter
            | kw_csr
            | kw_deparser
            | kw_else
            | kw_enum
            | kw_every
            | kw_fn
            | kw_for
            | kw_header
            | kw_if
            | kw_in
            | kw_let
            | kw_map
            | kw_match
            | kw_meter
            | kw_on
            | kw_out
            | kw_param
            | kw_parser
            | kw_reject
            | kw_return
            | kw_scu
            | kw_state
            | kw_stream
            | kw_struct
            | kw_table
            | kw_use
            | kw_actions
            | kw_batch
            | kw_budget
            | kw_default
            | kw_entries
            | kw_errors
            | kw_headers
            | kw_key
            | kw_meta
            | kw_output
            | kw_per
            | kw_restart
            | kw_size
    )
}

/// Turns a pest failure into E0001 (or E0011 for a missing `;`), naming what was expected.
fn syntax_error(text: &str, entry_rule: Rule, err: &pest::error::Error<Rule>) -> Diagnostic {
    let (pos, raw) = failure_point(err);
    let found = describe_found(text, pos);
    let span = token_span(text, pos);
    let expected = summarize_expected(raw);
    let what = match entry_rule {
        Rule::member_entry => "in this member",
        Rule::scu_head_entry => "in this `scu` head",
        Rule::cc_head_entry => "in this `cc` head",
        _ => "here",
    };
    if expected.iter().any(|e| e == "`;`") && expected.len() <= 4 {
        let end = previous_token_end(text, pos);
        return Diagnostic::new(
            codes::E0011,
            Span::new(end, end),
            format!("expected `;`, found {found}"),
        )
        .label("add `;` here")
        .help("statements and declarations such as `let`, `csr` and `const` end with `;`");
    }
    let list = match expected.len() {
        0 => String::from("something else"),
        1..=8 => join_or(&expected),
        _ => format!(
            "{} or one of {} other tokens",
            expected[..6].join(", "),
            expected.len() - 6
        ),
    };
    Diagnostic::new(
        codes::E0001,
        span,
        format!("syntax error {what}: expected {list}, found {found}"),
    )
    .label(format!("unexpected {found}"))
}

/// Where parsing failed and what could have come there: pest's detailed attempts when it has them
/// (their position and their tokens agree), its coarse error position and rules otherwise.
fn failure_point(err: &pest::error::Error<Rule>) -> (usize, Vec<String>) {
    let coarse = match err.location {
        InputLocation::Pos(pos) => pos,
        InputLocation::Span((start, _)) => start,
    };
    let mut raw = expected_tokens(err);
    let pos = match err.parse_attempts() {
        Some(attempts) if !raw.is_empty() => attempts.max_position,
        _ => coarse,
    };
    // Rules (such as literals, which are atomic) only show up in pest's coarse report.
    if let (ErrorVariant::ParsingError { positives, .. }, true) = (&err.variant, pos == coarse) {
        raw.extend(positives.iter().filter_map(|r| rule_description(*r)));
    }
    (pos, raw)
}

/// The end of the last token before `pos` (skipping whitespace and comments' trailing blanks).
fn previous_token_end(text: &str, pos: usize) -> usize {
    let before = &text[..pos.min(text.len())];
    before.trim_end().len()
}

const OPERATORS: &[&str] = &[
    "!=", "%", "&&", "&", "*", "+", "++", "-", "/", "<", "<<", "<=", "==", ">", ">=", ">>", "^",
    "|", "||", "|+|", "|-|", ".", "[", "(", "as",
];
const EXPR_STARTS: &[&str] = &["!", "~", "0b", "0x", "0o", "::", "true", "false", "if"];
/// Tokens only `bad_*` rules accept (`?` of `c ? a : b`): never suggested.
const BAD_ONLY: &[&str] = &["?"];

/// Collapses pest's raw expected tokens into a short, readable list: operator tokens become "an
/// operator", tokens that only start an expression become "an expression".
fn summarize_expected(raw: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut operator = false;
    let mut expression = false;
    for token in raw {
        let bare = token.trim_matches('`');
        if (bare.starts_with("/") && (bare == "//" || bare == "/*")) || BAD_ONLY.contains(&bare) {
            continue;
        }
        if OPERATORS.contains(&bare) {
            operator = true;
            if bare == "(" {
                expression = true;
            }
        } else if EXPR_STARTS.contains(&bare) || (bare == "-" || bare == "[") {
            expression = true;
        } else {
            out.push(token);
        }
    }
    out.sort();
    out.dedup();
    if expression && !operator {
        out.push("an expression".to_string());
    }
    if operator {
        out.push("an operator".to_string());
    }
    out
}

fn expected_tokens(err: &pest::error::Error<Rule>) -> Vec<String> {
    let Some(attempts) = err.parse_attempts() else {
        return Vec::new();
    };
    attempts
        .expected_tokens()
        .into_iter()
        .map(|token| token.to_string())
        .filter(|t| t != "BUILTIN_RULE" && !(t.chars().count() == 4 && t.contains("..")))
        .filter(|t| !t.trim().is_empty())
        .map(|t| format!("`{t}`"))
        .collect()
}

fn rule_description(rule: Rule) -> Option<String> {
    use Rule::*;
    if is_keyword_token(rule) {
        let rule_name = format!("{rule:?}");
        return Some(format!("`{}`", rule_name.trim_start_matches("kw_")));
    }
    Some(
        match rule {
            ident | path | bad_keyword_ident => "a name",
            expr | int_lit | literal => "an expression",
            ty | named_ty => "a type",
            pattern => "a pattern",
            block => "`{`",
            stmt => "a statement",
            transition | goto_state => "a transition (`accept`, `reject`, a state or `match`)",
            item => "an item",
            member => "a member",
            EOI => "end of item",
            _ => return None,
        }
        .to_string(),
    )
}

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
    let token: String = match rest.chars().next() {
        None => return "end of input".to_string(),
        Some(c) if c.is_alphanumeric() || c == '_' => rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect(),
        Some(c) => c.to_string(),
    };
    format!("`{token}`")
}

/// The span of the token at `pos` (at least one character, unless at end of input).
fn token_span(text: &str, pos: usize) -> Span {
    let pos = pos.min(text.len());
    let rest = &text[pos..];
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
