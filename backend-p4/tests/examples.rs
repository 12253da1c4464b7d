//! Goldens: the P4 of every example that P4 can express, for both targets, and the errors of every
//! example it cannot (`backend-p4/tests/snapshots/`, reviewed like code; `cargo insta review` after a
//! deliberate change).
//!
//! Which examples are expressible is pinned here too, so that a change that makes an example
//! silently stop compiling (or start) is noticed: l3_router is the one slow-path example without
//! maps, meters or periodic work; firewall and flow_monitor keep per-flow state in maps and run
//! `every` blocks; partition and xor_cipher are payload stream kernels; dcqcn and window_cc are
//! congestion controllers.

mod common;

use scenic_backend_p4::Target;

const EXPRESSIBLE: &[&str] = &["l3_router"];

#[test]
fn every_example_for_both_targets() {
    let names = common::examples();
    assert!(names.len() >= 7, "examples: {names:?}");
    for name in &names {
        let path = format!("examples/{name}.sn");
        let (module, sources) = common::lower(&path);
        for target in [Target::V1Model, Target::VitisP4] {
            let result = common::emit(&module, target);
            let expressible = EXPRESSIBLE.contains(&name.as_str());
            let text = match &result {
                Ok(p4) => p4.clone(),
                Err(errors) => common::render(errors, &sources),
            };
            assert_eq!(result.is_ok(), expressible, "{name} for {target}:\n{text}");
            insta::assert_snapshot!(format!("{name}.{target}"), text);
        }
    }
}
