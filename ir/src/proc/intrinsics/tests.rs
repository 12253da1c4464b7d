//! Published test vectors and the examples of `docs/language.md` §9.2 and §9.3.

use super::*;
use crate::proc::bits::{read_bits, write_bits};

const RSS_KEY: &str =
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A `bit<8·len>` holding `bytes`.
fn value(bytes: &[u8]) -> Bits {
    Bits::from_bytes_be(bytes.len() as u32 * 8, bytes)
}

fn call_u64(intrinsic: Intrinsic, args: &[Bits]) -> u64 {
    call(intrinsic, &Type::Bits(32), args).to_u64()
}

#[test]
fn crc_check_values() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    assert_eq!(crc16(b"123456789"), 0xbb3d);
    assert_eq!(crc32(b""), 0);
    assert_eq!(crc32(&[1, 2, 3, 4, 5, 6, 7, 8]), 0x3fca_88c5);
    assert_eq!(
        crc32(b"The quick brown fox jumps over the lazy dog"),
        0x414f_a339
    );
    // Through `call`, on the bit<72> value 0x313233343536373839.
    let digits = value(b"123456789");
    assert_eq!(digits.width(), 72);
    assert_eq!(
        call_u64(Intrinsic::Crc32, std::slice::from_ref(&digits)),
        0xcbf4_3926
    );
    assert_eq!(
        call_u64(Intrinsic::Crc16, std::slice::from_ref(&digits)),
        0xbb3d
    );
    assert_eq!(call(Intrinsic::Crc16, &Type::Unit, &[digits]).width(), 16);
    let eight = Bits::from_u64(64, 0x0102_0304_0506_0708);
    assert_eq!(call_u64(Intrinsic::Crc32, &[eight]), 0x3fca_88c5);
    // A wide value (the heap representation) hashes its bytes just the same.
    let long: Vec<u8> = (0..100u8).collect();
    assert_eq!(
        call_u64(Intrinsic::Crc32, &[value(&long)]),
        u64::from(crc32(&long))
    );
}

#[test]
fn murmur3_vectors() {
    assert_eq!(murmur3_32(b"", 0), 0);
    assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
    assert_eq!(murmur3_32(b"", 0xffff_ffff), 0x81f1_6f39);
    assert_eq!(murmur3_32(b"hello", 0), 0x248b_fa47);
    assert_eq!(murmur3_32(b"test", 0), 0xba6b_d213);
    assert_eq!(murmur3_32(b"Hello, world!", 1234), 0xfaf6_cdb3);
    assert_eq!(
        murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747_b28c),
        0x2fa8_26cd
    );
    assert_eq!(murmur3_32(&[0x21, 0x43, 0x65, 0x87], 0), 0xf55b_516b);
    assert_eq!(murmur3_32(&[0x21, 0x43, 0x65], 0), 0x7e4a_8634);
    assert_eq!(murmur3_32(&[0x21, 0x43], 0), 0xa0f7_b07a);
    assert_eq!(murmur3_32(&[0x21], 0), 0x7266_1cf4);
    assert_eq!(murmur3_32(&[0, 0, 0, 0], 0), 0x2362_f9de);
    let seed = Bits::from_u64(32, 0x9747_b28c);
    let test = Bits::from_u64(32, 0x7465_7374);
    assert_eq!(
        call_u64(Intrinsic::Murmur3, &[test, Bits::zero(32)]),
        0xba6b_d213
    );
    let eight = Bits::from_u64(64, 0x0102_0304_0506_0708);
    assert_eq!(
        call_u64(Intrinsic::Murmur3, &[eight, seed]),
        u64::from(murmur3_32(&[1, 2, 3, 4, 5, 6, 7, 8], 0x9747_b28c))
    );
}

#[test]
fn toeplitz_rss_verification_suite() {
    let key = hex(RSS_KEY);
    assert_eq!(key.len(), 40);
    let src = [66, 9, 149, 187];
    let dst = [161, 142, 100, 80];
    let two_tuple = [src, dst].concat();
    assert_eq!(toeplitz(&two_tuple, &key), 0x323e_8fc2);
    let four_tuple = [
        &two_tuple[..],
        &2794u16.to_be_bytes(),
        &1766u16.to_be_bytes(),
    ]
    .concat();
    assert_eq!(toeplitz(&four_tuple, &key), 0x51cc_c178);
    // More rows of Microsoft's IPv4 table.
    type Row = ([u8; 4], [u8; 4], u16, u16, u32, u32);
    let rows: [Row; 4] = [
        (
            [199, 92, 111, 2],
            [65, 69, 140, 83],
            14230,
            4739,
            0xc626_b0ea,
            0xd718_262a,
        ),
        (
            [24, 19, 198, 95],
            [12, 22, 207, 184],
            12898,
            38024,
            0x5c2b_394a,
            0xd2d0_a5de,
        ),
        (
            [38, 27, 205, 30],
            [209, 142, 163, 6],
            48228,
            2217,
            0xafc7_327f,
            0x8298_9176,
        ),
        (
            [153, 39, 163, 191],
            [202, 188, 127, 2],
            44251,
            1303,
            0x10e8_28a2,
            0x5d18_09c5,
        ),
    ];
    for (src, dst, sport, dport, with_ports, without) in rows {
        let ips = [src, dst].concat();
        assert_eq!(toeplitz(&ips, &key), without, "{src:?}");
        let all = [&ips[..], &sport.to_be_bytes(), &dport.to_be_bytes()].concat();
        assert_eq!(toeplitz(&all, &key), with_ports, "{src:?}");
    }
    // Through `call`: a bit<96> input and the bit<320> key.
    let k = value(&key);
    assert_eq!(k.width(), 320);
    let args = [value(&four_tuple), k.clone()];
    assert_eq!(call_u64(Intrinsic::Toeplitz, &args), 0x51cc_c178);
    let ips = Bits::from_u64(32, 0x4209_95bb).concat(&Bits::from_u64(32, 0xa18e_6450));
    assert_eq!(call_u64(Intrinsic::Toeplitz, &[ips, k]), 0x323e_8fc2);
}

/// The RFC 1071 example header, checksum field zero.
const IPV4: [u8; 20] = [
    0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
    0xc0, 0xa8, 0x00, 0xc7,
];

#[test]
fn internet_checksum() {
    assert_eq!(ones_complement(&IPV4), 0xb861);
    let mut with_sum = IPV4;
    with_sum[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
    assert_eq!(ones_complement(&with_sum), 0); // a correct header sums to all ones
    assert_eq!(ones_complement(&[]), 0xffff);
    assert_eq!(ones_complement(&[0x12]), !0x1200);
    assert_eq!(ones_complement(&[0xff, 0xff, 0x00, 0x01]), !0x0001);
    assert_eq!(call_u64(Intrinsic::OnesComplement, &[value(&IPV4)]), 0xb861);
    // Decrementing the TTL: 0x4011 → 0x3f11.
    assert_eq!(checksum_update(0xb861, 0x4011, 0x3f11), 0xb961);
    let mut dec = IPV4;
    dec[8] = 0x3f;
    assert_eq!(ones_complement(&dec), 0xb961);
    // RFC 1624's example: eqn. 3 gives 0x0000 where eqn. 2 gave 0xffff.
    assert_eq!(checksum_update(0xdd2f, 0x5555, 0x3285), 0x0000);
    let words = [0xb861u64, 0x4011, 0x3f11].map(|w| Bits::from_u64(16, w));
    assert_eq!(call_u64(Intrinsic::ChecksumUpdate, &words), 0xb961);
}

#[test]
fn incremental_update_matches_recomputation() {
    let mut rng = crate::proc::bits::tests::Rng::new(42);
    for _ in 0..100_000 {
        let mut header: Vec<u8> = (0..20).map(|_| rng.next_u64() as u8).collect();
        header[10] = 0;
        header[11] = 0;
        let sum = ones_complement(&header);
        // Decrement the TTL (byte 8), the high byte of word 4, wrapping as `ttl - 1` does.
        let old = read_bits(&header, 64, 16);
        let ttl = read_bits(&header, 64, 8);
        write_bits(&mut header, 64, &ttl.wrapping_sub(&Bits::from_u64(8, 1)));
        let new = read_bits(&header, 64, 16);
        let updated = checksum_update(sum, old.to_u64() as u16, new.to_u64() as u16);
        assert_eq!(updated, ones_complement(&header), "{header:02x?}");
        // Any other word changing, too.
        let word = rng.below(10) as usize * 16;
        if word == 80 {
            continue;
        }
        let old = read_bits(&header, word, 16);
        let new = Bits::from_u64(16, rng.next_u64());
        write_bits(&mut header, word, &new);
        let again = checksum_update(updated, old.to_u64() as u16, new.to_u64() as u16);
        assert_eq!(again, ones_complement(&header), "{header:02x?}");
    }
}

#[test]
fn padding_of_odd_widths() {
    // A bit<12> 0xabc hashes as the bytes ab c0; a bit<24> as a checksum input as abcdef 00.
    let odd = Bits::from_u64(12, 0xabc);
    assert_eq!(
        call_u64(Intrinsic::Crc32, &[odd]),
        u64::from(crc32(&[0xab, 0xc0]))
    );
    let three = Bits::from_u64(24, 0xab_cdef);
    assert_eq!(
        call_u64(Intrinsic::OnesComplement, &[three]),
        u64::from(ones_complement(&[0xab, 0xcd, 0xef, 0x00]))
    );
    let wide = Bits::ones(129);
    let mut bytes = vec![0xff; 16];
    bytes.push(0x80);
    assert_eq!(
        call_u64(Intrinsic::Crc32, &[wide]),
        u64::from(crc32(&bytes))
    );
    // Missing arguments read as zero rather than panicking.
    assert_eq!(call_u64(Intrinsic::Crc32, &[]), u64::from(crc32(&[0; 4])));
    assert_eq!(
        call(
            Intrinsic::Max,
            &Type::Int(8),
            &[Bits::from_i128(8, -3), Bits::from_u64(8, 2)]
        ),
        Bits::from_u64(8, 2)
    );
    assert_eq!(
        call(
            Intrinsic::Min,
            &Type::Int(8),
            &[Bits::from_i128(8, -3), Bits::from_u64(8, 2)]
        ),
        Bits::from_i128(8, -3)
    );
}

#[test]
fn crcs_match_bitwise_definitions() {
    fn reflected(bytes: &[u8], poly: u32, init: u32, xorout: u32) -> u32 {
        let mut crc = init;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ poly
                } else {
                    crc >> 1
                };
            }
        }
        crc ^ xorout
    }
    let mut rng = crate::proc::bits::tests::Rng::new(9);
    for len in 0..200 {
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        assert_eq!(crc32(&data), reflected(&data, 0xedb8_8320, !0, !0), "{len}");
        assert_eq!(
            u32::from(crc16(&data)),
            reflected(&data, 0xa001, 0, 0),
            "{len}"
        );
    }
}
