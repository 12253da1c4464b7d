//! The cycle-budget check: every handler of a cc with `budget B cycles` must fit in B cycles.
//!
//! A handler over its budget is a [`TimingError::OverBudget`] that carries what a rustc-style
//! diagnostic needs: the handler's span for the primary label and the most expensive operations on
//! its critical path, each with its span and cycles, for secondary labels ([`TimingError::labels`]).

use super::analysis::{analyze, most_expensive};
use super::report::{BodyKind, CostlyOp, TimingReport};
use super::Options;
use scenic_ir::program::Module;
use scenic_ir::span::Span;
use serde::{Deserialize, Serialize};

/// How many costly operations an over-budget error names.
const MAX_OPS: usize = 5;

/// A timing check that failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum TimingError {
    /// A cc handler needs more cycles than its cc's budget.
    #[error(
        "handler `{handler}` of cc `{cc}` needs about {estimate} cycles, over its budget of {budget} cycles"
    )]
    OverBudget {
        /// The cc.
        cc: String,
        /// The handler (`on cnp`, `on timer rate_timer`).
        handler: String,
        /// The estimated cycles.
        estimate: u32,
        /// The declared budget.
        budget: u64,
        /// Where the handler is defined.
        span: Span,
        /// The most expensive operations on its critical path, most expensive first.
        costly: Vec<CostlyOp>,
    },
}

impl TimingError {
    /// Where the error points.
    pub fn span(&self) -> Span {
        match self {
            TimingError::OverBudget { span, .. } => *span,
        }
    }

    /// Labels for a diagnostic: the primary one (on the handler) first, then one per costly operation.
    pub fn labels(&self) -> Vec<(Span, String)> {
        match self {
            TimingError::OverBudget {
                estimate,
                budget,
                span,
                costly,
                ..
            } => {
                let mut out = vec![(
                    *span,
                    format!("this handler needs about {estimate} cycles; the budget is {budget}"),
                )];
                for op in costly {
                    let copies = if op.count > 1 {
                        format!(" ({} copies)", op.count)
                    } else {
                        String::new()
                    };
                    out.push((
                        op.span,
                        format!("{}: {} cycles{copies}", op.what, op.cycles),
                    ));
                }
                out
            }
        }
    }

    /// A note explaining the budget, for the end of the diagnostic.
    pub fn note(&self, options: &Options) -> String {
        format!(
            "at {} Gb/s a {} B packet leaves {:.2} ns, {} cycles at {} MHz; the figures are estimates \
             (see docs/timing.md)",
            options.line_rate_bps as f64 / 1e9,
            options.mtu_bytes,
            options.packet_ns(u64::from(options.mtu_bytes)),
            options.mtu_budget(),
            options.clock_mhz
        )
    }
}

/// The over-budget handlers of an analysed module.
pub fn budget_errors(report: &TimingReport) -> Vec<TimingError> {
    report
        .bodies
        .iter()
        .filter(|b| b.kind == BodyKind::CcHandler && b.over_budget())
        .map(|b| TimingError::OverBudget {
            cc: b.unit.clone(),
            handler: b.part.clone(),
            estimate: b.latency,
            budget: b.budget.unwrap_or_default(),
            span: b.span,
            costly: most_expensive(&b.critical_path, MAX_OPS),
        })
        .collect()
}

/// Analyses `module` and returns an error for every cc handler over its budget.
pub fn check_budgets(module: &Module, options: &Options) -> Vec<TimingError> {
    budget_errors(&analyze(module, options))
}
