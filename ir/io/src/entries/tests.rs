//! Tests of the entries JSON: the documented example, every match form, errors with positions and
//! paths, robustness.

use super::*;
use crate::testutil::robustness;

fn n(v: u128) -> BigUint {
    BigUint::from(v)
}

/// The example of the module documentation.
const EXAMPLE: &str = r#"{
  "format_version": 1,
  "tables": {
    "acl": [
      { "priority": 10,
        "key": { "ip.src": "10.0.0.0/8",
                 "ip.dst": { "value": "0x0a000001", "mask": "0xffffffff" },
                 "tcp.dst_port": { "range": [22, 22] } },
        "action": "limit", "args": { "class": 3 } }
    ],
    "route": {
      "entries": [ { "key": { "ip.dst": "10.1.0.0/16" }, "action": "forward", "args": { "port": 2 } } ],
      "default": { "action": "forward", "args": { "port": 1 } }
    }
  },
  "csrs": { "default_rate_mbps": 50000, "aimd.min_cwnd": "8KiB" }
}"#;

#[test]
fn the_documented_example() {
    let doc = parse(EXAMPLE).unwrap();
    let names: Vec<_> = doc.tables.keys().map(String::as_str).collect();
    assert_eq!(names, ["acl", "route"]);
    let acl = &doc.tables["acl"];
    assert_eq!(acl.default, None);
    let e = &acl.entries[0];
    assert_eq!(e.priority, Some(10));
    assert_eq!(e.path, "tables.acl[0]");
    assert_eq!(
        e.keys,
        vec![
            KeyField {
                name: "ip.src".into(),
                value: MatchValue::Lpm {
                    value: n(0x0a00_0000),
                    prefix_len: 8
                }
            },
            KeyField {
                name: "ip.dst".into(),
                value: MatchValue::Ternary {
                    value: n(0x0a00_0001),
                    mask: n(0xffff_ffff)
                }
            },
            KeyField {
                name: "tcp.dst_port".into(),
                value: MatchValue::Range {
                    lo: n(22),
                    hi: n(22)
                }
            },
        ]
    );
    assert_eq!(
        e.action,
        ActionCall {
            name: "limit".into(),
            args: vec![Arg {
                name: "class".into(),
                value: n(3)
            }]
        }
    );
    let route = &doc.tables["route"];
    assert_eq!(route.entries.len(), 1);
    assert_eq!(route.entries[0].path, "tables.route.entries[0]");
    assert_eq!(route.entries[0].priority, None);
    let default = route.default.as_ref().unwrap();
    assert_eq!(
        default,
        &ActionCall {
            name: "forward".into(),
            args: vec![Arg {
                name: "port".into(),
                value: n(1)
            }]
        }
    );
    assert_eq!(doc.csrs["default_rate_mbps"], 50_000);
    assert_eq!(doc.csrs["aimd.min_cwnd"], 8192);
}

#[test]
fn every_match_form() {
    let text = r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {
        "a": 42, "b": "0x2a", "c": true, "d": null, "e": "_", "f": "0x0a****01",
        "g": {"value": "10.0.0.0", "prefix_len": 8}, "h": "2001:db8::/32", "i": "00:11:22:33:44:55",
        "j": "1..5", "k": "1->5", "l": {"value": 5, "mask": "0b101"}, "m": "5&&&7",
        "n": {"range": ["0x10", 32]}, "o": "0x1_0000_0000_0000_0000_0000"}}]}}"#;
    let doc = parse(text).unwrap();
    let keys = &doc.tables["t"].entries[0].keys;
    let get = |name: &str| keys.iter().find(|k| k.name == name).unwrap().value.clone();
    use MatchValue::*;
    assert_eq!(get("a"), Exact(n(42)));
    assert_eq!(get("b"), Exact(n(42)));
    assert_eq!(get("c"), Exact(n(1)));
    assert_eq!(get("d"), Any);
    assert_eq!(get("e"), Any);
    assert_eq!(
        get("f"),
        Ternary {
            value: n(0x0a00_0001),
            mask: n(0xff00_00ff)
        }
    );
    assert_eq!(
        get("g"),
        Lpm {
            value: n(0x0a00_0000),
            prefix_len: 8
        }
    );
    assert_eq!(
        get("h"),
        Lpm {
            value: n(0x2001_0db8) << 96,
            prefix_len: 32
        }
    );
    assert_eq!(get("i"), Exact(n(0x0011_2233_4455)));
    assert_eq!(get("j"), Range { lo: n(1), hi: n(4) });
    assert_eq!(get("k"), Range { lo: n(1), hi: n(5) });
    assert_eq!(
        get("l"),
        Ternary {
            value: n(5),
            mask: n(5)
        }
    );
    assert_eq!(
        get("m"),
        Ternary {
            value: n(5),
            mask: n(7)
        }
    );
    assert_eq!(
        get("n"),
        Range {
            lo: n(16),
            hi: n(32)
        }
    );
    assert_eq!(get("o"), Exact(n(1) << 80));
    let names: Vec<_> = keys.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names.concat(), "abcdefghijklmno", "file order is kept");
}

#[test]
fn minimal_documents() {
    assert_eq!(
        parse(r#"{"format_version": 1}"#).unwrap(),
        Entries::default()
    );
    let doc = parse(r#"{"tables": {"t": {}}, "format_version": 1}"#).unwrap();
    assert_eq!(doc.tables["t"], TableEntries::default());
    let doc = parse(r#"{"format_version": 1, "tables": {"t": [{"action": "a"}]}}"#).unwrap();
    assert!(doc.tables["t"].entries[0].keys.is_empty());
    let doc = parse(r#"{"format_version": 1, "csrs": {"a": 9007199254740992, "b": "0xffffffffffffffff", "c": false, "d": "55us"}}"#).unwrap();
    assert_eq!(
        doc.csrs.values().copied().collect::<Vec<_>>(),
        [1 << 53, u64::MAX, 0, 55_000]
    );
}

fn error(text: &str) -> String {
    parse(text)
        .map(|d| format!("parsed: {d:?}"))
        .unwrap_or_else(|e| e.to_string())
}

#[test]
fn errors_give_position_and_path() {
    let cases = [
        ("", "line 1, column 0: EOF while parsing a value"),
        ("[]", "line 1, column 2: invalid type: sequence, expected an entries object with `format_version`, `tables` and `csrs`"),
        ("{}", "line 1, column 2: missing field `format_version`"),
        (r#"{"format_version": 2}"#, "line 1, column 21: at format_version: unsupported format_version 2 (expected 1)"),
        (r#"{"format_version": 1, "tabels": {}}"#, "line 1, column 30: at tabels: unknown field `tabels` (expected format_version, tables or csrs)"),
        (r#"{"format_version": 1} x"#, "line 1, column 23: trailing characters"),
        (r#"{"format_version": 1, "tables": {"t": 5}}"#, "line 1, column 39: at tables.t: invalid type: integer `5`, expected a list of entries, or an object with `entries` and `default`"),
        (r#"{"format_version": 1, "tables": {"t": [{}]}}"#, "line 1, column 41: at tables.t[0]: missing field `action`"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": 3}]}}"#, "line 1, column 51: at tables.t[0].action: invalid type: integer `3`, expected a string"),
        ("{\"format_version\": 1,\n \"tables\": {\"acl\": [{\"action\": \"a\"},\n  {\"action\": \"a\", \"key\": {\"ip.dst\": \"10.0.0.1/8\"}}]}}", "line 3, column 48: at tables.acl[1].key.\"ip.dst\": invalid value `10.0.0.1/8`: the address has bits set beyond its /8 prefix"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {"k": 1, "k": 2}}]}}"#, "line 1, column 74: at tables.t[0].key.k: `k` is given twice"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "args": {"p": -1}}]}}"#, "line 1, column 71: at tables.t[0].args.p: -1 is not an integer from 0 to 2^53; write larger integers as strings"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "args": {"p": 1.5}}]}}"#, "line 1, column 72: at tables.t[0].args.p: 1.5 is not an integer from 0 to 2^53; write larger integers as strings"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "args": {"p": 9007199254740993}}]}}"#, "line 1, column 85: at tables.t[0].args.p: 9007199254740993 is not an integer from 0 to 2^53; write larger integers as strings"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "priority": 4294967296}]}}"#, "line 1, column 78: at tables.t[0].priority: 4294967296 does not fit in 32 bits"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {"k": {"value": 1}}}]}}"#, "line 1, column 80: at tables.t[0].key.k: a match object is {\"value\", \"mask\"}, {\"value\", \"prefix_len\"} or {\"range\": [lo, hi]}"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {"k": {"range": [5, 4]}}}]}}"#, "line 1, column 84: at tables.t[0].key.k.range: range bounds are reversed (5 > 4)"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {"k": {"range": [1, 2, "x"]}}}]}}"#, "line 1, column 88: at tables.t[0].key.k.range[2]: invalid value `x`: invalid character `x` in a decimal number"),
        (r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {"k": {"mask": 1, "colour": 2}}}]}}"#, "line 1, column 88: at tables.t[0].key.k.colour: unknown field `colour` (expected value, mask, prefix_len or range)"),
        (r#"{"format_version": 1, "tables": {"t": {"default": {"args": {}}}}}"#, "line 1, column 62: at tables.t.default: missing field `action`"),
        (r#"{"format_version": 1, "csrs": {"rate": "40mbps"}}"#, "line 1, column 47: at csrs.rate: invalid value `40mbps`: unknown quantity unit `mbps` (expected one of: ns, us, ms, s, B, KB, KiB, MB, MiB, GB, GiB, TB, TiB, bps, Kbps, Mbps, Gbps, Tbps)"),
        (r#"{"format_version": 1, "csrs": {"x": [1]}}"#, "line 1, column 37: at csrs.x: invalid type: sequence, expected a 64-bit value (a number, or a string such as \"0xff\" or \"40Mbps\")"),
        ("{\"format_version\": 1, \"tables\": {\"t\": [{\"action\": \"a\",}]}}", "line 1, column 55: at tables.t[0]: trailing comma"),
    ];
    let mut bad = Vec::new();
    for (text, want) in cases {
        let got = error(text);
        if got != want {
            bad.push(format!("{text}\n  got:  {got}\n  want: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn structured_error_fields() {
    let e =
        parse(r#"{"format_version": 1, "tables": {"t": [{"action": "a", "key": {"k": "0xzz"}}]}}"#)
            .unwrap_err();
    assert_eq!((e.line, e.path.as_str()), (1, "tables.t[0].key.k"));
    let Problem::Value { text, error } = e.problem else {
        panic!("{e}")
    };
    assert_eq!((text.as_str(), error.at), ("0xzz", 2));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{{\"format_version\": 1, \"tables\": {{\"t\": [{{\"action\": \"a\", \"args\": {{\"p\": {}1{}}}}}]}}}}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(parse(&deep).is_err());
}

#[test]
fn robust_against_truncation_and_corruption() {
    let runs = robustness(EXAMPLE.as_bytes(), 5000, |b| {
        let text = String::from_utf8_lossy(b);
        if let Err(e) = parse(&text) {
            assert!(e.line <= text.matches('\n').count() + 1, "{e}");
            assert!(!e.to_string().is_empty());
        }
    });
    assert!(runs > 5000);
}

#[test]
fn the_example_in_docs_testing_md_is_the_module_example() {
    let doc = crate::stf::tests::doc_block("## Table entries JSON");
    assert_eq!(parse(&doc).unwrap(), parse(EXAMPLE).unwrap());
}
