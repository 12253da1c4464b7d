//! A packet classifier for tables searched in order (priority and longest-prefix tables).
//!
//! Each key dimension is cut into elementary intervals by the bounds of every entry's match (a
//! prefix or a range is an interval; an exact value a one-point interval; a wildcard everything).
//! For each interval the classifier stores the set of entries covering it, as a bitset over the
//! entries' search order. A lookup finds the interval of each key by binary search, intersects the
//! bitsets, and the first set bit is the winning entry (entries are kept in search order, so the
//! first is the highest priority or the longest prefix). Ternary masks that are not prefixes are not
//! intervals: such entries cover their dimension entirely and are verified after the intersection.
//! This is the bit-vector scheme of Lakshman and Stiliadis (SIGCOMM 1998), with a lookup cost of one
//! binary search per dimension plus `entries / 64` word operations per dimension.

use super::bits::Bits;
use super::state::{KeyTest, RtEntry};

/// Keys wider than this are not classified (the table falls back to a linear scan).
const MAX_KEY_BITS: u32 = 128;

#[derive(Clone, Debug)]
struct Dim {
    /// Start of each elementary interval, ascending; the first is 0.
    starts: Vec<u128>,
    /// Entries covering each interval, `words` u64s per interval.
    sets: Vec<u64>,
}

/// The classifier of one table's entries.
#[derive(Clone, Debug)]
pub struct Classifier {
    dims: Vec<Dim>,
    words: usize,
    /// Entries whose match is not an interval in some dimension: verify them after intersecting.
    verify: Vec<bool>,
}

/// The interval a test covers in a key of `width` bits; `None` when it is not an interval.
fn interval(test: &KeyTest, width: u32) -> Option<(u128, u128)> {
    let max = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    match test {
        KeyTest::Any => Some((0, max)),
        KeyTest::Exact(v) => Some((v.to_u128(), v.to_u128())),
        KeyTest::Range(lo, hi) => Some((lo.to_u128(), hi.to_u128().min(max))),
        KeyTest::Masked(v, m, _) => {
            let mask = m.to_u128();
            let host = !mask & max;
            // A prefix mask: its complement is a run of low ones.
            (host & host.wrapping_add(1) == 0)
                .then(|| (v.to_u128() & mask, (v.to_u128() & mask) | host))
        }
    }
}

impl Classifier {
    /// A classifier for `entries` (in search order) over keys of the given widths; `None` when a key
    /// is too wide to classify.
    pub fn build(entries: &[RtEntry], widths: &[u32]) -> Option<Classifier> {
        if widths.iter().any(|w| *w > MAX_KEY_BITS) {
            return None;
        }
        let words = entries.len().div_ceil(64).max(1);
        let mut verify = vec![false; entries.len()];
        let mut dims = Vec::with_capacity(widths.len());
        for (d, &width) in widths.iter().enumerate() {
            let intervals: Vec<Option<(u128, u128)>> = entries
                .iter()
                .map(|e| e.keys.get(d).and_then(|t| interval(t, width)))
                .collect();
            for (i, iv) in intervals.iter().enumerate() {
                verify[i] |= iv.is_none();
            }
            dims.push(Self::dimension(&intervals, width, words));
        }
        Some(Classifier {
            dims,
            words,
            verify,
        })
    }

    fn dimension(intervals: &[Option<(u128, u128)>], width: u32, words: usize) -> Dim {
        let max = if width >= 128 {
            u128::MAX
        } else {
            (1u128 << width) - 1
        };
        let mut starts = vec![0u128];
        for (lo, hi) in intervals.iter().map(|iv| iv.unwrap_or((0, max))) {
            starts.push(lo);
            if hi < max {
                starts.push(hi + 1);
            }
        }
        starts.sort_unstable();
        starts.dedup();
        let mut sets = vec![0u64; starts.len() * words];
        for (i, iv) in intervals.iter().enumerate() {
            let (lo, hi) = iv.unwrap_or((0, max));
            let first = starts.partition_point(|s| *s <= lo) - 1;
            let last = starts.partition_point(|s| *s <= hi) - 1;
            for seg in first..=last {
                sets[seg * words + i / 64] |= 1 << (i % 64);
            }
        }
        Dim { starts, sets }
    }

    /// The position (in search order) of the first entry matching `key`, checking candidates with
    /// `matches` when their match is not exact intervals.
    pub fn lookup(&self, key: &[Bits], matches: impl Fn(usize) -> bool) -> Option<usize> {
        let mut acc = [u64::MAX; 64];
        let words = self.words;
        let acc: &mut [u64] = if words <= 64 {
            &mut acc[..words]
        } else {
            return self.lookup_large(key, matches);
        };
        for (dim, x) in self.dims.iter().zip(key) {
            let v = x.to_u128();
            let seg = dim.starts.partition_point(|s| *s <= v).saturating_sub(1);
            let set = &dim.sets[seg * words..(seg + 1) * words];
            for (a, s) in acc.iter_mut().zip(set) {
                *a &= s;
            }
        }
        first_match(acc, &self.verify, matches)
    }

    fn lookup_large(&self, key: &[Bits], matches: impl Fn(usize) -> bool) -> Option<usize> {
        let mut acc = vec![u64::MAX; self.words];
        for (dim, x) in self.dims.iter().zip(key) {
            let v = x.to_u128();
            let seg = dim.starts.partition_point(|s| *s <= v).saturating_sub(1);
            for (a, s) in acc
                .iter_mut()
                .zip(&dim.sets[seg * self.words..(seg + 1) * self.words])
            {
                *a &= s;
            }
        }
        first_match(&acc, &self.verify, matches)
    }
}

fn first_match(acc: &[u64], verify: &[bool], matches: impl Fn(usize) -> bool) -> Option<usize> {
    for (w, word) in acc.iter().enumerate() {
        let mut bits = *word;
        while bits != 0 {
            let i = w * 64 + bits.trailing_zeros() as usize;
            if i >= verify.len() {
                return None;
            }
            if !verify[i] || matches(i) {
                return Some(i);
            }
            bits &= bits - 1;
        }
    }
    None
}
