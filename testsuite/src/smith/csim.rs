//! The `hls-csim` backend of scenic-smith: a program's reference STF (the inputs, with the
//! reference interpreter's outputs as expectations, `Transcript::stf`) run on the C-simulated
//! HLS kernels of the program, built exactly as `scenicc test --backend hls-csim` builds them
//! (the lowered module, validated, `scenic_backend_hls::write_kernel` with the default options,
//! no passes, `CsimDevice::new` with no extra flags).
//!
//! Outcomes ([`Outcome`]):
//!
//! - the STF passes: nothing to report;
//! - a check fails: `Finding::Mismatch { variant: "hls-csim" }`, the failing STF line as the
//!   reference and the runner's message as what was observed;
//! - g++ fails on a generated kernel, or its testbench cannot start: `Finding::Build` (a kernel
//!   the backend generated must compile);
//! - the backend refuses the program (`scenic_backend_hls::Error`, an unsupported construct or
//!   a hardware limit, each documented in docs/hls.md): [`Outcome::NotExpressible`] with the
//!   refusal's shape (its message with names and numbers blotted), never a pass.
//!
//! Host `add`s to a table whose keys repeat an expression are left out (STF cannot name such
//! keys), and the inputs are cut before the first congestion event of a flow beyond a cc's `per flow[N]`
//! slots: the NIC gives flows N slots and the harness refuses the N+1-th (a device limit,
//! `cc_sim.rs`), where the interpreter keeps growing; everything before it is still compared.
//!
//! What STF cannot express is not compared on hls-csim (the `passes` backend compares it on the
//! interpreter): drop reasons (a dropped packet is only "no output"), notification times, the
//! result of a host operation the reference refused (it is left out of the STF), map entries
//! with struct values or keys wider than 64 bits, cc state and timers (only the rate or window
//! output is), and notifications' order relative to packets within one `wait`.
//!
//! Batching lives in `csim_batch.rs` (kernels compiled ahead of the run, in parallel).

use super::compare::Transcript;
use super::inputs::Op;
use super::program::ProgramInfo;
use super::{transcript, Case, Finding};
use scenic_backend_hls::KernelFiles;
use scenic_hls_csim::{CsimDevice, CsimError};
use scenic_ir::program::Module;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The variant name of the backend in findings and `--backends`.
pub const VARIANT: &str = "hls-csim";

/// What running a program on hls-csim gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every check of the STF held.
    Passed,
    /// The backend refuses the program: why (the refusal's shape, for counting).
    NotExpressible(String),
    /// A difference, a build failure, or a panic.
    Finding(Finding),
}

/// The kernels of `module`, generated as `scenicc test --backend hls-csim` does; `Err` is a
/// refusal, or the module does not validate (a finding the caller already reported).
pub fn kernels(module: &Module) -> Result<KernelFiles, Outcome> {
    let info = scenic_ir::valid::Validator::new()
        .validate(module)
        .map_err(|e| {
            Outcome::Finding(Finding::Invalid {
                pass: "(lowering)".into(),
                message: format!("{e:?}"),
            })
        })?;
    let options = scenic_backend_hls::Options::default();
    match catch_unwind(AssertUnwindSafe(|| {
        scenic_backend_hls::write_kernel(module, &info, &options)
    })) {
        Ok(Ok(files)) => Ok(files),
        Ok(Err(e)) => Err(Outcome::NotExpressible(refusal_shape(&e))),
        Err(p) => Err(Outcome::Finding(Finding::Panic {
            stage: "the HLS backend".into(),
            message: super::panic_message(&*p),
        })),
    }
}

/// A refusal with its names (in backticks) and numbers blotted, so that refusals of one kind
/// count together: "unsupported: a parser with more than N distinct paths".
pub fn refusal_shape(e: &scenic_backend_hls::Error) -> String {
    let kind = match e {
        scenic_backend_hls::Error::Unsupported { .. } => "unsupported",
        scenic_backend_hls::Error::Limit { .. } => "limit",
        scenic_backend_hls::Error::NoScu | scenic_backend_hls::Error::NoSuchScu(_) => "no kernel",
    };
    let text = e.to_string();
    let mut out = String::new();
    let mut in_name = false;
    let mut last_digit = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_name = !in_name;
                if in_name {
                    out.push_str("`_`");
                }
            }
            _ if in_name => {}
            '0'..='9' | ',' if last_digit || c.is_ascii_digit() => {
                if !last_digit {
                    out.push('N');
                }
                last_digit = true;
                continue;
            }
            _ => out.push(c),
        }
        last_digit = false;
    }
    format!("{kind}: {out}")
}

/// The inputs STF and the device can take: without the entries of a table that matches one
/// expression twice (STF names a key by its expression, so `add t a:1 a:2` is refused as "given
/// twice"), and cut before the first event of a flow beyond its cc's `per flow[N]` slots (see
/// the module doc); whether anything was left out.
pub fn expressible_ops(module: &Module, info: &ProgramInfo, ops: &[Op]) -> (Vec<Op>, bool) {
    let repeated = |table: &str| {
        info.tables.iter().any(|t| {
            t.name == table
                && t.keys
                    .iter()
                    .enumerate()
                    .any(|(i, k)| t.keys[..i].iter().any(|e| e.name == k.name))
        })
    };
    let kept: Vec<Op> = ops
        .iter()
        .filter(|op| !matches!(op, Op::AddEntry { table, .. } if repeated(table)))
        .cloned()
        .collect();
    let dropped = kept.len() != ops.len();
    let (kept, cut) = within_flow_slots(module, &kept);
    (kept, dropped || cut)
}

/// `ops` cut before the first event of a flow beyond its cc's `per flow[N]` slots.
fn within_flow_slots(module: &Module, ops: &[Op]) -> (Vec<Op>, bool) {
    let mut seen: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        if let Op::Event { cc, flow, .. } = op {
            let Some(def) = module.ccs.values().find(|c| &c.name == cc) else {
                continue;
            };
            let flows = seen.entry(cc.as_str()).or_default();
            flows.insert(*flow);
            if flows.len() as u64 > def.flows {
                return (ops[..i].to_vec(), true);
            }
        }
    }
    (ops.to_vec(), false)
}

/// The STF text of a transcript.
pub fn stf_text(t: &Transcript) -> String {
    let mut s = String::new();
    for l in &t.stf {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// Runs `case`'s program (lowered to `module`) on hls-csim with `ops`.
pub fn run(module: &Module, case: &Case, ops: &[Op], ap_types: &Path) -> Outcome {
    let files = match kernels(module) {
        Ok(f) => f,
        Err(o) => return o,
    };
    let (ops, _) = expressible_ops(module, &case.program.info, ops);
    let reference = match transcript(module, module, case, &ops, "the reference") {
        Ok(t) => t,
        Err(f) => return Outcome::Finding(f),
    };
    run_stf(module, &files, &stf_text(&reference), ap_types)
}

/// Runs STF `text` on the C-simulated kernels `files` of `module`.
pub fn run_stf(module: &Module, files: &KernelFiles, text: &str, ap_types: &Path) -> Outcome {
    let commands = match scenic_sim::stf::parse_report(text) {
        Ok(c) => c,
        Err(r) => {
            let first = r.failures.first().map(|f| f.message.clone());
            return Outcome::Finding(Finding::Panic {
                stage: "the STF of the reference (smith writes STF the parser refuses)".into(),
                message: first.unwrap_or_default(),
            });
        }
    };
    let mut device = match CsimDevice::new(module, files, ap_types, &[]) {
        Ok(d) => d,
        Err(e) => return Outcome::Finding(build_finding(&e)),
    };
    let report = match catch_unwind(AssertUnwindSafe(|| {
        scenic_sim::stf::run_on(&mut device, &commands, None)
    })) {
        Ok(r) => r,
        Err(p) => {
            return Outcome::Finding(Finding::Panic {
                stage: "the STF runner on hls-csim".into(),
                message: super::panic_message(&*p),
            })
        }
    };
    match report.failures.first() {
        None => Outcome::Passed,
        Some(f) => {
            let line = text
                .lines()
                .nth((f.pos.line as usize).saturating_sub(1))
                .unwrap_or("(end of the STF)");
            Outcome::Finding(Finding::Mismatch {
                variant: VARIANT.into(),
                reference: format!("line {}: {line}", f.pos.line),
                observed: f.message.clone(),
            })
        }
    }
}

/// A failed build or start of the testbenches as a finding: g++'s first error lines.
fn build_finding(e: &CsimError) -> Finding {
    let message = match e {
        CsimError::Compile { dir, stderr } => {
            let errors: Vec<&str> = stderr
                .lines()
                .filter(|l| l.contains("error"))
                .take(3)
                .collect();
            format!("g++ failed in {}: {}", dir.display(), errors.join(" | "))
        }
        other => other.to_string(),
    };
    Finding::Build {
        variant: VARIANT.into(),
        message,
    }
}

/// Whether `source` with `ops` still shows a finding of `like`'s kind on hls-csim (for the
/// minimiser; every candidate builds its kernels again, mostly from the cache's PCH).
pub fn reproduces(case: &Case, module: &Module, ops: &[Op], like: &Finding) -> bool {
    let Ok(ap_types) = scenic_hls_csim::ap_types(None) else {
        return false;
    };
    match run(module, case, ops, &ap_types) {
        Outcome::Finding(f) => std::mem::discriminant(&f) == std::mem::discriminant(like),
        Outcome::Passed | Outcome::NotExpressible(_) => false,
    }
}

/// Whether STF `text` fails on hls-csim for `module` (a reproduction's self-check).
pub fn stf_fails(module: &Module, text: &str) -> bool {
    let Ok(ap_types) = scenic_hls_csim::ap_types(None) else {
        return false;
    };
    match kernels(module) {
        Ok(files) => !matches!(
            run_stf(module, &files, text, &ap_types),
            Outcome::Passed | Outcome::NotExpressible(_)
        ),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_of_one_kind_have_one_shape() {
        let a = scenic_backend_hls::Error::Limit {
            scu: "u1".into(),
            what: "map `m3` (1024 entries of 40 bits)".into(),
            figure: "1,000,000 bits".into(),
            limit: "70 bits".into(),
            span: scenic_ir::Span::default(),
        };
        assert_eq!(
            refusal_shape(&a),
            "limit: map `_` (N entries of N bits) in scu `_` needs N bits, over the limit of N bits"
        );
    }
}
