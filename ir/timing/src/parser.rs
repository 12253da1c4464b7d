//! The parser: the timing of each state and of the worst path through the state machine.
//!
//! A state costs its extractions (aligning each header out of the beat) and its transition (comparing
//! the select value with the cases). States run one after the other along a path, and a path also has
//! to wait for the beats that carry its headers: headers of `b` bits arrive over `⌈b/512⌉` beats, one
//! per cycle. The worst path is the longest one from `start`; a loop in the state graph (a header
//! stack) counts as many times as the largest stack it extracts into. The states become one pipeline
//! (as Vitis Networking P4 builds parsers), so the parser takes a packet per cycle: II 1.

use super::analysis::{most_expensive, Entry};
use super::cost;
use super::report::{BodyKind, BodyTiming, CostlyOp, TimingNote};
use super::schedule::{Sched, Scope};
use super::Options;
use cranelift_entity::EntityRef;
use petgraph::graphmap::DiGraphMap;
use scenic_ir::body::{Block, Stmt};
use scenic_ir::entities::StateId;
use scenic_ir::program::{Module, Parser, Scu, Target, Transition};
use std::collections::HashMap;

/// The timing of every state, and of the worst path.
pub(super) fn parser_bodies(
    module: &Module,
    scu: &Scu,
    parser: &Parser,
    options: &Options,
) -> (Vec<BodyTiming>, BodyTiming) {
    let scope = Scope::Scu(scu);
    let mut states = Vec::new();
    let mut bits = HashMap::new();
    for (id, state) in parser.states.iter() {
        let mut s = Sched::new(module, scope, &parser.body);
        s.block(&state.block);
        if let Transition::Select { on, .. } = &state.transition {
            let mut t = s.expr(*on);
            let w = cost::width(module, &parser.body.types[*on]);
            let what = format!("select on a {w}-bit value");
            s.charge(
                &mut t,
                cost::Cost::new(cost::equality(w, true), what),
                state.span,
            );
            s.effect(&t);
        }
        let part = format!("parser state {}", state.name);
        let entry = Entry::new(&scu.name, &part, BodyKind::ParserState, state.span);
        states.push(entry.finish(scope, s.finish(), options));
        bits.insert(id, extracted_bits(module, scu, &state.block));
    }
    let worst = worst_path(scu, parser, &states, &bits, options);
    (states, worst)
}

/// Header bits a block extracts (every arm counted: an upper bound).
fn extracted_bits(module: &Module, scu: &Scu, block: &Block) -> u64 {
    scenic_ir::stack::grow(|| {
        let mut total = 0u64;
        for stmt in &block.stmts {
            let bits = match stmt {
                Stmt::Extract(inst) => scu
                    .instances
                    .get(*inst)
                    .and_then(|i| module.headers.get(i.header))
                    .map_or(0, |h| u64::from(h.bits)),
                Stmt::If(_, a, b) => {
                    extracted_bits(module, scu, a).saturating_add(extracted_bits(module, scu, b))
                }
                Stmt::Switch { cases, default, .. } => cases
                    .iter()
                    .map(|c| &c.body)
                    .chain(std::iter::once(default))
                    .map(|b| extracted_bits(module, scu, b))
                    .fold(0u64, u64::saturating_add),
                Stmt::Block(b) | Stmt::For { body: b, .. } => extracted_bits(module, scu, b),
                _ => 0,
            };
            total = total.saturating_add(bits);
        }
        total
    })
}

/// The largest header stack a block extracts into (1 without stacks).
fn stack_bound(scu: &Scu, block: &Block) -> u64 {
    scenic_ir::stack::grow(|| {
        let mut bound = 1u64;
        for stmt in &block.stmts {
            let b = match stmt {
                Stmt::Extract(inst) => scu
                    .instances
                    .get(*inst)
                    .and_then(|i| i.stack)
                    .map_or(1, u64::from),
                Stmt::If(_, a, b) => stack_bound(scu, a).max(stack_bound(scu, b)),
                Stmt::Block(b) | Stmt::For { body: b, .. } => stack_bound(scu, b),
                _ => 1,
            };
            bound = bound.max(b);
        }
        bound
    })
}

fn targets(t: &Transition) -> Vec<Target> {
    match t {
        Transition::Direct(target) => vec![*target],
        Transition::Select { cases, .. } => cases.iter().map(|c| c.target).collect(),
    }
}

/// A strongly connected part of the state graph, with its cost along a path.
struct Part {
    states: Vec<StateId>,
    times: u64,
    latency: u64,
    bits: u64,
}

fn worst_path(
    scu: &Scu,
    parser: &Parser,
    states: &[BodyTiming],
    bits: &HashMap<StateId, u64>,
    options: &Options,
) -> BodyTiming {
    let mut g: DiGraphMap<u32, ()> = DiGraphMap::new();
    for id in parser.states.keys() {
        g.add_node(id.as_u32());
    }
    for (id, st) in parser.states.iter() {
        for target in targets(&st.transition) {
            if let Target::State(n) = target {
                g.add_edge(id.as_u32(), n.as_u32(), ());
            }
        }
    }
    // Tarjan's order is a postorder: every part comes after the parts it leads to.
    let sccs = petgraph::algo::tarjan_scc(&g);
    let mut part_of = HashMap::new();
    let mut parts = Vec::new();
    for (i, scc) in sccs.iter().enumerate() {
        let ids: Vec<StateId> = scc.iter().map(|n| StateId::from_u32(*n)).collect();
        let cyclic = scc.len() > 1 || scc.iter().any(|n| g.contains_edge(*n, *n));
        let times = if cyclic {
            ids.iter()
                .filter_map(|s| parser.states.get(*s))
                .map(|s| stack_bound(scu, &s.block))
                .max()
                .unwrap_or(1)
        } else {
            1
        };
        let latency = ids
            .iter()
            .filter_map(|s| states.get(s.index()))
            .map(|t| u64::from(t.latency))
            .sum::<u64>()
            .saturating_mul(times);
        let b = ids
            .iter()
            .map(|s| bits.get(s).copied().unwrap_or(0))
            .sum::<u64>()
            .saturating_mul(times);
        for s in &ids {
            part_of.insert(*s, i);
        }
        parts.push(Part {
            states: ids,
            times,
            latency,
            bits: b,
        });
    }
    let path = longest(&g, &parts, &part_of, parser, options);
    path_entry(scu, parser, states, &parts, &path, options)
}

/// The parts on the longest path from `start`, weighing latency and header bits.
fn longest(
    g: &DiGraphMap<u32, ()>,
    parts: &[Part],
    part_of: &HashMap<StateId, usize>,
    parser: &Parser,
    options: &Options,
) -> Vec<usize> {
    let dp = u64::from(options.datapath_bits.max(1));
    let mut best: Vec<(u64, Option<usize>)> = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let mut next: Option<(u64, usize)> = None;
        for s in &part.states {
            for n in g.neighbors(s.as_u32()) {
                let Some(&j) = part_of.get(&StateId::from_u32(n)) else {
                    continue;
                };
                if j < i && next.is_none_or(|(score, _)| best[j].0 > score) {
                    next = Some((best[j].0, j));
                }
            }
        }
        let own = part.latency.saturating_mul(dp).saturating_add(part.bits);
        let tail = next.map_or(0, |(score, _)| score);
        best.push((own.saturating_add(tail), next.map(|(_, j)| j)));
    }
    let mut path = Vec::new();
    let mut cur = part_of.get(&parser.start).copied();
    while let Some(i) = cur {
        if path.contains(&i) {
            break;
        }
        path.push(i);
        cur = best.get(i).and_then(|b| b.1);
    }
    path
}

fn path_entry(
    scu: &Scu,
    parser: &Parser,
    states: &[BodyTiming],
    parts: &[Part],
    path: &[usize],
    options: &Options,
) -> BodyTiming {
    let mut t = Entry::new(&scu.name, "parser", BodyKind::Parser, scu.span).blank(options);
    let mut latency = 0u64;
    let mut bits = 0u64;
    let mut names = Vec::new();
    for part in path.iter().filter_map(|i| parts.get(*i)) {
        latency = latency.saturating_add(part.latency);
        bits = bits.saturating_add(part.bits);
        for s in &part.states {
            let name = parser.states.get(*s).map_or("?", |x| x.name.as_str());
            names.push(if part.times > 1 {
                format!("{name} (×{})", part.times)
            } else {
                name.to_string()
            });
            let Some(st) = states.get(s.index()) else {
                continue;
            };
            if st.ii > t.ii {
                t.ii = st.ii;
                t.ii_limit.clone_from(&st.ii_limit);
            }
            let times = u32::try_from(part.times).unwrap_or(u32::MAX);
            t.critical_path
                .extend(st.critical_path.iter().map(|op| CostlyOp {
                    cycles: op.cycles.saturating_mul(times),
                    count: op.count.saturating_mul(times),
                    ..op.clone()
                }));
        }
    }
    let beats = options.beats(bits.div_ceil(8).min(u64::MAX / 8)).max(1);
    if beats > 1 {
        t.critical_path.push(CostlyOp {
            what: format!("wait for {beats} beats of headers ({} bytes)", bits / 8),
            span: scu.span,
            cycles: u32::try_from(beats - 1).unwrap_or(u32::MAX),
            count: 1,
        });
    }
    t.latency = u32::try_from(latency.saturating_add(beats - 1)).unwrap_or(u32::MAX);
    t.costly = most_expensive(&t.critical_path, 3);
    t.line_rate_min_bytes = Some(options.line_rate_min_bytes(t.ii));
    t.notes.push(TimingNote {
        span: scu.span,
        message: format!(
            "worst path: {} ({} bytes of headers, {beats} beat{})",
            names.join(" → "),
            bits / 8,
            if beats == 1 { "" } else { "s" }
        ),
    });
    t
}
