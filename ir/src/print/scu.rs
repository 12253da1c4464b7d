//! Printing a stream compute unit: its registers, instances, parser, tables, actions, state and
//! bodies, in the order of [`Scu`]'s fields and, within each arena, in id order.
//!
//! CSRs print with their word offset and Coyote byte address (`@ 1 /* 0x20008 */`); parser states
//! end with `goto <target>` or a `select` of cases (a value no case matches rejects with
//! `no_match`); table entries print their matches, the action's position and name, arguments and
//! priority.

use super::body::{with_body, write_body};
use super::expr::{write_const, write_value};
use super::{Cx, Level};
use crate::entities::{ScuId, TableId};
use crate::program::*;
use crate::types::{Const, Type};
use std::fmt::{self, Write};

/// Byte offset of CSR word 0 in Coyote's user window.
const CSR_WINDOW: u64 = 0x20000;

impl Cx<'_> {
    /// Writes `scu0 "name" on slow_path { ... }`.
    pub(super) fn scu(&self, w: &mut impl Write, id: ScuId, scu: &Scu) -> fmt::Result {
        let attach = match scu.attach {
            Attach::SlowPath => "slow_path",
            Attach::Rdma => "rdma",
            Attach::Tcp => "tcp",
        };
        writeln!(w, "{id} {:?} on {attach} {{", scu.name)?;
        let l = Level(1);
        self.registers(w, scu)?;
        if let Some(parser) = &scu.parser {
            self.parser(w, parser)?;
        }
        for (id, table) in &scu.tables {
            self.table(w, scu, id, table)?;
        }
        for (id, action) in &scu.actions {
            write!(w, "{l}{id} {:?}", action.name)?;
            write_body(w, &with_body(self, &action.body), l)?;
        }
        self.state_members(w, scu)?;
        let bodies = [
            ("control", &scu.control),
            ("on_parser_error", &scu.on_parser_error),
            ("deparser", &scu.deparser),
            ("stream", &scu.stream),
        ];
        for (name, body) in bodies {
            if let Some(body) = body {
                write!(w, "{l}{name}")?;
                write_body(w, &with_body(self, body), l)?;
            }
        }
        for every in &scu.every {
            write!(w, "{l}every {}ns", every.period_ns)?;
            write_body(w, &with_body(self, &every.body), l)?;
        }
        writeln!(w, "}}")
    }

    /// CSRs, instances, `meta` and errors.
    fn registers(&self, w: &mut impl Write, scu: &Scu) -> fmt::Result {
        let l = Level(1);
        for (id, csr) in &scu.csrs {
            write!(w, "{l}{id} {:?}: {} = ", csr.name, csr.ty)?;
            write_value(w, &csr.init, &csr.ty)?;
            let offset = id.as_u32();
            write!(
                w,
                " @ {offset} /* {:#x} */",
                CSR_WINDOW + 8 * u64::from(offset)
            )?;
            if csr.host_readonly {
                w.write_str(" readonly")?;
            }
            if csr.is_param {
                w.write_str(" param")?;
            }
            writeln!(w)?;
        }
        for (id, inst) in &scu.instances {
            match inst.stack {
                Some(n) => writeln!(w, "{l}{id} {:?}: [{}; {n}]", inst.name, inst.header)?,
                None => writeln!(w, "{l}{id} {:?}: {}", inst.name, inst.header)?,
            }
        }
        if let Some(meta) = scu.meta {
            writeln!(w, "{l}meta {meta}")?;
        }
        for (id, name) in &scu.errors {
            writeln!(w, "{l}{id} {name:?}")?;
        }
        Ok(())
    }

    /// Maps, counters, meters and outputs.
    fn state_members(&self, w: &mut impl Write, scu: &Scu) -> fmt::Result {
        let l = Level(1);
        for (id, m) in &scu.maps {
            let kind = match m.kind {
                MapKind::Array => "array",
                MapKind::Hash => "hash",
                MapKind::LruHash => "lru_hash",
            };
            writeln!(
                w,
                "{l}{id} {:?}: {kind}<{}, {}>[{}]",
                m.name, m.key, m.value, m.size
            )?;
        }
        for (id, c) in &scu.counters {
            let kind = match c.kind {
                CounterKind::Packets => "packets",
                CounterKind::Bytes => "bytes",
                CounterKind::PacketsAndBytes => "packets_and_bytes",
            };
            writeln!(w, "{l}{id} {:?}: {kind}[{}]", c.name, c.size)?;
        }
        for (id, m) in &scu.meters {
            write!(w, "{l}{id} {:?}: token_bucket[{}]", m.name, m.size)?;
            if let Some(rate) = m.rate {
                write!(w, " rate {rate}bps")?;
            }
            if let Some(burst) = m.burst {
                write!(w, " burst {burst}B")?;
            }
            writeln!(w)?;
        }
        for (id, o) in &scu.outs {
            let kind = match o.kind {
                OutKind::Dma => "dma",
                OutKind::Host => "host",
            };
            write!(w, "{l}{id} {:?}: ", o.name)?;
            match o.count {
                Some(n) => write!(w, "[{kind}; {n}]")?,
                None => w.write_str(kind)?,
            }
            if let Some(batch) = o.batch {
                write!(w, " batch {batch}B")?;
            }
            writeln!(w)?;
        }
        Ok(())
    }

    /// `parser start stateN { locals; states }`.
    fn parser(&self, w: &mut impl Write, parser: &Parser) -> fmt::Result {
        let cx = with_body(self, &parser.body);
        let (l1, l2, l3) = (Level(1), Level(2), Level(3));
        writeln!(w, "{l1}parser start {} {{", parser.start)?;
        cx.locals(w, l2)?;
        for (id, state) in &parser.states {
            writeln!(w, "{l2}{id} {:?} {{", state.name)?;
            cx.block(w, &state.block, l3)?;
            match &state.transition {
                Transition::Direct(t) => writeln!(w, "{l3}goto {}", target(*t))?,
                Transition::Select { on, cases } => {
                    write!(w, "{l3}select ")?;
                    cx.expr(w, *on)?;
                    writeln!(w, " {{")?;
                    let ty = parser.body.types.get(*on).cloned().unwrap_or(Type::Unit);
                    for case in cases {
                        write!(w, "{}", l3.next())?;
                        for (i, p) in case.patterns.iter().enumerate() {
                            if i > 0 {
                                w.write_str(" | ")?;
                            }
                            cx.pattern(w, p, &ty)?;
                        }
                        writeln!(w, " => {}", target(case.target))?;
                    }
                    writeln!(w, "{l3}}}")?;
                }
            }
            writeln!(w, "{l2}}}")?;
        }
        writeln!(w, "{l1}}}")
    }

    /// A table: key (with its body), actions, default, size, entries.
    fn table(&self, w: &mut impl Write, scu: &Scu, id: TableId, table: &Table) -> fmt::Result {
        let (l1, l2, l3) = (Level(1), Level(2), Level(3));
        write!(w, "{l1}{id} {:?} size {}", table.name, table.size)?;
        writeln!(w, "{} {{", if table.is_const { " const" } else { "" })?;
        let cx = with_body(self, &table.key_body);
        writeln!(w, "{l2}key {{")?;
        cx.locals(w, l3)?;
        cx.block(w, &table.key_body.block, l3)?;
        for key in &table.keys {
            write!(w, "{l3}{} ", match_kind(key.kind))?;
            cx.expr(w, key.expr)?;
            writeln!(w, ": {} {:?}", key.ty, key.name)?;
        }
        writeln!(w, "{l2}}}")?;
        write!(w, "{l2}actions")?;
        for a in &table.actions {
            write!(w, " {a}")?;
        }
        write!(w, "\n{l2}default {}", table.default.0)?;
        self.args(w, scu, table.default.0, &table.default.1)?;
        writeln!(w)?;
        if !table.const_entries.is_empty() {
            writeln!(w, "{l2}entries {{")?;
            for entry in &table.const_entries {
                self.entry(w, scu, table, entry, l3)?;
            }
            writeln!(w, "{l2}}}")?;
        }
        writeln!(w, "{l1}}}")
    }

    /// `<matches> => <position> (actionN)(args) priority P`.
    fn entry(
        &self,
        w: &mut impl Write,
        scu: &Scu,
        table: &Table,
        entry: &Entry,
        level: Level,
    ) -> fmt::Result {
        write!(w, "{level}")?;
        for (i, m) in entry.keys.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            let ty = table.keys.get(i).map_or(&Type::Unit, |k| &k.ty);
            key_match(w, m, ty)?;
        }
        write!(w, " => {}", entry.action)?;
        match table.actions.get(entry.action as usize) {
            Some(a) => {
                write!(w, " {a}")?;
                self.args(w, scu, *a, &entry.args)?;
            }
            None => w.write_str(" !action")?,
        }
        writeln!(w, " priority {}", entry.priority)
    }

    /// `(1:bit<4>, 2:bit<8>)`: action data typed by the action's parameters.
    fn args(
        &self,
        w: &mut impl Write,
        scu: &Scu,
        action: crate::entities::ActionId,
        args: &[Const],
    ) -> fmt::Result {
        let body = scu.actions.get(action).map(|a| &a.body);
        w.write_str("(")?;
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            let ty = body
                .and_then(|b| b.params.get(i).and_then(|p| b.locals.get(*p)))
                .map_or(Type::Unit, |l| l.ty.clone());
            write_const(w, arg, &ty)?;
        }
        w.write_str(")")
    }
}

/// `exact`, `lpm`, `ternary`, `range`.
fn match_kind(kind: MatchKind) -> &'static str {
    match kind {
        MatchKind::Exact => "exact",
        MatchKind::Lpm => "lpm",
        MatchKind::Ternary => "ternary",
        MatchKind::Range => "range",
    }
}

/// `5`, `0xa000000/8`, `v &&& m`, `lo..=hi`, `_`.
fn key_match(w: &mut impl Write, m: &KeyMatch, ty: &Type) -> fmt::Result {
    match m {
        KeyMatch::Exact(v) => write_value(w, v, ty),
        KeyMatch::Lpm(v, len) => {
            write_value(w, v, ty)?;
            write!(w, "/{len}")
        }
        KeyMatch::Ternary(v, mask) => {
            write_value(w, v, ty)?;
            w.write_str(" &&& ")?;
            write_value(w, mask, ty)
        }
        KeyMatch::Range(lo, hi) => {
            write_value(w, lo, ty)?;
            w.write_str("..=")?;
            write_value(w, hi, ty)
        }
        KeyMatch::Any => w.write_str("_"),
    }
}

/// `accept`, `reject(error3)`, `state2`.
fn target(t: Target) -> String {
    match t {
        Target::Accept => "accept".into(),
        Target::Reject(e) => format!("reject({e})"),
        Target::State(s) => s.to_string(),
    }
}
