//! The run-time state of a map (`array`, `hash` or `lru_hash`).
//!
//! Entries live in a slab (`slots`) indexed by a hash table from key to slot; removed slots are
//! reused. An `lru_hash` map also threads its entries on a doubly linked recency list (most
//! recent first), so a use moves an entry to the front and eviction takes the back, both O(1)
//! with one hash lookup per operation.
//!
//! Layout, for speed (a map of thousands of entries does not stay in cache between packets, so
//! the cost of an access is its cache misses): keys of at most `NARROW` bits are indexed by a
//! `u128` that packs the width above the value (32-byte buckets instead of 48 for a [`Bits`]),
//! and the recency links live in their own array of 8-byte pairs, so that moving an entry to the
//! front touches its neighbours' links, not their whole slots.
//!
//! Semantics (`docs/interpreter.md`): `get` of an absent key gives nothing (the caller supplies
//! the value type's zero); `insert` replaces a present key's value and never fails then; on a new
//! key it fails when a `hash` map is full, evicts the least recently used entry when an
//! `lru_hash` map is full (`get` and `insert` count as uses, `contains` does not), and fails for
//! an `array` key at or above the size. `remove` reports whether the key was present (an `array`
//! cell is zeroed, i.e. forgotten).
//!
//! Invariants: the index (`narrow` and `wide` together) and the occupied slots are in one-to-one
//! correspondence, a key being in `narrow` exactly when its width is at most `NARROW`; `links`
//! has one pair per slot; in an `lru_hash` map every occupied slot is on the list exactly once,
//! and free slots are on no list.

mod values;

use super::hash::FastMap;
use super::value::Value;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::MapKind;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use values::Values;

/// No slot (the ends of the recency list).
const NIL: u32 = u32::MAX;

/// Keys up to this width are indexed by a packed `u128` (value below bit 120, width above).
const NARROW: u32 = 120;

/// The packed index key of a narrow key: distinct for distinct (width, value) pairs, as `Bits`
/// equality is.
#[inline]
fn packed(key: &Bits) -> Option<u128> {
    let w = key.width();
    (w <= NARROW).then(|| key.to_u128() | (u128::from(w) << NARROW))
}

#[derive(Clone, Debug)]
struct Slot {
    key: Bits,
}

/// Neighbours on the recency list: previous (more recent) and next (less recent).
#[derive(Clone, Copy, Debug)]
struct Link {
    prev: u32,
    next: u32,
}

/// The run-time state of a map. See the [module documentation](self).
#[derive(Clone, Debug)]
pub struct MapState {
    kind: MapKind,
    size: u64,
    narrow: FastMap<u128, u32>,
    wide: FastMap<Bits, u32>,
    slots: Vec<Slot>,
    /// The value of each slot.
    values: Values,
    links: Vec<Link>,
    /// Free slots; a new key takes the lowest (as the kernel's register CAM takes its lowest free
    /// slot, so that slot numbers are the kernel's for maps of at most 16 keys).
    free: BinaryHeap<Reverse<u32>>,
    /// Most and least recently used slots (`lru_hash` maps only).
    head: u32,
    tail: u32,
    /// Inserts that failed because the map was full.
    pub failed_inserts: u64,
}

impl MapState {
    /// An empty map of values of any shape.
    pub fn new(kind: MapKind, size: u64) -> MapState {
        MapState::of_values(kind, size, None)
    }

    /// An empty map whose values are shaped like `zero` (the value type's zero), stored flat when
    /// the type allows (see `map/values.rs`).
    pub fn of_values(kind: MapKind, size: u64, zero: Option<&Value>) -> MapState {
        MapState {
            kind,
            size,
            narrow: FastMap::default(),
            wide: FastMap::default(),
            slots: Vec::new(),
            values: Values::for_values(zero),
            links: Vec::new(),
            free: BinaryHeap::new(),
            head: NIL,
            tail: NIL,
            failed_inserts: 0,
        }
    }

    /// The slot of `key`, if present.
    #[inline]
    fn find(&self, key: &Bits) -> Option<u32> {
        match packed(key) {
            Some(k) => self.narrow.get(&k).copied(),
            None => self.wide.get(key).copied(),
        }
    }

    /// Takes slot `i` off the recency list.
    fn unlink(&mut self, i: u32) {
        let Some(&Link { prev, next }) = self.links.get(i as usize) else {
            return;
        };
        match self.links.get_mut(prev as usize) {
            Some(p) => p.next = next,
            None => self.head = next,
        }
        match self.links.get_mut(next as usize) {
            Some(n) => n.prev = prev,
            None => self.tail = prev,
        }
    }

    /// Puts slot `i` (not on the list) at the front of the recency list.
    fn push_front(&mut self, i: u32) {
        let old = self.head;
        if let Some(l) = self.links.get_mut(i as usize) {
            *l = Link {
                prev: NIL,
                next: old,
            };
        }
        match self.links.get_mut(old as usize) {
            Some(h) => h.prev = i,
            None => self.tail = i,
        }
        self.head = i;
    }

    /// Records a use of slot `i` (`lru_hash` maps).
    #[inline]
    fn touch(&mut self, i: u32) {
        if self.kind == MapKind::LruHash && self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
    }

    /// `get`: the value, or `None` when absent (the caller supplies the zero value).
    pub fn get(&mut self, key: &Bits) -> Option<Value> {
        let i = self.find(key)?;
        self.touch(i);
        Some(self.values.read(i as usize))
    }

    /// `get` into `out` (reusing its storage); whether the key was present (`out` is then
    /// untouched).
    #[inline]
    pub fn get_into(&mut self, key: &Bits, out: &mut Value) -> bool {
        let Some(i) = self.find(key) else {
            return false;
        };
        self.touch(i);
        self.values.read_into(i as usize, out);
        true
    }

    /// `get` of a map whose values are scalars: the value's bits, `None` when absent.
    #[inline]
    pub fn get_bits(&mut self, key: &Bits) -> Option<Bits> {
        let i = self.find(key)?;
        self.touch(i);
        match self.values.scalar(i as usize) {
            Some(word) => Some(Bits::from_u64(self.values.scalar_width(), word)),
            None => Some(self.values.read(i as usize).into_bits()),
        }
    }

    /// The host's read: the value of `key` without refreshing recency; `None` when absent (an
    /// `array` cell below the size is always present, zero until written).
    pub fn peek(&self, key: &Bits) -> Option<Value> {
        match self.find(key) {
            Some(i) => Some(self.values.read(i as usize)),
            None if self.kind == MapKind::Array && self.contains(key) => Some(Value::Bits(
                Bits::from_u64(self.values.scalar_width().max(1), 0),
            )),
            None => None,
        }
    }

    /// `contains` (does not refresh recency).
    pub fn contains(&self, key: &Bits) -> bool {
        match self.kind {
            MapKind::Array => key.to_u128() < u128::from(self.size),
            _ => self.find(key).is_some(),
        }
    }

    /// `insert`: false when it does not fit.
    pub fn insert(&mut self, key: Bits, value: Value) -> bool {
        self.insert_from(&key, &value)
    }

    /// `insert` of a borrowed value.
    pub fn insert_from(&mut self, key: &Bits, value: &Value) -> bool {
        if self.kind == MapKind::Array && key.to_u128() >= u128::from(self.size) {
            self.failed_inserts += 1;
            return false;
        }
        if let Some(i) = self.find(key) {
            self.touch(i);
            self.values.write(i as usize, value);
            return true;
        }
        let full = self.len() as u64 >= self.size;
        if full && (self.kind != MapKind::LruHash || !self.evict()) {
            self.failed_inserts += 1;
            return false;
        }
        let i = self.new_slot(key);
        self.values.write(i as usize, value);
        if self.kind == MapKind::LruHash {
            self.push_front(i);
        }
        true
    }

    /// A slot for a new `key` (a free one if any), entered in the index.
    fn new_slot(&mut self, key: &Bits) -> u32 {
        let i = match self.free.pop().map(|Reverse(i)| i) {
            Some(i) => {
                if let Some(s) = self.slots.get_mut(i as usize) {
                    s.key.clone_from(key);
                }
                i
            }
            None => {
                self.slots.push(Slot { key: key.clone() });
                self.values.push();
                self.links.push(Link {
                    prev: NIL,
                    next: NIL,
                });
                (self.slots.len() - 1) as u32
            }
        };
        match packed(key) {
            Some(k) => self.narrow.insert(k, i),
            None => self.wide.insert(key.clone(), i),
        };
        i
    }

    /// Evicts the least recently used entry; whether there was one.
    fn evict(&mut self) -> bool {
        let i = self.tail;
        let Some(key) = self.slots.get(i as usize).map(|s| s.key.clone()) else {
            return false;
        };
        self.remove(&key)
    }

    /// `remove`: whether the key was present (array maps zero the cell).
    pub fn remove(&mut self, key: &Bits) -> bool {
        let found = match packed(key) {
            Some(k) => self.narrow.remove(&k),
            None => self.wide.remove(key),
        };
        if let Some(i) = found {
            if self.kind == MapKind::LruHash {
                self.unlink(i);
            }
            self.values.forget(i as usize);
            self.free.push(Reverse(i));
        }
        match self.kind {
            MapKind::Array => key.to_u128() < u128::from(self.size),
            _ => found.is_some(),
        }
    }

    /// Slots ever used: every stored entry is in a slot below this number (slots of removed
    /// entries are reused, the lowest first).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The key and value stored in slot `slot`, `None` when the slot is free or out of range.
    /// For the host's iteration (`scenic_sim::control`): a key keeps its slot while it is stored,
    /// and neither a lookup nor a recency refresh moves it.
    pub fn slot_entry(&self, slot: usize) -> Option<(Bits, Value)> {
        let key = &self.slots.get(slot)?.key;
        (self.find(key)? as usize == slot).then(|| (key.clone(), self.values.read(slot)))
    }

    /// Number of stored entries.
    pub fn len(&self) -> usize {
        self.narrow.len() + self.wide.len()
    }

    /// Whether the map holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: u64) -> Bits {
        Bits::from_u64(24, k)
    }

    fn val(v: u64) -> Value {
        Value::Bits(Bits::from_u64(8, v))
    }

    #[test]
    fn lru_evicts_the_least_recently_used_and_reuses_slots() {
        let mut m = MapState::new(MapKind::LruHash, 3);
        for k in 1..=3 {
            assert!(m.insert(key(k), val(k)));
        }
        assert_eq!(m.get(&key(1)), Some(val(1)), "1 is now the most recent");
        assert!(m.contains(&key(2)), "contains is not a use");
        assert!(m.insert(key(4), val(4)), "evicts 2");
        assert_eq!(m.get(&key(2)), None);
        assert!(
            m.insert(key(3), val(33)),
            "a present key is replaced, a use"
        );
        assert!(m.insert(key(5), val(5)), "evicts 1");
        assert_eq!(m.get(&key(1)), None);
        assert_eq!(m.len(), 3);
        assert!(m.remove(&key(3)));
        assert!(!m.remove(&key(3)));
        assert!(m.insert(key(6), val(6)), "room after the removal");
        assert_eq!(m.len(), 3);
        assert!(m.insert(key(7), val(7)), "evicts 4, the oldest left");
        assert_eq!(m.get(&key(4)), None);
        assert_eq!(m.get(&key(5)), Some(val(5)));
        assert_eq!(m.failed_inserts, 0);
    }

    #[test]
    fn freed_slots_are_reused_lowest_first_and_iterable() {
        let mut m = MapState::new(MapKind::Hash, 4);
        for k in 1..=4 {
            assert!(m.insert(key(k), val(k)));
        }
        assert!(m.remove(&key(3)));
        assert!(m.remove(&key(1)));
        assert_eq!(m.slot_entry(0), None, "a free slot");
        assert_eq!(m.slot_entry(1), Some((key(2), val(2))));
        assert!(m.insert(key(5), val(5)));
        assert_eq!(
            m.slot_entry(0),
            Some((key(5), val(5))),
            "slot 0 before slot 2"
        );
        assert!(m.insert(key(6), val(6)));
        assert_eq!(m.slot_entry(2), Some((key(6), val(6))));
        assert_eq!(m.slot_count(), 4);
        assert_eq!(m.slot_entry(4), None);
    }

    #[test]
    fn hash_maps_fail_when_full_and_arrays_past_their_size() {
        let mut h = MapState::new(MapKind::Hash, 1);
        assert!(h.insert(key(1), val(1)));
        assert!(!h.insert(key(2), val(2)));
        assert!(h.insert(key(1), val(9)));
        assert_eq!(h.get(&key(1)), Some(val(9)));
        assert_eq!(h.failed_inserts, 1);
        let mut a = MapState::new(MapKind::Array, 4);
        assert!(!a.insert(key(4), val(1)));
        assert!(a.insert(key(3), val(1)));
        assert!(a.contains(&key(2)), "every cell of an array exists");
        assert!(a.remove(&key(2)), "removing a cell zeroes it");
        assert!(!a.remove(&key(4)));
        assert_eq!(a.len(), 1);
    }
}
