//! Every example lowers to the IR without internal errors.

use scenic_frontend::Session;
use std::path::Path;

fn lower(path: &Path) -> Result<scenic_ir::Module, String> {
    let mut session = Session::new();
    session.add_path(path).map_err(|e| e.to_string())?;
    scenic_lower::lower_session(&mut session).map_err(|e| e.to_string())
}

#[test]
fn every_example_lowers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.retain(|p| p.extension().is_some_and(|e| e == "sn"));
    paths.sort();
    assert!(paths.len() >= 7);
    let mut failures = Vec::new();
    for path in &paths {
        match lower(path) {
            Ok(module) => {
                assert!(
                    !module.scus.is_empty() || !module.ccs.is_empty(),
                    "{} lowered to nothing",
                    path.display()
                );
            }
            Err(err) => failures.push(format!("{}: {err}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
