//! Processing one packet: parse, control (or the parser-error handler), deparse, copies.
//!
//! The parser never reads past the end of the packet: an extraction or lookahead that would rejects
//! with `packet_too_short`. A rejected packet is dropped (reason `parser_error:<name>`) unless the
//! scu has `on parser_error`. The deparser emits the valid headers in its `emit` order (every
//! instance in declaration order without a deparser) followed by the bytes the parser did not
//! consume. Without any copy requested, a slow-path packet goes to the host and an rdma/tcp packet
//! passes on unchanged.

use super::bits::Bits;
use super::compile::{Code, ScuCode};
use super::context::{Cx, Destination, PacketCx, ScuCx};
use super::headers::HeaderStore;
use super::runtime::Machine;
use super::value::Value;
use crate::entities::*;
use crate::program::{Attach, Scu};
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

    /// Makes the scratch fresh for a new packet.
    fn reset(&mut self) {
        self.headers.reset();
        for (field, zero) in self.meta.iter_mut().zip(&self.meta_zero) {
            field.clone_from(zero);
        }
        self.emitted.clear();
        self.copies.clear();
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
        let (Some(def), Some(rt), Some(scratch), Some(code)) = (
            module.scus.get(scu),
            self.scus.get_mut(scu.index()),
            self.packet_scratch.get_mut(scu.index()),
            self.program.scus.get(scu.index()),
        ) else {
            return outcome;
        };
        rt.stats.packets_in += 1;
        scratch.reset();
        let mut cx = Cx::new(module, &self.program, &mut self.frames, timestamp_ns);
        cx.effects.trace = self.trace.then(Vec::new);
        cx.effects.copies = std::mem::take(&mut scratch.copies);
        cx.emitted = std::mem::take(&mut scratch.emitted);
        cx.scu = Some(ScuCx { def, code, rt });
        cx.pkt = Some(PacketCx {
            data,
            cursor: 0,
            headers: &mut scratch.headers,
            meta: &mut scratch.meta,
            port,
            timestamp_ns,
        });
        if run_packet(&mut cx, def, code, &mut outcome) {
            finish(&mut cx, def, code, &mut outcome);
        }
        let Cx {
            mut effects,
            emitted,
            ..
        } = cx;
        outcome.trace = effects.trace.take().unwrap_or_default();
        scratch.copies = effects.copies;
        scratch.emitted = emitted;
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
        // `every` runs that came due are already in `self.notifications` (advance_time records
        // them); only what this packet raised is added below.
        let raised = effects.notifications;
        if !raised.is_empty() {
            self.notifications.extend(raised.iter().cloned());
            outcome.notifications.extend(raised);
        }
        outcome
    }
}

/// Runs the parser, then the control or the parser-error handler; whether the packet goes on to
/// the deparser (false when it was rejected without a handler: `outcome.dropped` says why).
fn run_packet(cx: &mut Cx<'_>, def: &Scu, code: &ScuCode, outcome: &mut PacketOutcome) -> bool {
    let parsed = match &code.parser {
        Some(parser) => parser.run(cx, def),
        None => super::compile::Parsed::Accepted,
    };
    match parsed {
        super::compile::Parsed::Accepted => {
            run(cx, &code.control, &[]);
            true
        }
        super::compile::Parsed::Dropped => true,
        super::compile::Parsed::Rejected(error) => {
            let name = def.errors.get(error).map_or("", String::as_str);
            match &code.on_parser_error {
                Some(handler) => {
                    cx.effects.trace(|| format!("parser error {name} handled"));
                    let e = Value::Bits(Bits::from_u64(8, error.index() as u64));
                    handler.run_top(cx, &[e]);
                    true
                }
                None => {
                    outcome.dropped = Some(format!("parser_error:{name}"));
                    false
                }
            }
        }
    }
}

/// Runs a body if there is one.
fn run(cx: &mut Cx<'_>, code: &Option<Code>, args: &[Value]) {
    if let Some(code) = code {
        code.run_top(cx, args);
    }
}

/// Deparses and records the copies (or the drop).
fn finish(cx: &mut Cx<'_>, def: &Scu, code: &ScuCode, outcome: &mut PacketOutcome) {
    if cx.effects.dropped {
        cx.effects.trace(|| "drop".into());
        outcome.dropped = Some("drop".into());
        return;
    }
    cx.emitted.clear();
    match &code.deparser {
        Some(deparser) => {
            deparser.run_top(cx, &[]);
        }
        None => {
            for inst in def.instances.keys() {
                super::compile::emit(cx, inst);
            }
        }
    }
    let rest = cx
        .pkt
        .as_ref()
        .and_then(|p| p.data.get(p.cursor / 8..))
        .unwrap_or(&[]);
    let mut bytes = Vec::with_capacity(cx.emitted.len() + rest.len());
    bytes.extend_from_slice(&cx.emitted);
    bytes.extend_from_slice(rest);
    let copies = &mut cx.effects.copies;
    if copies.is_empty() {
        copies.push(match def.attach {
            Attach::SlowPath => Destination::Host,
            Attach::Rdma | Attach::Tcp => Destination::Pass,
        });
    }
    if cx.effects.trace.is_some() {
        let line = format!("out {:?} ({} bytes)", cx.effects.copies, bytes.len());
        cx.effects.trace(|| line);
    }
    let copies = &cx.effects.copies;
    outcome.outputs = Vec::with_capacity(copies.len());
    if let Some((last, others)) = copies.split_last() {
        for d in others {
            outcome.outputs.push((d.clone(), bytes.clone()));
        }
        outcome.outputs.push((last.clone(), bytes));
    }
}
