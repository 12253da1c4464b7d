//! Running STF tests (`docs/testing.md`) on the interpreter.
//!
//! Packets are processed as they are injected, at the current virtual time. Expectations are
//! collected per port and checked, in order, at every bare `wait` and at the end: each expected
//! packet must match the next packet out of its port, and a packet with no expectation is a failure
//! (as in p4c). `expect_dma` works the same way on the words pushed to an output. Every expectation
//! and every check counts as one test; the report lists each failure with its line and column.

mod host;

use super::device::{Device, WordOutput};
use super::payload::{self, Payload, TcpSessions};
use super::setup::{self, SetupError};
use super::{port_of, PASS_PORT};
use scenic_interp::cc::CcEvent;
use scenic_interp::stream::bytes_word;
use scenic_interp::Machine;
use scenic_io::stf::{
    self, CmpOp, Command, CommandKind, Count, CounterIndex, ExpectPattern, Pos, Removal,
};
use scenic_ir::entities::{CcId, ScuId};
use scenic_ir::program::{Attach, Module};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// A failed expectation or check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Where it is in the STF file.
    pub pos: Pos,
    /// What went wrong.
    pub message: String,
}

/// The outcome of one STF file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StfReport {
    /// Expectations and checks that held.
    pub passed: usize,
    /// Those that did not.
    pub failures: Vec<Failure>,
}

impl StfReport {
    /// Whether everything held.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Runs STF `commands` on a fresh interpreter for `module`; packets go to scu `scu` (the first if
/// `None`).
pub fn run(module: &Module, commands: &[Command], scu: Option<&str>) -> StfReport {
    let mut machine = Machine::new(module);
    run_on(&mut machine, commands, scu)
}

/// Runs STF `commands` on `device`, which must be fresh (as loaded, at time 0); packets go to scu
/// `scu` (the first if `None`). A device error fails the command that met it and the run goes on.
pub fn run_on(device: &mut dyn Device, commands: &[Command], scu: Option<&str>) -> StfReport {
    let mut report = StfReport::default();
    // A test's clock starts at 0 (docs/testing.md): without this the device would start its
    // `every` periods at the first time the test names, e.g. `time 1500us`.
    if let Err(err) = device.advance_time(0) {
        report.failures.push(Failure {
            pos: Pos { line: 1, column: 1 },
            message: err.to_string(),
        });
        return report;
    }
    let mut runner = Runner {
        scu: setup::pick_scu(device.module(), scu).ok(),
        device,
        now: 0,
        expected: BTreeMap::new(),
        received: BTreeMap::new(),
        dma_expected: BTreeMap::new(),
        dma_received: BTreeMap::new(),
        tcp_sessions: TcpSessions::default(),
        handles: HashMap::new(),
        notify: Default::default(),
        report,
    };
    for c in commands {
        if let CommandKind::ExpectNotify { to_arm, .. } = c.kind {
            runner.notify[usize::from(to_arm)].strict = true;
        }
    }
    for command in commands {
        runner.command(command);
    }
    let end = Pos {
        line: commands.last().map_or(1, |c| c.pos.line),
        column: 1,
    };
    let failed_before = runner.report.failures.len();
    runner.settle(end);
    if !commands.iter().any(|c| checks(&c.kind)) {
        if commands.iter().any(|c| sends(&c.kind)) {
            // p4c's meaning of a file that only sends: nothing may come out (every output is
            // compared with the expectations, here none), and that is one check.
            if runner.report.failures.len() == failed_before {
                runner.report.passed += 1;
            }
        } else {
            runner.fail(
                end,
                "the file tests nothing: it sends nothing and has no expect, expect_dma, \
                 no_packet or check command",
            );
        }
    }
    runner.report
}

/// Whether a command sends an input whose outputs are compared with the expectations.
fn sends(kind: &CommandKind) -> bool {
    matches!(kind, CommandKind::Packet { .. } | CommandKind::Words { .. })
}

/// Whether a command states an expectation (a file without one tests nothing).
fn checks(kind: &CommandKind) -> bool {
    match kind {
        CommandKind::Expect { .. }
        | CommandKind::ExpectDma { .. }
        | CommandKind::NoPacket
        | CommandKind::CheckCounter(_)
        | CommandKind::CheckRate { .. }
        | CommandKind::CheckWindow { .. }
        | CommandKind::CheckCsr { .. }
        | CommandKind::ExpectNotify { .. }
        | CommandKind::CheckMap { .. } => true,
        CommandKind::Packet { .. }
        | CommandKind::Add(_)
        | CommandKind::SetDefault { .. }
        | CommandKind::Remove(_)
        | CommandKind::Wait
        | CommandKind::Time { .. }
        | CommandKind::Advance { .. }
        | CommandKind::Event { .. }
        | CommandKind::SetCsr { .. }
        | CommandKind::Words { .. }
        | CommandKind::MapWrite { .. } => false,
    }
}

/// `flow` as the attach binding of `scu`'s stream (language.md §4.16: an `rdma(qp)` queue pair is
/// `bit<24>`, a `tcp(flow)` session `bit<16>`), or why words cannot go to it.
fn stream_flow(scu: &scenic_ir::program::Scu, flow: u64) -> Result<(), String> {
    let bits = match scu.attach {
        scenic_ir::program::Attach::Rdma => 24,
        scenic_ir::program::Attach::Tcp => 16,
        scenic_ir::program::Attach::SlowPath => {
            return Err(format!(
                "scu `{}` is on slow_path: words need an rdma or tcp scu with a stream",
                scu.name
            ))
        }
    };
    if scu.stream.is_none() {
        return Err(format!("scu `{}` has no stream to take words", scu.name));
    }
    if flow >> bits != 0 {
        let what = if bits == 24 { "queue pair" } else { "session" };
        return Err(format!(
            "{what} {flow} does not exist: scu `{}` numbers them with {bits} bits",
            scu.name
        ));
    }
    Ok(())
}

/// Parses and runs an STF file's text on the interpreter; a file with syntax errors does not run,
/// and every error is one failure at its line.
pub fn run_text(module: &Module, text: &str, scu: Option<&str>) -> StfReport {
    match parse_report(text) {
        Ok(commands) => run(module, &commands, scu),
        Err(report) => report,
    }
}

/// Parses an STF file; on syntax errors, a report with one failure per error (all of them, not only
/// the first, so one run shows every mistake).
pub fn parse_report(text: &str) -> Result<Vec<Command>, StfReport> {
    let (commands, errors) = stf::parse_all(text);
    if errors.is_empty() {
        return Ok(commands);
    }
    Err(StfReport {
        passed: 0,
        failures: errors
            .iter()
            .map(|err| Failure {
                pos: err.pos(),
                message: without_position(err.to_string()),
            })
            .collect(),
    })
}

/// A syntax error's message without its leading `line L, column C: `: a failure carries its
/// position apart (`Failure::pos`), and whoever prints it puts the position first, once.
fn without_position(message: String) -> String {
    match message.split_once(": ") {
        Some((at, rest)) if at.starts_with("line ") && at.contains(", column ") => rest.to_string(),
        _ => message,
    }
}

type Queue<T> = BTreeMap<T, VecDeque<(ExpectPattern, Pos)>>;

struct Runner<'a> {
    device: &'a mut dyn Device,
    scu: Option<ScuId>,
    now: u64,
    expected: Queue<u32>,
    received: BTreeMap<u32, VecDeque<Vec<u8>>>,
    dma_expected: Queue<(String, usize)>,
    dma_received: BTreeMap<(String, usize), VecDeque<Vec<u8>>>,
    handles: HashMap<String, (String, u64)>,
    /// TCP connections numbered as `scenicc sim` numbers them (`packet` to a `tcp` scu).
    tcp_sessions: TcpSessions,
    /// Notifications to the host (0) and the Arm cores (1), and their expectations.
    notify: [host::NotifyQueue; 2],
    report: StfReport,
}

impl Runner<'_> {
    fn fail(&mut self, pos: Pos, message: impl Into<String>) {
        self.report.failures.push(Failure {
            pos,
            message: message.into(),
        });
    }

    fn check(&mut self, pos: Pos, ok: bool, message: impl FnOnce() -> String) {
        if ok {
            self.report.passed += 1;
        } else {
            self.fail(pos, message());
        }
    }

    fn setup(&mut self, pos: Pos, result: Result<(), SetupError>) {
        if let Err(err) = result {
            self.fail(pos, err.to_string());
        }
    }

    fn command(&mut self, command: &Command) {
        let pos = command.pos;
        match &command.kind {
            CommandKind::Packet { port, data } => self.packet(pos, *port, data),
            CommandKind::Expect { port, pattern } => self
                .expected
                .entry(*port)
                .or_default()
                .push_back((pattern.clone(), pos)),
            CommandKind::NoPacket => {}
            CommandKind::Add(add) => self.add(pos, add),
            CommandKind::SetDefault { table, action } => {
                let result = self
                    .scu_or(pos)
                    .and_then(|scu| setup::set_default(self.device, scu, table, action));
                self.setup(pos, result);
            }
            CommandKind::Remove(removal) => self.remove(pos, removal),
            CommandKind::CheckCounter(c) => self.check_counter(pos, c),
            CommandKind::Wait => self.settle(pos),
            CommandKind::Time { ns } => self.set_time(pos, *ns),
            CommandKind::Advance { ns } => {
                let to = self.now.saturating_add(*ns);
                self.set_time(pos, to);
            }
            CommandKind::Event { cc, flow, event } => self.event(pos, cc, *flow, *event),
            CommandKind::CheckRate { cc, flow, op, bps } => {
                self.check_output(pos, cc, *flow, *op, *bps, "rate")
            }
            CommandKind::CheckWindow {
                cc,
                flow,
                op,
                bytes,
            } => self.check_output(pos, cc, *flow, *op, *bytes, "window"),
            CommandKind::SetCsr { name, value } => {
                let result = setup::set_csr(self.device, self.scu, name, *value);
                self.setup(pos, result);
            }
            CommandKind::CheckCsr { name, op, value } => self.check_csr(pos, name, *op, *value),
            CommandKind::Words { flow, data } => self.words(pos, *flow, data),
            CommandKind::ExpectDma {
                out,
                index,
                pattern,
            } => {
                self.dma_expected
                    .entry((out.clone(), index.unwrap_or(0) as usize))
                    .or_default()
                    .push_back((pattern.clone(), pos));
            }
            CommandKind::ExpectNotify {
                to_arm,
                value,
                from,
            } => self.expect_notify(pos, *to_arm, *value, from),
            CommandKind::MapWrite { map, key, value } => self.map_write(pos, map, *key, *value),
            CommandKind::CheckMap { map, key, check } => self.check_map(pos, map, *key, *check),
        }
    }

    fn scu_or(&self, _pos: Pos) -> Result<ScuId, SetupError> {
        self.scu
            .ok_or_else(|| SetupError::NoScu("to send packets to".into()))
    }

    fn set_time(&mut self, pos: Pos, to: u64) {
        if to < self.now {
            self.fail(
                pos,
                format!(
                    "time {to} ns is earlier than the current time {} ns",
                    self.now
                ),
            );
            return;
        }
        if let Some((runs, what)) = super::excessive_catch_up(self.device.module(), self.now, to) {
            let err = SetupError::TimeJump {
                at: String::new(),
                from_ns: self.now,
                to_ns: to,
                runs,
                what,
                limit: super::MAX_CATCH_UP_RUNS,
            };
            return self.fail(pos, err.to_string());
        }
        self.now = to;
        if let Err(err) = self.device.advance_time(to) {
            self.fail(pos, err.to_string());
        }
    }

    fn packet(&mut self, pos: Pos, port: u32, data: &[u8]) {
        let Some(scu) = self.scu else {
            return self.fail(pos, "the program has no scu to send packets to");
        };
        let Ok(port) = u8::try_from(port) else {
            return self.fail(
                pos,
                format!("port {port} does not exist: ports are 0 to 255"),
            );
        };
        // As `scenicc sim` feeds a capture (docs/testing.md, "How rdma and tcp scus are fed"): the
        // per-packet code sees the packet, and an rdma or tcp scu's stream kernel its payload.
        let def = &self.device.module().scus[scu];
        let has_control = def.control.is_some() || def.attach == Attach::SlowPath;
        let (attach, has_stream) = (def.attach, def.stream.is_some());
        if has_control {
            let outputs = match self.device.packet(scu, data, port, self.now) {
                Ok(outputs) => outputs,
                Err(err) => return self.fail(pos, err.to_string()),
            };
            for (dest, bytes) in outputs {
                self.received
                    .entry(port_of(&dest))
                    .or_default()
                    .push_back(bytes);
            }
        }
        if has_stream {
            self.packet_payload(pos, scu, attach, data);
        }
    }

    /// The payload of a packet to an rdma or tcp scu, fed to its stream kernel word by word; what
    /// the kernel passes on replaces the payload, and the packet leaves on the pass port.
    fn packet_payload(&mut self, pos: Pos, scu: ScuId, attach: Attach, data: &[u8]) {
        let found = match attach {
            Attach::Rdma => payload::roce_payload(data),
            Attach::Tcp => payload::tcp_payload(data, &mut self.tcp_sessions),
            Attach::SlowPath => None,
        };
        let Some(Payload { flow, range, last }) = found else {
            return;
        };
        let bytes = data.get(range.clone()).unwrap_or_default();
        let words = bytes.len().div_ceil(64);
        let mut passed = Vec::new();
        for (i, chunk) in bytes.chunks(64).enumerate() {
            let (word, keep) = bytes_word(chunk);
            let is_last = last && i + 1 == words;
            match self.device.word(scu, flow, &word, keep, is_last, self.now) {
                Ok(output) => self.take_word_output(output, &mut passed),
                Err(err) => return self.fail(pos, err.to_string()),
            }
        }
        if passed.is_empty() {
            return;
        }
        let mut rebuilt = data.to_vec();
        let end = (range.start + passed.len()).min(data.len());
        if let (Some(out), Some(from)) = (
            rebuilt.get_mut(range.start..end),
            passed.get(..end - range.start),
        ) {
            out.copy_from_slice(from);
        }
        self.received
            .entry(PASS_PORT)
            .or_default()
            .push_back(rebuilt);
    }

    /// Keeps the words a kernel passed on (appended to `passed`) and queues the ones it pushed.
    fn take_word_output(&mut self, output: WordOutput, passed: &mut Vec<u8>) {
        for bytes in output.passed {
            passed.extend(bytes);
        }
        for (out, index, bytes) in output.pushed {
            self.dma_received
                .entry((out, index))
                .or_default()
                .push_back(bytes);
        }
    }

    fn words(&mut self, pos: Pos, flow: u64, data: &[u8]) {
        let Some(scu) = self.scu else {
            return self.fail(pos, "the program has no scu to send words to");
        };
        if let Err(message) = stream_flow(&self.device.module().scus[scu], flow) {
            return self.fail(pos, message);
        }
        let chunks: Vec<&[u8]> = stf::message_words(data).collect();
        let mut passed = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let (word, keep) = bytes_word(chunk);
            let last = i + 1 == chunks.len();
            match self.device.word(scu, flow, &word, keep, last, self.now) {
                Ok(output) => self.take_word_output(output, &mut passed),
                Err(err) => return self.fail(pos, err.to_string()),
            }
        }
        if !passed.is_empty() {
            self.received
                .entry(PASS_PORT)
                .or_default()
                .push_back(passed);
        }
    }

    /// Matches expectations against what came out, per port and per output.
    fn settle(&mut self, at: Pos) {
        let expected = std::mem::take(&mut self.expected);
        let mut received = std::mem::take(&mut self.received);
        for (port, queue) in expected {
            let got = received.entry(port).or_default();
            for (pattern, pos) in queue {
                self.match_one(pos, &pattern, got.pop_front(), &format!("port {port}"));
            }
        }
        for (port, rest) in received {
            for bytes in rest {
                self.fail(
                    at,
                    format!("unexpected packet on port {port}: {}", hex(&bytes)),
                );
            }
        }
        let expected = std::mem::take(&mut self.dma_expected);
        let mut received = std::mem::take(&mut self.dma_received);
        for (key, queue) in expected {
            let got = received.entry(key.clone()).or_default();
            for (pattern, pos) in queue {
                self.match_one(
                    pos,
                    &pattern,
                    got.pop_front(),
                    &format!("output {}[{}]", key.0, key.1),
                );
            }
        }
        for ((out, index), rest) in received {
            for bytes in rest {
                self.fail(
                    at,
                    format!(
                        "unexpected word pushed to output {out}[{index}]: {}",
                        hex(&bytes)
                    ),
                );
            }
        }
        self.settle_notifications(at);
    }

    fn match_one(&mut self, pos: Pos, pattern: &ExpectPattern, got: Option<Vec<u8>>, place: &str) {
        match got {
            None => self.fail(pos, format!("expected a packet on {place}, none came")),
            Some(bytes) => match stf::matches(pattern, &bytes) {
                Ok(()) => self.report.passed += 1,
                Err(mismatch) => {
                    self.fail(pos, format!("{place}: {mismatch}; got {}", hex(&bytes)))
                }
            },
        }
    }

    fn add(&mut self, pos: Pos, add: &stf::AddEntry) {
        let priority = u64::from(add.priority.unwrap_or(0));
        let result = self.scu_or(pos).and_then(|scu| {
            setup::add_entry(
                self.device,
                scu,
                &add.table,
                &add.keys,
                &add.action,
                priority,
            )
        });
        match result {
            Ok(handle) => {
                if let Some(id) = &add.id {
                    self.handles.insert(id.clone(), (add.table.clone(), handle));
                }
            }
            Err(err) => self.fail(pos, err.to_string()),
        }
    }

    fn remove(&mut self, pos: Pos, removal: &Removal) {
        let Some(scu) = self.scu else { return };
        let result = match removal {
            Removal::Everything => {
                let tables: Vec<String> = self.device.module().scus[scu]
                    .tables
                    .values()
                    .map(|t| t.name.clone())
                    .collect();
                tables
                    .iter()
                    .try_for_each(|t| self.device.clear_entries(scu, t).map(drop))
            }
            Removal::Table(t) => match self.device.clear_entries(scu, t) {
                Ok(false) => return self.fail(pos, format!("no table named `{t}`")),
                other => other.map(drop),
            },
            Removal::Entry { table, id } => match self.handles.get(id).cloned() {
                Some((t, handle)) if t == *table => {
                    self.device.remove_entry(scu, table, handle).map(drop)
                }
                _ => return self.fail(pos, format!("no entry `{id}` was added to `{table}`")),
            },
        };
        if let Err(err) = result {
            self.fail(pos, err.to_string());
        }
    }

    fn check_counter(&mut self, pos: Pos, c: &stf::CounterCheck) {
        let Some(scu) = self.scu else { return };
        let index = match &c.index {
            CounterIndex::Index(i) => *i as usize,
            CounterIndex::Entry(id) => {
                return self.fail(
                    pos,
                    format!("counters are indexed by cell, not by entry (`${id}`)"),
                );
            }
        };
        let cell = match self.device.counter(scu, &c.name, index) {
            Ok(Some(cell)) => cell,
            Ok(None) => return self.fail(pos, format!("no counter cell `{}({index})`", c.name)),
            Err(err) => return self.fail(pos, err.to_string()),
        };
        let Some((count, op, expected)) = c.compare else {
            self.report.passed += 1;
            return;
        };
        let (actual, what) = match count {
            Count::Packets => (cell.packets, "packets"),
            Count::Bytes => (cell.bytes, "bytes"),
        };
        self.check(pos, op.holds(&actual, &expected), || {
            format!(
                "counter {}({index}) {what} is {actual}, expected {} {expected}",
                c.name,
                op.as_str()
            )
        });
    }

    fn cc(&mut self, pos: Pos, name: &str) -> Option<CcId> {
        let id = self
            .device
            .module()
            .ccs
            .iter()
            .find(|(_, c)| c.name == name)
            .map(|(id, _)| id);
        if id.is_none() {
            self.fail(pos, SetupError::NoCc(name.into()).to_string());
        }
        id
    }

    fn event(&mut self, pos: Pos, cc: &str, flow: u64, event: stf::CcEvent) {
        let Some(id) = self.cc(pos, cc) else { return };
        let event = match event {
            stf::CcEvent::Ack { bytes, ecn } => CcEvent::Ack { bytes, ecn },
            stf::CcEvent::Cnp => CcEvent::Cnp,
            stf::CcEvent::Ecn => CcEvent::Ecn,
            stf::CcEvent::Loss => CcEvent::Loss,
            stf::CcEvent::Timeout => CcEvent::Timeout,
            stf::CcEvent::Rtt { sample_ns } => CcEvent::Rtt(sample_ns),
            stf::CcEvent::Sent { bytes } => CcEvent::Sent(bytes),
            stf::CcEvent::Int(hop) => CcEvent::Int(hop),
        };
        if let Err(err) = self.device.cc_event(id, flow, event, self.now) {
            self.fail(pos, err.to_string());
        }
    }

    fn check_output(
        &mut self,
        pos: Pos,
        cc: &str,
        flow: u64,
        op: CmpOp,
        expected: u64,
        what: &str,
    ) {
        let Some(id) = self.cc(pos, cc) else { return };
        // A window in bytes compared with a rate in bit/s (or the reverse) is never meaningful.
        let kind = self.device.module().ccs.get(id).map(|c| c.output.0);
        let declared = match kind {
            Some(scenic_ir::program::OutputKind::Rate) => "rate",
            Some(scenic_ir::program::OutputKind::Window) => "window",
            None => what,
        };
        if declared != what {
            let other = if declared == "rate" {
                "check_rate"
            } else {
                "check_window"
            };
            return self.fail(
                pos,
                format!("`{cc}` outputs a {declared}, not a {what}: use `{other}`"),
            );
        }
        let actual = match self.device.cc_output(id, flow) {
            Ok(actual) => actual,
            Err(err) => return self.fail(pos, err.to_string()),
        };
        self.check(
            pos,
            actual.is_some_and(|a| op.holds(&a, &expected)),
            || match actual {
                Some(a) => format!(
                    "{cc} flow {flow}: {what} is {a}, expected {} {expected}",
                    op.as_str()
                ),
                None => format!("{cc} has seen no event for flow {flow}"),
            },
        );
    }

    fn check_csr(&mut self, pos: Pos, name: &str, op: CmpOp, expected: u64) {
        match setup::csr(self.device, self.scu, name) {
            Ok(actual) => self.check(pos, op.holds(&actual, &expected), || {
                format!(
                    "CSR {name} is {actual}, expected {} {expected}",
                    op.as_str()
                )
            }),
            Err(err) => self.fail(pos, err.to_string()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
