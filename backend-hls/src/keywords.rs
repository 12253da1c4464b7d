//! Names the generated C++ must not use for its own identifiers: the C++14 keywords and
//! alternative tokens (ISO/IEC 14882:2014 [lex.key], [lex.digraph]), later keywords a newer
//! compiler may enforce, and names the HLS headers and our generated code already take (`ap_*`,
//! `hls`, the port names, the helper namespaces).
//!
//! [`crate::namer::Namer`] appends `_` to any of these (and to names with a reserved prefix).

/// C++ keywords and alternative tokens (C++14, plus C++20's, so the code stays valid later).
pub const CPP_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    // Macros and names from the C and C++ standard headers the HLS headers pull in.
    "assert",
    "errno",
    "main",
    "std",
    "NULL",
    "EOF",
    "min",
    "max",
];

/// Names taken by the HLS headers, our shims, the support library and the generated scaffolding.
pub const RESERVED: &[&str] = &[
    "hls",
    "ap_int",
    "ap_uint",
    "ap_fixed",
    "ap_ufixed",
    "ap_axiu",
    "ap_axis",
    "axis512",
    "scenic",
    "scn",
    "st",
    "pk",
    "r",
    "state_t",
    "pkt_t",
    "valid",
    // Port names (ports.rs) and the stage functions.
    "net_in",
    "net_in_meta",
    "net_out",
    "net_out_meta",
    "host_out",
    "scu_out",
    "scu_out_meta",
    "word_in",
    "word_in_meta",
    "pass_out",
    "push_out",
    "push_out_meta",
    "notify_out",
    "ctrl_in",
    "ctrl_out",
    "now_ns",
    "ingress",
    "process",
    "egress",
];

/// Prefixes reserved by the HLS tools and headers (`ap_`, `hls_`, `_` + capital letter, `__`).
pub const RESERVED_PREFIXES: &[&str] = &["ap_", "AP_", "hls_", "HLS_", "__", "scn_", "SCN_"];

/// Whether `name` may not be used as it is.
pub fn is_reserved(name: &str) -> bool {
    CPP_KEYWORDS.contains(&name)
        || RESERVED.contains(&name)
        || RESERVED_PREFIXES.iter().any(|p| name.starts_with(p))
        || (name.starts_with('_') && name.chars().nth(1).is_some_and(|c| c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn keywords_are_reserved() {
        for k in [
            "class", "default", "new", "register", "ap_x", "__y", "_Z", "valid",
        ] {
            assert!(super::is_reserved(k), "{k}");
        }
        assert!(!super::is_reserved("eth"));
    }
}
