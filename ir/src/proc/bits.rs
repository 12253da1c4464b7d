//! [`Bits`]: a fixed-width bit pattern, the interpreter's representation of every scalar value.
//!
//! A `Bits` is an unsigned pattern of a known width (0 ..= [`MAX_WIDTH`] bits; programs use 1 ..=
//! 1024). Values of at most 128 bits are held inline in a `u128` and never allocate; wider values
//! hold a boxed slice of little-endian 64-bit words. Bits above the width are always zero, so derived
//! equality and hashing compare values.
//!
//! Operations take operands of equal width (a validated program guarantees it) and wrap modulo
//! 2^width. Signedness is a property of the operation, not of the value: `sdiv`, `slt`, `ashr`, …
//! read the pattern as two's complement. As a defensive measure, no operation panics on unequal
//! widths: the right operand is first zero-extended or truncated to the left operand's width.
//!
//! Packet bytes are big-endian on the wire: [`read_bits`] and [`write_bits`] move fields that start
//! at any bit offset, bit 0 of a buffer being the most significant bit of its first byte.

mod arith;
mod wire;
mod words;

pub use wire::{read_bits, read_field, read_field_u64, write_bits};

#[cfg(test)]
pub mod tests;

use num_bigint::BigUint;
use std::fmt;

/// The largest width a [`Bits`] can have; wider requests are clamped to it.
pub const MAX_WIDTH: u32 = 65_535;

/// Widths up to this are stored inline.
const SMALL: u32 = 128;

/// A bit pattern of a fixed width. See the [module documentation](self).
#[derive(PartialEq, Eq, Hash)]
pub struct Bits(Repr);

impl Clone for Bits {
    #[inline]
    fn clone(&self) -> Bits {
        Bits(self.0.clone())
    }

    /// Copies in place when both are inline (or wide of the same size): no check of the old
    /// value's storage, which the generated `clone_from` (drop, then clone) pays on every copy of
    /// a scalar inside an aggregate.
    #[inline]
    fn clone_from(&mut self, source: &Bits) {
        match (&mut self.0, &source.0) {
            (Repr::Small { width, v }, Repr::Small { width: w, v: x }) => {
                *width = *w;
                *v = *x;
            }
            (Repr::Big { width, words }, Repr::Big { width: w, words: x })
                if words.len() == x.len() =>
            {
                *width = *w;
                words.copy_from_slice(x);
            }
            (this, source) => *this = source.clone(),
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// `width <= 128`; `v < 2^width`.
    Small { width: u32, v: u128 },
    /// `width > 128`; `words.len() == ceil(width / 64)`, bits at and above `width` zero.
    Big { width: u32, words: Box<[u64]> },
}

/// The low `w` bits set (all 128 for `w >= 128`).
#[inline]
fn mask128(w: u32) -> u128 {
    u128::MAX.checked_shr(128u32.saturating_sub(w)).unwrap_or(0)
}

/// `v` (of width `w <= 128`) read as two's complement.
#[inline]
fn sx(v: u128, w: u32) -> i128 {
    if w == 0 {
        return 0;
    }
    let s = 128u32.saturating_sub(w);
    ((v << s) as i128) >> s
}

/// Number of 64-bit words of a width.
#[inline]
fn nwords(w: u32) -> usize {
    (w as usize).div_ceil(64)
}

/// The low `w` bits of a u64 set (`w <= 64`).
#[inline]
fn mask64(w: usize) -> u64 {
    u64::MAX
        .checked_shr(64usize.saturating_sub(w) as u32)
        .unwrap_or(0)
}

impl Bits {
    /// An inline value; `width <= 128`, `v` is masked.
    #[inline]
    fn small(width: u32, v: u128) -> Bits {
        Bits(Repr::Small {
            width,
            v: v & mask128(width),
        })
    }

    /// The value whose little-endian words are `words` (zero-extended or truncated), of width
    /// `width` (clamped to [`MAX_WIDTH`]).
    fn from_words(width: u32, mut words: Vec<u64>) -> Bits {
        let width = width.min(MAX_WIDTH);
        if width <= SMALL {
            let lo = words.first().copied().unwrap_or(0);
            let hi = words.get(1).copied().unwrap_or(0);
            return Bits::small(width, (u128::from(hi) << 64) | u128::from(lo));
        }
        words.resize(nwords(width), 0);
        if let Some(top) = words.last_mut() {
            let rem = (width % 64) as usize;
            if rem != 0 {
                *top &= mask64(rem);
            }
        }
        Bits(Repr::Big {
            width,
            words: words.into_boxed_slice(),
        })
    }

    /// The value's words, zero-extended or truncated to `n` words.
    fn to_words(&self, n: usize) -> Vec<u64> {
        let mut out = match &self.0 {
            Repr::Small { v, .. } => vec![*v as u64, (*v >> 64) as u64],
            Repr::Big { words, .. } => words.to_vec(),
        };
        out.resize(n, 0);
        out
    }

    /// Zero of the given width.
    #[inline]
    pub fn zero(width: u32) -> Bits {
        if width <= SMALL {
            Bits::small(width, 0)
        } else {
            Bits::from_words(width, Vec::new())
        }
    }

    /// All ones (`-1` read as signed) of the given width.
    pub fn ones(width: u32) -> Bits {
        if width <= SMALL {
            Bits::small(width, u128::MAX)
        } else {
            Bits::from_words(width, vec![u64::MAX; nwords(width.min(MAX_WIDTH))])
        }
    }

    /// The low `width` bits of `v`.
    #[inline]
    pub fn from_u128(width: u32, v: u128) -> Bits {
        if width <= SMALL {
            Bits::small(width, v)
        } else {
            Bits::from_words(width, vec![v as u64, (v >> 64) as u64])
        }
    }

    /// The low `width` bits of `v`.
    #[inline]
    pub fn from_u64(width: u32, v: u64) -> Bits {
        Bits::from_u128(width, u128::from(v))
    }

    /// The low `width` bits of `v`'s two's complement (sign-extended for widths above 128).
    #[inline]
    pub fn from_i128(width: u32, v: i128) -> Bits {
        if width <= SMALL {
            Bits::small(width, v as u128)
        } else {
            Bits::from_i128_wide(width, v)
        }
    }

    /// [`Bits::from_i128`] for widths above 128.
    #[inline(never)]
    fn from_i128_wide(width: u32, v: i128) -> Bits {
        let fill = if v < 0 { u64::MAX } else { 0 };
        let mut words = vec![fill; nwords(width.min(MAX_WIDTH)).max(2)];
        words[0] = v as u64;
        words[1] = ((v as u128) >> 64) as u64;
        Bits::from_words(width, words)
    }

    /// A `bool` as a 1-bit value.
    #[inline]
    pub fn from_bool(b: bool) -> Bits {
        Bits::small(1, u128::from(b))
    }

    /// The big-endian number in `bytes` (most significant byte first), truncated to its low `width`
    /// bits (zero-extended when `bytes` holds fewer).
    pub fn from_bytes_be(width: u32, bytes: &[u8]) -> Bits {
        if width <= SMALL {
            let tail = &bytes[bytes.len().saturating_sub(16)..];
            let v = tail
                .iter()
                .fold(0u128, |acc, &b| (acc << 8) | u128::from(b));
            return Bits::small(width, v);
        }
        let n = nwords(width.min(MAX_WIDTH));
        let mut words = vec![0u64; n];
        for (i, &b) in bytes.iter().rev().enumerate().take(n * 8) {
            words[i / 8] |= u64::from(b) << (8 * (i % 8));
        }
        Bits::from_words(width, words)
    }

    /// The low `width` bits of a big integer (the IR's [`crate::Const`]).
    pub fn from_biguint(width: u32, v: &BigUint) -> Bits {
        Bits::from_words(width, v.to_u64_digits())
    }

    /// The width in bits.
    #[inline]
    pub fn width(&self) -> u32 {
        match &self.0 {
            Repr::Small { width, .. } | Repr::Big { width, .. } => *width,
        }
    }

    /// The low 128 bits.
    #[inline]
    pub fn to_u128(&self) -> u128 {
        match &self.0 {
            Repr::Small { v, .. } => *v,
            Repr::Big { words, .. } => {
                let lo = words.first().copied().unwrap_or(0);
                let hi = words.get(1).copied().unwrap_or(0);
                (u128::from(hi) << 64) | u128::from(lo)
            }
        }
    }

    /// The low 64 bits.
    #[inline]
    pub fn to_u64(&self) -> u64 {
        self.to_u128() as u64
    }

    /// The value read as two's complement, when the width is at most 128; for wider values, the low
    /// 128 bits reinterpreted.
    #[inline]
    pub fn to_i128(&self) -> i128 {
        match &self.0 {
            Repr::Small { width, v } => sx(*v, *width),
            Repr::Big { .. } => self.to_u128() as i128,
        }
    }

    /// The value as a `u32`, or `u32::MAX` when it is larger (shift amounts, indices).
    pub fn to_u32_saturating(&self) -> u32 {
        match &self.0 {
            Repr::Small { v, .. } => u32::try_from(*v).unwrap_or(u32::MAX),
            Repr::Big { words, .. } => {
                if words.iter().skip(1).any(|&w| w != 0) {
                    u32::MAX
                } else {
                    u32::try_from(words.first().copied().unwrap_or(0)).unwrap_or(u32::MAX)
                }
            }
        }
    }

    /// Whether every bit is zero.
    #[inline]
    pub fn is_zero(&self) -> bool {
        match &self.0 {
            Repr::Small { v, .. } => *v == 0,
            Repr::Big { words, .. } => words.iter().all(|&w| w == 0),
        }
    }

    /// Bit `i` (0 is the least significant); false at or past the width.
    #[inline]
    pub fn bit(&self, i: u32) -> bool {
        if i >= self.width() {
            return false;
        }
        match &self.0 {
            Repr::Small { v, .. } => (v >> i) & 1 == 1,
            Repr::Big { words, .. } => {
                let w = words.get(i as usize / 64).copied().unwrap_or(0);
                (w >> (i % 64)) & 1 == 1
            }
        }
    }

    /// Whether the most significant bit is set (the value is negative read as two's complement).
    /// False for width 0.
    #[inline]
    pub fn is_negative(&self) -> bool {
        let w = self.width();
        w > 0 && self.bit(w - 1)
    }

    /// The value as a big integer (the IR's [`crate::Const`]).
    pub fn to_biguint(&self) -> BigUint {
        let words = self.to_words(nwords(self.width()).max(2));
        let digits: Vec<u32> = words
            .iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect();
        BigUint::new(digits)
    }

    /// The value as `ceil(width / 8)` bytes, most significant first; when the width is not a multiple
    /// of 8 the first byte holds the high bits right-aligned (a number, as [`Bits::from_bytes_be`]
    /// reads it).
    pub fn to_bytes_be(&self) -> Vec<u8> {
        let n = (self.width() as usize).div_ceil(8);
        match &self.0 {
            Repr::Small { v, .. } => v.to_be_bytes()[16 - n.min(16)..].to_vec(),
            Repr::Big { words, .. } => (0..n)
                .rev()
                .map(|i| (words.get(i / 8).copied().unwrap_or(0) >> (8 * (i % 8))) as u8)
                .collect(),
        }
    }

    /// Zero-extends or truncates to `width`.
    #[inline]
    pub fn resize(&self, width: u32) -> Bits {
        match &self.0 {
            Repr::Small { v, .. } if width <= SMALL => Bits::small(width, *v),
            _ => Bits::from_words(width, self.to_words(nwords(width.min(MAX_WIDTH)))),
        }
    }

    /// Zero-extends to `width` (truncates if `width` is smaller, as [`Bits::resize`]).
    #[inline]
    pub fn zext(&self, width: u32) -> Bits {
        self.resize(width)
    }

    /// Truncates to the low `width` bits (zero-extends if `width` is larger, as [`Bits::resize`]).
    #[inline]
    pub fn trunc(&self, width: u32) -> Bits {
        self.resize(width)
    }

    /// Sign-extends to `width` (truncates if `width` is smaller).
    #[inline]
    pub fn sext(&self, width: u32) -> Bits {
        match &self.0 {
            Repr::Small { width: w, v } if width <= SMALL => Bits::small(width, sx(*v, *w) as u128),
            _ => self.sext_wide(width),
        }
    }

    /// [`Bits::sext`] from or to more than 128 bits.
    #[inline(never)]
    fn sext_wide(&self, width: u32) -> Bits {
        let w = self.width();
        if width <= w || !self.is_negative() {
            return self.resize(width);
        }
        if let Repr::Small { v, .. } = &self.0 {
            return Bits::from_i128(width, sx(*v, w));
        }
        let mut words = self.to_words(nwords(width.min(MAX_WIDTH)));
        let (first, rem) = (w as usize / 64, (w % 64) as usize);
        for (i, word) in words.iter_mut().enumerate().skip(first) {
            *word |= if i == first { !mask64(rem) } else { u64::MAX };
        }
        Bits::from_words(width, words)
    }

    /// Bits `hi` down to `lo` inclusive, as a value of width `hi - lo + 1`; bits past the width read
    /// as 0. `hi < lo` gives a value of width 0.
    pub fn slice(&self, hi: u32, lo: u32) -> Bits {
        if hi < lo {
            return Bits::zero(0);
        }
        let width = (hi - lo).saturating_add(1);
        match &self.0 {
            Repr::Small { v, .. } if width <= SMALL => {
                Bits::small(width, v.checked_shr(lo).unwrap_or(0))
            }
            _ => {
                let words = words::shr(&self.to_words(nwords(self.width())), lo as usize, 0);
                Bits::from_words(width, words)
            }
        }
    }

    /// Concatenation: `self` in the high bits, `lo` in the low bits; the width is the sum (clamped
    /// to [`MAX_WIDTH`]).
    pub fn concat(&self, lo: &Bits) -> Bits {
        let lw = lo.width();
        let width = self.width().saturating_add(lw).min(MAX_WIDTH);
        match (&self.0, &lo.0) {
            (Repr::Small { v: h, .. }, Repr::Small { v: l, .. }) if width <= SMALL => {
                Bits::small(width, h.checked_shl(lw).unwrap_or(0) | l)
            }
            _ => {
                let n = nwords(width);
                let high = words::shl(&self.to_words(n), lw as usize);
                let low = lo.to_words(n);
                Bits::from_words(width, arith::zip_words(&high, &low, |x, y| x | y))
            }
        }
    }
}

impl fmt::Display for Bits {
    /// Hexadecimal with a `0x` prefix, e.g. `0xff`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Small { v, .. } => write!(f, "{v:#x}"),
            Repr::Big { words, .. } => {
                let mut rest = words.iter().rev().skip_while(|&&w| w == 0);
                match rest.next() {
                    None => f.write_str("0x0"),
                    Some(top) => {
                        write!(f, "{top:#x}")?;
                        rest.try_for_each(|w| write!(f, "{w:016x}"))
                    }
                }
            }
        }
    }
}

impl fmt::Debug for Bits {
    /// The width and the hexadecimal value, Verilog style: `8'hff`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.to_string();
        write!(f, "{}'h{}", self.width(), hex.trim_start_matches("0x"))
    }
}
