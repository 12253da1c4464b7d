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
//! Each interval's bitset also has a summary, one bit per 64-bit word saying whether the word has
//! any entry (the aggregated bit vectors of Baboescu and Varghese, SIGCOMM 2001): the summaries
//! are intersected first, and only the words whose bit survives in every dimension are read. With
//! 1,000 entries a lookup that matches nothing reads one summary word per dimension instead of 16
//! words, which matters because the bitsets of a large table are not in cache between packets.
//! Interval starts of keys of at most 32 bits are stored as `u32`, and a jump table on a key's top
//! bits narrows the search for its interval to the few starts sharing those bits (see [`Starts`]).
//!
//! A one-key table without such entries (a longest-prefix table on one address, a range table)
//! needs no bitsets: the winner of each interval is computed when the classifier is built, and a
//! lookup is one binary search.
//!
//! Invariants: `sets` holds `words` u64s per interval and `summary` `summary_words` per interval,
//! bit `w` of an interval's summary set exactly when its word `w` is not zero.

use super::state::{KeyTest, RtEntry};
use scenic_ir::proc::bits::Bits;

/// A key value as the classifier reads it: [`Bits`] of at most 128 bits, or their value.
pub trait KeyValue {
    /// The value (the low 128 bits).
    fn value(&self) -> u128;
}

impl KeyValue for Bits {
    #[inline]
    fn value(&self) -> u128 {
        self.to_u128()
    }
}

impl KeyValue for u128 {
    #[inline]
    fn value(&self) -> u128 {
        *self
    }
}

/// Keys wider than this are not classified (the table falls back to a linear scan).
const MAX_KEY_BITS: u32 = 128;

/// The interval starts of one dimension, ascending, the first 0; 32- or 64-bit when the key fits.
#[derive(Clone, Debug)]
enum Keys {
    Short(Vec<u32>),
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
}

/// The most bits of a key a jump table indexes (2^16 + 1 entries at most).
const MAX_JUMP_BITS: u32 = 16;

/// The interval starts of one dimension, with a jump table on the keys' top bits: `jump[b]` is the
/// number of starts whose top bits are below `b`, so the starts a key can fall between are
/// `jump[b]..jump[b + 1]`, a handful, instead of a binary search over all of them (a dependent
/// load per halving, each a likely cache miss in a large table). Empty for keys over 64 bits.
#[derive(Clone, Debug)]
struct Starts {
    keys: Keys,
    jump: Vec<u32>,
    shift: u32,
}

impl Starts {
    fn new(starts: Vec<u128>, width: u32) -> Starts {
        let (mut jump, mut shift) = (Vec::new(), 0);
        if width <= 64 {
            // About two buckets per start.
            let bits = (usize::BITS - starts.len().leading_zeros() + 1)
                .min(width)
                .min(MAX_JUMP_BITS);
            shift = width - bits;
            let mut at = 0usize;
            jump = (0..=(1u128 << bits))
                .map(|b| {
                    while starts.get(at).is_some_and(|s| (s >> shift) < b) {
                        at += 1;
                    }
                    at as u32
                })
                .collect();
        }
        let keys = if width <= 32 {
            Keys::Short(starts.into_iter().map(|s| s as u32).collect())
        } else if width <= 64 {
            Keys::Narrow(starts.into_iter().map(|s| s as u64).collect())
        } else {
            Keys::Wide(starts)
        };
        Starts { keys, jump, shift }
    }

    /// The interval holding `v`.
    #[inline]
    fn find(&self, v: u128) -> usize {
        let b = usize::try_from(v >> self.shift).unwrap_or(usize::MAX);
        let (lo, hi) = match (self.jump.get(b), self.jump.get(b.wrapping_add(1))) {
            (Some(&lo), Some(&hi)) => (lo as usize, hi as usize),
            _ => (0, usize::MAX),
        };
        let n = match &self.keys {
            Keys::Short(s) => {
                let v = u32::try_from(v).unwrap_or(u32::MAX);
                let part = s.get(lo..hi.min(s.len())).unwrap_or(&[]);
                part.partition_point(|x| *x <= v)
            }
            Keys::Narrow(s) => {
                let v = u64::try_from(v).unwrap_or(u64::MAX);
                let part = s.get(lo..hi.min(s.len())).unwrap_or(&[]);
                part.partition_point(|x| *x <= v)
            }
            Keys::Wide(s) => {
                let part = s.get(lo..hi.min(s.len())).unwrap_or(&[]);
                part.partition_point(|x| *x <= v)
            }
        };
        (lo + n).saturating_sub(1)
    }
}

#[derive(Clone, Debug)]
struct Dim {
    starts: Starts,
    /// Entries covering each interval, `words` u64s per interval.
    sets: Vec<u64>,
    /// Which words of each interval's set are not zero, `summary_words` u64s per interval.
    summary: Vec<u64>,
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
    /// `words / 64`, rounded up.
    summary_words: usize,
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
            summary_words: words.div_ceil(64),
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
        let summary_words = words.div_ceil(64);
        let mut summary = vec![0u64; starts.len() * summary_words];
        for (seg, set) in sets.chunks(words).enumerate() {
            for (w, _) in set.iter().enumerate().filter(|(_, word)| **word != 0) {
                if let Some(s) = summary.get_mut(seg * summary_words + w / 64) {
                    *s |= 1 << (w % 64);
                }
            }
        }
        Dim {
            starts: Starts::new(starts, width),
            sets,
            summary,
        }
    }

    /// The position (in search order) of the first entry matching `key`, checking candidates with
    /// `matches` when their match is not exact intervals.
    pub fn lookup<K: KeyValue>(&self, key: &[K], matches: impl Fn(usize) -> bool) -> Option<usize> {
        let dims = match &self.search {
            Search::Direct(starts, winner) => {
                let v = key.first().map_or(0, K::value);
                return winner
                    .get(starts.find(v))
                    .copied()
                    .flatten()
                    .map(|i| i as usize);
            }
            Search::Bitsets(dims) => dims,
        };
        let (words, summary_words) = (self.words, self.summary_words);
        // The interval of each dimension for this key (at most 8 dimensions on the stack).
        let mut stack = [0usize; 8];
        let mut heap = Vec::new();
        let segs: &mut [usize] = if dims.len() <= stack.len() {
            &mut stack[..dims.len()]
        } else {
            heap.resize(dims.len(), 0);
            &mut heap
        };
        for ((dim, x), seg) in dims.iter().zip(key).zip(segs.iter_mut()) {
            *seg = dim.starts.find(x.value());
        }
        for sw in 0..summary_words {
            let mut candidates = u64::MAX;
            for (dim, seg) in dims.iter().zip(segs.iter()) {
                candidates &= dim
                    .summary
                    .get(seg * summary_words + sw)
                    .copied()
                    .unwrap_or(0);
            }
            while candidates != 0 {
                let w = sw * 64 + candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let mut acc = u64::MAX;
                for (dim, seg) in dims.iter().zip(segs.iter()) {
                    acc &= dim.sets.get(seg * words + w).copied().unwrap_or(0);
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
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenic_ir::program::KeyMatch;
    use scenic_ir::types::Const;

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
        super::super::state::compile_match(
            &KeyMatch::Lpm(Const::from_u64(v), len),
            scenic_ir::program::MatchKind::Lpm,
            32,
        )
    }

    /// The jump table finds the interval a full binary search finds, at every width.
    #[test]
    fn jump_tables_agree_with_binary_search() {
        let mut rng = scenic_ir::rng::SplitMix64::new(11);
        for width in [1u32, 3, 8, 16, 32, 48, 64, 100] {
            for n in [1usize, 2, 5, 300] {
                let max = max_of(width);
                let mut starts: Vec<u128> = (0..n)
                    .map(|_| (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())) & max)
                    .collect();
                starts.push(0);
                starts.sort_unstable();
                starts.dedup();
                let s = Starts::new(starts.clone(), width);
                for k in 0..500 {
                    let v = match k % 3 {
                        0 => starts[k % starts.len()],
                        1 => starts[k % starts.len()].saturating_sub(1),
                        _ => (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())) & max,
                    };
                    let want = starts.partition_point(|x| *x <= v).saturating_sub(1);
                    assert_eq!(s.find(v), want, "width {width}, {n} starts, key {v:#x}");
                }
            }
        }
    }

    /// With more than 4,096 entries the summaries take several words; lookups still agree with
    /// a scan, also for keys that match only late entries.
    #[test]
    fn summaries_of_several_words_agree_with_a_scan() {
        let mut rng = scenic_ir::rng::SplitMix64::new(13);
        let entries: Vec<RtEntry> = (0..5_000)
            .map(|i| {
                // Mostly long prefixes (rare matches); every 50th a /8, so that keys also match
                // entries in later summary words.
                let len = if i % 50 == 0 {
                    8
                } else {
                    24 + rng.below(9) as u32
                };
                let lo = rng.below(60_000);
                let range = KeyTest::Range(
                    Bits::from_u64(16, lo),
                    Bits::from_u64(16, lo + rng.below(3_000)),
                );
                entry(vec![lpm(rng.next_u64() & 0xffff_ffff, len), range])
            })
            .collect();
        let Some(c) = Classifier::build(&entries, &[32, 16]) else {
            panic!("no classifier")
        };
        assert!(c.summary_words > 1);
        let mut found = 0;
        for k in 0..1_500 {
            // Half the keys inside an entry's prefix, so that many match.
            let base = match &entries[(k * 7) % entries.len()].keys[0] {
                KeyTest::Masked(v, _, _) => v.to_u64(),
                _ => 0,
            };
            let addr = if k % 2 == 0 {
                base | (rng.next_u64() & 0xff)
            } else {
                rng.next_u64()
            };
            let key = vec![
                Bits::from_u64(32, addr & 0xffff_ffff),
                Bits::from_u64(16, rng.below(65_536)),
            ];
            let scan = entries
                .iter()
                .position(|e| e.keys.iter().zip(&key).all(|(t, x)| t.matches(x)));
            found += usize::from(scan.is_some_and(|i| i >= 4_096));
            assert_eq!(c.lookup(&key, |_| true), scan, "key {key:?}");
        }
        assert!(
            found > 0,
            "some keys match only past the first summary word"
        );
    }

    /// The classifier agrees with a scan in search order, for one key and for two.
    #[test]
    fn lookups_agree_with_a_scan() {
        let mut rng = scenic_ir::rng::SplitMix64::new(7);
        let mut entries: Vec<RtEntry> = (0..300)
            .map(|_| {
                let len = rng.below(33) as u32;
                entry(vec![lpm(rng.next_u64() & 0xffff_ffff, len)])
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
                Bits::from_u64(32, rng.next_u64() & 0xffff_ffff),
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
