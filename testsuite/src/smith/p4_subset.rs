//! The P4-expressible part of a program that P4 refuses, so that the `p4` backend compares more
//! than the few generated programs that happen to avoid every construct P4 lacks (controllers,
//! maps, meters, `every`, `notify`, arrays, ...: docs/p4.md "Restrictions").
//!
//! [`project`] deletes, line by line, what the backend's refusal points at (each `Error::Unsupported`
//! has the span of its construct), then whatever no longer checks (each diagnostic's line), until
//! the backend accepts the program, using the minimiser's edits (`minimize::candidates`: a
//! statement, an item on one line, or a whole block). The result is a smaller program in its own
//! right, checked and lowered like any other; its reference transcript is taken afresh, so a
//! difference found on it is a difference of that program. The refusal of the original is still
//! counted as not P4-expressible with its codes.

use super::minimize::candidates;
use scenic_backend_p4::{write_p4, Error, Options, Target};
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Rounds of deletion before giving up.
const ROUNDS: usize = 60;

/// What one round found wrong with the program.
enum Verdict {
    /// The backend writes it (or fails otherwise, which the comparison reports).
    Accepted,
    /// The 0-based lines to delete.
    Delete(BTreeSet<usize>),
    /// Nothing to delete that would help.
    Stuck,
}

/// The 0-based line of byte `at`.
fn line_of(source: &str, at: usize) -> usize {
    source
        .get(..at.min(source.len()))
        .map_or(0, |s| s.matches('\n').count())
}

/// Lines named by `--> smith.sn:LINE:COL` in rendered diagnostics, 0-based.
fn diagnostic_lines(text: &str) -> BTreeSet<usize> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("--> smith.sn:"))
        .filter_map(|rest| rest.split(':').next()?.parse::<usize>().ok())
        .filter_map(|n| n.checked_sub(1))
        .collect()
}

fn verdict(source: &str, target: Target) -> Verdict {
    let module = match super::lower(source) {
        Ok(m) => m,
        Err(Ok(diags)) => {
            let lines = diagnostic_lines(&diags);
            return if lines.is_empty() {
                Verdict::Stuck
            } else {
                Verdict::Delete(lines)
            };
        }
        Err(Err(_)) => return Verdict::Stuck,
    };
    let Ok(info) = scenic_ir::valid::Validator::new().validate(&module) else {
        return Verdict::Stuck;
    };
    let written = catch_unwind(AssertUnwindSafe(|| {
        write_p4(&module, &info, &Options::new(target))
    }));
    match written {
        Ok(Err(errors)) => {
            let lines: BTreeSet<usize> = errors
                .0
                .iter()
                .filter_map(|e| match e {
                    Error::Unsupported { span, .. } if span.is_known() => {
                        Some(line_of(source, span.lo as usize))
                    }
                    _ => None,
                })
                .collect();
            if lines.is_empty() {
                Verdict::Accepted
            } else {
                Verdict::Delete(lines)
            }
        }
        Ok(Ok(_)) | Err(_) => Verdict::Accepted,
    }
}

/// Deletes line `i` (with the block it opens) if the minimiser has an edit for it.
fn delete(lines: &[String], i: usize) -> Option<Vec<String>> {
    let (end, with) = candidates(lines, i).into_iter().next()?;
    let mut next = lines[..i].to_vec();
    next.extend(with);
    next.extend_from_slice(lines.get(end + 1..)?);
    Some(next)
}

/// The P4-expressible part of `source` for `target`, if deletions reach one that the backend
/// accepts (or fails on other than by a refusal) and that still has a `control` to compare.
pub fn project(source: &str, target: Target) -> Option<String> {
    let mut text = source.to_string();
    for _ in 0..ROUNDS {
        let lines = match verdict(&text, target) {
            Verdict::Accepted => return text.contains("control {").then_some(text),
            Verdict::Stuck => return None,
            Verdict::Delete(lines) => lines,
        };
        let mut current: Vec<String> = text.lines().map(str::to_string).collect();
        let mut changed = false;
        // From the last line up, so earlier line numbers stay valid.
        for &i in lines.iter().rev() {
            if i >= current.len() {
                continue;
            }
            if let Some(next) = delete(&current, i) {
                current = next;
                changed = true;
            }
        }
        if !changed {
            return None;
        }
        text = current.join("\n") + "\n";
    }
    None
}
