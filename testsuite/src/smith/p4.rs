//! The `p4` backend of scenic-smith: each checked program is written as P4 for each target
//! (`scenic_backend_p4::write_p4`: v1model and Vitis Networking P4), read back by scenicc's own
//! P4 reader (`scenic_lower::p4::compile_source`), and the P4-derived module runs the same inputs
//! as the reference (`compare::run`); the observations P4 preserves must be equal.
//!
//! Outcomes per target:
//! - the backend refuses the program with its documented P-codes only (`Error::Unsupported`,
//!   docs/p4.md "Restrictions"): *not P4-expressible*, counted per code in the stats
//!   (`p4.<target>.refused.<code>`), never a pass and never a finding;
//! - anything else is a finding: a panic in the backend, the reader or the interpreter, another
//!   backend error (P0020, P0099), P4 the reader rejects, a P4-derived module that does not
//!   validate, or a difference in the compared observations.
//!
//! Compared ([`p4_view`]): packets out (destination and bytes), the fact that a packet was dropped,
//! the result of every host operation (`set_csr`, table `add`/`setdefault`), and at the end every
//! CSR and param and every counter cell. Not compared: drop *reasons* (P4 has no reason; the
//! reader's module drops with its own wording, e.g. `mark_to_drop` for what scenic calls a parser
//! error), map writes and contents (a used map is refused, P0003; an unused one is deleted by the
//! backend's passes, so the host's write goes nowhere), and nothing of notifications, meters,
//! `every` or controllers, which the backend refuses (P0001, P0004–P0006). The P4-derived module names
//! the scu after the file (`<scu>.p4`, so it keeps the original's name) and calls `no_action`
//! core.p4's `NoAction`; host operations are renamed accordingly.
//!
//! A refused program is not the end: its P4-expressible part (`p4_subset.rs`: what the refusal
//! points at deleted, then what no longer checks) is compared in its place, counted as
//! `p4.<target>.projected.compared`; a finding on it is reported with that program's source.
//!
//! A finding's variant is `p4-<target>` (`p4-v1model`, `p4-vitis-p4`), which [`is_p4_variant`]
//! recognises so that minimisation and reproductions re-run the round trip.

use super::compare::Transcript;
use super::inputs::Op;
use super::stats::Stats;
use super::{first_difference, panic_message, Case, Finding};
use scenic_backend_p4::{write_p4, Error, Options, Target};
use scenic_ir::program::Module;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The P4 targets compared, in order.
pub const TARGETS: [Target; 2] = [Target::V1Model, Target::VitisP4];

/// The variant name of a target's findings.
pub fn variant(target: Target) -> String {
    format!("p4-{}", target.name())
}

/// The target of a `p4-<target>` variant name.
pub fn is_p4_variant(variant: &str) -> Option<Target> {
    TARGETS.into_iter().find(|t| self::variant(*t) == variant)
}

/// What writing and reading back one program for one target gave.
#[derive(Debug)]
pub enum RoundTrip {
    /// The P4-derived module.
    Module(Box<Module>),
    /// The backend refused the program with these documented codes (sorted, each once).
    Refused(Vec<&'static str>),
}

/// Writes `module` as P4 for `target` and reads it back; a failure other than a documented
/// refusal is a finding. `scu` is the one the inputs go to; `None` lets the backend choose as
/// `scenicc emit` does without `--scu` (a module with no scu is then refused, P0001 for a cc).
pub fn round_trip(
    module: &Module,
    scu: Option<&str>,
    target: Target,
) -> Result<RoundTrip, Finding> {
    let v = variant(target);
    let panic = |stage: &str, p: Box<dyn std::any::Any + Send>| Finding::Panic {
        stage: format!("{v} {stage}"),
        message: panic_message(&*p),
    };
    let info = scenic_ir::valid::Validator::new()
        .validate(module)
        .map_err(|e| Finding::Backend {
            variant: v.clone(),
            message: format!("the original IR does not validate: {e:?}"),
        })?;
    let written = catch_unwind(AssertUnwindSafe(|| {
        // The scu the inputs go to: a program may have a second one (`to_scu`, `gen_items.rs`).
        let options = Options {
            scu: scu.map(str::to_string),
            ..Options::new(target)
        };
        write_p4(module, &info, &options)
    }))
    .map_err(|p| panic("backend", p))?;
    let text = match written {
        Ok(text) => text,
        Err(errors) => return refusal(&v, &errors.0),
    };
    let read = catch_unwind(AssertUnwindSafe(|| {
        scenic_lower::p4::compile_source(&format!("{}.p4", scu.unwrap_or("program")), &text)
    }))
    .map_err(|p| panic("reader", p))?;
    let back = match read {
        (report, Some(m)) if report.error_count() == 0 => m,
        (report, _) => {
            let first = report.render_plain();
            let first = first.lines().take(3).collect::<Vec<_>>().join(" | ");
            return Err(Finding::Backend {
                variant: v,
                message: format!("the P4 reader rejects the backend's P4: {first}"),
            });
        }
    };
    if let Err(e) = scenic_ir::valid::Validator::new().validate(&back) {
        return Err(Finding::Backend {
            variant: v,
            message: format!("the P4-derived IR does not validate: {e:?}"),
        });
    }
    Ok(RoundTrip::Module(Box::new(back)))
}

/// A refusal made only of documented P-codes, or a finding naming the first other error.
fn refusal(variant: &str, errors: &[Error]) -> Result<RoundTrip, Finding> {
    if let Some(other) = errors
        .iter()
        .find(|e| !matches!(e, Error::Unsupported { .. }))
    {
        return Err(Finding::Backend {
            variant: variant.to_string(),
            message: format!("the backend fails with {}: {other}", other.code()),
        });
    }
    let mut codes: Vec<&'static str> = errors.iter().map(Error::code).collect();
    codes.sort_unstable();
    codes.dedup();
    Ok(RoundTrip::Refused(codes))
}

/// `ops` as the P4-derived module names things: `no_action` is core.p4's `NoAction`.
pub fn p4_ops(ops: &[Op]) -> Vec<Op> {
    let rename = |a: &String| {
        if a == "no_action" {
            "NoAction".to_string()
        } else {
            a.clone()
        }
    };
    ops.iter()
        .map(|op| match op {
            Op::AddEntry {
                table,
                keys,
                action,
                args,
                priority,
            } => Op::AddEntry {
                table: table.clone(),
                keys: keys.clone(),
                action: rename(action),
                args: args.clone(),
                priority: *priority,
            },
            Op::SetDefault {
                table,
                action,
                args,
            } => Op::SetDefault {
                table: table.clone(),
                action: rename(action),
                args: args.clone(),
            },
            other => other.clone(),
        })
        .collect()
}

/// The observations P4 preserves: a transcript with drop reasons removed (`K: dropped`) and
/// without maps (a map the program uses is refused, P0003; one it never uses is deleted by the
/// backend's `dead-code-elimination`, so the host's `map_write` has nothing to write on P4).
pub fn p4_view(t: &Transcript) -> Transcript {
    let lines = t
        .lines
        .iter()
        .filter(|l| {
            !l.starts_with("map ") && !l.contains(": map_write ") && !l.contains(": map record ")
        })
        .map(|l| match l.split_once(": dropped") {
            Some((i, _)) if i.parse::<usize>().is_ok() => format!("{i}: dropped"),
            _ => l.clone(),
        })
        .collect();
    Transcript {
        lines,
        stf: t.stf.clone(),
        stf_cut: t.stf_cut,
    }
}

/// The P4-derived module's transcript of `ops`; a panic is a finding.
pub fn transcript(
    back: &Module,
    case: &Case,
    ops: &[Op],
    target: Target,
) -> Result<Transcript, Finding> {
    catch_unwind(AssertUnwindSafe(|| {
        super::compare::run(back, &case.program.info, back, &p4_ops(ops))
    }))
    .map_err(|p| Finding::Panic {
        stage: format!("{} interpreter", variant(target)),
        message: panic_message(&*p),
    })
}

/// Compares `target`'s round trip with the reference on `ops`; records in `stats` whether the
/// program was compared, not P4-expressible (with its codes) or a finding. With `project`, a
/// refused program's P4-expressible part (`p4_subset::project`) is compared instead, and
/// `projected` receives its source when that comparison is a finding.
pub fn compare_target(
    module: &Module,
    reference: &Transcript,
    case: &Case,
    ops: &[Op],
    target: Target,
    stats: &mut Stats,
    projected: Option<&mut Option<String>>,
) -> Option<Finding> {
    let t = target.name();
    let found = match round_trip(module, Some(&case.program.info.scu), target) {
        Ok(RoundTrip::Module(back)) => {
            stats.hit_owned(format!("p4.{t}.compared"));
            compare_module(module, &back, reference, case, ops, target)
        }
        Ok(RoundTrip::Refused(codes)) => {
            stats.hit_owned(format!("p4.{t}.not-expressible"));
            for c in codes {
                stats.hit_owned(format!("p4.{t}.not-expressible.{c}"));
            }
            match projected {
                Some(out) => compare_projection(case, ops, target, stats, out),
                None => None,
            }
        }
        Err(f) => Some(f),
    };
    if found.is_some() {
        stats.hit_owned(format!("p4.{t}.finding"));
    }
    found
}

/// Compares the P4-expressible part of a refused program, if there is one.
fn compare_projection(
    case: &Case,
    ops: &[Op],
    target: Target,
    stats: &mut Stats,
    out: &mut Option<String>,
) -> Option<Finding> {
    let t = target.name();
    let Some(source) = super::p4_subset::project(&case.program.source, target) else {
        stats.hit_owned(format!("p4.{t}.projection-failed"));
        return None;
    };
    let Ok(module) = super::lower(&source) else {
        stats.hit_owned(format!("p4.{t}.projection-failed"));
        return None;
    };
    let reference = super::transcript(&module, &module, case, ops, "the reference").ok()?;
    let found = match round_trip(&module, Some(&case.program.info.scu), target) {
        Ok(RoundTrip::Module(back)) => {
            stats.hit_owned(format!("p4.{t}.projected.compared"));
            compare_module(&module, &back, &reference, case, ops, target)
        }
        Ok(RoundTrip::Refused(_)) => {
            stats.hit_owned(format!("p4.{t}.projection-failed"));
            None
        }
        Err(f) => Some(f),
    };
    if found.is_some() {
        *out = Some(source);
    }
    found
}

/// Runs `ops` on the P4-derived module and compares what P4 preserves with the reference.
/// Host operations on a table the P4 program never applies are left out of both runs: such a
/// table has no P4 counterpart to rely on (p4c removes unused declarations, and scenicc's reader
/// makes a table where it is applied). Packets are still compared, so an application the backend
/// lost while it mattered still shows.
fn compare_module(
    original: &Module,
    back: &Module,
    reference: &Transcript,
    case: &Case,
    ops: &[Op],
    target: Target,
) -> Option<Finding> {
    let unapplied = absent_tables(original, back);
    let kept: Vec<Op>;
    let rerun;
    let (ops, reference) = if ops.iter().any(|op| on_table(op, &unapplied)) {
        kept = ops
            .iter()
            .filter(|op| !on_table(op, &unapplied))
            .cloned()
            .collect();
        rerun = match super::transcript(original, original, case, &kept, "the reference") {
            Ok(t) => t,
            Err(f) => return Some(f),
        };
        (&kept[..], &rerun)
    } else {
        (ops, reference)
    };
    let observed = match transcript(back, case, ops, target) {
        Ok(x) => x,
        Err(f) => return Some(f),
    };
    first_difference(&p4_view(reference), &p4_view(&observed)).map(|(reference, observed)| {
        Finding::Mismatch {
            variant: variant(target),
            reference,
            observed,
        }
    })
}

/// Whether `op` is a host operation on one of `tables`.
fn on_table(op: &Op, tables: &BTreeSet<String>) -> bool {
    match op {
        Op::AddEntry { table, .. } | Op::SetDefault { table, .. } => tables.contains(table),
        _ => false,
    }
}

/// The original's tables that the P4-derived module lacks: the P4 program never applies them
/// (none did, or the backend's passes found every application dead, e.g. after a parser that
/// always rejects).
fn absent_tables(original: &Module, back: &Module) -> BTreeSet<String> {
    let in_back: BTreeSet<&str> = back
        .scus
        .values()
        .flat_map(|s| s.tables.values().map(|t| t.name.as_str()))
        .collect();
    original
        .scus
        .values()
        .flat_map(|s| s.tables.values())
        .filter(|t| !in_back.contains(t.name.as_str()))
        .map(|t| t.name.clone())
        .collect()
}

/// The P4-derived module of `target`, for a reproduction's STF check; `None` when refused.
pub fn derived(module: &Module, scu: &str, target: Target) -> Result<Option<Module>, Finding> {
    Ok(match round_trip(module, Some(scu), target)? {
        RoundTrip::Module(m) => Some(*m),
        RoundTrip::Refused(_) => None,
    })
}

/// The P4 text `target`'s backend writes for `module`, if it writes one (for a reproduction).
pub fn text(module: &Module, target: Target) -> Option<String> {
    let info = scenic_ir::valid::Validator::new().validate(module).ok()?;
    // The first scu, the one the inputs go to (a program may have a second, `gen_items.rs`).
    let options = Options {
        scu: module.scus.values().next().map(|s| s.name.clone()),
        ..Options::new(target)
    };
    catch_unwind(AssertUnwindSafe(|| write_p4(module, &info, &options).ok()))
        .ok()
        .flatten()
}
