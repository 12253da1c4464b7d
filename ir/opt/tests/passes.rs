//! The passes: goldens and semantics.
//!
//! Goldens: every `tests/passes/<name>.sn` starts with a comment `// passes: <pass>, <pass>...`
//! (passes or aliases). The test lowers it, prints its IR before and after running those passes
//! (validating the module after each pass) and compares both with the insta snapshots
//! `tests/snapshots/passes/<name>.before.snap` and `<name>.after.snap`. The file of a pass has the
//! pass's name. To add or update goldens: `INSTA_UPDATE=always cargo test -p scenic-ir --test
//! passes`, then review every changed `.snap` like code.
//!
//! Semantics ([`semantics`]): every pass, and the `all` pipeline, runs on every example and every
//! golden program, and the interpreter must give the same results on the module before and after.
//! Robustness ([`robustness`]): no pass panics or hangs on a broken module.

#[path = "../../interp/tests/common/mod.rs"]
mod common;
#[path = "passes/robustness.rs"]
mod robustness;
#[path = "passes/semantics.rs"]
mod semantics;

use scenic_ir::valid::Validator;
use scenic_ir::Module;
use scenic_opt::PassManager;
use std::path::{Path, PathBuf};

/// The `.sn` files of a directory, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "sn"));
    paths.sort();
    paths
}

/// The golden programs.
fn goldens() -> Vec<PathBuf> {
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes"))
}

/// The example programs.
fn examples() -> Vec<PathBuf> {
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"))
}

/// The passes named on a golden's first line.
fn listed_passes(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let first = text.lines().next().unwrap_or_default();
    let list = first.strip_prefix("// passes:").unwrap_or_else(|| {
        panic!(
            "{}: the first line must be `// passes: ...`",
            path.display()
        )
    });
    list.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether `module` validates; the error otherwise.
fn validate(module: &Module) -> Result<(), String> {
    Validator::new()
        .validate(module)
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
}

/// Runs `names` (passes and aliases) on `module`. When the module validated before, it must
/// validate after every pass.
fn run_passes(module: &mut Module, names: &[&str], what: &str) {
    let pm = PassManager::with_default_passes();
    let passes = pm.expand(names).unwrap_or_else(|e| panic!("{what}: {e}"));
    let checked = validate(module).is_ok();
    for pass in passes {
        let _changed = pm
            .run_pass(pass, module)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        if checked {
            if let Err(e) = validate(module) {
                panic!(
                    "{what}: the module no longer validates after `{pass}`: {e}\n{}",
                    scenic_ir::print::print_module(module)
                );
            }
        }
    }
}

#[test]
fn goldens_match_their_snapshots() {
    let paths = goldens();
    assert!(paths.len() >= 6, "one golden per pass at least");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/passes");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    for path in &paths {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let names = listed_passes(path);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut module = common::lower(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The name printed must not depend on where the repository is checked out.
        module.source_name = format!("tests/passes/{name}.sn");
        validate(&module).unwrap_or_else(|e| panic!("{name}: the golden does not validate: {e}"));
        let before = scenic_ir::print::print_module(&module);
        run_passes(&mut module, &names, name);
        let after = scenic_ir::print::print_module(&module);
        settings.set_description(format!("{name}.sn before `{}`", names.join(", ")));
        settings.bind(|| insta::assert_snapshot!(format!("{name}.before"), before));
        settings.set_description(format!("{name}.sn after `{}`", names.join(", ")));
        settings.bind(|| insta::assert_snapshot!(format!("{name}.after"), after));
    }
}

#[test]
fn every_pass_has_a_golden() {
    let pm = PassManager::with_default_passes();
    let stems: Vec<String> = goldens()
        .iter()
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(String::from))
        .collect();
    for p in pm.passes() {
        assert!(
            stems.iter().any(|s| s == p.name),
            "no golden tests/passes/{}.sn",
            p.name
        );
    }
}

#[test]
fn passes_are_idempotent_on_the_examples() {
    for path in examples() {
        let mut module = common::lower(&path).unwrap_or_else(|e| panic!("{e}"));
        run_passes(&mut module, &["all"], &path.display().to_string());
        let once = module.clone();
        run_passes(&mut module, &["all"], &path.display().to_string());
        assert_eq!(
            scenic_ir::print::print_module(&once),
            scenic_ir::print::print_module(&module),
            "{}: a second `all` changed the module",
            path.display()
        );
    }
}

#[test]
fn a_second_run_changes_nothing() {
    let pm = PassManager::with_default_passes();
    for path in examples().into_iter().chain(goldens()) {
        let original = common::lower(&path).unwrap_or_else(|e| panic!("{e}"));
        for p in pm.passes() {
            let mut module = original.clone();
            let _first = pm.run_pass(p.name, &mut module);
            let once = module.clone();
            let second = pm.run_pass(p.name, &mut module);
            assert_eq!(
                second,
                Ok(scenic_opt::PassResult::Unchanged),
                "{}: `{}` reported a change the second time",
                path.display(),
                p.name
            );
            assert_eq!(
                once,
                module,
                "{}: `{}` is not idempotent",
                path.display(),
                p.name
            );
        }
    }
}
