//! A g++ precompiled header (PCH) of a kernel's leading includes: ap_types, the stream shims,
//! the support library (`scenic_hls.hpp`) and `scenic_ops.hpp`. Parsing them is about a third
//! of a testbench build's g++ time (1.2 s of ~8 s CPU per scu kernel, once for the kernel and
//! once for its testbench), and they are the same for every kernel.
//!
//! Invariants:
//!
//! - The PCH is used only when it changes nothing: the kernel's `.hpp` opens with a block of
//!   `#define` and `#include` lines (after comments and its include guard; a define such as
//!   `AP_INT_MAX_W` belongs to the block), and both its `.cpp` and its
//!   testbench open with `#include "<top>.hpp"`. The PCH is exactly that block, given to g++ as
//!   `-include`, so each translation unit reads the same headers in the same order as without
//!   it (the later `#include`s are then no-ops behind the headers' guards).
//! - It is keyed, like a build, by its text, every header it can reach (shims, support
//!   library, support files), the flags, the ap_types path and `$CXX`, and is built in a private
//!   directory renamed into place: it is never stale and never seen half-written. g++ itself
//!   refuses a PCH made by another compiler or with other flags (`-Winvalid-pch` says so) and then
//!   reads the headers as text, so a PCH can make a build slower, never wrong.
//! - A PCH that fails to build is not an error: the kernel is built without one, and that
//!   build reports whatever is wrong with the headers.

use crate::toolchain::{fnv, io, private_dir, CsimError, CXX_FLAGS};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The header's file name; g++ finds `NAME.gch` beside it.
const NAME: &str = "scenic_pch.hpp";

/// One PCH build at a time in this process: concurrent builds of kernels (scenic-smith's
/// `--jobs`) would otherwise all build the same PCH at once.
static LOCK: Mutex<()> = Mutex::new(());

/// The leading `#define` and `#include` lines of `hpp` (after blank lines, comments and the
/// include guard: an `#ifndef G` followed by `#define G`), or `None` when it includes nothing.
/// A `#define` before the includes (`AP_INT_MAX_W` for values wider than 1024 bits) changes
/// what they declare, so it is part of the block.
pub(crate) fn leading_includes(hpp: &str) -> Option<String> {
    let mut block = String::new();
    let mut guard: Option<&str> = None;
    let mut includes = false;
    for line in hpp.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        if block.is_empty() && guard.is_none() {
            if let Some(g) = l.strip_prefix("#ifndef ") {
                guard = Some(g.trim());
                continue;
            }
        }
        if block.is_empty() && guard.is_some_and(|g| l == format!("#define {g}")) {
            guard = Some("");
            continue;
        }
        if l.starts_with("#include") || l.starts_with("#define") {
            includes |= l.starts_with("#include");
            block.push_str(l);
            block.push('\n');
        } else {
            break;
        }
    }
    includes.then_some(block)
}

/// Whether the first line of `source` that is not blank or a comment includes `header`.
pub(crate) fn opens_with_include(source: &str, header: &str) -> bool {
    source
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//"))
        .is_some_and(|l| l == format!("#include \"{header}\""))
}

/// The PCH's header path (its `.gch` beside it) for a kernel whose leading includes are `block`,
/// built now if it is not in the cache; `headers` are the files it may reach, as `(relative
/// path, text)` under `shims/`, `include/` and `src/`. `None` when it cannot be built.
pub(crate) fn get(
    block: &str,
    headers: &[(String, String)],
    ap_types: &Path,
    extra_flags: &[&str],
    root: &Path,
) -> Option<PathBuf> {
    let mut h = fnv(block.as_bytes(), 0xcbf2_9ce4_8422_2325);
    for (name, text) in headers {
        h = fnv(name.as_bytes(), h);
        h = fnv(&[0], h);
        h = fnv(text.as_bytes(), h);
    }
    for f in CXX_FLAGS.iter().chain(extra_flags) {
        h = fnv(f.as_bytes(), h);
        h = fnv(&[0], h);
    }
    h = fnv(ap_types.to_string_lossy().as_bytes(), h);
    h = fnv(compiler().to_string_lossy().as_bytes(), h);
    let dir = root.join(format!("pch-{h:016x}"));
    let header = dir.join(NAME);
    let ready = || dir.join(format!("{NAME}.gch")).is_file();
    if ready() {
        return Some(header);
    }
    let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    if ready() {
        return Some(header);
    }
    match build(&dir, block, headers, ap_types, extra_flags) {
        Ok(()) => Some(header),
        Err(_) => None,
    }
}

/// The C++ compiler: `$CXX`, else `g++`.
pub(crate) fn compiler() -> std::ffi::OsString {
    std::env::var_os("CXX").unwrap_or_else(|| "g++".into())
}

fn build(
    dir: &Path,
    block: &str,
    headers: &[(String, String)],
    ap_types: &Path,
    extra_flags: &[&str],
) -> Result<(), CsimError> {
    let tmp = private_dir(dir, "pch")?;
    let files = headers
        .iter()
        .cloned()
        .chain(std::iter::once((NAME.to_string(), block.to_string())));
    for (name, text) in files {
        let path = tmp.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io(format!("creating {}", parent.display())))?;
        }
        std::fs::write(&path, text).map_err(io(format!("writing {}", path.display())))?;
    }
    let output = Command::new(compiler())
        .current_dir(&tmp)
        .args(CXX_FLAGS)
        .args(extra_flags)
        .args(["-Ishims", "-Iinclude", "-Isrc", "-isystem"])
        .arg(ap_types)
        .args(["-x", "c++-header", NAME, "-o"])
        .arg(format!("{NAME}.gch"))
        .output()
        .map_err(io("running g++ (is it installed?)"))?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(CsimError::Compile {
            dir: tmp,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    if std::fs::rename(&tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_the_includes_after_comments_and_guard() {
        let hpp = "// x.hpp: generated\n#ifndef X_HPP\n#define X_HPP\n\n#include \"ap_int.h\"\n#include \"scenic_hls.hpp\"\n\ntypedef int t;\n#include \"late.h\"\n";
        assert_eq!(
            leading_includes(hpp).as_deref(),
            Some("#include \"ap_int.h\"\n#include \"scenic_hls.hpp\"\n")
        );
        assert_eq!(leading_includes("#ifndef X\n#define X\nint a;\n"), None);
        // Code before the includes: no block (the PCH would move the includes ahead of it).
        assert_eq!(leading_includes("int a;\n#include \"ap_int.h\"\n"), None);
        // A macro set before the includes is part of the block (scenic-smith seed 5: without
        // it, ap_int.h kept its 1024-bit limit and a 1400-bit control record failed).
        let wide = "#ifndef X\n#define X\n// wide\n#define AP_INT_MAX_W 4096\n#include \"ap_int.h\"\nint a;\n";
        assert_eq!(
            leading_includes(wide).as_deref(),
            Some("#define AP_INT_MAX_W 4096\n#include \"ap_int.h\"\n")
        );
    }

    #[test]
    fn a_source_opens_with_its_header_only_as_its_first_line_of_code() {
        assert!(opens_with_include(
            "// a\n// b\n#include \"k.hpp\"\n#include <cstdio>\n",
            "k.hpp"
        ));
        assert!(!opens_with_include(
            "#include <cstdio>\n#include \"k.hpp\"\n",
            "k.hpp"
        ));
        assert!(!opens_with_include("// only comments\n", "k.hpp"));
    }
}
