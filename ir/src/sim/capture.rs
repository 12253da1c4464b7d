//! Simulating a capture: every packet through the scu, in timestamp order, in virtual time.
//!
//! Slow-path scus get each packet as it is. Scus on `rdma(qp)` or `tcp(flow)` get payload streams
//! cut from the packets (their `control`, if any, also sees the packets):
//! - RoCEv2 (Ethernet / IPv4 or IPv6 / UDP port 4791 / BTH): the payload after the BTH and the
//!   extended headers its opcode carries (RETH on RDMA WRITE FIRST/ONLY and READ requests, ImmDt on
//!   *_IMMEDIATE opcodes), minus the pad bytes and the 4-byte ICRC; the flow is the BTH's destination
//!   QP; the message ends with a LAST or ONLY opcode.
//! - TCP (Ethernet / IPv4 or IPv6 / TCP): the segment's payload; the flow is the connection's index in
//!   order of first appearance (a 16-bit session id, as the NIC's TCP stack numbers sessions); the
//!   message ends with a segment carrying PSH or FIN.
//!
//! Payload is cut into 64-byte words (the last one of a packet may be short). Words the kernel passes
//! on are written back into the packet in place of its payload (the ICRC is not recomputed: on receive
//! the stack has checked it already) and the packet leaves on the pass port; words pushed to outputs
//! become DMA transfers, batched as the program says.

use super::setup::{self, SetupError};
use super::{port_of, PASS_PORT};
use crate::entities::ScuId;
use crate::interp::stream::{bytes_word, word_bytes, DmaTransfer};
use crate::interp::Machine;
use crate::io::entries::Entries;
use crate::program::{Attach, Module};
use std::collections::BTreeMap;

/// Options of a simulation.
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// The scu to run (default: the first).
    pub scu: Option<String>,
    /// Record per-packet traces.
    pub trace: bool,
}

/// A packet that came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutPacket {
    /// The input packet's timestamp.
    pub ts_ns: u64,
    /// Its port (see [`super::port_of`]).
    pub port: u32,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// Totals for the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Packets read.
    pub packets_in: u64,
    /// Packets out per port.
    pub out_per_port: BTreeMap<u32, u64>,
    /// Drops per reason.
    pub dropped: BTreeMap<String, u64>,
    /// Payload words processed (stream scus).
    pub words: u64,
    /// Notifications raised.
    pub notifications: u64,
    /// Non-zero counter cells: name, cell, packets, bytes.
    pub counters: Vec<(String, usize, u64, u64)>,
    /// CSRs and params at the end.
    pub csrs: Vec<(String, String)>,
}

/// Everything a simulation produced.
#[derive(Clone, Debug, Default)]
pub struct SimResult {
    /// Packets out, in order.
    pub packets: Vec<OutPacket>,
    /// DMA transfers, in order.
    pub transfers: Vec<(u64, DmaTransfer)>,
    /// Per-packet traces (packet number from 1, lines), when tracing.
    pub traces: Vec<(usize, Vec<String>)>,
    /// Totals.
    pub summary: Summary,
}

/// Runs the packets of a capture, with entries and CSR values installed first.
pub fn simulate<'a>(
    module: &Module,
    packets: impl IntoIterator<Item = (u64, &'a [u8])>,
    entries: Option<&Entries>,
    csrs: &[(String, u64)],
    options: &SimOptions,
) -> Result<SimResult, SetupError> {
    let mut machine = Machine::new(module);
    machine.trace = options.trace;
    let scu = setup::pick_scu(module, options.scu.as_deref())?;
    if let Some(entries) = entries {
        install(&mut machine, scu, entries)?;
    }
    for (name, value) in csrs {
        setup::set_csr(&mut machine, Some(scu), name, *value)?;
    }
    let mut sim = Sim {
        machine,
        scu,
        attach: module.scus[scu].attach,
        result: SimResult::default(),
        tcp_sessions: BTreeMap::new(),
    };
    let mut now: Option<u64> = None;
    for (n, (ts, data)) in packets.into_iter().enumerate() {
        if let Some(from) = now {
            if let Some((runs, what)) = super::excessive_catch_up(module, from, ts) {
                return Err(SetupError::TimeJump {
                    at: format!(", at packet {}", n + 1),
                    from_ns: from,
                    to_ns: ts,
                    runs,
                    what,
                    limit: super::MAX_CATCH_UP_RUNS,
                });
            }
        }
        now = Some(now.map_or(ts, |t| t.max(ts)));
        sim.packet(n + 1, ts, data);
    }
    Ok(sim.finish(module))
}

/// Installs an entries file.
pub fn install(machine: &mut Machine<'_>, scu: ScuId, entries: &Entries) -> Result<(), SetupError> {
    for (table, t) in &entries.tables {
        for e in &t.entries {
            setup::add_entry(
                machine,
                scu,
                table,
                &e.keys,
                &e.action,
                u64::from(e.priority.unwrap_or(0)),
            )?;
        }
        if let Some(default) = &t.default {
            setup::set_default(machine, scu, table, default)?;
        }
    }
    for (name, value) in &entries.csrs {
        setup::set_csr(machine, Some(scu), name, *value)?;
    }
    Ok(())
}

struct Sim<'m> {
    machine: Machine<'m>,
    scu: ScuId,
    attach: Attach,
    result: SimResult,
    tcp_sessions: BTreeMap<Vec<u8>, u64>,
}

impl Sim<'_> {
    fn packet(&mut self, n: usize, ts: u64, data: &[u8]) {
        self.result.summary.packets_in += 1;
        let has_control = self.machine.module().scus[self.scu].control.is_some()
            || self.attach == Attach::SlowPath;
        if has_control {
            let outcome = self.machine.process_packet(self.scu, data, 0, ts);
            self.result.summary.notifications += outcome.notifications.len() as u64;
            if !outcome.trace.is_empty() {
                self.result.traces.push((n, outcome.trace));
            }
            match outcome.dropped {
                Some(reason) => *self.result.summary.dropped.entry(reason).or_insert(0) += 1,
                None => {
                    for (dest, bytes) in outcome.outputs {
                        self.emit(ts, port_of(&dest), bytes);
                    }
                }
            }
        }
        if self.machine.module().scus[self.scu].stream.is_some() {
            self.stream(ts, data);
        }
    }

    fn emit(&mut self, ts: u64, port: u32, data: Vec<u8>) {
        *self.result.summary.out_per_port.entry(port).or_insert(0) += 1;
        self.result.packets.push(OutPacket {
            ts_ns: ts,
            port,
            data,
        });
    }

    fn stream(&mut self, ts: u64, data: &[u8]) {
        let payload = match self.attach {
            Attach::Rdma => roce_payload(data),
            Attach::Tcp => tcp_payload(data, &mut self.tcp_sessions),
            Attach::SlowPath => None,
        };
        let Some(Payload { flow, range, last }) = payload else {
            return;
        };
        let bytes = &data[range.clone()];
        let chunks: Vec<&[u8]> = bytes.chunks(64).collect();
        let mut passed = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let (word, keep) = bytes_word(chunk);
            let is_last = last && i + 1 == chunks.len();
            let outcome = self
                .machine
                .process_word(self.scu, flow, &word, is_last, keep, ts);
            self.result.summary.words += 1;
            self.result.summary.notifications += outcome.notifications.len() as u64;
            for (w, k) in &outcome.passed {
                passed.extend(word_bytes(w, *k));
            }
            self.result
                .transfers
                .extend(outcome.transfers.into_iter().map(|t| (ts, t)));
        }
        if !passed.is_empty() {
            let mut out = data.to_vec();
            let end = (range.start + passed.len()).min(out.len());
            out[range.start..end].copy_from_slice(&passed[..end - range.start]);
            self.emit(ts, PASS_PORT, out);
        }
    }

    fn finish(mut self, module: &Module) -> SimResult {
        let def = &module.scus[self.scu];
        for c in def.counters.values() {
            for i in 0..c.size as usize {
                if let Some(cell) = self
                    .machine
                    .counter(self.scu, &c.name, i)
                    .filter(|c| c.packets + c.bytes > 0)
                {
                    self.result.summary.counters.push((
                        c.name.clone(),
                        i,
                        cell.packets,
                        cell.bytes,
                    ));
                }
            }
        }
        for c in def.csrs.values() {
            if let Some(v) = self.machine.csr(self.scu, &c.name) {
                self.result
                    .summary
                    .csrs
                    .push((c.name.clone(), format!("{}", v.to_biguint())));
            }
        }
        self.result
    }
}

struct Payload {
    flow: u64,
    range: std::ops::Range<usize>,
    last: bool,
}

/// Where the L4 header of an Ethernet/IPv4 or IPv6 packet starts, its protocol, and where the IP
/// packet ends: by its length field, not the frame's end, so that Ethernet padding (frames are at
/// least 60 bytes) is never taken for payload.
struct L4 {
    offset: usize,
    protocol: u8,
    end: usize,
}

fn l4(data: &[u8]) -> Option<L4> {
    let ether_type = u16::from_be_bytes([*data.get(12)?, *data.get(13)?]);
    let be16 = |at: usize| {
        Some(usize::from(u16::from_be_bytes([
            *data.get(at)?,
            *data.get(at + 1)?,
        ])))
    };
    let (offset, protocol, end) = match ether_type {
        0x0800 => {
            let ihl = usize::from(data.get(14)? & 0x0f) * 4;
            // Below the 20-byte minimum (RFC 791) a NIC's stack drops the packet: no payload.
            if ihl < 20 {
                return None;
            }
            (14 + ihl, *data.get(14 + 9)?, 14 + be16(16)?)
        }
        0x86dd => (14 + 40, *data.get(14 + 6)?, 14 + 40 + be16(18)?),
        _ => return None,
    };
    Some(L4 {
        offset,
        protocol,
        end: end.min(data.len()),
    })
}

fn roce_payload(data: &[u8]) -> Option<Payload> {
    let L4 {
        offset: udp,
        protocol,
        end: ip_end,
    } = l4(data)?;
    if protocol != 17 || u16::from_be_bytes([*data.get(udp + 2)?, *data.get(udp + 3)?]) != 4791 {
        return None;
    }
    let bth = udp + 8;
    let opcode = *data.get(bth)?;
    let pad = usize::from((data.get(bth + 1)? >> 4) & 0x3);
    let qp = u64::from_be_bytes([
        0,
        0,
        0,
        0,
        0,
        *data.get(bth + 5)?,
        *data.get(bth + 6)?,
        *data.get(bth + 7)?,
    ]);
    let reth = matches!(opcode, 0x06 | 0x0a | 0x0b | 0x0c);
    let imm = matches!(opcode, 0x03 | 0x05 | 0x09 | 0x0b);
    let start = bth + 12 + if reth { 16 } else { 0 } + if imm { 4 } else { 0 };
    let end = ip_end.checked_sub(4 + pad)?;
    let last = matches!(
        opcode,
        0x02 | 0x03 | 0x04 | 0x05 | 0x08 | 0x09 | 0x0a | 0x0b
    );
    (start < end).then_some(Payload {
        flow: qp,
        range: start..end,
        last,
    })
}

fn tcp_payload(data: &[u8], sessions: &mut BTreeMap<Vec<u8>, u64>) -> Option<Payload> {
    let L4 {
        offset: tcp,
        protocol,
        end: ip_end,
    } = l4(data)?;
    if protocol != 6 {
        return None;
    }
    let offset = usize::from(data.get(tcp + 12)? >> 4) * 4;
    // Below the 20-byte minimum (RFC 9293) the stack drops the segment: no payload.
    if offset < 20 {
        return None;
    }
    let flags = *data.get(tcp + 13)?;
    // The connection: ports and addresses (IPv4 at bytes 26..34, IPv6 at 22..54).
    let mut key = data.get(tcp..tcp + 4)?.to_vec();
    let addresses = if tcp >= 54 && data.get(12..14) == Some(&[0x86, 0xdd]) {
        22..54
    } else {
        26..34
    };
    key.extend_from_slice(data.get(addresses).unwrap_or(&[]));
    let next = sessions.len() as u64;
    let flow = *sessions.entry(key).or_insert(next) & 0xffff;
    let start = tcp + offset;
    (start < ip_end).then_some(Payload {
        flow,
        range: start..ip_end,
        last: flags & 0x09 != 0,
    })
}
