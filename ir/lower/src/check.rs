//! Whole-program checking: the frontend's diagnostics, then what only the IR can tell.
//!
//! A program that checks clean in the frontend is lowered, and its timing estimates are compared with
//! the cycle budgets of its congestion controllers: a handler over its budget is E0604, with a label on
//! each of the most expensive operations on its critical path. `scenicc check`, every building
//! command and the golden tests use [`check`], so they all report the same problems.

use scenic_frontend::diag::{codes, Diagnostic, Loc};
use scenic_frontend::span::Span as FileSpan;
use scenic_frontend::{CheckOptions, CheckReport, Session};
use scenic_timing::{self as timing, TimingError};

/// Checks the session's root files: frontend diagnostics, plus budget errors when those are clean.
pub fn check(session: &mut Session, options: CheckOptions) -> CheckReport {
    let mut report = session.check(options);
    if report.error_count() > 0 {
        return report;
    }
    for &root in session.roots() {
        let Ok(module) = crate::lower_file(session.db(), root) else {
            continue;
        };
        for err in timing::check_budgets(&module, &timing::Options::default()) {
            report.diagnostics.push(budget_diagnostic(&err));
        }
    }
    report
}

/// Checks one source text held in memory (tests and tools).
pub fn check_source(name: &str, text: &str, options: CheckOptions) -> CheckReport {
    let mut session = Session::new();
    session.add_source(name, text);
    check(&mut session, options)
}

fn loc(span: scenic_ir::span::Span) -> Loc {
    Loc::File {
        file: scenic_frontend::diag::FileId(span.file.0),
        span: FileSpan {
            lo: span.lo,
            hi: span.hi,
        },
    }
}

fn budget_diagnostic(err: &TimingError) -> Diagnostic {
    let TimingError::OverBudget {
        cc,
        handler,
        estimate,
        budget,
        span,
        costly,
    } = err;
    let mut diag = Diagnostic::at(
        codes::E0604,
        loc(*span),
        format!(
            "`{handler}` of cc `{cc}` needs about {estimate} cycles, over its budget of {budget}"
        ),
    )
    .label(format!("about {estimate} cycles"));
    for op in costly {
        diag = diag.secondary_at(loc(op.span), format!("{}: {} cycles", op.what, op.cycles));
    }
    diag.note(err.note(&timing::Options::default()))
        .help("simplify the handler (narrower arithmetic, no run-time division, fewer dependent steps) or raise the budget")
}
