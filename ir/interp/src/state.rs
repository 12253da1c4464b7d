//! State that persists across packets: table entries, maps, counters and meters.
//!
//! Lookup semantics (the golden ones, documented in `docs/language.md`): an exact-only table is a
//! hash map; a table with an `lpm` key and no ternary/range key picks the longest prefix (ties: the
//! earliest entry); a table with a ternary or range key picks the matching entry with the lowest
//! priority number, constant entries before run-time ones, and an `lpm` key acts as a mask there.

use super::hash::FastMap;
pub use super::map::MapState;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{KeyMatch, MatchKind, Table};

/// One key element of an entry, compiled for matching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyTest {
    /// Equal to the value.
    Exact(Bits),
    /// `x & mask == value & mask` (ternary, and lpm as a mask); the prefix length for lpm.
    Masked(Bits, Bits, u32),
    /// `lo <= x <= hi` (unsigned).
    Range(Bits, Bits),
    /// Anything.
    Any,
}

impl KeyTest {
    pub(crate) fn matches(&self, x: &Bits) -> bool {
        match self {
            KeyTest::Exact(v) => v == x,
            KeyTest::Masked(v, m, _) => x.bit_and(m) == v.bit_and(m),
            KeyTest::Range(lo, hi) => !x.ult(lo) && !hi.ult(x),
            KeyTest::Any => true,
        }
    }

    /// [`KeyTest::matches`] of a key of at most 128 bits given as its value.
    #[inline]
    pub(crate) fn matches_value(&self, x: u128) -> bool {
        match self {
            KeyTest::Exact(v) => v.to_u128() == x && v.width() <= 128,
            KeyTest::Masked(v, m, _) => x & m.to_u128() == v.to_u128() & m.to_u128(),
            KeyTest::Range(lo, hi) => lo.to_u128() <= x && x <= hi.to_u128(),
            KeyTest::Any => true,
        }
    }

    /// The number of significant bits (prefix length of an lpm test).
    #[cfg(test)]
    pub(crate) fn prefix(&self) -> u32 {
        match self {
            KeyTest::Masked(_, _, len) => *len,
            KeyTest::Exact(v) => v.width(),
            _ => 0,
        }
    }
}

/// An installed entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtEntry {
    /// One test per key.
    pub keys: Vec<KeyTest>,
    /// The action's position in the table.
    pub action: u32,
    /// The action data.
    pub args: Vec<Bits>,
    /// Lower wins (ternary/range tables).
    pub priority: u64,
    /// Whether it was compiled in (cannot be removed by the host).
    pub constant: bool,
    /// A handle the host uses to remove it (0 for constant entries).
    pub handle: u64,
}

/// How a table is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    Exact,
    LongestPrefix,
    Priority,
}

/// The run-time state of a table.
#[derive(Clone, Debug)]
pub struct TableState {
    strategy: Strategy,
    /// Entries in search order (for `Exact`, unordered).
    entries: Vec<RtEntry>,
    exact: FastMap<Vec<Bits>, usize>,
    /// The default action and its data.
    pub default: (u32, Vec<Bits>),
    /// Capacity.
    pub size: u64,
    /// Hits and misses, for summaries.
    pub hits: u64,
    /// Misses.
    pub misses: u64,
    /// Key widths, for the classifier.
    widths: Vec<u32>,
    /// The classifier of `entries` (priority and longest-prefix tables), rebuilt after changes.
    classifier: Option<super::classify::Classifier>,
    /// `entries` changed since the classifier was built.
    dirty: bool,
    /// Words the host control path keeps for this table (`scenic_sim::control` numbers run-time
    /// entries with them as the generated kernel does: per table, not machine-wide like
    /// [`crate::Machine::add_entry`]). Empty until that path first adds an entry; the interpreter
    /// itself never reads them.
    pub control_words: Vec<u64>,
}

/// Why an entry could not be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The table is full.
    #[error("table is full ({0} entries)")]
    Full(u64),
    /// The table is constant.
    #[error("the table has only constant entries")]
    Constant,
    /// An entry with these keys (and, in a priority table, this priority) exists.
    #[error("an entry with the same keys exists")]
    Duplicate,
    /// A constant table's default action cannot be replaced.
    #[error("the table is constant: its default action cannot be replaced")]
    ConstantDefault,
}

impl TableState {
    /// The state of `table` with its constant entries (already compiled) installed.
    pub fn new(
        table: &Table,
        widths: Vec<u32>,
        default: (u32, Vec<Bits>),
        const_entries: Vec<RtEntry>,
    ) -> TableState {
        let kinds: Vec<MatchKind> = table.keys.iter().map(|k| k.kind).collect();
        let strategy = if kinds
            .iter()
            .any(|k| matches!(k, MatchKind::Ternary | MatchKind::Range))
        {
            Strategy::Priority
        } else if kinds.contains(&MatchKind::Lpm) {
            Strategy::LongestPrefix
        } else {
            Strategy::Exact
        };
        let mut state = TableState {
            strategy,
            entries: Vec::new(),
            exact: FastMap::default(),
            default,
            size: table.size,
            hits: 0,
            misses: 0,
            widths,
            classifier: None,
            dirty: true,
            control_words: Vec::new(),
        };
        for entry in const_entries {
            // The checker rejects duplicate constant keys, so this cannot fail.
            let _ = state.insert_unchecked(entry);
        }
        state
    }

    /// Adds an entry (host or test); fails when full or duplicate: an entry whose keys repeat an
    /// existing entry's (constant or not) in an exact or lpm table, or whose keys and priority
    /// repeat a run-time entry's in a priority table (language.md §7.9.8).
    pub fn insert(&mut self, entry: RtEntry) -> Result<(), EntryError> {
        if self.entries.len() as u64 >= self.size {
            return Err(EntryError::Full(self.size));
        }
        let repeats = |e: &RtEntry| match self.strategy {
            // Found by its hash in `insert_unchecked`.
            Strategy::Exact => false,
            Strategy::LongestPrefix => same_keys(&e.keys, &entry.keys),
            Strategy::Priority => {
                !e.constant && e.priority == entry.priority && same_keys(&e.keys, &entry.keys)
            }
        };
        if self.entries.iter().any(repeats) {
            return Err(EntryError::Duplicate);
        }
        self.insert_unchecked(entry)
    }

    fn insert_unchecked(&mut self, entry: RtEntry) -> Result<(), EntryError> {
        self.dirty = true;
        match self.strategy {
            Strategy::Exact => {
                let key: Vec<Bits> = entry.keys.iter().map(exact_value).collect();
                if self.exact.contains_key(&key) {
                    return Err(EntryError::Duplicate);
                }
                self.exact.insert(key, self.entries.len());
                self.entries.push(entry);
            }
            Strategy::LongestPrefix => {
                let len = prefix_len(&entry);
                let at = self
                    .entries
                    .iter()
                    .position(|e| prefix_len(e) < len)
                    .unwrap_or(self.entries.len());
                self.entries.insert(at, entry);
            }
            Strategy::Priority => {
                let rank = |e: &RtEntry| (!e.constant, e.priority);
                let at = self
                    .entries
                    .iter()
                    .position(|e| rank(e) > rank(&entry))
                    .unwrap_or(self.entries.len());
                self.entries.insert(at, entry);
            }
        }
        Ok(())
    }

    /// Removes the run-time entry with `handle`; whether it existed.
    pub fn remove(&mut self, handle: u64) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.constant || e.handle != handle);
        let removed = self.entries.len() != before;
        self.rebuild_exact();
        removed
    }

    /// Replaces the action and its data of the run-time entry with `handle`, in place: its keys,
    /// priority, handle and place in the search order stay (constant entries are never touched).
    /// Whether there was one.
    pub fn modify(&mut self, handle: u64, action: u32, args: Vec<Bits>) -> bool {
        match self
            .entries
            .iter_mut()
            .find(|e| !e.constant && e.handle == handle)
        {
            Some(e) => {
                e.action = action;
                e.args = args;
                true
            }
            None => false,
        }
    }

    /// Removes every run-time entry.
    pub fn clear_runtime(&mut self) {
        self.entries.retain(|e| e.constant);
        self.rebuild_exact();
    }

    fn rebuild_exact(&mut self) {
        self.dirty = true;
        self.exact.clear();
        if self.strategy == Strategy::Exact {
            for (i, e) in self.entries.iter().enumerate() {
                self.exact
                    .insert(e.keys.iter().map(exact_value).collect(), i);
            }
        }
    }

    /// The entry matching `key`, if any.
    pub fn lookup(&mut self, key: &[Bits]) -> Option<&RtEntry> {
        let i = self.find(key)?;
        self.entries.get(i)
    }

    /// The position of the entry matching `key`, if any (counted as a hit or a miss).
    pub fn find(&mut self, key: &[Bits]) -> Option<usize> {
        let found = match self.strategy {
            Strategy::Exact => self.exact.get(key).copied(),
            _ => self.search(key),
        };
        match found {
            Some(_) => self.hits += 1,
            None => self.misses += 1,
        }
        found
    }

    /// The entry at a position [`TableState::find`] gave.
    pub fn entry(&self, i: usize) -> Option<&RtEntry> {
        self.entries.get(i)
    }

    /// [`TableState::find`] of a priority or longest-prefix table whose keys are at most 64 bits
    /// each, given as their values (no [`Bits`] to build). `None` for an exact table: its index
    /// is keyed by `Bits`.
    #[inline]
    pub fn find_values(&mut self, key: &[u128]) -> Option<Option<usize>> {
        if self.strategy == Strategy::Exact {
            return None;
        }
        if self.dirty {
            self.classifier = super::classify::Classifier::build(&self.entries, &self.widths);
            self.dirty = false;
        }
        let entries = &self.entries;
        let full = |i: usize| {
            let tests = entries.get(i).map_or(&[][..], |e| &e.keys);
            tests.iter().zip(key).all(|(t, x)| t.matches_value(*x))
        };
        let found = match &self.classifier {
            Some(c) => c.lookup(key, full),
            None => (0..entries.len()).find(|i| full(*i)),
        };
        match found {
            Some(_) => self.hits += 1,
            None => self.misses += 1,
        }
        Some(found)
    }

    /// The first entry in search order matching `key` (classifier, or a scan for wide keys).
    fn search(&mut self, key: &[Bits]) -> Option<usize> {
        if self.dirty {
            self.classifier = super::classify::Classifier::build(&self.entries, &self.widths);
            self.dirty = false;
        }
        let entries = &self.entries;
        let full = |i: usize| entries[i].keys.iter().zip(key).all(|(t, x)| t.matches(x));
        match &self.classifier {
            Some(c) => c.lookup(key, full),
            None => (0..entries.len()).find(|i| full(*i)),
        }
    }

    /// Number of installed entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is installed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn exact_value(t: &KeyTest) -> Bits {
    match t {
        KeyTest::Exact(v) | KeyTest::Masked(v, _, _) | KeyTest::Range(v, _) => v.clone(),
        KeyTest::Any => Bits::zero(1),
    }
}

/// The rank of an entry of an lpm table: the prefix length of its lpm key (language.md §7.9.6: the
/// longest prefix wins; the table's exact keys must match but do not rank entries).
/// Whether two entries' keys are the same key (§7.9.8): a masked test with an all-zero mask
/// (`0/0` on an lpm key, `_ &&& 0` on a ternary one) matches anything, so it repeats `_`
/// (scenic-smith seed 17: a host `0x0/0` beside a constant `_` was accepted).
fn same_keys(a: &[KeyTest], b: &[KeyTest]) -> bool {
    let any = |k: &KeyTest| match k {
        KeyTest::Masked(_, mask, _) => mask.is_zero(),
        KeyTest::Any => true,
        KeyTest::Exact(_) | KeyTest::Range(..) => false,
    };
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y || (any(x) && any(y)))
}

fn prefix_len(e: &RtEntry) -> u32 {
    e.keys
        .iter()
        .map(|k| match k {
            KeyTest::Masked(_, _, len) => *len,
            KeyTest::Exact(_) | KeyTest::Range(..) | KeyTest::Any => 0,
        })
        .sum()
}

/// Compiles a match of a `width`-bit key of kind `kind`. A value on an `lpm` key is a full-length
/// prefix (language.md §7.9.1), so it ranks as one in a longest-prefix table and repeats the entry
/// `v/width` (as the kernel stores it: prefix length `width`).
pub fn compile_match(m: &KeyMatch, kind: MatchKind, width: u32) -> KeyTest {
    let b = |c: &scenic_ir::types::Const| Bits::from_biguint(width, &c.0);
    match m {
        KeyMatch::Exact(v) if kind == MatchKind::Lpm => {
            compile_match(&KeyMatch::Lpm(v.clone(), width), kind, width)
        }
        KeyMatch::Exact(v) => KeyTest::Exact(b(v)),
        KeyMatch::Lpm(v, len) => {
            let len = (*len).min(width);
            let mask = if len == 0 {
                Bits::zero(width)
            } else {
                Bits::ones(width).shl(width - len)
            };
            KeyTest::Masked(b(v).bit_and(&mask), mask, len)
        }
        KeyMatch::Ternary(v, m) => {
            let mask = b(m);
            KeyTest::Masked(b(v).bit_and(&mask), mask, 0)
        }
        KeyMatch::Range(lo, hi) => KeyTest::Range(b(lo), b(hi)),
        KeyMatch::Any => KeyTest::Any,
    }
}

/// One token bucket, in exact integer arithmetic: tokens are kept in byte·bit/s units so that
/// refilling by `elapsed_ns * rate_bps` needs no division.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// Rate in bit/s (`None`: not configured, never exceeds).
    pub rate: Option<u64>,
    /// Burst in bytes.
    pub burst: u64,
    tokens: u128,
    last_ns: Option<u64>,
}

const SCALE: u128 = 8_000_000_000; // bytes * 8 bits * 1e9 ns/s

impl Bucket {
    /// A full bucket.
    pub fn new(rate: Option<u64>, burst: Option<u64>) -> Bucket {
        let burst = burst.unwrap_or(0);
        Bucket {
            rate,
            burst,
            tokens: u128::from(burst) * SCALE,
            last_ns: None,
        }
    }

    /// Whether a packet of `len` bytes at time `now` exceeds the bucket; conforming packets take
    /// their tokens, exceeding ones take none.
    pub fn exceeds(&mut self, len: u64, now_ns: u64) -> bool {
        let Some(rate) = self.rate else { return false };
        let capacity = u128::from(self.burst) * SCALE;
        if let Some(last) = self.last_ns {
            let elapsed = u128::from(now_ns.saturating_sub(last));
            self.tokens = (self.tokens + elapsed * u128::from(rate)).min(capacity);
        }
        self.last_ns = Some(now_ns.max(self.last_ns.unwrap_or(0)));
        let cost = u128::from(len) * SCALE;
        if cost > self.tokens {
            return true;
        }
        self.tokens -= cost;
        false
    }
}
