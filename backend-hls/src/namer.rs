//! The C++ scopes' [`Namer`]: `scenic_ir::proc::Namer` with C++'s rules ([`Cpp`]). One `Namer` is
//! one namespace (the kernel's namespace, a struct's members, a function's locals); a reserved word
//! ([`crate::keywords`]) gets `_` appended, and an `x` in front when it still starts with `_` or a
//! reserved prefix (C++ reserves `__` and `_` + capital; the HLS headers `ap_` and `hls_`).

use scenic_ir::proc::{Language, Rules};

/// C++ as the kernels are written: its identifier rules.
#[derive(Clone, Debug, Default)]
pub struct Cpp;

impl Language for Cpp {
    const RULES: Rules = Rules {
        is_reserved: crate::keywords::is_reserved,
        digit_prefix: 'x',
        escape: Some('x'),
        helper_prefix: "",
    };
}

/// One C++ scope.
pub type Namer = scenic_ir::proc::Namer<Cpp>;

#[cfg(test)]
mod tests {
    use super::Namer;

    #[test]
    fn unique_and_legal() {
        let mut n = Namer::new();
        assert_eq!(n.name("class"), "class_");
        assert_eq!(n.name("x"), "x");
        assert_eq!(n.name("x"), "x_1");
        assert_eq!(n.name("9lives"), "x9lives");
        assert_eq!(n.name("__a"), "x__a_");
        // A reserved prefix is escaped: appending `_` alone left it reserved, for ever.
        assert_eq!(n.name("ap_fixed"), "xap_fixed_");
        assert_eq!(n.name("_Z"), "x_Z_");
        n.reserve("y");
        assert_eq!(n.name("y"), "y_1");
    }
}
