//! What the writer must know before it writes: whether the scu is expressible on the target (every
//! restriction, one error per construct), how CSRs map, and the header-validity facts that decide
//! which reads need guards.

pub mod csr;
pub mod deparser;
pub mod dests;
pub mod facts;
pub mod flow;
pub mod restrict;
pub mod select;
pub mod walk;

use crate::error::Error;
use crate::Target;
use facts::{Facts, ParserFacts};
use flow::{ActionEffects, Site};
use scenic_ir::{ActionId, CsrId, Module, Scu};
use std::collections::BTreeMap;

/// The analysis results for one scu.
#[derive(Clone, Debug)]
pub struct Plan {
    /// What each CSR becomes.
    pub csrs: BTreeMap<CsrId, csr::CsrKind>,
    /// Parser validity facts (when there is a parser).
    pub parser: Option<ParserFacts>,
    /// Which headers each action may change the validity of.
    pub effects: ActionEffects,
    /// The facts where each action starts: the meet over every place it runs from.
    pub action_entry: BTreeMap<ActionId, Facts>,
}

/// Analyses the scu; `Err` lists every construct the target cannot express.
pub fn analyze(module: &Module, scu: &Scu, target: Target) -> Result<Plan, Vec<Error>> {
    let mut errors = restrict::check(module, scu, target);
    errors.extend(dests::check(scu, target));
    if target == Target::VitisP4 {
        if let Some(parser) = &scu.parser {
            errors.extend(select::check(parser));
        }
    }
    errors.extend(deparser::check(scu, target));
    let (csrs, csr_errors) = csr::plan(scu, target);
    errors.extend(csr_errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let parser = scu.parser.as_ref().map(|p| facts::parser_facts(scu, p));
    let effects = ActionEffects::of(scu);
    let action_entry = action_entry(scu, parser.as_ref(), &effects);
    Ok(Plan {
        csrs,
        parser,
        effects,
        action_entry,
    })
}

/// Facts at the start of the control and of `on parser_error`.
pub fn control_entry(scu: &Scu, parser: Option<&ParserFacts>, on_error: bool) -> Facts {
    match parser {
        Some(p) if on_error => p.reject.clone(),
        Some(p) => p.accept.clone(),
        None => Facts::all_invalid(scu),
    }
}

fn action_entry(
    scu: &Scu,
    parser: Option<&ParserFacts>,
    fx: &ActionEffects,
) -> BTreeMap<ActionId, Facts> {
    let mut entry: BTreeMap<ActionId, Facts> = BTreeMap::new();
    let record = |a: ActionId, facts: &Facts, entry: &mut BTreeMap<ActionId, Facts>| {
        let old = entry.remove(&a).unwrap_or_else(Facts::unreachable);
        entry.insert(a, old.meet(facts));
    };
    let bodies = [
        (scu.control.as_ref(), false),
        (scu.on_parser_error.as_ref(), true),
    ];
    for (body, on_error) in bodies {
        let Some(body) = body else { continue };
        let start = control_entry(scu, parser, on_error);
        flow::walk_block(
            fx,
            scu,
            body,
            &body.block,
            start,
            &mut |site, facts| match site {
                Site::Table(t) => {
                    for a in scu
                        .tables
                        .get(t)
                        .map(|t| t.actions.clone())
                        .unwrap_or_default()
                    {
                        record(a, facts, &mut entry);
                    }
                }
                Site::Call(a) => record(a, facts, &mut entry),
            },
        );
    }
    // Actions calling actions: the callee also starts where its callers are (one level is what
    // the language's examples use; deeper chains fall back to knowing nothing).
    for (id, action) in scu.actions.iter() {
        let mut called = Vec::new();
        walk::visit_body_exprs(&action.body, &mut |_, e, _| {
            if let scenic_ir::Expr::CallAction(a, _) = e {
                called.push(*a);
            }
        });
        for a in called {
            let _ = id;
            entry.insert(a, Facts::unknown());
        }
    }
    entry
}
