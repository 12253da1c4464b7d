//! The pass manager: registration, aliases, expansion, errors and the listing.

use super::*;

#[test]
fn default_passes_are_registered_under_their_file_names() {
    let pm = PassManager::with_default_passes();
    let names: Vec<&str> = pm.passes().iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "compact",
            "constant-folding",
            "dead-code-elimination",
            "function-inlining",
            "loop-unrolling",
            "parser-state-merging",
            "table-key-packing",
        ]
    );
    for p in pm.passes() {
        assert!(p.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
        assert!(!p.description.is_empty());
    }
}

#[test]
fn aliases_expand_in_order() {
    let pm = PassManager::with_default_passes();
    assert_eq!(
        pm.expand(&["cleanup", "compact"]),
        Ok(vec!["constant-folding", "dead-code-elimination", "compact"])
    );
    let all = pm.expand(&["all"]).unwrap_or_default();
    assert_eq!(all.first(), Some(&"function-inlining"));
    assert_eq!(all.len(), 6);
}

#[test]
fn unknown_names_list_what_exists() {
    let pm = PassManager::with_default_passes();
    let err = pm.expand(&["constant-folding", "inline"]).unwrap_err();
    let PassError::UnknownPass {
        name,
        passes,
        aliases,
    } = &err
    else {
        panic!("unexpected error {err:?}");
    };
    assert_eq!(name, "inline");
    assert!(passes.contains(&"function-inlining"));
    assert_eq!(aliases, &["all", "cleanup"]);
    let message = err.to_string();
    assert!(message.contains("unknown pass `inline`"), "{message}");
    assert!(message.contains("function-inlining"), "{message}");
    let mut module = Module::default();
    assert!(pm.run_named(&mut module, &["inline"]).is_err());
    assert!(
        pm.run_pass("all", &mut module).is_err(),
        "aliases are not passes"
    );
}

#[test]
fn duplicates_are_refused() {
    let mut pm = PassManager::with_default_passes();
    assert_eq!(
        pm.register::<Compact>(),
        Err(PassError::Duplicate("compact"))
    );
    assert_eq!(
        pm.register_alias("compact", "", &[]),
        Err(PassError::Duplicate("compact"))
    );
    assert!(pm
        .register_alias("tidy", "tidy up", &["cleanup", "compact"])
        .is_ok());
    assert_eq!(pm.expand(&["tidy"]).map(|v| v.len()), Ok(3));
}

#[test]
fn listing_names_every_pass_and_alias() {
    let pm = PassManager::with_default_passes();
    let list = pm.list();
    for p in pm.passes() {
        assert!(list.contains(p.name), "{list}");
    }
    assert!(list.contains("all"), "{list}");
    assert!(list.contains("cleanup"), "{list}");
}

#[test]
fn passes_leave_an_empty_module_unchanged() {
    let pm = PassManager::with_default_passes();
    let mut module = Module::default();
    for p in pm.passes() {
        assert_eq!(pm.run_pass(p.name, &mut module), Ok(PassResult::Unchanged));
    }
    assert_eq!(module, Module::default());
}
