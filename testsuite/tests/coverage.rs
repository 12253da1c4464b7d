//! Every diagnostic code is covered: it has at least one golden file in `tests/diagnostics/` and a
//! section in `docs/errors.md`, and the golden files are well named and numerous.

use scenic_frontend::diag::{codes, explain};

/// The stems of the golden files (`E0202-add-mismatched-widths`): scenic programs (`.sn`) and, for
/// the P4 reader's codes, P4 programs (`.p4`).
fn golden_names() -> Vec<String> {
    let entries = std::fs::read_dir("tests/diagnostics")
        .unwrap_or_else(|e| panic!("cannot read tests/diagnostics: {e}"));
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .is_some_and(|ext| ext == "sn" || ext == "p4")
        })
        .filter_map(|path| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// The text of a golden file, whichever its extension.
fn golden_text(name: &str) -> Vec<u8> {
    std::fs::read(format!("tests/diagnostics/{name}.sn"))
        .or_else(|_| std::fs::read(format!("tests/diagnostics/{name}.p4")))
        .unwrap_or_default()
}

/// Whether `rest` is lower-case kebab case: words of `a-z0-9` joined by single `-`.
fn is_kebab(rest: &str) -> bool {
    !rest.is_empty()
        && rest.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

#[test]
fn every_code_has_a_golden_file() {
    let names = golden_names();
    let missing: Vec<&str> = codes::ALL
        .iter()
        .map(|code| code.id)
        .filter(|id| !names.iter().any(|n| n.starts_with(&format!("{id}-"))))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a golden file: {missing:?}"
    );
}

#[test]
fn golden_files_are_named_after_a_code() {
    let bad: Vec<String> = golden_names()
        .into_iter()
        .filter(|name| match name.split_once('-') {
            Some((code, rest)) => {
                codes::lookup(code).is_none_or(|c| c.id != code) || !is_kebab(rest)
            }
            None => true,
        })
        .collect();
    assert!(
        bad.is_empty(),
        "golden files must be named `<CODE>-<kebab-description>.sn` (or `.p4`) with a catalogue code: {bad:?}"
    );
}

#[test]
fn golden_files_start_with_a_comment_naming_their_code() {
    let bad: Vec<String> = golden_names()
        .into_iter()
        .filter(|name| {
            let code = name.split('-').next().unwrap_or_default();
            let text = golden_text(name);
            !text.starts_with(format!("// {code}: ").as_bytes())
        })
        .collect();
    assert!(
        bad.is_empty(),
        "golden files must start with `// CODE: what this tests`: {bad:?}"
    );
}

#[test]
fn there_are_at_least_100_golden_files() {
    let n = golden_names().len();
    assert!(
        n >= 100,
        "only {n} golden files; the suite promises at least 100"
    );
}

#[test]
fn every_code_is_documented() {
    let mut problems = Vec::new();
    for code in codes::ALL {
        let Some(text) = explain::explanation(code.id) else {
            problems.push(format!("{}: no section in docs/errors.md", code.id));
            continue;
        };
        let heading = format!("## {}: {}", code.id, code.title);
        if text.lines().next() != Some(heading.as_str()) {
            problems.push(format!("{}: the heading is not `{heading}`", code.id));
        }
        for part in ["Erroneous example:", "Fix:"] {
            if !text.contains(part) {
                problems.push(format!("{}: the section has no `{part}`", code.id));
            }
        }
        if !text.contains("```sn") && !text.contains("```p4") {
            problems.push(format!(
                "{}: the section has no ```sn or ```p4 example",
                code.id
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn sections_follow_catalogue_order() {
    let catalogue: Vec<&str> = codes::ALL.iter().map(|c| c.id).collect();
    assert_eq!(explain::documented_codes(), catalogue);
}
