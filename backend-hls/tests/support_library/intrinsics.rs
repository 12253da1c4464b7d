//! Every intrinsic of ir/src/proc/intrinsics.rs, through its `call` entry point (so the
//! padding of odd widths is the interpreter's), against scenic_intrinsics.hpp: crc32, crc16,
//! murmur3_32, toeplitz, ones_complement, checksum::update, min/max (unsigned and signed), and
//! the byte-array forms against the byte-level functions, lengths 0 to 300.

use super::harness::{self, hex, Rng, Toolchain};
use scenic_ir::body::Intrinsic;
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::intrinsics;
use scenic_ir::Type;

/// The widths instantiated by tests/cpp/intrinsics_driver.cpp (WIDTHS, MINMAX_WIDTHS, TOEPLITZ).
const WIDTHS: &[u32] = &[
    1, 7, 8, 12, 15, 16, 17, 24, 32, 33, 40, 48, 56, 63, 64, 65, 72, 96, 104, 127, 128, 129, 136,
    200, 256, 320, 512, 1000, 1023, 1024,
];
const MINMAX_WIDTHS: &[u32] = &[1, 2, 8, 16, 33, 64, 65, 128, 200];
const TOEPLITZ: &[(u32, u32)] = &[
    (64, 320),
    (96, 320),
    (288, 320),
    (8, 40),
    (12, 44),
    (1, 33),
    (992, 1024),
    (200, 320),
    (32, 1024),
    (100, 131),
];

/// Microsoft's RSS verification key (docs/language.md §9.2).
const RSS_KEY: &str =
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa";

fn hex_bits(b: &Bits) -> String {
    format!("{:x}", b.to_biguint())
}

/// Interesting values of a width: zero, all ones, the top bit, the low bit, then random ones.
fn values(rng: &mut Rng, w: u32, random: usize) -> Vec<Bits> {
    let mut v = vec![
        Bits::zero(w),
        Bits::ones(w),
        Bits::from_u64(w, 1).shl(w - 1),
        Bits::from_u64(w, 1),
    ];
    for _ in 0..random {
        v.push(Bits::from_bytes_be(w, &rng.bytes(w.div_ceil(8) as usize)));
    }
    v
}

/// Runs every intrinsic; returns the number of calls compared.
pub fn run(tc: &Toolchain, seed: u64, per_width: usize) -> usize {
    let driver = tc.driver("intrinsics_driver", "c++14");
    let mut rng = Rng::new(seed);
    let mut ops = Vec::new();
    let mut expected = Vec::new();
    let mut push = |op: String, want: String| {
        ops.push(op);
        expected.push(want);
    };
    for &w in WIDTHS {
        let ty = Type::Bits(w);
        for v in values(&mut rng, w, per_width) {
            let d = hex_bits(&v);
            for (name, which) in [
                ("crc32", Intrinsic::Crc32),
                ("crc16", Intrinsic::Crc16),
                ("ones", Intrinsic::OnesComplement),
            ] {
                let r = intrinsics::call(which, &ty, std::slice::from_ref(&v));
                push(format!("{name} {w} {d}"), hex_bits(&r));
            }
            let seed = Bits::from_u64(32, rng.next_u64() & 0xffff_ffff);
            let r = intrinsics::call(Intrinsic::Murmur3, &ty, &[v.clone(), seed.clone()]);
            push(format!("murmur {w} {d} {}", hex_bits(&seed)), hex_bits(&r));
        }
    }
    let rss = Bits::from_bytes_be(320, &parse_hex(RSS_KEY));
    for &(n, m) in TOEPLITZ {
        let mut keys = values(&mut rng, m, per_width / 4);
        if m == 320 {
            keys.push(rss.clone());
        }
        for key in keys {
            for data in values(&mut rng, n, 3) {
                let r = intrinsics::call(
                    Intrinsic::Toeplitz,
                    &Type::Bits(n),
                    &[data.clone(), key.clone()],
                );
                push(
                    format!("toep {n} {m} {} {}", hex_bits(&data), hex_bits(&key)),
                    hex_bits(&r),
                );
            }
        }
    }
    // RFC 1624 and the language reference's examples, then random triples and the extremes.
    let mut triples = vec![
        (0xb861u64, 0x4011u64, 0x3f11u64),
        (0xdd2f, 0x5555, 0x3285),
        (0, 0, 0),
        (0xffff, 0xffff, 0xffff),
        (0, 0xffff, 0),
        (0xffff, 0, 0xffff),
    ];
    for _ in 0..per_width * 20 {
        triples.push((rng.below(1 << 16), rng.below(1 << 16), rng.below(1 << 16)));
    }
    for (hc, old, new) in triples {
        let args = [hc, old, new].map(|x| Bits::from_u64(16, x));
        let r = intrinsics::call(Intrinsic::ChecksumUpdate, &Type::Bits(16), &args);
        push(format!("upd {hc:x} {old:x} {new:x}"), hex_bits(&r));
    }
    for &w in MINMAX_WIDTHS {
        let vals = values(&mut rng, w, per_width);
        for a in &vals {
            for _ in 0..3 {
                let b = &vals[rng.below(vals.len() as u64) as usize];
                for (name, which, ty) in [
                    ("umin", Intrinsic::Min, Type::Bits(w)),
                    ("umax", Intrinsic::Max, Type::Bits(w)),
                    ("smin", Intrinsic::Min, Type::Int(w)),
                    ("smax", Intrinsic::Max, Type::Int(w)),
                ] {
                    if w < 2 && name.starts_with('s') {
                        continue; // int<N> needs N >= 2
                    }
                    let r = intrinsics::call(which, &ty, &[a.clone(), b.clone()]);
                    push(
                        format!("{name} {w} {} {}", hex_bits(a), hex_bits(b)),
                        hex_bits(&r),
                    );
                }
            }
        }
    }
    // Byte-array forms, every length from 0 to 300 (the driver's MAX).
    let rss_bytes = parse_hex(RSS_KEY);
    for len in 0..=300usize {
        let bytes = rng.bytes(len);
        let h = if bytes.is_empty() {
            "-".into()
        } else {
            hex(&bytes)
        };
        push(
            format!("crc32b {h}"),
            format!("{:x}", intrinsics::crc32(&bytes)),
        );
        push(
            format!("crc16b {h}"),
            format!("{:x}", intrinsics::crc16(&bytes)),
        );
        push(
            format!("onesb {h}"),
            format!("{:x}", intrinsics::ones_complement(&bytes)),
        );
        let seed = (rng.next_u64() & 0xffff_ffff) as u32;
        push(
            format!("murmurb {h} {seed:x}"),
            format!("{:x}", intrinsics::murmur3_32(&bytes, seed)),
        );
        // Past 36 bytes the 40-byte key runs out: its missing bits read 0 on both sides.
        push(
            format!("toepb {h} {}", hex(&rss_bytes)),
            format!("{:x}", intrinsics::toeplitz(&bytes, &rss_bytes)),
        );
    }
    let got = harness::run(&driver, &(ops.join("\n") + "\n"));
    harness::compare("intrinsics", &ops, &expected, &got);
    ops.len()
}

fn parse_hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}
