//! Overlapping `select` cases (Vitis Networking P4 refuses them).
//!
//! A parser `match` takes the first arm that matches; VNP4 requires that no value match two cases,
//! except the final default (`_`). Each case alternative is a keyset: one pattern per component
//! (a value, a value and mask, a range, or anything). Two keysets overlap when every component pair
//! has a common value; for a mask and a range that is decided by finding the smallest value at or
//! above the range's low end with the mask's bits.

use crate::error::{Construct, Error};
use crate::Target;
use num_bigint::BigUint;
use num_traits::{One, Zero};
use scenic_ir::body::Pattern;
use scenic_ir::{Parser, Transition};

/// Checks every select of the parser.
pub fn check(parser: &Parser) -> Vec<Error> {
    let mut errors = Vec::new();
    for state in parser.states.values() {
        let Transition::Select { cases, on } = &state.transition else {
            continue;
        };
        let keysets: Vec<Vec<&Pattern>> = cases
            .iter()
            .flat_map(|c| c.patterns.iter().map(components))
            .filter(|k| !k.iter().all(|p| matches!(p, Pattern::Any)))
            .collect();
        let overlap = (0..keysets.len())
            .any(|i| (i + 1..keysets.len()).any(|j| keysets_overlap(&keysets[i], &keysets[j])));
        if overlap {
            errors.push(Error::Unsupported {
                construct: Construct::OverlappingSelect {
                    state: state.name.clone(),
                },
                target: Target::VitisP4,
                span: parser
                    .body
                    .spans
                    .get(*on)
                    .copied()
                    .filter(|s| s.is_known())
                    .unwrap_or(state.span),
                related: Vec::new(),
            });
        }
    }
    errors
}

fn components(p: &Pattern) -> Vec<&Pattern> {
    match p {
        Pattern::Tuple(items) => items.iter().collect(),
        other => vec![other],
    }
}

fn keysets_overlap(a: &[&Pattern], b: &[&Pattern]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| overlap(x, y))
}

/// Whether some value matches both patterns (tuples are compared component by component).
pub fn overlap(a: &Pattern, b: &Pattern) -> bool {
    use Pattern::*;
    match (a, b) {
        (Any, _) | (_, Any) => true,
        (Tuple(x), Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| overlap(p, q)),
        (Tuple(_), _) | (_, Tuple(_)) => true,
        (Value(x), Value(y)) => x == y,
        (Value(x), Mask(v, m)) | (Mask(v, m), Value(x)) => (&x.0 & &m.0) == (&v.0 & &m.0),
        (Value(x), Range(lo, hi)) | (Range(lo, hi), Value(x)) => lo.0 <= x.0 && x.0 <= hi.0,
        (Mask(v1, m1), Mask(v2, m2)) => ((&v1.0 ^ &v2.0) & &m1.0 & &m2.0).is_zero(),
        (Range(l1, h1), Range(l2, h2)) => {
            l1.0.clone().max(l2.0.clone()) <= h1.0.clone().min(h2.0.clone())
        }
        (Mask(v, m), Range(lo, hi)) | (Range(lo, hi), Mask(v, m)) => {
            smallest_at_least(&lo.0, &(&v.0 & &m.0), &m.0).is_some_and(|x| x <= hi.0)
        }
    }
}

/// The smallest x ≥ `lo` with `x & mask == fixed` (`fixed` has no bits outside `mask`).
pub fn smallest_at_least(lo: &BigUint, fixed: &BigUint, mask: &BigUint) -> Option<BigUint> {
    let bits = lo.bits().max(mask.bits()) as usize + 1;
    let bit = |v: &BigUint, i: usize| v.bit(i as u64);
    // Walk from the most significant bit keeping x == lo on the bits so far; the last free bit
    // where lo has a 0 is where x can rise above lo if a fixed bit forces it to.
    let mut raise_at: Option<usize> = None;
    for i in (0..bits).rev() {
        let lo_bit = bit(lo, i);
        if bit(mask, i) {
            let want = bit(fixed, i);
            if want && !lo_bit {
                return Some(fill(lo, fixed, mask, i, bits));
            }
            if !want && lo_bit {
                let j = raise_at?;
                return Some(fill(lo, fixed, mask, j, bits));
            }
        } else if !lo_bit {
            raise_at = Some(i);
        }
    }
    Some(lo.clone())
}

/// lo's bits above `at`, a 1 at `at`, and the least bits the mask allows below it.
fn fill(lo: &BigUint, fixed: &BigUint, mask: &BigUint, at: usize, bits: usize) -> BigUint {
    let above = (lo >> (at + 1)) << (at + 1);
    let low_mask = (BigUint::one() << at) - BigUint::one();
    let _ = bits;
    above | (BigUint::one() << at) | (fixed & mask & low_mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenic_ir::Const;

    fn c(v: u64) -> Const {
        Const::from_u64(v)
    }

    #[test]
    fn mask_and_range() {
        // 0x20 &&& 0x38 matches 32..=39; the range 40..=50 misses it, 35..=60 hits it.
        assert!(!overlap(
            &Pattern::Mask(c(0x20), c(0x38)),
            &Pattern::Range(c(40), c(50))
        ));
        assert!(overlap(
            &Pattern::Mask(c(0x20), c(0x38)),
            &Pattern::Range(c(35), c(60))
        ));
        // Brute force against every small case.
        for v in 0u64..16 {
            for m in 0u64..16 {
                for lo in 0u64..16 {
                    for hi in lo..16 {
                        let brute = (lo..=hi).any(|x| x & m == v & m);
                        let got =
                            overlap(&Pattern::Mask(c(v), c(m)), &Pattern::Range(c(lo), c(hi)));
                        assert_eq!(brute, got, "v={v} m={m} lo={lo} hi={hi}");
                    }
                }
            }
        }
    }

    #[test]
    fn values_and_tuples() {
        let a = Pattern::Tuple(vec![Pattern::Value(c(5)), Pattern::Value(c(6))]);
        let b = Pattern::Tuple(vec![Pattern::Value(c(5)), Pattern::Any]);
        let d = Pattern::Tuple(vec![Pattern::Value(c(5)), Pattern::Value(c(17))]);
        assert!(overlap(&a, &b));
        assert!(!overlap(&a, &d));
    }
}
