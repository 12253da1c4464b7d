//! Compiling and running a parser: its states share one body, so they run in one frame, from
//! `start`, each block then its transition, until `accept` or a rejection.
//!
//! A failed extraction or `lookahead` rejects at once (`packet_too_short`, `stack_overflow`); a
//! select with no matching case rejects with `no_match`; `reject(e)` with `e`. A parser that runs
//! more than [`MAX_TRANSITIONS`] transitions rejects with `no_match` (a safety net: the checker
//! guarantees that every loop consumes bytes).

use super::stmt::Select;
use super::{Block, Compiler, Flow, FrameShape};
use crate::context::Cx;
use cranelift_entity::EntityRef;
use scenic_ir::body::Pattern;
use scenic_ir::entities::*;
use scenic_ir::program::{Module, Parser, Scu, Target, Transition};

/// The most state transitions one packet may take.
const MAX_TRANSITIONS: usize = 65_536;

enum Next {
    Direct(Target),
    Select(Select, Vec<Target>),
}

struct StateCode {
    block: Block,
    next: Next,
}

/// A compiled parser.
pub(crate) struct ParserCode {
    shape: FrameShape,
    start: StateId,
    states: Vec<StateCode>,
}

/// How parsing ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// `accept`.
    Accepted,
    /// Rejected with this error.
    Rejected(ErrorId),
    /// `drop()` ran (only a hand-made module can do that: the checker forbids it in parsers).
    Dropped,
}

/// Compiles `parser` of `scu`.
pub(crate) fn compile(module: &Module, scu: &Scu, parser: &Parser) -> ParserCode {
    let mut c = Compiler::new(module, &parser.body, Some(scu));
    let states = parser
        .states
        .values()
        .map(|s| {
            let block = c.block(&s.block);
            let next = match &s.transition {
                Transition::Direct(t) => Next::Direct(*t),
                Transition::Select { on, cases } => {
                    let patterns: Vec<&[Pattern]> =
                        cases.iter().map(|c| c.patterns.as_slice()).collect();
                    let targets = cases.iter().map(|c| c.target).collect();
                    Next::Select(c.select(*on, &patterns), targets)
                }
            };
            StateCode { block, next }
        })
        .collect();
    ParserCode {
        shape: c.shape(),
        start: parser.start,
        states,
    }
}

/// The error named `name` of `def` (the first error when there is none).
fn error_id(def: &Scu, name: &str) -> ErrorId {
    def.errors
        .iter()
        .find(|(_, n)| n.as_str() == name)
        .map_or(ErrorId::new(0), |(id, _)| id)
}

impl ParserCode {
    /// Runs the parser of `def` on the packet of `cx`.
    pub fn run(&self, cx: &mut Cx<'_>, def: &Scu) -> Parsed {
        if self.shape.is_empty() {
            // No locals to place: the states run without a frame of their own.
            return self.states_from(cx, def);
        }
        self.shape
            .enter(cx, (0, 0), |_, _| {}, |cx| self.states_from(cx, def))
    }

    fn states_from(&self, cx: &mut Cx<'_>, def: &Scu) -> Parsed {
        let no_match = ErrorId::new(1);
        let mut state = self.start;
        for _ in 0..MAX_TRANSITIONS {
            let Some(s) = self.states.get(state.index()) else {
                return Parsed::Rejected(no_match);
            };
            if cx.effects.trace.is_some() {
                trace_state(cx, def, state);
            }
            let flow = s.block.run(cx);
            if let Some(err) = cx.parse_error.take() {
                cx.effects.trace(|| format!("reject {err}"));
                return Parsed::Rejected(error_id(def, err));
            }
            if flow == Flow::Stop {
                return Parsed::Dropped;
            }
            let target = match &s.next {
                Next::Direct(t) => *t,
                Next::Select(select, targets) => match select(cx) {
                    Ok(found) => found
                        .and_then(|i| targets.get(i).copied())
                        .unwrap_or(Target::Reject(no_match)),
                    Err(_) => {
                        return match cx.parse_error.take() {
                            Some(err) => Parsed::Rejected(error_id(def, err)),
                            None => Parsed::Dropped,
                        }
                    }
                },
            };
            match target {
                Target::Accept => return Parsed::Accepted,
                Target::Reject(e) => {
                    if cx.effects.trace.is_some() {
                        trace_reject(cx, def, e);
                    }
                    return Parsed::Rejected(e);
                }
                Target::State(next) => state = next,
            }
        }
        Parsed::Rejected(no_match)
    }
}

/// The trace line of entering `state` (kept out of the parser's loop: tracing is rare).
#[cold]
#[inline(never)]
fn trace_state(cx: &mut Cx<'_>, def: &Scu, state: StateId) {
    let name = def
        .parser
        .as_ref()
        .and_then(|p| p.states.get(state))
        .map_or("", |s| s.name.as_str());
    let line = format!("state {name}");
    cx.effects.trace(|| line);
}

/// The trace line of a rejection with `e`.
#[cold]
#[inline(never)]
fn trace_reject(cx: &mut Cx<'_>, def: &Scu, e: ErrorId) {
    let name = def.errors.get(e).map_or("", String::as_str);
    let line = format!("reject {name}");
    cx.effects.trace(|| line);
}
