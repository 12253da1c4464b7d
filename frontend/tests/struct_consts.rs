//! Struct and array literals as constant expressions (docs/language.md §4.15): "struct and array
//! literals whose fields and elements are constant expressions" are constants, so they can
//! initialise a struct or array `state` of a cc (§8.2); a field given a run-time value is not, and
//! the initialiser is E0210 as before.

use scenic_frontend::{check_frontend_only, CheckOptions};

fn codes(text: &str) -> Vec<&'static str> {
    let report = check_frontend_only("k.sn", text, CheckOptions::default());
    report
        .diagnostics
        .iter()
        .map(|d| d.code.id)
        .filter(|c| *c != "W0001")
        .collect()
}

fn cc_with_state(decl: &str) -> String {
    format!(
        "struct pair {{ a: bit<8>, b: bit<16> }}\ncc c per flow[16] {{\n    param p: bit<8> = 1;\n    {decl}\n    state w: size = 0B;\n    output window w;\n    on ack(x) {{ w = w + 1B; }}\n}}\n"
    )
}

#[test]
fn literals_of_constants_initialise_aggregate_state() {
    for decl in [
        "state s: pair = pair { a: 3, b: 7 };",
        "state s: [bit<8>; 2] = [1, 2];",
        "state s: [pair; 2] = [pair { a: 1, b: 2 }, pair { b: 4, a: 3 }];",
    ] {
        assert_eq!(codes(&cc_with_state(decl)), Vec::<&str>::new(), "{decl}");
    }
}

#[test]
fn a_field_given_a_param_is_not_a_constant() {
    assert_eq!(
        codes(&cc_with_state("state s: pair = pair { a: p, b: 7 };")),
        ["E0210"]
    );
    assert_eq!(
        codes(&cc_with_state("state s: [bit<8>; 2] = [p, 2];")),
        ["E0210"]
    );
}

#[test]
fn a_field_that_does_not_fit_is_still_e0203() {
    assert_eq!(
        codes(&cc_with_state("state s: pair = pair { a: 256, b: 7 };")),
        ["E0203"]
    );
}

#[test]
fn an_element_that_does_not_fit_is_still_e0203() {
    assert_eq!(
        codes(&cc_with_state("state s: [bit<8>; 2] = [1, 300];")),
        ["E0203"]
    );
}
