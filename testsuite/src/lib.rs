//! The scenic testsuite: tests across crates — golden diagnostics, mutation tests of the frontend,
//! and `scenicc sim` on bad input, random packets and real Linux traffic.
//!
//! Its one library module is [`smith`], scenic-smith: a generator of random well-typed programs
//! compared on the interpreter before and after the passes (binary `smith`, docs/fuzzing.md).
//! Everything else is in `tests/`:
//!
//! - `tests/diagnostics/*.sn` are failing programs, one scenario per file, named
//!   `<CODE>-<short-description>.sn` (for example `E0202-add-mismatched-widths.sn`). Each starts with a
//!   `//` comment saying what it tests. `tests/diagnostics.rs` checks every one of them and compares the
//!   rendered diagnostics with its golden snapshot in `tests/snapshots/`, and checks that the output
//!   mentions the code in the file name. Helper modules that golden files `use` live in
//!   `tests/diagnostics/modules/` and are not tests themselves.
//! - `tests/coverage.rs` checks that every code in the catalogue has a golden file and a section in
//!   `docs/errors.md`.
//! - `tests/errors_doc.rs` checks `docs/errors.md` itself: every section's erroneous example reports
//!   its code, and every fix checks cleanly.
//! - `tests/mutations.rs` (with `tests/mutations/`) mutates every example hundreds of ways and checks
//!   fixed nasty inputs: no panic, every diagnostic located (docs/fuzzing.md).
//! - `tests/sim_bad_input.rs`, `tests/sim_fuzz.rs` and `tests/sim_real_traffic.rs` run `scenicc sim`
//!   on broken captures, random and mutated packets, and traffic made by the Linux stack in two
//!   network namespaces (root; skipped with a printed reason otherwise), checking outputs with an
//!   independent parser (etherparse). `tests/support/` holds their helpers (docs/testing.md).
//!
//! - `tests/smith_ci.rs` runs a short fixed-seed scenic-smith campaign; `tests/smith_regressions.rs`
//!   keeps the reproductions of the bugs it found (`tests/smith_regressions/*.sn` + `.stf`).
//!
//! To add a golden, write the `.sn` file and run
//! `INSTA_UPDATE=always cargo test -p scenic-testsuite` (or `cargo insta test -p scenic-testsuite` and
//! `cargo insta review` if cargo-insta is installed). The same command updates goldens after a
//! deliberate change to a message. Review every new or changed `.snap` file as if it were code: the
//! message, the location, the labels and the help must all be right. No `.snap.new` file may be
//! committed.

#![deny(missing_docs)]

pub mod smith;
