//! A packet classifier for tables searched in order (priority and longest-prefix tables).
//!
//! Each key dimension is cut into elementary intervals by the bounds of every entry's match (a
//! prefix or a range is an interval; an exact value a one-point interval; a wildcard everything).
//! For each interval the classifier stores the set of entries covering it, as a bitset over the
//! entries' search order. A lookup finds the interval of each key by binary search and intersects
//! the bitsets a word at a time; the first set bit is the winning entry (entries are kept in search
//! order, so the first is the highest priority or the longest prefix), and the search stops at the
//! first word with a match. Ternary masks that are not prefixes are not intervals: such entries
//! cover their dimension entirely and are verified after the intersection. This is the bit-vector
//! scheme of Lakshman and Stiliadis (SIGCOMM 1998): one binary search per dimension plus at most
//! `entries / 64` word operations per dimension.
//!
//! A one-key table without such entries (a longest-prefix table on one address, a range table)
//! needs no bitsets: the winner of each interval is computed when the classifier is built, and a
//! lookup is one binary search.

use super::bits::Bits;
use super::state::{KeyTest, RtEntry};

/// Keys wider than this are not classified (the table falls back to a linear scan).
const MAX_KEY_BITS: u32 = 128;

/// The interval starts of one dimension, ascending, the first 0; 64-bit when the key fits.
#[derive(Clone, Debug)]
enum Starts {
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
}

impl Starts {
    fn new(starts: Vec<u128>, width: u32) -> Starts {
        if width <= 64 {
            Starts::Narrow(starts.into_iter().map(|s| s as u64).collect())
        } else {
            Starts::Wide(starts)
        }
    }

    /// The interval holding `v`.
    #[inline]
    fn find(&self, v: u128) -> usize {
        match self {
            Starts::Narrow(s) => {
                let v = u64::try_from(v).unwrap_or(u64::MAX);
                s.partition_point(|x| *x <= v).saturating_sub(1)
            }
            Starts::Wide(s) => s.partition_point(|x| *x <= v).saturating_sub(1),
        }
    }
}

#[derive(Clone, Debug)]
struct Dim {
    starts: Starts,
    /// Entries covering each interval, `words` u64s per interval.
    sets: Vec<u64>,
}

/// How a lookup finds the winner.
#[derive(Clone, Debug)]
enum Search {
    /// One dimension: the winner of each interval (`None`: no entry covers it).
    Direct(Starts, Vec<Option<u32>>),
    /// Intersect the dimensions' bitsets.
    Bitsets(Vec<Dim>),
}

/// The classifier of one table's entries.
#[derive(Clone, Debug)]
pub struct Classifier {
    search: Search,
    words: usize,
    /// Entries whose match is not an interval in some dimension: verify them after intersecting.
    verify: Vec<bool>,
}

/// The largest value of a `width`-bit key.
fn max_of(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// The interval a test covers in a key of `width` bits; `None` when it is not an interval.
fn interval(test: &KeyTest, width: u32) -> Option<(u128, u128)> {
    let max = max_of(width);
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

/// The elementary intervals cut by `intervals` (`None`: the whole dimension), ascending.
fn cut(intervals: &[Option<(u128, u128)>], max: u128) -> Vec<u128> {
    let mut starts = vec![0u128];
    for (lo, hi) in intervals.iter().map(|iv| iv.unwrap_or((0, max))) {
        starts.push(lo);
        if hi < max {
            starts.push(hi + 1);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// The first and last elementary interval (indices into `starts`) covered by `lo..=hi`.
fn span(starts: &[u128], lo: u128, hi: u128) -> (usize, usize) {
    let first = starts.partition_point(|s| *s <= lo).saturating_sub(1);
    let last = starts.partition_point(|s| *s <= hi).saturating_sub(1);
    (first, last)
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
        let dims: Vec<Vec<Option<(u128, u128)>>> = widths
            .iter()
            .enumerate()
            .map(|(d, &width)| {
                entries
                    .iter()
                    .map(|e| e.keys.get(d).and_then(|t| interval(t, width)))
                    .collect()
            })
            .collect();
        for intervals in &dims {
            for (i, iv) in intervals.iter().enumerate() {
                verify[i] |= iv.is_none();
            }
        }
        let search = match (dims.as_slice(), widths) {
            ([intervals], [width]) if !verify.contains(&true) => Self::direct(intervals, *width),
            _ => Search::Bitsets(
                dims.iter()
                    .zip(widths)
                    .map(|(intervals, &width)| Self::dimension(intervals, width, words))
                    .collect(),
            ),
        };
        Some(Classifier {
            search,
            words,
            verify,
        })
    }

    /// The winner of every interval of a one-key table.
    fn direct(intervals: &[Option<(u128, u128)>], width: u32) -> Search {
        let max = max_of(width);
        let starts = cut(intervals, max);
        let mut winner: Vec<Option<u32>> = vec![None; starts.len()];
        // Later entries first, so that earlier ones (which win) overwrite them.
        for (i, iv) in intervals.iter().enumerate().rev() {
            let (lo, hi) = iv.unwrap_or((0, max));
            let (first, last) = span(&starts, lo, hi);
            for w in winner.iter_mut().take(last + 1).skip(first) {
                *w = Some(i as u32);
            }
        }
        Search::Direct(Starts::new(starts, width), winner)
    }

    fn dimension(intervals: &[Option<(u128, u128)>], width: u32, words: usize) -> Dim {
        let max = max_of(width);
        let starts = cut(intervals, max);
        let mut sets = vec![0u64; starts.len() * words];
        for (i, iv) in intervals.iter().enumerate() {
            let (lo, hi) = iv.unwrap_or((0, max));
            let (first, last) = span(&starts, lo, hi);
            for seg in first..=last {
                if let Some(word) = sets.get_mut(seg * words + i / 64) {
                    *word |= 1 << (i % 64);
                }
            }
        }
        Dim {
            starts: Starts::new(starts, width),
            sets,
        }
    }

    /// The position (in search order) of the first entry matching `key`, checking candidates with
    /// `matches` when their match is not exact intervals.
    pub fn lookup(&self, key: &[Bits], matches: impl Fn(usize) -> bool) -> Option<usize> {
        let dims = match &self.search {
            Search::Direct(starts, winner) => {
                let v = key.first().map_or(0, Bits::to_u128);
                return winner
                    .get(starts.find(v))
                    .copied()
                    .flatten()
                    .map(|i| i as usize);
            }
            Search::Bitsets(dims) => dims,
        };
        let words = self.words;
        // The start of each dimension's set for this key (at most 8 dimensions on the stack).
        let mut stack = [0usize; 8];
        let mut heap = Vec::new();
        let offsets: &mut [usize] = if dims.len() <= stack.len() {
            &mut stack[..dims.len()]
        } else {
            heap.resize(dims.len(), 0);
            &mut heap
        };
        for ((dim, x), offset) in dims.iter().zip(key).zip(offsets.iter_mut()) {
            *offset = dim.starts.find(x.to_u128()) * words;
        }
        for w in 0..words {
            let mut acc = u64::MAX;
            for (dim, offset) in dims.iter().zip(offsets.iter()) {
                acc &= dim.sets.get(offset + w).copied().unwrap_or(0);
            }
            while acc != 0 {
                let i = w * 64 + acc.trailing_zeros() as usize;
                match self.verify.get(i) {
                    None => return None,
                    Some(false) => return Some(i),
                    Some(true) if matches(i) => return Some(i),
                    Some(true) => {}
                }
                acc &= acc - 1;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::KeyMatch;
    use crate::types::Const;

    fn entry(keys: Vec<KeyTest>) -> RtEntry {
        RtEntry {
            keys,
            action: 0,
            args: Vec::new(),
            priority: 0,
            constant: false,
            handle: 0,
        }
    }

    fn lpm(v: u64, len: u32) -> KeyTest {
        super::super::state::compile_match(&KeyMatch::Lpm(Const::from_u64(v), len), 32)
    }

    /// The classifier agrees with a scan in search order, for one key and for two.
    #[test]
    fn lookups_agree_with_a_scan() {
        let mut rng = crate::interp::bits::tests::Rng::new(7);
        let mut entries: Vec<RtEntry> = (0..300)
            .map(|_| {
                let len = rng.below(33) as u32;
                entry(vec![lpm(rng.next() & 0xffff_ffff, len)])
            })
            .collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.keys[0].prefix()));
        let two: Vec<RtEntry> = entries
            .iter()
            .map(|e| {
                let lo = rng.below(60_000);
                let range = KeyTest::Range(
                    Bits::from_u64(16, lo),
                    Bits::from_u64(16, lo + rng.below(5_000)),
                );
                entry(vec![e.keys[0].clone(), range])
            })
            .collect();
        let one = Classifier::build(&entries, &[32]);
        let both = Classifier::build(&two, &[32, 16]);
        assert!(matches!(
            one.as_ref().map(|c| &c.search),
            Some(Search::Direct(..))
        ));
        for _ in 0..2_000 {
            let key = vec![
                Bits::from_u64(32, rng.next() & 0xffff_ffff),
                Bits::from_u64(16, rng.below(65_536)),
            ];
            let scan = |es: &[RtEntry], n: usize| {
                es.iter()
                    .position(|e| e.keys.iter().zip(&key[..n]).all(|(t, x)| t.matches(x)))
            };
            let got = one.as_ref().and_then(|c| c.lookup(&key[..1], |_| true));
            assert_eq!(got, scan(&entries, 1), "one key {key:?}");
            let got = both.as_ref().and_then(|c| c.lookup(&key, |_| true));
            assert_eq!(got, scan(&two, 2), "two keys {key:?}");
        }
    }
}
