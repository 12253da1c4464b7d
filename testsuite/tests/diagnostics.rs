//! Golden tests: every `tests/diagnostics/*.sn` file is checked (every `*.p4` file read by the P4
//! reader and lowered) and its rendered diagnostics are compared with
//! `tests/snapshots/<file stem>.snap`.
//!
//! A file is named `<CODE>-<what-it-tests>.sn`; besides matching its snapshot, its output must report
//! that code, so that a golden cannot silently lose its point. All files are checked before the test
//! fails, and the failure message names every file that went wrong.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test -p scenic-testsuite` and review them.

use scenic_frontend::{CheckOptions, Session};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The folder of golden programs, relative to the package (cargo's working directory for tests).
const DIR: &str = "tests/diagnostics";

/// The `.sn` and `.p4` files directly in [`DIR`], sorted by name.
fn golden_files() -> Vec<PathBuf> {
    let entries = std::fs::read_dir(DIR).unwrap_or_else(|e| panic!("cannot read {DIR}: {e}"));
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .is_some_and(|ext| ext == "sn" || ext == "p4")
        })
        .collect();
    files.sort();
    files
}

/// The file's name without `.sn`.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Checks one file on its own, as `scenicc check tests/diagnostics/NAME.sn` would, and renders the
/// diagnostics as plain text.
fn render(path: &Path) -> Result<String, String> {
    if scenic_frontend::p4::is_p4_path(path) {
        let path = Path::new(DIR).join(path.file_name().unwrap_or_default());
        let (report, _) = scenic_lower::p4::compile_path(&path).map_err(|e| e.to_string())?;
        return Ok(report.render_plain());
    }
    let mut session = Session::new();
    session
        .add_path(
            Path::new(DIR)
                .join(path.file_name().unwrap_or_default())
                .as_path(),
        )
        .map_err(|e| e.to_string())?;
    Ok(scenic_lower::check::check(&mut session, CheckOptions::default()).render_plain())
}

/// Checks one golden file, returning what is wrong with it.
fn check_golden(path: &Path) -> Option<String> {
    let name = stem(path);
    let code = name.split('-').next().unwrap_or_default();
    let rendered = match render(path) {
        Ok(text) => text,
        Err(e) => return Some(format!("{}: {e}", path.display())),
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(path);
    settings.set_description(format!("scenicc check {}", path.display()));
    let matched = catch_unwind(AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.as_str(), rendered.as_str()));
    }));
    if matched.is_err() {
        return Some(format!(
            "{}: output differs from tests/snapshots/{name}.snap (see the diff above)",
            path.display()
        ));
    }
    if !rendered.contains(&format!("[{code}]")) {
        return Some(format!(
            "{}: the output does not report {code}, the code in the file name",
            path.display()
        ));
    }
    None
}

#[test]
fn diagnostics_match_their_goldens() {
    let files = golden_files();
    assert!(!files.is_empty(), "no golden files in {DIR}");
    let failures: Vec<String> = files.iter().filter_map(|p| check_golden(p)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} golden files failed:\n  {}",
        failures.len(),
        files.len(),
        failures.join("\n  ")
    );
}

#[test]
fn every_snapshot_has_a_golden_file() {
    let goldens: Vec<String> = golden_files().iter().map(|p| stem(p)).collect();
    let entries = std::fs::read_dir("tests/snapshots")
        .unwrap_or_else(|e| panic!("cannot read tests/snapshots: {e}"));
    let orphans: Vec<String> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            !name.is_some_and(|n| n.ends_with(".snap") && goldens.contains(&stem(path)))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        orphans.is_empty(),
        "snapshots without a golden file (delete them, or restore the .sn file): {orphans:?}"
    );
}
