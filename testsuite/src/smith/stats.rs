//! Construct coverage: how many times the generator emitted each construct, by a short name
//! (`stmt.assign.slice-loop`, `scu.table.ternary`, ...), summed over a campaign and printed by
//! `smith --stats`.

use std::collections::BTreeMap;
use std::fmt::Write;

/// Counts of emitted constructs.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    counts: BTreeMap<&'static str, u64>,
}

impl Stats {
    /// Records one use of `construct`.
    pub fn hit(&mut self, construct: &'static str) {
        *self.counts.entry(construct).or_insert(0) += 1;
    }

    /// Adds another program's counts.
    pub fn merge(&mut self, other: &Stats) {
        for (k, v) in &other.counts {
            *self.counts.entry(k).or_insert(0) += v;
        }
    }

    /// How many times `construct` was emitted.
    pub fn count(&self, construct: &str) -> u64 {
        self.counts.get(construct).copied().unwrap_or(0)
    }

    /// Every construct with its count, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.counts.iter().map(|(k, v)| (*k, *v))
    }

    /// The table printed by `--stats`: one construct per line, grouped by prefix.
    pub fn table(&self) -> String {
        let width = self.counts.keys().map(|k| k.len()).max().unwrap_or(0);
        let mut out = String::new();
        let _ = writeln!(out, "{:width$}  count", "construct");
        for (k, v) in &self.counts {
            let _ = writeln!(out, "{k:width$}  {v}");
        }
        out
    }
}
