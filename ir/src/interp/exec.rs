//! Executing statements: control flow, assignments to places, and the statements with effects.

use super::bits::Bits;
use super::frame::Frame;
use super::pattern;
use super::value::Value;
use super::Exec;
use crate::body::{Block, Place, Stmt};
use crate::entities::LocalId;
use cranelift_entity::EntityRef;

/// How a statement finished.
#[derive(Clone, Debug, PartialEq)]
pub enum Flow {
    /// Go on with the next statement.
    Next,
    /// `return` (with a value in functions that have one).
    Return(Value),
    /// `drop()`: the control ends.
    Stop,
}

impl Exec<'_> {
    /// Runs a block.
    pub fn block(&mut self, frame: &mut Frame<'_>, block: &Block) -> Flow {
        for stmt in &block.stmts {
            let flow = self.stmt(frame, stmt);
            if flow != Flow::Next {
                return flow;
            }
            if self.effects.dropped || self.parse_error.is_some() {
                // `drop()` in a called action or function ends the control too; a failed
                // extraction ends the parser state.
                return Flow::Stop;
            }
        }
        Flow::Next
    }

    fn stmt(&mut self, frame: &mut Frame<'_>, stmt: &Stmt) -> Flow {
        match stmt {
            Stmt::Let(local, value) => {
                let v = self.eval(frame, *value);
                if self.halted() {
                    return Flow::Stop;
                }
                set_local(frame, *local, v);
            }
            Stmt::Assign(place, value) => {
                let v = self.eval(frame, *value);
                if self.halted() {
                    return Flow::Stop;
                }
                self.assign(frame, place, v);
            }
            Stmt::Eval(e) => {
                self.eval(frame, *e);
            }
            Stmt::If(cond, then, otherwise) => {
                let taken = self.eval(frame, *cond).is_true();
                if self.halted() {
                    return Flow::Stop;
                }
                return self.block(frame, if taken { then } else { otherwise });
            }
            Stmt::Switch { on, cases, default } => {
                let v = self.eval(frame, *on);
                if self.halted() {
                    return Flow::Stop;
                }
                let ty = &frame.body.types[*on];
                let case = cases
                    .iter()
                    .find(|c| c.patterns.iter().any(|p| pattern::matches(p, ty, &v)));
                return self.block(frame, case.map_or(default, |c| &c.body));
            }
            Stmt::For {
                var,
                first,
                last,
                body,
            } => return self.for_loop(frame, *var, *first, *last, body),
            Stmt::Return(value) => {
                let v = value.map_or(Value::Unit, |e| self.eval(frame, e));
                if self.halted() {
                    return Flow::Stop;
                }
                return Flow::Return(v);
            }
            Stmt::Block(b) => return self.block(frame, b),
            Stmt::Drop => {
                self.effects.drop_packet();
                return Flow::Stop;
            }
            other => self.effect(frame, other),
        }
        Flow::Next
    }

    /// Whether the packet stopped: `drop()` ran or the parser failed. Nothing runs after that: a
    /// statement whose evaluation stopped is abandoned, and effects are not performed.
    pub fn halted(&self) -> bool {
        self.effects.dropped || self.parse_error.is_some()
    }

    fn for_loop(
        &mut self,
        frame: &mut Frame<'_>,
        var: LocalId,
        first: i64,
        last: i64,
        body: &Block,
    ) -> Flow {
        let width = super::value::width_of(&frame.body.locals[var].ty, self.module);
        let mut i = first;
        while i <= last {
            set_local(
                frame,
                var,
                Value::Bits(Bits::from_i128(width, i128::from(i))),
            );
            let flow = self.block(frame, body);
            if flow != Flow::Next {
                return flow;
            }
            i += 1;
        }
        Flow::Next
    }

    /// Writes `value` into a place. The place's indices are evaluated once each, root first.
    pub fn assign(&mut self, frame: &mut Frame<'_>, place: &Place, value: Value) {
        let (root, path) = split_place(place);
        let root_index = match root {
            Place::HeaderField { index, .. } | Place::Header { index, .. } => {
                self.index_of(frame, *index)
            }
            _ => 0,
        };
        let mut indices = Vec::new();
        for step in &path {
            indices.push(match step {
                Step::Index(e) => self.eval(frame, *e).bits().to_u128() as usize,
                _ => 0,
            });
        }
        if self.halted() {
            return;
        }
        let value = if path.is_empty() {
            value
        } else {
            // Assignment into part of a value: read the whole, update the part, write it back.
            let mut whole = self.read_root(frame, root, root_index);
            update_part(&mut whole, &path, &indices, value);
            whole
        };
        self.write_root(frame, root, root_index, value);
    }

    /// Writes a whole root place (element `i` of a header stack).
    fn write_root(&mut self, frame: &mut Frame<'_>, root: &Place, i: usize, value: Value) {
        match root {
            Place::Local(l) => set_local(frame, *l, value),
            Place::Csr(c) => self.set_csr(*c, value.into_bits()),
            Place::Meta(f) => self.set_meta(*f, value),
            Place::HeaderField { inst, field, .. } => {
                self.set_header_field(*inst, i, *field, value.into_bits());
            }
            Place::Header { inst, .. } => {
                if let Value::Header(h) = value {
                    self.set_header(*inst, i, h);
                }
            }
            Place::CcState(s) => self.set_cc_state(*s, value),
            Place::Field(..) | Place::Index(..) | Place::Slice(..) => {}
        }
    }

    /// The current value of a root place (element `i` of a header stack).
    fn read_root(&mut self, frame: &mut Frame<'_>, root: &Place, i: usize) -> Value {
        match root {
            Place::Local(l) => frame.locals.get(l.index()).cloned().unwrap_or(Value::Unit),
            Place::Csr(c) => Value::Bits(self.csr(*c)),
            Place::Meta(f) => self.meta(*f),
            Place::HeaderField { inst, field, .. } => {
                Value::Bits(self.header_field(*inst, i, *field))
            }
            Place::Header { inst, .. } => Value::Header(self.header(*inst, i)),
            Place::CcState(s) => self.cc_state(*s),
            Place::Field(..) | Place::Index(..) | Place::Slice(..) => Value::Unit,
        }
    }

    /// The element index of a header stack access (0 for plain instances).
    pub fn index_of(
        &mut self,
        frame: &mut Frame<'_>,
        index: Option<crate::entities::ExprId>,
    ) -> usize {
        index.map_or(0, |e| self.eval(frame, e).bits().to_u128() as usize)
    }
}

/// One step from a place's root to the part assigned.
enum Step {
    Field(u32),
    Index(crate::entities::ExprId),
    Slice(u32, u32),
}

fn split_place(place: &Place) -> (&Place, Vec<Step>) {
    let mut steps = Vec::new();
    let mut current = place;
    loop {
        match current {
            Place::Field(base, f) => {
                steps.push(Step::Field(*f));
                current = base;
            }
            Place::Index(base, e) => {
                steps.push(Step::Index(*e));
                current = base;
            }
            Place::Slice(base, hi, lo) => {
                steps.push(Step::Slice(*hi, *lo));
                current = base;
            }
            root => {
                steps.reverse();
                return (root, steps);
            }
        }
    }
}

fn update_part(whole: &mut Value, path: &[Step], indices: &[usize], value: Value) {
    let Some((step, rest)) = path.split_first() else {
        *whole = value;
        return;
    };
    let (index, rest_indices) = indices.split_first().map_or((0, indices), |(i, r)| (*i, r));
    match (step, whole) {
        (Step::Field(f), Value::Struct(fields)) | (Step::Field(f), Value::Tuple(fields)) => {
            if let Some(part) = fields.get_mut(*f as usize) {
                update_part(part, rest, rest_indices, value);
            }
        }
        (Step::Field(f), Value::Header(h)) => {
            if let Some(part) = h.fields.get_mut(*f as usize) {
                let mut v = Value::Bits(part.clone());
                update_part(&mut v, rest, rest_indices, value);
                *part = v.into_bits();
            }
        }
        (Step::Index(_), Value::Array(items)) => {
            if let Some(part) = items.get_mut(index) {
                update_part(part, rest, rest_indices, value);
            }
        }
        (Step::Slice(hi, lo), Value::Bits(bits)) => {
            let mut part = Value::Bits(bits.slice(*hi, *lo));
            update_part(&mut part, rest, rest_indices, value);
            *bits = splice(bits, *hi, *lo, part.bits());
        }
        _ => {}
    }
}

/// `bits` with bits `hi..=lo` replaced by `part`.
fn splice(bits: &Bits, hi: u32, lo: u32, part: &Bits) -> Bits {
    let width = bits.width();
    let field_width = hi - lo + 1;
    let mask = Bits::ones(field_width).zext(width).shl(lo);
    let cleared = bits.bit_and(&mask.bit_not());
    cleared.bit_or(&part.resize(field_width).zext(width).shl(lo))
}

fn set_local(frame: &mut Frame<'_>, local: LocalId, value: Value) {
    if let Some(slot) = frame.locals.get_mut(local.index()) {
        *slot = value;
    }
}
