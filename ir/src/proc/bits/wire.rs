//! Header fields on the wire: [`read_bits`] and [`write_bits`] at any bit offset, big-endian bit
//! order (bit 0 of a buffer is the most significant bit of its first byte).

use super::{mask64, nwords, Bits, Repr, MAX_WIDTH};

/// Reads `width <= 64` bits starting at bit `off` of `bytes` (bit 0 = the MSB of byte 0); bytes past
/// the end read as 0.
#[inline]
fn read_u64(bytes: &[u8], off: usize, width: usize) -> u64 {
    if width == 0 {
        return 0;
    }
    let (start, shift) = (off / 8, off % 8);
    if shift + width <= 64 {
        if let Some(chunk) = bytes.get(start..start + 8) {
            // One unaligned big-endian load: the field's bits, then the bits after it.
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            return (u64::from_be_bytes(word) << shift) >> (64 - width);
        }
    }
    if off % 8 == 0 && width % 8 == 0 {
        return (start..start + width / 8).fold(0u64, |acc, i| {
            (acc << 8) | u64::from(bytes.get(i).copied().unwrap_or(0))
        });
    }
    let end = off + width;
    let mut v = 0u64;
    for b in off / 8..=(end - 1) / 8 {
        let (byte_start, byte_end) = (b * 8, b * 8 + 8);
        let (lo, hi) = (off.max(byte_start), end.min(byte_end));
        let byte = u64::from(bytes.get(b).copied().unwrap_or(0));
        let chunk = (byte >> (byte_end - hi)) & mask64(hi - lo);
        v |= chunk << (end - hi);
    }
    v
}

/// Writes the low `width <= 64` bits of `v` at bit `off` of `bytes`; bits past the end are dropped.
#[inline]
fn write_u64(bytes: &mut [u8], off: usize, width: usize, v: u64) {
    if width == 0 {
        return;
    }
    if off % 8 == 0 && width % 8 == 0 {
        let (start, n) = (off / 8, width / 8);
        if let Some(dst) = bytes.get_mut(start..start + n) {
            for (j, byte) in dst.iter_mut().enumerate() {
                *byte = (v >> (8 * (n - 1 - j))) as u8;
            }
            return;
        }
    }
    let end = off + width;
    for b in off / 8..=(end - 1) / 8 {
        let Some(slot) = bytes.get_mut(b) else {
            return;
        };
        let (byte_start, byte_end) = (b * 8, b * 8 + 8);
        let (lo, hi) = (off.max(byte_start), end.min(byte_end));
        let m = mask64(hi - lo);
        let chunk = (v >> (end - hi)) & m;
        let shift = byte_end - hi;
        *slot = ((u64::from(*slot) & !(m << shift)) | (chunk << shift)) as u8;
    }
}

/// The `width` bits of `bytes` starting at bit `bit_offset`, in wire order: bit 0 of the buffer is
/// the most significant bit of its first byte, and the first bit read becomes the value's most
/// significant bit. Bits past the end of `bytes` read as 0 (callers check lengths first, e.g. to
/// reject a packet that is too short).
#[inline]
pub fn read_bits(bytes: &[u8], bit_offset: usize, width: u32) -> Bits {
    let w = width as usize;
    match bit_offset.checked_add(w) {
        Some(_) if w <= 64 => Bits::small(width, u128::from(read_u64(bytes, bit_offset, w))),
        Some(end) if w <= 128 => {
            let hi = read_u64(bytes, bit_offset, w - 64);
            let lo = read_u64(bytes, end - 64, 64);
            Bits::small(width, (u128::from(hi) << 64) | u128::from(lo))
        }
        _ => read_wide(bytes, bit_offset, width),
    }
}

/// [`read_bits`] for a header field, with the common case inlined into the caller: a field of 1 to
/// 64 bits whose bits lie within one 8-byte window inside `bytes` is one unaligned big-endian load,
/// a shift and a construction with no masking (the shifts leave only `width` bits). The field read
/// is the most frequent operation of a packet, and the out-of-line [`read_bits`] with its masking
/// cost about three times as much. Anything else (wider fields, the packet's last 7 bytes) goes to
/// [`read_bits`], so the result is the same.
#[inline(always)]
pub fn read_field(bytes: &[u8], bit_offset: usize, width: u32) -> Bits {
    let (start, shift) = (bit_offset / 8, (bit_offset % 8) as u32);
    if width != 0 && shift + width <= 64 {
        if let Some(chunk) = bytes.get(start..).and_then(|b| b.first_chunk::<8>()) {
            let v = (u64::from_be_bytes(*chunk) << shift) >> (64 - width);
            return Bits(Repr::Small {
                width,
                v: u128::from(v),
            });
        }
    }
    read_bits(bytes, bit_offset, width)
}

/// [`read_field`] of a field of at most 64 bits, as a `u64`.
#[inline(always)]
pub fn read_field_u64(bytes: &[u8], bit_offset: usize, width: u32) -> u64 {
    let (start, shift) = (bit_offset / 8, (bit_offset % 8) as u32);
    if width != 0 && shift + width <= 64 {
        if let Some(chunk) = bytes.get(start..).and_then(|b| b.first_chunk::<8>()) {
            return (u64::from_be_bytes(*chunk) << shift) >> (64 - width);
        }
    }
    read_bits(bytes, bit_offset, width).to_u64()
}

/// [`read_bits`] of more than 128 bits (or at an absurd offset).
#[inline(never)]
fn read_wide(bytes: &[u8], bit_offset: usize, width: u32) -> Bits {
    let width = width.min(MAX_WIDTH);
    let w = width as usize;
    let Some(end) = bit_offset.checked_add(w) else {
        return Bits::zero(width);
    };
    // Little-endian words, the lowest taken from the end of the field.
    let words = (0..nwords(width))
        .map(|i| {
            let chunk = (w - 64 * i).min(64);
            read_u64(bytes, end - 64 * i - chunk, chunk)
        })
        .collect();
    Bits::from_words(width, words)
}

/// Writes `value` (all of its width) into `bytes` at bit `bit_offset`, in wire order (see
/// [`read_bits`]); other bits of the touched bytes are kept. Bits that would land past the end of
/// `bytes` are dropped. Never allocates.
#[inline]
pub fn write_bits(bytes: &mut [u8], bit_offset: usize, value: &Bits) {
    let w = value.width() as usize;
    let Some(end) = bit_offset.checked_add(w) else {
        return;
    };
    match &value.0 {
        Repr::Small { v, .. } if w <= 64 => write_u64(bytes, bit_offset, w, *v as u64),
        Repr::Small { v, .. } => {
            write_u64(bytes, end - 64, 64, *v as u64);
            write_u64(bytes, bit_offset, w - 64, (*v >> 64) as u64);
        }
        Repr::Big { words, .. } => {
            for (i, &word) in words.iter().enumerate() {
                let chunk = w.saturating_sub(64 * i).min(64);
                write_u64(bytes, end - 64 * i - chunk, chunk, word);
            }
        }
    }
}
