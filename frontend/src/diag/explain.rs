//! Long explanations of diagnostic codes (`scenicc explain CODE`).
//!
//! The explanations live in `docs/errors.md`, embedded here at build time so the binary needs no files at
//! run time. Every section of that document starts with a heading line `## CODE: title` (for example
//! `## E0201: mismatched types`) and runs to the next line that starts with `## `. The section text,
//! heading included, is what `scenicc explain` prints.

/// The whole of `docs/errors.md`.
const ERRORS_MD: &str = include_str!("../../../docs/errors.md");

/// The section of `docs/errors.md` that explains `code` (ASCII case ignored: `e0201` finds `E0201`),
/// heading included, without trailing blank lines; `None` if the code has no section.
pub fn explanation(code: &str) -> Option<&'static str> {
    section(ERRORS_MD, code)
}

/// Every code that has a section in `docs/errors.md`, in document order.
pub fn documented_codes() -> Vec<&'static str> {
    codes_in(ERRORS_MD)
}

/// The code of a section heading line (`## E0201: mismatched types` gives `E0201`).
fn heading_code(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("## ")?;
    let (code, _title) = rest.split_once(':')?;
    let code = code.trim();
    let well_formed = !code.is_empty() && code.chars().all(|c| c.is_ascii_alphanumeric());
    well_formed.then_some(code)
}

/// The codes of every section heading in `doc`, in order.
fn codes_in(doc: &str) -> Vec<&str> {
    doc.lines().filter_map(heading_code).collect()
}

/// The section of `doc` for `code`: from its `## CODE: title` line up to (not including) the next
/// line starting with `## `, or the end of `doc`; trailing whitespace is trimmed.
fn section<'a>(doc: &'a str, code: &str) -> Option<&'a str> {
    let code = code.trim();
    let mut start = None;
    let mut offset = 0;
    for line in doc.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        if let Some(begin) = start {
            if text.starts_with("## ") {
                return Some(doc[begin..offset].trim_end());
            }
        } else if heading_code(text).is_some_and(|c| c.eq_ignore_ascii_case(code)) {
            start = Some(offset);
        }
        offset += line.len();
    }
    start.map(|begin| doc[begin..].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# codes\n\nIntro.\n\n## E0001: syntax error\n\nFirst.\n\n```sn\nconst A: bit<8> = ;\n```\n\n\
                       ## E0002: malformed number\n\nSecond.\n### not a section\nStill second.\n\n\
                       ## W0001: unused\n\nLast.\n";

    #[test]
    fn finds_a_section_up_to_the_next_heading() {
        let text = section(DOC, "E0001");
        assert_eq!(
            text,
            Some("## E0001: syntax error\n\nFirst.\n\n```sn\nconst A: bit<8> = ;\n```")
        );
    }

    #[test]
    fn ignores_case_and_surrounding_space() {
        assert_eq!(section(DOC, "e0001"), section(DOC, "E0001"));
        assert_eq!(section(DOC, " w0001 "), Some("## W0001: unused\n\nLast."));
    }

    #[test]
    fn deeper_headings_stay_inside_a_section() {
        let text = section(DOC, "E0002");
        assert_eq!(
            text,
            Some("## E0002: malformed number\n\nSecond.\n### not a section\nStill second.")
        );
    }

    #[test]
    fn the_last_section_runs_to_the_end() {
        assert_eq!(section(DOC, "W0001"), Some("## W0001: unused\n\nLast."));
    }

    #[test]
    fn unknown_codes_and_prefixes_are_not_found() {
        assert_eq!(section(DOC, "E9999"), None);
        assert_eq!(section(DOC, "E000"), None);
        assert_eq!(section(DOC, ""), None);
        assert_eq!(section(DOC, "codes"), None);
    }

    #[test]
    fn handles_crlf_line_endings() {
        let doc = "## E0001: syntax error\r\n\r\nText.\r\n## E0002: x\r\n";
        assert_eq!(
            section(doc, "E0001"),
            Some("## E0001: syntax error\r\n\r\nText.")
        );
    }

    #[test]
    fn lists_codes_in_order() {
        assert_eq!(codes_in(DOC), vec!["E0001", "E0002", "W0001"]);
    }

    #[test]
    fn the_embedded_document_explains_e0001() {
        let text = explanation("e0001").unwrap_or_default();
        assert!(text.starts_with("## E0001: syntax error\n"), "{text}");
        assert!(documented_codes().contains(&"E0001"));
    }

    #[test]
    fn every_documented_code_is_in_the_catalogue() {
        for code in documented_codes() {
            assert!(
                super::super::codes::lookup(code).is_some(),
                "{code} is documented but not a code"
            );
        }
    }
}
