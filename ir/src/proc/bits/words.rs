//! Arithmetic on little-endian slices of 64-bit words: the representation of [`super::Bits`] values
//! wider than 128 bits.
//!
//! Every function takes operands of equal length `n` (the caller guarantees it; shorter operands are
//! read as if zero-extended) and writes or returns `n` words; the results are modulo 2^(64n), and the
//! caller masks the top word down to the value's width.

use std::cmp::Ordering;

/// Word `i` of `a`, or 0 past its end.
#[inline]
fn word(a: &[u64], i: usize) -> u64 {
    a.get(i).copied().unwrap_or(0)
}

/// `a + b` modulo 2^(64n), with n = `a.len()`.
pub(super) fn add(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    let mut carry = false;
    for (i, &x) in a.iter().enumerate() {
        let (s1, c1) = x.overflowing_add(word(b, i));
        let (s2, c2) = s1.overflowing_add(u64::from(carry));
        out.push(s2);
        carry = c1 || c2;
    }
    out
}

/// `a - b` modulo 2^(64n).
pub(super) fn sub(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = false;
    for (i, &x) in a.iter().enumerate() {
        let (d1, b1) = x.overflowing_sub(word(b, i));
        let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
        out.push(d2);
        borrow = b1 || b2;
    }
    out
}

/// `-a` modulo 2^(64n).
pub(super) fn neg(a: &[u64]) -> Vec<u64> {
    let zero = vec![0; a.len()];
    sub(&zero, a)
}

/// `a * b` modulo 2^(64n) (schoolbook, only the low n words are computed).
pub(super) fn mul(a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = a.len();
    let mut out = vec![0u64; n];
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        let mut carry: u128 = 0;
        for j in 0..n - i {
            let cur = u128::from(out[i + j]) + u128::from(x) * u128::from(word(b, j)) + carry;
            out[i + j] = cur as u64;
            carry = cur >> 64;
        }
    }
    out
}

/// Unsigned comparison of `a` and `b` (equal lengths).
pub(super) fn cmp(a: &[u64], b: &[u64]) -> Ordering {
    let n = a.len().max(b.len());
    for i in (0..n).rev() {
        match word(a, i).cmp(&word(b, i)) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    Ordering::Equal
}

/// `a << amount` modulo 2^(64n); amounts of 64n or more give 0.
pub(super) fn shl(a: &[u64], amount: usize) -> Vec<u64> {
    let n = a.len();
    let (ws, bs) = (amount / 64, amount % 64);
    let mut out = vec![0u64; n];
    for (src, slot) in out.iter_mut().skip(ws).enumerate() {
        let mut v = word(a, src) << bs;
        if bs > 0 && src > 0 {
            v |= word(a, src - 1) >> (64 - bs);
        }
        *slot = v;
    }
    out
}

/// `a >> amount` filling with `fill` (0 or all ones) from the top; `fill` is the value of every bit
/// shifted in.
pub(super) fn shr(a: &[u64], amount: usize, fill: u64) -> Vec<u64> {
    let n = a.len();
    let (ws, bs) = (amount / 64, amount % 64);
    let mut out = vec![fill; n];
    for (i, slot) in out.iter_mut().enumerate() {
        let src = i + ws;
        if src >= n {
            break;
        }
        let hi = if src + 1 < n { a[src + 1] } else { fill };
        *slot = if bs == 0 {
            a[src]
        } else {
            (a[src] >> bs) | (hi << (64 - bs))
        };
    }
    out
}

/// Unsigned quotient and remainder of `a / b`, both `a.len()` words; division by zero gives (0, 0).
pub(super) fn divrem(a: &[u64], b: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let n = a.len();
    let (la, lb) = (significant(a), significant(b));
    if lb == 0 {
        return (vec![0; n], vec![0; n]);
    }
    if lb == 1 {
        return divrem_small(a, b[0]);
    }
    if la < lb {
        return (vec![0; n], a.to_vec());
    }
    let (mut q, mut r) = knuth(&a[..la], &b[..lb]);
    q.resize(n, 0);
    r.resize(n, 0);
    (q, r)
}

/// Number of words up to the most significant nonzero one.
fn significant(a: &[u64]) -> usize {
    a.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1)
}

/// Division by a single nonzero word.
fn divrem_small(a: &[u64], d: u64) -> (Vec<u64>, Vec<u64>) {
    let n = a.len();
    let mut q = vec![0u64; n];
    let mut rem: u128 = 0;
    let d = u128::from(d);
    for i in (0..n).rev() {
        let cur = (rem << 64) | u128::from(a[i]);
        q[i] = (cur / d) as u64;
        rem = cur % d;
    }
    let mut r = vec![0u64; n];
    if let Some(first) = r.first_mut() {
        *first = rem as u64;
    }
    (q, r)
}

/// Knuth's algorithm D (TAOCP 4.3.1; after Hacker's Delight `divmnu`) with 64-bit digits:
/// `u.len() >= v.len() >= 2`, the top words of `u` and `v` nonzero. Returns `u.len()`-word
/// quotient and `v.len()`-word remainder.
fn knuth(u: &[u64], v: &[u64]) -> (Vec<u64>, Vec<u64>) {
    const B: u128 = 1 << 64;
    let (m, n) = (u.len(), v.len());
    let s = v[n - 1].leading_zeros() as usize;
    // Normalise so that the divisor's top bit is set; un gets one extra word.
    let vn = shl(v, s);
    let mut un = shl(&[u, &[0]].concat(), s);
    let mut q = vec![0u64; m];
    let (top, second) = (u128::from(vn[n - 1]), u128::from(vn[n - 2]));
    for j in (0..=m - n).rev() {
        let num = (u128::from(un[j + n]) << 64) | u128::from(un[j + n - 1]);
        let (mut qhat, mut rhat) = (num / top, num % top);
        while qhat >= B || qhat * second > ((rhat << 64) | u128::from(un[j + n - 2])) {
            qhat -= 1;
            rhat += top;
            if rhat >= B {
                break;
            }
        }
        // un[j..=j+n] -= qhat * vn
        let mut k: i128 = 0;
        for i in 0..n {
            let p = qhat * u128::from(vn[i]);
            let t = i128::from(un[i + j]) - k - i128::from(p as u64);
            un[i + j] = t as u64;
            k = (p >> 64) as i128 - (t >> 64);
        }
        let t = i128::from(un[j + n]) - k;
        un[j + n] = t as u64;
        q[j] = qhat as u64;
        if t < 0 {
            // qhat was one too large: add the divisor back.
            q[j] = q[j].wrapping_sub(1);
            let mut carry: u128 = 0;
            for i in 0..n {
                let t = u128::from(un[i + j]) + u128::from(vn[i]) + carry;
                un[i + j] = t as u64;
                carry = t >> 64;
            }
            un[j + n] = un[j + n].wrapping_add(carry as u64);
        }
    }
    let mut r = shr(&un, s, 0);
    r.truncate(n);
    (q, r)
}
