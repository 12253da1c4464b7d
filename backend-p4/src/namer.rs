//! [`Namer`]: P4 identifiers for the program's names, unique within a scope.
//!
//! Source names are already identifiers of the same shape as P4's, but some are P4 keywords or
//! library names (`key`, `size`, `counter`, `hash`) and generated names must not collide with them.
//! The namer cleans a name up (anything but `[A-Za-z0-9_]` becomes `_`, a leading digit gets a `_`),
//! renames reserved words and the reserved prefix by appending `_`, and makes a name unique in its
//! scope by appending `_1`, `_2`, ... (naga's `proc::Namer`). The writer keeps one namer for the
//! program's global names and one per struct and per control, and adds `@name("...")` wherever a
//! control-plane name (table, action, key, counter, CSR) differs from the source name.

use crate::keywords::{is_reserved, RESERVED_PREFIX};
use std::collections::HashSet;

/// Hands out unique, non-reserved identifiers in one scope.
#[derive(Clone, Debug, Default)]
pub struct Namer {
    used: HashSet<String>,
}

impl Namer {
    /// An empty scope.
    pub fn new() -> Namer {
        Namer::default()
    }

    /// Marks `name` as taken without handing it out (names the writer spells itself).
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }

    /// A unique identifier for the source name `base`.
    pub fn name(&mut self, base: &str) -> String {
        let mut clean = sanitize(base);
        if is_reserved(&clean) || clean.starts_with(RESERVED_PREFIX) {
            clean.push('_');
        }
        self.unique(clean)
    }

    /// A unique identifier for a generated helper: `scenic_<what>`, never renamed for the prefix.
    pub fn helper(&mut self, what: &str) -> String {
        self.unique(format!("{RESERVED_PREFIX}{}", sanitize(what)))
    }

    fn unique(&mut self, clean: String) -> String {
        if self.used.insert(clean.clone()) {
            return clean;
        }
        let mut n = 1u32;
        loop {
            let candidate = format!("{clean}_{n}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// `base` with every character that cannot appear in an identifier replaced by `_`.
pub fn sanitize(base: &str) -> String {
    let mut out: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_and_duplicates_are_renamed() {
        let mut n = Namer::new();
        assert_eq!(n.name("key"), "key_");
        assert_eq!(n.name("flows"), "flows");
        assert_eq!(n.name("flows"), "flows_1");
        assert_eq!(n.name("scenic_x"), "scenic_x_");
        assert_eq!(n.helper("done"), "scenic_done");
        assert_eq!(n.name("a$b"), "a_b");
        assert_eq!(n.name("1x"), "_1x");
    }
}
