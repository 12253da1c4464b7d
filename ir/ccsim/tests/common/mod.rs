//! Shared by the tests: the examples compiled as `scenicc` compiles them, scenarios read from
//! `examples/scenarios/`.

#![allow(dead_code)]

use scenic_ccsim::Scenario;
use scenic_frontend::Session;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `examples/NAME` checked and lowered.
pub fn example(name: &str) -> scenic_ir::Module {
    let mut session = Session::new();
    if let Err(err) = session.add_path(&root().join("examples").join(name)) {
        panic!("cannot read {name}: {err}");
    }
    match scenic_lower::lower_session(&mut session) {
        Ok(module) => module,
        Err(err) => panic!("cannot lower {name}: {err}"),
    }
}

/// `examples/scenarios/NAME` parsed.
pub fn scenario(name: &str) -> Scenario {
    let path = root().join("examples/scenarios").join(name);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) => panic!("cannot read {}: {err}", path.display()),
    };
    match Scenario::parse(name, &text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    }
}
