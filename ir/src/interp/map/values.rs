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

use crate::interp::bits::Bits;
use crate::interp::value::Value;

/// The widest leaf a flat store holds.
const MAX_LEAF: u32 = 64;

/// The values of a map, by slot. See the [module documentation](self).
#[derive(Clone, Debug)]
pub(super) enum Values {
    /// `stride` words per slot, leaf by leaf; `shape` is the value type's zero.
    Flat {
        shape: Value,
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

/// Writes the leaves of `v` into `words` from `at`, checking each against its width in
/// `widths`; the position after them, or `None` when `v` does not have the store's shape (some of
/// its leaves may have been written then).
fn store(v: &Value, words: &mut [u64], widths: &[u32], at: usize) -> Option<usize> {
    match v {
        Value::Bits(b) => {
            if widths.get(at) != Some(&b.width()) {
                return None;
            }
            *words.get_mut(at)? = b.to_u64();
            Some(at + 1)
        }
        Value::Struct(items) | Value::Array(items) | Value::Tuple(items) => items
            .iter()
            .try_fold(at, |at, i| store(i, words, widths, at)),
        _ => None,
    }
}

/// Sets the leaves of `out` from `words` from `at`; the position after them, or `None` when `out`
/// does not have the store's shape (some leaves may have been set then).
fn load(out: &mut Value, words: &[u64], widths: &[u32], at: usize) -> Option<usize> {
    match out {
        Value::Bits(b) => {
            *b = Bits::from_u64(*widths.get(at)?, *words.get(at)?);
            Some(at + 1)
        }
        Value::Struct(items) | Value::Array(items) | Value::Tuple(items) => items
            .iter_mut()
            .try_fold(at, |at, i| load(i, words, widths, at)),
        _ => None,
    }
}

impl Values {
    /// The store for values shaped like `zero` (the value type's zero): flat when it can be.
    pub fn for_values(zero: Option<&Value>) -> Values {
        let mut widths = Vec::new();
        match zero {
            Some(z) if leaves(z, &mut widths) => Values::Flat {
                shape: z.clone(),
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
        if let Values::Flat { widths, words, .. } = self {
            let stride = widths.len();
            if let Some(slot) = words.get_mut(i * stride..(i + 1) * stride) {
                if store(value, slot, widths, 0) == Some(stride) {
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
                widths,
                words,
            } => {
                let stride = widths.len();
                let Some(slot) = words.get(i * stride..(i + 1) * stride) else {
                    return;
                };
                if load(out, slot, widths, 0) != Some(stride) {
                    out.clone_from(shape);
                    load(out, slot, widths, 0);
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
