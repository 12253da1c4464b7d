//! Compiling assignments: `place = value`.
//!
//! The value is evaluated first, then the place's indices, root first, each once; then the place
//! is written. A whole local, `meta` field, CSR, header field or cc state variable is written
//! directly. An assignment to part of one (`s.f = v`, `a[i] = v`, `x[7:4] = v`, and chains of
//! these) updates the part: in place for locals, `meta` and cc state, and by reading, updating and
//! writing back the whole for CSRs and headers (so a write to an invalid header's field is still
//! ignored).

use super::stmt::set_scalar;
use super::{Compiler, Flow, Scalar, Step, Valued, R};
use crate::context::Cx;
use crate::value::Value;
use cranelift_entity::EntityRef;
use scenic_ir::body::{Expr, Place};
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;

/// The most steps of a nested place.
const MAX_STEPS: usize = 8;

/// One step from a place's root to the part assigned.
enum Step_ {
    Field(u32),
    Index(Scalar),
    Slice(u32, u32),
}

/// The root of a place (an element index, for headers, is evaluated separately).
#[derive(Clone, Copy)]
enum Root {
    Local(usize),
    Csr(CsrId),
    Meta(u32),
    HeaderField(InstId, u32),
    Header(InstId),
    CcState(CcStateId),
}

/// The part of `whole` reached by `path` (with the evaluated `indices` of its `Index` steps) set to
/// `value`; a step that does not fit the value changes nothing.
fn update_part(whole: &mut Value, path: &[Step_], indices: &[usize], value: Value) {
    let Some((step, rest)) = path.split_first() else {
        *whole = value;
        return;
    };
    match (step, whole) {
        (Step_::Field(f), Value::Struct(fields)) | (Step_::Field(f), Value::Tuple(fields)) => {
            if let Some(part) = fields.get_mut(*f as usize) {
                update_part(part, rest, indices, value);
            }
        }
        (Step_::Field(f), Value::Header(h)) => {
            if let Some(part) = h.fields.get_mut(*f as usize) {
                let mut v = Value::Bits(part.clone());
                update_part(&mut v, rest, indices, value);
                *part = v.into_bits();
            }
        }
        // Only an `Index` step consumes one of the evaluated indices.
        (Step_::Index(_), Value::Array(items)) => {
            let Some((&index, rest_indices)) = indices.split_first() else {
                return;
            };
            if let Some(part) = items.get_mut(index) {
                update_part(part, rest, rest_indices, value);
            }
        }
        (Step_::Slice(hi, lo), Value::Bits(bits)) => {
            let mut part = Value::Bits(bits.slice(*hi, *lo));
            update_part(&mut part, rest, indices, value);
            *bits = splice(bits, *hi, *lo, part.bits());
        }
        _ => {}
    }
}

/// `bits` with bits `hi..=lo` replaced by `part`.
fn splice(bits: &Bits, hi: u32, lo: u32, part: &Bits) -> Bits {
    let width = bits.width();
    let field_width = hi.wrapping_sub(lo).wrapping_add(1);
    let mask = Bits::ones(field_width).zext(width).shl(lo);
    let cleared = bits.bit_and(&mask.bit_not());
    cleared.bit_or(&part.resize(field_width).zext(width).shl(lo))
}

/// The root and field steps of a nested place that is only fields of a local, `meta` field or cc
/// state variable (the places [`Compiler::assign_fields`] writes).
fn in_place_fields(nested: &Nested) -> Option<(Root, Vec<u32>)> {
    if !matches!(
        nested.root,
        Root::Local(_) | Root::Meta(_) | Root::CcState(_)
    ) {
        return None;
    }
    nested
        .steps
        .iter()
        .map(|s| match s {
            Step_::Field(f) => Some(*f),
            _ => None,
        })
        .collect::<Option<Vec<u32>>>()
        .map(|fields| (nested.root, fields))
}

/// A nested place: its root, the root's element index and the steps to the part.
struct Nested {
    root: Root,
    element: super::Index,
    steps: Vec<Step_>,
}

impl Nested {
    /// Writes `value` into the part (the value already evaluated).
    fn write(&self, cx: &mut Cx<'_>, value: Value) -> R<()> {
        let i = (self.element)(cx)?;
        let mut indices = [0usize; MAX_STEPS];
        let mut n = 0;
        for step in &self.steps {
            if let Step_::Index(e) = step {
                if let Some(slot) = indices.get_mut(n) {
                    *slot = e(cx)?.to_u128() as usize;
                }
                n += 1;
            }
        }
        let indices = &indices[..n.min(MAX_STEPS)];
        let in_place = match self.root {
            Root::Local(slot) => cx.local_mut(slot),
            Root::Meta(f) => cx.meta_mut(f),
            Root::CcState(s) => cx.cc_state_mut(s),
            _ => None,
        };
        if let Some(whole) = in_place {
            update_part(whole, &self.steps, indices, value);
            return Ok(());
        }
        match self.root {
            Root::Csr(c) => {
                let mut whole = Value::Bits(cx.csr(c));
                update_part(&mut whole, &self.steps, indices, value);
                cx.set_csr(c, whole.bits());
            }
            Root::HeaderField(inst, field) => {
                let Some(p) = cx.pkt.as_mut() else {
                    return Ok(());
                };
                let mut whole = Value::Bits(p.headers.field(p.data, inst, i, field));
                update_part(&mut whole, &self.steps, indices, value);
                p.headers.set_field(p.data, inst, i, field, whole.bits());
            }
            Root::Header(inst) => {
                let Some(p) = cx.pkt.as_mut() else {
                    return Ok(());
                };
                let mut whole = Value::Header(p.headers.value(p.data, inst, i));
                update_part(&mut whole, &self.steps, indices, value);
                if let Value::Header(h) = &whole {
                    p.headers.set_value(inst, i, h);
                }
            }
            // A missing local, `meta` field or state variable: nothing to write.
            Root::Local(_) | Root::Meta(_) | Root::CcState(_) => {}
        }
        Ok(())
    }
}

impl Compiler<'_> {
    /// `place = value`.
    pub fn assign(&mut self, place: &Place, value: ExprId) -> Step {
        if let Some(step) = self.update_in_place(place, value) {
            return step;
        }
        match place {
            Place::Local(l) => self.assign_local(l.index(), value),
            Place::Csr(c) if self.is_narrow(value) => {
                let (c, v) = (c.index(), self.narrow(value));
                Box::new(move |cx| {
                    let v = v(cx);
                    let csr = cx.scu.as_mut().and_then(|s| s.rt.csrs.get_mut(c));
                    if let Some(slot) = csr {
                        // As `Cx::set_csr`: the value resized to the CSR's width.
                        *slot = Bits::from_u64(slot.width(), v);
                    }
                    Flow::Next
                })
            }
            Place::Csr(c) => {
                let (c, v) = (*c, self.scalar(value));
                Box::new(move |cx| match v(cx) {
                    Ok(v) => {
                        cx.set_csr(c, &v);
                        Flow::Next
                    }
                    Err(_) => Flow::Stop,
                })
            }
            Place::HeaderField {
                inst,
                index: None,
                field,
            } => {
                let (inst, field, v) = (*inst, *field, self.scalar(value));
                Box::new(move |cx| match v(cx) {
                    Ok(v) => {
                        if let Some(p) = cx.pkt.as_mut() {
                            p.headers.set_field(p.data, inst, 0, field, &v);
                        }
                        Flow::Next
                    }
                    Err(_) => Flow::Stop,
                })
            }
            _ if self.is_scalar(value) => {
                let nested = self.nested(place);
                match in_place_fields(&nested) {
                    Some((root, fields)) => self.assign_fields(root, fields, value),
                    None => {
                        let v = self.value(value);
                        Box::new(move |cx| {
                            let r = v(cx).and_then(|v| nested.write(cx, v));
                            super::stmt::flow(r)
                        })
                    }
                }
            }
            _ => {
                let v = self.value(value);
                let nested = self.nested(place);
                Box::new(move |cx| {
                    let r = v(cx).and_then(|v| nested.write(cx, v));
                    super::stmt::flow(r)
                })
            }
        }
    }

    /// A scalar `value` into the part of a local, `meta` field or cc state variable reached by
    /// `fields` (`s.f.g = v`, `meta.f = v`): the value, then a walk to the part, which becomes the
    /// value, as [`update_part`] makes it, without building a `Value` or evaluating indices (there
    /// are none). A part that does not fit changes nothing.
    fn assign_fields(&mut self, root: Root, fields: Vec<u32>, value: ExprId) -> Step {
        if self.is_narrow(value) {
            let (n, width) = (self.narrow(value), self.width(value));
            return fields_step(root, fields, move |cx| Ok(Bits::from_u64(width, n(cx))));
        }
        fields_step(root, fields, self.scalar(value))
    }
}

/// The step of [`Compiler::assign_fields`], for a value computed by `v` (generic, so that a narrow
/// value's conversion is compiled into the step instead of called).
fn fields_step(
    root: Root,
    fields: Vec<u32>,
    v: impl Fn(&mut Cx<'_>) -> R<Bits> + Send + Sync + 'static,
) -> Step {
    Box::new(move |cx| {
        let Ok(v) = v(cx) else {
            return Flow::Stop;
        };
        let mut part = match root {
            Root::Local(slot) => cx.local_mut(slot),
            Root::Meta(f) => cx.meta_mut(f),
            Root::CcState(s) => cx.cc_state_mut(s),
            _ => None,
        };
        for (k, &f) in fields.iter().enumerate() {
            part = match part {
                Some(Value::Struct(items)) | Some(Value::Tuple(items)) => items.get_mut(f as usize),
                // A header's fields are bits, so only the last step can write one.
                Some(Value::Header(h)) if k + 1 == fields.len() => {
                    if let Some(b) = h.fields.get_mut(f as usize) {
                        *b = v;
                    }
                    return Flow::Next;
                }
                _ => None,
            };
        }
        if let Some(p) = part {
            set_scalar(p, v);
        }
        Flow::Next
    })
}

impl Compiler<'_> {
    /// `local = value`: a scalar into its slot; `map.get` of an aggregate copied into the slot's
    /// storage; any other value moved in.
    pub(super) fn assign_local(&mut self, slot: usize, value: ExprId) -> Step {
        if self.is_narrow(value) {
            let (v, width) = (self.narrow(value), self.width(value));
            return Box::new(move |cx| {
                let v = v(cx);
                if let Some(s) = cx.local_mut(slot) {
                    set_scalar(s, Bits::from_u64(width, v));
                }
                Flow::Next
            });
        }
        if self.is_scalar(value) {
            let v = self.scalar(value);
            return Box::new(move |cx| match v(cx) {
                Ok(v) => {
                    if let Some(s) = cx.local_mut(slot) {
                        set_scalar(s, v);
                    }
                    Flow::Next
                }
                Err(_) => Flow::Stop,
            });
        }
        if let Some(Expr::MapGet(m, key)) = self.body.exprs.get(value) {
            let get = self.map_get_into(*m, *key);
            return Box::new(move |cx| super::stmt::flow(get(cx, slot)));
        }
        let v: Valued = self.value(value);
        Box::new(move |cx| match v(cx) {
            Ok(v) => {
                if let Some(s) = cx.local_mut(slot) {
                    *s = v;
                }
                Flow::Next
            }
            Err(_) => Flow::Stop,
        })
    }

    /// The root, element index and steps of a place.
    fn nested(&mut self, place: &Place) -> Nested {
        let mut steps = Vec::new();
        let mut at = place;
        let (root, element) = loop {
            match at {
                Place::Field(base, f) => {
                    steps.push(Step_::Field(*f));
                    at = base;
                }
                Place::Index(base, e) => {
                    steps.push(Step_::Index(self.scalar(*e)));
                    at = base;
                }
                Place::Slice(base, hi, lo) => {
                    steps.push(Step_::Slice(*hi, *lo));
                    at = base;
                }
                Place::Local(l) => break (Root::Local(l.index()), None),
                Place::Csr(c) => break (Root::Csr(*c), None),
                Place::Meta(f) => break (Root::Meta(*f), None),
                Place::CcState(s) => break (Root::CcState(*s), None),
                Place::HeaderField { inst, index, field } => {
                    break (Root::HeaderField(*inst, *field), *index)
                }
                Place::Header { inst, index } => break (Root::Header(*inst), *index),
            }
        };
        // Indices were compiled leaf first; they are evaluated root first.
        steps.reverse();
        Nested {
            root,
            element: self.index(element),
            steps,
        }
    }
}
