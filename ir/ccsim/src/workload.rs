//! Flow-size distributions and Poisson arrivals, for `[[workload]]` tables (the long/short flow
//! mixes of the DCTCP, pFabric and HPCC evaluations; [`crate::scenario`] reads the tables).
//!
//! A [`Cdf`] is a list of (size in bytes, cumulative probability) points, read from a CSV file
//! (`size_bytes,cdf` lines, `#` comments) or one of the two shipped with the repository
//! (`examples/scenarios/cdf/`, compiled in: `websearch`, `datamining`). Sizes are drawn by inverse
//! CDF with linear interpolation between the points: for a uniform u in [0, 1), the first point
//! whose probability reaches u and the one before it bound the size, interpolated linearly in u;
//! below the first point's probability the size is the first point's.
//!
//! Arrivals: exponential gaps with mean `mean_size / (load × payload capacity)`, where the payload
//! capacity is the bottleneck rate × mtu / (mtu + header), so the offered load is `load` of the
//! bottleneck; `flows = N` draws N flows, `until = T` draws until an arrival falls at or after T.
//! The generator is [`crate::event::Rng`]; the scenario seeds it with the workload's `seed`
//! (default: the scenario's) mixed with the workload's index, so one file gives one list of flows
//! whatever the `--seed` (which drives RED marking only).
//!
//! Invariants of a [`Cdf`]: at least two points; sizes and probabilities non-decreasing;
//! probabilities in [0, 1], the last one 1.

use crate::event::Rng;

/// A flow-size distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    points: Vec<(f64, f64)>,
}

const WEBSEARCH: &str = include_str!("../../../examples/scenarios/cdf/websearch.csv");
const DATAMINING: &str = include_str!("../../../examples/scenarios/cdf/datamining.csv");

impl Cdf {
    /// The shipped distribution `name` (`websearch`, `datamining`).
    pub fn builtin(name: &str) -> Option<Cdf> {
        let text = match name {
            "websearch" => WEBSEARCH,
            "datamining" => DATAMINING,
            _ => return None,
        };
        Cdf::parse(text).ok()
    }

    /// Reads `size_bytes,cdf` lines (`#` comments, blank lines and a header line are skipped).
    /// An error names the 1-based line.
    pub fn parse(text: &str) -> Result<Cdf, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() || line.starts_with(|c: char| c.is_ascii_alphabetic()) {
                continue;
            }
            let mut cols = line.split([',', ' ', '\t']).filter(|c| !c.is_empty());
            let bad = || format!("line {}: expected `size_bytes,cdf`, found `{line}`", i + 1);
            let (Some(size), Some(p), None) = (cols.next(), cols.next(), cols.next()) else {
                return Err(bad());
            };
            let (Ok(size), Ok(p)) = (size.parse::<f64>(), p.parse::<f64>()) else {
                return Err(bad());
            };
            let at = |msg: &str| format!("line {}: {msg}", i + 1);
            if !(size.is_finite() && size >= 0.0) {
                return Err(at("a size is a non-negative number of bytes"));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(at("a cumulative probability is between 0 and 1"));
            }
            if let Some(&(s0, p0)) = points.last() {
                if size < s0 || p < p0 {
                    return Err(at("sizes and probabilities must not decrease"));
                }
            }
            points.push((size, p));
        }
        if points.len() < 2 {
            return Err("a CDF needs at least two points".into());
        }
        if points.last().is_some_and(|&(_, p)| p != 1.0) {
            return Err("the last point's probability must be 1".into());
        }
        Ok(Cdf { points })
    }

    /// The size (bytes, at least 1) at cumulative probability `u` in [0, 1).
    pub fn sample(&self, u: f64) -> u64 {
        let i = self.points.partition_point(|&(_, p)| p < u);
        let size = match (i.checked_sub(1), self.points.get(i)) {
            (Some(prev), Some(&(s1, p1))) => {
                let (s0, p0) = self.points[prev];
                if p1 > p0 {
                    s0 + (s1 - s0) * (u - p0) / (p1 - p0)
                } else {
                    s1
                }
            }
            (None, Some(&(s, _))) => s,
            (_, None) => self.points.last().map_or(1.0, |&(s, _)| s),
        };
        (size.round() as u64).max(1)
    }

    /// The mean size of the interpolated distribution (bytes): the first point's probability at
    /// its size, then each segment's probability at its midpoint.
    pub fn mean(&self) -> f64 {
        let (s0, p0) = self.points[0];
        let mut mean = s0 * p0;
        for pair in self.points.windows(2) {
            let ((sa, pa), (sb, pb)) = (pair[0], pair[1]);
            mean += (pb - pa) * (sa + sb) / 2.0;
        }
        mean
    }
}

/// Poisson arrivals from `start` (ps) with exponential gaps of mean `mean_gap_ps`, each with a
/// size drawn from `cdf`: `(start, size)` pairs, at most `count` of them, all before `until`.
pub fn arrivals(
    cdf: &Cdf,
    rng: &mut Rng,
    mean_gap_ps: f64,
    start: u64,
    count: usize,
    until: u64,
) -> Vec<(u64, u64)> {
    let mut at = start as f64;
    let mut out = Vec::new();
    while out.len() < count {
        at += -(1.0 - rng.uniform()).ln() * mean_gap_ps;
        if at >= until as f64 {
            break;
        }
        out.push((at as u64, cdf.sample(rng.uniform())));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_cdf_interpolates_between_points() {
        let cdf = match Cdf::parse("# c\nsize_bytes,cdf\n100,0.5\n300,1\n") {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(cdf.sample(0.2), 100); // below the first point's probability
        assert_eq!(cdf.sample(0.75), 200); // halfway between the points
        assert_eq!(cdf.mean(), 0.5 * 100.0 + 0.5 * 200.0);
        assert!(Cdf::parse("1,0.5\n0,1\n").is_err_and(|e| e.contains("line 2")));
        assert!(Cdf::parse("1,0\n2,0.9\n").is_err_and(|e| e.contains("must be 1")));
        assert!(Cdf::builtin("websearch").is_some() && Cdf::builtin("datamining").is_some());
    }
}
