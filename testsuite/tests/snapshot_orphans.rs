//! Every insta snapshot of every crate still has its test and its input (the testsuite's own
//! golden folder has the stricter check in `diagnostics.rs`). A snapshot whose program was renamed
//! or deleted would otherwise stay in the tree for ever, reviewed by nobody and compared with
//! nothing.
//!
//! For each `*.snap` below a `tests/snapshots` folder of the workspace (the testsuite's excepted):
//! - its header's `source:` names a test file that exists;
//! - its subject (the name without the `<test file>__` prefix, up to the first `.`) is, or ends
//!   with `_` and, the stem of a program (`.sn` or `.p4`) under `examples/` or under the crate's
//!   `tests/` folder: `kernel_l3_router` → `l3_router.sn`, `features.v1model` → `features.sn`,
//!   `compact.after` → `passes/compact.sn`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file below `dir` (recursively) whose path satisfies `keep`, skipping build output.
fn files(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if path.is_dir() {
            if !matches!(name.as_deref(), Some("target" | ".git" | "fuzz")) {
                files(&path, keep, out);
            }
        } else if keep(&path) {
            out.push(path);
        }
    }
}

/// The stems of the programs under `dir`.
fn program_stems(dir: &Path) -> BTreeSet<String> {
    let mut found = Vec::new();
    let is_program = |p: &Path| p.extension().is_some_and(|e| e == "sn" || e == "p4");
    files(dir, &is_program, &mut found);
    found
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect()
}

/// The `tests` folder a snapshot belongs to: the nearest ancestor so named.
fn tests_folder(snap: &Path) -> Option<&Path> {
    snap.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "tests"))
}

/// Why `snap` is an orphan, if it is one.
fn orphan(snap: &Path, examples: &BTreeSet<String>) -> Option<String> {
    let Ok(text) = std::fs::read_to_string(snap) else {
        return Some("it cannot be read".into());
    };
    let Some(source) = text.lines().find_map(|l| l.strip_prefix("source: ")) else {
        return Some("its header names no `source:` test".into());
    };
    if !root().join(source.trim()).exists() {
        return Some(format!("its test `{source}` does not exist"));
    }
    let stem = snap.file_stem()?.to_string_lossy().into_owned();
    let name = stem.split_once("__").map_or(stem.as_str(), |(_, n)| n);
    let subject = name.split('.').next().unwrap_or(name);
    let inputs = tests_folder(snap).map(program_stems).unwrap_or_default();
    let matches = |p: &String| subject == p || subject.ends_with(&format!("_{p}"));
    if examples.iter().chain(&inputs).any(matches) {
        return None;
    }
    Some(format!(
        "no program `{subject}.sn` (or `.p4`) under examples/ or its tests folder"
    ))
}

#[test]
fn every_snapshot_of_every_crate_has_its_test_and_its_program() {
    let mut snaps = Vec::new();
    let is_snap = |p: &Path| {
        p.extension().is_some_and(|e| e == "snap")
            && p.components().any(|c| c.as_os_str() == "snapshots")
            && !p.starts_with(root().join("testsuite"))
    };
    files(&root(), &is_snap, &mut snaps);
    assert!(snaps.len() >= 40, "only {} snapshots found", snaps.len());
    let examples = program_stems(&root().join("examples"));
    let orphans: Vec<String> = snaps
        .iter()
        .filter_map(|s| orphan(s, &examples).map(|why| format!("{}: {why}", s.display())))
        .collect();
    assert!(
        orphans.is_empty(),
        "orphan snapshots:\n{}",
        orphans.join("\n")
    );
}
