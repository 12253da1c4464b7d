//! The driver end to end on small programs: rendering, JSON, recovery across items.

use scenic_frontend::{check_frontend_only, CheckOptions};

#[test]
fn syntax_errors_in_several_items_are_all_reported() {
    let report = check_frontend_only(
        "bad.sn",
        "const A: bit<8> = 10mb;\nconst B: bit<8> = 0xZZ;\nfunction f() {}\n",
        CheckOptions::default(),
    );
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E0004", "E0002", "E0009"]);
    let text = report.render_plain();
    assert!(text.contains("error[E0004]: unknown unit `mb`"), "{text}");
    assert!(text.contains("--> bad.sn:1:19"), "{text}");
}

#[test]
fn json_lines_carry_locations() {
    let report = check_frontend_only(
        "j.sn",
        "\n  const A: bit<8> = 1.5ns;",
        CheckOptions::default(),
    );
    let lines = report.json_lines();
    assert_eq!(lines.len(), 1);
    let value: serde_json::Value = serde_json::from_str(&lines[0]).expect("valid JSON");
    assert_eq!(value["code"], "E0012");
    assert_eq!(value["severity"], "error");
    assert_eq!(value["file"], "j.sn");
    assert_eq!(value["line"], 2);
    assert_eq!(value["column"], 21);
    assert!(value["labels"].as_array().is_some_and(|l| !l.is_empty()));
}

#[test]
fn a_standard_module_can_be_imported_whole() {
    let report = check_frontend_only(
        "m.sn",
        "use std::net;\nuse std::hash;\nconst T: bit<16> = net::ETHERTYPE_IPV4;\nfn f(x: bit<32>) -> bit<32> { return hash::crc32(x); }\n",
        CheckOptions::default(),
    );
    assert_eq!(report.diagnostics.len(), 0, "{}", report.render_plain());
}

#[test]
fn short_names_get_no_far_fetched_suggestions() {
    let report = check_frontend_only(
        "s.sn",
        "const G: bit<8> = 1;\nconst H: bit<8> = t;\n",
        CheckOptions::default(),
    );
    let text = report.render_plain();
    assert!(text.contains("cannot find `t`"), "{text}");
    assert!(!text.contains("similar spelling"), "{text}");
}
