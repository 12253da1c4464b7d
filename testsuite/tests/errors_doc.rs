//! Keeps `docs/errors.md` honest: in every `## CODE: title` section, the first `sn` block (the
//! erroneous example) must report CODE when checked on its own, and the second block (the fix) must
//! check without errors and without CODE. The P4 reader's codes have `p4` blocks instead, read and
//! lowered as `scenicc check FILE.p4` does.
//!
//! The E0013 example is about bytes that are not UTF-8, which a Markdown file cannot hold: there,
//! `\xE9` in the text stands for the single byte 0xE9.

use scenic_frontend::{CheckOptions, CheckReport, Session};

const ERRORS_MD: &str = include_str!("../../docs/errors.md");

/// One section of the document: its code and its `sn` or `p4` blocks, in order.
struct Section {
    code: String,
    blocks: Vec<String>,
    /// Whether the blocks are P4 programs.
    p4: bool,
}

/// Every `## CODE: title` section of `doc` (the "Format of a section" section has no code).
fn sections(doc: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut block: Option<String> = None;
    for line in doc.lines() {
        if let Some(text) = block.as_mut() {
            if line.trim_end() == "```" {
                if let (Some(section), Some(done)) = (out.last_mut(), block.take()) {
                    section.blocks.push(done);
                }
            } else {
                text.push_str(line);
                text.push('\n');
            }
        } else if let Some(heading) = line.strip_prefix("## ") {
            let code = heading.split(':').next().unwrap_or_default().trim();
            let is_code = code.len() == 5 && code.chars().skip(1).all(|c| c.is_ascii_digit());
            if is_code {
                out.push(Section {
                    code: code.to_string(),
                    blocks: Vec::new(),
                    p4: false,
                });
            }
        } else if matches!(line.trim_end(), "```sn" | "```p4") && !out.is_empty() {
            if let Some(section) = out.last_mut() {
                section.p4 = line.trim_end() == "```p4";
            }
            block = Some(String::new());
        }
    }
    out
}

/// Checks one example as a file of its own.
fn check(code: &str, text: &str, p4: bool) -> CheckReport {
    if p4 {
        return scenic_lower::p4::compile_source("example.p4", text).0;
    }
    if code == "E0013" {
        let mut session = Session::new();
        session.add_source_bytes("example.sn", &raw_bytes(text));
        return scenic_lower::check::check(&mut session, CheckOptions::default());
    }
    scenic_lower::check::check_source("example.sn", text, CheckOptions::default())
}

/// `text` as bytes, with each `\xE9` written in it replaced by the byte 0xE9.
fn raw_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("\\xE9") {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        out.push(0xE9);
        rest = &rest[at + 4..];
    }
    out.extend_from_slice(rest.as_bytes());
    out
}

/// What is wrong with one section, if anything.
fn section_problems(section: &Section) -> Vec<String> {
    let code = section.code.as_str();
    let [example, fix, ..] = section.blocks.as_slice() else {
        return vec![format!(
            "{code}: needs an erroneous example and a fix (two ```sn blocks), found {}",
            section.blocks.len()
        )];
    };
    let mut problems = Vec::new();
    let report = check(code, example, section.p4);
    if !report.diagnostics.iter().any(|d| d.code.id == code) {
        problems.push(format!(
            "{code}: the erroneous example does not report {code}; it reports:\n{}",
            report.render_plain()
        ));
    }
    let report = check(code, fix, section.p4);
    if report.error_count() > 0 || report.diagnostics.iter().any(|d| d.code.id == code) {
        problems.push(format!(
            "{code}: the fix does not check cleanly:\n{}",
            report.render_plain()
        ));
    }
    problems
}

#[test]
fn every_example_reports_its_code_and_every_fix_checks() {
    let sections = sections(ERRORS_MD);
    assert!(!sections.is_empty(), "no sections found in docs/errors.md");
    let problems: Vec<String> = sections.iter().flat_map(section_problems).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s) in docs/errors.md:\n\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_section_reader_finds_codes_and_blocks() {
    let doc =
        "# t\n\n## Format of a section\n\n```sn\nx\n```\n\n## E0002: malformed number\n\nText.\n\n\
               ```sn\nbad\n```\n\nFix:\n\n```sn\ngood\n```\n\n## W0001: unused\n\n```sn\nw\n```\n";
    let found = sections(doc);
    let summary: Vec<(&str, Vec<&str>)> = found
        .iter()
        .map(|s| {
            (
                s.code.as_str(),
                s.blocks.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![("E0002", vec!["bad\n", "good\n"]), ("W0001", vec!["w\n"])]
    );
}

#[test]
fn the_e0013_marker_becomes_a_raw_byte() {
    assert_eq!(raw_bytes("caf\\xE9 ok"), b"caf\xE9 ok".to_vec());
    assert_eq!(raw_bytes("plain"), b"plain".to_vec());
}
