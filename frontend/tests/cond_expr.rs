//! The conditional expression `if c { a } else { b }` in the checker (docs/language.md §4.17):
//! where it parses, how its branches are typed, what is constant, and the errors that point users
//! from C's `?:` and from a missing `else` to the right form. Each expectation quotes the rule of
//! §4.17 (or §4.2 for the literal typing it shares with binary operators) that decides it.

use scenic_frontend::{check_frontend_only, CheckOptions};

/// The codes of the diagnostics of `body` placed in the control of a small scu (unused-name
/// warnings aside: the scaffold declares more than each case uses).
fn codes_in_control(body: &str) -> Vec<&'static str> {
    let text = format!(
        "const A: bit<8> = 5;\nscu s on slow_path {{\n    csr x: bit<8>;\n    csr y: bit<16>;\n    fn f() -> bit<8> {{ x += 1; return x; }}\n    control {{\n        let mut z: int<8> = x as int<8>;\n{body}\n        x = z as bit<8>;\n    }}\n}}\n"
    );
    let report = check_frontend_only("c.sn", &text, CheckOptions::default());
    report
        .diagnostics
        .iter()
        .map(|d| d.code.id)
        .filter(|c| *c != "W0001")
        .collect()
}

#[test]
fn an_if_is_a_value_wherever_an_expression_is() {
    // "Anywhere an expression may be": let, assignment, argument, operand, match scrutinee.
    for body in [
        "let v: bit<8> = if x > 3 { 1 } else { 2 }; x = v;",
        "x = if x > 3 { x } else if x == 0 { 7 } else { f() };",
        "y = (if x > 3 { x } else { 0 }) ++ x;",
        "x = x + if x > 3 { 1 } else { 2 };",
        "x = if x > 3 { x } else { 2 } + x;",
        "to_network(if x > 3 { 1 } else { 2 });",
        "match (if x > 3 { x } else { 0 }) { 4 => x = 1, _ => x = 2, }",
        "z = if z < 0 { -z } else { z };",
        "if x > 3 { x = 1; } else { x = 2; }",
    ] {
        assert_eq!(codes_in_control(body), Vec::<&str>::new(), "{body}");
    }
}

#[test]
fn branches_are_typed_like_binary_operands() {
    // §4.17 Typing: a literal branch takes the other branch's type and must fit it (E0203);
    // different types are E0202 (widths) or E0201; the condition is a bool (E0201); two literals
    // with no context and a run-time condition are E0209.
    let cases: [(&str, &[&str]); 8] = [
        ("y = if x > 3 { 300 } else { y };", &[]),
        ("x = if x > 3 { 300 } else { x };", &["E0203"]),
        ("y = if x > 3 { x } else { y };", &["E0202"]),
        ("x = if x > 3 { x } else { true };", &["E0201"]),
        ("x = if x { 1 } else { 2 };", &["E0201"]),
        ("let v = if x > 3 { 1 } else { 2 }; x = v;", &["E0209"]),
        // A left operand is typed before its partner (as `1 + x` would be retyped, a run-time `if`
        // of two literals cannot be): E0209; with the typed operand first it is fine.
        ("x = if x > 3 { 1 } else { 2 } + x;", &["E0209"]),
        ("x = x + if x > 3 { 1 } else { 2 };", &[]),
    ];
    for (body, want) in cases {
        assert_eq!(codes_in_control(body), want, "{body}");
    }
}

#[test]
fn concatenation_operands_are_typed_on_their_own() {
    // §4.6: "a literal operand has no width (E0209)", on either side; §4.17: an `if` operand of
    // `++` takes its type from its own branches (a literal branch from the other branch), never
    // from the other operand of `++`.
    let cases: [(&str, &[&str]); 7] = [
        ("y = x ++ 5;", &["E0209"]),
        ("y = 5 ++ x;", &["E0209"]),
        ("y = x ++ (5 as bit<8>);", &[]),
        ("y = x ++ (if x > 3 { 0 } else { x });", &[]),
        ("y = x ++ if x > 3 { x } else { 0 };", &[]),
        // `z` is `int<8>`: its branch types the literal, and `++` takes its bits (§4.6).
        ("y = x ++ (if x > 3 { 0 } else { z });", &[]),
        // Two literal branches with nothing to type them: E0209, as `x ++ 5` is.
        ("y = x ++ (if x > 3 { 0 } else { 1 });", &["E0209"]),
    ];
    for (body, want) in cases {
        assert_eq!(codes_in_control(body), want, "{body}");
    }
}

#[test]
fn constant_ifs_and_chains() {
    // §4.17 Constants: a constant condition and constant branches make a constant expression.
    let ok = "const A: bit<8> = 5;\nconst B: bit<8> = if A > 3 { 1 } else { 2 };\nconst C: bit<8> = if A > 9 { 1 } else if A > 4 { 2 } else { 3 };\nconst D: bit<8> = B + C;\n";
    let report = check_frontend_only("k.sn", ok, CheckOptions::default());
    assert!(report.diagnostics.is_empty(), "{}", report.render_plain());
    // An untaken branch that does not fit is still an error: both branches are typed.
    let bad = "const A: bit<8> = 5;\nconst B: bit<8> = if A > 3 { 1 } else { 256 };\n";
    let report = check_frontend_only("k.sn", bad, CheckOptions::default());
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E0203"]);
}

#[test]
fn c_conditional_and_a_missing_else_have_their_own_errors() {
    assert_eq!(codes_in_control("x = x > 3 ? 1 : 2;"), ["E0015"]);
    assert_eq!(codes_in_control("x = if x > 3 { 1 };"), ["E0016"]);
    // A branch holds one expression, not statements.
    assert_eq!(
        codes_in_control("x = if x > 3 { x = 1; 1 } else { 2 };"),
        ["E0001"]
    );
    // An `if` expression used as a statement throws its value away (W0004).
    assert_eq!(
        codes_in_control("if x > 3 { f() } else { f() };"),
        ["W0004"]
    );
}
