//! Compiling and running the C++ drivers of the support-library tests.
//!
//! A driver (`tests/cpp/*.cpp`) reads one operation per line from the file named by its first
//! argument and prints one result line per operation. The Rust side generates the operations,
//! runs the driver and compares every line with what the interpreter's own code computes.
//!
//! Headers: AMD's ap_types come from `AP_TYPES` (scripts/fetch-ap-types.sh prints it). When it is
//! unset, or g++ is missing, a test prints why and passes, except under `CI=true`, where it fails.
//! Binaries are cached under the test target directory, keyed by a hash of the driver, every
//! support-library header and shim, the flags, the ap_types path and the compiler's version, so
//! a second run does not recompile.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags of the issue, with `-Werror` on top, as docs/hls.md says.
pub const FLAGS: &[&str] = &[
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unknown-pragmas",
    "-Wno-maybe-uninitialized",
    "-Wno-uninitialized",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What the tests need from the environment, or why they cannot run.
pub struct Toolchain {
    ap_types: PathBuf,
    compiler_version: String,
}

impl Toolchain {
    /// The toolchain, or `None` after printing why the test is skipped (a panic under CI).
    pub fn find(test: &str) -> Option<Toolchain> {
        let reason = match std::env::var_os("AP_TYPES") {
            None => {
                "AP_TYPES is not set (run scripts/fetch-ap-types.sh and export AP_TYPES)".into()
            }
            Some(dir) if !Path::new(&dir).join("ap_int.h").is_file() => {
                format!("AP_TYPES={} has no ap_int.h", Path::new(&dir).display())
            }
            Some(dir) => match Command::new("g++").arg("--version").output() {
                Ok(out) if out.status.success() => {
                    return Some(Toolchain {
                        ap_types: PathBuf::from(dir),
                        compiler_version: String::from_utf8_lossy(&out.stdout).into_owned(),
                    })
                }
                _ => "g++ is not available".into(),
            },
        };
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{test}: cannot run under CI: {reason}");
        }
        eprintln!("skipping {test}: {reason}");
        None
    }

    /// The driver `tests/cpp/<name>.cpp` compiled with `std` (`c++14`, `c++11`), cached.
    pub fn driver(&self, name: &str, std: &str) -> PathBuf {
        let source = crate_dir().join("tests/cpp").join(format!("{name}.cpp"));
        let mut key = Fnv::new();
        key.add(&read(&source));
        for dir in ["include", "shims"] {
            for file in sorted_files(&crate_dir().join(dir)) {
                key.add(file.to_string_lossy().as_bytes());
                key.add(&read(&file));
            }
        }
        key.add(std.as_bytes());
        for f in FLAGS {
            key.add(f.as_bytes());
        }
        key.add(self.ap_types.to_string_lossy().as_bytes());
        key.add(self.compiler_version.as_bytes());
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scenic-support-lib");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let binary = dir.join(format!("{name}-{std}-{:016x}", key.0));
        if binary.is_file() {
            return binary;
        }
        // Compile to a private name, then rename: concurrent tests never see half a binary.
        let partial = dir.join(format!(
            "{name}-{std}-{:016x}.{}",
            key.0,
            std::process::id()
        ));
        let out = Command::new("g++")
            .arg(format!("-std={std}"))
            .args(FLAGS)
            .arg("-isystem")
            .arg(&self.ap_types)
            .arg("-I")
            .arg(crate_dir().join("shims"))
            .arg("-I")
            .arg(crate_dir().join("include"))
            .arg(&source)
            .arg("-o")
            .arg(&partial)
            .output()
            .unwrap_or_else(|e| panic!("running g++: {e}"));
        assert!(
            out.status.success(),
            "g++ -std={std} {} failed:\n{}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "g++ printed diagnostics for {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::rename(&partial, &binary).unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
        binary
    }
}

/// Runs `binary` on `input` (one operation per line) and returns its output lines.
pub fn run(binary: &Path, input: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let path = dir.path().join("ops.txt");
    std::fs::write(&path, input).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let out = Command::new(binary)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}",
        binary.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Compares the driver's lines with the expected ones, naming the first operation that differs.
pub fn compare(what: &str, ops: &[String], expected: &[String], got: &[String]) {
    for (i, want) in expected.iter().enumerate() {
        let have = got.get(i).map_or("<missing>", String::as_str);
        assert_eq!(
            have,
            want.as_str(),
            "{what}: operation {i} `{}` differs",
            ops.get(i).map_or("?", String::as_str)
        );
    }
    assert_eq!(got.len(), expected.len(), "{what}: extra output lines");
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// FNV-1a, 64 bits: a stable cache key (std's hasher may change between Rust versions).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so ("ab", "c") and ("a", "bc") differ.
        self.0 = (self.0 ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }
}

/// Deterministic test inputs: the repository's SplitMix64.
pub use scenic_ir::rng::SplitMix64 as Rng;

/// Lower-case hex of bytes, two digits each ("" for none).
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}
