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

/// Program `text` (named `name` in messages) checked and lowered.
pub fn program(name: &str, text: &str) -> scenic_ir::Module {
    let mut session = Session::new();
    session.add_source(name, text);
    match scenic_lower::lower_session(&mut session) {
        Ok(module) => module,
        Err(err) => panic!("cannot lower {name}: {err}"),
    }
}

/// Scenario `text` parsed (named `name`).
pub fn parse(name: &str, text: &str) -> Scenario {
    match Scenario::parse(name, text) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    }
}

/// `scenario` run with `module`'s cc.
pub fn run(module: &scenic_ir::Module, scenario: &Scenario) -> scenic_ccsim::Outcome {
    match scenic_ccsim::run(module, scenario, None) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    }
}

/// Column `name` of a CSV with a header line, as numbers, one per row.
pub fn column(csv: &str, name: &str) -> Vec<f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let Some(at) = header.iter().position(|h| *h == name) else {
        panic!("no column {name} in {header:?}");
    };
    lines
        .map(|l| {
            l.split(',')
                .nth(at)
                .and_then(|v| v.parse().ok())
                .unwrap_or(f64::NAN)
        })
        .collect()
}
