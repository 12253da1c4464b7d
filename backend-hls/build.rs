//! Embeds the C++ support library (`include/`) and the C-simulation shims (`shims/`) in the crate,
//! so an installed `scenicc` writes complete packages without the source tree: it generates
//! `$OUT_DIR/support_files.rs` with one `(file name, include_str!(…))` pair per file, sorted by
//! name so packages are byte-identical from build to build. A missing directory gives an empty
//! list. Cargo re-runs this when anything in either directory changes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("h" | "hpp")))
        .filter_map(|p| Some((p.file_name()?.to_str()?.to_string(), p.clone())))
        .collect();
    out.sort();
    out
}

fn list(name: &str, files: &[(String, PathBuf)], out: &mut String) {
    let _ = writeln!(
        out,
        "/// Embedded `{name}` files: (file name, text), sorted by name."
    );
    let _ = writeln!(out, "pub const {name}: &[(&str, &str)] = &[");
    for (file, path) in files {
        let _ = writeln!(
            out,
            "    ({file:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let mut text = String::new();
    list("INCLUDE", &files(&root.join("include")), &mut text);
    list("SHIMS", &files(&root.join("shims")), &mut text);
    if let Err(err) = std::fs::write(out_dir.join("support_files.rs"), text) {
        // A build script's only way to fail the build with a reason.
        println!("cargo::error=cannot write support_files.rs: {err}");
    }
    println!("cargo::rerun-if-changed=include");
    println!("cargo::rerun-if-changed=shims");
    println!("cargo::rerun-if-changed=build.rs");
}
