//! Construct coverage: how many times the generator emitted each construct, by a short name
//! (`stmt.assign.slice-loop`, `scu.table.ternary`, ...), summed over a campaign and printed by
//! `smith --stats`. The same counts record backend outcomes (`p4.v1model.not-expressible.P0003`),
//! and travel from `smith`'s worker process to its parent as one line ([`Stats::encode`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Counts of emitted constructs.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    counts: BTreeMap<Cow<'static, str>, u64>,
}

impl Stats {
    /// Records one use of `construct`.
    pub fn hit(&mut self, construct: &'static str) {
        *self.counts.entry(Cow::Borrowed(construct)).or_insert(0) += 1;
    }

    /// Records one use of a name built at run time (a backend outcome with its code).
    pub fn hit_owned(&mut self, name: String) {
        *self.counts.entry(Cow::Owned(name)).or_insert(0) += 1;
    }

    /// Adds another program's counts.
    pub fn merge(&mut self, other: &Stats) {
        for (k, v) in &other.counts {
            *self.counts.entry(k.clone()).or_insert(0) += v;
        }
    }

    /// How many times `construct` was emitted.
    pub fn count(&self, construct: &str) -> u64 {
        self.counts.get(construct).copied().unwrap_or(0)
    }

    /// Every construct with its count, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.counts.iter().map(|(k, v)| (k.as_ref(), *v))
    }

    /// The counts as one line of `name=count` pairs separated by spaces (names have no spaces).
    pub fn encode(&self) -> String {
        let pairs: Vec<String> = self.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join(" ")
    }

    /// Reads [`Stats::encode`]'s line back; malformed pairs are skipped.
    pub fn decode(line: &str) -> Stats {
        let mut s = Stats::default();
        for pair in line.split_whitespace() {
            if let Some((k, v)) = pair.rsplit_once('=') {
                if let Ok(v) = v.parse::<u64>() {
                    *s.counts.entry(Cow::Owned(k.to_string())).or_insert(0) += v;
                }
            }
        }
        s
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
