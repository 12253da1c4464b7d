//! The standard library's hashes and checksums (`docs/language.md` §9.2, §9.3), and [`call`], which
//! runs any [`Intrinsic`] on [`Bits`] arguments.
//!
//! "The bytes of a value" are its bits most significant first, grouped in bytes: a `bit<N>` gives
//! N/8 bytes, the first holding bits N-1 ..= N-8, which is the order on the wire of a value built
//! with `++` from header fields. Programs only pass widths that are multiples of 8 (of 16 for
//! `ones_complement`); for any other width the value is padded with zero bits on the right (after
//! its least significant bit) up to a whole number of bytes (words), as RFC 1071 pads an odd byte.
//!
//! The byte-level functions ([`crc32`], [`crc16`], [`murmur3_32`], [`toeplitz`],
//! [`ones_complement`], [`checksum_update`]) are public for the packet path and for tests.

use super::bits::{write_bits, Bits};
use super::ops;
use crate::body::Intrinsic;
use crate::types::Type;

/// Runs an intrinsic. `ty` is the type of the first argument (used by `Min`/`Max` for signedness;
/// the hashes ignore it). Results: `Min`/`Max` the argument type; `Crc32`, `Murmur3`, `Toeplitz`
/// a `bit<32>`; `Crc16`, `OnesComplement`, `ChecksumUpdate` a `bit<16>`. A missing argument (an
/// invalid program) reads as a 32-bit zero.
pub fn call(intrinsic: Intrinsic, ty: &Type, args: &[Bits]) -> Bits {
    let missing = Bits::zero(32);
    let arg = |i: usize| args.get(i).unwrap_or(&missing);
    match intrinsic {
        Intrinsic::Min => ops::min(ty, arg(0), arg(1)),
        Intrinsic::Max => ops::max(ty, arg(0), arg(1)),
        Intrinsic::Crc32 => with_bytes(arg(0), 8, |b| Bits::from_u64(32, u64::from(crc32(b)))),
        Intrinsic::Crc16 => with_bytes(arg(0), 8, |b| Bits::from_u64(16, u64::from(crc16(b)))),
        Intrinsic::Murmur3 => {
            let seed = arg(1).to_u64() as u32;
            with_bytes(arg(0), 8, |b| {
                Bits::from_u64(32, u64::from(murmur3_32(b, seed)))
            })
        }
        Intrinsic::Toeplitz => with_bytes(arg(0), 8, |data| {
            with_bytes(arg(1), 8, |key| {
                Bits::from_u64(32, u64::from(toeplitz(data, key)))
            })
        }),
        Intrinsic::OnesComplement => with_bytes(arg(0), 16, |b| {
            Bits::from_u64(16, u64::from(ones_complement(b)))
        }),
        Intrinsic::ChecksumUpdate => {
            let word = |i: usize| arg(i).to_u64() as u16;
            let hc = checksum_update(word(0), word(1), word(2));
            Bits::from_u64(16, u64::from(hc))
        }
    }
}

/// Calls `f` with the bytes of `value`, most significant first, padded with zero bits on the right
/// to a multiple of `unit` bits (8 or 16). Values of at most 1024 bits use a stack buffer.
#[inline]
fn with_bytes<R>(value: &Bits, unit: u32, f: impl FnOnce(&[u8]) -> R) -> R {
    let w = value.width();
    let padded = w.div_ceil(unit).saturating_mul(unit);
    let n = (padded / 8) as usize;
    if padded <= 128 {
        let aligned = value.to_u128().checked_shl(padded - w).unwrap_or(0);
        let buf = aligned.to_be_bytes();
        return f(&buf[16 - n..]);
    }
    if n <= 128 {
        let mut buf = [0u8; 128];
        write_bits(&mut buf[..n], 0, value);
        return f(&buf[..n]);
    }
    let mut buf = vec![0u8; n];
    write_bits(&mut buf, 0, value);
    f(&buf)
}

/// A 256-entry table for a reflected CRC with the reflected polynomial `poly` (one byte per step:
/// `crc = table[(crc ^ byte) & 0xff] ^ (crc >> 8)`). Public so that other reflected CRCs of the
/// workspace (the runtime's CRC-32C flow ids) build their table here.
pub const fn crc_table(poly: u32) -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ poly } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

/// Slicing-by-8 tables for CRC-32: `t[k][b]` is the CRC of byte b followed by k zero bytes.
const fn crc32_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    t[0] = crc_table(0xEDB8_8320);
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        k += 1;
    }
    t
}

/// CRC-32 (IEEE 802.3) tables: 0x04C11DB7 reflected, sliced by 8.
static CRC32_TABLES: [[u32; 256]; 8] = crc32_tables();

/// CRC-16/ARC table: 0x8005 reflected.
static CRC16_TABLE: [u32; 256] = crc_table(0xA001);

/// CRC-32 of IEEE 802.3: reflected, polynomial 0x04C11DB7, initial value and final XOR 0xFFFFFFFF.
/// `crc32(b"123456789") == 0xCBF43926`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let t = &CRC32_TABLES;
    let mut crc = u32::MAX;
    let mut blocks = bytes.chunks_exact(8);
    for block in &mut blocks {
        let mut word = [0u8; 8];
        word.copy_from_slice(block);
        let lo = u32::from_le_bytes([word[0], word[1], word[2], word[3]]) ^ crc;
        crc = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][usize::from(word[4])]
            ^ t[2][usize::from(word[5])]
            ^ t[1][usize::from(word[6])]
            ^ t[0][usize::from(word[7])];
    }
    !blocks.remainder().iter().fold(crc, |crc, &b| {
        t[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8)
    })
}

/// CRC-16/ARC (P4's `crc16`): reflected, polynomial 0x8005, initial value 0, no final XOR.
/// `crc16(b"123456789") == 0xBB3D`.
pub fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u32, |crc, &b| {
        CRC16_TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8)
    }) as u16
}

/// The MurmurHash3 32-bit finalizer.
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3 x86_32 of `bytes` with `seed`, as the reference `MurmurHash3_x86_32`: 4-byte blocks
/// read little-endian, the tail bytes likewise, the length mixed in as a 32-bit count.
pub fn murmur3_32(bytes: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let mut blocks = bytes.chunks_exact(4);
    for block in &mut blocks {
        let k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        h ^= mix(k);
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        h ^= mix(k);
    }
    fmix32(h ^ bytes.len() as u32)
}

/// The Microsoft RSS Toeplitz hash: for each bit i of `data` (i = 0 the most significant bit of the
/// first byte) that is 1, XOR into the result the 32 bits of `key` starting at key bit i (counted
/// the same way). Key bits past the end of `key` read as 0 (programs guarantee a key at least 32
/// bits longer than the data).
pub fn toeplitz(data: &[u8], key: &[u8]) -> u32 {
    let key_byte = |i: usize| u64::from(key.get(i).copied().unwrap_or(0));
    // Key bits [8i, 8i + 64) while byte i of the data is hashed.
    let mut window = (0..8).fold(0u64, |acc, i| (acc << 8) | key_byte(i));
    let mut result = 0u32;
    for (i, &byte) in data.iter().enumerate() {
        for b in 0..8 {
            // All ones when bit b (from the most significant) of the byte is set: no branch.
            let take = 0u32.wrapping_sub(u32::from((byte >> (7 - b)) & 1));
            result ^= (window >> (32 - b)) as u32 & take;
        }
        window = (window << 8) | key_byte(i + 8);
    }
    result
}

/// Folds the carries of a ones'-complement sum into 16 bits.
fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The Internet checksum (RFC 1071): the ones' complement of the ones'-complement sum of the 16-bit
/// big-endian words of `bytes`; an odd last byte is padded with a zero byte.
pub fn ones_complement(bytes: &[u8]) -> u16 {
    let mut words = bytes.chunks_exact(2);
    let mut sum: u64 = (&mut words)
        .map(|w| u64::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    !fold(sum)
}

/// RFC 1624 (eqn. 3) incremental update of the checksum `hc` when one 16-bit word changes from
/// `old` to `new`: HC' = ~(~HC + ~m + m'), with ones'-complement addition. It gives the same result
/// as recomputing the checksum (for any header that is not all zeros).
pub fn checksum_update(hc: u16, old: u16, new: u16) -> u16 {
    !fold(u64::from(!hc) + u64::from(!old) + u64::from(new))
}

#[cfg(test)]
mod tests;
