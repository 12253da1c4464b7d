//! Packages of the repository's examples, built in-process the way `scenicc build` does (frontend,
//! lowering, validation, the HLS backend's package writer), cached per test binary.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use scenic_backend_hls::package::{self, BuildInputs};

type Files = (Vec<u8>, Vec<u8>);

static BUILT: Mutex<Option<HashMap<String, Files>>> = Mutex::new(None);

/// The `manifest.json` and `model/module.json` bytes of `examples/NAME.sn`'s package.
pub fn example_package(name: &str) -> Files {
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let cache = built.get_or_insert_with(HashMap::new);
    if let Some(files) = cache.get(name) {
        return files.clone();
    }
    let files = build(name);
    cache.insert(name.to_string(), files.clone());
    files
}

/// Writes `examples/NAME.sn`'s whole package into `dir`.
pub fn write_example_package(name: &str, dir: &Path) {
    package_of(name).write(dir).unwrap();
}

/// Control data bits `D` of the example's package.
pub fn data_bits(name: &str) -> u32 {
    let (manifest, _) = example_package(name);
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest).unwrap())
        .unwrap();
    m.control.data_bits
}

fn build(name: &str) -> Files {
    let p = package_of(name);
    (
        p.files["manifest.json"].clone(),
        p.files["model/module.json"].clone(),
    )
}

fn package_of(name: &str) -> package::Package {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let file = format!("examples/{name}.sn");
    let text = std::fs::read_to_string(root.join(&file)).unwrap();
    let mut session = scenic_frontend::Session::new();
    session.add_source(&file, &text);
    let report = scenic_lower::check::check(&mut session, Default::default());
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    let root_file = session.roots()[0];
    let module = scenic_lower::lower_file(session.db(), root_file).unwrap();
    let info = scenic_ir::Validator::new().validate(&module).unwrap();
    let inputs = BuildInputs {
        module: &module,
        info: &info,
        source_file: &file,
        source_text: &text,
        root_file_id: root_file.id(session.db()).0,
    };
    package::build(&inputs).unwrap()
}
