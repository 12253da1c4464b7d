//! The SCU package: everything `scenicc build FILE -o DIR` writes, assembled in memory
//! ([`Package`]) and then written out ([`Package::write`]).
//!
//! ```text
//! DIR/
//!   manifest.json            the program, kernels, ports, CSR map, tables, maps, ... (scenic_scu_abi::manifest)
//!   README.md                what is here and what to do next
//!   hls/
//!     Makefile               make csim (g++ and AP_TYPES), make xo (Vitis)
//!     <kernel>/              one per scu and one per cc: a Coyote HLS kernel directory
//!       <kernel>.cpp .hpp    the kernel; the top function is named like the directory
//!       <kernel>_tb.cpp      the C-simulation testbench (line protocol on stdin/stdout)
//!       scenic_*.hpp         the support library, flat beside the kernel
//!       run_hls.tcl          vitis_hls -f run_hls.tcl: synthesis and export of <kernel>.xo
//!       hls_config.cfg       v++ -c --mode hls --config hls_config.cfg --work_dir build
//!       shims/               hls_stream.h, ap_axi_sdata.h: for g++ C-simulation only
//!   coyote/vfpga_top.svh     Coyote v2 user logic: <kernel>_hls_ip instances, control bridge, tie-offs
//!   model/module.json        the IR (serde JSON of scenic_ir::Module) the emulated device runs
//! ```
//!
//! Why this shape: Coyote's HLS flow (`comp_hls.tcl`) treats every directory under an app's `hls/`
//! as a kernel, copies only its top-level `*.cpp`/`*.hpp`/`*.h` files and synthesizes
//! `<kernel>.cpp` with the kernel's directory on the include path. So each kernel directory holds
//! all it includes, flat, and nothing else that Vitis should compile; the shims live one level
//! down, where only the Makefile's g++ finds them (Vitis must use its own `hls_stream.h`).
//!
//! Everything is deterministic: the same inputs give byte-identical files (sorted paths, no time
//! stamps, no absolute paths).

pub mod coyote;
mod generate;
pub mod scripts;

pub use generate::{build, BuildError, BuildInputs};

use crate::ports::Port;
use scenic_ir::program::Attach;
use scenic_ir::{Module, ModuleInfo};
use scenic_scu_abi::manifest::{self, BackendFacts, Manifest, ManifestError};
use scenic_timing::TimingReport;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One kernel's generated text (from the kernel writer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelText {
    /// The scu's name.
    pub scu: String,
    /// The top function's name, also the directory and file names.
    pub top: String,
    /// `<top>.hpp`.
    pub hpp: String,
    /// `<top>.cpp`.
    pub cpp: String,
    /// `<top>_tb.cpp`.
    pub tb: String,
    /// The top function's ports.
    pub ports: Vec<Port>,
    /// The `PIPELINE II` the kernel requests.
    pub ii: u32,
    /// The header window in beats.
    pub window_beats: u32,
}

/// What the kernel writer produced for a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// One kernel per scu, in declaration order (empty for a program without scus).
    pub kernels: Vec<KernelText>,
    /// One kernel per cc, in declaration order (`scu` holds the cc's name).
    pub ccs: Vec<KernelText>,
    /// Support headers every kernel includes, `(file name, text)`.
    pub support: Vec<(String, String)>,
    /// C-simulation shims, `(file name, text)`.
    pub shims: Vec<(String, String)>,
}

/// The support library (`backend-hls/include/`) and the shims (`backend-hls/shims/`), embedded at
/// build time by `build.rs`.
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/support_files.rs"));
}

/// The support library (`backend-hls/include/`) as embedded in this build, `(file name, text)`
/// sorted by name: what a C-simulation harness compiles the kernels against, wherever it runs.
pub fn support_library() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = embedded::INCLUDE
        .iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    files.sort();
    files
}

impl Generated {
    /// The writer's kernels and extra headers, with the embedded support library and shims; a
    /// writer header of the same name as a library file replaces it. Sorted by file name.
    pub fn new(kernels: Vec<KernelText>, writer_support: Vec<(String, String)>) -> Generated {
        let mut support: BTreeMap<String, String> = embedded::INCLUDE
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        support.extend(writer_support);
        Generated {
            kernels,
            ccs: Vec::new(),
            support: support.into_iter().collect(),
            shims: embedded::SHIMS
                .iter()
                .map(|(n, t)| (n.to_string(), t.to_string()))
                .collect(),
        }
    }
}

impl Generated {
    /// The same, with the cc kernels.
    pub fn with_ccs(mut self, ccs: Vec<KernelText>) -> Generated {
        self.ccs = ccs;
        self
    }
}

/// How to build a package.
#[derive(Clone, Debug, PartialEq)]
pub struct PackageOptions {
    /// The clock and line rate (estimates, `create_clock`, the svh's ns clock).
    pub timing: scenic_timing::Options,
    /// The FPGA part (`xcu55c-fsvh2892-2L-e`).
    pub part: String,
    /// The source file as given (`examples/firewall.sn`).
    pub source_file: String,
    /// SHA-256 of the source text (filled in by [`Package::assemble`]).
    pub source_sha256: String,
}

impl Default for PackageOptions {
    fn default() -> PackageOptions {
        PackageOptions {
            timing: scenic_timing::Options::default(),
            part: "xcu55c-fsvh2892-2L-e".into(),
            source_file: String::new(),
            source_sha256: String::new(),
        }
    }
}

/// Why a package could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// The manifest could not be built.
    #[error("{0}")]
    Manifest(#[from] ManifestError),
    /// The module could not be serialized.
    #[error("cannot serialize the IR for model/: {0}")]
    Model(String),
    /// A file could not be written.
    #[error("cannot write `{path}`: {message}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The output directory holds something that is not a package.
    #[error(
        "`{0}` exists and is not an SCU package (no manifest.json); refusing to write into it"
    )]
    NotAPackage(PathBuf),
}

/// A package in memory: relative path → contents, and its manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    /// Every file, by path relative to the package root (`/`-separated).
    pub files: BTreeMap<String, Vec<u8>>,
    /// The manifest (also in `files` as `manifest.json`).
    pub manifest: Manifest,
}

/// The directories a package owns: removed before a package is written over an older one.
const OWNED_DIRS: [&str; 3] = ["hls", "coyote", "model"];

impl Package {
    /// Assembles the package of a validated module from the kernel writer's output.
    pub fn assemble(
        module: &Module,
        info: &ModuleInfo,
        options: &PackageOptions,
        source_text: &str,
        generated: &Generated,
    ) -> Result<Package, PackageError> {
        let mut options = options.clone();
        options.source_sha256 = manifest::sha256_hex(source_text.as_bytes());
        let report = scenic_timing::analyze(module, &options.timing);
        let attaches: Vec<Attach> = module.scus.values().map(|s| s.attach).collect();
        let kernels: Vec<(KernelText, Attach)> = generated
            .kernels
            .iter()
            .cloned()
            .zip(attaches.iter().copied())
            .collect();
        let manifest = build_manifest(
            module,
            info,
            &report,
            &options,
            source_text,
            &kernels,
            &generated.ccs,
        )?;
        let mut files = BTreeMap::new();
        let mut put = |path: String, text: String| {
            files.insert(path, text.into_bytes());
        };
        put("manifest.json".into(), manifest.to_json_pretty());
        put(
            "README.md".into(),
            readme(&manifest, &kernels, &generated.ccs),
        );
        let model =
            scenic_ir::model::to_json(module).map_err(|e| PackageError::Model(e.to_string()))?;
        put("model/module.json".into(), model + "\n");
        let mut texts: Vec<KernelText> = kernels.iter().map(|(k, _)| k.clone()).collect();
        texts.extend(generated.ccs.iter().cloned());
        if !texts.is_empty() {
            put("hls/Makefile".into(), scripts::makefile(&texts, &options));
            for k in &texts {
                let dir = format!("hls/{}", k.top);
                put(format!("{dir}/{}.hpp", k.top), k.hpp.clone());
                put(format!("{dir}/{}.cpp", k.top), k.cpp.clone());
                put(format!("{dir}/{}_tb.cpp", k.top), k.tb.clone());
                put(
                    format!("{dir}/run_hls.tcl"),
                    scripts::run_hls_tcl(k, &options),
                );
                put(
                    format!("{dir}/hls_config.cfg"),
                    scripts::hls_config(k, &options),
                );
                for (name, text) in &generated.support {
                    put(format!("{dir}/{name}"), text.clone());
                }
                for (name, text) in &generated.shims {
                    put(format!("{dir}/shims/{name}"), text.clone());
                }
            }
        }
        // The cc kernels are not wired into the vFPGA: their signals and pacer are interfaces of
        // SCENIC's transport, which Coyote v2 does not give user logic (README.md says so).
        if !kernels.is_empty() {
            let stride_words = manifest.csr_window.stride_bytes / manifest.csr_window.word_bytes;
            let mut svh = coyote::vfpga_top(&kernels, &manifest.control, stride_words, &options);
            if !generated.ccs.is_empty() {
                let names: Vec<&str> = generated.ccs.iter().map(|k| k.top.as_str()).collect();
                svh.push_str(&format!(
                    "\n// Not instantiated here: the cc kernels {} (hls/<cc>/): their congestion \
                     signals and pacer\n// are SCENIC transport interfaces (manifest.json, \
                     ccs[].kernel.ports).\n",
                    names.join(", ")
                ));
            }
            put("coyote/vfpga_top.svh".into(), svh);
        }
        Ok(Package { files, manifest })
    }

    /// The kernels' top names: the scus' in scu order, then the ccs' in cc order.
    pub fn kernels(&self) -> Vec<String> {
        let scus = self.manifest.scus.iter().filter_map(|s| s.kernel.as_ref());
        let ccs = self.manifest.ccs.iter().filter_map(|c| c.kernel.as_ref());
        scus.chain(ccs).map(|k| k.name.clone()).collect()
    }

    /// Writes the package into `dir`, creating it. A directory that already holds a package (a
    /// `manifest.json`) is updated: the package's own subdirectories are replaced, so no stale
    /// kernel of an earlier build is left for Coyote to pick up. Anything else that is not empty
    /// is refused.
    pub fn write(&self, dir: &Path) -> Result<(), PackageError> {
        let io = |path: &Path, err: std::io::Error| PackageError::Io {
            path: path.to_path_buf(),
            message: err.to_string(),
        };
        if dir.exists() {
            if !dir.is_dir() {
                return Err(PackageError::NotAPackage(dir.to_path_buf()));
            }
            let empty = std::fs::read_dir(dir)
                .map_err(|e| io(dir, e))?
                .next()
                .is_none();
            if !empty && !dir.join("manifest.json").is_file() {
                return Err(PackageError::NotAPackage(dir.to_path_buf()));
            }
            for sub in OWNED_DIRS {
                let path = dir.join(sub);
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).map_err(|e| io(&path, e))?;
                }
            }
        }
        for (rel, bytes) in &self.files {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            std::fs::write(&path, bytes).map_err(|e| io(&path, e))?;
        }
        Ok(())
    }
}

/// The manifest with each kernel's name and ports (and where the Coyote glue connects them).
fn build_manifest(
    module: &Module,
    info: &ModuleInfo,
    report: &TimingReport,
    options: &PackageOptions,
    source_text: &str,
    kernels: &[(KernelText, Attach)],
    ccs: &[KernelText],
) -> Result<Manifest, PackageError> {
    let mut seen: Vec<Attach> = Vec::new();
    let kernels = kernels
        .iter()
        .enumerate()
        .map(|(i, (k, attach))| {
            let first = !seen.contains(attach);
            seen.push(*attach);
            manifest::Kernel {
                name: k.top.clone(),
                ip: format!("{}_hls_ip", k.top),
                pipeline_ii: k.ii,
                header_window_beats: k.window_beats,
                ports: k
                    .ports
                    .iter()
                    .map(|p| manifest_port(p, coyote::binding(*attach, p, first, i == 0)))
                    .collect(),
            }
        })
        .collect();
    let source = manifest::Source {
        file: &options.source_file,
        text: source_text,
    };
    let cc_kernels = ccs
        .iter()
        .map(|k| manifest::Kernel {
            name: k.top.clone(),
            ip: format!("{}_hls_ip", k.top),
            pipeline_ii: k.ii,
            header_window_beats: 0,
            ports: k
                .ports
                .iter()
                .map(|p| manifest_port(p, cc_binding(p)))
                .collect(),
        })
        .collect();
    let backend = BackendFacts {
        kernels,
        cc_kernels,
    };
    Ok(Manifest::build(module, info, report, source, &backend)?)
}

/// Where a cc kernel's port connects: SCENIC's transport, which a Coyote v2 vFPGA does not have.
fn cc_binding(p: &Port) -> String {
    use crate::ports::Role;
    match p.role {
        Role::CcEventIn => {
            "SCENIC transport: congestion signals (not a Coyote v2 interface)".into()
        }
        Role::CcUpdateOut => "SCENIC transport: per-flow pacer (not a Coyote v2 interface)".into(),
        Role::CtrlIn | Role::CtrlOut => "SCENIC transport: param registers".into(),
        Role::NowNs => "ns clock (cycle counter)".into(),
        _ => "drained".into(),
    }
}

/// A unit enum's serde spelling (`axis_packet`), as the ports module serializes it.
fn spelling(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn manifest_port(p: &Port, coyote: String) -> manifest::Port {
    manifest::Port {
        name: p.name.to_string(),
        rtl_name: p.rtl_name.clone(),
        role: spelling(&p.role),
        direction: spelling(&p.direction),
        cpp_type: p.cpp_type.clone(),
        interface: spelling(&p.interface),
        width: p.width,
        fields: p
            .fields
            .iter()
            .map(|f| manifest::PortField {
                name: f.name.to_string(),
                lo: f.lo,
                width: f.width,
                doc: f.doc.to_string(),
            })
            .collect(),
        doc: p.doc.to_string(),
        coyote: coyote.trim_start_matches('`').to_string(),
    }
}

/// `README.md` of a package: what is here and the next steps on a Vitis host.
fn readme(m: &Manifest, kernels: &[(KernelText, Attach)], ccs: &[KernelText]) -> String {
    let mut s = format!(
        "# SCU package of `{}`\n\nBuilt by scenicc {} from `{}` (sha256 `{}`). `manifest.json` describes \
         every scu: its kernel and ports, CSR map, tables, maps, counters, meters and timing estimates.\n",
        m.program.name, m.program.compiler_version, m.program.source_file, m.program.source_sha256
    );
    if kernels.is_empty() && ccs.is_empty() {
        s.push_str(
            "\nThis program has no scu and no cc, so there is no HLS kernel: the package holds the \
             manifest and the model (`model/module.json`) only.\n",
        );
        return s;
    }
    s.push_str("\nKernels:\n\n");
    for (k, attach) in kernels {
        s.push_str(&format!(
            "- `hls/{0}/` — scu `{1}` ({attach:?}), Coyote IP `{0}_hls_ip`\n",
            k.top, k.scu
        ));
    }
    for k in ccs {
        s.push_str(&format!(
            "- `hls/{0}/` — cc `{1}` (congestion controller), IP `{0}_hls_ip`; its signals and pacer \
             are SCENIC transport interfaces, so `coyote/vfpga_top.svh` does not instantiate it\n",
            k.top, k.scu
        ));
    }
    s.push_str(
        "\nNext steps (docs/package.md in the scenicc repository has the details):\n\n\
         1. C-simulation with g++: `make -C hls csim AP_TYPES=<dir with ap_int.h>`.\n\
         2. On a Vitis host: `make -C hls xo` (v++ --mode hls, or vitis_hls -f run_hls.tcl) gives \
         `hls/<kernel>/<kernel>.xo`.\n\
         3. Coyote: make an app directory with `coyote/vfpga_top.svh` and `hls/<kernel>/` (for example \
         `mkdir app && cp coyote/vfpga_top.svh app/ && cp -r hls app/hls && rm app/hls/Makefile`), then \
         `load_apps(VFPGA_C0_0 \"app\")` in the hardware CMakeLists.txt and `make project bitgen`.\n",
    );
    s
}

#[cfg(test)]
mod tests;
