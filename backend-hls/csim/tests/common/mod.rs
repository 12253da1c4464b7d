//! Shared helpers of the C-simulation tests: loading examples, generating kernels, finding the
//! ap_types headers (skip outside CI when they are missing, fail in CI).

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use scenic_backend_hls::{Options, SourceLines};
use std::path::{Path, PathBuf};

/// The workspace's `examples/` directory.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
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

/// The ap_types directory, or `None` (with a printed reason) when the tests must skip; panics in
/// CI (`CI=true`), where skipping would hide a broken setup.
pub fn ap_types_or_skip(test: &str) -> Option<PathBuf> {
    match scenic_hls_csim::ap_types(None) {
        Ok(dir) => Some(dir),
        Err(err) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{test}: {err} (CI=true: the C-simulation tests may not skip)");
            }
            eprintln!("{test}: skipped: {err}");
            None
        }
    }
}

/// The slow-path examples, whose kernels are generated.
pub const SLOW_PATH: &[&str] = &["l3_router.sn", "firewall.sn", "flow_monitor.sn"];

/// Which parser branches the interpreter's traces reached.
pub struct Coverage {
    expected: std::collections::BTreeSet<String>,
    seen: std::collections::BTreeMap<String, u64>,
}

impl Coverage {
    /// The branches of `scu`'s parser: every state's transition targets, and a truncation
    /// (`packet_too_short`) in every state that extracts.
    pub fn new(module: &scenic_ir::Module, scu: scenic_ir::ScuId) -> Coverage {
        use scenic_ir::program::{Target, Transition};
        let def = &module.scus[scu];
        let mut expected = std::collections::BTreeSet::new();
        if let Some(p) = &def.parser {
            let name = |t: &Target| match t {
                Target::Accept => "accept".to_string(),
                Target::Reject(e) => format!("reject({})", def.errors[*e]),
                Target::State(s) => p.states[*s].name.clone(),
            };
            for s in p.states.values() {
                let targets: Vec<Target> = match &s.transition {
                    Transition::Direct(t) => vec![*t],
                    Transition::Select { cases, .. } => cases.iter().map(|c| c.target).collect(),
                };
                for t in targets {
                    expected.insert(format!("{} -> {}", s.name, name(&t)));
                }
                if s.block
                    .stmts
                    .iter()
                    .any(|st| matches!(st, scenic_ir::Stmt::Extract(_)))
                {
                    expected.insert(format!("{} -> reject(packet_too_short)", s.name));
                }
            }
        }
        Coverage {
            expected,
            seen: std::collections::BTreeMap::new(),
        }
    }

    /// Records the branches of one packet's trace.
    pub fn record(&mut self, trace: &[String]) {
        let mut last: Option<&str> = None;
        let mut ended = false;
        for line in trace {
            if let Some(state) = line.strip_prefix("state ") {
                if let Some(prev) = last {
                    *self.seen.entry(format!("{prev} -> {state}")).or_insert(0) += 1;
                }
                last = Some(state);
            } else if let Some(err) = line.strip_prefix("reject ") {
                if let Some(prev) = last {
                    *self
                        .seen
                        .entry(format!("{prev} -> reject({err})"))
                        .or_insert(0) += 1;
                }
                ended = true;
                break;
            }
        }
        if let (Some(prev), false) = (last, ended) {
            *self.seen.entry(format!("{prev} -> accept")).or_insert(0) += 1;
        }
    }

    /// Expected branches never seen.
    pub fn missing(&self) -> Vec<String> {
        self.expected
            .iter()
            .filter(|b| !self.seen.contains_key(*b))
            .cloned()
            .collect()
    }

    /// `N/M parser branches (a -> b: count, ...)`.
    pub fn summary(&self) -> String {
        let hit = self.expected.len() - self.missing().len();
        let counts: Vec<String> = self.seen.iter().map(|(b, n)| format!("{b}: {n}")).collect();
        format!(
            "{hit}/{} parser branches reached ({})",
            self.expected.len(),
            counts.join(", ")
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where byte `k` of a packet lies, from the extractions of the interpreter's trace: the header
/// instance and field (the deparser emits in the same layout unless the control changed
/// validity), or the payload.
fn locate(module: &scenic_ir::Module, scu: scenic_ir::ScuId, trace: &[String], k: usize) -> String {
    let def = &module.scus[scu];
    let mut at = 0usize;
    for line in trace {
        let Some(rest) = line.strip_prefix("extract ") else {
            continue;
        };
        let name = rest.split(' ').next().unwrap_or("");
        let Some(inst) = def.instances.values().find(|i| i.name == name) else {
            continue;
        };
        let layout = &module.headers[inst.header];
        let bytes = (layout.bits / 8) as usize;
        if k < at + bytes {
            let bit = ((k - at) * 8) as u32;
            let field = layout
                .fields
                .iter()
                .rev()
                .find(|f| f.offset <= bit)
                .map_or("?", |f| f.name.as_str());
            return format!(
                "header `{name}` field `{field}` (bytes {at}..{})",
                at + bytes
            );
        }
        at += bytes;
    }
    format!("the payload (parsed headers end at byte {at})")
}

/// A readable account of one mismatching packet.
#[allow(clippy::too_many_arguments)]
pub fn mismatch_report(
    module: &scenic_ir::Module,
    scu: scenic_ir::ScuId,
    index: usize,
    port: u8,
    now: u64,
    data: &[u8],
    expected: &[(u32, Vec<u8>)],
    got: &[(u32, Vec<u8>)],
    trace: &[String],
) -> String {
    let mut s = format!(
        "packet #{index} (port {port}, t={now} ns, {} bytes): {}\n",
        data.len(),
        hex(data)
    );
    let describe = |v: &[(u32, Vec<u8>)]| {
        v.iter()
            .map(|(p, b)| format!("port {p}: {}", hex(b)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    s += &format!("  interpreter: [{}]\n", describe(expected));
    s += &format!("  csim:        [{}]\n", describe(got));
    if expected.len() != got.len() {
        s += &format!(
            "  first difference: {} copies vs {}\n",
            expected.len(),
            got.len()
        );
    } else {
        for (i, ((pa, a), (pb, b))) in expected.iter().zip(got).enumerate() {
            if pa != pb {
                s += &format!("  first difference: copy {i} goes to port {pa} vs {pb}\n");
                break;
            }
            if let Some(k) = (0..a.len().max(b.len())).find(|k| a.get(*k) != b.get(*k)) {
                s += &format!(
                    "  first difference: copy {i} (port {pa}) byte {k}: expected {:?}, got {:?}, in {}\n",
                    a.get(k),
                    b.get(k),
                    locate(module, scu, trace, k)
                );
                break;
            }
        }
    }
    s += &format!("  interpreter trace: {}", trace.join("; "));
    s
}
