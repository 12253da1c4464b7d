//! [`Namer`]: the program's names → unique, legal identifiers of a target language, one scope at a
//! time (naga's `proc::Namer`). One implementation for every backend; what differs between targets
//! is data, the [`Rules`] of their [`Language`]: the reserved words, what goes before a name that starts with a digit,
//! how a renamed word is taken out of a reserved prefix, and the prefix of generated helpers.
//!
//! `name(base)`:
//! 1. every character that cannot appear in an identifier becomes `_`; an empty name or one that
//!    starts with a digit gets [`Rules::digit_prefix`] in front;
//! 2. a reserved name (or one in the helpers' namespace) gets `_` appended; if that is still
//!    reserved (a reserved prefix such as C++'s `__` or `ap_`) or starts with `_`, and the target
//!    has an [`Rules::escape`], the escape goes in front;
//! 3. a name already taken in the scope, or reserved, becomes `name_1`, `name_2`, ….
//!
//! Invariants: the result is legal and unreserved for the target, unique in the scope, and depends
//! only on the order of requests (goldens are stable). Step 3 terminates because step 2 leaves a
//! name that no reserved prefix matches, and a suffix does not change a name's prefix.

use std::collections::HashSet;
use std::marker::PhantomData;

/// A target language: a marker type that carries its identifier rules.
pub trait Language: Clone + std::fmt::Debug + Default {
    /// The language's rules.
    const RULES: Rules;
}

/// A target language's identifier rules.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// Whether a name may not be given out: keywords, library names, reserved prefixes.
    pub is_reserved: fn(&str) -> bool,
    /// Put before a name that is empty or starts with a digit.
    pub digit_prefix: char,
    /// Put before a renamed reserved word that is still reserved or starts with `_` (C++ reserves
    /// names starting with `__` or `_` and a capital); `None` where appending `_` is enough.
    pub escape: Option<char>,
    /// The prefix of the names the writer generates ([`Namer::helper`]); a program name that starts
    /// with it is renamed, so helpers and program names never meet. Empty: no such namespace.
    pub helper_prefix: &'static str,
}

/// The identifiers given out in one scope of language `L`.
#[derive(Clone, Debug, Default)]
pub struct Namer<L: Language> {
    taken: HashSet<String>,
    language: PhantomData<L>,
}

impl<L: Language> Namer<L> {
    /// An empty scope.
    pub fn new() -> Namer<L> {
        Namer {
            taken: HashSet::new(),
            language: PhantomData,
        }
    }

    /// Marks `name` as taken without giving it out (a fixed identifier the writer spells itself).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    /// A unique, legal identifier for the program's name `base`.
    pub fn name(&mut self, base: &str) -> String {
        let rules = L::RULES;
        let mut clean = sanitize(base, rules.digit_prefix);
        let in_helpers = !rules.helper_prefix.is_empty() && clean.starts_with(rules.helper_prefix);
        if (rules.is_reserved)(&clean) || in_helpers {
            clean.push('_');
            if let Some(escape) = rules.escape {
                if clean.starts_with('_') || (rules.is_reserved)(&clean) {
                    clean.insert(0, escape);
                }
            }
        }
        self.unique(clean)
    }

    /// A unique identifier for a generated helper: the helper prefix, then `what`.
    pub fn helper(&mut self, what: &str) -> String {
        let name = format!(
            "{}{}",
            L::RULES.helper_prefix,
            sanitize(what, L::RULES.digit_prefix)
        );
        self.unique(name)
    }

    fn unique(&mut self, clean: String) -> String {
        let free = |namer: &Self, c: &str| !namer.taken.contains(c) && !(L::RULES.is_reserved)(c);
        let mut candidate = clean.clone();
        let mut n = 1u32;
        while !free(self, &candidate) {
            candidate = format!("{clean}_{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// `base` with every character that cannot appear in an identifier replaced by `_`, and
/// `digit_prefix` in front if it is empty or starts with a digit.
pub fn sanitize(base: &str, digit_prefix: char) -> String {
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
        out.insert(0, digit_prefix);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpp_like(name: &str) -> bool {
        ["class", "new"].contains(&name) || name.starts_with("__") || name.starts_with("ap_")
    }

    #[derive(Clone, Debug, Default)]
    struct Cpp;
    impl Language for Cpp {
        const RULES: Rules = Rules {
            is_reserved: cpp_like,
            digit_prefix: 'x',
            escape: Some('x'),
            helper_prefix: "",
        };
    }

    #[derive(Clone, Debug, Default)]
    struct P4;
    impl Language for P4 {
        const RULES: Rules = Rules {
            is_reserved: |n| ["key", "size"].contains(&n),
            digit_prefix: '_',
            escape: None,
            helper_prefix: "scenic_",
        };
    }

    #[test]
    fn keywords_prefixes_digits_and_duplicates() {
        let mut n = Namer::<Cpp>::new();
        assert_eq!(n.name("class"), "class_");
        assert_eq!(n.name("x"), "x");
        assert_eq!(n.name("x"), "x_1");
        assert_eq!(n.name("x"), "x_2");
        assert_eq!(n.name("9lives"), "x9lives");
        assert_eq!(n.name("__a"), "x__a_");
        // A reserved prefix is escaped, not only suffixed (it looped for ever before).
        assert_eq!(n.name("ap_x"), "xap_x_");
        n.reserve("y");
        assert_eq!(n.name("y"), "y_1");
        let mut p = Namer::<P4>::new();
        assert_eq!(p.name("key"), "key_");
        assert_eq!(p.name("flows"), "flows");
        assert_eq!(p.name("flows"), "flows_1");
        assert_eq!(p.name("scenic_x"), "scenic_x_");
        assert_eq!(p.helper("done"), "scenic_done");
        assert_eq!(p.name("a$b"), "a_b");
        assert_eq!(p.name("1x"), "_1x");
    }
}
