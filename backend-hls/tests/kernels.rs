//! Goldens of the generated kernels: for every example, what `scenicc emit hls` prints (the
//! kernel's header and C++ per scu, and the testbench), or the backend's error for the examples it
//! cannot generate yet. Snapshots live in `tests/snapshots/kernels__*.snap` and are reviewed like
//! code: a change to the writer shows up here as a diff of the C++ a hardware engineer would read.
//!
//! Source comments name files relative to the workspace (`examples/l3_router.sn:12`), so the
//! goldens do not depend on where the repository is checked out.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_backend_hls::{Options, SourceLines};
use std::fmt::Write as _;

const EXAMPLES: &[&str] = &[
    "dcqcn",
    "firewall",
    "flow_monitor",
    "l3_router",
    "partition",
    "swift",
    "timely",
    "window_cc",
    "xor_cipher",
];

/// Every generated file of `name`, each under a `// ==== FILE ====` banner, or the error.
fn emitted(name: &str) -> String {
    let path = common::examples_dir().join(format!("{name}.sn"));
    let mut session = scenic_frontend::Session::new();
    let file = session.add_path(&path).expect("example loads");
    let mut module = scenic_lower::lower_session(&mut session).expect("example lowers");
    module.source_name = format!("examples/{name}.sn");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("example validates");
    let mut sources = SourceLines::default();
    let db = session.db();
    sources.add(
        file.id(db).0,
        &format!("examples/{name}.sn"),
        file.text(db).as_str(),
    );
    let options = Options {
        sources,
        ..Options::default()
    };
    match scenic_backend_hls::write_kernel(&module, &info, &options) {
        Ok(files) => {
            let mut out = String::new();
            for kernel in files.kernels.iter().chain(&files.ccs) {
                for (file, text) in kernel.files() {
                    writeln!(out, "// ==== {file} ====").unwrap();
                    out.push_str(text);
                    if !text.ends_with('\n') {
                        out.push('\n');
                    }
                }
            }
            out
        }
        Err(err) => format!("error: {err}\n"),
    }
}

#[test]
fn kernels_of_the_examples() {
    for name in EXAMPLES {
        insta::assert_snapshot!(format!("kernel_{name}"), emitted(name));
    }
}

#[test]
fn kernels_are_deterministic() {
    for name in EXAMPLES {
        assert_eq!(emitted(name), emitted(name), "{name}");
    }
}
