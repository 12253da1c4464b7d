//! Property tests of [`Bits`] against `num_bigint` reference computations, plus hand-written cases.

use super::*;
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// The repository's one PRNG ([`crate::rng`]); the intrinsics' tests draw from it too.
pub(crate) type Rng = crate::rng::SplitMix64;

const WIDTHS: [u32; 15] = [
    1, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 512, 1024,
];

fn modulus(w: u32) -> BigUint {
    BigUint::one() << w as usize
}

/// A random value of width `w`, biased toward edge cases (0, 1, all ones, signed min and max, small
/// values, values with few significant bits).
fn random(rng: &mut Rng, w: u32) -> BigUint {
    let m = modulus(w);
    let any = |rng: &mut Rng| {
        let digits: Vec<u32> = (0..nwords(w) * 2).map(|_| rng.next_u64() as u32).collect();
        BigUint::new(digits) % &m
    };
    match rng.below(10) {
        0 => BigUint::zero(),
        1 => BigUint::one() % &m,
        2 => &m - 1u32,
        3 => BigUint::one() << (w as usize - 1),
        4 => (BigUint::one() << (w as usize - 1)) - 1u32,
        5 => BigUint::from(rng.below(20)) % &m,
        6 => any(rng) >> rng.below(u64::from(w)) as usize,
        7 => (&m - 1u32 - BigUint::from(rng.below(5)) % &m) % &m,
        _ => any(rng),
    }
}

fn signed(v: &BigUint, w: u32) -> BigInt {
    let v = BigInt::from(v.clone());
    if v >= BigInt::from(BigUint::one() << (w as usize - 1)) {
        v - BigInt::from(modulus(w))
    } else {
        v
    }
}

fn wrap(v: &BigInt, w: u32) -> BigUint {
    let m = BigInt::from(modulus(w));
    (((v % &m) + &m) % &m).to_biguint().unwrap_or_default()
}

fn bits(w: u32, v: &BigUint) -> Bits {
    Bits::from_biguint(w, v)
}

/// Runs `check(rng, width)` `cases` times over the test widths.
fn for_widths(seed: u64, cases: usize, mut check: impl FnMut(&mut Rng, u32)) {
    let mut rng = Rng::new(seed);
    for i in 0..cases {
        check(&mut rng, WIDTHS[i % WIDTHS.len()]);
    }
}

const CASES: usize = 200_000;

#[test]
fn round_trips() {
    for_widths(1, CASES / 4, |rng, w| {
        let a = random(rng, w);
        let b = bits(w, &a);
        assert_eq!(b.width(), w);
        assert_eq!(b.to_biguint(), a, "w={w}");
        let bytes = b.to_bytes_be();
        assert_eq!(bytes.len(), w.div_ceil(8) as usize);
        assert_eq!(BigUint::from_bytes_be(&bytes), a);
        assert_eq!(Bits::from_bytes_be(w, &bytes), b);
        assert_eq!(format!("{b}"), format!("{a:#x}"));
        assert_eq!(b.is_zero(), a.is_zero());
        let low = (&a % (BigUint::one() << 128usize)).to_u64_digits();
        let want = u128::from(low.first().copied().unwrap_or(0))
            | (u128::from(low.get(1).copied().unwrap_or(0)) << 64);
        assert_eq!(b.to_u128(), want);
        let i = rng.below(u64::from(w) + 3) as u32;
        assert_eq!(b.bit(i), (&a >> i as usize) % 2u32 == BigUint::one());
    });
}

#[test]
fn add_sub_mul_neg() {
    for_widths(2, CASES, |rng, w| {
        let (a, b) = (random(rng, w), random(rng, w));
        let (x, y) = (bits(w, &a), bits(w, &b));
        let m = modulus(w);
        assert_eq!(x.wrapping_add(&y).to_biguint(), (&a + &b) % &m, "{w}");
        assert_eq!(x.wrapping_sub(&y).to_biguint(), (&a + &m - &b) % &m, "{w}");
        assert_eq!(x.wrapping_mul(&y).to_biguint(), (&a * &b) % &m, "{w}");
        assert_eq!(x.wrapping_neg().to_biguint(), (&m - &a) % &m, "{w}");
    });
}

#[test]
fn division() {
    for_widths(3, CASES, |rng, w| {
        let (a, mut b) = (random(rng, w), random(rng, w));
        if rng.below(4) == 0 {
            b = random(rng, w.min(64)) % modulus(w);
        }
        let (x, y) = (bits(w, &a), bits(w, &b));
        let (uq, ur) = if b.is_zero() {
            (BigUint::zero(), BigUint::zero())
        } else {
            (&a / &b, &a % &b)
        };
        assert_eq!(x.udiv(&y).to_biguint(), uq, "{w}: {a} / {b}");
        assert_eq!(x.urem(&y).to_biguint(), ur, "{w}: {a} % {b}");
        let (sa, sb) = (signed(&a, w), signed(&b, w));
        // BigInt division truncates toward zero and the remainder has the dividend's sign.
        let (sq, sr) = if sb.is_zero() {
            (BigInt::zero(), BigInt::zero())
        } else {
            (&sa / &sb, &sa % &sb)
        };
        assert_eq!(x.sdiv(&y).to_biguint(), wrap(&sq, w), "{w}: {sa} / {sb}");
        assert_eq!(x.srem(&y).to_biguint(), wrap(&sr, w), "{w}: {sa} % {sb}");
    });
}

#[test]
fn bitwise_and_shifts() {
    for_widths(4, CASES, |rng, w| {
        let (a, b) = (random(rng, w), random(rng, w));
        let (x, y) = (bits(w, &a), bits(w, &b));
        let m = modulus(w);
        assert_eq!(x.bit_and(&y).to_biguint(), &a & &b);
        assert_eq!(x.bit_or(&y).to_biguint(), &a | &b);
        assert_eq!(x.bit_xor(&y).to_biguint(), &a ^ &b);
        assert_eq!(x.bit_not().to_biguint(), &m - 1u32 - &a);
        let n = match rng.below(4) {
            0 => rng.below(u64::from(w) + 2) as u32,
            1 => w,
            2 => u32::MAX - rng.below(3) as u32,
            _ => rng.below(u64::from(w)) as u32,
        };
        let big_n = n as usize;
        let shl = if n >= w {
            BigUint::zero()
        } else {
            (&a << big_n) % &m
        };
        assert_eq!(x.shl(n).to_biguint(), shl, "{w} << {n}");
        let lshr = if n >= w { BigUint::zero() } else { &a >> big_n };
        assert_eq!(x.lshr(n).to_biguint(), lshr, "{w} >> {n}");
        let sa = signed(&a, w);
        // BigInt's >> on negative values rounds toward negative infinity: arithmetic shift.
        let ashr = if n >= w {
            if sa.is_negative() {
                BigInt::from(-1)
            } else {
                BigInt::zero()
            }
        } else {
            &sa >> big_n
        };
        assert_eq!(x.ashr(n).to_biguint(), wrap(&ashr, w), "{w} >>> {n}");
    });
}

#[test]
fn comparisons_and_saturation() {
    for_widths(5, CASES, |rng, w| {
        let (a, b) = (random(rng, w), random(rng, w));
        let (x, y) = (bits(w, &a), bits(w, &b));
        let (sa, sb) = (signed(&a, w), signed(&b, w));
        assert_eq!(x.ucmp(&y), a.cmp(&b));
        assert_eq!(x.scmp(&y), sa.cmp(&sb), "{w}: {sa} <=> {sb}");
        assert_eq!(x.ult(&y), a < b);
        assert_eq!(x.slt(&y), sa < sb);
        assert_eq!(x == y, a == b);
        let max = modulus(w) - 1u32;
        let usum = (&a + &b).min(max.clone());
        assert_eq!(x.uadd_sat(&y).to_biguint(), usum);
        let udiff = if a < b { BigUint::zero() } else { &a - &b };
        assert_eq!(x.usub_sat(&y).to_biguint(), udiff);
        let (smin, smax) = (
            -BigInt::from(BigUint::one() << (w as usize - 1)),
            BigInt::from(BigUint::one() << (w as usize - 1)) - BigInt::one(),
        );
        if w >= 2 {
            let clamp = |v: BigInt| v.max(smin.clone()).min(smax.clone());
            assert_eq!(
                x.sadd_sat(&y).to_biguint(),
                wrap(&clamp(&sa + &sb), w),
                "{w}"
            );
            assert_eq!(
                x.ssub_sat(&y).to_biguint(),
                wrap(&clamp(&sa - &sb), w),
                "{w}"
            );
        }
    });
}

#[test]
fn resizing_slices_and_concatenation() {
    for_widths(6, CASES, |rng, w| {
        let a = random(rng, w);
        let x = bits(w, &a);
        let to = WIDTHS[rng.below(WIDTHS.len() as u64) as usize];
        assert_eq!(x.zext(to).to_biguint(), &a % modulus(to), "{w}->{to}");
        assert_eq!(x.trunc(to).width(), to);
        assert_eq!(
            x.sext(to).to_biguint(),
            wrap(&signed(&a, w), to),
            "{w}->{to}"
        );
        let lo = rng.below(u64::from(w) + 2) as u32;
        let hi = lo + rng.below(u64::from(w) + 1) as u32;
        let slice = x.slice(hi, lo);
        assert_eq!(slice.width(), hi - lo + 1);
        assert_eq!(
            slice.to_biguint(),
            (&a >> lo as usize) % modulus(hi - lo + 1),
            "{w}[{hi}:{lo}]"
        );
        let w2 = WIDTHS[rng.below(WIDTHS.len() as u64) as usize];
        let b = random(rng, w2);
        let cat = x.concat(&bits(w2, &b));
        assert_eq!(cat.width(), w + w2);
        assert_eq!(cat.to_biguint(), (&a << w2 as usize) | &b, "{w} ++ {w2}");
    });
}

#[test]
fn wire_reads_and_writes() {
    let mut rng = Rng::new(7);
    for case in 0..CASES / 4 {
        let len = 1 + rng.below(160) as usize;
        let buf: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let w = if case % 3 == 0 {
            WIDTHS[case % WIDTHS.len()].min(len as u32 * 8)
        } else {
            1 + rng.below((len as u64 * 8).min(300)) as u32
        };
        let off = rng.below(len as u64 * 8 - u64::from(w) + 1) as usize;
        // Reference: the whole buffer as a number, then the field's bits.
        let whole = BigUint::from_bytes_be(&buf);
        let shift = len * 8 - off - w as usize;
        let field = (&whole >> shift) % modulus(w);
        let got = read_bits(&buf, off, w);
        assert_eq!(got.to_biguint(), field, "len={len} off={off} w={w}");
        let new = random(&mut rng, w);
        let mut out = buf.clone();
        write_bits(&mut out, off, &bits(w, &new));
        let keep = (&modulus(len as u32 * 8) - 1u32) ^ ((modulus(w) - 1u32) << shift);
        let want = (&whole & keep) | (&new << shift);
        assert_eq!(
            BigUint::from_bytes_be(&out),
            want,
            "len={len} off={off} w={w}"
        );
    }
}

#[test]
fn wire_access_past_the_end() {
    let buf = [0xab, 0xcd];
    assert_eq!(read_bits(&buf, 8, 16).to_u64(), 0xcd00);
    assert_eq!(read_bits(&buf, 100, 8).to_u64(), 0);
    assert_eq!(read_bits(&buf, usize::MAX, 8).to_u64(), 0);
    let mut out = [0u8; 2];
    write_bits(&mut out, 12, &Bits::from_u64(8, 0xff));
    assert_eq!(out, [0x00, 0x0f]);
    write_bits(&mut out, usize::MAX - 3, &Bits::from_u64(8, 0xff));
    assert_eq!(out, [0x00, 0x0f]);
}

#[test]
fn hand_examples() {
    let b8 = |v| Bits::from_u64(8, v);
    assert_eq!(b8(255).wrapping_add(&b8(1)), b8(0));
    assert_eq!(b8(127).wrapping_add(&b8(1)).to_i128(), -128);
    assert_eq!(b8(3).usub_sat(&b8(5)), b8(0));
    assert_eq!(b8(10).uadd_sat(&b8(250)), b8(255));
    let i8 = |v: i128| Bits::from_i128(8, v);
    assert_eq!(i8(-7).sdiv(&i8(2)), i8(-3));
    assert_eq!(i8(-7).srem(&i8(2)), i8(-1));
    assert_eq!(i8(-128).sdiv(&i8(-1)), i8(-128));
    assert_eq!(i8(-128).wrapping_neg(), i8(-128));
    assert_eq!(i8(5).sdiv(&i8(0)), i8(0));
    assert_eq!(i8(5).srem(&i8(0)), i8(0));
    assert_eq!(i8(-100).ssub_sat(&i8(100)), i8(-128));
    assert_eq!(i8(100).sadd_sat(&i8(100)), i8(127));
    assert_eq!(i8(-2).ashr(1000), i8(-1));
    assert_eq!(b8(0x80).ashr(3), b8(0xf0));
    assert_eq!(
        Bits::from_u64(16, 0x1234).slice(11, 4),
        Bits::from_u64(8, 0x23)
    );
    assert_eq!(
        b8(0xab).concat(&Bits::from_u64(4, 0xc)),
        Bits::from_u64(12, 0xabc)
    );
    assert_eq!(format!("{:?}", Bits::from_u64(12, 0xabc)), "12'habc");
    assert_eq!(format!("{}", Bits::zero(300)), "0x0");
    assert_eq!(Bits::ones(300).to_u32_saturating(), u32::MAX);
    assert_eq!(Bits::from_u64(300, 77).to_u32_saturating(), 77);
    assert_eq!(Bits::from_i128(200, -1), Bits::ones(200));
    // Unequal widths never panic: the right operand is resized to the left's width.
    assert_eq!(b8(1).wrapping_add(&Bits::from_u64(300, 0x102)), b8(3));
    assert_eq!(
        Bits::from_u64(300, 5).wrapping_add(&b8(1)),
        Bits::from_u64(300, 6)
    );
    assert_eq!(Bits::zero(0).wrapping_sub(&b8(1)).width(), 0);
    assert_eq!(Bits::zero(0).ashr(0), Bits::zero(0));
    assert_eq!(Bits::from_u64(8, 1).slice(3, 5).width(), 0);
    assert_eq!(Bits::zero(70_000).width(), MAX_WIDTH);
    assert_eq!(Bits::ones(8).slice(u32::MAX, u32::MAX - 3), Bits::zero(4));
    assert_eq!(Bits::ones(8).slice(u32::MAX, 0).width(), MAX_WIDTH);
    assert_eq!(Bits::ones(8).slice(u32::MAX, 0).slice(7, 0), Bits::ones(8));
    // Values up to 128 bits are inline.
    assert!(std::mem::size_of::<Bits>() <= 32);
}
