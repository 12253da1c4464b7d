//! Building a kernel's testbench: finding AMD's ap_types headers, the cache of builds keyed by
//! every source and flag, and the g++ run itself.
//!
//! Compilation is cached: the build directory is named by a hash of every source file given to
//! g++ and the flags, under `$SCENIC_CACHE/csim/` (default `~/.cache/scenicc/csim/`), so a second
//! test run (or a second test using the same kernel) does not recompile. A build happens in a
//! private temporary directory renamed into place, so concurrent tests never see half a build.

use scenic_backend_hls::Kernel;
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) use crate::toolchain::{fnv, io, private_dir};
pub use crate::toolchain::{CsimError, CXX_FLAGS};

/// The ap_types directory: `explicit`, else `$AP_TYPES`.
pub fn ap_types(explicit: Option<&Path>) -> Result<PathBuf, CsimError> {
    let dir = match explicit {
        Some(p) => p.to_path_buf(),
        None => match std::env::var_os("AP_TYPES") {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => return Err(CsimError::NoApTypes),
        },
    };
    if !dir.join("ap_int.h").is_file() {
        return Err(CsimError::BadApTypes(dir));
    }
    Ok(dir)
}

/// The cache root: `$SCENIC_CACHE/csim`, else `$XDG_CACHE_HOME/scenicc/csim`, else
/// `~/.cache/scenicc/csim`, else the temporary directory.
pub fn cache_root() -> PathBuf {
    if let Some(v) = std::env::var_os("SCENIC_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(v).join("csim");
    }
    if let Some(v) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(v).join("scenicc/csim");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join(".cache/scenicc/csim");
    }
    std::env::temp_dir().join("scenicc-csim")
}

/// Compiles a kernel's testbench (cached); the path of the executable.
pub fn build(
    kernel: &Kernel,
    support: &[(String, String)],
    ap_types: &Path,
    extra_flags: &[&str],
) -> Result<PathBuf, CsimError> {
    let library = scenic_backend_hls::package::support_library();
    let mut sources: Vec<(String, String)> = vec![
        (format!("src/{}.hpp", kernel.top), kernel.hpp.clone()),
        (format!("src/{}.cpp", kernel.top), kernel.cpp.clone()),
        (format!("src/{}_tb.cpp", kernel.top), kernel.tb.clone()),
        (
            "shims/hls_stream.h".into(),
            scenic_backend_hls::SHIM_HLS_STREAM_H.into(),
        ),
        (
            "shims/ap_axi_sdata.h".into(),
            scenic_backend_hls::SHIM_AP_AXI_SDATA_H.into(),
        ),
    ];
    sources.extend(support.iter().map(|(n, t)| (format!("src/{n}"), t.clone())));
    sources.extend(
        library
            .into_iter()
            .map(|(n, t)| (format!("include/{n}"), t)),
    );
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (name, text) in &sources {
        h = fnv(name.as_bytes(), h);
        h = fnv(&[0], h);
        h = fnv(text.as_bytes(), h);
    }
    for f in CXX_FLAGS.iter().chain(extra_flags) {
        h = fnv(f.as_bytes(), h);
    }
    h = fnv(ap_types.to_string_lossy().as_bytes(), h);
    let root = cache_root();
    let dir = root.join(format!("{}-{h:016x}", kernel.top));
    let exe = dir.join("tb");
    if exe.is_file() {
        return Ok(exe);
    }
    let tmp = private_dir(&dir, &kernel.top)?;
    for (name, text) in &sources {
        let path = tmp.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io(format!("creating {}", parent.display())))?;
        }
        std::fs::write(&path, text).map_err(io(format!("writing {}", path.display())))?;
    }
    let mut cmd = Command::new(crate::pch::compiler());
    cmd.current_dir(&tmp)
        .args(CXX_FLAGS)
        .args(extra_flags)
        .args(["-Ishims", "-Iinclude", "-Isrc", "-isystem"])
        .arg(ap_types);
    if let Some(header) = precompiled(kernel, &sources, ap_types, extra_flags, &root) {
        cmd.arg("-Winvalid-pch").arg("-include").arg(header);
    }
    cmd.arg(format!("src/{}.cpp", kernel.top))
        .arg(format!("src/{}_tb.cpp", kernel.top))
        .args(["-o", "tb"]);
    let output = cmd.output().map_err(io("running g++ (is it installed?)"))?;
    if !output.status.success() {
        return Err(CsimError::Compile {
            dir: tmp,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another build of the same sources won the race: use it.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(exe)
}

/// The precompiled header for `kernel` ([`crate::pch`]) when its sources open the way the PCH
/// needs, unless `SCENIC_CSIM_PCH=0` (to measure or rule it out); `sources` are the build's files
/// (the kernel's own three are not part of the PCH).
fn precompiled(
    kernel: &Kernel,
    sources: &[(String, String)],
    ap_types: &Path,
    extra_flags: &[&str],
    root: &Path,
) -> Option<PathBuf> {
    if std::env::var_os("SCENIC_CSIM_PCH").is_some_and(|v| v == "0") {
        return None;
    }
    let own = format!("{}.hpp", kernel.top);
    if !crate::pch::opens_with_include(&kernel.cpp, &own)
        || !crate::pch::opens_with_include(&kernel.tb, &own)
    {
        return None;
    }
    let block = crate::pch::leading_includes(&kernel.hpp)?;
    let mine = [
        format!("src/{own}"),
        format!("src/{}.cpp", kernel.top),
        format!("src/{}_tb.cpp", kernel.top),
    ];
    let headers: Vec<(String, String)> = sources
        .iter()
        .filter(|(n, _)| !mine.contains(n))
        .cloned()
        .collect();
    crate::pch::get(&block, &headers, ap_types, extra_flags, root)
}
