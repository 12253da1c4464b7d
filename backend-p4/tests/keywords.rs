//! One list of P4 reserved words: the words the writer never gives a program name
//! (`keywords::P4_KEYWORDS`) are the keywords the P4 reader's grammar refuses as identifiers
//! (`frontend/src/p4/p4.pest`, its `kw_*` rules), plus the few words the writer must avoid for
//! other reasons, each listed below with the reason. A word added to one side and not the other
//! fails here: the writer could emit a name its own reader refuses, or the two lists drift apart.

use scenic_backend_p4::keywords::P4_KEYWORDS;
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
