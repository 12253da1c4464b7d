//! Patterns in `match` statements: what they match, the names they bind, and exhaustiveness.

use super::{Checker, Local};
use crate::ast::*;
use crate::consteval::Value;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::typeck::signature::{sig_of, SigKind};
use crate::types::Ty;
use indexmap::IndexSet;
use num_bigint::BigInt;

/// The built-in parser errors.
pub const BUILTIN_PARSER_ERRORS: &[&str] = &["packet_too_short", "no_match", "stack_overflow"];

/// What the arms of a `match` cover so far.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// A `_` (or equivalent) arm was seen.
    pub wildcard: bool,
    /// Variant, action, error or bool names covered.
    pub names: IndexSet<String>,
    /// Integer values covered by value and range patterns, as inclusive intervals (masks and
    /// prefixes are not counted).
    pub values: Vec<(BigInt, BigInt)>,
}

impl Checker<'_> {
    /// Checks one arm's pattern against the scrutinee type, binds its names, and records coverage.
    pub(crate) fn arm_pattern(&mut self, pattern: &Pattern, ty: &Ty, coverage: &mut Coverage) {
        if coverage.wildcard {
            self.report(
                Diagnostic::new(codes::W0006, pattern.span, "unreachable pattern")
                    .label("an earlier `_` arm already matches everything"),
            );
        }
        let before = coverage.names.len();
        let covered = self.pattern(pattern, ty, coverage);
        if covered && !coverage.wildcard {
            coverage.wildcard = true;
        } else if !coverage.wildcard
            && coverage.names.len() == before
            && is_named(pattern)
            && named_type(ty)
        {
            self.report(
                Diagnostic::new(codes::W0006, pattern.span, "unreachable pattern")
                    .label("already matched by an earlier arm"),
            );
        }
    }

    /// Returns whether the pattern matches every value.
    fn pattern(&mut self, pattern: &Pattern, ty: &Ty, coverage: &mut Coverage) -> bool {
        if ty.is_error() {
            // The scrutinee was already reported: bind names so the arm body checks quietly.
            self.bind_unknown(pattern);
            return matches!(pattern.kind, PatternKind::Wildcard);
        }
        match &pattern.kind {
            PatternKind::Wildcard => true,
            PatternKind::Or(alts) => {
                let mut all = false;
                for alt in alts {
                    if matches!(alt.kind, PatternKind::Ctor { ref bindings, .. } if bindings.iter().any(Option::is_some))
                    {
                        self.error(
                            codes::E0201,
                            alt.span,
                            "alternatives cannot bind names",
                            "use separate arms",
                        );
                    }
                    all |= self.pattern(alt, ty, coverage);
                }
                all
            }
            PatternKind::Tuple(items) => self.tuple_pattern(items, ty, pattern.span, coverage),
            PatternKind::Ctor { path, bindings } => {
                self.ctor_pattern(path, bindings, ty, coverage);
                false
            }
            PatternKind::Value(expr) => {
                if let Some(name) = self.named_pattern(expr, ty) {
                    coverage.names.insert(name);
                } else if let Some(v) = self.value_pattern(expr, ty).and_then(|v| v.as_int()) {
                    if ty.is_integer() && !is_prefix(expr) {
                        coverage.values.push((v.clone(), v));
                    }
                }
                false
            }
            PatternKind::Masked { value, mask } => {
                self.require_bits(ty, pattern.span, "a masked pattern");
                self.value_pattern(value, ty);
                self.value_pattern(mask, ty);
                false
            }
            PatternKind::Range { lo, hi, inclusive } => {
                if let Some(interval) = self.range_pattern(lo, hi, *inclusive, ty, pattern.span) {
                    coverage.values.push(interval);
                }
                false
            }
        }
    }

    fn tuple_pattern(
        &mut self,
        items: &[Pattern],
        ty: &Ty,
        span: Span,
        coverage: &mut Coverage,
    ) -> bool {
        let Ty::Tuple(tys) = ty else {
            if !ty.is_error() {
                self.error(
                    codes::E0201,
                    span,
                    format!("a tuple pattern cannot match `{ty}`"),
                    "not a tuple",
                );
            }
            return false;
        };
        if tys.len() != items.len() {
            self.error(
                codes::E0201,
                span,
                format!(
                    "expected a {}-tuple pattern, found {} elements",
                    tys.len(),
                    items.len()
                ),
                "wrong length",
            );
            return false;
        }
        let mut all = true;
        for (item, t) in items.iter().zip(tys) {
            let mut inner = Coverage::default();
            all &= self.pattern(item, t, &mut inner);
        }
        let _ = coverage;
        all
    }

    /// For names matched by name (variants, actions, parser errors, bools): the covered name.
    fn named_pattern(&mut self, expr: &Expr, ty: &Ty) -> Option<String> {
        match (ty, &expr.kind) {
            (Ty::Bool, ExprKind::Lit(Literal::Bool(b))) => Some(b.to_string()),
            (Ty::TableAction(t), ExprKind::Path(path)) if path.is_single() => {
                let name = &path.segments[0];
                let actions = self.table_actions(t.def.chunk);
                match actions.iter().find(|(n, _)| *n == name.name) {
                    Some((_, params)) if !params.is_empty() => {
                        self.report(
                            Diagnostic::new(
                                codes::E0403,
                                name.span,
                                format!(
                                    "action `{}` carries {}",
                                    name.name,
                                    super::table::count(params.len(), "value")
                                ),
                            )
                            .label("bind or ignore its parameters")
                            .help(format!(
                                "write `{}({})`",
                                name.name,
                                vec!["_"; params.len()].join(", ")
                            )),
                        );
                        Some(name.name.clone())
                    }
                    Some(_) => Some(name.name.clone()),
                    None => {
                        self.unknown_action(&t.name, name, &actions);
                        Some(name.name.clone())
                    }
                }
            }
            (Ty::ParserError, ExprKind::Path(path)) if path.is_single() => {
                let name = &path.segments[0];
                if !self.parser_errors().contains(&name.name) {
                    self.report(
                        Diagnostic::new(
                            codes::E0101,
                            name.span,
                            format!("unknown parser error `{}`", name.name),
                        )
                        .label("not a parser error")
                        .note(format!(
                            "parser errors here are {}",
                            self.parser_errors().join(", ")
                        )),
                    );
                }
                Some(name.name.clone())
            }
            (Ty::Enum(t), ExprKind::Path(path)) => {
                let SigKind::Enum { variants, .. } = self.enum_sig(t) else {
                    return Some(String::new());
                };
                let name = path.last();
                if variants.iter().any(|(n, _)| *n == name.name)
                    && (path.is_single() || path.segments[0].name == *t.name)
                {
                    Some(name.name.clone())
                } else {
                    let res = self.resolve_path(path);
                    if !matches!(res, super::Res::Error) {
                        self.error(
                            codes::E0101,
                            name.span,
                            format!("`{}` is not a variant of `{}`", name.name, t.name),
                            "unknown variant",
                        );
                    }
                    Some(name.name.clone())
                }
            }
            _ => None,
        }
    }

    fn ctor_pattern(
        &mut self,
        path: &Path,
        bindings: &[Option<Ident>],
        ty: &Ty,
        coverage: &mut Coverage,
    ) {
        let Ty::TableAction(t) = ty else {
            if !ty.is_error() {
                self.error(
                    codes::E0201,
                    path.span,
                    format!(
                        "`{}(...)` patterns match table actions, not `{ty}`",
                        path.text()
                    ),
                    "not a table action",
                );
            }
            return;
        };
        let name = path.last();
        let actions = self.table_actions(t.def.chunk);
        let Some((_, params)) = actions.iter().find(|(n, _)| *n == name.name) else {
            self.unknown_action(&t.name, name, &actions);
            return;
        };
        coverage.names.insert(name.name.clone());
        if params.len() != bindings.len() {
            self.report(
                Diagnostic::new(
                    codes::E0403,
                    path.span.to(name.span),
                    format!(
                        "action `{}` has {}, but the pattern binds {}",
                        name.name,
                        super::table::count(params.len(), "parameter"),
                        bindings.len()
                    ),
                )
                .label("wrong number of bindings"),
            );
        }
        for (binding, (_, pty)) in bindings.iter().zip(params) {
            if let Some(b) = binding {
                self.declare(Local {
                    name: b.name.clone(),
                    ty: pty.clone(),
                    mutable: false,
                    value: None,
                    span: b.span,
                    used: false,
                    what: "binding",
                });
            }
        }
    }

    /// Declares the names a pattern binds with an unknown type, marked used.
    fn bind_unknown(&mut self, pattern: &Pattern) {
        match &pattern.kind {
            PatternKind::Ctor { bindings, .. } => {
                for b in bindings.iter().flatten() {
                    self.declare(Local {
                        name: b.name.clone(),
                        ty: Ty::Error,
                        mutable: false,
                        value: None,
                        span: b.span,
                        used: true,
                        what: "binding",
                    });
                }
            }
            PatternKind::Or(items) | PatternKind::Tuple(items) => {
                for item in items {
                    self.bind_unknown(item);
                }
            }
            _ => {}
        }
    }

    fn unknown_action(
        &mut self,
        table: &str,
        name: &Ident,
        actions: &[(String, Vec<(String, Ty)>)],
    ) {
        let list: Vec<&str> = actions.iter().map(|(n, _)| n.as_str()).collect();
        self.report(
            Diagnostic::new(
                codes::E0404,
                name.span,
                format!("table `{table}` has no action `{}`", name.name),
            )
            .label("not one of its actions")
            .note(format!("its actions are {}", list.join(", "))),
        );
    }

    /// The actions of the table defined in `chunk`: names and parameters.
    pub(crate) fn table_actions(&self, chunk: u32) -> Vec<(String, Vec<(String, Ty)>)> {
        match &sig_of(self.db, self.file, chunk).kind {
            SigKind::Table(t) => t
                .actions
                .iter()
                .map(|a| (a.name.clone(), a.params.clone()))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The parser errors of the current scu: built-in and declared.
    pub(crate) fn parser_errors(&self) -> Vec<String> {
        let mut out: Vec<String> = BUILTIN_PARSER_ERRORS
            .iter()
            .map(|s| s.to_string())
            .collect();
        if let Some(chunk) = self.container().and_then(|c| c.parts.errors) {
            if let SigKind::Errors { names } = &sig_of(self.db, self.file, chunk).kind {
                out.extend(names.iter().cloned());
            }
        }
        out
    }

    pub(crate) fn enum_sig(&self, t: &crate::types::TypeRef) -> SigKind {
        match self.file_by_id(t.def.file) {
            Some(file) => sig_of(self.db, file, t.def.chunk).kind.clone(),
            None => SigKind::None,
        }
    }

    /// A constant pattern value of type `ty`, or an address prefix when `ty` is wide enough.
    pub(crate) fn value_pattern(&mut self, expr: &Expr, ty: &Ty) -> Option<Value> {
        if let ExprKind::Lit(Literal::Ipv4 {
            addr,
            prefix: Some(len),
        }) = &expr.kind
        {
            return self.prefix_value(u128::from(*addr), *len, 32, ty, expr.span);
        }
        if let ExprKind::Lit(Literal::Ipv6 {
            addr,
            prefix: Some(len),
        }) = &expr.kind
        {
            return self.prefix_value(*addr, *len, 128, ty, expr.span);
        }
        let typed = self.const_value(expr, Some(ty));
        typed.value
    }

    fn prefix_value(
        &mut self,
        addr: u128,
        len: u8,
        bits: u32,
        ty: &Ty,
        span: Span,
    ) -> Option<Value> {
        if *ty != Ty::Bit(bits) && !ty.is_error() {
            self.error(
                codes::E0415,
                span,
                format!("a {bits}-bit prefix cannot match `{ty}`"),
                "wrong width",
            );
            return None;
        }
        let host_bits = bits - u32::from(len);
        let host_mask = if host_bits >= 128 {
            u128::MAX
        } else {
            (1u128 << host_bits) - 1
        };
        if addr & host_mask != 0 {
            let network = addr & !host_mask;
            let shown = if bits == 32 {
                std::net::Ipv4Addr::from(network as u32).to_string()
            } else {
                std::net::Ipv6Addr::from(network).to_string()
            };
            self.report(
                Diagnostic::new(
                    codes::E0415,
                    span,
                    format!("the prefix has bits set below /{len}"),
                )
                .label("host bits must be zero")
                .help(format!(
                    "did you mean the network address `{shown}/{len}`, with the low {host_bits} bits cleared?"
                )),
            );
        }
        Some(Value::int(addr))
    }

    /// Checks `lo..hi` / `lo..=hi`; returns the integer values it matches, if it matches some.
    fn range_pattern(
        &mut self,
        lo: &Expr,
        hi: &Expr,
        inclusive: bool,
        ty: &Ty,
        span: Span,
    ) -> Option<(BigInt, BigInt)> {
        if !ty.is_numeric() && !ty.is_error() {
            self.error(
                codes::E0201,
                span,
                format!("a range cannot match `{ty}`"),
                "ranges match numbers",
            );
            return None;
        }
        let lo_v = self.value_pattern(lo, ty);
        let hi_v = self.value_pattern(hi, ty);
        if let (Some(l), Some(h)) = (
            lo_v.and_then(|v| v.as_num().cloned()),
            hi_v.and_then(|v| v.as_num().cloned()),
        ) {
            let empty = if inclusive { h < l } else { h <= l };
            if empty {
                let mut diag = Diagnostic::new(codes::E0414, span, "this range is empty")
                    .label("matches nothing");
                let show = crate::consteval::display_num;
                if !inclusive && h == l {
                    diag = diag.help(format!(
                        "`a..b` excludes b: did you mean `{}..={}`?",
                        show(&l),
                        show(&h)
                    ));
                } else if h < l {
                    let op = if inclusive { "..=" } else { ".." };
                    diag = diag.help(format!(
                        "the low end comes first: `{}{op}{}`",
                        show(&h),
                        show(&l)
                    ));
                }
                self.report(diag);
                return None;
            }
            let (l, mut h) = (l.to_integer(), h.to_integer());
            if !inclusive {
                h -= 1;
            }
            return Some((l, h));
        }
        None
    }

    pub(crate) fn require_bits(&mut self, ty: &Ty, span: Span, what: &str) {
        if !ty.is_integer() && !ty.is_error() && *ty != Ty::Bool {
            self.error(
                codes::E0201,
                span,
                format!("{what} cannot match `{ty}`"),
                "needs a bit<N>",
            );
        }
    }

    /// Reports a `match` that does not cover every value (E0502); returns whether it is exhaustive.
    pub(crate) fn check_exhaustive(&mut self, ty: &Ty, coverage: &Coverage, span: Span) -> bool {
        if coverage.wildcard || ty.is_error() {
            return true;
        }
        let all: Vec<String> = match ty {
            Ty::Bool => vec!["true".into(), "false".into()],
            Ty::Enum(t) => match self.enum_sig(t) {
                SigKind::Enum { variants, .. } => variants.into_iter().map(|(n, _)| n).collect(),
                _ => return true,
            },
            Ty::TableAction(t) => self
                .table_actions(t.def.chunk)
                .into_iter()
                .map(|(n, _)| n)
                .collect(),
            Ty::ParserError => self.parser_errors(),
            _ => Vec::new(),
        };
        let missing: Vec<&String> = all
            .iter()
            .filter(|n| !coverage.names.contains(*n))
            .collect();
        if !all.is_empty() && missing.is_empty() {
            return true;
        }
        if let Some((min, max)) = integer_range(ty) {
            match first_gap(&coverage.values, &min, &max) {
                None => return true,
                Some(gap) => {
                    self.report(
                        Diagnostic::new(
                            codes::E0502,
                            span,
                            format!("non-exhaustive match: `{gap}` not covered"),
                        )
                        .label(format!("not every `{ty}` value is matched"))
                        .help("add the missing values, or end with `_ => {}`"),
                    );
                    return false;
                }
            }
        }
        let what = if all.is_empty() {
            format!("not every `{ty}` value is matched")
        } else {
            let list: Vec<String> = missing.iter().map(|n| format!("`{n}`")).collect();
            format!("{} not covered", list.join(", "))
        };
        self.report(
            Diagnostic::new(codes::E0502, span, format!("non-exhaustive match: {what}"))
                .label("some values match no arm")
                .help("add the missing arms, or end with `_ => {}`"),
        );
        false
    }
}

/// The smallest and largest value of an integer type.
fn integer_range(ty: &Ty) -> Option<(BigInt, BigInt)> {
    let (min, max) = crate::consteval::range_of(ty).filter(|_| ty.is_integer())?;
    Some((min.to_integer(), max.to_integer()))
}

/// The smallest value in `min..=max` that no interval covers.
fn first_gap(intervals: &[(BigInt, BigInt)], min: &BigInt, max: &BigInt) -> Option<BigInt> {
    let mut sorted = intervals.to_vec();
    sorted.sort();
    let mut next = min.clone();
    for (lo, hi) in sorted {
        if lo > next {
            break;
        }
        if hi >= next {
            next = hi + 1;
        }
    }
    (next <= *max).then_some(next)
}

/// Whether a pattern value is an address prefix (`10.0.0.0/8`).
fn is_prefix(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        ExprKind::Lit(
            Literal::Ipv4 {
                prefix: Some(_),
                ..
            } | Literal::Ipv6 {
                prefix: Some(_),
                ..
            }
        )
    )
}

fn named_type(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Bool | Ty::Enum(_) | Ty::TableAction(_) | Ty::ParserError
    )
}

fn is_named(pattern: &Pattern) -> bool {
    match &pattern.kind {
        PatternKind::Value(e) => {
            matches!(e.kind, ExprKind::Path(_) | ExprKind::Lit(Literal::Bool(_)))
        }
        PatternKind::Ctor { .. } => true,
        _ => false,
    }
}
