//! The values of a map's slots: flat 64-bit words when the value type allows, else `Value`s.
//!
//! A map of thousands of entries is read from memory, not from cache, so what matters is how many
//! cache lines an access touches. A struct value as a [`Value`] is a vector on the heap of 48-byte
//! elements: a `get` of a three-field struct reads the slot, then the vector, three or four lines.
//! When every leaf of the value type (its fields, recursively, or the value itself) is a scalar of
//! at most 64 bits, the values are kept instead as `stride` words per slot in one vector, a
//! quarter of a line for that struct, and copied into and out of the program's `Value`s leaf by
//! leaf.
//!
//! Invariants: in the flat form `words.len() == stride * slots`, `widths` lists the leaf widths
//! in the order [`leaves`] visits them, and each word is below 2^width of its leaf; a value of
//! another shape written into a flat store turns it into the boxed form first (only hand-made
//! modules do that), so nothing written is ever lost.

use crate::value::Value;
use scenic_ir::proc::bits::Bits;

/// The widest leaf a flat store holds.
const MAX_LEAF: u32 = 64;

/// The values of a map, by slot. See the [module documentation](self).
#[derive(Clone, Debug)]
pub(super) enum Values {
    /// `stride` words per slot, leaf by leaf; `shape` is the value type's zero, `simple` its
    /// kind when it is an aggregate of scalars only.
    Flat {
        shape: Value,
        simple: Option<u8>,
        widths: Box<[u32]>,
        words: Vec<u64>,
    },
    /// One value per slot.
    Boxed(Vec<Value>),
}

/// Appends the widths of `v`'s leaves, in order; false when a leaf is not a scalar of at most
/// 64 bits (a header, whose validity is not a leaf, or nothing).
fn leaves(v: &Value, widths: &mut Vec<u32>) -> bool {
    match v {
        Value::Bits(b) if (1..=MAX_LEAF).contains(&b.width()) => {
            widths.push(b.width());
            true
        }
        Value::Struct(items) | Value::Array(items) | Value::Tuple(items) => {
            items.iter().all(|i| leaves(i, widths))
        }
        _ => false,
    }
}

/// The items of an aggregate value, with its kind (`None` for a scalar or nothing).
fn items(v: &Value) -> Option<(u8, &[Value])> {
    match v {
        Value::Struct(items) => Some((0, items)),
        Value::Array(items) => Some((1, items)),
        Value::Tuple(items) => Some((2, items)),
        _ => None,
    }
}

/// The items of an aggregate value to write, with its kind.
fn items_mut(v: &mut Value) -> Option<(u8, &mut [Value])> {
    match v {
        Value::Struct(items) => Some((0, items)),
        Value::Array(items) => Some((1, items)),
        Value::Tuple(items) => Some((2, items)),
        _ => None,
    }
}

/// The kind of `shape` when it is an aggregate of scalars only (the common map value, a struct of
/// counters and times), whose values [`store_simple`] and [`load_simple`] copy in one loop.
fn simple_kind(shape: &Value) -> Option<u8> {
    let (kind, parts) = items(shape)?;
    parts
        .iter()
        .all(|p| matches!(p, Value::Bits(_)))
        .then_some(kind)
}

/// [`store`] of a value of a simple shape (see [`simple_kind`]): `None` when `v` is not of it.
#[inline]
fn store_simple(v: &Value, kind: u8, widths: &[u32], words: &mut [u64]) -> Option<()> {
    let (k, items) = items(v)?;
    if k != kind || items.len() != widths.len() || words.len() != widths.len() {
        return None;
    }
    for ((item, word), &width) in items.iter().zip(words.iter_mut()).zip(widths) {
        match item {
            Value::Bits(b) if b.width() == width => *word = b.to_u64(),
            _ => return None,
        }
    }
    Some(())
}

/// [`load`] into `out` of a simple shape (see [`simple_kind`]): `None` (nothing set) when `out`
/// is not of it.
#[inline]
fn load_simple(out: &mut Value, kind: u8, widths: &[u32], words: &[u64]) -> Option<()> {
    let (k, items) = items_mut(out)?;
    let fits = k == kind
        && items.len() == widths.len()
        && items.iter().all(|i| matches!(i, Value::Bits(_)));
    if !fits {
        return None;
    }
    for ((item, &word), &width) in items.iter_mut().zip(words).zip(widths) {
        if let Value::Bits(b) = item {
            *b = Bits::from_u64(width, word);
        }
    }
    Some(())
}

/// Writes the leaves of `v` into `words` from `at`, walking `shape` beside it; the position after
/// them, or `None` when `v` is not of the shape (kinds, lengths and widths; some of its leaves may
/// have been written then).
fn store(v: &Value, shape: &Value, words: &mut [u64], at: usize) -> Option<usize> {
    match (v, shape) {
        (Value::Bits(b), Value::Bits(s)) if b.width() == s.width() => {
            *words.get_mut(at)? = b.to_u64();
            Some(at + 1)
        }
        _ => {
            let ((kind, items), (want, parts)) = (items(v)?, items(shape)?);
            if kind != want || items.len() != parts.len() {
                return None;
            }
            items
                .iter()
                .zip(parts)
                .try_fold(at, |at, (i, p)| store(i, p, words, at))
        }
    }
}

/// Sets the leaves of `out` from `words` from `at`, walking `shape` beside it; the position after
/// them, or `None` when `out` is not of the shape (kinds and lengths; some leaves may have been set
/// then).
fn load(out: &mut Value, shape: &Value, words: &[u64], at: usize) -> Option<usize> {
    match (out, shape) {
        (Value::Bits(b), Value::Bits(s)) => {
            *b = Bits::from_u64(s.width(), *words.get(at)?);
            Some(at + 1)
        }
        (out, shape) => {
            let ((kind, items), (want, parts)) = (items_mut(out)?, items(shape)?);
            if kind != want || items.len() != parts.len() {
                return None;
            }
            items
                .iter_mut()
                .zip(parts)
                .try_fold(at, |at, (i, p)| load(i, p, words, at))
        }
    }
}

impl Values {
    /// The store for values shaped like `zero` (the value type's zero): flat when it can be.
    pub fn for_values(zero: Option<&Value>) -> Values {
        let mut widths = Vec::new();
        match zero {
            Some(z) if leaves(z, &mut widths) => Values::Flat {
                shape: z.clone(),
                simple: simple_kind(z),
                widths: widths.into(),
                words: Vec::new(),
            },
            _ => Values::Boxed(Vec::new()),
        }
    }

    /// Adds a slot (its value unset until written).
    pub fn push(&mut self) {
        match self {
            Values::Flat { widths, words, .. } => words.resize(words.len() + widths.len(), 0),
            Values::Boxed(values) => values.push(Value::Unit),
        }
    }

    /// Writes slot `i`.
    pub fn write(&mut self, i: usize, value: &Value) {
        if let Values::Flat {
            shape,
            simple,
            widths,
            words,
        } = self
        {
            let stride = widths.len();
            if let Some(slot) = words.get_mut(i * stride..(i + 1) * stride) {
                let simple = simple.and_then(|k| store_simple(value, k, widths, slot));
                if simple.is_some() || store(value, shape, slot, 0) == Some(stride) {
                    return;
                }
            }
            // Not of the value type (a hand-made module): keep it whole.
            self.unflatten();
        }
        if let Values::Boxed(values) = self {
            if let Some(v) = values.get_mut(i) {
                v.clone_from(value);
            }
        }
    }

    /// Copies slot `i` into `out`, reusing its storage when it has the value's shape.
    pub fn read_into(&self, i: usize, out: &mut Value) {
        match self {
            Values::Flat {
                shape,
                simple,
                widths,
                words,
            } => {
                let stride = widths.len();
                let Some(slot) = words.get(i * stride..(i + 1) * stride) else {
                    return;
                };
                if simple
                    .and_then(|k| load_simple(out, k, widths, slot))
                    .is_some()
                {
                    return;
                }
                if load(out, shape, slot, 0) != Some(stride) {
                    out.clone_from(shape);
                    load(out, shape, slot, 0);
                }
            }
            Values::Boxed(values) => {
                if let Some(v) = values.get(i) {
                    out.clone_from(v);
                }
            }
        }
    }

    /// Slot `i`'s value.
    pub fn read(&self, i: usize) -> Value {
        let mut out = Value::Unit;
        self.read_into(i, &mut out);
        out
    }

    /// The scalar of slot `i` of a map whose values are scalars of at most 64 bits, else `None`.
    #[inline]
    pub fn scalar(&self, i: usize) -> Option<u64> {
        match self {
            Values::Flat {
                shape: Value::Bits(_),
                words,
                ..
            } => words.get(i).copied(),
            _ => None,
        }
    }

    /// The width of the scalar of a map whose values are scalars of at most 64 bits.
    pub fn scalar_width(&self) -> u32 {
        match self {
            Values::Flat { widths, .. } => widths.first().copied().unwrap_or(1),
            Values::Boxed(_) => 1,
        }
    }

    /// Forgets slot `i`'s value (a removed entry), releasing what it holds.
    pub fn forget(&mut self, i: usize) {
        if let Values::Boxed(values) = self {
            if let Some(v) = values.get_mut(i) {
                *v = Value::Unit;
            }
        }
    }

    /// Turns a flat store into the boxed form, every slot's value kept.
    fn unflatten(&mut self) {
        let slots = match self {
            Values::Flat { widths, words, .. } => words.len() / widths.len().max(1),
            Values::Boxed(_) => return,
        };
        let values = (0..slots).map(|i| self.read(i)).collect();
        *self = Values::Boxed(values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(w: u32, v: u64) -> Value {
        Value::Bits(Bits::from_u64(w, v))
    }

    fn stats(p: u64, bytes: u64, t: u64) -> Value {
        Value::Struct(vec![b(32, p), b(48, bytes), b(64, t)])
    }

    #[test]
    fn a_struct_of_narrow_fields_is_stored_flat_and_read_back() {
        let mut v = Values::for_values(Some(&stats(0, 0, 0)));
        assert!(matches!(v, Values::Flat { .. }));
        v.push();
        v.push();
        v.write(1, &stats(7, 1 << 40, u64::MAX));
        assert_eq!(v.read(1), stats(7, 1 << 40, u64::MAX));
        assert_eq!(v.read(0), stats(0, 0, 0), "an unwritten slot reads as zero");
        let mut out = b(8, 3);
        v.read_into(1, &mut out);
        assert_eq!(out, stats(7, 1 << 40, u64::MAX), "a local of another shape");
    }

    /// A struct of one struct of two fields and a struct of two fields have the same leaves: the
    /// shape decides, not the number of leaves.
    #[test]
    fn nesting_counts_as_much_as_the_leaves() {
        let nested = |a, c| Value::Struct(vec![Value::Struct(vec![b(8, a), b(8, c)])]);
        let mut v = Values::for_values(Some(&nested(0, 0)));
        v.push();
        v.write(0, &nested(1, 2));
        let mut stale = Value::Struct(vec![b(8, 5), b(8, 6)]);
        v.read_into(0, &mut stale);
        assert_eq!(
            stale,
            nested(1, 2),
            "a stale local of another nesting is reshaped"
        );
        v.push();
        let flat = Value::Struct(vec![b(8, 3), b(8, 4)]);
        v.write(1, &flat);
        assert!(
            matches!(v, Values::Boxed(_)),
            "a value of another nesting is kept whole"
        );
        assert_eq!((v.read(0), v.read(1)), (nested(1, 2), flat));
    }

    #[test]
    fn wide_leaves_and_headers_are_boxed() {
        let wide = Value::Struct(vec![b(8, 1), b(128, 2)]);
        assert!(matches!(Values::for_values(Some(&wide)), Values::Boxed(_)));
        assert!(matches!(Values::for_values(None), Values::Boxed(_)));
    }

    #[test]
    fn a_value_of_another_shape_turns_the_store_boxed_and_keeps_everything() {
        let mut v = Values::for_values(Some(&stats(0, 0, 0)));
        v.push();
        v.push();
        v.write(0, &stats(1, 2, 3));
        v.write(1, &Value::Struct(vec![b(32, 1), b(48, 2), b(128, 3)]));
        assert!(
            matches!(v, Values::Boxed(_)),
            "a leaf wider than the type's"
        );
        v.write(1, &b(8, 9));
        assert_eq!(v.read(0), stats(1, 2, 3));
        assert_eq!(v.read(1), b(8, 9));
    }
}
