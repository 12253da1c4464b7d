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
//!
//! [`simulate_into`] hands every packet out, DMA transfer and trace to a sink as it happens, so the
//! simulation keeps nothing per packet (`scenicc sim` writes its files from the sink; the capture's
//! bytes are the caller's);
//! [`simulate`] collects them into a [`SimResult`]. Payload cutting is in `super::payload`.

use super::payload::{self, Payload, TcpSessions};
use super::setup::{self, SetupError};
use super::{port_of, CatchUp, PASS_PORT};
use scenic_interp::stream::{bytes_word, word_bytes, DmaTransfer};
use scenic_interp::{Machine, PacketOutcome};
use scenic_io::entries::Entries;
use scenic_ir::entities::ScuId;
use scenic_ir::program::{Attach, Module};
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
    /// DMA transfers completed (stream scus).
    pub transfers: u64,
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

/// What [`simulate_into`] hands its sink, in the order it happens.
#[derive(Debug)]
pub enum Event<'a> {
    /// The trace of packet `n` (from 1), before its outputs; only when tracing.
    Trace {
        /// The packet's number.
        n: usize,
        /// Its lines.
        lines: &'a [String],
    },
    /// A packet left on `port` (see [`super::port_of`]), stamped with its input's time.
    Packet {
        /// The input packet's timestamp.
        ts_ns: u64,
        /// The port.
        port: u32,
        /// Its bytes, valid until the sink returns.
        data: &'a [u8],
    },
    /// A DMA transfer completed, at the time of the packet whose payload completed it.
    Transfer {
        /// The packet's timestamp.
        ts_ns: u64,
        /// The transfer.
        transfer: DmaTransfer,
    },
}

/// Why [`simulate_into`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum StreamError<E> {
    /// Setting up (scu, entries, CSRs) failed, or the capture's time jumped too far.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The sink returned an error; the simulation stopped there.
    #[error("{0}")]
    Sink(E),
}

/// Runs the packets of a capture, with entries and CSR values installed first, and collects what
/// came out.
pub fn simulate<'a>(
    module: &Module,
    packets: impl IntoIterator<Item = (u64, &'a [u8])>,
    entries: Option<&Entries>,
    csrs: &[(String, u64)],
    options: &SimOptions,
) -> Result<SimResult, SetupError> {
    let mut result = SimResult::default();
    let sink = |event: Event<'_>| {
        match event {
            Event::Trace { n, lines } => result.traces.push((n, lines.to_vec())),
            Event::Packet { ts_ns, port, data } => result.packets.push(OutPacket {
                ts_ns,
                port,
                data: data.to_vec(),
            }),
            Event::Transfer { ts_ns, transfer } => result.transfers.push((ts_ns, transfer)),
        }
        Ok::<(), std::convert::Infallible>(())
    };
    let summary =
        simulate_into(module, packets, entries, csrs, options, sink).map_err(|e| match e {
            StreamError::Setup(e) => e,
            StreamError::Sink(never) => match never {},
        })?;
    result.summary = summary;
    Ok(result)
}

/// [`simulate`], handing each trace, packet out and DMA transfer to `sink` as it happens instead
/// of keeping them: memory stays constant however long the capture. Stops at the first error of
/// the sink. Returns the totals.
pub fn simulate_into<'a, E>(
    module: &Module,
    packets: impl IntoIterator<Item = (u64, &'a [u8])>,
    entries: Option<&Entries>,
    csrs: &[(String, u64)],
    options: &SimOptions,
    sink: impl FnMut(Event<'_>) -> Result<(), E>,
) -> Result<Summary, StreamError<E>> {
    Simulation::new(module, entries, csrs, options)?.run(packets, sink)
}

/// [`simulate_into`] in two steps, for a caller that must know a capture will not be refused
/// before anything comes out of it: [`Simulation::new`] sets up (and reports the same errors),
/// [`Simulation::check_time`] finds a jump of time [`Simulation::run`] would stop at.
pub struct Simulation<'m> {
    module: &'m Module,
    sim: Sim<'m>,
    catch_up: CatchUp<'m>,
    /// The virtual time of the packets run so far (none before the first).
    now: Option<u64>,
    /// How many packets have been run.
    packets: usize,
}

impl<'m> Simulation<'m> {
    /// A machine for `module` with the scu picked, entries installed and CSRs set.
    pub fn new(
        module: &'m Module,
        entries: Option<&Entries>,
        csrs: &[(String, u64)],
        options: &SimOptions,
    ) -> Result<Self, SetupError> {
        Ok(Simulation {
            module,
            sim: Sim::new(module, entries, csrs, options)?,
            catch_up: CatchUp::new(module),
            now: None,
            packets: 0,
        })
    }

    /// The error [`Simulation::run`] would stop with at a jump of time in `timestamps` (the
    /// capture's, in order), found without running a packet. `largest_step` is theirs
    /// ([`LargestStep`]): when it is allowed, so is every step, and `timestamps` is not read.
    pub fn check_time(
        &self,
        largest_step: u64,
        timestamps: impl IntoIterator<Item = u64>,
    ) -> Result<(), SetupError> {
        if self.catch_up.excessive(0, largest_step).is_none() {
            return Ok(());
        }
        let mut now = None;
        for (n, ts) in timestamps.into_iter().enumerate() {
            advance(&self.catch_up, &mut now, n + 1, ts)?;
        }
        Ok(())
    }

    /// Runs the packets, handing what comes out to `sink` (see [`simulate_into`]).
    pub fn run<'a, E>(
        mut self,
        packets: impl IntoIterator<Item = (u64, &'a [u8])>,
        mut sink: impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<Summary, StreamError<E>> {
        for (ts, data) in packets {
            self.packet(ts, data, &mut sink)?;
        }
        Ok(self.finish())
    }

    /// Runs the capture's next packet, as [`Simulation::run`] does each: for a caller whose
    /// packets do not outlive the call (read piece by piece, `io::stream`).
    pub fn packet<E>(
        &mut self,
        ts: u64,
        data: &[u8],
        sink: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), StreamError<E>> {
        self.packets += 1;
        advance(&self.catch_up, &mut self.now, self.packets, ts)?;
        self.sim
            .packet(self.packets, ts, data, sink)
            .map_err(StreamError::Sink)
    }

    /// The totals, once every packet has run.
    pub fn finish(self) -> Summary {
        self.sim.finish(self.module)
    }
}

/// Moves the clock `now` to packet `n`'s timestamp `ts` (it never goes back), refusing a step that
/// would run too many periodic blocks.
fn advance(
    catch_up: &CatchUp<'_>,
    now: &mut Option<u64>,
    n: usize,
    ts: u64,
) -> Result<(), SetupError> {
    if let Some(from) = *now {
        if let Some((runs, what)) = catch_up.excessive(from, ts) {
            return Err(SetupError::TimeJump {
                at: format!(", at packet {n}"),
                from_ns: from,
                to_ns: ts,
                runs,
                what,
                limit: super::MAX_CATCH_UP_RUNS,
            });
        }
    }
    *now = Some(now.map_or(ts, |t| t.max(ts)));
    Ok(())
}

/// The largest step of virtual time in a capture's timestamps, fed one by one, the clock never
/// going back (as in [`Simulation::run`]): the runs of periodic blocks grow with the step, so
/// checking this one step checks them all.
#[derive(Clone, Copy, Debug, Default)]
pub struct LargestStep {
    now: Option<u64>,
    largest: u64,
}

impl LargestStep {
    /// The next timestamp.
    pub fn push(&mut self, ts: u64) {
        if let Some(now) = self.now {
            self.largest = self.largest.max(ts.saturating_sub(now));
        }
        self.now = Some(self.now.map_or(ts, |t| t.max(ts)));
    }

    /// The largest step so far.
    pub fn get(&self) -> u64 {
        self.largest
    }
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

/// One simulation's machine, totals and the buffers it reuses from packet to packet.
struct Sim<'m> {
    machine: Machine<'m>,
    scu: ScuId,
    attach: Attach,
    /// Whether packets go through the scu's control (slow-path scus, and stream scus with one).
    has_control: bool,
    /// Whether packets' payload goes through the scu's stream kernel.
    has_stream: bool,
    summary: Summary,
    tcp_sessions: TcpSessions,
    /// The last packet's outcome, whose buffers the next one reuses.
    outcome: PacketOutcome,
    /// The payload bytes a stream kernel passed on, and the packet rebuilt around them.
    passed: Vec<u8>,
    rebuilt: Vec<u8>,
}

impl<'m> Sim<'m> {
    /// A machine for `module` with the scu picked, entries installed and CSRs set.
    fn new(
        module: &'m Module,
        entries: Option<&Entries>,
        csrs: &[(String, u64)],
        options: &SimOptions,
    ) -> Result<Self, SetupError> {
        let mut machine = Machine::new(module);
        machine.trace = options.trace;
        let scu = setup::pick_scu(module, options.scu.as_deref())?;
        if let Some(entries) = entries {
            install(&mut machine, scu, entries)?;
        }
        for (name, value) in csrs {
            setup::set_csr(&mut machine, Some(scu), name, *value)?;
        }
        let def = &module.scus[scu];
        Ok(Sim {
            machine,
            scu,
            attach: def.attach,
            has_control: def.control.is_some() || def.attach == Attach::SlowPath,
            has_stream: def.stream.is_some(),
            summary: Summary::default(),
            tcp_sessions: TcpSessions::default(),
            outcome: PacketOutcome::default(),
            passed: Vec::new(),
            rebuilt: Vec::new(),
        })
    }

    fn packet<E>(
        &mut self,
        n: usize,
        ts: u64,
        data: &[u8],
        sink: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.summary.packets_in += 1;
        // The machine also logs every notification; the run counts them from each outcome
        // instead, so the log is emptied rather than left to grow with the capture.
        self.machine.notifications.clear();
        if self.has_control {
            let outcome = &mut self.outcome;
            self.machine
                .process_packet_into(self.scu, data, 0, ts, outcome);
            self.summary.notifications += outcome.notifications.len() as u64;
            if !outcome.trace.is_empty() {
                sink(Event::Trace {
                    n,
                    lines: &outcome.trace,
                })?;
            }
            match &outcome.dropped {
                Some(reason) => count_drop(&mut self.summary.dropped, reason),
                None => {
                    for (dest, bytes) in &outcome.outputs {
                        emit(&mut self.summary, sink, ts, port_of(dest), bytes)?;
                    }
                }
            }
        }
        if self.has_stream {
            self.stream(ts, data, sink)?;
        }
        Ok(())
    }

    fn stream<E>(
        &mut self,
        ts: u64,
        data: &[u8],
        sink: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let payload = match self.attach {
            Attach::Rdma => payload::roce_payload(data),
            Attach::Tcp => payload::tcp_payload(data, &mut self.tcp_sessions),
            Attach::SlowPath => None,
        };
        let Some(Payload { flow, range, last }) = payload else {
            return Ok(());
        };
        let bytes = &data[range.clone()];
        let words = bytes.len().div_ceil(64);
        self.passed.clear();
        for (i, chunk) in bytes.chunks(64).enumerate() {
            let (word, keep) = bytes_word(chunk);
            let is_last = last && i + 1 == words;
            let outcome = self
                .machine
                .process_word(self.scu, flow, &word, is_last, keep, ts);
            self.summary.words += 1;
            self.summary.notifications += outcome.notifications.len() as u64;
            for (w, k) in &outcome.passed {
                self.passed.extend(word_bytes(w, *k));
            }
            for transfer in outcome.transfers {
                self.summary.transfers += 1;
                sink(Event::Transfer {
                    ts_ns: ts,
                    transfer,
                })?;
            }
        }
        if self.passed.is_empty() {
            return Ok(());
        }
        self.rebuilt.clear();
        self.rebuilt.extend_from_slice(data);
        let end = (range.start + self.passed.len()).min(data.len());
        self.rebuilt[range.start..end].copy_from_slice(&self.passed[..end - range.start]);
        emit(&mut self.summary, sink, ts, PASS_PORT, &self.rebuilt)
    }

    fn finish(mut self, module: &Module) -> Summary {
        let def = &module.scus[self.scu];
        for c in def.counters.values() {
            for i in 0..c.size as usize {
                if let Some(cell) = self
                    .machine
                    .counter(self.scu, &c.name, i)
                    .filter(|c| c.packets + c.bytes > 0)
                {
                    self.summary
                        .counters
                        .push((c.name.clone(), i, cell.packets, cell.bytes));
                }
            }
        }
        for c in def.csrs.values() {
            if let Some(v) = self.machine.csr(self.scu, &c.name) {
                self.summary
                    .csrs
                    .push((c.name.clone(), format!("{}", v.to_biguint())));
            }
        }
        self.summary
    }
}

/// Counts a drop, allocating the reason's text only the first time it occurs.
fn count_drop(dropped: &mut BTreeMap<String, u64>, reason: &str) {
    match dropped.get_mut(reason) {
        Some(n) => *n += 1,
        None => {
            dropped.insert(reason.to_string(), 1);
        }
    }
}

/// Counts a packet out and hands it to the sink.
fn emit<E>(
    summary: &mut Summary,
    sink: &mut impl FnMut(Event<'_>) -> Result<(), E>,
    ts_ns: u64,
    port: u32,
    data: &[u8],
) -> Result<(), E> {
    *summary.out_per_port.entry(port).or_insert(0) += 1;
    sink(Event::Packet { ts_ns, port, data })
}

#[cfg(test)]
mod tests;
