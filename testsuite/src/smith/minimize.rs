//! Automatic minimisation of a finding: delete inputs, then lines of the program (a statement,
//! an item on one line, or a whole block from its `{` line to the matching `}`, an `else` branch),
//! then simplify expressions to literals, as long as the program still checks and the same kind
//! of finding still reproduces on the same variant. It works on the generator's line shape (one
//! statement per line, see `gen_stmt.rs`); every candidate is re-checked, so a deletion that
//! breaks the program is simply refused.

use super::inputs::Op;
use super::{compare_any, lower, transcript, Case, Finding};
use std::mem::discriminant;

/// Whether `source` with `ops` still shows a finding like `like`.
fn reproduces(case: &Case, source: &str, ops: &[Op], like: &Finding) -> bool {
    let module = match lower(source) {
        Ok(m) => m,
        Err(Err(f)) => {
            return discriminant(&f) == discriminant(like) && f.variant() == like.variant()
        }
        Err(Ok(_)) => return false,
    };
    if let Finding::Dropped { .. } = like {
        return !super::stmt_check::dropped_statements(source, &module).is_empty();
    }
    if like.variant() == "(lowering)" {
        return scenic_ir::valid::Validator::new()
            .validate(&module)
            .is_err();
    }
    if like.variant() == super::csim::VARIANT {
        return super::csim::reproduces(case, &module, ops, like);
    }
    let reference = match transcript(&module, &module, case, ops, "the reference") {
        Ok(t) => t,
        Err(f) => return discriminant(&f) == discriminant(like) && f.variant() == like.variant(),
    };
    let variant = match like {
        Finding::Mismatch { variant, .. }
        | Finding::Backend { variant, .. }
        | Finding::Build { variant, .. } => variant.clone(),
        Finding::Invalid { pass, .. } => pass.clone(),
        Finding::Dropped { .. } => return false,
        Finding::Panic { stage, .. } => stage
            .split(' ')
            .next()
            .filter(|v| super::p4::is_p4_variant(v).is_some())
            .unwrap_or(stage)
            .trim_start_matches("interpreter on ")
            .trim_start_matches("pass ")
            .trim_matches('`')
            .to_string(),
    };
    match compare_any(&module, &reference, case, ops, &variant) {
        Some(f) => discriminant(&f) == discriminant(like) && same_backend_failure(&f, like),
        None => false,
    }
}

/// A backend failure must keep its message up to the first location (`the P4 reader rejects
/// the backend's P4: error[E0703]: cannot find name `x``): any failure would otherwise do, down
/// to an empty program that has no scu to write.
fn same_backend_failure(f: &Finding, like: &Finding) -> bool {
    let head = |m: &str| m.split(" |").next().unwrap_or("").to_string();
    match (f, like) {
        (Finding::Backend { message: a, .. }, Finding::Backend { message: b, .. }) => {
            head(a) == head(b)
        }
        _ => true,
    }
}

/// The line after the block opened at `start` closes (its matching `}` line, inclusive end).
fn block_end(lines: &[String], start: usize) -> Option<usize> {
    let mut depth: i64 = 0;
    for (i, l) in lines.iter().enumerate().skip(start) {
        depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
        if depth <= 0 && i > start {
            return Some(i);
        }
    }
    None
}

/// Candidate edits of line `i`: the replacement of lines `i..=end` by `with`.
pub(crate) fn candidates(lines: &[String], i: usize) -> Vec<(usize, Vec<String>)> {
    let l = lines[i].trim();
    let indent: String = lines[i].chars().take_while(|c| *c == ' ').collect();
    let mut out = Vec::new();
    if l == "}" || l.is_empty() {
        return out;
    }
    if l.starts_with("} else") && l.ends_with('{') {
        if let Some(end) = block_end(lines, i) {
            out.push((end, vec![format!("{indent}}}")]));
        }
        return out;
    }
    if l.ends_with('{') {
        if let Some(end) = block_end(lines, i) {
            out.push((end, Vec::new()));
        }
        if l.starts_with("if ") {
            out.push((i, vec![format!("{indent}if true {{")]));
            out.push((i, vec![format!("{indent}if false {{")]));
        }
        return out;
    }
    out.push((i, Vec::new()));
    if let Some((head, _)) = rhs_split(l) {
        for lit in ["0", "1", "false", "true", "0ns", "0B", "0bps"] {
            out.push((i, vec![format!("{indent}{head}{lit};")]));
        }
    }
    out
}

/// `let x: T = e;`, `p = e;`, `p op= e;`, `return e;` split before `e`.
fn rhs_split(l: &str) -> Option<(&str, &str)> {
    if !l.ends_with(';') {
        return None;
    }
    if let Some(rest) = l.strip_prefix("return ") {
        return Some((&l[..l.len() - rest.len()], rest));
    }
    let at = l
        .find(" = ")
        .map(|p| p + 3)
        .or_else(|| l.find("= ").map(|p| p + 2))?;
    let (head, rhs) = l.split_at(at);
    (rhs.trim_end_matches(';').len() > 1).then_some((head, rhs))
}

/// Minimises `case`'s finding `like`; returns the smaller source and inputs. `budget` bounds the
/// number of candidates tried.
pub fn minimize(case: &Case, like: &Finding, budget: usize) -> (String, Vec<Op>) {
    minimize_within(case, like, budget, None)
}

/// [`minimize`], stopping also once `limit` has passed (an hls-csim candidate compiles its
/// kernels, seconds each): what was reached by then is returned.
pub fn minimize_within(
    case: &Case,
    like: &Finding,
    budget: usize,
    limit: Option<std::time::Duration>,
) -> (String, Vec<Op>) {
    let began = std::time::Instant::now();
    let mut source = case.program.source.clone();
    let mut ops = case.ops.clone();
    let mut tries = 0;
    let over = |tries: usize| tries >= budget || limit.is_some_and(|l| began.elapsed() > l);
    let mut progress = true;
    while progress && !over(tries) {
        progress = false;
        // Inputs: drop chunks, halving the chunk size.
        let mut chunk = ops.len().div_ceil(2).max(1);
        while chunk >= 1 && !over(tries) {
            let mut i = 0;
            while i < ops.len() && !over(tries) {
                let mut fewer = ops.clone();
                fewer.drain(i..(i + chunk).min(ops.len()));
                tries += 1;
                if reproduces(case, &source, &fewer, like) {
                    ops = fewer;
                    progress = true;
                } else {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
        // Program lines, from the end (uses come after declarations).
        let mut i = source.lines().count();
        while i > 0 && !over(tries) {
            i -= 1;
            let lines: Vec<String> = source.lines().map(str::to_string).collect();
            if i >= lines.len() {
                continue;
            }
            for (end, with) in candidates(&lines, i) {
                let mut next = lines[..i].to_vec();
                next.extend(with);
                next.extend_from_slice(&lines[end + 1..]);
                let text = next.join("\n") + "\n";
                tries += 1;
                if text != source && reproduces(case, &text, &ops, like) {
                    source = text;
                    progress = true;
                    break;
                }
            }
        }
    }
    (source, ops)
}
