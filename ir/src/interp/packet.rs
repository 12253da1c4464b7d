//! Processing one packet: parse, control (or the parser-error handler), deparse, copies.
//!
//! The parser never reads past the end of the packet: an extraction or lookahead that would rejects
//! with `packet_too_short`. A rejected packet is dropped (reason `parser_error:<name>`) unless the
//! scu has `on parser_error`. The deparser emits the valid headers in its `emit` order (every
//! instance in declaration order without a deparser) followed by the bytes the parser did not
//! consume. Without any copy requested, a slow-path packet goes to the host and an rdma/tcp packet
//! passes on unchanged.

use super::bits::Bits;
use super::context::{Destination, Effects, Exec, PacketState};
use super::exec::Flow;
use super::frame::Frame;
use super::runtime::Machine;
use super::value::{HeaderVal, Value};
use crate::entities::*;
use crate::program::{Attach, Scu, Target, Transition};
use cranelift_entity::EntityRef;

/// What happened to a packet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketOutcome {
    /// The copies sent, with their bytes.
    pub outputs: Vec<(Destination, Vec<u8>)>,
    /// Why it was dropped, if it was (no outputs then).
    pub dropped: Option<String>,
    /// Notifications raised while processing it (including `every` blocks that came due).
    pub notifications: Vec<super::context::Notification>,
    /// The per-packet trace, when tracing is on.
    pub trace: Vec<String>,
}

/// The most state transitions one packet may take (a safety net; the checker already guarantees
/// that every parser loop consumes bytes).
const MAX_TRANSITIONS: usize = 65_536;

impl<'m> Machine<'m> {
    /// Runs `scu` on one packet arriving on `port` at `timestamp_ns`.
    pub fn process_packet(
        &mut self,
        scu: ScuId,
        data: &[u8],
        port: u8,
        timestamp_ns: u64,
    ) -> PacketOutcome {
        let mut outcome = PacketOutcome {
            notifications: self.advance_time(timestamp_ns),
            ..PacketOutcome::default()
        };
        let module = self.module;
        let Some(def) = module.scus.get(scu) else {
            return outcome;
        };
        let trace = self.trace;
        let packet = fresh_packet(module, def, data, port, timestamp_ns);
        let rt = &mut self.scus[scu.index()];
        rt.stats.packets_in += 1;
        let mut exec = Exec {
            module,
            caches: &mut self.caches,
            scu: Some(super::context::ScuRef { def, id: scu, rt }),
            cc: None,
            packet: Some(packet),
            beat: None,
            now_ns: timestamp_ns,
            flow_id: 0,
            effects: Effects {
                trace: trace.then(Vec::new),
                ..Effects::default()
            },
            parse_error: None,
            emitted: Vec::new(),
        };
        let rejected = exec.run_parser(def);
        let handled = match rejected {
            None => {
                if let Some(control) = &def.control {
                    exec.run_body(control, &[]);
                }
                true
            }
            Some(error) => match &def.on_parser_error {
                Some(handler) => {
                    exec.effects
                        .trace(|| format!("parser error {} handled", def.errors[error]));
                    exec.run_body(
                        handler,
                        &[Value::Bits(Bits::from_u64(8, error.index() as u64))],
                    );
                    true
                }
                None => {
                    outcome.dropped = Some(format!("parser_error:{}", def.errors[error]));
                    false
                }
            },
        };
        if handled {
            finish(&mut exec, def, &mut outcome);
        }
        // `every` runs that came due are already in `self.notifications` (advance_time records
        // them); only what this packet raised is added below.
        let raised = std::mem::take(&mut exec.effects.notifications);
        outcome.trace = exec.effects.trace.take().unwrap_or_default();
        let rt = &mut self.scus[scu.index()];
        match &outcome.dropped {
            Some(reason) => *rt.stats.drops.entry(reason.clone()).or_insert(0) += 1,
            None => rt.stats.copies_out += outcome.outputs.len() as u64,
        }
        self.notifications.extend(raised.iter().cloned());
        outcome.notifications.extend(raised);
        outcome
    }
}

fn fresh_packet<'d>(
    module: &crate::program::Module,
    def: &Scu,
    data: &'d [u8],
    port: u8,
    timestamp_ns: u64,
) -> PacketState<'d> {
    let headers = def
        .instances
        .values()
        .map(|inst| {
            (0..inst.stack.unwrap_or(1))
                .map(|_| HeaderVal::zero(module, inst.header, false))
                .collect()
        })
        .collect();
    let meta = match def.meta {
        Some(s) => module.structs[s]
            .fields
            .iter()
            .map(|f| Value::zero(&f.ty, module))
            .collect(),
        None => Vec::new(),
    };
    PacketState {
        data,
        cursor: 0,
        headers,
        filled: vec![0; def.instances.len()],
        meta,
        port,
        timestamp_ns,
    }
}

/// Deparses and records the copies (or the drop).
fn finish(exec: &mut Exec<'_>, def: &Scu, outcome: &mut PacketOutcome) {
    if exec.effects.dropped {
        exec.effects.trace(|| "drop".into());
        outcome.dropped = Some("drop".into());
        return;
    }
    exec.emitted.clear();
    match &def.deparser {
        Some(deparser) => {
            exec.run_body(deparser, &[]);
        }
        None => {
            for inst in def.instances.keys() {
                exec.effect_emit(inst);
            }
        }
    }
    let mut bytes = std::mem::take(&mut exec.emitted);
    if let Some(p) = &exec.packet {
        bytes.extend_from_slice(p.data.get(p.cursor / 8..).unwrap_or(&[]));
    }
    let mut copies = std::mem::take(&mut exec.effects.copies);
    if copies.is_empty() {
        copies.push(match def.attach {
            Attach::SlowPath => Destination::Host,
            Attach::Rdma | Attach::Tcp => Destination::Pass,
        });
    }
    exec.effects
        .trace(|| format!("out {copies:?} ({} bytes)", bytes.len()));
    outcome.outputs = copies.into_iter().map(|d| (d, bytes.clone())).collect();
}

impl Exec<'_> {
    /// Runs a body with parameters, returning how it ended.
    pub fn run_body(&mut self, body: &crate::body::Body, params: &[Value]) -> Flow {
        let module = self.module;
        let cache = self.caches.get(body, module);
        let mut frame = Frame::new(body, cache, module);
        for (i, p) in params.iter().enumerate() {
            frame.set_param(i, p.clone());
        }
        self.block(&mut frame, &body.block)
    }

    /// Emits one instance (used by the default deparser).
    pub fn effect_emit(&mut self, inst: InstId) {
        let module = self.module;
        let cache_body = crate::body::Body::default();
        let cache = self.caches.get(&cache_body, module);
        let mut frame = Frame::new(&cache_body, cache, module);
        self.effect(&mut frame, &crate::body::Stmt::Emit(inst));
    }

    /// Runs the parser; the error that rejected the packet, if any.
    fn run_parser(&mut self, def: &Scu) -> Option<ErrorId> {
        let parser = def.parser.as_ref()?;
        let module = self.module;
        let cache = self.caches.get(&parser.body, module);
        let mut frame = Frame::new(&parser.body, cache, module);
        let no_match = ErrorId::new(1);
        let mut state = parser.start;
        for _ in 0..MAX_TRANSITIONS {
            let s = &parser.states[state];
            self.effects.trace(|| format!("state {}", s.name));
            let _ = self.block(&mut frame, &s.block);
            if let Some(err) = self.parse_error.take() {
                self.effects.trace(|| format!("reject {err}"));
                return Some(error_id(def, err));
            }
            let target = match &s.transition {
                Transition::Direct(t) => *t,
                Transition::Select { on, cases } => {
                    let v = self.eval(&mut frame, *on);
                    if let Some(err) = self.parse_error.take() {
                        return Some(error_id(def, err));
                    }
                    let ty = &parser.body.types[*on];
                    cases
                        .iter()
                        .find(|c| {
                            c.patterns
                                .iter()
                                .any(|p| super::pattern::matches(p, ty, &v))
                        })
                        .map_or(Target::Reject(no_match), |c| c.target)
                }
            };
            match target {
                Target::Accept => return None,
                Target::Reject(e) => {
                    self.effects.trace(|| format!("reject {}", def.errors[e]));
                    return Some(e);
                }
                Target::State(next) => state = next,
            }
        }
        Some(no_match)
    }
}

fn error_id(def: &Scu, name: &str) -> ErrorId {
    def.errors
        .iter()
        .find(|(_, n)| n.as_str() == name)
        .map_or(ErrorId::new(0), |(id, _)| id)
}
