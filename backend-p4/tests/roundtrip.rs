//! The round trip that proves the P4 output: DSL → IR → P4 (`write_p4`) → scenicc's own P4 reader
//! (`scenic_lower::p4`) → IR → interpreter, compared with the original IR's interpreter.
//!
//! Programs: every example the target expresses (l3_router must be among them, so the test cannot
//! pass by testing nothing), every `tests/in/*.sn` the target accepts (`csr_slices.sn`, CSRs written
//! in part, is v1model's only), and the P4 examples (`examples/p4/*.p4`, read by the P4 reader:
//! v1model written as Vitis Networking P4 and as v1model again; `basic_router.p4` must be among
//! them). For each program and each target:
//!
//! - the register file read back (names, types, initial values, access, offsets), the tables
//!   (names, keys) and the counters equal the original's;
//! - the program's STF file (`NAME.stf` beside it) runs unchanged on the P4-derived IR and every
//!   check passes (`check_csr` included: `@scenic_csr` makes CSRs CSRs again);
//! - 10,000 generated packets (ir/interp/tests/common: Ethernet with IPv4/IPv6/ARP, TCP/UDP, truncated
//!   anywhere; here also 802.1Q-tagged, one to three tags) with run-time table entries added, removed and cleared, default actions replaced,
//!   CSRs written and time moving, give byte-identical copies to the same destinations, and the
//!   final CSRs and counter cells are equal.
//!
//! A mismatch report names the program, target and packet (number, port, time, bytes), the first
//! differing copy and byte with the header field it belongs to, and the construct: the first line
//! where the two interpreters' traces part (a parser state, a table hit, an action, a drop).

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;
#[path = "../../ir/interp/tests/common/mod.rs"]
mod gen;

use scenic_backend_p4::Target;
use scenic_interp::{Destination, Machine};
use scenic_ir::{Module, ScuId};
use scenic_sim::device::Device;
use scenic_sim::port_of;
use std::time::Instant;

/// Generated packets per program and target.
const PACKETS: usize = 10_000;

/// A program of the round trip: its path from the repository root and its STF file, if any.
struct Case {
    source: String,
    stf: Option<String>,
}

/// Programs `target` accepts: examples and the backend's test programs (each with its STF file, if
/// one lies beside it), and P4 programs.
fn cases(target: Target) -> Vec<Case> {
    let mut out = Vec::new();
    for name in common::examples() {
        let source = format!("examples/{name}.sn");
        let stf = format!("examples/{name}.stf");
        let stf = common::root().join(&stf).exists().then_some(stf);
        out.push(Case { source, stf });
    }
    for source in files_in("backend-p4/tests/in", "sn") {
        let stf = source.replace(".sn", ".stf");
        let stf = common::root().join(&stf).exists().then_some(stf);
        out.push(Case { source, stf });
    }
    // P4 programs, read by the P4 reader: one target's P4 written as either target's.
    for source in files_in("examples/p4", "p4") {
        let stf = source.replace(".p4", ".stf");
        let stf = common::root().join(&stf).exists().then_some(stf);
        out.push(Case { source, stf });
    }
    out.retain(|c| {
        let (module, _) = common::lower(&c.source);
        common::emit(&module, target).is_ok()
    });
    out
}

/// The files of `dir` (from the repository root) ending in `.ext`, as paths from the root, sorted.
fn files_in(dir: &str, ext: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(common::root().join(dir))
        .expect(dir)
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter_map(|p| Some(format!("{dir}/{}", p.file_name()?.to_str()?)))
        .collect();
    files.sort();
    files
}

/// Reads P4 text back into the IR; panics with the rendered diagnostics if it cannot.
fn read_back(case: &Case, target: Target, p4: &str) -> Module {
    let stem = std::path::Path::new(&case.source)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (report, module) = scenic_lower::p4::compile_source(&format!("{stem}.p4"), p4);
    match module {
        Some(m) if report.error_count() == 0 => m,
        _ => panic!(
            "{} ({target}): the reader refuses the backend's P4:\n{}\n--- P4 ---\n{p4}",
            case.source,
            report.render_plain()
        ),
    }
}

/// The P4-derived IR declares what the host sees exactly as the original does.
fn same_declarations(label: &str, orig: &Module, back: &Module) {
    let a = orig.scus.values().next().unwrap();
    let b = back.scus.values().next().unwrap();
    let csrs = |m: &Module| {
        let info = scenic_ir::Validator::new().validate(m).expect("valid IR");
        let (sid, s) = m.scus.iter().next().unwrap();
        s.csrs
            .iter()
            .map(|(id, c)| (c.clone(), info.scus[sid].csrs[id].offset))
            .collect::<Vec<_>>()
    };
    assert_eq!(csrs(orig), csrs(back), "{label}: CSRs (with offsets)");
    let tables = |s: &scenic_ir::program::Scu| {
        let mut t: Vec<_> = s
            .tables
            .values()
            .map(|t| {
                let keys: Vec<_> = t.keys.iter().map(|k| (k.name.clone(), k.kind)).collect();
                (t.name.clone(), t.is_const, keys)
            })
            .collect();
        t.sort_by(|x, y| x.0.cmp(&y.0));
        t
    };
    assert_eq!(tables(a), tables(b), "{label}: tables");
    let counters = |s: &scenic_ir::program::Scu| {
        let mut c: Vec<_> = s
            .counters
            .values()
            .map(|c| (c.name.clone(), c.size))
            .collect();
        c.sort();
        c
    };
    assert_eq!(counters(a), counters(b), "{label}: counters");
}

/// The P4 name of an action: the IR's `no_action` is core.p4's `NoAction`.
fn p4_action(name: &str) -> &str {
    if name == "no_action" {
        "NoAction"
    } else {
        name
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where byte `k` of a packet lies, from the extractions in the original's trace.
fn locate(module: &Module, scu: ScuId, trace: &[String], k: usize) -> String {
    let def = &module.scus[scu];
    let mut at = 0usize;
    for line in trace {
        let Some(rest) = line.strip_prefix("extract ") else {
            continue;
        };
        let name = rest.split(' ').next().unwrap_or("");
        let Some(inst) = def.instances.values().find(|i| i.name == name) else {
            continue;
        };
        let layout = &module.headers[inst.header];
        let bytes = (layout.bits / 8) as usize;
        if k < at + bytes {
            let bit = ((k - at) * 8) as u32;
            let field = layout
                .fields
                .iter()
                .rev()
                .find(|f| f.offset <= bit)
                .map_or("?", |f| f.name.as_str());
            return format!("header `{name}` field `{field}`");
        }
        at += bytes;
    }
    format!("the payload (parsed headers end at byte {at})")
}

/// A device call's result in words (errors by message: the two modules' ids differ).
fn result<T: std::fmt::Debug>(r: Result<T, scenic_sim::device::DeviceError>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("error {e}"),
    }
}

/// The outputs as (STF port, bytes), in the order the program sent them.
type Copies = Vec<(u32, Vec<u8>)>;

fn copies(v: &[(Destination, Vec<u8>)]) -> Copies {
    v.iter().map(|(d, b)| (port_of(d), b.clone())).collect()
}

/// The first difference of two runs of one packet, in words.
fn first_difference(
    module: &Module,
    scu: ScuId,
    a: &Copies,
    b: &Copies,
    trace: &[String],
) -> String {
    if a.len() != b.len() {
        return format!("{} copies vs {}", a.len(), b.len());
    }
    for (i, ((pa, x), (pb, y))) in a.iter().zip(b).enumerate() {
        if pa != pb {
            return format!("copy {i} goes to port {pa} vs {pb}");
        }
        if let Some(k) = (0..x.len().max(y.len())).find(|k| x.get(*k) != y.get(*k)) {
            return format!(
                "copy {i} (port {pa}) byte {k}: expected {:?}, got {:?}, in {}",
                x.get(k),
                y.get(k),
                locate(module, scu, trace, k)
            );
        }
    }
    "none".into()
}

/// One packet in four gets 1 to 3 802.1Q tags after its MAC addresses (the shared generator has
/// none; tags reach the test programs' VLAN states and, past the stack's size, its overflow), with
/// VIDs the test tables match (100, 200) or random ones.
fn vlan_tagged(rng: &mut gen::Rng, mut data: Vec<u8>) -> Vec<u8> {
    if data.len() < 12 || !rng.chance(1, 4) {
        return data;
    }
    for _ in 0..=rng.below(3) {
        let vid = match rng.below(3) {
            0 => 100,
            1 => 200,
            _ => rng.below(4096) as u16,
        };
        let tci = ((rng.below(8) as u16) << 13) | vid;
        let [hi, lo] = tci.to_be_bytes();
        data.splice(12..12, [0x81, 0x00, hi, lo]);
    }
    data
}

/// The two interpreters of one program and target, fed the same inputs.
struct Run<'m> {
    label: String,
    orig: &'m Module,
    a: Machine<'m>,
    b: Machine<'m>,
    sa: ScuId,
    sb: ScuId,
    rng: gen::Rng,
    now: u64,
    handles: Vec<(String, u64, u64)>,
    table_ops: usize,
    csr_writes: usize,
    /// Parser states the original reached (from its traces).
    states: std::collections::BTreeSet<String>,
    mismatches: Vec<String>,
}

impl Run<'_> {
    /// Adds, removes or clears a run-time entry, or replaces a default action, on both.
    fn table_op(&mut self) {
        let def = &self.orig.scus[self.sa];
        let tables: Vec<_> = def.tables.values().filter(|t| !t.is_const).collect();
        if tables.is_empty() {
            return;
        }
        let table = self.rng.pick(&tables);
        self.table_ops += 1;
        let name = table.name.clone();
        // (what was done, its result on the original, on the P4-derived IR)
        let (what, ra, rb) = match self.rng.below(24) {
            0..=15 => {
                let (keys, action, args) = gen::table_entry(&mut self.rng, self.orig, def, table);
                let prio = self.rng.below(64);
                let a = Device::add_entry(&mut self.a, self.sa, &name, &keys, &action, &args, prio);
                let b = Device::add_entry(
                    &mut self.b,
                    self.sb,
                    &name,
                    &keys,
                    p4_action(&action),
                    &args,
                    prio,
                );
                if let (Ok(x), Ok(y)) = (&a, &b) {
                    self.handles.push((name.clone(), *x, *y));
                }
                let what = format!("add_entry {name} {keys:?} {action}{args:?} priority {prio}");
                (what, result(a.map(|_| ())), result(b.map(|_| ())))
            }
            16..=20 if !self.handles.is_empty() => {
                let i = self.rng.below(self.handles.len() as u64) as usize;
                let (t, x, y) = self.handles.swap_remove(i);
                let a = Device::remove_entry(&mut self.a, self.sa, &t, x);
                let b = Device::remove_entry(&mut self.b, self.sb, &t, y);
                (format!("remove_entry {t}"), result(a), result(b))
            }
            21 => {
                let (_, action, args) = gen::table_entry(&mut self.rng, self.orig, def, table);
                let a = Device::set_default(&mut self.a, self.sa, &name, &action, &args);
                let b = Device::set_default(&mut self.b, self.sb, &name, p4_action(&action), &args);
                (
                    format!("set_default {name} {action}{args:?}"),
                    result(a),
                    result(b),
                )
            }
            _ => {
                let a = Device::clear_entries(&mut self.a, self.sa, &name);
                let b = Device::clear_entries(&mut self.b, self.sb, &name);
                self.handles.retain(|(t, _, _)| *t != name);
                (format!("clear_entries {name}"), result(a), result(b))
            }
        };
        if ra != rb {
            let label = &self.label;
            self.mismatches
                .push(format!("{label}: {what}: original {ra}, P4-derived {rb}"));
        }
    }

    /// Writes a random value into a random CSR the host may write, on both.
    fn csr_write(&mut self) {
        let def = &self.orig.scus[self.sa];
        let writable: Vec<_> = def.csrs.values().filter(|c| !c.host_readonly).collect();
        if writable.is_empty() {
            return;
        }
        let csr = self.rng.pick(&writable);
        let width = scenic_interp::value::width_of(&csr.ty, self.orig);
        let value = self.rng.next_u64() & (u64::MAX >> (64 - width.min(64)));
        let a = Device::set_csr(&mut self.a, self.sa, &csr.name, value).unwrap();
        let b = Device::set_csr(&mut self.b, self.sb, &csr.name, value).unwrap();
        assert_eq!(a, b, "{}: set_csr {}", self.label, csr.name);
        self.csr_writes += 1;
    }

    fn packet(&mut self, index: usize) {
        let data = gen::packet(&mut self.rng);
        let data = vlan_tagged(&mut self.rng, data);
        let port = self.rng.below(4) as u8;
        let a = self.a.process_packet(self.sa, &data, port, self.now);
        let b = self.b.process_packet(self.sb, &data, port, self.now);
        let reached = a.trace.iter().filter_map(|l| l.strip_prefix("state "));
        self.states.extend(reached.map(str::to_string));
        let (x, y) = (copies(&a.outputs), copies(&b.outputs));
        if x == y {
            return;
        }
        let parted = a
            .trace
            .iter()
            .zip(&b.trace)
            .find(|(p, q)| p != q)
            .map_or("none: the same parser path, tables and actions, so the difference is in a computation writing that byte".to_string(), |(p, q)| {
                format!("original `{p}`, P4-derived `{q}`")
            });
        self.mismatches.push(format!(
            "{}: packet #{index} (port {port}, t={} ns, {} bytes): {}\n  first difference: {}\n  construct (first trace line that differs): {parted}\n  original trace: {}\n  P4-derived trace: {}",
            self.label,
            self.now,
            data.len(),
            hex(&data),
            first_difference(self.orig, self.sa, &x, &y, &a.trace),
            a.trace.join("; "),
            b.trace.join("; "),
        ));
    }

    /// Final CSRs and counter cells must agree.
    fn compare_state(&mut self) {
        let def = &self.orig.scus[self.sa];
        for csr in def.csrs.values() {
            let a = Device::csr(&mut self.a, self.sa, &csr.name).unwrap();
            let b = Device::csr(&mut self.b, self.sb, &csr.name).unwrap();
            if a != b {
                let label = &self.label;
                self.mismatches
                    .push(format!("{label}: final CSR {}: {a:?} vs {b:?}", csr.name));
            }
        }
        for counter in def.counters.values() {
            for i in 0..counter.size as usize {
                let a = Device::counter(&mut self.a, self.sa, &counter.name, i).unwrap();
                let b = Device::counter(&mut self.b, self.sb, &counter.name, i).unwrap();
                if a != b {
                    let label = &self.label;
                    self.mismatches.push(format!(
                        "{label}: final counter {}({i}): {a:?} vs {b:?}",
                        counter.name
                    ));
                }
            }
        }
    }
}

/// Generated packets through both interpreters; returns the number of packets run.
fn differential(label: String, orig: &Module, back: &Module, seed: u64) -> usize {
    let mut a = Machine::new(orig);
    let mut b = Machine::new(back);
    a.trace = true;
    b.trace = true;
    let mut run = Run {
        label,
        orig,
        a,
        b,
        sa: orig.scus.keys().next().unwrap(),
        sb: back.scus.keys().next().unwrap(),
        rng: gen::Rng::new(seed),
        now: 0,
        handles: Vec::new(),
        table_ops: 0,
        csr_writes: 0,
        states: Default::default(),
        mismatches: Vec::new(),
    };
    let mut count = 0;
    for i in 0..PACKETS {
        if run.rng.chance(1, 25) {
            run.table_op();
        }
        if run.rng.chance(1, 200) {
            run.csr_write();
        }
        run.now += match run.rng.below(100) {
            0 => 300_000 + run.rng.below(3_000_000),
            1..=9 => run.rng.below(20_000),
            _ => run.rng.below(40),
        };
        run.packet(i);
        count += 1;
        if run.mismatches.len() >= 5 {
            break;
        }
    }
    run.compare_state();
    let states = orig.scus[run.sa]
        .parser
        .as_ref()
        .map_or(0, |p| p.states.len());
    eprintln!(
        "{}: {count} packets, {} table operations, {} CSR writes, parser states reached {}/{states}, {} mismatches",
        run.label,
        run.table_ops,
        run.csr_writes,
        run.states.len(),
        run.mismatches.len()
    );
    assert!(run.mismatches.is_empty(), "{}", run.mismatches.join("\n\n"));
    count
}

/// One program on one target: declarations, STF, generated packets.
fn round_trip(case: &Case, target: Target, seed: u64) -> usize {
    let started = Instant::now();
    let label = format!("{} ({target})", case.source);
    let (orig, _) = common::lower(&case.source);
    let p4 = common::emit(&orig, target).expect("the target accepts the program");
    let back = read_back(case, target, &p4);
    scenic_ir::Validator::new()
        .validate(&back)
        .unwrap_or_else(|e| panic!("{label}: the P4-derived IR is not valid: {e:?}"));
    same_declarations(&label, &orig, &back);
    if let Some(stf) = &case.stf {
        let text = std::fs::read_to_string(common::root().join(stf)).expect("STF file");
        let report = scenic_sim::stf::run_text(&back, &text, None);
        let failures: Vec<String> = report
            .failures
            .iter()
            .map(|f| format!("  {stf}:{}:{}: {}", f.pos.line, f.pos.column, f.message))
            .collect();
        assert!(
            report.ok(),
            "{label}: {stf} on the P4-derived IR: {} passed, {} failed:\n{}",
            report.passed,
            failures.len(),
            failures.join("\n")
        );
        eprintln!("{label}: {stf}: {} checks pass", report.passed);
    }
    let n = differential(label.clone(), &orig, &back, seed);
    eprintln!("{label}: {:.1} s", started.elapsed().as_secs_f64());
    n
}

fn all_cases(target: Target, seed: u64) {
    let cases = cases(target);
    let mut required = vec!["examples/l3_router.sn", "examples/p4/basic_router.p4"];
    if target == Target::V1Model {
        // CSRs written in part: registers on v1model (Vitis refuses written CSRs).
        required.push("backend-p4/tests/in/csr_slices.sn");
    }
    for required in required {
        assert!(
            cases.iter().any(|c| c.source == required),
            "{required} must be among the round-trip programs"
        );
    }
    let mut total = 0;
    for (i, case) in cases.iter().enumerate() {
        total += round_trip(case, target, seed + i as u64);
    }
    let names: Vec<&str> = cases.iter().map(|c| c.source.as_str()).collect();
    eprintln!("{target}: {total} packets over {names:?}, 0 mismatches");
    assert!(total >= PACKETS * cases.len());
}

#[test]
fn v1model_round_trip() {
    all_cases(Target::V1Model, 0x9401_0000);
}

#[test]
fn vitis_p4_round_trip() {
    all_cases(Target::VitisP4, 0x9402_0000);
}
