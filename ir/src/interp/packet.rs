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
use super::headers::HeaderStore;
use super::runtime::Machine;
use super::value::Value;
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

/// What a packet of one scu reuses from the previous one: the header store, the `meta` fields
/// (with their zero values) and the output buffers. Nothing here carries meaning across packets:
/// everything is reset before use.
#[derive(Debug, Default)]
pub(crate) struct PacketScratch {
    headers: HeaderStore,
    meta: Vec<Value>,
    meta_zero: Vec<Value>,
    emitted: Vec<u8>,
    copies: Vec<Destination>,
}

impl PacketScratch {
    /// The scratch of `def`.
    pub(crate) fn new(module: &crate::program::Module, def: &Scu) -> PacketScratch {
        let meta_zero: Vec<Value> = match def.meta.and_then(|s| module.structs.get(s)) {
            Some(s) => s
                .fields
                .iter()
                .map(|f| Value::zero(&f.ty, module))
                .collect(),
            None => Vec::new(),
        };
        PacketScratch {
            headers: HeaderStore::new(module, def),
            meta: meta_zero.clone(),
            meta_zero,
            emitted: Vec::new(),
            copies: Vec::new(),
        }
    }
}

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
        let (Some(def), Some(rt), Some(scratch)) = (
            module.scus.get(scu),
            self.scus.get_mut(scu.index()),
            self.packet_scratch.get_mut(scu.index()),
        ) else {
            return outcome;
        };
        rt.stats.packets_in += 1;
        scratch.headers.reset();
        for (field, zero) in scratch.meta.iter_mut().zip(&scratch.meta_zero) {
            field.clone_from(zero);
        }
        let mut effects = Effects {
            trace: self.trace.then(Vec::new),
            copies: std::mem::take(&mut scratch.copies),
            ..Effects::default()
        };
        effects.copies.clear();
        let mut exec = Exec {
            module,
            caches: &mut self.caches,
            scu: Some(super::context::ScuRef { def, id: scu, rt }),
            cc: None,
            packet: Some(PacketState {
                data,
                cursor: 0,
                headers: &mut scratch.headers,
                meta: &mut scratch.meta,
                port,
                timestamp_ns,
            }),
            beat: None,
            now_ns: timestamp_ns,
            flow_id: 0,
            effects,
            parse_error: None,
            emitted: std::mem::take(&mut scratch.emitted),
        };
        if exec.run_packet(def, &mut outcome) {
            finish(&mut exec, def, &mut outcome);
        }
        // `every` runs that came due are already in `self.notifications` (advance_time records
        // them); only what this packet raised is added below.
        let raised = std::mem::take(&mut exec.effects.notifications);
        outcome.trace = exec.effects.trace.take().unwrap_or_default();
        let (emitted, copies) = (exec.emitted, exec.effects.copies);
        scratch.emitted = emitted;
        scratch.copies = copies;
        let rt = &mut self.scus[scu.index()];
        match &outcome.dropped {
            Some(reason) => match rt.stats.drops.get_mut(reason) {
                Some(n) => *n += 1,
                None => {
                    rt.stats.drops.insert(reason.clone(), 1);
                }
            },
            None => rt.stats.copies_out += outcome.outputs.len() as u64,
        }
        if !raised.is_empty() {
            self.notifications.extend(raised.iter().cloned());
            outcome.notifications.extend(raised);
        }
        outcome
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
                exec.emit(inst);
            }
        }
    }
    let rest = exec
        .packet
        .as_ref()
        .and_then(|p| p.data.get(p.cursor / 8..))
        .unwrap_or(&[]);
    let mut bytes = Vec::with_capacity(exec.emitted.len() + rest.len());
    bytes.extend_from_slice(&exec.emitted);
    bytes.extend_from_slice(rest);
    let copies = &mut exec.effects.copies;
    if copies.is_empty() {
        copies.push(match def.attach {
            Attach::SlowPath => Destination::Host,
            Attach::Rdma | Attach::Tcp => Destination::Pass,
        });
    }
    if exec.effects.trace.is_some() {
        let line = format!("out {:?} ({} bytes)", exec.effects.copies, bytes.len());
        exec.effects.trace(|| line);
    }
    let copies = &exec.effects.copies;
    outcome.outputs = Vec::with_capacity(copies.len());
    if let Some((last, others)) = copies.split_last() {
        for d in others {
            outcome.outputs.push((d.clone(), bytes.clone()));
        }
        outcome.outputs.push((last.clone(), bytes));
    }
}

impl Exec<'_> {
    /// Runs the parser, then the control or the parser-error handler; whether the packet goes on
    /// to the deparser (false when it was rejected without a handler: `outcome.dropped` says why).
    fn run_packet(&mut self, def: &Scu, outcome: &mut PacketOutcome) -> bool {
        match self.run_parser(def) {
            None => {
                if let Some(control) = &def.control {
                    self.run_body(control, &[]);
                }
                true
            }
            Some(error) => match &def.on_parser_error {
                Some(handler) => {
                    self.effects
                        .trace(|| format!("parser error {} handled", def.errors[error]));
                    self.run_body(
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
        }
    }

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
