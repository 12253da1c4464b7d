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
