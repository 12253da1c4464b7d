//! Parser state machines: states and transitions, select patterns, reachability, termination.
//!
//! Termination rule: every cycle in the state graph must extract a header, because each extraction
//! consumes packet bytes and a packet is finite; a cycle that extracts nothing could spin forever.

use super::{BodyKind, Checker, Local};
use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::types::Ty;
use indexmap::IndexMap;
use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;

impl Checker<'_> {
    /// Checks a `parser { }` member whose `parser` keyword starts at `head`.
    pub(crate) fn check_parser(&mut self, decl: &ParserDecl, head: Span) {
        self.kind = BodyKind::Parser;
        let mut states: IndexMap<String, usize> = IndexMap::new();
        for (i, state) in decl.states.iter().enumerate() {
            if let Some(&first) = states.get(&state.name.name) {
                let first_span = decl.states[first].name.span;
                self.report(
                    Diagnostic::new(
                        codes::E0102,
                        state.name.span,
                        format!("state `{}` is defined more than once", state.name.name),
                    )
                    .label("defined again")
                    .secondary(first_span, "first defined here"),
                );
                continue;
            }
            states.insert(state.name.name.clone(), i);
        }
        let start = states.get("start").copied();
        if start.is_none() {
            let mut diag = Diagnostic::new(codes::E0301, head, "this parser has no `start` state")
                .label("parsing begins at `start`");
            diag = match decl.states.first() {
                Some(first) => diag
                    .secondary(first.name.span, "the first state is not called `start`")
                    .help(format!(
                        "rename `{}` to `start`, or add `state start {{ ... }}`",
                        first.name.name
                    )),
                None => diag.help("add `state start { extract(...); ... }`"),
            };
            self.report(diag);
        }
        let mut graph: DiGraphMap<usize, ()> = DiGraphMap::new();
        let mut extracts = vec![false; decl.states.len()];
        for (i, state) in decl.states.iter().enumerate() {
            graph.add_node(i);
            let before = self.summary.headers.len();
            extracts[i] = self.state_body(state) || self.summary.headers.len() > before;
            for target in transition_targets(&state.transition) {
                if let Some(next) = self.target(target, &states) {
                    graph.add_edge(i, next, ());
                }
            }
        }
        if let Some(start) = start {
            self.reachability(decl, &graph, start);
        }
        self.termination(decl, &graph, &extracts);
    }

    /// Checks a state's statements and transition; true if it extracts.
    fn state_body(&mut self, state: &ParserState) -> bool {
        self.push_scope();
        let mut extracts = false;
        for stmt in &state.stmts {
            extracts |= stmt_extracts(stmt);
        }
        self.stmts(&state.stmts);
        if let Transition::Select { scrutinee, arms } = &state.transition {
            let ty = self.expr(scrutinee, None).ty;
            let mut seen_wildcard = false;
            for (pattern, _) in arms {
                if seen_wildcard {
                    self.report(
                        Diagnostic::new(codes::W0006, pattern.span, "unreachable case")
                            .label("an earlier `_` already matches everything"),
                    );
                }
                seen_wildcard |= self.select_pattern(pattern, &ty);
            }
        }
        self.pop_scope();
        self.ended = false;
        extracts
    }

    /// A select case: values, masks, ranges, prefixes, tuples; true if it matches everything.
    fn select_pattern(&mut self, pattern: &Pattern, ty: &Ty) -> bool {
        match &pattern.kind {
            PatternKind::Wildcard => true,
            PatternKind::Tuple(items) => match ty {
                Ty::Tuple(tys) if tys.len() == items.len() => {
                    let mut all = true;
                    for (item, t) in items.iter().zip(tys) {
                        all &= self.select_pattern(item, t);
                    }
                    all
                }
                _ => {
                    if !ty.is_error() {
                        self.error(
                            codes::E0201,
                            pattern.span,
                            format!("this tuple pattern cannot match `{ty}`"),
                            "wrong shape",
                        );
                    }
                    false
                }
            },
            PatternKind::Or(alts) => {
                let mut all = false;
                for alt in alts {
                    all |= self.select_pattern(alt, ty);
                }
                all
            }
            PatternKind::Value(e) => {
                self.value_pattern(e, ty);
                false
            }
            PatternKind::Masked { value, mask } => {
                self.require_bits(ty, pattern.span, "a masked case");
                self.value_pattern(value, ty);
                self.value_pattern(mask, ty);
                false
            }
            PatternKind::Range { .. } => {
                let mut coverage = super::pattern::Coverage::default();
                self.arm_pattern(pattern, ty, &mut coverage);
                false
            }
            PatternKind::Ctor { path, .. } => {
                self.error(
                    codes::E0201,
                    path.span,
                    "a select case matches values, not actions",
                    "unexpected `(...)`",
                );
                false
            }
        }
    }

    /// Resolves a transition target to a state index (None for accept/reject).
    fn target(&mut self, target: &Target, states: &IndexMap<String, usize>) -> Option<usize> {
        match target {
            Target::Accept(_) => None,
            Target::Reject(_, Some(error)) => {
                if !self.parser_errors().contains(&error.name) {
                    self.report(
                        Diagnostic::new(
                            codes::E0101,
                            error.span,
                            format!("unknown parser error `{}`", error.name),
                        )
                        .label("not a parser error")
                        .help(format!("declare it: `errors {{ {} }}`", error.name)),
                    );
                }
                None
            }
            Target::Reject(_, None) => None,
            Target::State(name) => match states.get(&name.name) {
                Some(&i) => Some(i),
                None => {
                    let mut diag = Diagnostic::new(
                        codes::E0107,
                        name.span,
                        format!("no state named `{}`", name.name),
                    )
                    .label("unknown state");
                    if let Some(s) = crate::resolve::lookup::similar_name(
                        &name.name,
                        states.keys().map(String::as_str),
                    ) {
                        diag = diag.help(format!("did you mean `{s}`?"));
                    } else {
                        diag = diag.note(
                            "a transition goes to a state of this parser, `accept` or `reject`",
                        );
                    }
                    self.report(diag);
                    None
                }
            },
        }
    }

    fn reachability(&mut self, decl: &ParserDecl, graph: &DiGraphMap<usize, ()>, start: usize) {
        let mut seen = vec![false; decl.states.len()];
        let mut stack = vec![start];
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut seen[s], true) {
                continue;
            }
            stack.extend(graph.neighbors(s));
        }
        for (i, state) in decl.states.iter().enumerate() {
            if !seen[i]
                && decl
                    .states
                    .iter()
                    .position(|s| s.name.name == state.name.name)
                    == Some(i)
            {
                self.report(
                    Diagnostic::new(
                        codes::W0002,
                        state.name.span,
                        format!("state `{}` is never reached", state.name.name),
                    )
                    .label("no transition leads here from `start`")
                    .help("remove it, or add a transition to it"),
                );
            }
        }
    }

    fn termination(&mut self, decl: &ParserDecl, graph: &DiGraphMap<usize, ()>, extracts: &[bool]) {
        for scc in tarjan_scc(graph) {
            let cyclic = scc.len() > 1 || scc.first().is_some_and(|&s| graph.contains_edge(s, s));
            if !cyclic || scc.iter().any(|&s| extracts[s]) {
                continue;
            }
            let mut names: Vec<String> = scc
                .iter()
                .map(|&s| format!("`{}`", decl.states[s].name.name))
                .collect();
            names.sort_unstable();
            let first = scc.iter().copied().min().unwrap_or(0);
            let message = match names.as_slice() {
                [one] => format!("state {one} can loop forever"),
                many => format!("states {} can loop forever", many.join(", ")),
            };
            self.report(
                Diagnostic::new(codes::E0302, decl.states[first].name.span, message)
                    .label("this loop extracts nothing")
                    .note("every loop in a parser must extract a header, so each turn consumes packet bytes")
                    .help("extract a header in one of these states, or break the loop"),
            );
        }
    }
}

fn transition_targets(t: &Transition) -> Vec<&Target> {
    match t {
        Transition::Direct(target) => vec![target],
        Transition::Select { arms, .. } => arms.iter().map(|(_, target)| target).collect(),
    }
}

/// Whether a statement calls `extract(...)`.
fn stmt_extracts(stmt: &Stmt) -> bool {
    match &stmt.kind {
        StmtKind::Expr(Expr {
            kind: ExprKind::Call { callee, .. },
            ..
        }) => matches!(&callee.kind, ExprKind::Path(p) if p.text() == "extract"),
        _ => false,
    }
}

/// Declares a handler binding (used by `on parser_error(e)` and cc events).
pub(crate) fn binding_local(name: &Ident, ty: Ty) -> Local {
    Local {
        name: name.name.clone(),
        ty,
        mutable: false,
        value: None,
        span: name.span,
        used: false,
        what: "binding",
    }
}
