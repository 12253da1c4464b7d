//! Goldens of the SCU package: the manifest of every example (insta snapshots in
//! `tests/snapshots/`, reviewed like code), and the package tree: complete and byte-identical from
//! build to build. An example the HLS backend cannot build yet has its error as the golden instead,
//! so the snapshot changes, visibly, when the backend learns it.

use scenic_backend_hls::package::{self, BuildInputs, Package};
use std::path::Path;

const EXAMPLES: [&str; 9] = [
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

/// Builds `examples/<name>.sn` as `scenicc build examples/<name>.sn` does.
fn build(name: &str) -> Result<Package, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(format!("{name}.sn"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let file = format!("examples/{name}.sn");
    // By the name a user in the repository root types, so nothing machine-specific is recorded.
    let mut session = scenic_frontend::Session::new();
    session.add_source(&file, &text);
    let report = scenic_lower::check::check(&mut session, Default::default());
    assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    let root = session.roots()[0];
    let module =
        scenic_lower::lower_file(session.db(), root).unwrap_or_else(|e| panic!("{name}: {e}"));
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let inputs = BuildInputs {
        module: &module,
        info: &info,
        source_file: &file,
        source_text: &text,
        root_file_id: root.id(session.db()).0,
    };
    package::build(&inputs).map_err(|e| e.to_string())
}

#[test]
fn manifests_of_the_examples() {
    for name in EXAMPLES {
        match build(name) {
            Ok(p) => {
                let manifest = String::from_utf8_lossy(&p.files["manifest.json"]).into_owned();
                insta::assert_snapshot!(format!("manifest_{name}"), manifest);
            }
            Err(err) => {
                insta::assert_snapshot!(format!("manifest_{name}"), format!("error: {err}"))
            }
        }
    }
}

#[test]
fn packages_are_complete_and_deterministic() {
    for name in EXAMPLES {
        let Ok(first) = build(name) else {
            continue;
        };
        let second = build(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(first.files, second.files, "{name}: two builds differ");
        let paths: Vec<&str> = first.files.keys().map(String::as_str).collect();
        for f in ["README.md", "manifest.json", "model/module.json"] {
            assert!(paths.contains(&f), "{name}: no {f}");
        }
        for k in first.kernels() {
            for f in [
                format!("hls/{k}/{k}.cpp"),
                format!("hls/{k}/{k}.hpp"),
                format!("hls/{k}/{k}_tb.cpp"),
                format!("hls/{k}/run_hls.tcl"),
                format!("hls/{k}/hls_config.cfg"),
                format!("hls/{k}/scenic_hls.hpp"),
                format!("hls/{k}/shims/hls_stream.h"),
                format!("hls/{k}/shims/ap_axi_sdata.h"),
                "hls/Makefile".to_string(),
            ] {
                assert!(first.files.contains_key(&f), "{name}: no {f}");
            }
            // The vFPGA glue instantiates the scu kernels; a cc's ports belong to the transport.
            let glue = first.files.contains_key("coyote/vfpga_top.svh");
            assert_eq!(
                glue,
                !first.manifest.scus.is_empty(),
                "{name}: coyote/vfpga_top.svh"
            );
            // Every header a kernel includes by quoted name is in its directory (Coyote copies
            // the directory flat), except Vitis's own, which the shims stand in for.
            let cpp =
                String::from_utf8_lossy(&first.files[&format!("hls/{k}/{k}.hpp")]).into_owned();
            for line in cpp
                .lines()
                .filter(|l| l.trim_start().starts_with("#include \""))
            {
                let header = line.split('"').nth(1).unwrap_or_default();
                let beside = first.files.contains_key(&format!("hls/{k}/{header}"));
                let vitis = ["hls_stream.h", "ap_axi_sdata.h", "ap_int.h"].contains(&header);
                assert!(
                    beside || vitis,
                    "{name}: {k}.hpp includes {header}, not in the package"
                );
            }
        }
        // Nothing machine-specific leaks into the package.
        for (path, bytes) in &first.files {
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.contains(env!("CARGO_MANIFEST_DIR")),
                "{name}: {path} has an absolute path"
            );
        }
    }
}
