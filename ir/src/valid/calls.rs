//! The call graph, and what every body reaches through it.
//!
//! Runs after every body has been checked on its own. Checks: no function calls itself, directly
//! or through others (`Recursion`, found by a topological sort of the call graph with petgraph);
//! every restricted construct a function uses is allowed in every non-function body that reaches
//! it (`MisplacedInCallee`): a function inherits the restrictions of every place it is called
//! from (docs/language.md §7.1). Computes `call_order` (callees first) and each body's transitive
//! calls and applies. A body reaches the functions it calls, and, through the tables it applies
//! and the actions it calls, their key bodies and actions, and so on from every function reached.

use super::body::Context;
use super::error::{BodyRef, ValidationError};
use super::info::{BodyInfo, ModuleInfo};
use crate::entities::*;
use crate::program::{Attach, Module, Owner};
use petgraph::algo::toposort;
use petgraph::graphmap::DiGraphMap;
use std::collections::{BTreeSet, HashSet};

/// Checks the call graph and fills in `call_order` and the transitive facts of every body.
pub(super) fn finish(module: &Module, info: &mut ModuleInfo) -> Result<(), ValidationError> {
    let mut graph: DiGraphMap<FuncId, ()> = DiGraphMap::new();
    for f in module.functions.keys() {
        graph.add_node(f);
    }
    for f in module.functions.keys() {
        for callee in &info.functions[f].calls {
            graph.add_edge(f, *callee, ());
        }
    }
    let order = toposort(&graph, None).map_err(|cycle| {
        let func = cycle.node_id();
        let span = module
            .functions
            .get(func)
            .map(|f| f.span)
            .unwrap_or_default();
        ValidationError::Recursion { func, span }
    })?;
    info.call_order = order.into_iter().rev().collect();
    for (at, context, scu) in bodies(module) {
        let (funcs, tables) = reach(module, info, at, scu);
        if !context.is_function() {
            let attach = scu.and_then(|s| module.scus.get(s)).map(|s| s.attach);
            placement(info, at, context, attach, &funcs)?;
        }
        if let Some(body) = body_info_mut(info, at) {
            body.calls_transitive = funcs.into_iter().collect();
            body.applies_transitive = tables.into_iter().collect();
        }
    }
    Ok(())
}

/// Every body of the module, with its context and owning scu.
fn bodies(module: &Module) -> Vec<(BodyRef, Context, Option<ScuId>)> {
    let mut out = Vec::new();
    for (f, func) in &module.functions {
        let (context, scu) = match func.owner {
            Owner::Module => (Context::ModuleFunction, None),
            Owner::Scu(s) => (Context::ScuFunction, Some(s)),
            Owner::Cc(_) => (Context::CcFunction, None),
        };
        out.push((BodyRef::Function(f), context, scu));
    }
    for (s, scu) in &module.scus {
        for t in scu.tables.keys() {
            out.push((BodyRef::TableKey(s, t), Context::TableKey, Some(s)));
        }
        for a in scu.actions.keys() {
            out.push((BodyRef::Action(s, a), Context::Action, Some(s)));
        }
        let present = [
            (scu.parser.is_some(), BodyRef::Parser(s), Context::Parser),
            (scu.control.is_some(), BodyRef::Control(s), Context::Control),
            (
                scu.on_parser_error.is_some(),
                BodyRef::OnParserError(s),
                Context::OnParserError,
            ),
            (
                scu.deparser.is_some(),
                BodyRef::Deparser(s),
                Context::Deparser,
            ),
            (scu.stream.is_some(), BodyRef::Stream(s), Context::Stream),
        ];
        for (present, at, context) in present {
            if present {
                out.push((at, context, Some(s)));
            }
        }
        for n in 0..scu.every.len() {
            out.push((BodyRef::Every(s, n), Context::Every, Some(s)));
        }
    }
    for (c, cc) in &module.ccs {
        for n in 0..cc.handlers.len() {
            out.push((BodyRef::Handler(c, n), Context::Handler, None));
        }
    }
    out
}

/// The functions and tables that may run when body `at` (of scu `scu`) runs.
fn reach(
    module: &Module,
    info: &ModuleInfo,
    at: BodyRef,
    scu: Option<ScuId>,
) -> (BTreeSet<FuncId>, BTreeSet<TableId>) {
    let mut funcs = BTreeSet::new();
    let mut tables = BTreeSet::new();
    let mut seen = HashSet::from([at]);
    let mut queue = vec![at];
    while let Some(b) = queue.pop() {
        let Some(body) = body_info(info, b) else {
            continue;
        };
        let mut next = Vec::new();
        for f in &body.calls {
            funcs.insert(*f);
            next.push(BodyRef::Function(*f));
        }
        if let Some((s, unit)) = scu.and_then(|s| module.scus.get(s).map(|u| (s, u))) {
            for t in &body.applies {
                tables.insert(*t);
                next.push(BodyRef::TableKey(s, *t));
                let actions = unit.tables.get(*t).map_or(&[][..], |t| &t.actions);
                next.extend(actions.iter().map(|a| BodyRef::Action(s, *a)));
            }
            next.extend(body.call_actions.iter().map(|a| BodyRef::Action(s, *a)));
        }
        for n in next {
            if seen.insert(n) {
                queue.push(n);
            }
        }
    }
    (funcs, tables)
}

/// Checks what the reached functions use against the context of the body that reaches them.
fn placement(
    info: &ModuleInfo,
    at: BodyRef,
    context: Context,
    attach: Option<Attach>,
    funcs: &BTreeSet<FuncId>,
) -> Result<(), ValidationError> {
    for f in funcs {
        for (construct, span) in &info.functions[*f].constructs {
            if !context.allows(*construct, attach) {
                let (callee, construct, span) = (*f, *construct, *span);
                return Err(ValidationError::MisplacedInCallee {
                    body: at,
                    callee,
                    construct,
                    span,
                });
            }
        }
    }
    Ok(())
}

/// The info of a body, if it exists.
fn body_info(info: &ModuleInfo, at: BodyRef) -> Option<&BodyInfo> {
    let scu = |s: ScuId| info.scus.get(s);
    match at {
        BodyRef::Function(f) => info.functions.get(f),
        BodyRef::TableKey(s, t) => scu(s)?.tables.get(t).map(|t| &t.key),
        BodyRef::Action(s, a) => scu(s)?.actions.get(a),
        BodyRef::Parser(s) => scu(s)?.parser.as_ref(),
        BodyRef::Control(s) => scu(s)?.control.as_ref(),
        BodyRef::OnParserError(s) => scu(s)?.on_parser_error.as_ref(),
        BodyRef::Deparser(s) => scu(s)?.deparser.as_ref(),
        BodyRef::Stream(s) => scu(s)?.stream.as_ref(),
        BodyRef::Every(s, n) => scu(s)?.every.get(n),
        BodyRef::Handler(c, n) => info.ccs.get(c)?.handlers.get(n),
    }
}

/// The info of a body, mutably, if it exists.
fn body_info_mut(info: &mut ModuleInfo, at: BodyRef) -> Option<&mut BodyInfo> {
    match at {
        BodyRef::Function(f) => info.functions.get_mut(f),
        BodyRef::TableKey(s, t) => info.scus.get_mut(s)?.tables.get_mut(t).map(|t| &mut t.key),
        BodyRef::Action(s, a) => info.scus.get_mut(s)?.actions.get_mut(a),
        BodyRef::Parser(s) => info.scus.get_mut(s)?.parser.as_mut(),
        BodyRef::Control(s) => info.scus.get_mut(s)?.control.as_mut(),
        BodyRef::OnParserError(s) => info.scus.get_mut(s)?.on_parser_error.as_mut(),
        BodyRef::Deparser(s) => info.scus.get_mut(s)?.deparser.as_mut(),
        BodyRef::Stream(s) => info.scus.get_mut(s)?.stream.as_mut(),
        BodyRef::Every(s, n) => info.scus.get_mut(s)?.every.get_mut(n),
        BodyRef::Handler(c, n) => info.ccs.get_mut(c)?.handlers.get_mut(n),
    }
}
