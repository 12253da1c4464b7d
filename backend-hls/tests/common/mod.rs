//! Shared helpers of the backend's tests: loading examples with the options to generate them.
//! (The C-simulation tests, and their helpers, are in `backend-hls/csim/tests/`.)

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use scenic_backend_hls::{Options, SourceLines};
use std::path::{Path, PathBuf};

/// The workspace's `examples/` directory.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// A lowered, validated example with the options to generate it (source lines included).
pub fn load(name: &str) -> (scenic_ir::Module, scenic_ir::ModuleInfo, Options) {
    let path = examples_dir().join(name);
    let mut session = scenic_frontend::Session::new();
    let file = session.add_path(&path).expect("example loads");
    let module = scenic_lower::lower_session(&mut session).expect("example lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("example validates");
    let mut sources = SourceLines::default();
    let db = session.db();
    sources.add(
        file.id(db).0,
        file.name(db).as_str(),
        file.text(db).as_str(),
    );
    let options = Options {
        sources,
        ..Options::default()
    };
    (module, info, options)
}

/// The slow-path examples, whose kernels are generated.
pub const SLOW_PATH: &[&str] = &["l3_router.sn", "firewall.sn", "flow_monitor.sn"];
