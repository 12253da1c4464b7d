//! The analysis: schedules every body of every scu and cc and reports latency, II and costly
//! operations.

use super::cost;
use super::parser;
use super::report::{BodyKind, BodyTiming, CostlyOp, IiLimit, TimingNote, TimingReport};
use super::schedule::{Outcome, Sched, Scope};
use super::time::{Obj, Trail};
use super::Options;
use scenic_ir::body::Body;
use scenic_ir::program::{Cc, Event, Module, Scu};
use scenic_ir::span::Span;
use scenic_ir::types::Dimension;

/// Estimates the timing of every body of `module`.
pub fn analyze(module: &Module, options: &Options) -> TimingReport {
    let mut bodies = Vec::new();
    for scu in module.scus.values() {
        scu_bodies(module, scu, options, &mut bodies);
    }
    for cc in module.ccs.values() {
        for handler in &cc.handlers {
            let outcome = schedule(module, Scope::Cc(cc), &handler.body);
            let part = event_name(cc, handler.event);
            let mut t = Entry::new(&cc.name, &part, BodyKind::CcHandler, handler.span).finish(
                Scope::Cc(cc),
                outcome,
                options,
            );
            t.budget = cc.budget;
            if t.over_budget() {
                let message = format!(
                    "needs about {} cycles, over its budget of {} cycles",
                    t.latency,
                    cc.budget.unwrap_or_default()
                );
                t.notes.push(TimingNote {
                    span: handler.span,
                    message,
                });
            }
            bodies.push(t);
        }
    }
    TimingReport {
        options: options.clone(),
        mtu_budget: options.mtu_budget(),
        min_packet_budget: options.budget_cycles(64),
        bodies,
    }
}

/// Schedules one body from cycle 0.
pub(super) fn schedule<'a>(module: &'a Module, scope: Scope<'a>, body: &'a Body) -> Outcome {
    let mut s = Sched::new(module, scope, body);
    s.block(&body.block);
    s.finish()
}

fn scu_bodies(module: &Module, scu: &Scu, options: &Options, out: &mut Vec<BodyTiming>) {
    let scope = Scope::Scu(scu);
    let mut per_packet: Vec<BodyTiming> = Vec::new();
    if let Some(p) = &scu.parser {
        let (states, worst) = parser::parser_bodies(module, scu, p, options);
        out.extend(states);
        per_packet.push(worst.clone());
        out.push(worst);
    }
    let body = |part: &str, kind, body: &Body| {
        Entry::new(&scu.name, part, kind, scu.span).finish(
            scope,
            schedule(module, scope, body),
            options,
        )
    };
    if let Some(c) = &scu.control {
        let t = body("control", BodyKind::Control, c);
        per_packet.push(t.clone());
        out.push(t);
    }
    if let Some(c) = &scu.on_parser_error {
        out.push(body("on parser_error", BodyKind::ParserError, c));
    }
    if scu.parser.is_some() || scu.control.is_some() {
        let t = match &scu.deparser {
            Some(d) => body("deparser", BodyKind::Deparser, d),
            None => default_deparser(scu, options),
        };
        per_packet.push(t.clone());
        out.push(t);
    }
    for action in scu.actions.values() {
        let part = format!("action {}", action.name);
        out.push(body(&part, BodyKind::Action, &action.body));
    }
    if let Some(s) = &scu.stream {
        out.push(body("stream", BodyKind::Stream, s));
    }
    for every in &scu.every {
        let part = format!("every {}", duration(every.period_ns));
        out.push(body(&part, BodyKind::Every, &every.body));
    }
    if !per_packet.is_empty() {
        out.push(packet(scu, &per_packet, options));
    }
}

/// The default deparser emits every instance in declaration order, one after the other.
fn default_deparser(scu: &Scu, options: &Options) -> BodyTiming {
    let path: Vec<CostlyOp> = scu
        .instances
        .values()
        .map(|i| CostlyOp {
            what: format!("emit `{}`", i.name),
            span: scu.span,
            cycles: cost::EMIT,
            count: 1,
        })
        .collect();
    let latency = path.iter().map(|o| o.cycles).sum();
    let mut t = Entry::new(&scu.name, "deparser", BodyKind::Deparser, scu.span).blank(options);
    t.latency = latency;
    t.costly = top(&path);
    t.critical_path = path;
    t
}

/// A whole packet: parser, control and deparser one after the other.
fn packet(scu: &Scu, parts: &[BodyTiming], options: &Options) -> BodyTiming {
    let mut t = Entry::new(&scu.name, "packet", BodyKind::Packet, scu.span).blank(options);
    for p in parts {
        t.latency = t.latency.saturating_add(p.latency);
        if p.ii > t.ii {
            t.ii = p.ii;
            t.ii_limit.clone_from(&p.ii_limit);
        }
        t.critical_path.extend(p.critical_path.iter().cloned());
    }
    t.costly = top(&t.critical_path);
    t.line_rate_min_bytes = Some(options.line_rate_min_bytes(t.ii));
    line_rate_note(&mut t, options);
    t
}

/// The name of a handler: `on cnp`, `on timer rate_timer`, `on bytes byte_counter`.
pub(super) fn event_name(cc: &Cc, event: Event) -> String {
    match event {
        Event::Ack => "on ack".into(),
        Event::Cnp => "on cnp".into(),
        Event::Ecn => "on ecn".into(),
        Event::Loss => "on loss".into(),
        Event::Timeout => "on timeout".into(),
        Event::Rtt => "on rtt".into(),
        Event::Int => "on int".into(),
        Event::Timer(t) => match cc.timers.get(t) {
            Some(timer) if timer.period.0 == Dimension::Size => format!("on bytes {}", timer.name),
            Some(timer) => format!("on timer {}", timer.name),
            None => format!("on timer {t}"),
        },
    }
}

/// `1ms`, `55us`, `250ns`.
fn duration(ns: u64) -> String {
    for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= scale && ns % scale == 0 {
            return format!("{}{unit}", ns / scale);
        }
    }
    format!("{ns}ns")
}

/// The name and place of a body being reported.
pub(super) struct Entry<'s> {
    unit: &'s str,
    part: &'s str,
    kind: BodyKind,
    span: Span,
}

impl<'s> Entry<'s> {
    pub(super) fn new(unit: &'s str, part: &'s str, kind: BodyKind, span: Span) -> Entry<'s> {
        Entry {
            unit,
            part,
            kind,
            span,
        }
    }

    /// An entry with latency 0 and II 1.
    pub(super) fn blank(&self, options: &Options) -> BodyTiming {
        let prefix = if self.kind == BodyKind::CcHandler {
            "cc"
        } else {
            "scu"
        };
        BodyTiming {
            name: format!("{prefix} {}: {}", self.unit, self.part),
            unit: self.unit.to_string(),
            part: self.part.to_string(),
            kind: self.kind,
            span: self.span,
            latency: 0,
            ii: 1,
            ii_limit: None,
            budget: None,
            line_rate_min_bytes: self
                .kind
                .per_packet()
                .then(|| options.line_rate_min_bytes(1)),
            critical_path: Vec::new(),
            costly: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The entry for a scheduled body.
    pub(super) fn finish(
        &self,
        scope: Scope<'_>,
        outcome: Outcome,
        options: &Options,
    ) -> BodyTiming {
        let mut t = self.blank(options);
        t.latency = outcome.end.at;
        t.critical_path = critical_path(&outcome.trail, &outcome);
        t.costly = top(&t.critical_path);
        if let Some((obj, len, span)) = outcome.recurrences.iter().max_by_key(|r| r.1) {
            if *len > 1 {
                t.ii = *len;
                t.ii_limit = Some(ii_limit(scope, self.kind, *obj, *len, *span));
            }
        }
        if self.kind.per_packet() {
            t.line_rate_min_bytes = Some(options.line_rate_min_bytes(t.ii));
        }
        for (span, message) in outcome.warnings {
            t.notes.push(TimingNote { span, message });
        }
        line_rate_note(&mut t, options);
        t
    }
}

fn line_rate_note(t: &mut BodyTiming, options: &Options) {
    if t.ii <= 1 {
        return;
    }
    let why = t
        .ii_limit
        .as_ref()
        .map_or_else(String::new, |l| format!(": {}", l.reason));
    let message = match t.kind {
        BodyKind::Stream => format!(
            "cannot take one word per cycle: II {} (1/{} of line rate){why}",
            t.ii, t.ii
        ),
        k if k.per_packet() => format!(
            "keeps line rate only for packets of at least {} bytes (II {}){why}",
            options.line_rate_min_bytes(t.ii),
            t.ii
        ),
        _ => return,
    };
    t.notes.push(TimingNote {
        span: t.ii_limit.as_ref().map_or(t.span, |l| l.span),
        message,
    });
}

fn ii_limit(scope: Scope<'_>, kind: BodyKind, obj: Obj, len: u32, span: Span) -> IiLimit {
    let next = match kind {
        BodyKind::Stream => "word",
        BodyKind::Every => "run",
        BodyKind::CcHandler => "event of the same flow",
        _ => "packet",
    };
    let object = match (obj, scope) {
        (Obj::Csr(c), Scope::Scu(scu)) => scu
            .csrs
            .get(c)
            .map_or_else(|| format!("csr {c}"), |x| format!("csr `{}`", x.name)),
        (Obj::Map(m), Scope::Scu(scu)) => scu
            .maps
            .get(m)
            .map_or_else(|| format!("map {m}"), |x| format!("map `{}`", x.name)),
        (Obj::FlowState, Scope::Cc(cc)) => format!("the per-flow state of cc `{}`", cc.name),
        (obj, _) => format!("{obj:?}"),
    };
    let reason = format!(
        "{object} is read and its new value is visible {len} cycles later, \
         so the next {next} waits for it"
    );
    IiLimit {
        object,
        cycles: len,
        span,
        reason,
    }
}

/// The costly operations on the path that ends the body, merged by operation, in path order.
fn critical_path(trail: &Trail, outcome: &Outcome) -> Vec<CostlyOp> {
    merge(trail.path(outcome.end.node).into_iter().map(|n| CostlyOp {
        what: n.what.clone(),
        span: n.span,
        cycles: n.cycles,
        count: 1,
    }))
}

/// Merges copies of the same operation (unrolled loops, repeated calls), keeping first-seen order.
pub(super) fn merge(ops: impl IntoIterator<Item = CostlyOp>) -> Vec<CostlyOp> {
    let mut out: Vec<CostlyOp> = Vec::new();
    for op in ops {
        match out
            .iter_mut()
            .find(|o| o.span == op.span && o.what == op.what)
        {
            Some(o) => {
                o.cycles = o.cycles.saturating_add(op.cycles);
                o.count = o.count.saturating_add(op.count);
            }
            None => out.push(op),
        }
    }
    out
}

/// The three most expensive operations, most expensive first (ties in path order).
pub(super) fn top(path: &[CostlyOp]) -> Vec<CostlyOp> {
    most_expensive(path, 3)
}

/// The `n` most expensive operations, most expensive first (ties in path order).
pub(super) fn most_expensive(path: &[CostlyOp], n: usize) -> Vec<CostlyOp> {
    let mut ops = merge(path.iter().cloned());
    ops.sort_by_key(|o| std::cmp::Reverse(o.cycles));
    ops.truncate(n);
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_in_the_largest_exact_unit() {
        assert_eq!(duration(1_000_000), "1ms");
        assert_eq!(duration(55_000), "55us");
        assert_eq!(duration(1_500), "1500ns");
        assert_eq!(duration(2_000_000_000), "2s");
    }

    #[test]
    fn merge_adds_up_copies() {
        let op = |what: &str, cycles| CostlyOp {
            what: what.into(),
            span: Span::default(),
            cycles,
            count: 1,
        };
        let merged = merge([op("a", 1), op("b", 4), op("a", 1)]);
        assert_eq!(merged.len(), 2);
        assert_eq!((merged[0].cycles, merged[0].count), (2, 2));
        let t = top(&[op("a", 1), op("b", 4), op("c", 2), op("d", 3)]);
        let names: Vec<&str> = t.iter().map(|o| o.what.as_str()).collect();
        assert_eq!(names, ["b", "d", "c"]);
    }
}
