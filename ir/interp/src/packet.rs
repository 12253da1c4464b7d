//! Processing one packet: parse, control (or the parser-error handler), deparse, copies.
//!
//! The parser never reads past the end of the packet: an extraction or lookahead that would rejects
//! with `packet_too_short`. A rejected packet is dropped (reason `parser_error:<name>`) unless the
//! scu has `on parser_error`. The deparser emits the valid headers in its `emit` order (every
//! instance in declaration order without a deparser) followed by the bytes the parser did not
//! consume. Without any copy requested, a slow-path packet goes to the host and an rdma/tcp packet
//! passes on unchanged.
//!
//! [`Machine::process_packet_into`] writes into an outcome the caller keeps: its output buffers and
//! drop reason are reused (and the scu's scratch keeps them across dropped packets), so a packet
//! allocates nothing; [`Machine::process_packet`] is the same with a fresh outcome.

use super::compile::{Code, ScuCode};
use super::context::{Cx, Destination, Effects, PacketCx, ScuCx};
use super::headers::HeaderStore;
use super::runtime::Machine;
use super::value::Value;
use cranelift_entity::EntityRef;
use scenic_ir::entities::*;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::{Attach, Scu};

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
/// (with their zero values), the deparser's and the outputs' buffers. Nothing here carries meaning
/// across packets: everything is reset or overwritten before use.
#[derive(Debug, Default)]
pub(crate) struct PacketScratch {
    headers: HeaderStore,
    meta: Vec<Value>,
    meta_zero: Vec<Value>,
    emitted: Vec<u8>,
    /// What the packet's code did (copies, drop, notifications): its lists keep their storage.
    effects: Effects,
    /// Storage kept for the next packet: a drop reason, and output buffers (with stale bytes,
    /// overwritten before use) left by a packet that was dropped.
    reason: Option<String>,
    outputs: Vec<(Destination, Vec<u8>)>,
}

impl PacketScratch {
    /// The scratch of `def`.
    pub(crate) fn new(module: &scenic_ir::program::Module, def: &Scu) -> PacketScratch {
        let meta_zero: Vec<Value> = match def.meta.and_then(|s| module.structs.get(s)) {
            Some(s) => s
                .fields
                .iter()
                .map(|f| Value::zero(&f.ty, module))
                .collect(),
            None => Vec::new(),
        };
        let mut headers = HeaderStore::new(module, def);
        headers.set_emit_order(super::compile::emit_order(def).as_deref());
        PacketScratch {
            headers,
            meta: meta_zero.clone(),
            meta_zero,
            emitted: Vec::new(),
            effects: Effects::default(),
            reason: None,
            outputs: Vec::new(),
        }
    }

    /// Makes the scratch fresh for a new packet.
    fn reset(&mut self) {
        self.headers.reset();
        for (field, zero) in self.meta.iter_mut().zip(&self.meta_zero) {
            field.clone_from(zero);
        }
        self.emitted.clear();
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
        let mut outcome = PacketOutcome::default();
        self.process_packet_into(scu, data, port, timestamp_ns, &mut outcome);
        outcome
    }

    /// [`Machine::process_packet`] into `outcome`, whose storage (the output buffers, the drop
    /// reason) is reused: a caller that keeps one outcome for every packet allocates nothing per
    /// packet. Everything in `outcome` is replaced.
    pub fn process_packet_into(
        &mut self,
        scu: ScuId,
        data: &[u8],
        port: u8,
        timestamp_ns: u64,
        outcome: &mut PacketOutcome,
    ) {
        let reason = outcome.dropped.take();
        outcome.notifications.clear();
        self.advance_time_into(timestamp_ns, &mut outcome.notifications);
        outcome.trace.clear();
        let module = self.module;
        let (Some(def), Some(rt), Some(scratch), Some(code)) = (
            module.scus.get(scu),
            self.scus.get_mut(scu.index()),
            self.packet_scratch.get_mut(scu.index()),
            self.program.scus.get(scu.index()),
        ) else {
            outcome.outputs.clear();
            return;
        };
        rt.stats.packets_in += 1;
        scratch.reset();
        if reason.is_some() {
            scratch.reason = reason;
        }
        let effects = &mut scratch.effects;
        effects.reset(self.trace.then(|| std::mem::take(&mut outcome.trace)));
        let mut cx = Cx::new(
            module,
            &self.program,
            &mut self.frames,
            effects,
            timestamp_ns,
        );
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
        let mut reason = scratch.reason.take().unwrap_or_default();
        if outcome.outputs.is_empty() {
            std::mem::swap(&mut outcome.outputs, &mut scratch.outputs);
        }
        let dropped = match run_packet(&mut cx, def, code, &mut reason) {
            true => finish(&mut cx, def, code, outcome, &mut reason),
            false => true,
        };
        scratch.emitted = cx.emitted;
        let effects = &mut scratch.effects;
        if let Some(trace) = effects.trace.take() {
            outcome.trace = trace;
        }
        if dropped {
            // No outputs: their buffers wait in the scratch for the next packet that has some.
            if scratch.outputs.is_empty() {
                std::mem::swap(&mut scratch.outputs, &mut outcome.outputs);
            }
            outcome.outputs.clear();
        } else {
            scratch.reason = Some(std::mem::take(&mut reason));
        }
        if let Some(rt) = self.scus.get_mut(scu.index()) {
            count(&mut rt.stats, outcome, dropped.then_some(reason));
        }
        // `every` runs that came due are already in `self.notifications` (advance_time records
        // them); only what this packet raised is added below.
        let raised = &mut scratch.effects.notifications;
        if !raised.is_empty() {
            self.notifications.extend(raised.iter().cloned());
            outcome.notifications.append(raised);
        }
    }
}

/// Counts the packet's drop (`reason`, which becomes the outcome's) or its copies.
// Inlined into its one caller: the compiler does not, and these calls cost about 75
// instructions per packet together (cachegrind, parse-only bench).
#[inline(always)]
fn count(
    stats: &mut super::runtime::ScuStats,
    outcome: &mut PacketOutcome,
    reason: Option<String>,
) {
    match reason {
        Some(reason) => {
            match stats.drops.get_mut(&reason) {
                Some(n) => *n += 1,
                None => {
                    stats.drops.insert(reason.clone(), 1);
                }
            }
            outcome.dropped = Some(reason);
        }
        None => stats.copies_out += outcome.outputs.len() as u64,
    }
}

/// Replaces `reason` by `text` (keeping its storage).
fn set_reason(reason: &mut String, text: &[&str]) {
    reason.clear();
    for part in text {
        reason.push_str(part);
    }
}

/// Runs the parser, then the control or the parser-error handler; whether the packet goes on to
/// the deparser (false when it was rejected without a handler: `reason` says why).
// Inlined into its one caller: the compiler does not, and these calls cost about 75
// instructions per packet together (cachegrind, parse-only bench).
#[inline(always)]
fn run_packet(cx: &mut Cx<'_>, def: &Scu, code: &ScuCode, reason: &mut String) -> bool {
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
                    set_reason(reason, &["parser_error:", name]);
                    false
                }
            }
        }
    }
}

/// Runs a body if there is one (an empty one, `control { }`, has nothing to run).
fn run(cx: &mut Cx<'_>, code: &Option<Code>, args: &[Value]) {
    if let Some(code) = code.as_ref().filter(|c| !c.block.is_empty()) {
        code.run_top(cx, args);
    }
}

/// Deparses and writes the copies into `outcome.outputs`, reusing its buffers; whether the packet
/// was dropped instead (`reason` says why).
// Inlined into its one caller: the compiler does not, and these calls cost about 75
// instructions per packet together (cachegrind, parse-only bench).
#[inline(always)]
fn finish(
    cx: &mut Cx<'_>,
    def: &Scu,
    code: &ScuCode,
    outcome: &mut PacketOutcome,
    reason: &mut String,
) -> bool {
    if cx.effects.dropped {
        cx.effects.trace(|| "drop".into());
        set_reason(reason, &["drop"]);
        return true;
    }
    cx.emitted.clear();
    // The packet's headers as they came, back to back: its bytes go out as they are.
    let unchanged = cx
        .pkt
        .as_ref()
        .is_some_and(|p| p.headers.unchanged_prefix(p.cursor));
    match &code.deparser {
        _ if unchanged => {}
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
        .and_then(|p| p.data.get(if unchanged { 0 } else { p.cursor / 8 }..))
        .unwrap_or(&[]);
    let copies = &mut cx.effects.copies;
    if copies.is_empty() {
        copies.push(match def.attach {
            Attach::SlowPath => Destination::Host,
            Attach::Rdma | Attach::Tcp => Destination::Pass,
        });
    }
    if cx.effects.trace.is_some() {
        let line = format!(
            "out {:?} ({} bytes)",
            cx.effects.copies,
            cx.emitted.len() + rest.len()
        );
        cx.effects.trace(|| line);
    }
    let copies = &cx.effects.copies;
    let outputs = &mut outcome.outputs;
    outputs.truncate(copies.len());
    // A fresh outcome gets exactly the room it needs (one allocation), a reused one has it.
    outputs.reserve_exact(copies.len() - outputs.len());
    for (k, d) in copies.iter().enumerate() {
        if let Some((dest, bytes)) = outputs.get_mut(k) {
            dest.clone_from(d);
            bytes.clear();
            bytes.extend_from_slice(&cx.emitted);
            bytes.extend_from_slice(rest);
        } else {
            let mut bytes = Vec::with_capacity(cx.emitted.len() + rest.len());
            bytes.extend_from_slice(&cx.emitted);
            bytes.extend_from_slice(rest);
            outputs.push((d.clone(), bytes));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn firewall() -> scenic_ir::Module {
        let mut session = scenic_frontend::Session::new();
        session.add_source("firewall.sn", include_str!("../../../examples/firewall.sn"));
        match scenic_lower::lower_session(&mut session) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }

    /// An IPv4 packet of `len` bytes (`proto`, destination `port`), or ARP when `ipv4` is false.
    fn packet(len: usize, ipv4: bool, proto: u8, port: u16) -> Vec<u8> {
        let mut p = vec![0u8; len];
        if let Some(t) = p.get_mut(12..14) {
            t.copy_from_slice(if ipv4 { &[0x08, 0x00] } else { &[0x08, 0x06] });
        }
        if len >= 38 {
            p[14] = 0x45;
            p[23] = proto;
            p[36..38].copy_from_slice(&port.to_be_bytes());
        }
        p
    }

    /// One outcome reused for every packet gives what a fresh outcome per packet gives, through
    /// drops, parser errors and outputs of different sizes, with and without tracing.
    #[test]
    fn a_reused_outcome_equals_fresh_ones() {
        let module = firewall();
        for trace in [false, true] {
            let (mut fresh, mut reused) = (Machine::new(&module), Machine::new(&module));
            (fresh.trace, reused.trace) = (trace, trace);
            let Some(scu) = fresh.scu_by_name("incast_firewall") else {
                panic!("no scu")
            };
            let packets = [
                packet(100, true, 6, 80),
                packet(64, true, 6, 23),
                packet(30, true, 6, 80),
                packet(1500, true, 17, 53),
                packet(60, false, 0, 0),
                packet(64, true, 17, 111),
                packet(200, true, 6, 443),
            ];
            let mut outcome = PacketOutcome::default();
            for (i, p) in packets.iter().cycle().take(40).enumerate() {
                let t = 1_000 * i as u64;
                let want = fresh.process_packet(scu, p, 0, t);
                reused.process_packet_into(scu, p, 0, t, &mut outcome);
                assert_eq!(outcome, want, "packet {i}, trace {trace}");
            }
            assert_eq!(
                fresh.scus[scu.index()].stats,
                reused.scus[scu.index()].stats
            );
        }
    }

    /// The output of a deparser `emit`ting `emits` (Ethernet and IPv4 extracted, nothing changed).
    fn deparsed(emits: &str, packet: &[u8]) -> Vec<u8> {
        deparsed_after("", emits, packet)
    }

    /// [`deparsed`] after a control `control`.
    fn deparsed_after(control: &str, emits: &str, packet: &[u8]) -> Vec<u8> {
        let source = format!(
            "use std::net::{{ethernet, ipv4}};
            scu s on slow_path {{
                headers {{ eth: ethernet, ip: ipv4 }}
                parser {{
                    state start {{ extract(eth); match eth.ether_type {{ 0x0800 => l3, _ => accept }} }}
                    state l3 {{ extract(ip); accept }}
                }}
                control {{ {control} }}
                deparser {{ {emits} }}
            }}"
        );
        let mut session = scenic_frontend::Session::new();
        session.add_source("d.sn", &source);
        let module = match scenic_lower::lower_session(&mut session) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        let mut m = Machine::new(&module);
        let Some(scu) = m.scu_by_name("s") else {
            panic!("no scu")
        };
        let mut out = m.process_packet(scu, packet, 0, 0).outputs;
        match out.pop() {
            Some((_, bytes)) if out.is_empty() => bytes,
            other => panic!("one output expected, got {other:?} and {out:?}"),
        }
    }

    /// A deparser that emits the headers as they came gives the packet's bytes; one that reorders
    /// or leaves out a header, or a packet whose headers were not all emitted, does not.
    #[test]
    fn only_an_unchanged_header_sequence_is_copied_whole() {
        let mut p = packet(80, true, 6, 80);
        for (i, b) in p.iter_mut().enumerate() {
            if i != 12 && i != 13 && i != 14 {
                *b = i as u8;
            }
        }
        let (eth, ip, rest) = (&p[..14], &p[14..34], &p[34..]);
        assert_eq!(deparsed("emit(eth); emit(ip);", &p), p);
        assert_eq!(
            deparsed("emit(ip); emit(eth);", &p),
            [ip, eth, rest].concat()
        );
        assert_eq!(deparsed("emit(eth);", &p), [eth, rest].concat());
        assert_eq!(deparsed("emit(ip);", &p), [ip, rest].concat());
        let arp = packet(60, false, 0, 0);
        assert_eq!(deparsed("emit(ip); emit(eth);", &arp), arp);
        let mut older = p.clone();
        older[22] = older[22].wrapping_sub(1);
        let both = "emit(eth); emit(ip);";
        assert_eq!(deparsed_after("ip.ttl = ip.ttl - 1;", both, &p), older);
        let (mut gone, mut zeros) = (eth.to_vec(), p.clone());
        gone.extend_from_slice(rest);
        assert_eq!(deparsed_after("ip.set_invalid();", both, &p), gone);
        zeros[14..34].fill(0);
        // §3.6: set_valid() makes an invalid header valid with zero fields; a valid one is unchanged.
        assert_eq!(deparsed_after("ip.set_valid();", both, &p), p);
        let again = "ip.set_invalid(); ip.set_valid();";
        assert_eq!(deparsed_after(again, both, &p), zeros);
    }

    /// Tracing takes the general path through tables (keys as `Bits`, for the trace line), not
    /// tracing the path by value: both choose the same entries, on a priority table of every key
    /// kind with run-time entries.
    #[test]
    fn tables_choose_the_same_entries_with_and_without_tracing() {
        use scenic_ir::program::KeyMatch;
        use scenic_ir::types::Const;
        let module = firewall();
        let c = |v: u64| Const(v.into());
        let rows = [
            (0x0a01_0000u64, 16, 0, 0, Some(6), (0, 100), "deny", vec![]),
            (
                0x0a00_0000,
                8,
                0x0a02_0000,
                0xffff_0000,
                None,
                (50, 60),
                "limit",
                vec![3u8],
            ),
            (0, 0, 0, 0, Some(17), (0, 65535), "allow", vec![]),
        ];
        let outcomes: Vec<Vec<PacketOutcome>> = [false, true]
            .iter()
            .map(|&trace| {
                let mut m = Machine::new(&module);
                m.trace = trace;
                let Some(scu) = m.scu_by_name("incast_firewall") else {
                    panic!("no scu")
                };
                for (i, (src, len, dst, mask, proto, ports, action, args)) in
                    rows.iter().enumerate()
                {
                    let keys = [
                        KeyMatch::Lpm(c(*src), *len),
                        KeyMatch::Ternary(c(*dst), c(*mask)),
                        proto.map_or(KeyMatch::Any, |p| KeyMatch::Ternary(c(p), c(0xff))),
                        KeyMatch::Range(c(ports.0), c(ports.1)),
                    ];
                    let args: Vec<num_bigint::BigUint> = args.iter().map(|a| (*a).into()).collect();
                    if let Err(e) = m.add_entry(scu, "acl", &keys, action, &args, 10 + i as u64) {
                        panic!("{e}");
                    }
                }
                (0..200u32)
                    .map(|i| {
                        let mut p = packet(
                            64 + (i as usize % 7) * 40,
                            true,
                            [6, 17, 1][i as usize % 3],
                            0,
                        );
                        p[26..30].copy_from_slice(&[10, (i % 4) as u8, (i % 3) as u8, i as u8]);
                        p[30..34].copy_from_slice(&[10, 2 + (i % 2) as u8, 0, 1]);
                        p[36..38].copy_from_slice(&((i % 120) as u16).to_be_bytes());
                        let mut o = m.process_packet(scu, &p, 0, u64::from(i) * 1_000);
                        o.trace.clear();
                        o
                    })
                    .collect()
            })
            .collect();
        assert_eq!(outcomes[0], outcomes[1]);
        let dropped = outcomes[0].iter().filter(|o| o.dropped.is_some()).count();
        assert!(
            dropped > 0 && dropped < 200,
            "{dropped} dropped: the entries must matter"
        );
    }
}
