//! Header validity facts: which header instances are known to be valid or invalid at a point.
//!
//! scenic defines a read of a field of an invalid header as 0; P4 leaves it unspecified. The writer
//! therefore guards a read (`t = 0; if (h.isValid()) { t = h.f; }`) unless it knows the header's
//! validity there: valid (read it directly) or invalid (the read is the constant 0). This module
//! computes that knowledge, a must-analysis: a fact holds only if it holds on every path.
//!
//! - Parser: every header starts invalid; `extract` makes a header valid (a stack's elements become
//!   unknown); facts meet where paths join. The control starts with the meet over the paths that
//!   accept; `on parser_error` with the meet over every state's entry and exit.
//! - Control code: `set_valid`/`set_invalid` set a fact; a whole-header assignment, or a table or
//!   action that may change a header's validity, forgets it; a condition adds what it implies on each
//!   branch (`h.valid()`, `!`, `&&` true, `||` false), so `if !ip.valid() { return; }` leaves `ip`
//!   valid after the `if`, and the right operand of `!ip.valid() || ip.ttl == 0` reads a valid `ip`.

use scenic_ir::body::{BinaryOp, UnaryOp};
use scenic_ir::{Body, Expr, ExprId, InstId, Parser, Scu, StateId, Stmt, Target, Transition};
use std::collections::BTreeMap;

/// A header instance, or one element of a stack.
pub type HeaderKey = (InstId, Option<u32>);

/// What is known about header validity at one point. `unreachable` is the point no path reaches
/// (the identity of [`Facts::meet`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    known: BTreeMap<HeaderKey, bool>,
    unreachable: bool,
}

impl Facts {
    /// Nothing known.
    pub fn unknown() -> Facts {
        Facts::default()
    }

    /// No path reaches here.
    pub fn unreachable() -> Facts {
        Facts {
            known: BTreeMap::new(),
            unreachable: true,
        }
    }

    /// Every instance (every stack element) invalid: the start of parsing.
    pub fn all_invalid(scu: &Scu) -> Facts {
        let mut facts = Facts::unknown();
        for (id, inst) in scu.instances.iter() {
            match inst.stack {
                None => facts.set((id, None), false),
                Some(n) => (0..n).for_each(|i| facts.set((id, Some(i)), false)),
            }
        }
        facts
    }

    /// Whether no path reaches this point.
    pub fn is_unreachable(&self) -> bool {
        self.unreachable
    }

    /// The known validity of a header, if any.
    pub fn get(&self, key: HeaderKey) -> Option<bool> {
        self.known.get(&key).copied()
    }

    /// Records a validity.
    pub fn set(&mut self, key: HeaderKey, valid: bool) {
        self.known.insert(key, valid);
    }

    /// Forgets what is known about an instance (all elements of a stack).
    pub fn forget(&mut self, inst: InstId) {
        self.known.retain(|(i, _), _| *i != inst);
    }

    /// What holds on both paths.
    pub fn meet(&self, other: &Facts) -> Facts {
        if self.unreachable {
            return other.clone();
        }
        if other.unreachable {
            return self.clone();
        }
        let known = self
            .known
            .iter()
            .filter(|(k, v)| other.known.get(k) == Some(v))
            .map(|(k, v)| (*k, *v))
            .collect();
        Facts {
            known,
            unreachable: false,
        }
    }

    /// Adds what `cond` being `truth` implies.
    pub fn assume(&mut self, body: &Body, cond: ExprId, truth: bool) {
        match body.exprs.get(cond) {
            Some(Expr::HeaderValid { inst, index }) => {
                if let Some(key) = header_key(body, *inst, *index) {
                    self.set(key, truth);
                }
            }
            Some(Expr::Unary(UnaryOp::Not, a)) => self.assume(body, *a, !truth),
            Some(Expr::Binary(BinaryOp::LogicalAnd | BinaryOp::And, a, b)) if truth => {
                self.assume(body, *a, true);
                self.assume(body, *b, true);
            }
            Some(Expr::Binary(BinaryOp::LogicalOr | BinaryOp::Or, a, b)) if !truth => {
                self.assume(body, *a, false);
                self.assume(body, *b, false);
            }
            _ => {}
        }
    }
}

/// The key of a header reference whose index (if any) is a constant; `None` for a run-time index.
pub fn header_key(body: &Body, inst: InstId, index: Option<ExprId>) -> Option<HeaderKey> {
    match index {
        None => Some((inst, None)),
        Some(i) => match body.exprs.get(i) {
            Some(Expr::Const(c)) => c
                .to_u64()
                .and_then(|v| u32::try_from(v).ok())
                .map(|v| (inst, Some(v))),
            _ => None,
        },
    }
}

/// Facts at the entry of each parser state, at acceptance, and for `on parser_error`.
#[derive(Clone, Debug)]
pub struct ParserFacts {
    /// At the entry of each state (states no path reaches are unreachable).
    pub entry: BTreeMap<StateId, Facts>,
    /// Where the control starts.
    pub accept: Facts,
    /// Where `on parser_error` starts.
    pub reject: Facts,
}

/// The facts of a parser: a worklist over the state graph until nothing changes.
pub fn parser_facts(scu: &Scu, parser: &Parser) -> ParserFacts {
    let mut entry: BTreeMap<StateId, Facts> = BTreeMap::new();
    entry.insert(parser.start, Facts::all_invalid(scu));
    let mut accept = Facts::unreachable();
    let mut reject = Facts::all_invalid(scu);
    let mut work = vec![parser.start];
    // Each round only removes facts, and there are finitely many, so this ends.
    while let Some(state) = work.pop() {
        let Some(s) = parser.states.get(state) else {
            continue;
        };
        let start = entry
            .get(&state)
            .cloned()
            .unwrap_or_else(Facts::unreachable);
        let exit = after_extracts(scu, &start, &s.block.stmts);
        reject = reject.meet(&start).meet(&exit);
        for target in targets(&s.transition) {
            match target {
                Target::Accept => accept = accept.meet(&exit),
                Target::Reject(_) => {}
                Target::State(next) => {
                    let old = entry.get(&next).cloned().unwrap_or_else(Facts::unreachable);
                    let new = old.meet(&exit);
                    if new != old || !entry.contains_key(&next) {
                        entry.insert(next, new);
                        work.push(next);
                    }
                }
            }
        }
    }
    ParserFacts {
        entry,
        accept,
        reject,
    }
}

/// The facts after a state's statements: extracted headers are valid.
pub fn after_extracts(scu: &Scu, facts: &Facts, stmts: &[Stmt]) -> Facts {
    let mut out = facts.clone();
    for stmt in stmts {
        if let Stmt::Extract(inst) = stmt {
            match scu.instances.get(*inst).and_then(|i| i.stack) {
                None => out.set((*inst, None), true),
                Some(_) => out.forget(*inst),
            }
        }
    }
    out
}

/// The targets of a transition.
pub fn targets(t: &Transition) -> Vec<Target> {
    match t {
        Transition::Direct(target) => vec![*target],
        Transition::Select { cases, .. } => cases.iter().map(|c| c.target).collect(),
    }
}
