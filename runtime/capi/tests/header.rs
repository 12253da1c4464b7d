//! `include/scenic.h` declares exactly the functions `src/` exports: every `extern "C" fn`
//! name once, and no other `scenic_` function.

use std::collections::BTreeSet;

const LIB: &str = concat!(
    include_str!("../src/lib.rs"),
    include_str!("../src/named.rs"),
    include_str!("../src/wired.rs")
);
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

#[test]
fn the_notification_record_has_the_headers_layout() {
    // scenic.h: three uint64_t, one uint32_t, four uint8_t, in that order (32 bytes, no padding).
    use scenic_c::ScenicNotification as N;
    assert_eq!(std::mem::size_of::<N>(), 32);
    assert_eq!(std::mem::offset_of!(N, seq), 0);
    assert_eq!(std::mem::offset_of!(N, time_ns), 8);
    assert_eq!(std::mem::offset_of!(N, lost_before), 16);
    assert_eq!(std::mem::offset_of!(N, value), 24);
    assert_eq!(std::mem::offset_of!(N, target), 28);
    assert_eq!(std::mem::offset_of!(N, slot), 29);
    assert_eq!(std::mem::offset_of!(N, bank), 30);
    assert_eq!(std::mem::offset_of!(N, flags), 31);
}
