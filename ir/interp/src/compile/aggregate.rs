//! Compiling expressions of any type into closures that yield a [`Value`], and reads of parts of
//! values (`s.f`, `a[i]`, `s.f[i].g`).
//!
//! A part of a local (or of `meta`, or of a cc state variable) is read in place: the indices on
//! the way are evaluated root first, as the tree-walking evaluation did, then the part is reached
//! through references and only it is copied. A `meta` or cc-state root is read in place only when
//! no index has an effect (an index that calls a function could change it; the value read must be
//! the one before the index ran). Any other base is evaluated into a value first.

use super::{Compiler, Scalar, Valued, R};
use crate::context::Cx;
use crate::value::{Part, Value};
use cranelift_entity::EntityRef;
use scenic_ir::body::Expr;
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;

/// The most steps of a part read in place.
const MAX_STEPS: usize = 8;

/// Where a part read in place starts.
#[derive(Clone, Copy, Debug)]
enum Root {
    Local(usize),
    Meta(u32),
    CcState(CcStateId),
}

impl Root {
    fn get<'c>(self, cx: &'c Cx<'_>) -> Part<'c> {
        let v = match self {
            Root::Local(slot) => Some(cx.local(slot)),
            Root::Meta(f) => cx.meta(f),
            Root::CcState(s) => cx.cc_state(s),
        };
        v.map_or(Part::Missing, Part::Value)
    }
}

/// One step from a root to a part.
enum PathStep {
    Field(u32),
    Index(Scalar),
}

/// A part read in place: the root and the steps, root first.
struct Path {
    root: Root,
    steps: Vec<PathStep>,
}

impl Path {
    /// The steps, when they are all fields.
    fn fields(&self) -> Option<Box<[u32]>> {
        self.steps
            .iter()
            .map(|s| match s {
                PathStep::Field(f) => Some(*f),
                PathStep::Index(_) => None,
            })
            .collect()
    }

    /// Evaluates the indices, then reads the part and gives it to `f`.
    #[inline]
    fn read<T>(&self, cx: &mut Cx<'_>, f: impl FnOnce(Part<'_>) -> T) -> R<T> {
        let mut indices = [0usize; MAX_STEPS];
        for (slot, step) in indices.iter_mut().zip(&self.steps) {
            if let PathStep::Index(e) = step {
                *slot = e(cx)?.to_u128() as usize;
            }
        }
        let mut part = self.root.get(cx);
        for (step, &i) in self.steps.iter().zip(&indices) {
            part = match step {
                PathStep::Field(field) => part.field(*field),
                PathStep::Index(_) => part.element(i),
            };
        }
        Ok(f(part))
    }
}

impl Compiler<'_> {
    /// Compiles expression `id` for its value.
    pub fn value(&mut self, id: ExprId) -> Valued {
        let scalar = self.is_scalar(id);
        match &self.body.exprs[id] {
            Expr::Call(f, args) => self.call(*f, args),
            Expr::CallAction(a, args) => {
                let run = self.call_action(*a, args);
                Box::new(move |cx| {
                    run(cx)?;
                    Ok(Value::Unit)
                })
            }
            Expr::Header { inst, index } => {
                let (inst, index) = (*inst, self.index(*index));
                Box::new(move |cx| {
                    let i = index(cx)?;
                    Ok(match &cx.pkt {
                        Some(p) => Value::Header(p.headers.value(p.data, inst, i)),
                        None => Value::Header(crate::value::HeaderVal {
                            valid: false,
                            fields: Vec::new(),
                        }),
                    })
                })
            }
            Expr::StructLit(items) => self.items(items, Value::Struct),
            Expr::ArrayLit(items) => self.items(items, Value::Array),
            Expr::Tuple(items) => self.items(items, Value::Tuple),
            Expr::Local(l) if !scalar => {
                let slot = l.index();
                Box::new(move |cx| Ok(cx.local(slot).clone()))
            }
            Expr::Meta(f) if !scalar => {
                let f = *f;
                Box::new(move |cx| Ok(cx.meta(f).cloned().unwrap_or(Value::Unit)))
            }
            Expr::CcState(s) if !scalar => {
                let s = *s;
                Box::new(move |cx| Ok(cx.cc_state(s).cloned().unwrap_or(Value::Unit)))
            }
            Expr::Field { .. } | Expr::Index { .. } if !scalar => self.part_value(id),
            Expr::MapGet(m, key) if !scalar => self.map_get_value(*m, *key),
            Expr::Select(c, a, b) if !scalar => {
                // Only the taken operand runs (language.md §4.17).
                let (c, a, b) = (self.scalar(*c), self.value(*a), self.value(*b));
                Box::new(move |cx| if c(cx)?.is_zero() { b(cx) } else { a(cx) })
            }
            _ if scalar => {
                let s = self.scalar(id);
                Box::new(move |cx| Ok(Value::Bits(s(cx)?)))
            }
            _ => {
                let zero = Value::zero(self.ty(id), self.module);
                Box::new(move |_| Ok(zero.clone()))
            }
        }
    }

    /// A struct, array or tuple built from `items` in order.
    fn items(&mut self, items: &[ExprId], make: fn(Vec<Value>) -> Value) -> Valued {
        let items: Vec<Valued> = items.iter().map(|i| self.value(*i)).collect();
        Box::new(move |cx| {
            let mut values = Vec::with_capacity(items.len());
            for item in &items {
                values.push(item(cx)?);
            }
            Ok(make(values))
        })
    }

    /// The path of a part read in place, when `id` is one.
    fn path(&mut self, id: ExprId) -> Option<Path> {
        let mut steps = Vec::new();
        let mut indices = Vec::new();
        let mut at = id;
        let root = loop {
            match self.body.exprs.get(at)? {
                Expr::Field { base, field } => {
                    steps.push(Err(*field));
                    at = *base;
                }
                Expr::Index { base, index } => {
                    steps.push(Ok(*index));
                    indices.push(*index);
                    at = *base;
                }
                Expr::Local(l) => break Root::Local(l.index()),
                Expr::Meta(f) => break Root::Meta(*f),
                Expr::CcState(s) => break Root::CcState(*s),
                _ => return None,
            }
        };
        let in_place =
            matches!(root, Root::Local(_)) || indices.iter().all(|i| self.leaves_state(*i));
        if !in_place || steps.len() > MAX_STEPS {
            return None;
        }
        steps.reverse();
        let steps = steps
            .into_iter()
            .map(|s| match s {
                Ok(index) => PathStep::Index(self.scalar(index)),
                Err(field) => PathStep::Field(field),
            })
            .collect();
        Some(Path { root, steps })
    }

    /// Whether evaluating `id` cannot change `meta` or cc state: its tree calls no function or
    /// action and applies no table (the only code that could write them).
    fn leaves_state(&self, id: ExprId) -> bool {
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            match self.body.exprs.get(x) {
                Some(Expr::Const(_) | Expr::Local(_) | Expr::Csr(_) | Expr::Meta(_)) => {}
                Some(
                    Expr::HeaderField { index: None, .. } | Expr::CcState(_) | Expr::CcParam(_),
                ) => {}
                Some(Expr::Unary(_, a) | Expr::Cast(a) | Expr::Slice { base: a, .. }) if *a < x => {
                    stack.push(*a)
                }
                Some(Expr::Binary(_, a, b)) if *a < x && *b < x => stack.extend([*a, *b]),
                _ => return false,
            }
        }
        true
    }

    /// A scalar part of a value (`Field` or `Index`).
    pub fn part_scalar(&mut self, id: ExprId) -> Scalar {
        if let Some(path) = self.path(id) {
            // Fields only (`stats.packets`, `meta.f.g`): no index to evaluate, so the part is
            // reached directly, without the index buffer `Path::read` fills for every read.
            if let Some(fields) = path.fields() {
                let root = path.root;
                if let [field] = *fields {
                    return Box::new(move |cx| Ok(root.get(cx).field(field).to_bits()));
                }
                return Box::new(move |cx| {
                    let part = fields.iter().fold(root.get(cx), |p, &f| p.field(f));
                    Ok(part.to_bits())
                });
            }
            return Box::new(move |cx| path.read(cx, |p| p.to_bits()));
        }
        let project = self.project(id);
        Box::new(move |cx| project(cx, &|p| Value::Bits(p.to_bits())).map(Value::into_bits))
    }

    /// A part of a value (`Field` or `Index`) of any type.
    fn part_value(&mut self, id: ExprId) -> Valued {
        if let Some(path) = self.path(id) {
            return Box::new(move |cx| path.read(cx, |p| p.to_value()));
        }
        let project = self.project(id);
        Box::new(move |cx| project(cx, &|p| p.to_value()))
    }

    /// A `Field` or `Index` of a base evaluated into a value first (base, then the index).
    #[allow(clippy::type_complexity)]
    fn project(
        &mut self,
        id: ExprId,
    ) -> Box<dyn Fn(&mut Cx<'_>, &dyn Fn(Part<'_>) -> Value) -> R<Value> + Send + Sync> {
        match &self.body.exprs[id] {
            Expr::Field { base, field } => {
                let (base, field) = (self.value(*base), *field);
                Box::new(move |cx, f| Ok(f(base(cx)?.field(field))))
            }
            Expr::Index { base, index } => {
                let (base, index) = (self.value(*base), self.scalar(*index));
                Box::new(move |cx, f| {
                    let v = base(cx)?;
                    let i = index(cx)?.to_u128() as usize;
                    Ok(f(v.element(i)))
                })
            }
            _ => Box::new(|_, _| Ok(Value::Bits(Bits::zero(1)))),
        }
    }
}
