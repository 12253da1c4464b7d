//! Quantities in scenario files: durations, sizes and rates written with the language's units
//! (`"55us"`, `"4MiB"`, `"200Gbps"`, docs/language.md §2.8), plus `ps` for durations, since the
//! simulator keeps time in picoseconds.
//!
//! Invariants: a parsed quantity is a whole number of base units (ps, bytes, bit/s) that fits in
//! 64 bits; a decimal (`"1.5ms"`) is accepted only when it is exact in the base unit; a negative
//! number is refused with a message that says so. Errors raised here are serde custom errors, so
//! the TOML reader attaches the value's span to them.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// The kind of a quantity, naming its units in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Picoseconds.
    Duration,
    /// Bytes.
    Size,
    /// Bits per second.
    Rate,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Duration => "duration",
            Kind::Size => "size",
            Kind::Rate => "rate",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Kind::Duration => "\"55us\" (units ps, ns, us, ms, s)",
            Kind::Size => "\"4MiB\" (units B, KB, KiB, MB, MiB, GB, GiB, TB, TiB)",
            Kind::Rate => "\"200Gbps\" (units bps, Kbps, Mbps, Gbps, Tbps)",
        }
    }

    fn factor(self, unit: &str) -> Option<u128> {
        let f: u128 = match (self, unit) {
            (Kind::Duration, "ps") => 1,
            (Kind::Duration, "ns") => 1_000,
            (Kind::Duration, "us") => 1_000_000,
            (Kind::Duration, "ms") => 1_000_000_000,
            (Kind::Duration, "s") => 1_000_000_000_000,
            (Kind::Size, "B") => 1,
            (Kind::Size, "KB") => 1_000,
            (Kind::Size, "KiB") => 1 << 10,
            (Kind::Size, "MB") => 1_000_000,
            (Kind::Size, "MiB") => 1 << 20,
            (Kind::Size, "GB") => 1_000_000_000,
            (Kind::Size, "GiB") => 1 << 30,
            (Kind::Size, "TB") => 1_000_000_000_000,
            (Kind::Size, "TiB") => 1 << 40,
            (Kind::Rate, "bps") => 1,
            (Kind::Rate, "Kbps") => 1_000,
            (Kind::Rate, "Mbps") => 1_000_000,
            (Kind::Rate, "Gbps") => 1_000_000_000,
            (Kind::Rate, "Tbps") => 1_000_000_000_000,
            _ => return None,
        };
        Some(f)
    }
}

/// Parses `text` as a quantity of `kind` into base units (ps, bytes, bit/s).
pub fn parse(kind: Kind, text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.starts_with('-') {
        return Err(format!("a {} cannot be negative: `{text}`", kind.name()));
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let Some(factor) = kind.factor(unit) else {
        return Err(format!(
            "`{text}` is not a {}: write it like {}",
            kind.name(),
            kind.example()
        ));
    };
    let number: String = number.chars().filter(|c| *c != '_').collect();
    let (whole, frac) = match number.split_once('.') {
        Some((w, f)) => (w, f),
        None => (number.as_str(), ""),
    };
    if whole.is_empty() || frac.contains('.') {
        return Err(format!("`{text}` is not a number followed by a unit"));
    }
    let too_big = || format!("`{text}` does not fit in 64 bits of base units");
    let mut value: u128 = whole.parse::<u128>().map_err(|_| too_big())? * factor;
    let mut scale = factor;
    for digit in frac.chars() {
        let d = u128::from(digit.to_digit(10).unwrap_or(0));
        if scale % 10 != 0 {
            if d == 0 {
                continue;
            }
            return Err(format!(
                "`{text}` is not a whole number of {}",
                base_unit(kind)
            ));
        }
        scale /= 10;
        value += d * scale;
    }
    u64::try_from(value).map_err(|_| too_big())
}

fn base_unit(kind: Kind) -> &'static str {
    match kind {
        Kind::Duration => "picoseconds",
        Kind::Size => "bytes",
        Kind::Rate => "bit/s",
    }
}

macro_rules! quantity {
    ($name:ident, $kind:expr, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(pub u64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor($kind)).map($name)
            }
        }
    };
}

quantity!(Duration, Kind::Duration, "A duration in picoseconds.");
quantity!(
    Size,
    Kind::Size,
    "A size in bytes (a bare integer is bytes too)."
);
quantity!(Rate, Kind::Rate, "A rate in bit/s.");

struct QuantityVisitor(Kind);

impl Visitor<'_> for QuantityVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} like {}", self.0.name(), self.0.example())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        parse(self.0, v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        match (self.0, u64::try_from(v)) {
            (_, Err(_)) => Err(E::custom(format!(
                "a {} cannot be negative: {v}",
                self.0.name()
            ))),
            (Kind::Size, Ok(v)) => Ok(v),
            (Kind::Duration | Kind::Rate, Ok(_)) => Err(E::custom(format!(
                "a bare number is not a {}: write it with a unit, like {}",
                self.0.name(),
                self.0.example()
            ))),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        if v < 0.0 {
            return Err(E::custom(format!(
                "a {} cannot be negative: {v}",
                self.0.name()
            )));
        }
        Err(E::custom(format!(
            "write the {} as a string with a unit, like {}",
            self.0.name(),
            self.0.example()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_decimals() {
        assert_eq!(parse(Kind::Duration, "55us"), Ok(55_000_000));
        assert_eq!(parse(Kind::Duration, "1.5ms"), Ok(1_500_000_000));
        assert_eq!(parse(Kind::Size, "4MiB"), Ok(4 << 20));
        assert_eq!(parse(Kind::Rate, "200Gbps"), Ok(200_000_000_000));
        assert_eq!(parse(Kind::Rate, "2.5Gbps"), Ok(2_500_000_000));
        assert!(parse(Kind::Rate, "-5Gbps").is_err_and(|e| e.contains("negative")));
        assert!(parse(Kind::Size, "1.5B").is_err());
        assert!(parse(Kind::Rate, "5GB").is_err());
        assert!(parse(Kind::Duration, "99999999999s").is_err());
    }
}
