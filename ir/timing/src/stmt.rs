//! Scheduling statements: assignments, effects, branches and unrolled loops.

use super::cost::{self, Cost};
use super::schedule::{Exit, Key, Sched, Scope};
use super::time::{Obj, Time};
use scenic_ir::body::{Block, Place, Stmt};
use scenic_ir::entities::*;
use scenic_ir::span::Span;
use scenic_ir::types::Type;

impl<'a> Sched<'a> {
    /// Schedules one statement.
    pub(super) fn stmt(&mut self, stmt: &'a Stmt, span: Span) -> Exit {
        if self.tired() {
            return Exit::default();
        }
        match stmt {
            Stmt::Let(l, e) => {
                let t = self.expr(*e);
                let zeros = self.known_zero_low_bits(*e);
                self.set(Key::Local(self.frame, *l), t, false);
                if zeros > 0 {
                    self.zeros.insert((self.frame, *l), zeros);
                }
            }
            Stmt::Assign(place, e) => {
                let mut t = self.expr(*e);
                t.join(&self.guard);
                self.assign(place, t, span);
            }
            Stmt::Eval(e) => {
                self.expr(*e);
            }
            Stmt::If(c, a, b) => {
                let cond = self.expr(*c);
                return self.arms(cond, 2, |s, i| s.block(if i == 0 { a } else { b }));
            }
            Stmt::Switch { on, cases, default } => {
                let mut t = self.expr(*on);
                let w = self.scrutinee_bits(&self.body.types[*on]);
                let what = format!("match on a {w}-bit value");
                self.charge(&mut t, Cost::new(cost::equality(w, true), what), span);
                return self.arms(t, cases.len() + 1, |s, i| match cases.get(i) {
                    Some(case) => s.block(&case.body),
                    None => s.block(default),
                });
            }
            Stmt::For {
                var,
                first,
                last,
                body,
            } => return self.unroll(*var, *first, *last, body),
            Stmt::Return(e) => {
                let mut t = e.map_or_else(Time::zero, |e| self.expr(e));
                t.join(&self.guard);
                match &mut self.rets {
                    Some(r) => r.join(&t),
                    None => self.rets = Some(t),
                }
                self.effect(&Time::zero());
                return Exit::ALWAYS;
            }
            Stmt::Drop => {
                self.effect(&Time::zero());
                return Exit::ALWAYS;
            }
            _ => self.simple_stmt(stmt, span),
        }
        Exit::default()
    }

    fn simple_stmt(&mut self, stmt: &'a Stmt, span: Span) {
        match stmt {
            Stmt::ToHost | Stmt::ToScu(_) | Stmt::Restart(_) => {
                self.effect(&Time::zero());
            }
            Stmt::ToNetwork(e) | Stmt::Notify(_, e) | Stmt::Pass(e) => {
                let t = self.expr(*e);
                self.effect(&t);
            }
            Stmt::Push(_, idx, e) => {
                let mut t = self.expr(*e);
                if let Some(i) = idx {
                    t.join(&self.expr(*i));
                }
                self.effect(&t);
            }
            Stmt::Count(c, idx) => self.count(*c, *idx, span),
            Stmt::Extract(inst) => self.extract(*inst, span),
            Stmt::Emit(inst) => {
                let mut t = Time::max(&self.read(Key::Cursor), &self.guard);
                t.join(&self.read(Key::HeaderAny(*inst)));
                t.join(&self.read(Key::Header(*inst)));
                t.konst = false;
                let what = format!("emit `{}`", self.inst_name(*inst));
                self.charge(&mut t, Cost::new(cost::EMIT, what), span);
                self.set(Key::Cursor, t.clone(), false);
                self.effect(&t);
            }
            Stmt::SetValid(inst, idx, _) => {
                let mut t = self.guard.clone();
                if let Some(i) = idx {
                    t.join(&self.expr(*i));
                }
                self.set(Key::Header(*inst), t.clone(), idx.is_some());
                self.set(Key::HeaderAny(*inst), t.clone(), true);
                self.effect(&t);
            }
            Stmt::Block(b) => {
                self.block(b);
            }
            _ => {}
        }
    }

    /// Extracts a header: align it out of the beat at the parse offset.
    pub(super) fn extract(&mut self, inst: InstId, span: Span) {
        let mut t = Time::max(&self.read(Key::Cursor), &self.guard);
        t.konst = false;
        let what = format!("extract `{}`", self.inst_name(inst));
        self.charge(&mut t, Cost::new(cost::EXTRACT, what), span);
        self.set(Key::Cursor, t.clone(), false);
        self.set(Key::Header(inst), t.clone(), false);
        self.set(Key::HeaderAny(inst), t.clone(), true);
        self.effect(&t);
    }

    fn count(&mut self, c: CounterId, idx: Option<ExprId>, span: Span) {
        let mut t = idx.map_or_else(Time::zero, |i| self.expr(i));
        t.join(&self.guard);
        t.konst = false;
        if let Scope::Scu(scu) = self.scope {
            if let Some(counter) = scu.counters.get(c) {
                let what = format!("update counter `{}`", counter.name);
                self.charge(&mut t, Cost::new(cost::counter(counter.size), what), span);
            }
        }
        self.effect(&t);
    }

    fn unroll(&mut self, var: LocalId, first: i64, last: i64, body: &'a Block) -> Exit {
        let mut exit = Exit::default();
        let mut i = first;
        while i <= last {
            if self.tired() {
                break;
            }
            self.set(Key::Local(self.frame, var), Time::constant(), false);
            exit = exit.then(self.block(body));
            i = i.saturating_add(1);
            if i == i64::MAX {
                break;
            }
        }
        exit
    }

    fn assign(&mut self, place: &Place, t: Time, span: Span) {
        let (key, partial, extra) = self.place_key(place);
        let t = Time::max(&t, &extra);
        self.set(key, t.clone(), partial);
        match key {
            Key::Local(..) | Key::LocalAny(..) | Key::Cursor => {}
            Key::Part(frame, l, _) => self.set(Key::LocalAny(frame, l), t, true),
            Key::Csr(c) => {
                if let Some(d) = t.dep(Obj::Csr(c)) {
                    self.close(Obj::Csr(c), d, span);
                }
                self.end.join(&t);
            }
            Key::State(_) => {
                let w = self.flow.state_write.take();
                self.flow.state_write = Some(w.map_or_else(|| t.clone(), |w| Time::max(&w, &t)));
            }
            Key::Field(inst, _) | Key::Header(inst) | Key::HeaderAny(inst) => {
                self.set(Key::HeaderAny(inst), t.clone(), true);
                self.end.join(&t);
            }
            Key::Meta(_) => self.end.join(&t),
        }
    }

    /// The key a place writes, whether it writes only part of it, and when its indices are ready.
    fn place_key(&mut self, place: &Place) -> (Key, bool, Time) {
        match place {
            Place::Local(l) => (Key::Local(self.frame, *l), false, Time::zero()),
            Place::Csr(c) => (Key::Csr(*c), false, Time::zero()),
            Place::Meta(f) => (Key::Meta(*f), false, Time::zero()),
            Place::CcState(s) => (Key::State(*s), false, Time::zero()),
            Place::HeaderField { inst, index, field } => {
                let t = index.map_or_else(Time::zero, |i| self.expr(i));
                (Key::Field(*inst, *field), index.is_some(), t)
            }
            Place::Header { inst, index } => {
                let t = index.map_or_else(Time::zero, |i| self.expr(i));
                (Key::Header(*inst), index.is_some(), t)
            }
            Place::Field(base, f) => match &**base {
                Place::Local(l) => (Key::Part(self.frame, *l, *f), false, Time::zero()),
                _ => {
                    let (key, _, t) = self.place_key(base);
                    (key, true, t)
                }
            },
            Place::Slice(base, _, _) => {
                let (key, _, t) = self.place_key(base);
                (key, true, t)
            }
            Place::Index(base, i) => {
                let (key, _, mut t) = self.place_key(base);
                t.join(&self.expr(*i));
                (key, true, t)
            }
        }
    }

    /// The bits a `match` really decodes: table results and parser errors only need as many bits as
    /// they have alternatives.
    fn scrutinee_bits(&self, ty: &Type) -> u32 {
        let alternatives = match (ty, self.scope) {
            (Type::TableResult(t), Scope::Scu(scu)) => scu.tables.get(*t).map(|t| t.actions.len()),
            (Type::ParserError, Scope::Scu(scu)) => Some(scu.errors.len()),
            _ => None,
        };
        match alternatives {
            Some(n) => cost::log2_ceil(n as u64).max(1),
            None => cost::width(self.module, ty),
        }
    }
}
