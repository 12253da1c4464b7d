//! The scheduler: an ASAP schedule of one body's statements over ready times.
//!
//! Every value gets a [`Time`]; an operation starts when its last operand is ready and adds its cost
//! ([`super::cost`]). Statements do not add up blindly: a statement waits only for what it reads, so
//! independent statements (and independent iterations of an unrolled loop) overlap, and the latency
//! of a body is the ready time of its last effect: the longest dependency chain. Rules beyond the cost
//! table:
//!
//! - Branches (`if`, `match`, the actions of a table) are if-converted: every arm is scheduled from
//!   the same starting point, assignments and effects in an arm wait for the condition (its guard),
//!   and afterwards each place holds the later of its arms' values (the join mux is free). An arm
//!   that returns or drops guards everything after the branch with the condition.
//! - `let` in an arm is speculative (it does not wait for the guard); assignments do.
//! - Calls are inlined: the callee's operations are scheduled in place, its parameters ready when
//!   the arguments are.
//! - Accesses to one map are ordered: a lookup after a write waits until the write is visible.
//! - The per-flow state of a cc is read when the handler starts and written back once at the end.

use super::cost::{self, Cost, Storage};
use super::time::{Node, Obj, Time, Trail};
use scenic_ir::body::{Block, Body};
use scenic_ir::entities::*;
use scenic_ir::program::{Cc, Module, Scu};
use scenic_ir::span::Span;
use std::collections::HashMap;

/// How many statements and expressions one analysis may visit before it gives up (unrolled loops
/// nested deeply enough could otherwise take very long).
const MAX_STEPS: u64 = 2_000_000;
/// How deep calls may nest (recursion is rejected by the checker; this guards unchecked IR).
const MAX_DEPTH: u32 = 64;

/// What the code being scheduled belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Scope<'a> {
    /// A stream compute unit.
    Scu(&'a Scu),
    /// A congestion controller.
    Cc(&'a Cc),
}

/// Something a value lives in while a body runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// A local as a whole, in an inlining frame.
    Local(u32, LocalId),
    /// A field of a struct local (fields of one struct are independent registers).
    Part(u32, LocalId, u32),
    /// The latest write to any field of a struct local.
    LocalAny(u32, LocalId),
    Csr(CsrId),
    Meta(u32),
    Field(InstId, u32),
    /// A header instance as a whole (validity, extraction, whole-header writes).
    Header(InstId),
    /// The latest write to any part of a header instance.
    HeaderAny(InstId),
    State(CcStateId),
    /// The parse or emit offset: extractions and emits follow each other.
    Cursor,
}

/// The state that differs between the arms of a branch.
#[derive(Clone, Debug, Default)]
pub(super) struct Flow {
    pub env: HashMap<Key, Time>,
    /// When the last write to each stateful object becomes visible.
    pub last_write: HashMap<Obj, Time>,
    /// Maps whose slot for a key held in this local is known from a lookup.
    pub looked_up: HashMap<MapId, (u32, LocalId)>,
    /// When the last write to the cc's per-flow state is ready.
    pub state_write: Option<Time>,
}

/// Whether code returns or drops: on some path (`may`) or on every path (`must`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Exit {
    /// Some path returns or drops.
    pub may: bool,
    /// Every path does.
    pub must: bool,
}

impl Exit {
    /// Code that always returns or drops.
    pub const ALWAYS: Exit = Exit {
        may: true,
        must: true,
    };

    /// This code followed by `next`.
    pub fn then(self, next: Exit) -> Exit {
        Exit {
            may: self.may || next.may,
            must: self.must || next.must,
        }
    }
}

/// What scheduling a body found.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    /// When the last effect is done.
    pub end: Time,
    /// The costly operations.
    pub trail: Trail,
    /// For each stateful object written back: the longest read-to-write chain, and where it closes.
    pub recurrences: Vec<(Obj, u32, Span)>,
    /// Things worth a warning: `(span, message)`.
    pub warnings: Vec<(Span, String)>,
}

/// The scheduler of one body.
pub(crate) struct Sched<'a> {
    pub(super) module: &'a Module,
    pub(super) scope: Scope<'a>,
    pub(super) body: &'a Body,
    pub(super) frame: u32,
    pub(super) next_frame: u32,
    pub(super) depth: u32,
    pub(super) nest: u32,
    pub(super) flow: Flow,
    pub(super) guard: Time,
    pub(super) end: Time,
    pub(super) rets: Option<Time>,
    /// The state of the paths that returned or dropped (they skip the rest of the body).
    pub(super) exit_flow: Option<Flow>,
    pub(super) applies: HashMap<(u32, ExprId), Time>,
    pub(super) trail: Trail,
    pub(super) recurrences: HashMap<Obj, (u32, Span)>,
    pub(super) warnings: Vec<(Span, String)>,
    pub(super) state_in: Time,
    pub(super) steps: u64,
    /// Locals whose low bits are known to be zero (shift amounts such as `rows * 128`).
    pub(super) zeros: HashMap<(u32, LocalId), u32>,
}

impl<'a> Sched<'a> {
    /// A scheduler for `body` (its parameters ready at cycle 0).
    pub fn new(module: &'a Module, scope: Scope<'a>, body: &'a Body) -> Sched<'a> {
        let mut s = Sched {
            module,
            scope,
            body,
            frame: 0,
            next_frame: 1,
            depth: 0,
            nest: 0,
            flow: Flow::default(),
            guard: Time::zero(),
            end: Time::zero(),
            rets: None,
            exit_flow: None,
            applies: HashMap::new(),
            trail: Trail::default(),
            recurrences: HashMap::new(),
            warnings: Vec::new(),
            state_in: Time::zero(),
            steps: 0,
            zeros: HashMap::new(),
        };
        if let Scope::Cc(cc) = scope {
            let latency = match cost::array_storage(true, cc.flows) {
                Storage::Registers => 0,
                Storage::Bram => cost::BRAM_READ,
            };
            let mut t = Time::read_of(Obj::FlowState, &Time::zero(), 0);
            let what = format!("read the flow's state (cc `{}`)", cc.name);
            s.charge(&mut t, Cost::new(latency, what), cc.span);
            t.add_dep(Obj::FlowState, latency);
            s.state_in = t;
        }
        s
    }

    /// Schedules a block, and tells whether it returns or drops.
    pub fn block(&mut self, block: &'a Block) -> Exit {
        scenic_ir::stack::grow(|| {
            let mut exit = Exit::default();
            for (i, stmt) in block.stmts.iter().enumerate() {
                let span = block.spans.get(i).copied().unwrap_or_default();
                exit = exit.then(self.stmt(stmt, span));
            }
            exit
        })
    }

    /// Ends the analysis: writes the per-flow state back and collects what was found.
    pub fn finish(mut self) -> Outcome {
        self.take_exits();
        if let Some(mut t) = self.flow.state_write.take() {
            t.join(&self.state_in);
            if let Scope::Cc(cc) = self.scope {
                let latency = match cost::array_storage(true, cc.flows) {
                    Storage::Registers => 0,
                    Storage::Bram => cost::BRAM_WRITE,
                };
                let what = format!("write the flow's state back (cc `{}`)", cc.name);
                self.charge(&mut t, Cost::new(latency, what), cc.span);
                if let Some(d) = t.dep(Obj::FlowState) {
                    self.close(Obj::FlowState, d, cc.span);
                }
            }
            self.end.join(&t);
        }
        let mut recurrences: Vec<(Obj, u32, Span)> = self
            .recurrences
            .into_iter()
            .map(|(obj, (len, span))| (obj, len, span))
            .collect();
        recurrences.sort();
        Outcome {
            end: self.end,
            trail: self.trail,
            recurrences,
            warnings: self.warnings,
        }
    }

    /// Joins the state of the paths that returned into the current one (at the end of a body).
    fn take_exits(&mut self) {
        if let Some(exits) = self.exit_flow.take() {
            let flow = std::mem::take(&mut self.flow);
            self.flow = join_flows(flow, &exits, |k| self.initial(k));
        }
    }

    /// Adds an operation's cost to `t` (nothing for free operations and folded constants).
    pub(super) fn charge(&mut self, t: &mut Time, cost: Cost, span: Span) {
        if cost.cycles == 0 || t.konst {
            return;
        }
        let node = self.trail.push(Node {
            what: cost.what,
            span,
            cycles: cost.cycles,
            prev: t.node,
        });
        t.delay(cost.cycles, Some(node));
    }

    /// Records a read-to-write chain of `len` cycles on `obj`, closed at `span`.
    pub(super) fn close(&mut self, obj: Obj, len: u32, span: Span) {
        let e = self.recurrences.entry(obj).or_insert((len, span));
        if len > e.0 {
            *e = (len, span);
        }
    }

    /// Whether the step budget is spent.
    pub(super) fn tired(&mut self) -> bool {
        self.steps += 1;
        if self.steps == MAX_STEPS {
            self.warnings.push((
                Span::default(),
                "the body is too large to analyse completely; the estimate is a lower bound".into(),
            ));
        }
        self.steps >= MAX_STEPS
    }

    /// The value of a key before the body wrote it.
    pub(super) fn initial(&self, key: Key) -> Time {
        initial(&self.state_in, key)
    }

    /// The current value of a key.
    pub(super) fn read(&self, key: Key) -> Time {
        match self.flow.env.get(&key) {
            Some(t) => t.clone(),
            None => self.initial(key),
        }
    }

    /// Marks an effect: it happens once its inputs and its guard are ready.
    pub(super) fn effect(&mut self, t: &Time) -> Time {
        let t = Time::max(t, &self.guard);
        self.end.join(&t);
        t
    }

    /// Schedules `n` arms from the same start, each guarded by `cond`, and joins them. Arms that
    /// always return or drop do not reach the code after the branch: their state joins the body's
    /// exit state instead.
    pub(super) fn arms(
        &mut self,
        cond: Time,
        n: usize,
        mut run: impl FnMut(&mut Self, usize) -> Exit,
    ) -> Exit {
        let start = self.flow.clone();
        let outer = self.guard.clone();
        let mut merged: Option<Flow> = None;
        let mut exit = Exit {
            may: false,
            must: n > 0,
        };
        for i in 0..n {
            self.flow = start.clone();
            self.guard = Time::max(&outer, &cond);
            let e = run(self, i);
            exit.may |= e.may;
            exit.must &= e.must;
            let arm = std::mem::take(&mut self.flow);
            let state_in = &self.state_in;
            let into = if e.must {
                &mut self.exit_flow
            } else {
                &mut merged
            };
            *into = Some(match into.take() {
                None => arm,
                Some(m) => join_flows(m, &arm, |k| initial(state_in, k)),
            });
        }
        self.flow = merged.unwrap_or(start);
        self.guard = outer;
        if exit.may {
            self.guard.join(&cond);
        }
        exit
    }

    /// Stores a value in a key (`partial`: only part of it changes, so the rest keeps its time).
    pub(super) fn set(&mut self, key: Key, t: Time, partial: bool) {
        let t = if partial {
            Time::max(&self.read(key), &t)
        } else {
            t
        };
        if let Key::Local(frame, l) | Key::Part(frame, l, _) = key {
            self.flow.looked_up.retain(|_, k| *k != (frame, l));
            self.zeros.remove(&(frame, l));
            if !partial && matches!(key, Key::Local(..)) {
                self.flow.env.retain(|k, _| {
                    !matches!(*k, Key::Part(f, x, _) | Key::LocalAny(f, x) if (f, x) == (frame, l))
                });
            }
        }
        self.flow.env.insert(key, t);
    }

    /// Inlines a call of `body` with these arguments; the value is when its result is ready.
    pub(super) fn call(&mut self, body: &'a Body, args: &[ExprId], span: Span) -> Time {
        let vals: Vec<Time> = args.iter().map(|a| self.expr(*a)).collect();
        if self.depth >= MAX_DEPTH {
            self.warnings
                .push((span, "calls nest too deeply to analyse; not counted".into()));
            return vals.iter().fold(Time::zero(), |a, b| Time::max(&a, b));
        }
        self.call_with(body, vals)
    }

    /// Inlines `body` with its parameters ready at these times.
    pub(super) fn call_with(&mut self, body: &'a Body, vals: Vec<Time>) -> Time {
        let frame = self.next_frame;
        self.next_frame += 1;
        for (p, v) in body.params.iter().zip(vals) {
            self.flow.env.insert(Key::Local(frame, *p), v);
        }
        let saved = (self.body, self.frame, self.rets.take(), self.guard.clone());
        let saved_exits = self.exit_flow.take();
        self.body = body;
        self.frame = frame;
        self.depth += 1;
        self.block(&body.block);
        self.take_exits();
        self.exit_flow = saved_exits;
        let ret = self.rets.take().unwrap_or_else(|| self.guard.clone());
        self.flow.env.retain(|k, _| {
            !matches!(*k, Key::Local(f, _) | Key::Part(f, ..) | Key::LocalAny(f, _) if f == frame)
        });
        self.zeros.retain(|k, _| k.0 != frame);
        self.depth -= 1;
        (self.body, self.frame, self.rets, self.guard) = saved;
        ret
    }

    /// The name of a header instance of the scu.
    pub(super) fn inst_name(&self, inst: InstId) -> String {
        match self.scope {
            Scope::Scu(scu) => scu.instances.get(inst).map(|i| i.name.clone()),
            Scope::Cc(_) => None,
        }
        .unwrap_or_else(|| inst.to_string())
    }
}

/// The value of a key before the body wrote it (`state_in`: when the per-flow state is read).
fn initial(state_in: &Time, key: Key) -> Time {
    match key {
        Key::Csr(c) => {
            let mut t = Time::zero();
            t.add_dep(Obj::Csr(c), 0);
            t
        }
        Key::State(_) => state_in.clone(),
        _ => Time::zero(),
    }
}

/// Joins the state of two paths: each key holds the later of its two values.
fn join_flows(mut a: Flow, b: &Flow, initial: impl Fn(Key) -> Time) -> Flow {
    let keys: Vec<Key> = a.env.keys().chain(b.env.keys()).copied().collect();
    for key in keys {
        let ta = a.env.get(&key).cloned().unwrap_or_else(|| initial(key));
        let tb = b.env.get(&key).cloned().unwrap_or_else(|| initial(key));
        a.env.insert(key, Time::max(&ta, &tb));
    }
    for (obj, t) in &b.last_write {
        a.last_write
            .entry(*obj)
            .and_modify(|x| x.join(t))
            .or_insert_with(|| t.clone());
    }
    a.looked_up.retain(|m, k| b.looked_up.get(m) == Some(k));
    a.state_write = match (a.state_write, &b.state_write) {
        (Some(x), Some(y)) => Some(Time::max(&x, y)),
        (x, y) => x.or_else(|| y.clone()),
    };
    a
}
