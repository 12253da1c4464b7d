//! Values written as text in STF files and table-entry JSON: integers, addresses, match values and
//! quantities, plus the table-entry pieces both formats share ([`MatchValue`], [`KeyField`],
//! [`ActionCall`]).
//!
//! Grammar (no spaces inside a value):
//! - integer: decimal `42`, hex `0x2a`, binary `0b101010` (`_` may separate digits; prefixes are
//!   case-insensitive), `true` (1) and `false` (0), or an address (the language's §2.9): IPv4
//!   `10.0.0.1` (32 bits), IPv6 `2001:db8::1` / `::ffff:10.0.0.1` (128 bits), MAC `00:11:22:aa:bb:cc`
//!   (48 bits), read as big-endian numbers. Integers are arbitrary precision ([`BigUint`]).
//! - match value ([`parse_match`]): `_` or `*` (any); `v&&&m` (ternary); a hex or binary number with
//!   `*` digits, each `*` a wildcard nibble or bit (`0x****0101` is value `0x0101`, mask `0x0000ffff`);
//!   `v/len` (longest prefix, `len` bits from the key's most significant end; an address whose bits
//!   beyond the prefix are set, `10.0.0.1/8`, is an error); `lo..=hi` and `lo->hi` (inclusive
//!   range), `lo..hi` (half-open, as in the language: `hi` excluded, so `22..22` is an empty range
//!   and an error); otherwise a single value (exact). Ranges are stored inclusive.
//! - quantity ([`parse_quantity`]): a decimal number, possibly with a fraction, and a unit of the
//!   language (§2.8, case-sensitive): durations `ns us ms s` (base ns), sizes `B KB KiB MB MiB GB
//!   GiB TB TiB` (base bytes), rates `bps Kbps Mbps Gbps Tbps` (base bit/s); without a unit the number
//!   is in base units. The result must be a whole number of base units and fit in 64 bits.
//!
//! Errors are [`ValueError`]s carrying the byte offset within the value text of the problem, so
//! callers can report a precise column.

use num_bigint::BigUint;
use num_traits::{One, Zero};
use scenic_ir::types::Dimension;

/// How one key element of a table entry matches. Widths are unknown here: they come from the
/// program's table when the entry is installed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MatchValue {
    /// Equal to the value.
    Exact(BigUint),
    /// The top `prefix_len` bits (of the key's width) equal those of `value`.
    Lpm {
        /// The value.
        value: BigUint,
        /// The prefix length in bits.
        prefix_len: u32,
    },
    /// `key & mask == value & mask`.
    Ternary {
        /// The value.
        value: BigUint,
        /// The mask.
        mask: BigUint,
    },
    /// `lo <= key <= hi` (`lo <= hi`).
    Range {
        /// The inclusive lower bound.
        lo: BigUint,
        /// The inclusive upper bound.
        hi: BigUint,
    },
    /// Anything.
    Any,
}

/// A named key element and how it matches. Names are the program's key names (`ip.dst`,
/// `vlans$0.vid`); mapping them to a table's keys is the interpreter's job.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyField {
    /// The key name as written.
    pub name: String,
    /// How it matches.
    pub value: MatchValue,
}

/// An action with named arguments, as written in an entry or a default.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActionCall {
    /// The action's name.
    pub name: String,
    /// Its arguments, in the order written.
    pub args: Vec<Arg>,
}

/// A named action argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arg {
    /// The parameter's name.
    pub name: String,
    /// The value (raw bits; `true` is 1).
    pub value: BigUint,
}

/// A malformed value: where in the value's text (a byte offset) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct ValueError {
    /// Byte offset within the value's text.
    pub at: usize,
    /// What is wrong.
    pub kind: ValueErrorKind,
}

/// What is wrong with a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueErrorKind {
    /// Nothing where a value was expected.
    #[error("empty value")]
    Empty,
    /// A character that is not a digit of the number's base.
    #[error("invalid character `{found}` in a {radix} number")]
    BadDigit {
        /// The character.
        found: char,
        /// "decimal", "hexadecimal" or "binary".
        radix: &'static str,
    },
    /// A `0x` or `0b` prefix without digits.
    #[error("`{prefix}` is not followed by any digits")]
    NoDigits {
        /// The prefix.
        prefix: &'static str,
    },
    /// A malformed address.
    #[error("malformed {kind} address: {reason}")]
    BadAddress {
        /// "IPv4", "IPv6" or "MAC".
        kind: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A prefix length beyond the address width.
    #[error("prefix length /{len} is longer than the {bits}-bit address")]
    PrefixTooLong {
        /// The prefix length.
        len: u32,
        /// The address width.
        bits: u32,
    },
    /// An address with bits set after its prefix.
    #[error("the address has bits set beyond its /{len} prefix")]
    HostBits {
        /// The prefix length.
        len: u32,
    },
    /// `lo..hi` with `hi <= lo`.
    #[error("empty range: `..` excludes its upper bound; write `..=` (or `->`) to include it")]
    EmptyRange,
    /// An inclusive range whose bounds are reversed.
    #[error("range bounds are reversed (the lower bound is greater than the upper one)")]
    ReversedRange,
    /// A `*` where no wildcard is allowed.
    #[error("`*` wildcards are only allowed in ternary match values")]
    Wildcard,
    /// A value that does not fit.
    #[error("the value does not fit in {bits} bits")]
    TooLarge {
        /// The available width.
        bits: u32,
    },
    /// An unknown unit.
    #[error("unknown {} unit `{unit}` (expected one of: {})", dimension_name(.dimension), unit_list(.dimension))]
    UnknownUnit {
        /// The unit as written.
        unit: String,
        /// The dimension expected; `None`: any.
        dimension: Option<Dimension>,
    },
    /// A quantity that is not a whole number of base units.
    #[error("not a whole number of {base}")]
    NotWhole {
        /// The base unit: "nanoseconds", "bytes" or "bits per second".
        base: &'static str,
    },
}

/// "duration", "size", "rate", or "quantity" for any, in messages.
fn dimension_name(dim: &Option<Dimension>) -> &'static str {
    dim.map_or("quantity", |d| units(d).1)
}

/// The units of a dimension (of all three for `None`), in messages.
fn unit_list(dim: &Option<Dimension>) -> String {
    let dims = match dim {
        Some(d) => vec![*d],
        None => vec![Dimension::Duration, Dimension::Size, Dimension::Rate],
    };
    let names: Vec<&str> = dims
        .iter()
        .flat_map(|d| units(*d).0.iter().map(|(u, _)| *u))
        .collect();
    names.join(", ")
}

fn err<T>(at: usize, kind: ValueErrorKind) -> Result<T, ValueError> {
    Err(ValueError { at, kind })
}

/// Shifts the offset of an error from a sub-slice starting at `base`.
fn shift(base: usize) -> impl Fn(ValueError) -> ValueError {
    move |e| ValueError {
        at: e.at + base,
        kind: e.kind,
    }
}

/// Parses an integer or address; see the [module documentation](self).
pub fn parse_uint(text: &str) -> Result<BigUint, ValueError> {
    parse_uint_width(text).map(|(v, _)| v)
}

/// Parses an integer or address, with the width an address implies (32, 128 or 48 bits).
fn parse_uint_width(text: &str) -> Result<(BigUint, Option<u32>), ValueError> {
    match text {
        "" => return err(0, ValueErrorKind::Empty),
        "true" => return Ok((BigUint::one(), None)),
        "false" => return Ok((BigUint::zero(), None)),
        _ => {}
    }
    if let Some((prefix, radix, digits)) = radix_prefix(text) {
        return digits_value(digits, radix, prefix)
            .map(|v| (v, None))
            .map_err(shift(2));
    }
    if text.contains(':') {
        if let Some(mac) = parse_mac(text) {
            return Ok((BigUint::from(mac), Some(48)));
        }
        let v6 = parse_ipv6(text).or_else(|reason| err(0, bad_address("IPv6", reason)))?;
        return Ok((BigUint::from(v6), Some(128)));
    }
    if text.contains('.') {
        let v4 = parse_ipv4(text).or_else(|reason| err(0, bad_address("IPv4", reason)))?;
        return Ok((BigUint::from(v4), Some(32)));
    }
    digits_value(text, 10, "").map(|v| (v, None))
}

fn bad_address(kind: &'static str, reason: &'static str) -> ValueErrorKind {
    ValueErrorKind::BadAddress { kind, reason }
}

/// Splits `0x…` / `0b…` into (prefix, radix, digits).
fn radix_prefix(text: &str) -> Option<(&'static str, u32, &str)> {
    let (head, digits) = (text.get(..2)?, &text[2..]);
    match head {
        "0x" | "0X" => Some(("0x", 16, digits)),
        "0b" | "0B" => Some(("0b", 2, digits)),
        _ => None,
    }
}

fn radix_name(radix: u32) -> &'static str {
    match radix {
        16 => "hexadecimal",
        2 => "binary",
        _ => "decimal",
    }
}

/// The value of `digits` in `radix`, with `_` separators (not first).
fn digits_value(digits: &str, radix: u32, prefix: &'static str) -> Result<BigUint, ValueError> {
    if digits.is_empty() {
        return err(0, ValueErrorKind::NoDigits { prefix });
    }
    let mut clean = Vec::with_capacity(digits.len());
    for (i, c) in digits.char_indices() {
        if c == '_' && i > 0 {
            continue;
        }
        if c == '*' {
            return err(i, ValueErrorKind::Wildcard);
        }
        if !c.is_digit(radix) {
            let radix = radix_name(radix);
            return err(i, ValueErrorKind::BadDigit { found: c, radix });
        }
        clean.push(c as u8);
    }
    // Every byte is a valid digit, so parsing cannot fail; the fallback is unreachable.
    Ok(BigUint::parse_bytes(&clean, radix).unwrap_or_default())
}

/// Parses a dotted-quad IPv4 address.
fn parse_ipv4(text: &str) -> Result<u32, &'static str> {
    let mut value = 0u32;
    let mut parts = 0;
    for part in text.split('.') {
        parts += 1;
        if parts > 4 {
            return Err("more than four parts");
        }
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err("each part must be 1 to 3 decimal digits");
        }
        let octet: u32 = part.parse().map_err(|_| "bad part")?;
        if octet > 255 {
            return Err("a part exceeds 255");
        }
        value = (value << 8) | octet;
    }
    if parts != 4 {
        return Err("expected four parts");
    }
    Ok(value)
}

/// Parses a MAC address (six two-digit hex groups separated by `:`), or `None` if not that shape.
fn parse_mac(text: &str) -> Option<u64> {
    let groups: Vec<&str> = text.split(':').collect();
    if groups.len() != 6 || groups.iter().any(|g| g.len() != 2) {
        return None;
    }
    groups.iter().try_fold(0u64, |acc, g| {
        Some((acc << 8) | u64::from(u8::from_str_radix(g, 16).ok()?))
    })
}

/// Parses the colon-separated groups of one side of an IPv6 `::` (an IPv4 tail allowed if `last`).
fn ipv6_groups(text: &str, last: bool) -> Result<Vec<u16>, &'static str> {
    let mut groups = Vec::new();
    if text.is_empty() {
        return Ok(groups);
    }
    let parts: Vec<&str> = text.split(':').collect();
    for (i, part) in parts.iter().enumerate() {
        if last && i + 1 == parts.len() && part.contains('.') {
            let v4 = parse_ipv4(part).map_err(|_| "bad embedded IPv4 address")?;
            groups.extend([(v4 >> 16) as u16, v4 as u16]);
        } else if part.is_empty() || part.len() > 4 {
            return Err("each group must be 1 to 4 hexadecimal digits");
        } else {
            groups.push(u16::from_str_radix(part, 16).map_err(|_| "invalid hexadecimal digit")?);
        }
    }
    Ok(groups)
}

/// Parses an IPv6 address.
fn parse_ipv6(text: &str) -> Result<u128, &'static str> {
    let groups = match text.split_once("::") {
        None => {
            let g = ipv6_groups(text, true)?;
            if g.len() != 8 {
                return Err("expected eight groups (or `::`)");
            }
            g
        }
        Some((head, tail)) => {
            if tail.contains("::") {
                return Err("`::` may appear only once");
            }
            let head = ipv6_groups(head, false)?;
            let tail = ipv6_groups(tail, true)?;
            if head.len() + tail.len() > 7 {
                return Err("too many groups");
            }
            let zeros = 8 - head.len() - tail.len();
            [head, vec![0; zeros], tail].concat()
        }
    };
    Ok(groups
        .iter()
        .fold(0u128, |acc, g| (acc << 16) | u128::from(*g)))
}

/// Parses a match value; see the [module documentation](self).
pub fn parse_match(text: &str) -> Result<MatchValue, ValueError> {
    if text == "_" || text == "*" {
        return Ok(MatchValue::Any);
    }
    if let Some((value, mask)) = text.split_once("&&&") {
        let value = parse_uint(value)?;
        let mask = parse_uint(mask).map_err(shift(text.len() - mask.len()))?;
        return Ok(MatchValue::Ternary { value, mask });
    }
    if let Some(range) = parse_range(text)? {
        return Ok(range);
    }
    if let Some((value, len)) = text.rsplit_once('/') {
        return parse_prefix(value, len);
    }
    if let Some((prefix, radix, digits)) = radix_prefix(text) {
        if digits.contains('*') {
            return wildcard_ternary(digits, radix, prefix).map_err(shift(2));
        }
    }
    parse_uint(text).map(MatchValue::Exact)
}

/// Parses `lo..=hi`, `lo->hi` or `lo..hi`; `None` if `text` has none of the separators.
fn parse_range(text: &str) -> Result<Option<MatchValue>, ValueError> {
    let (lo, hi, inclusive, hi_at) = if let Some((lo, hi)) = text.split_once("->") {
        (lo, hi, true, lo.len() + 2)
    } else if let Some((lo, hi)) = text.split_once("..") {
        match hi.strip_prefix('=') {
            Some(hi) => (lo, hi, true, lo.len() + 3),
            None => (lo, hi, false, lo.len() + 2),
        }
    } else {
        return Ok(None);
    };
    let lo_v = parse_uint(lo)?;
    let mut hi_v = parse_uint(hi).map_err(shift(hi_at))?;
    if !inclusive {
        if hi_v <= lo_v {
            return err(hi_at, ValueErrorKind::EmptyRange);
        }
        hi_v -= 1u32;
    }
    if lo_v > hi_v {
        return err(hi_at, ValueErrorKind::ReversedRange);
    }
    Ok(Some(MatchValue::Range { lo: lo_v, hi: hi_v }))
}

/// Parses `value/len`.
fn parse_prefix(value: &str, len: &str) -> Result<MatchValue, ValueError> {
    let len_at = value.len() + 1;
    let (v, width) = parse_uint_width(value)?;
    let prefix_len = digits_value(len, 10, "")
        .map_err(shift(len_at))
        .and_then(|n| {
            u32::try_from(n).or_else(|_| err(len_at, ValueErrorKind::TooLarge { bits: 32 }))
        })?;
    if let Some(bits) = width {
        if prefix_len > bits {
            return err(
                len_at,
                ValueErrorKind::PrefixTooLong {
                    len: prefix_len,
                    bits,
                },
            );
        }
        let host_bits = (BigUint::one() << (bits - prefix_len)) - 1u32;
        if !(&v & &host_bits).is_zero() {
            return err(0, ValueErrorKind::HostBits { len: prefix_len });
        }
    }
    Ok(MatchValue::Lpm {
        value: v,
        prefix_len,
    })
}

/// Parses hex or binary digits with `*` wildcards into a ternary value and mask.
fn wildcard_ternary(
    digits: &str,
    radix: u32,
    prefix: &'static str,
) -> Result<MatchValue, ValueError> {
    let (bits, full) = if radix == 16 { (4, 0xfu32) } else { (1, 1u32) };
    let mut value = BigUint::zero();
    let mut mask = BigUint::zero();
    let mut any = false;
    for (i, c) in digits.char_indices() {
        if c == '_' && i > 0 {
            continue;
        }
        let (v, m) = match c {
            '*' => (0, 0),
            c => match c.to_digit(radix) {
                Some(d) => (d, full),
                None => {
                    return err(
                        i,
                        ValueErrorKind::BadDigit {
                            found: c,
                            radix: radix_name(radix),
                        },
                    )
                }
            },
        };
        value = (value << bits) + v;
        mask = (mask << bits) + m;
        any = true;
    }
    if !any {
        return err(0, ValueErrorKind::NoDigits { prefix });
    }
    Ok(MatchValue::Ternary { value, mask })
}

const DURATION_UNITS: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
];
const SIZE_UNITS: &[(&str, u64)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("KiB", 1 << 10),
    ("MB", 1_000_000),
    ("MiB", 1 << 20),
    ("GB", 1_000_000_000),
    ("GiB", 1 << 30),
    ("TB", 1_000_000_000_000),
    ("TiB", 1 << 40),
];
const RATE_UNITS: &[(&str, u64)] = &[
    ("bps", 1),
    ("Kbps", 1_000),
    ("Mbps", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Tbps", 1_000_000_000_000),
];

/// The units of a dimension, its name and the base unit's name.
fn units(dim: Dimension) -> (&'static [(&'static str, u64)], &'static str, &'static str) {
    match dim {
        Dimension::Duration => (DURATION_UNITS, "duration", "nanoseconds"),
        Dimension::Size => (SIZE_UNITS, "size", "bytes"),
        Dimension::Rate => (RATE_UNITS, "rate", "bits per second"),
    }
}

/// Splits a quantity into its number and its unit (the unit starts at the first letter).
fn split_unit(text: &str) -> (&str, &str) {
    let at = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    text.split_at(at)
}

/// Parses a quantity of the given dimension into base units; see the [module documentation](self).
/// A hexadecimal or binary integer (no unit) is also accepted; `0B` alone is zero bytes, not a
/// binary prefix without digits.
pub fn parse_quantity(text: &str, dim: Dimension) -> Result<u64, ValueError> {
    if radix_prefix(text).is_some_and(|(_, _, digits)| !digits.is_empty()) {
        return to_u64(parse_uint(text)?, 0);
    }
    let (number, unit) = split_unit(text);
    let (table, _, base) = units(dim);
    let factor = if unit.is_empty() {
        1
    } else {
        let found = table.iter().find(|(u, _)| *u == unit);
        match found {
            Some((_, f)) => *f,
            None => {
                let unit = unit.to_string();
                let kind = ValueErrorKind::UnknownUnit {
                    unit,
                    dimension: Some(dim),
                };
                return err(number.len(), kind);
            }
        }
    };
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() {
        return err(0, ValueErrorKind::Empty);
    }
    let mantissa = digits_value(&format!("{int}{frac}"), 10, "")?;
    let scale = BigUint::from(10u32).pow(frac.len() as u32);
    let scaled = mantissa * factor;
    if !(&scaled % &scale).is_zero() {
        return err(0, ValueErrorKind::NotWhole { base });
    }
    to_u64(scaled / scale, 0)
}

/// Parses a 64-bit scalar: an integer or address, or a quantity of any dimension (the unit tells
/// which), as CSR values are written.
pub fn parse_scalar(text: &str) -> Result<u64, ValueError> {
    let (number, unit) = split_unit(text);
    let is_quantity = !unit.is_empty()
        && number.starts_with(|c: char| c.is_ascii_digit())
        && radix_prefix(text).is_none()
        && !text.contains(':');
    if is_quantity {
        for dim in [Dimension::Duration, Dimension::Size, Dimension::Rate] {
            if units(dim).0.iter().any(|(u, _)| *u == unit) {
                return parse_quantity(text, dim);
            }
        }
        let unit = unit.to_string();
        let kind = ValueErrorKind::UnknownUnit {
            unit,
            dimension: None,
        };
        return err(number.len(), kind);
    }
    to_u64(parse_uint(text)?, 0)
}

/// Narrows to `u64`, or a [`ValueErrorKind::TooLarge`] error at `at`.
pub(crate) fn to_u64(v: BigUint, at: usize) -> Result<u64, ValueError> {
    u64::try_from(&v).or_else(|_| err(at, ValueErrorKind::TooLarge { bits: 64 }))
}

#[cfg(test)]
mod tests;
