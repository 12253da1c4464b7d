//! Tests of the value grammar: integers, addresses, match values, quantities, error offsets.

use super::*;
use crate::testutil::Rng;

fn n(v: u128) -> BigUint {
    BigUint::from(v)
}

fn kind(r: Result<impl std::fmt::Debug, ValueError>) -> (usize, ValueErrorKind) {
    let e = r.unwrap_err();
    (e.at, e.kind)
}

#[test]
fn integers() {
    assert_eq!(parse_uint("0").unwrap(), n(0));
    assert_eq!(parse_uint("1_000").unwrap(), n(1000));
    assert_eq!(parse_uint("0x2A").unwrap(), n(42));
    assert_eq!(parse_uint("0XdEaD_bEeF").unwrap(), n(0xdead_beef));
    assert_eq!(parse_uint("0b1010").unwrap(), n(10));
    assert_eq!(parse_uint("true").unwrap(), n(1));
    assert_eq!(parse_uint("false").unwrap(), n(0));
    let big = "0x1_0000_0000_0000_0000_0000_0000_0000_0000";
    assert_eq!(parse_uint(big).unwrap(), BigUint::one() << 128);
    let wide = format!("0x{}", "f".repeat(300));
    assert_eq!(parse_uint(&wide).unwrap().bits(), 1200);
}

#[test]
fn integer_errors_have_offsets() {
    assert_eq!(kind(parse_uint("")), (0, ValueErrorKind::Empty));
    assert_eq!(
        kind(parse_uint("12z4")),
        (
            2,
            ValueErrorKind::BadDigit {
                found: 'z',
                radix: "decimal"
            }
        )
    );
    assert_eq!(
        kind(parse_uint("0x12g")),
        (
            4,
            ValueErrorKind::BadDigit {
                found: 'g',
                radix: "hexadecimal"
            }
        )
    );
    assert_eq!(
        kind(parse_uint("0b")),
        (2, ValueErrorKind::NoDigits { prefix: "0b" })
    );
    assert_eq!(kind(parse_uint("0x1*")), (3, ValueErrorKind::Wildcard));
    assert_eq!(
        kind(parse_uint("_1")),
        (
            0,
            ValueErrorKind::BadDigit {
                found: '_',
                radix: "decimal"
            }
        )
    );
    assert_eq!(
        kind(parse_uint("-1")),
        (
            0,
            ValueErrorKind::BadDigit {
                found: '-',
                radix: "decimal"
            }
        )
    );
    let e = parse_uint("0x12g").unwrap_err().to_string();
    assert_eq!(e, "invalid character `g` in a hexadecimal number");
}

#[test]
fn addresses() {
    assert_eq!(parse_uint("10.0.0.1").unwrap(), n(0x0a00_0001));
    assert_eq!(parse_uint("255.255.255.255").unwrap(), n(0xffff_ffff));
    assert_eq!(
        parse_uint("00:11:22:aa:BB:cc").unwrap(),
        n(0x0011_22aa_bbcc)
    );
    assert_eq!(parse_uint("::1").unwrap(), n(1));
    assert_eq!(parse_uint("::").unwrap(), n(0));
    assert_eq!(
        parse_uint("2001:db8::1").unwrap(),
        n(0x2001_0db8_0000_0000_0000_0000_0000_0001)
    );
    assert_eq!(parse_uint("fe80::").unwrap(), n(0xfe80) << 112);
    assert_eq!(parse_uint("::ffff:10.0.0.1").unwrap(), n(0xffff_0a00_0001));
    assert_eq!(
        parse_uint("1:2:3:4:5:6:7:8").unwrap(),
        n(0x0001_0002_0003_0004_0005_0006_0007_0008)
    );
    assert_eq!(
        parse_uint("1:2:3:4:5:6:1.2.3.4").unwrap(),
        n(0x0001_0002_0003_0004_0005_0006_0102_0304)
    );
    for bad in [
        "10.0.0",
        "10.0.0.256",
        "10..0.1",
        "1.2.3.4.5",
        "1:2:3",
        "1::2::3",
        "12345::",
        "1:2:3:4:5:6:7:8::",
        "::1.2.3.4:5",
        "g::1",
        "1:2:3:4:5:6:7:8:9",
    ] {
        let e = parse_uint(bad).unwrap_err();
        assert!(
            matches!(e.kind, ValueErrorKind::BadAddress { .. }),
            "{bad}: {e}"
        );
    }
    let e = parse_uint("10.0.0.256").unwrap_err().to_string();
    assert_eq!(e, "malformed IPv4 address: a part exceeds 255");
}

#[test]
fn match_values() {
    use MatchValue::*;
    assert_eq!(parse_match("_").unwrap(), Any);
    assert_eq!(parse_match("*").unwrap(), Any);
    assert_eq!(parse_match("0x0a").unwrap(), Exact(n(10)));
    assert_eq!(
        parse_match("10.0.0.0/8").unwrap(),
        Lpm {
            value: n(0x0a00_0000),
            prefix_len: 8
        }
    );
    assert_eq!(
        parse_match("0x010a/16").unwrap(),
        Lpm {
            value: n(0x010a),
            prefix_len: 16
        }
    );
    assert_eq!(
        parse_match("2001:db8::/32").unwrap(),
        Lpm {
            value: n(0x2001_0db8) << 96,
            prefix_len: 32
        }
    );
    assert_eq!(
        parse_match("0x****0101").unwrap(),
        Ternary {
            value: n(0x0101),
            mask: n(0x0000_ffff)
        }
    );
    assert_eq!(
        parse_match("0b1*0*").unwrap(),
        Ternary {
            value: n(0b1000),
            mask: n(0b1010)
        }
    );
    assert_eq!(
        parse_match("10.200.0.0&&&255.255.0.0").unwrap(),
        Ternary {
            value: n(0x0ac8_0000),
            mask: n(0xffff_0000)
        }
    );
    assert_eq!(
        parse_match("0x1&&&0xf").unwrap(),
        Ternary {
            value: n(1),
            mask: n(15)
        }
    );
}

#[test]
fn match_ranges() {
    use MatchValue::*;
    assert_eq!(
        parse_match("7000..=7099").unwrap(),
        Range {
            lo: n(7000),
            hi: n(7099)
        }
    );
    assert_eq!(
        parse_match("22->22").unwrap(),
        Range {
            lo: n(22),
            hi: n(22)
        }
    );
    assert_eq!(
        parse_match("7000..7100").unwrap(),
        Range {
            lo: n(7000),
            hi: n(7099)
        }
    );
    assert_eq!(
        parse_match("10.0.0.1..=10.0.0.9").unwrap(),
        Range {
            lo: n(0x0a00_0001),
            hi: n(0x0a00_0009)
        }
    );
}

#[test]
fn match_value_errors() {
    assert_eq!(kind(parse_match("22..22")), (4, ValueErrorKind::EmptyRange));
    assert_eq!(
        kind(parse_match("5->4")),
        (3, ValueErrorKind::ReversedRange)
    );
    assert_eq!(
        kind(parse_match("10.0.0.1/8")),
        (0, ValueErrorKind::HostBits { len: 8 })
    );
    assert_eq!(
        kind(parse_match("10.0.0.0/33")),
        (9, ValueErrorKind::PrefixTooLong { len: 33, bits: 32 })
    );
    assert_eq!(
        kind(parse_match("1/x")),
        (
            2,
            ValueErrorKind::BadDigit {
                found: 'x',
                radix: "decimal"
            }
        )
    );
    assert_eq!(
        kind(parse_match("1/99999999999")),
        (2, ValueErrorKind::TooLarge { bits: 32 })
    );
    assert_eq!(
        kind(parse_match("1&&&0xq")),
        (
            6,
            ValueErrorKind::BadDigit {
                found: 'q',
                radix: "hexadecimal"
            }
        )
    );
    assert_eq!(
        kind(parse_match("0x**g")),
        (
            4,
            ValueErrorKind::BadDigit {
                found: 'g',
                radix: "hexadecimal"
            }
        )
    );
    assert_eq!(kind(parse_match("1..=")), (4, ValueErrorKind::Empty));
    assert_eq!(kind(parse_match("12*")), (2, ValueErrorKind::Wildcard));
}

#[test]
fn quantities() {
    use Dimension::*;
    assert_eq!(parse_quantity("55us", Duration).unwrap(), 55_000);
    assert_eq!(
        parse_quantity("0B", Size).unwrap(),
        0,
        "zero bytes, not a `0B` binary prefix"
    );
    assert_eq!(parse_quantity("0b101", Size).unwrap(), 5);
    assert_eq!(parse_quantity("1.5ms", Duration).unwrap(), 1_500_000);
    assert_eq!(parse_quantity("0.5ms", Duration).unwrap(), 500_000);
    assert_eq!(parse_quantity("1000", Duration).unwrap(), 1000);
    assert_eq!(parse_quantity("2s", Duration).unwrap(), 2_000_000_000);
    assert_eq!(parse_quantity("64KiB", Size).unwrap(), 65_536);
    assert_eq!(parse_quantity("4096B", Size).unwrap(), 4096);
    assert_eq!(parse_quantity("40Mbps", Rate).unwrap(), 40_000_000);
    assert_eq!(parse_quantity("1.25Gbps", Rate).unwrap(), 1_250_000_000);
    assert_eq!(parse_quantity("0x10", Size).unwrap(), 16);
    assert_eq!(
        parse_quantity("18446744073709551615", Size).unwrap(),
        u64::MAX
    );
}

#[test]
fn quantity_errors() {
    use Dimension::*;
    assert_eq!(
        kind(parse_quantity("1.5ns", Duration)),
        (
            0,
            ValueErrorKind::NotWhole {
                base: "nanoseconds"
            }
        )
    );
    let (at, k) = kind(parse_quantity("10mb", Size));
    assert_eq!(at, 2);
    assert!(matches!(
        k,
        ValueErrorKind::UnknownUnit {
            dimension: Some(Size),
            ..
        }
    ));
    assert_eq!(
        parse_quantity("10us", Rate).unwrap_err().to_string(),
        "unknown rate unit `us` (expected one of: bps, Kbps, Mbps, Gbps, Tbps)"
    );
    assert_eq!(
        kind(parse_quantity("20000000TB", Size)),
        (0, ValueErrorKind::TooLarge { bits: 64 })
    );
    assert_eq!(
        kind(parse_quantity("us", Duration)),
        (0, ValueErrorKind::Empty)
    );
    assert_eq!(
        kind(parse_quantity(".5s", Duration)),
        (0, ValueErrorKind::Empty)
    );
}

#[test]
fn scalars() {
    assert_eq!(parse_scalar("50000").unwrap(), 50_000);
    assert_eq!(parse_scalar("40Mbps").unwrap(), 40_000_000);
    assert_eq!(parse_scalar("55us").unwrap(), 55_000);
    assert_eq!(parse_scalar("4KiB").unwrap(), 4096);
    assert_eq!(parse_scalar("0xff").unwrap(), 255);
    assert_eq!(parse_scalar("true").unwrap(), 1);
    assert_eq!(parse_scalar("10.0.0.1").unwrap(), 0x0a00_0001);
    assert_eq!(parse_scalar("aa:bb:cc:dd:ee:ff").unwrap(), 0xaabb_ccdd_eeff);
    assert_eq!(parse_scalar("::1").unwrap(), 1);
    assert!(matches!(
        parse_scalar("::1:0:0:0:0"),
        Err(ValueError {
            kind: ValueErrorKind::TooLarge { bits: 64 },
            ..
        })
    ));
    let (at, k) = kind(parse_scalar("5furlongs"));
    assert_eq!(at, 1);
    assert!(matches!(
        k,
        ValueErrorKind::UnknownUnit {
            dimension: None,
            ..
        }
    ));
}

#[test]
fn random_text_never_panics() {
    let alphabet: Vec<char> = "0123456789abcdefxXbB*_.:/&-=>ABCsuMKiGTp \u{e9}"
        .chars()
        .collect();
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        let len = rng.below(14);
        let s: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for r in [
            parse_match(&s).err(),
            parse_uint(&s).err(),
            parse_scalar(&s).err(),
        ] {
            let Some(e) = r else { continue };
            assert!(e.at <= s.len(), "{s:?}: {e:?}");
            assert!(s.is_char_boundary(e.at), "{s:?}: {e:?}");
        }
        let _ = parse_quantity(&s, Dimension::Duration);
    }
}
