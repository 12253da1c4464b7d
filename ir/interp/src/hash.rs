//! A fast, deterministic hasher for the interpreter's own hash tables (maps, exact tables).
//!
//! The keys are the program's values (`Bits`, packed table keys); hashing them with the standard
//! library's SipHash cost more than the rest of a map access. This is the multiply-rotate scheme
//! of FxHash (as in rustc), with a final folded multiply so that the low bits hashbrown indexes
//! buckets with depend on every input bit. It is not resistant to chosen collisions, which is acceptable
//! for a simulator: the worst a hostile input can do is make it slower. Being unseeded, it makes
//! runs reproducible.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The multiplier of FxHash (64-bit).
const K: u64 = 0x517c_c1b7_2722_0a95;

/// The multiplier of the final fold (the fractional part of pi, an arbitrary odd constant).
const FOLD: u64 = 0x243f_6a88_85a3_08d3;

/// See the [module documentation](self).
#[derive(Clone, Copy, Debug, Default)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // A product's entropy is in its high bits, and hashbrown takes the bucket from the low
        // ones: a folded multiply (the high half of a 128-bit product xored into the low half)
        // makes every output bit depend on every input bit.
        let full = u128::from(self.hash) * u128::from(FOLD);
        (full as u64) ^ ((full >> 64) as u64)
    }
}

/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash>(v: T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(v)
    }

    #[test]
    fn equal_values_hash_equal_and_nearby_values_differ_in_low_bits() {
        assert_eq!(hash(42u128), hash(42u128));
        let low: std::collections::HashSet<u64> =
            (0..1024u64).map(|k| hash(k << 40) & 1023).collect();
        assert!(
            low.len() > 512,
            "keys differing in high bits spread over buckets"
        );
    }
}
