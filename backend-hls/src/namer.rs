//! [`Namer`]: IR names → unique, legal C++ identifiers.
//!
//! One `Namer` is one namespace (a C++ scope: the kernel's namespace, a struct's members, a
//! function's locals). `name(base)` keeps the IR name when it is legal and free, appends `_` to a
//! reserved word ([`crate::keywords`]) and `_1`, `_2`, … to a name already taken. The result is
//! deterministic (it depends only on the order of requests), so goldens are stable.

use std::collections::HashSet;

/// A set of identifiers already given out in one C++ scope.
#[derive(Clone, Debug, Default)]
pub struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// An empty namespace.
    pub fn new() -> Namer {
        Namer::default()
    }

    /// Marks `name` as taken without giving it out (a fixed identifier of the scaffolding).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    /// A fresh identifier for `base`.
    pub fn name(&mut self, base: &str) -> String {
        let mut clean: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
            clean.insert(0, 'x');
        }
        if crate::keywords::is_reserved(&clean) {
            clean.push('_');
            if clean.starts_with('_') {
                clean.insert(0, 'x');
            }
        }
        let mut candidate = clean.clone();
        let mut n = 1;
        while self.taken.contains(&candidate) || crate::keywords::is_reserved(&candidate) {
            candidate = format!("{clean}_{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::Namer;

    #[test]
    fn unique_and_legal() {
        let mut n = Namer::new();
        assert_eq!(n.name("class"), "class_");
        assert_eq!(n.name("x"), "x");
        assert_eq!(n.name("x"), "x_1");
        assert_eq!(n.name("x"), "x_2");
        assert_eq!(n.name("9lives"), "x9lives");
        assert_eq!(n.name("__a"), "x__a_");
        n.reserve("y");
        assert_eq!(n.name("y"), "y_1");
    }
}
