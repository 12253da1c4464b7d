//! Runs an input sequence on a lowered module in the reference interpreter and records every
//! observable output as a transcript: packets out (destination and bytes), drops and their reason,
//! notifications, the results of host operations, the controllers' outputs after each event,
//! and at the end every CSR, counter cell, map entry and controller state. Two modules behave
//! the same on the inputs exactly when their transcripts are equal.
//!
//! The reference run also writes the STF text that checks the same observations with
//! `scenicc test` (what STF can express: packets, notifications, CSRs, counters, scalar maps,
//! rates and windows).

use super::inputs::{hex, Op};
use super::program::ProgramInfo;
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_interp::value::Value;
use scenic_interp::{Destination, Machine, Notification};
use scenic_ir::entities::ScuId;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{KeyMatch, Module};

/// What a run observed, and the STF that checks it.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    /// One observation per line.
    pub lines: Vec<String>,
    /// STF commands and expectations.
    pub stf: Vec<String>,
    /// Where the STF stops being able to follow the run (an operation STF cannot express, such
    /// as a struct-valued map write): the commands from there on are written commented out.
    pub stf_cut: Option<usize>,
}

/// The STF port of a destination (docs/testing.md, "Ports and the order of things").
fn port(d: &Destination) -> u32 {
    match d {
        Destination::Network(p) => u32::from(*p),
        Destination::Host => 256,
        Destination::Pass => 257,
        Destination::Scu(s) => 512 + s.index() as u32,
    }
}

impl Transcript {
    /// What input `i`, a packet, did.
    fn packet(&mut self, i: usize, out: &scenic_interp::PacketOutcome) {
        for (d, b) in &out.outputs {
            self.lines.push(format!("{i}: out {} {}", port(d), hex(b)));
            self.stf.push(if b.is_empty() {
                format!("expect {}", port(d))
            } else {
                format!("expect {} {} $", port(d), hex(b))
            });
        }
        if let Some(r) = &out.dropped {
            self.lines.push(format!("{i}: dropped {r}"));
        }
        self.notes(&out.notifications);
        self.stf.push("wait".into());
    }

    /// What the second scu did with a copy the first sent it (`to_scu`): transcript lines only,
    /// since STF feeds one scu (docs/testing.md).
    fn peer_packet(&mut self, i: usize, out: &scenic_interp::PacketOutcome) {
        for (d, b) in &out.outputs {
            self.lines
                .push(format!("{i}: peer out {} {}", port(d), hex(b)));
        }
        if let Some(r) = &out.dropped {
            self.lines.push(format!("{i}: peer dropped {r}"));
        }
        for n in &out.notifications {
            self.lines.push(note_line(n));
        }
    }

    pub(super) fn notes(&mut self, ns: &[Notification]) {
        for n in ns {
            let to = if n.to_arm { "arm" } else { "host" };
            self.lines.push(note_line(n));
            self.stf
                .push(format!("expect_notify {to} {} from {}", n.value, n.source));
        }
    }

    /// The STF text: the commands, those after the cut commented out with a note.
    pub fn stf_text(&self) -> Vec<String> {
        let cut = self.stf_cut.unwrap_or(self.stf.len());
        let mut out = self.stf[..cut].to_vec();
        if cut < self.stf.len() {
            out.push(
                "# STF cannot express the next operation: the rest of the run, as the reference did it"
                    .into(),
            );
            out.extend(self.stf[cut..].iter().map(|l| format!("# {l}")));
        }
        out
    }
}

fn note_line(n: &Notification) -> String {
    let to = if n.to_arm { "arm" } else { "host" };
    format!("notify {to} {} from {} at {}", n.value, n.source, n.time_ns)
}

/// Runs `ops` on a fresh machine for `module`.
pub fn run(module: &Module, info: &ProgramInfo, original: &Module, ops: &[Op]) -> Transcript {
    let mut m = Machine::new(module);
    // The clock starts at 0, as in an STF test (docs/testing.md): `every` periods count from
    // there, not from the first time an input names.
    let early = m.advance_time(0);
    let mut t = Transcript::default();
    t.notes(&early);
    let scu = m.scu_by_name(&info.scu);
    let peer = info.peer.as_ref().and_then(|p| m.scu_by_name(&p.scu));
    let mut now = 0u64;
    // The machine starts at time 0, as an STF test's clock does (docs/testing.md; `stf::run_on`):
    // otherwise its `every` periods would count from the first `time` of the inputs, and the STF
    // written here would expect other firings than `scenicc test` makes (scenic-smith seed 600).
    let started = m.advance_time(0);
    t.notes(&started);
    for (i, op) in ops.iter().enumerate() {
        let cmd = op.stf(info);
        match op {
            Op::Packet { port: p, bytes } => {
                let Some(scu) = scu else { continue };
                t.stf.push(cmd);
                let out = m.process_packet(scu, bytes, *p, now);
                t.packet(i, &out);
                // The copies sent to the second scu run there (language.md §7.15), arriving on
                // the port the packet came in on.
                for (d, b) in &out.outputs {
                    if let (Destination::Scu(to), Some(_)) = (d, peer) {
                        let got = m.process_packet(*to, b, *p, now);
                        t.peer_packet(i, &got);
                    }
                }
            }
            Op::Words { flow, bytes } => {
                let Some(scu) = scu else { continue };
                t.stf.push(cmd);
                super::stream_run::words(&mut t, &mut m, scu, i, *flow, bytes, now);
            }
            Op::MapRecord { map, key, seed } => {
                let Some(scu) = scu else { continue };
                let status = super::host_record::write(&mut m, module, scu, map, *key, *seed);
                t.lines.push(format!("{i}: map record {status}"));
                t.stf_cut.get_or_insert(t.stf.len());
                t.stf.push(cmd);
            }
            Op::Time(ns) => {
                now = *ns;
                t.stf.push(cmd);
                let ns = m.advance_time(now);
                t.notes(&ns);
                t.stf.push("wait".into());
            }
            Op::SetCsr { name, value } => {
                let Some(scu) = scu else { continue };
                let ok = m.set_csr(scu, name, &BigUint::from(*value));
                t.lines.push(format!("{i}: set_csr {name} {ok}"));
                if ok {
                    t.stf.push(cmd);
                }
            }
            Op::AddEntry { .. } | Op::SetDefault { .. } => {
                let Some(scu) = scu else { continue };
                let ok = table_op(&mut m, scu, module, original, op);
                t.lines.push(format!("{i}: table op {ok}"));
                if ok {
                    t.stf.push(cmd);
                }
            }
            Op::MapWrite { map, key, value } => {
                let Some(scu) = scu else { continue };
                let ok = map_write(&mut m, scu, module, map, *key, *value);
                t.lines.push(format!("{i}: map_write {ok}"));
                if ok {
                    t.stf.push(cmd);
                }
            }
            Op::Event { cc, flow, event } => {
                let Some(id) = m.cc_by_name(cc) else { continue };
                t.stf.push(cmd.clone());
                let ns = m.cc_event(id, *flow, *event, now);
                t.notes(&ns);
                let out = m.cc_output(id, *flow);
                t.lines.push(format!("{i}: cc {cc} {flow} output {out:?}"));
                if let (Some(v), Some(c)) = (out, info.ccs.iter().find(|c| &c.name == cc)) {
                    let check = if c.output == "rate" {
                        "check_rate"
                    } else {
                        "check_window"
                    };
                    t.stf.push(format!("{check} {cc} {flow} == {v}"));
                }
                t.stf.push("wait".into());
            }
        }
    }
    final_state(&mut t, &m, module, info, scu);
    cc_state(&mut t, &m, module);
    if let (Some(p), Some(id)) = (&info.peer, peer) {
        // The second scu's state is the transcript's alone (STF reads the first scu's).
        let mut pt = Transcript::default();
        final_state(&mut pt, &m, module, p, Some(id));
        t.lines
            .extend(pt.lines.into_iter().map(|l| format!("peer {l}")));
    }
    t
}

/// Adds an entry or sets a default; entries written for the source's keys are packed for a table
/// whose keys `table-key-packing` joined.
fn table_op(m: &mut Machine, scu: ScuId, module: &Module, original: &Module, op: &Op) -> bool {
    match op {
        Op::AddEntry {
            table,
            keys,
            action,
            args,
            priority,
        } => {
            let keys = pack_keys(module, original, scu, table, keys);
            m.add_entry(scu, table, &keys, action, args, priority.unwrap_or(0))
                .is_ok()
        }
        Op::SetDefault {
            table,
            action,
            args,
        } => m.set_default(scu, table, action, args).is_ok(),
        _ => false,
    }
}

fn pack_keys(
    module: &Module,
    original: &Module,
    scu: ScuId,
    table: &str,
    keys: &[KeyMatch],
) -> Vec<KeyMatch> {
    let find = |md: &Module| {
        md.scus
            .get(scu)
            .and_then(|s| s.tables.values().find(|t| t.name == table).cloned())
    };
    match (find(module), find(original)) {
        (Some(now), Some(before)) if now.keys.len() != before.keys.len() => {
            scenic_opt::table_key_packing::pack_key_matches(&before, original, keys)
                .unwrap_or_else(|| keys.to_vec())
        }
        _ => keys.to_vec(),
    }
}

fn map_write(
    m: &mut Machine,
    scu: ScuId,
    module: &Module,
    map: &str,
    key: u64,
    value: u64,
) -> bool {
    let Some(def) = module.scus.get(scu) else {
        return false;
    };
    let Some((id, md)) = def.maps.iter().find(|(_, x)| x.name == map) else {
        return false;
    };
    let kw = scenic_interp::value::width_of(&md.key, module);
    let vw = scenic_interp::value::width_of(&md.value, module);
    let Some(state) = m
        .scus
        .get_mut(scu.index())
        .and_then(|s| s.maps.get_mut(id.index()))
    else {
        return false;
    };
    state.insert(
        Bits::from_u64(kw, key),
        Value::Bits(Bits::from_u64(vw, value)),
    )
}

fn final_state(
    t: &mut Transcript,
    m: &Machine,
    module: &Module,
    info: &ProgramInfo,
    scu: Option<ScuId>,
) {
    if let Some(scu) = scu {
        for c in &info.csrs {
            let v = m.csr(scu, c).map(|b| b.to_biguint());
            t.lines.push(format!("csr {c} = {v:?}"));
            if let Some(v) = v {
                t.stf.push(format!("check_csr {c} == {v}"));
            }
        }
        for (c, n) in &info.counters {
            for i in 0..*n as usize {
                let cell = m.counter(scu, c, i);
                t.lines.push(format!("counter {c}[{i}] = {cell:?}"));
                if let Some(cell) = cell {
                    t.stf.push(format!(
                        "check_counter {c}({i}) packets == {}",
                        cell.packets
                    ));
                    t.stf
                        .push(format!("check_counter {c}({i}) bytes == {}", cell.bytes));
                }
            }
        }
        maps(t, m, module, info, scu);
    }
}

/// Every controller's per-flow state and timers at the end.
fn cc_state(t: &mut Transcript, m: &Machine, module: &Module) {
    for (cid, cc) in module.ccs.iter() {
        if let Some(rt) = m.ccs.get(cid.index()) {
            for (flow, state) in &rt.flows {
                t.lines.push(format!(
                    "cc {} flow {flow} state {:?}",
                    cc.name, state.state
                ));
                t.lines.push(format!(
                    "cc {} flow {flow} timers {:?}",
                    cc.name, state.timers
                ));
            }
        }
    }
}

fn maps(t: &mut Transcript, m: &Machine, module: &Module, info: &ProgramInfo, scu: ScuId) {
    let Some(def) = module.scus.get(scu) else {
        return;
    };
    for mi in &info.maps {
        let Some((id, _)) = def.maps.iter().find(|(_, x)| x.name == mi.name) else {
            t.lines.push(format!("map {} missing", mi.name));
            continue;
        };
        let Some(state) = m.scus.get(scu.index()).and_then(|s| s.maps.get(id.index())) else {
            continue;
        };
        let mut entries: Vec<(BigUint, Value)> = (0..state.slot_count())
            .filter_map(|s| state.slot_entry(s))
            .map(|(k, v)| (k.to_biguint(), v))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, v) in entries {
            t.lines.push(format!("map {} [{k}] = {v:?}", mi.name));
            if let (Some(_), Value::Bits(b)) = (mi.scalar_value, &v) {
                if mi.key_width <= 64 {
                    t.stf
                        .push(format!("check_map {} {k} == {}", mi.name, b.to_biguint()));
                }
            }
        }
    }
}
