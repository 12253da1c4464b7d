//! One list of P4 reserved words: the words the writer never gives a program name
//! (`keywords::P4_KEYWORDS`) are the keywords the P4 reader's grammar refuses as identifiers
//! (`frontend/src/p4/p4.pest`, its `kw_*` rules), plus the few words the writer must avoid for
//! other reasons, each listed below with the reason. A word added to one side and not the other
//! fails here: the writer could emit a name its own reader refuses, or the two lists drift apart.

use scenic_backend_p4::keywords::{LIBRARY_NAMES, P4_KEYWORDS};
use std::collections::BTreeSet;

/// Words the writer avoids that the reader's grammar does not reserve.
const WRITER_ONLY: &[(&str, &str)] = &[
    (
        "accept",
        "a state every P4 parser has (the spec reserves it as a state name)",
    ),
    (
        "reject",
        "a state every P4 parser has (the spec reserves it as a state name)",
    ),
    (
        "NoAction",
        "core.p4's action, which the writer names in tables",
    ),
    ("default_action", "a table property the writer writes"),
    ("size", "a table property the writer writes"),
    ("verify", "core.p4's extern function"),
    ("pragma", "p4c's lexer reads it as a keyword (`@pragma`)"),
    (
        "match",
        "reserved since the writer's first version with no reason recorded; a program name \
         `match` becomes `match_`, which costs nothing",
    ),
];

fn grammar_keywords() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../frontend/src/p4/p4.pest");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| l.starts_with("kw_"))
        .filter_map(|l| {
            let start = l.find('"')? + 1;
            let len = l[start..].find('"')?;
            Some(l[start..start + len].to_string())
        })
        .collect()
}

#[test]
fn the_writer_reserves_every_keyword_of_the_reader_and_only_the_listed_others() {
    let grammar = grammar_keywords();
    assert!(
        grammar.len() > 30,
        "no keywords read from p4.pest: {grammar:?}"
    );
    let writer: BTreeSet<String> = P4_KEYWORDS.iter().map(|s| s.to_string()).collect();
    let missing: Vec<&String> = grammar.difference(&writer).collect();
    assert!(
        missing.is_empty(),
        "keywords of the reader the writer may give out: {missing:?}"
    );
    let extra: BTreeSet<String> = writer.difference(&grammar).cloned().collect();
    let listed: BTreeSet<String> = WRITER_ONLY.iter().map(|(w, _)| w.to_string()).collect();
    assert_eq!(
        extra, listed,
        "words the writer reserves beyond the grammar must be listed with a reason"
    );
}

/// The names the architecture files declare at the top level (types, externs and extern
/// functions, parsers, controls, packages, match kinds, constants, macros) are all reserved by the
/// writer (`LIBRARY_NAMES` or `P4_KEYWORDS`), so a program name never collides with one: the list
/// was copied by hand and had drifted (`clone3`, `ClassOfService_t`, `V1MODEL_VERSION`, ...).
/// Members of `enum`s and `error` are scoped in P4 (`HashAlgorithm.crc32`) and need no reserving.
#[test]
fn the_writer_reserves_every_name_the_architecture_files_declare() {
    let mut declared = BTreeSet::new();
    for file in ["core.p4", "v1model.p4", "xsa.p4"] {
        let path = format!(
            "{}/../frontend/src/p4/arch/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        declared.extend(top_level_names(&tokens(&strip_comments(&text))));
    }
    assert!(declared.len() > 40, "too few names read: {declared:?}");
    let reserved: BTreeSet<&str> = P4_KEYWORDS.iter().chain(LIBRARY_NAMES).copied().collect();
    let missing: Vec<&String> = declared
        .iter()
        .filter(|n| !reserved.contains(n.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "declared by the architecture files, not reserved: {missing:?}"
    );
}

fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Identifiers and numbers as words, every other non-space character as a word of its own.
fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The declared top-level names, by the rules of the test's doc.
fn top_level_names(t: &[String]) -> Vec<String> {
    const DECLARE: &[&str] = &[
        "extern", "struct", "header", "enum", "control", "parser", "package", "typedef", "type",
    ];
    let mut names = Vec::new();
    let at = |i: usize| t.get(i).map_or("", String::as_str);
    for i in 0..t.len() {
        match at(i) {
            w if DECLARE.contains(&w) => {
                // The first identifier followed by `<`, `(`, `{` or `;`, past a `bit<N>`-like type.
                let mut j = i + 1;
                while j < t.len() {
                    if matches!(at(j), "bit" | "int" | "varbit") && at(j + 1) == "<" {
                        j += 4;
                        continue;
                    }
                    if is_ident(at(j)) && matches!(at(j + 1), "<" | "(" | "{" | ";") {
                        names.push(at(j).to_string());
                        break;
                    }
                    j += 1;
                }
            }
            "match_kind" if at(i + 1) == "{" => {
                let end = (i + 2..t.len()).find(|&k| at(k) == "}").unwrap_or(t.len());
                names.extend(
                    (i + 2..end)
                        .map(at)
                        .filter(|w| is_ident(w))
                        .map(str::to_string),
                );
            }
            "const" => {
                if let Some(k) = (i + 1..t.len()).find(|&k| at(k) == "=" || at(k) == ";") {
                    if at(k) == "=" && is_ident(at(k - 1)) {
                        names.push(at(k - 1).to_string());
                    }
                }
            }
            "define" if i > 0 && at(i - 1) == "#" && is_ident(at(i + 1)) => {
                names.push(at(i + 1).to_string());
            }
            _ => {}
        }
    }
    names
}
