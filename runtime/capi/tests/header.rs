//! `include/scenic.h` declares exactly the functions `src/lib.rs` exports: every `extern "C" fn`
//! name once, and no other `scenic_` function.

use std::collections::BTreeSet;

const LIB: &str = include_str!("../src/lib.rs");
const HEADER: &str = include_str!("../include/scenic.h");

fn exported() -> BTreeSet<String> {
    LIB.lines()
        .filter_map(|l| l.split("extern \"C\" fn ").nth(1))
        .filter_map(|rest| rest.split('(').next())
        .map(str::to_string)
        .collect()
}

fn declared() -> BTreeSet<String> {
    HEADER
        .lines()
        .filter(|l| !l.trim_start().starts_with("/*") && !l.trim_start().starts_with('*'))
        .filter_map(|l| {
            let before_paren = l.split('(').next()?;
            let name = before_paren.rsplit([' ', '*']).next()?;
            name.starts_with("scenic_").then(|| name.to_string())
        })
        .collect()
}

#[test]
fn header_declares_every_exported_function() {
    let exported = exported();
    assert!(exported.len() >= 10, "found only {exported:?} in lib.rs");
    assert_eq!(exported, declared());
}
