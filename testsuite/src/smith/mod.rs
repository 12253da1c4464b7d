//! scenic-smith: random, well-typed, terminating `.sn` programs (the idea of Csmith, YARPGen and
//! P4Smith), run on random inputs and compared across backends.
//!
//! For each seed, [`generate`] writes one program (deterministic per seed) and its inputs; the
//! program must pass `scenicc check` (one that does not is a generator bug, counted apart and
//! never compared). [`run_seed`] then lowers it and, per [`Backend`]:
//!
//! - `interp`: runs the inputs on the reference interpreter; a panic is a finding;
//! - `passes`: runs them again on the module after `--passes all` and after each pass alone
//!   (the passes `scenicc emit ir --passes` offers), and compares every observable output
//!   (`compare.rs`); a pass that panics or leaves IR that does not validate is a finding.
//!
//! - `p4`: writes the program as P4 for v1model and Vitis Networking P4, reads it back with
//!   scenicc's P4 reader and compares the observations P4 preserves (`p4.rs`); a documented
//!   refusal counts as not P4-expressible (in [`SeedReport::outcomes`]), never as a pass.
//! - `hls-csim`: runs the reference's STF on the C-simulated HLS kernels (`csim.rs`; built
//!   ahead of the comparison, in parallel, by `csim_batch.rs`); a program the HLS backend refuses
//!   counts as not expressible there ([`SeedReport::not_expressible`]), never as a pass.
//!
//! `check` and `lower` run under `catch_unwind`: a panic there is a finding too, and so is a
//! statement of the program that lowering dropped (`stmt_check.rs`). Every backend is compared
//! against the same reference
//! transcript. A mismatch is minimised (`minimize.rs`) and written as a `.sn` + `.stf` pair.
//!
//! Files: `rng` (the PRNG), `gen_types`, `gen_expr`, `gen_stmt`, `gen_items`, `gen_scu`,
//! `gen_stream`, `gen_table` (the generator), `env` (scopes), `program` (what a program offers
//! its inputs), `inputs`, `host_record` (struct-valued host writes), `compare` and `stream_run`
//! (transcripts), `stmt_check`, `p4` (the P4 round trip), `minimize`, `stats` and `op_names`
//! (what `--stats` counts), `worker` (the child process that gives `smith` its per-seed timeout).

pub mod compare;
pub mod csim;
pub mod csim_batch;
pub mod env;
pub mod gen_expr;
pub mod gen_items;
pub mod gen_scu;
pub mod gen_stmt;
pub mod gen_stream;
pub mod gen_table;
pub mod gen_types;
pub mod host_record;
pub mod inputs;
pub mod minimize;
pub mod op_names;
pub mod p4;
pub mod p4_subset;
pub mod program;
pub mod rng;
pub mod stats;
pub mod stmt_check;
pub mod stream_run;
pub mod worker;

use compare::Transcript;
use inputs::Op;
use program::Program;
use scenic_ir::program::Module;
use stats::Stats;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a program is compared on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter alone (no panic).
    Interp,
    /// The interpreter on the module after the passes, against the reference.
    Passes,
    /// The interpreter on the module read back from the P4 of each target, against the reference.
    P4,
    /// The reference's STF on the C-simulated HLS kernels (`csim.rs`).
    HlsCsim,
}

impl Backend {
    /// Parses a `--backends` name.
    pub fn parse(name: &str) -> Result<Backend, String> {
        match name {
            "interp" => Ok(Backend::Interp),
            "passes" => Ok(Backend::Passes),
            "p4" => Ok(Backend::P4),
            "hls-csim" => Ok(Backend::HlsCsim),
            _ => Err(format!(
                "unknown backend `{name}`; the backends are interp, passes, p4, hls-csim"
            )),
        }
    }
}

/// A generated program and its inputs.
#[derive(Clone, Debug)]
pub struct Case {
    /// The program.
    pub program: Program,
    /// The inputs.
    pub ops: Vec<Op>,
    /// What the generator emitted.
    pub stats: Stats,
}

/// The program and inputs of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut g = gen_expr::Gen::new(seed);
    let program = g.program();
    let mut rng = rng::Rng::new(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x1d);
    let ops = inputs::ops(&mut rng, &program.info);
    let mut stats = g.stats;
    for op in &ops {
        stats.hit(op.stat_name());
    }
    Case {
        program,
        ops,
        stats,
    }
}

/// What went wrong with one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// A stage panicked: `check`, `lower`, a pass, or the interpreter on some variant.
    Panic {
        /// Where.
        stage: String,
        /// The panic message.
        message: String,
    },
    /// A pass left IR that does not validate.
    Invalid {
        /// The pass.
        pass: String,
        /// The validator's message.
        message: String,
    },
    /// Lowering dropped statements of the checked program (`stmt_check.rs`).
    Dropped {
        /// The statements, one per line.
        statements: String,
    },
    /// A backend failed on the program other than by a documented refusal: an unexpected error,
    /// or output its own reader rejects.
    Backend {
        /// The variant (`p4-v1model`, ...).
        variant: String,
        /// What happened.
        message: String,
    },
    /// A variant's transcript differs from the reference's.
    Mismatch {
        /// The variant (`all` or a pass name).
        variant: String,
        /// The first differing line: reference, variant.
        reference: String,
        /// What the variant observed there.
        observed: String,
    },
    /// A backend's output did not build (g++ failed on a generated kernel) or start.
    Build {
        /// The backend (`hls-csim`).
        variant: String,
        /// The first errors.
        message: String,
    },
}

impl Finding {
    /// The variant or stage it is about.
    pub fn variant(&self) -> &str {
        match self {
            Finding::Panic { stage, .. } => stage,
            Finding::Invalid { pass, .. } => pass,
            Finding::Dropped { .. } => "(lowering)",
            Finding::Backend { variant, .. }
            | Finding::Mismatch { variant, .. }
            | Finding::Build { variant, .. } => variant,
        }
    }

    /// One line describing it.
    pub fn describe(&self) -> String {
        match self {
            Finding::Panic { stage, message } => format!("panic in {stage}: {message}"),
            Finding::Invalid { pass, message } => {
                format!("IR invalid after pass `{pass}`: {message}")
            }
            Finding::Dropped { statements } => {
                format!("lowering dropped statements: {statements}")
            }
            Finding::Backend { variant, message } => format!("`{variant}` fails: {message}"),
            Finding::Mismatch {
                variant,
                reference,
                observed,
            } => {
                let side = if variant == csim::VARIANT {
                    variant
                } else {
                    "passes"
                };
                format!("`{variant}` differs: reference `{reference}`, {side} `{observed}`")
            }
            Finding::Build { variant, message } => {
                format!("`{variant}` did not build: {message}")
            }
        }
    }
}

/// The outcome of one seed.
#[derive(Clone, Debug)]
pub struct SeedReport {
    /// The case.
    pub case: Case,
    /// The check's diagnostics when the program did not check (a generator bug).
    pub check_error: Option<String>,
    /// Findings.
    pub findings: Vec<Finding>,
    /// Backend outcomes that are not findings (`p4.v1model.not-expressible.P0003`, ...).
    pub outcomes: Stats,
    /// Why the HLS backend refuses the program, when it does (`csim::refusal_shape`).
    pub not_expressible: Option<String>,
}

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Checks and lowers `source`: `Err(Ok(diagnostics))` when it does not check,
/// `Err(Err(finding))` when check or lower panicked.
pub fn lower(source: &str) -> Result<Module, Result<String, Finding>> {
    let checked = catch_unwind(AssertUnwindSafe(|| {
        let mut session = scenic_frontend::Session::new();
        session.add_source("smith.sn", source);
        let report = session.check(scenic_frontend::CheckOptions::default());
        (report.error_count(), report.render_plain(), session)
    }));
    let (errors, text, mut session) = match checked {
        Ok(r) => r,
        Err(p) => {
            return Err(Err(Finding::Panic {
                stage: "check".into(),
                message: panic_message(&*p),
            }))
        }
    };
    if errors > 0 {
        return Err(Ok(text));
    }
    match catch_unwind(AssertUnwindSafe(|| {
        scenic_lower::lower_session(&mut session)
    })) {
        Ok(Ok(m)) => Ok(m),
        Ok(Err(e)) => Err(Ok(format!("lowering refused: {e}"))),
        Err(p) => Err(Err(Finding::Panic {
            stage: "lower".into(),
            message: panic_message(&*p),
        })),
    }
}

/// The variants compared by the `passes` backend: `all`, then each pass alone.
pub fn variants() -> Vec<String> {
    let pm = scenic_opt::PassManager::with_default_passes();
    std::iter::once("all".to_string())
        .chain(pm.passes().iter().map(|p| p.name.to_string()))
        .collect()
}

/// `module` after `variant`; a panic or invalid IR is a finding.
pub fn apply_variant(module: &Module, variant: &str) -> Result<Module, Finding> {
    let mut m = module.clone();
    let pm = scenic_opt::PassManager::with_default_passes();
    let names = pm.expand(&[variant]).unwrap_or_default();
    for name in names {
        let began = std::time::Instant::now();
        let ran = catch_unwind(AssertUnwindSafe(|| pm.run_pass(name, &mut m)));
        let took = began.elapsed().as_secs_f64();
        if took > 1.0 {
            eprintln!("  pass `{name}` of `{variant}` took {took:.1} s");
        }
        match ran {
            Ok(_) => {}
            Err(p) => {
                return Err(Finding::Panic {
                    stage: format!("pass `{name}`"),
                    message: panic_message(&*p),
                })
            }
        }
        if let Err(e) = scenic_ir::valid::Validator::new().validate(&m) {
            return Err(Finding::Invalid {
                pass: name.to_string(),
                message: format!("{e:?}"),
            });
        }
    }
    Ok(m)
}

/// Runs the inputs on `module`; a panic is a finding of `stage`.
pub fn transcript(
    module: &Module,
    original: &Module,
    case: &Case,
    ops: &[Op],
    stage: &str,
) -> Result<Transcript, Finding> {
    catch_unwind(AssertUnwindSafe(|| {
        compare::run(module, &case.program.info, original, ops)
    }))
    .map_err(|p| Finding::Panic {
        stage: format!("interpreter on {stage}"),
        message: panic_message(&*p),
    })
}

/// The first line where two transcripts differ.
pub fn first_difference(a: &Transcript, b: &Transcript) -> Option<(String, String)> {
    let n = a.lines.len().max(b.lines.len());
    (0..n).find_map(|i| {
        let x = a
            .lines
            .get(i)
            .cloned()
            .unwrap_or_else(|| "(nothing)".into());
        let y = b
            .lines
            .get(i)
            .cloned()
            .unwrap_or_else(|| "(nothing)".into());
        (x != y).then_some((x, y))
    })
}

/// Compares `variant` with the reference on `ops`.
pub fn compare_variant(
    module: &Module,
    reference: &Transcript,
    case: &Case,
    ops: &[Op],
    variant: &str,
) -> Option<Finding> {
    let began = std::time::Instant::now();
    let vm = match apply_variant(module, variant) {
        Ok(vm) => vm,
        Err(f) => return Some(f),
    };
    let passes = began.elapsed().as_secs_f64();
    let t = match transcript(&vm, module, case, ops, &format!("`{variant}`")) {
        Ok(t) => t,
        Err(f) => return Some(f),
    };
    let total = began.elapsed().as_secs_f64();
    if total > 1.0 {
        eprintln!("  `{variant}` took {total:.1} s ({passes:.1} s in the passes)");
    }
    first_difference(reference, &t).map(|(reference, observed)| Finding::Mismatch {
        variant: variant.to_string(),
        reference,
        observed,
    })
}

/// Compares `variant` (a pass variant or a `p4-<target>`) with the reference on `ops`.
pub fn compare_any(
    module: &Module,
    reference: &Transcript,
    case: &Case,
    ops: &[Op],
    variant: &str,
) -> Option<Finding> {
    match p4::is_p4_variant(variant) {
        Some(target) => {
            let mut ignored = Stats::default();
            p4::compare_target(module, reference, case, ops, target, &mut ignored, None)
        }
        None => compare_variant(module, reference, case, ops, variant),
    }
}

/// The module a variant runs: after the passes, or read back from P4 (`None`: P4 refused it).
pub fn variant_module(
    module: &Module,
    scu: &str,
    variant: &str,
) -> Result<Option<Module>, Finding> {
    match p4::is_p4_variant(variant) {
        Some(target) => p4::derived(module, scu, target),
        None => apply_variant(module, variant).map(Some),
    }
}

/// Generates, checks, lowers and compares the program of `seed`.
pub fn run_seed(seed: u64, backends: &[Backend]) -> SeedReport {
    run_seed_staged(seed, backends, &mut |_| {})
}

/// [`run_seed`], telling `stage` what it starts (`generate`, `lower`, `reference`, a variant), so
/// that a parent process can say where a seed that timed out was.
pub fn run_seed_staged(seed: u64, backends: &[Backend], stage: &mut dyn FnMut(&str)) -> SeedReport {
    stage("generate");
    let case = generate(seed);
    let mut report = SeedReport {
        case,
        check_error: None,
        findings: Vec::new(),
        outcomes: Stats::default(),
        not_expressible: None,
    };
    stage("lower");
    let module = match lower(&report.case.program.source) {
        Ok(m) => m,
        Err(Ok(diags)) => {
            report.check_error = Some(diags);
            return report;
        }
        Err(Err(f)) => {
            report.findings.push(f);
            return report;
        }
    };
    if let Err(e) = scenic_ir::valid::Validator::new().validate(&module) {
        report.findings.push(Finding::Invalid {
            pass: "(lowering)".into(),
            message: format!("{e:?}"),
        });
        return report;
    }
    let dropped = stmt_check::dropped_statements(&report.case.program.source, &module);
    if !dropped.is_empty() {
        report.findings.push(Finding::Dropped {
            statements: dropped.join("; "),
        });
    }
    let ops = report.case.ops.clone();
    stage("reference");
    let reference = match transcript(&module, &module, &report.case, &ops, "the reference") {
        Ok(t) => t,
        Err(f) => {
            report.findings.push(f);
            return report;
        }
    };
    if backends.contains(&Backend::Passes) {
        for v in variants() {
            stage(&format!("passes `{v}`"));
            if let Some(f) = compare_variant(&module, &reference, &report.case, &ops, &v) {
                report.findings.push(f);
            }
        }
    }
    if backends.contains(&Backend::HlsCsim) {
        stage(csim::VARIANT);
        match scenic_hls_csim::ap_types(None) {
            Ok(ap_types) => match csim::run(&module, &report.case, &ops, &ap_types) {
                csim::Outcome::Passed => {}
                csim::Outcome::NotExpressible(why) => report.not_expressible = Some(why),
                csim::Outcome::Finding(f) => report.findings.push(f),
            },
            Err(e) => report.findings.push(Finding::Build {
                variant: csim::VARIANT.into(),
                message: e.to_string(),
            }),
        }
    }
    if backends.contains(&Backend::P4) {
        for target in p4::TARGETS {
            stage(&p4::variant(target));
            let (case, outcomes) = (&report.case, &mut report.outcomes);
            let mut projected = None;
            let found = p4::compare_target(
                &module,
                &reference,
                case,
                &ops,
                target,
                outcomes,
                Some(&mut projected),
            );
            if let Some(f) = found {
                // A finding on the P4-expressible part of the program is reported (and minimised)
                // with that part's source, when it is the seed's first finding.
                if let (Some(source), true) = (projected, report.findings.is_empty()) {
                    report.case.program.source = source;
                }
                report.findings.push(f);
            }
        }
    }
    report
}

/// A self-contained reproduction: the program and an STF file whose expectations are the
/// reference interpreter's outputs, so `scenicc test` passes on the reference and the variant's
/// run of the same STF fails where it differs.
#[derive(Clone, Debug)]
pub struct Reproduction {
    /// The `.sn` text, with a header comment naming the seed, the variant and the finding.
    pub source: String,
    /// The `.stf` text.
    pub stf: String,
    /// Whether the STF passes on the reference and fails on the variant (checked here with the
    /// STF runner of `scenic-sim`).
    pub stf_reproduces: bool,
    /// For a `p4-<target>` finding, the P4 the backend wrote (when it wrote one).
    pub p4: Option<String>,
}

/// Builds the reproduction of `finding` from a (minimised) program and inputs.
pub fn reproduction(
    case: &Case,
    seed: u64,
    finding: &Finding,
    source: &str,
    ops: &[Op],
) -> Reproduction {
    let variant = finding.variant();
    let shows = match p4::is_p4_variant(variant) {
        Some(t) => format!(
            "`scenicc emit {} mismatch-{seed}.sn > {scu}.p4 && scenicc test {scu}.p4 mismatch-{seed}.stf`",
            t.name(),
            scu = case.program.info.scu
        ),
        None if variant == csim::VARIANT => format!(
            "`scenicc test --backend hls-csim mismatch-{seed}.sn mismatch-{seed}.stf`"
        ),
        None => format!("`scenicc test --passes {variant} mismatch-{seed}.sn mismatch-{seed}.stf`"),
    };
    let header = format!(
        "// scenic-smith seed {seed}: {}\n// `scenicc test mismatch-{seed}.sn mismatch-{seed}.stf` passes on the reference interpreter;\n// {shows} shows the difference.\n",
        finding.describe().replace('\n', " "),
    );
    let mut stf =
        format!("# scenic-smith seed {seed}: expectations from the reference interpreter\n");
    let mut stf_reproduces = false;
    let mut p4_text = None;
    if let Ok(module) = lower(source) {
        if let Some(t) = p4::is_p4_variant(variant) {
            p4_text = p4::text(&module, t);
        }
        let ops = if variant == csim::VARIANT {
            csim::expressible_ops(&module, &case.program.info, ops).0
        } else {
            ops.to_vec()
        };
        if let Ok(t) = transcript(&module, &module, case, &ops, "the reference") {
            for l in &t.stf_text() {
                stf.push_str(l);
                stf.push('\n');
            }
            let passes_on_reference = scenic_sim::stf::run_text(&module, &stf, None).ok();
            let fails_on_variant = if variant == csim::VARIANT {
                csim::stf_fails(&module, &stf)
            } else {
                match variant_module(&module, &case.program.info.scu, variant) {
                    Ok(Some(vm)) => catch_unwind(AssertUnwindSafe(|| {
                        !scenic_sim::stf::run_text(&vm, &stf, None).ok()
                    }))
                    .unwrap_or(true),
                    Ok(None) => false,
                    Err(_) => true,
                }
            };
            stf_reproduces = passes_on_reference && fails_on_variant;
        }
    }
    Reproduction {
        source: format!("{header}{source}"),
        stf,
        stf_reproduces,
        p4: p4_text,
    }
}
