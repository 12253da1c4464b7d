//! Goldens for the backend's own test programs (`backend-p4/tests/in/*.sn`): `features.sn` uses
//! every construct the backends write (stacks, lookahead, ternary/range tables, action data,
//! hoisted actions, counters, `on parser_error`, checksums, guarded reads, CSRs of every kind);
//! `refused.sn` one of each construct they refuse.

mod common;

use scenic_backend_p4::Target;

#[test]
fn features_are_written_for_both_targets() {
    let (module, sources) = common::lower("backend-p4/tests/in/features.sn");
    for target in [Target::V1Model, Target::VitisP4] {
        let text = match common::emit(&module, target) {
            Ok(p4) => p4,
            Err(errors) => panic!(
                "features.sn for {target}:\n{}",
                common::render(&errors, &sources)
            ),
        };
        insta::assert_snapshot!(format!("features.{target}"), text);
    }
}

#[test]
fn refused_constructs_are_reported_one_by_one() {
    let (module, sources) = common::lower("backend-p4/tests/in/refused.sn");
    for target in [Target::V1Model, Target::VitisP4] {
        let Err(errors) = common::emit(&module, target) else {
            panic!("refused.sn was written for {target}");
        };
        insta::assert_snapshot!(
            format!("refused.{target}"),
            common::render(&errors, &sources)
        );
    }
}

/// A CSR written in part (`flags[7:0] = v`) is a written CSR: v1model assigns the slice of the
/// register's variable (and writes the register back); Vitis refuses it, naming the CSR, as it
/// refuses any written CSR that is not a packet counter (docs/p4.md). It once came out as
/// `[7:0] = 8w1;` on both targets, with no error.
#[test]
fn csr_written_in_part_is_a_register_or_refused() {
    let (module, sources) = common::lower("backend-p4/tests/in/csr_slices.sn");
    let v1 = common::emit(&module, Target::V1Model)
        .unwrap_or_else(|e| panic!("v1model: {}", common::render(&e, &sources)));
    for line in v1.lines().map(str::trim) {
        assert!(
            !line.starts_with('['),
            "a slice with no place in v1model: {line}"
        );
    }
    assert!(
        v1.lines()
            .any(|l| l.contains("flags") && l.contains("[7:0] =")),
        "no write of flags[7:0]:\n{v1}"
    );
    for register in ["flags", "last_"] {
        assert!(
            v1.contains(&format!("{register}.write(0, scenic_csr_")),
            "{register} is not written back:\n{v1}"
        );
    }
    let Err(errors) = common::emit(&module, Target::VitisP4) else {
        panic!("Vitis accepted a written CSR")
    };
    let rendered = common::render(&errors, &sources);
    for name in ["`flags`", "`last`"] {
        assert!(rendered.contains(name), "{name} not refused:\n{rendered}");
    }
}

/// An `if` expression (`cond_expr.sn`) is P4's `?:` on v1model; Vitis Networking P4 has no `?:`
/// (UG1308), so there it is a temporary and an `if` (docs/p4.md), and no `?` is written at all.
#[test]
fn if_expressions_are_conditional_operators_or_temporaries() {
    let (module, sources) = common::lower("backend-p4/tests/in/cond_expr.sn");
    let v1 = common::emit(&module, Target::V1Model)
        .unwrap_or_else(|e| panic!("v1model: {}", common::render(&e, &sources)));
    assert!(
        v1.contains("hdr.ip.ttl = (hdr.ip.ttl > 8w64) ? 8w64 : ((hdr.ip.ttl == 8w0) ? 8w0 : (hdr.ip.ttl - 8w1));"),
        "{v1}"
    );
    let vitis = common::emit(&module, Target::VitisP4)
        .unwrap_or_else(|e| panic!("vitis-p4: {}", common::render(&e, &sources)));
    assert!(!vitis.contains('?'), "{vitis}");
    assert!(vitis.contains("if (hdr.ip.ttl > 8w64) {"), "{vitis}");
}
