//! Literals: integers, decimals, quantities with units, addresses, and the `bad_num` mistakes.

use super::{span_of, Builder, Rule};
use crate::ast::{ExprKind, Literal, Quantity, UnitKind};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use num_bigint::BigUint;
use num_rational::BigRational;
use num_traits::ToPrimitive;
use pest::iterators::Pair;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// A unit suffix: its dimension and its factor to the base unit (ns, bytes, bit/s).
pub(crate) fn unit_info(unit: &str) -> Option<(UnitKind, u128)> {
    Some(match unit {
        "ns" => (UnitKind::Duration, 1),
        "us" => (UnitKind::Duration, 1_000),
        "ms" => (UnitKind::Duration, 1_000_000),
        "s" => (UnitKind::Duration, 1_000_000_000),
        "B" => (UnitKind::Size, 1),
        "KB" => (UnitKind::Size, 1_000),
        "MB" => (UnitKind::Size, 1_000_000),
        "GB" => (UnitKind::Size, 1_000_000_000),
        "TB" => (UnitKind::Size, 1_000_000_000_000),
        "KiB" => (UnitKind::Size, 1 << 10),
        "MiB" => (UnitKind::Size, 1 << 20),
        "GiB" => (UnitKind::Size, 1 << 30),
        "TiB" => (UnitKind::Size, 1 << 40),
        "bps" => (UnitKind::Rate, 1),
        "Kbps" => (UnitKind::Rate, 1_000),
        "Mbps" => (UnitKind::Rate, 1_000_000),
        "Gbps" => (UnitKind::Rate, 1_000_000_000),
        "Tbps" => (UnitKind::Rate, 1_000_000_000_000),
        _ => return None,
    })
}

const UNITS: &[&str] = &[
    "ns", "us", "ms", "s", "B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "bps", "Kbps",
    "Mbps", "Gbps", "Tbps",
];

/// Parses an integer's digits (with `_` separators) in the given radix.
pub(crate) fn parse_int_digits(text: &str) -> Option<BigUint> {
    let (digits, radix) = if let Some(rest) = text.strip_prefix("0x") {
        (rest, 16)
    } else if let Some(rest) = text.strip_prefix("0b") {
        (rest, 2)
    } else if let Some(rest) = text.strip_prefix("0o") {
        (rest, 8)
    } else {
        (text, 10)
    };
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    BigUint::parse_bytes(clean.as_bytes(), radix)
}

/// A decimal such as `12.5` as an exact rational.
fn parse_decimal(text: &str) -> Option<BigRational> {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let (whole, frac) = clean.split_once('.').unwrap_or((&clean, ""));
    let scale = num_traits::pow(BigUint::from(10u32), frac.len());
    let numer = BigUint::parse_bytes(format!("{whole}{frac}").as_bytes(), 10)?;
    Some(BigRational::new(numer.into(), scale.into()))
}

impl<'t> Builder<'t> {
    /// A literal pair (any of the `literal` alternatives) as an expression kind.
    pub(crate) fn literal(&mut self, pair: Pair<'t, Rule>) -> ExprKind {
        let span = span_of(&pair);
        let text = pair.as_str();
        let lit = match pair.as_rule() {
            Rule::int_lit => parse_int_digits(text).map(Literal::Int),
            Rule::decimal_lit => parse_decimal(text).map(Literal::Decimal),
            Rule::bool_lit => Some(Literal::Bool(text == "true")),
            Rule::quantity_lit => self.quantity(pair, span),
            Rule::ipv4_lit => self.ipv4(text, span),
            Rule::ipv6_lit => self.ipv6(text, span),
            Rule::mac_lit => parse_mac(text).map(Literal::Mac),
            Rule::bad_num => {
                self.bad_number(text, span);
                return ExprKind::Error;
            }
            _ => None,
        };
        match lit {
            Some(lit) => ExprKind::Lit(lit),
            None => {
                if !self
                    .diags
                    .iter()
                    .any(|d| d.primary_loc() == Some(crate::diag::Loc::Here(span)))
                {
                    self.diags.push(
                        Diagnostic::new(codes::E0002, span, format!("malformed literal `{text}`"))
                            .label("cannot read this literal"),
                    );
                }
                ExprKind::Error
            }
        }
    }

    fn quantity(&mut self, pair: Pair<'t, Rule>, span: Span) -> Option<Literal> {
        let mut parts = pair.into_inner();
        let number = parts.next()?.as_str();
        let unit_text = parts.next()?.as_str();
        let (unit, factor) = unit_info(unit_text)?;
        let value =
            parse_decimal(number)? * BigRational::from_integer(BigUint::from(factor).into());
        if !value.is_integer() {
            let base = match unit {
                UnitKind::Duration => "nanoseconds",
                UnitKind::Size => "bytes",
                UnitKind::Rate => "bits per second",
            };
            self.diags.push(
                Diagnostic::new(
                    codes::E0012,
                    span,
                    format!("`{number}{unit_text}` is not a whole number of {base}"),
                )
                .label(format!("this is {} {base}", fmt_rational(&value)))
                .help(format!(
                    "quantities are stored in {base}; use a smaller unit or a rounder number"
                )),
            );
            return None;
        }
        let Some(value) = value.to_integer().to_u128() else {
            self.diags.push(
                Diagnostic::new(
                    codes::E0203,
                    span,
                    format!("`{number}{unit_text}` is too large"),
                )
                .label("does not fit in 128 bits of base units"),
            );
            return None;
        };
        Some(Literal::Quantity(Quantity { value, unit }))
    }

    fn ipv4(&mut self, text: &str, span: Span) -> Option<Literal> {
        let (addr_text, prefix_text) = split_prefix(text);
        let Ok(addr) = Ipv4Addr::from_str(addr_text) else {
            self.address_error(
                text,
                span,
                "an IPv4 address has four decimal octets from 0 to 255, without leading zeros",
            );
            return None;
        };
        let prefix = self.prefix(prefix_text, 32, span)?;
        Some(Literal::Ipv4 {
            addr: u32::from(addr),
            prefix,
        })
    }

    fn ipv6(&mut self, text: &str, span: Span) -> Option<Literal> {
        let (addr_text, prefix_text) = split_prefix(text);
        let Ok(addr) = Ipv6Addr::from_str(addr_text) else {
            self.address_error(
                text,
                span,
                "an IPv6 address has eight 16-bit hex groups, or fewer with one `::`",
            );
            return None;
        };
        let prefix = self.prefix(prefix_text, 128, span)?;
        Some(Literal::Ipv6 {
            addr: u128::from(addr),
            prefix,
        })
    }

    /// `Some(None)` without a prefix, `Some(Some(len))` with a valid one, `None` after an error.
    fn prefix(&mut self, prefix_text: Option<&str>, max: u32, span: Span) -> Option<Option<u8>> {
        let Some(text) = prefix_text else {
            return Some(None);
        };
        match text.parse::<u32>() {
            Ok(len) if len <= max => Some(Some(len as u8)),
            _ => {
                self.diags.push(
                    Diagnostic::new(
                        codes::E0003,
                        span,
                        format!("prefix length `/{text}` is longer than the address"),
                    )
                    .label(format!("at most /{max} for this address")),
                );
                None
            }
        }
    }

    fn address_error(&mut self, text: &str, span: Span, note: &str) {
        self.diags.push(
            Diagnostic::new(codes::E0003, span, format!("malformed address `{text}`"))
                .label("not a valid address")
                .note(note.to_string()),
        );
    }

    /// `bad_num`: a number followed by letters or dots that make no literal.
    fn bad_number(&mut self, text: &str, span: Span) {
        let digits_end = text
            .find(|c: char| !(c.is_ascii_digit() || c == '_' || c == '.'))
            .unwrap_or(text.len());
        let (number, suffix) = text.split_at(digits_end);
        let diag = if let Some(unit) = similar_unit(suffix) {
            let (kind, _) = unit_info(unit).map_or((UnitKind::Size, 0), |u| u);
            Diagnostic::new(codes::E0004, span, format!("unknown unit `{suffix}`"))
                .label("not a unit")
                .help(format!(
                    "units are case-sensitive: did you mean `{number}{unit}` (a {})?",
                    kind.type_name()
                ))
        } else if suffix.starts_with(['u', 'i', 'w', 's'])
            && suffix[1..].chars().all(|c| c.is_ascii_digit())
            && suffix.len() > 1
        {
            Diagnostic::new(codes::E0002, span, format!("integer literals have no width suffix: `{text}`"))
                .label("width suffix")
                .help(format!("an integer literal takes its width from context; write `{number} as bit<{}>` to give one", &suffix[1..]))
        } else if text.starts_with("0x") || text.starts_with("0b") || text.starts_with("0o") {
            Diagnostic::new(codes::E0002, span, format!("malformed number `{text}`"))
                .label("invalid digit for this base")
                .note("`0x` takes digits 0-9 and a-f, `0b` takes 0 and 1, `0o` takes 0-7; `_` may separate digits")
        } else if !suffix.is_empty()
            && suffix
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
        {
            Diagnostic::new(codes::E0002, span, format!("malformed number `{text}`"))
                .label("a number cannot be followed by letters")
                .note(format!("the known units are {}", UNITS.join(", ")))
        } else {
            Diagnostic::new(codes::E0002, span, format!("malformed number `{text}`"))
                .label("not a number, a decimal or an address")
                .note("decimals have one `.` (`0.5`); IPv4 addresses have four octets (`10.0.0.1`)")
        };
        self.diags.push(diag);
    }
}

/// A known unit that `suffix` spells with the wrong case (`mb` → `MB`, `Mb` → `MB`, `gbps` → `Gbps`).
fn similar_unit(suffix: &str) -> Option<&'static str> {
    if suffix.is_empty() {
        return None;
    }
    UNITS
        .iter()
        .copied()
        .find(|unit| unit.eq_ignore_ascii_case(suffix))
        .or(match suffix {
            "Mb" | "mb" => Some("MB"),
            "Kb" | "kb" => Some("KB"),
            "Gb" | "gb" => Some("GB"),
            "sec" | "secs" => Some("s"),
            "msec" => Some("ms"),
            "usec" | "µs" => Some("us"),
            "nsec" => Some("ns"),
            _ => None,
        })
}

fn split_prefix(text: &str) -> (&str, Option<&str>) {
    match text.split_once('/') {
        Some((addr, prefix)) => (addr, Some(prefix)),
        None => (text, None),
    }
}

fn parse_mac(text: &str) -> Option<u64> {
    let mut value = 0u64;
    for group in text.split(':') {
        value = (value << 8) | u64::from_str_radix(group, 16).ok()?;
    }
    Some(value)
}

/// A rational as a decimal for messages (at most 6 fraction digits).
pub fn fmt_rational(value: &BigRational) -> String {
    if value.is_integer() {
        return value.to_integer().to_string();
    }
    // Round to 6 fraction digits, then drop trailing zeros.
    let scale = BigRational::from_integer(1_000_000.into());
    let scaled = (value * &scale).round().to_integer();
    let negative = scaled < 0.into();
    let magnitude = if negative { -scaled } else { scaled };
    let whole = &magnitude / 1_000_000;
    let frac = &magnitude % 1_000_000;
    let frac_text = format!("{frac:0>6}");
    let frac_text = frac_text.trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    if frac_text.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac_text}")
    }
}
