//! Arithmetic, bitwise operations, shifts and comparisons on [`Bits`]: inline `u128` code for widths
//! up to 128 bits, [`super::words`] beyond.

use super::{mask64, nwords, sx, words, Bits, Repr};
use std::borrow::Cow;
use std::cmp::Ordering;

impl Bits {
    /// Applies a binary word operation to two operands of equal width (`rhs` resized first if not).
    /// The inline case is inlined into every operation; the rest is out of line.
    #[inline(always)]
    fn zip(
        &self,
        rhs: &Bits,
        small: impl FnOnce(u128, u128) -> u128,
        big: impl FnOnce(&[u64], &[u64]) -> Vec<u64>,
    ) -> Bits {
        if let (Repr::Small { width, v: a }, Repr::Small { width: wb, v: b }) = (&self.0, &rhs.0) {
            if width == wb {
                return Bits::small(*width, small(*a, *b));
            }
        }
        self.zip_slow(rhs, small, big)
    }

    /// [`Bits::zip`] for wide values and unequal widths.
    #[inline(never)]
    fn zip_slow(
        &self,
        rhs: &Bits,
        small: impl FnOnce(u128, u128) -> u128,
        big: impl FnOnce(&[u64], &[u64]) -> Vec<u64>,
    ) -> Bits {
        let rhs = self.same_width(rhs);
        match (&self.0, &rhs.0) {
            (Repr::Small { width, v: a }, Repr::Small { v: b, .. }) => {
                Bits::small(*width, small(*a, *b))
            }
            (Repr::Big { width, words: a }, Repr::Big { words: b, .. }) => {
                Bits::from_words(*width, big(a, b))
            }
            // Equal widths have equal representations.
            _ => Bits::zero(self.width()),
        }
    }

    /// `rhs` with `self`'s width, borrowed when it already has it.
    fn same_width<'a>(&self, rhs: &'a Bits) -> Cow<'a, Bits> {
        if rhs.width() == self.width() {
            Cow::Borrowed(rhs)
        } else {
            Cow::Owned(rhs.resize(self.width()))
        }
    }

    /// Wrapping sum.
    #[inline]
    pub fn wrapping_add(&self, rhs: &Bits) -> Bits {
        self.zip(rhs, u128::wrapping_add, words::add)
    }

    /// Wrapping difference.
    #[inline]
    pub fn wrapping_sub(&self, rhs: &Bits) -> Bits {
        self.zip(rhs, u128::wrapping_sub, words::sub)
    }

    /// Wrapping product.
    #[inline]
    pub fn wrapping_mul(&self, rhs: &Bits) -> Bits {
        self.zip(rhs, u128::wrapping_mul, words::mul)
    }

    /// Wrapping two's complement negation (`0 - self`).
    #[inline]
    pub fn wrapping_neg(&self) -> Bits {
        match &self.0 {
            Repr::Small { width, v } => Bits::small(*width, v.wrapping_neg()),
            Repr::Big { width, words } => Bits::from_words(*width, words::neg(words)),
        }
    }

    /// Bitwise not.
    #[inline]
    pub fn bit_not(&self) -> Bits {
        match &self.0 {
            Repr::Small { width, v } => Bits::small(*width, !v),
            Repr::Big { width, words } => {
                Bits::from_words(*width, words.iter().map(|w| !w).collect())
            }
        }
    }

    /// Bitwise and.
    #[inline]
    pub fn bit_and(&self, rhs: &Bits) -> Bits {
        self.zip(rhs, |a, b| a & b, |a, b| zip_words(a, b, |x, y| x & y))
    }

    /// Bitwise or.
    #[inline]
    pub fn bit_or(&self, rhs: &Bits) -> Bits {
        self.zip(rhs, |a, b| a | b, |a, b| zip_words(a, b, |x, y| x | y))
    }

    /// Bitwise exclusive or.
    #[inline]
    pub fn bit_xor(&self, rhs: &Bits) -> Bits {
        self.zip(rhs, |a, b| a ^ b, |a, b| zip_words(a, b, |x, y| x ^ y))
    }

    /// Unsigned quotient, truncated; division by zero gives 0.
    #[inline]
    pub fn udiv(&self, rhs: &Bits) -> Bits {
        self.zip(
            rhs,
            |a, b| a.checked_div(b).unwrap_or(0),
            |a, b| words::divrem(a, b).0,
        )
    }

    /// Unsigned remainder; by zero gives 0.
    #[inline]
    pub fn urem(&self, rhs: &Bits) -> Bits {
        self.zip(
            rhs,
            |a, b| a.checked_rem(b).unwrap_or(0),
            |a, b| words::divrem(a, b).1,
        )
    }

    /// Signed quotient, truncated toward zero; by zero gives 0; the minimum divided by -1 wraps to
    /// the minimum.
    pub fn sdiv(&self, rhs: &Bits) -> Bits {
        self.signed_divrem(rhs).0
    }

    /// Signed remainder, with the sign of the dividend; by zero gives 0.
    pub fn srem(&self, rhs: &Bits) -> Bits {
        self.signed_divrem(rhs).1
    }

    /// Signed quotient and remainder.
    fn signed_divrem(&self, rhs: &Bits) -> (Bits, Bits) {
        let rhs = self.same_width(rhs);
        let w = self.width();
        if let (Repr::Small { v: a, .. }, Repr::Small { v: b, .. }) = (&self.0, &rhs.0) {
            let (a, b) = (sx(*a, w), sx(*b, w));
            if b == 0 {
                return (Bits::zero(w), Bits::zero(w));
            }
            return (
                Bits::small(w, a.wrapping_div(b) as u128),
                Bits::small(w, a.wrapping_rem(b) as u128),
            );
        }
        let (na, nb) = (self.is_negative(), rhs.is_negative());
        let ma = if na {
            self.wrapping_neg()
        } else {
            self.clone()
        };
        let mb = if nb {
            rhs.wrapping_neg()
        } else {
            rhs.into_owned()
        };
        let q = ma.udiv(&mb);
        let r = ma.urem(&mb);
        (
            if na != nb { q.wrapping_neg() } else { q },
            if na { r.wrapping_neg() } else { r },
        )
    }

    /// `self << amount`; amounts at or past the width give 0.
    #[inline]
    pub fn shl(&self, amount: u32) -> Bits {
        let w = self.width();
        if amount >= w {
            return Bits::zero(w);
        }
        match &self.0 {
            Repr::Small { v, .. } => Bits::small(w, v << amount),
            Repr::Big { words, .. } => Bits::from_words(w, words::shl(words, amount as usize)),
        }
    }

    /// Logical `self >> amount`; amounts at or past the width give 0.
    #[inline]
    pub fn lshr(&self, amount: u32) -> Bits {
        let w = self.width();
        if amount >= w {
            return Bits::zero(w);
        }
        match &self.0 {
            Repr::Small { v, .. } => Bits::small(w, v >> amount),
            Repr::Big { words, .. } => Bits::from_words(w, words::shr(words, amount as usize, 0)),
        }
    }

    /// Arithmetic `self >> amount` (copies the sign bit); amounts at or past the width give all ones
    /// for a negative value and 0 otherwise.
    pub fn ashr(&self, amount: u32) -> Bits {
        let w = self.width();
        let neg = self.is_negative();
        if amount >= w {
            return if neg { Bits::ones(w) } else { Bits::zero(w) };
        }
        match &self.0 {
            Repr::Small { v, .. } => Bits::small(w, (sx(*v, w) >> amount) as u128),
            Repr::Big { words, .. } => {
                let fill = if neg { u64::MAX } else { 0 };
                let mut ext = words.to_vec();
                let rem = (w % 64) as usize;
                if let (Some(top), true) = (ext.last_mut(), rem != 0) {
                    *top |= fill & !mask64(rem);
                }
                Bits::from_words(w, words::shr(&ext, amount as usize, fill))
            }
        }
    }

    /// Unsigned comparison.
    #[inline]
    pub fn ucmp(&self, rhs: &Bits) -> Ordering {
        match (&self.0, &rhs.0) {
            (Repr::Small { v: a, .. }, Repr::Small { v: b, .. }) => a.cmp(b),
            _ => self.ucmp_wide(rhs),
        }
    }

    /// [`Bits::ucmp`] when either value is wide.
    #[inline(never)]
    fn ucmp_wide(&self, rhs: &Bits) -> Ordering {
        match (&self.0, &rhs.0) {
            (Repr::Big { words: a, .. }, Repr::Big { words: b, .. }) => words::cmp(a, b),
            _ => {
                let n = nwords(self.width()).max(nwords(rhs.width()));
                words::cmp(&self.to_words(n), &rhs.to_words(n))
            }
        }
    }

    /// Signed (two's complement) comparison of two values of equal width.
    #[inline]
    pub fn scmp(&self, rhs: &Bits) -> Ordering {
        match (&self.0, &rhs.0) {
            (Repr::Small { width, v: a }, Repr::Small { width: wb, v: b }) => {
                sx(*a, *width).cmp(&sx(*b, *wb))
            }
            _ => match (self.is_negative(), rhs.is_negative()) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => self.ucmp_wide(rhs),
            },
        }
    }

    /// Unsigned `self < rhs`.
    #[inline]
    pub fn ult(&self, rhs: &Bits) -> bool {
        self.ucmp(rhs) == Ordering::Less
    }

    /// Signed `self < rhs`.
    #[inline]
    pub fn slt(&self, rhs: &Bits) -> bool {
        self.scmp(rhs) == Ordering::Less
    }

    /// Unsigned saturating sum: clamps to all ones.
    pub fn uadd_sat(&self, rhs: &Bits) -> Bits {
        let sum = self.wrapping_add(rhs);
        if sum.ult(self) {
            Bits::ones(self.width())
        } else {
            sum
        }
    }

    /// Unsigned saturating difference: clamps to 0.
    pub fn usub_sat(&self, rhs: &Bits) -> Bits {
        if self.ult(&self.same_width(rhs)) {
            Bits::zero(self.width())
        } else {
            self.wrapping_sub(rhs)
        }
    }

    /// Signed saturating sum: clamps to the minimum or maximum.
    pub fn sadd_sat(&self, rhs: &Bits) -> Bits {
        let rhs = self.same_width(rhs);
        let sum = self.wrapping_add(&rhs);
        let (na, nb) = (self.is_negative(), rhs.is_negative());
        if na == nb && sum.is_negative() != na {
            self.signed_limit(na)
        } else {
            sum
        }
    }

    /// Signed saturating difference: clamps to the minimum or maximum.
    pub fn ssub_sat(&self, rhs: &Bits) -> Bits {
        let rhs = self.same_width(rhs);
        let diff = self.wrapping_sub(&rhs);
        let (na, nb) = (self.is_negative(), rhs.is_negative());
        if na != nb && diff.is_negative() != na {
            self.signed_limit(na)
        } else {
            diff
        }
    }

    /// The signed minimum (`negative`) or maximum of this width.
    fn signed_limit(&self, negative: bool) -> Bits {
        let w = self.width();
        let max = Bits::ones(w).lshr(1);
        if negative {
            max.bit_not()
        } else {
            max
        }
    }
}

/// Word-wise combination of two equal-length slices.
pub(super) fn zip_words(a: &[u64], b: &[u64], f: impl Fn(u64, u64) -> u64) -> Vec<u64> {
    a.iter()
        .enumerate()
        .map(|(i, &x)| f(x, b.get(i).copied().unwrap_or(0)))
        .collect()
}
