//! Tables: key kinds, actions, the default action, sizes and constant entries.

use super::Checker;
use crate::ast::*;
use crate::consteval::Value;
use crate::diag::{codes, Diagnostic};
use crate::resolve::index::MemberDefKind;
use crate::span::Span;
use crate::typeck::signature::{sig_of, ActionSig, MatchKind, SigKind, TableSig};
use crate::types::Ty;

impl Checker<'_> {
    /// The signature of one entry of a table's `actions { }`.
    pub(crate) fn action_sig(&mut self, action: &ActionRef) -> ActionSig {
        let member = self
            .container()
            .and_then(|c| c.members.get(&action.name.name))
            .cloned();
        match member {
            Some(entry) if entry.kind == MemberDefKind::Action => {
                self.declared_action_sig(action, entry.chunk)
            }
            other => {
                if let Some(other) = other {
                    self.report(
                        Diagnostic::new(
                            codes::E0102,
                            action.name.span,
                            format!(
                                "`{}` is a {} of this scu, not an action",
                                action.name.name,
                                super::name::member_kind_name(other.kind)
                            ),
                        )
                        .label("name taken by another member"),
                    );
                }
                self.inline_action_sig(action)
            }
        }
    }

    /// An `action` member listed by name; its parameters must be entry data (E0412).
    fn declared_action_sig(&mut self, action: &ActionRef, chunk: u32) -> ActionSig {
        if action.params.is_some() {
            self.report(
                Diagnostic::new(
                    codes::E0412,
                    action.name.span,
                    format!(
                        "action `{}` is declared below; do not repeat its parameters here",
                        action.name.name
                    ),
                )
                .label("parameters written twice")
                .help(format!("list it as `{}`", action.name.name)),
            );
        }
        let params = match &sig_of(self.db, self.file, chunk).kind {
            SigKind::Action { params } => params.clone(),
            _ => Vec::new(),
        };
        for (name, ty) in &params {
            if !is_action_param(ty) {
                self.report(
                    Diagnostic::new(
                        codes::E0412,
                        action.name.span,
                        format!(
                            "action `{}` has a parameter `{name}` of type `{ty}`",
                            action.name.name
                        ),
                    )
                    .label("cannot be a table action")
                    .note("action parameters are data stored in table entries: bit<N>, int<N>, bool or an enum"),
                );
            }
        }
        ActionSig {
            name: action.name.name.clone(),
            params,
            has_body: true,
        }
    }

    /// An inline action `name(params)` (or a bare name): parameters only, no body.
    fn inline_action_sig(&mut self, action: &ActionRef) -> ActionSig {
        let params = action
            .params
            .as_deref()
            .map(|p| {
                crate::typeck::signature::fields(
                    self,
                    p,
                    crate::typeck::signature::FieldRule::Param,
                )
            })
            .unwrap_or_default();
        for p in &params {
            if !is_action_param(&p.ty) {
                self.report(
                    Diagnostic::new(
                        codes::E0412,
                        p.span,
                        format!("action parameter `{}` has type `{}`", p.name, p.ty),
                    )
                    .label("not a bit<N>, int<N>, bool or enum")
                    .note("action parameters are data stored in table entries"),
                );
            }
        }
        ActionSig {
            name: action.name.name.clone(),
            params: params.into_iter().map(|p| (p.name, p.ty)).collect(),
            has_body: false,
        }
    }

    /// The type of a table key expression.
    pub(crate) fn key_type(&mut self, key: &Expr) -> Ty {
        let typed = self.expr(key, None);
        if matches!(typed.ty, Ty::IntLit | Ty::DecimalLit) {
            self.error(
                codes::E0201,
                key.span,
                "a table key must be a packet value, not a constant",
                "constant key",
            );
            return Ty::Error;
        }
        typed.ty
    }

    /// Checks a table's body: keys, default action, entries (the signature already resolved types).
    pub(crate) fn check_table(&mut self, table: &TableDecl, sig: &TableSig) {
        for (what, span) in &table.repeated {
            self.error(
                codes::E0102,
                *span,
                format!("`{what}` is given more than once"),
                "repeated table property",
            );
        }
        self.note_table_uses(table);
        let keys = table
            .keys
            .as_ref()
            .map(|(k, _)| k.as_slice())
            .unwrap_or(&[]);
        if keys.is_empty() {
            self.report(
                Diagnostic::new(
                    codes::E0411,
                    table.name.span,
                    format!("table `{}` has no key", table.name.name),
                )
                .label("nothing to match on")
                .help("add `key { field: exact }`; for an unconditional action, call it directly"),
            );
        }
        if table.size.is_none() && table.entries.is_none() {
            self.report(
                Diagnostic::new(
                    codes::E0411,
                    table.name.span,
                    format!("table `{}` has no size", table.name.name),
                )
                .label("how many entries?")
                .note("table memory is allocated when the hardware is built")
                .help("add `size N;`, or constant `entries { ... }` for a fixed table"),
            );
        }
        if sig.actions.len() <= 1 {
            self.report(
                Diagnostic::new(
                    codes::E0411,
                    table.name.span,
                    format!("table `{}` has no actions", table.name.name),
                )
                .label("nothing to choose")
                .help("add `actions { name, ... }`"),
            );
        }
        self.key_kinds(keys, sig);
        self.duplicate_actions(table);
        if let Some(default) = &table.default {
            self.action_call(default, sig, "default action");
        }
        if let Some((entries, span)) = &table.entries {
            self.entries(entries, *span, sig);
        }
    }

    /// Table keys and action lists name members; count them as used.
    fn note_table_uses(&mut self, table: &TableDecl) {
        for action in table.actions.iter().flat_map(|(a, _)| a) {
            self.note_use(&action.name.name);
        }
        // A default or entry naming an action member uses it, even when it is not listed (E0404).
        let calls = table.default.iter().chain(
            table
                .entries
                .iter()
                .flat_map(|(entries, _)| entries.iter().map(|e| &e.action)),
        );
        for call in calls {
            self.note_use(&call.name.name);
        }
        for key in table.keys.iter().flat_map(|(k, _)| k) {
            collect_names(&key.expr, &mut |name| {
                self.summary.used.insert(name.to_string())
            });
        }
    }

    fn key_kinds(&mut self, keys: &[KeyElem], sig: &TableSig) {
        let mut lpm: Option<Span> = None;
        for (key, (ty, kind)) in keys.iter().zip(&sig.keys) {
            let fits = match kind {
                MatchKind::Exact => matches!(ty, Ty::Bit(_) | Ty::Int(_) | Ty::Bool | Ty::Enum(_)),
                MatchKind::Lpm | MatchKind::Range => matches!(ty, Ty::Bit(_)),
                MatchKind::Ternary => matches!(ty, Ty::Bit(_) | Ty::Bool),
            };
            if !fits && !ty.is_error() {
                self.report(
                    Diagnostic::new(codes::E0401, key.kind.span, format!("`{}` keys cannot match a `{ty}`", kind.name()))
                        .label(format!("`{}` on `{ty}`", kind.name()))
                        .secondary(key.expr.span, format!("this is a `{ty}`"))
                        .note("exact takes bit<N>, int<N>, bool or an enum; lpm and range take bit<N>; ternary takes bit<N> or bool"),
                );
            }
            if *kind == MatchKind::Lpm {
                if let Some(first) = lpm {
                    self.report(
                        Diagnostic::new(
                            codes::E0402,
                            key.kind.span,
                            "a table can have only one `lpm` key",
                        )
                        .label("second lpm key")
                        .secondary(first, "first lpm key")
                        .help("make the other key `ternary`"),
                    );
                }
                lpm = Some(key.kind.span);
            }
        }
    }

    fn duplicate_actions(&mut self, table: &TableDecl) {
        let actions = table
            .actions
            .iter()
            .flat_map(|(a, _)| a)
            .collect::<Vec<_>>();
        for (i, action) in actions.iter().enumerate() {
            if let Some(first) = actions[..i]
                .iter()
                .find(|a| a.name.name == action.name.name)
            {
                self.report(
                    Diagnostic::new(
                        codes::E0102,
                        action.name.span,
                        format!("action `{}` is listed twice", action.name.name),
                    )
                    .label("listed again")
                    .secondary(first.name.span, "first listed here"),
                );
            }
        }
    }

    /// `name(args)` as a default action or an entry's action.
    fn action_call(&mut self, call: &ActionCall, sig: &TableSig, what: &str) {
        let Some(action) = sig.actions.iter().find(|a| a.name == call.name.name) else {
            let list: Vec<&str> = sig.actions.iter().map(|a| a.name.as_str()).collect();
            self.report(
                Diagnostic::new(
                    codes::E0404,
                    call.name.span,
                    format!(
                        "the {what} `{}` is not one of this table's actions",
                        call.name.name
                    ),
                )
                .label("not listed in `actions`")
                .note(format!("the actions are {}", list.join(", "))),
            );
            for arg in &call.args {
                self.expr(arg, None);
            }
            return;
        };
        if action.params.len() != call.args.len() {
            self.report(
                Diagnostic::new(
                    codes::E0403,
                    call.span,
                    format!(
                        "action `{}` takes {}, but {} given",
                        action.name,
                        count(action.params.len(), "argument"),
                        count_given(call.args.len())
                    ),
                )
                .label("wrong number of arguments"),
            );
        }
        for (arg, (_, ty)) in call.args.iter().zip(&action.params) {
            self.const_value(arg, Some(ty));
        }
    }

    fn entries(&mut self, entries: &[Entry], span: Span, sig: &TableSig) {
        if let Some(size) = sig.size {
            if entries.len() as u64 > size {
                self.report(
                    Diagnostic::new(
                        codes::E0410,
                        span,
                        format!(
                            "{} entries do not fit in a table of size {size}",
                            entries.len()
                        ),
                    )
                    .label("too many entries")
                    .help(format!("raise `size` to at least {}", entries.len())),
                );
            }
        }
        let mut seen: Vec<(Vec<Option<Value>>, Span)> = Vec::new();
        for entry in entries {
            if entry.keys.len() != sig.keys.len() {
                self.report(
                    Diagnostic::new(
                        codes::E0406,
                        entry.span,
                        format!(
                            "this entry has {}, but the table has {}",
                            count(entry.keys.len(), "key"),
                            sig.keys.len()
                        ),
                    )
                    .label("one pattern per key, separated by commas"),
                );
            }
            let values: Vec<Option<Value>> = entry
                .keys
                .iter()
                .zip(&sig.keys)
                .map(|(pattern, (ty, kind))| self.entry_key(pattern, ty, *kind))
                .collect();
            self.action_call(&entry.action, sig, "action");
            if values.iter().all(Option::is_some) && !values.is_empty() {
                if let Some((_, first)) = seen.iter().find(|(v, _)| *v == values) {
                    let first = *first;
                    self.duplicate_entry(entry.span, first, sig);
                }
                seen.push((values, entry.span));
            }
        }
    }

    /// Two constant entries with the same key: in a priority table (ternary or range keys) the second
    /// never matches (W0006); any other table cannot hold both (E0102).
    fn duplicate_entry(&mut self, span: Span, first: Span, sig: &TableSig) {
        let priority = sig
            .keys
            .iter()
            .any(|(_, k)| matches!(k, MatchKind::Ternary | MatchKind::Range));
        let diag = if priority {
            Diagnostic::new(
                codes::W0006,
                span,
                "this entry repeats an earlier key and never matches",
            )
            .label("duplicate key")
            .note("the first matching entry wins in a table with ternary or range keys")
        } else {
            Diagnostic::new(codes::E0102, span, "two entries with the same key")
                .label("duplicate key")
                .note("a table without ternary or range keys holds at most one entry per key")
                .help("remove one of them")
        };
        self.report(diag.secondary(first, "first entry with this key"));
    }

    /// One key pattern of an entry; returns its value when it is a plain exact value.
    fn entry_key(&mut self, pattern: &Pattern, ty: &Ty, kind: MatchKind) -> Option<Value> {
        let allowed = match (&pattern.kind, kind) {
            (PatternKind::Value(_), _) => true,
            (PatternKind::Wildcard, k) => k != MatchKind::Exact,
            (PatternKind::Masked { .. }, MatchKind::Ternary) => true,
            (PatternKind::Range { .. }, MatchKind::Range) => true,
            _ => false,
        };
        if !allowed {
            let expected = match kind {
                MatchKind::Exact => "a value",
                MatchKind::Lpm => "a value, a prefix such as `10.0.0.0/8`, or `_`",
                MatchKind::Ternary => "a value, `value &&& mask`, a prefix or `_`",
                MatchKind::Range => "a value, a range `lo..=hi` or `_`",
            };
            self.report(
                Diagnostic::new(
                    codes::E0406,
                    pattern.span,
                    format!("this pattern does not fit {} key", kind.with_article()),
                )
                .label(format!("expected {expected}")),
            );
            return None;
        }
        match &pattern.kind {
            PatternKind::Value(e) => {
                let is_prefix = matches!(
                    e.kind,
                    ExprKind::Lit(
                        Literal::Ipv4 {
                            prefix: Some(_),
                            ..
                        } | Literal::Ipv6 {
                            prefix: Some(_),
                            ..
                        }
                    )
                );
                if is_prefix && kind == MatchKind::Exact {
                    self.error(
                        codes::E0406,
                        pattern.span,
                        "a prefix cannot match an `exact` key",
                        "make the key `lpm` or `ternary`",
                    );
                    return None;
                }
                let value = self.value_pattern(e, ty);
                (!is_prefix).then_some(value).flatten()
            }
            PatternKind::Masked { value, mask } => {
                self.value_pattern(value, ty);
                self.value_pattern(mask, ty);
                None
            }
            PatternKind::Range { .. } => {
                let mut coverage = super::pattern::Coverage::default();
                self.arm_pattern(pattern, ty, &mut coverage);
                None
            }
            _ => None,
        }
    }
}

/// Calls `f` with every single-segment name in an expression (for usage tracking).
pub(crate) fn collect_names(expr: &Expr, f: &mut dyn FnMut(&str) -> bool) {
    match &expr.kind {
        ExprKind::Path(p) if p.is_single() => {
            f(&p.segments[0].name);
        }
        ExprKind::Field { base, .. } | ExprKind::Cast { value: base, .. } => collect_names(base, f),
        ExprKind::Index { base, index } => {
            collect_names(base, f);
            collect_names(index, f);
        }
        ExprKind::Slice { base, .. } => collect_names(base, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_names(lhs, f);
            collect_names(rhs, f);
        }
        ExprKind::Unary { operand, .. } => collect_names(operand, f),
        ExprKind::If {
            cond,
            then,
            otherwise,
        } => {
            collect_names(cond, f);
            collect_names(then, f);
            collect_names(otherwise, f);
        }
        _ => {}
    }
}

/// Whether an action parameter may have type `ty`: table entries store bit strings, bools and enums.
fn is_action_param(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Bit(_) | Ty::Int(_) | Ty::Bool | Ty::Enum(_) | Ty::Error
    )
}

/// `1 argument`, `2 arguments`.
pub(crate) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `1 was`, `2 were`.
fn count_given(n: usize) -> String {
    if n == 1 {
        "1 was".to_string()
    } else {
        format!("{n} were")
    }
}
