//! The C++ support library (backend-hls/include/) against the interpreter's own code: maps
//! (`MapState`), exact tables (`TableState`), meters (`Bucket`), counters and every intrinsic.
//!
//! Each test generates operation sequences (seeded, plus edge cases), runs a C++ driver from
//! tests/cpp/ compiled with g++ against the headers, and compares every result line. Needs
//! `AP_TYPES` (scripts/fetch-ap-types.sh); without it the tests print why and pass, except under
//! `CI=true`. `--nocapture` shows the number of operations compared and the stash figures.

#[path = "support_library/harness.rs"]
mod harness;
#[path = "support_library/maps.rs"]
mod maps;

use harness::Toolchain;

#[test]
fn maps_match_the_interpreter() {
    let Some(tc) = Toolchain::find("maps_match_the_interpreter") else {
        return;
    };
    let (compared, stats) = maps::run(&tc, "c++14", 0x005c_e01c_0001, 3000);
    eprintln!("maps: {compared} operations compared with MapState, all equal");
    for s in stats {
        eprintln!("  stash (used peak collisions overflows) of map {s}");
    }
}

#[test]
fn maps_match_the_interpreter_as_cpp11() {
    let Some(tc) = Toolchain::find("maps_match_the_interpreter_as_cpp11") else {
        return;
    };
    let (compared, _) = maps::run(&tc, "c++11", 0x005c_e01c_0002, 500);
    eprintln!("maps (C++11): {compared} operations compared with MapState, all equal");
}

#[path = "support_library/tables.rs"]
mod tables;

#[test]
fn exact_tables_match_the_interpreter() {
    let Some(tc) = Toolchain::find("exact_tables_match_the_interpreter") else {
        return;
    };
    let (compared, stats) = tables::run(&tc, 0x7ab1e);
    eprintln!("exact tables: {compared} operations compared with TableState, all equal");
    for s in stats {
        eprintln!("  stash (used peak collisions overflows) of table {s}");
    }
}

#[path = "support_library/meters.rs"]
mod meters;

#[test]
fn meters_and_counters_match_the_interpreter() {
    let Some(tc) = Toolchain::find("meters_and_counters_match_the_interpreter") else {
        return;
    };
    let compared = meters::run(&tc, 0x6e7e5, 60_000);
    eprintln!("meters and counters: {compared} operations compared with Bucket / CounterCell");
}

#[path = "support_library/intrinsics.rs"]
mod intrinsics;

#[test]
fn intrinsics_match_the_interpreter() {
    let Some(tc) = Toolchain::find("intrinsics_match_the_interpreter") else {
        return;
    };
    let compared = intrinsics::run(&tc, 0x01e7_c0de, 60);
    eprintln!("intrinsics: {compared} calls compared with scenic_ir::proc::intrinsics, all equal");
}
