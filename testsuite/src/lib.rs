//! The scenic testsuite: golden tests for the frontend's diagnostics.
//!
//! The crate has no code of its own; everything is in `tests/`:
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
//!
//! To add a golden, write the `.sn` file and run
//! `INSTA_UPDATE=always cargo test -p scenic-testsuite` (or `cargo insta test -p scenic-testsuite` and
//! `cargo insta review` if cargo-insta is installed). The same command updates goldens after a
//! deliberate change to a message. Review every new or changed `.snap` file as if it were code: the
//! message, the location, the labels and the help must all be right. No `.snap.new` file may be
//! committed.
