//! P4's [`Namer`]: `scenic_ir::proc::Namer` with P4's rules ([`P4`]).
//!
//! Source names are already identifiers of the same shape as P4's, but some are P4 keywords or
//! library names (`key`, `size`, `counter`, `hash`) and generated names must not collide with them.
//! A name gets `_` appended when it is reserved or starts with the helpers' prefix `scenic_`, a
//! leading digit gets a `_` in front, and duplicates get `_1`, `_2`, .... The writer keeps one namer
//! for the program's global names and one per struct and per control, and adds `@name("...")`
//! wherever a control-plane name (table, action, key, counter, CSR) differs from the source name.

use scenic_ir::proc::{Language, Rules};

/// P4_16: its identifier rules.
#[derive(Clone, Debug, Default)]
pub struct P4;

impl Language for P4 {
    const RULES: Rules = Rules {
        is_reserved: crate::keywords::is_reserved,
        digit_prefix: '_',
        escape: None,
        helper_prefix: crate::keywords::RESERVED_PREFIX,
    };
}

/// One P4 scope.
pub type Namer = scenic_ir::proc::Namer<P4>;

/// `base` with every character that cannot appear in a P4 identifier replaced by `_`.
pub fn sanitize(base: &str) -> String {
    scenic_ir::proc::namer::sanitize(base, P4::RULES.digit_prefix)
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
