//! Printing a congestion controller: head, parameters, per-flow state, output, timers and
//! handlers, in id order (handlers in declaration order).

use super::body::{with_body, write_body};
use super::expr::write_value;
use super::{Cx, Level};
use crate::entities::CcId;
use crate::program::{Cc, Event, OutputKind};
use crate::types::Dimension;
use std::fmt::{self, Write};

impl Cx<'_> {
    /// Writes `cc0 "name" per flow[N] budget B { ... }`.
    pub(super) fn cc(&self, w: &mut impl Write, id: CcId, cc: &Cc) -> fmt::Result {
        let l = Level(1);
        write!(w, "{id} {:?} per flow[{}]", cc.name, cc.flows)?;
        if let Some(budget) = cc.budget {
            write!(w, " budget {budget}")?;
        }
        writeln!(w, " {{")?;
        for (id, p) in &cc.params {
            write!(w, "{l}{id} {:?}: {} = ", p.name, p.ty)?;
            write_value(w, &p.default, &p.ty)?;
            writeln!(w)?;
        }
        for (id, s) in &cc.state {
            write!(w, "{l}{id} {:?}: {} = ", s.name, s.ty)?;
            write_value(w, &s.init, &s.ty)?;
            writeln!(w)?;
        }
        let kind = match cc.output.0 {
            OutputKind::Rate => "rate",
            OutputKind::Window => "window",
        };
        writeln!(w, "{l}output {kind} {}", cc.output.1)?;
        for (id, t) in &cc.timers {
            let (dim, n) = t.period;
            let unit = match dim {
                Dimension::Duration => "ns",
                Dimension::Size => "B",
                Dimension::Rate => "bps",
            };
            writeln!(w, "{l}{id} {:?}: every {n}{unit}", t.name)?;
        }
        for h in &cc.handlers {
            let event = match h.event {
                Event::Ack => "ack".to_string(),
                Event::Cnp => "cnp".into(),
                Event::Ecn => "ecn".into(),
                Event::Loss => "loss".into(),
                Event::Timeout => "timeout".into(),
                Event::Rtt => "rtt".into(),
                Event::Int => "int".into(),
                Event::Timer(t) => format!("timer {t}"),
            };
            write!(w, "{l}on {event}")?;
            write_body(w, &with_body(self, &h.body), l)?;
        }
        writeln!(w, "}}")
    }
}
