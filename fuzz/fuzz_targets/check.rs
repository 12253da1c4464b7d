//! Feeds arbitrary bytes to the frontend as one source file, checks it, and renders the result as
//! plain text and as JSON lines. Besides panics, hangs and stack overflows, it treats a diagnostic
//! without a proper location as a crash: every label must be a file location whose span lies within
//! the file, and every JSON line must have `line >= 1` and `column >= 1` (the same properties as
//! `testsuite/tests/mutations.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use scenic_frontend::diag::Loc;
use scenic_frontend::{stdlib, CheckOptions, Session};

fuzz_target!(|data: &[u8]| {
    let mut session = Session::new();
    let file = session.add_source_bytes("fuzz.sn", data);
    let report = session.check(CheckOptions::default());
    let my_id = file.id(session.db());
    let my_len = file.text(session.db()).len();

    for diag in &report.diagnostics {
        assert_eq!(
            diag.labels.iter().filter(|l| l.primary).count(),
            1,
            "{} `{}`: not exactly one primary label",
            diag.code.id,
            diag.message
        );
        for label in &diag.labels {
            let Loc::File { file, span } = label.loc else {
                panic!(
                    "{} `{}`: label is not a file location: {:?}",
                    diag.code.id, diag.message, label.loc
                );
            };
            let len = if file == my_id {
                my_len
            } else {
                let name = report.sources.name(file);
                match stdlib::MODULES
                    .iter()
                    .find(|(_, display, _)| *display == name)
                {
                    Some((_, _, text)) => text.len(),
                    None => panic!(
                        "{} `{}`: label in unexpected file `{name}`",
                        diag.code.id, diag.message
                    ),
                }
            };
            assert!(
                span.lo <= span.hi && span.hi as usize <= len,
                "{} `{}`: span {}..{} outside the file (length {len})",
                diag.code.id,
                diag.message,
                span.lo,
                span.hi
            );
        }
    }

    let _plain = report.render_plain();
    let json = report.json_lines();
    assert_eq!(json.len(), report.diagnostics.len());
    for line in &json {
        for key in ["\"line\":", "\"column\":"] {
            for (at, _) in line.match_indices(key) {
                let rest = &line[at + key.len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                let value: usize = digits.parse().unwrap_or(0);
                assert!(value >= 1, "JSON {key} not >= 1: {line}");
            }
        }
    }
});
