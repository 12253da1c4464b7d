//! The differential proof for congestion controllers: for each cc example (hpcc.sn's `on int` in
//! fixed point among them) and test programs using every handler kind (`tests/programs/cc_features.sn`),
//! 10,000 generated events — acks (with and without ECN echo, of 0 bytes to several MiB), CNPs, ECN
//! marks, losses, timeouts, RTT samples, INT hops (hop numbers in and out of range, queues, counters,
//! times and rates), bytes sent (driving byte counters, several periods at once), time steps that
//! land on, between and far past timer periods, and host param writes — over 128 flows per cc, run
//! through the interpreter and through the C-simulated kernel. After every event the flow's rate or
//! window must be equal; every 500 events and at the end, every flow's output and every param, and
//! each cc's notifications in order. A mismatch report names the event number, the event, the
//! flow, the expected (interpreter) and actual (kernel) value, and the handler that ran. Skips (with
//! the reason) when `AP_TYPES` is unset outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_hls_csim::CsimDevice;
use scenic_interp::cc::CcEvent;
use scenic_interp::Machine;
use scenic_ir::entities::CcId;
use scenic_ir::program::{Event, IntHop};
use scenic_sim::device::Device;
use std::path::Path;

const EVENTS: usize = 10_000;

/// xorshift64*: deterministic, seedable, enough for test generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

fn load_path(path: &Path) -> (scenic_ir::Module, scenic_ir::ModuleInfo) {
    let mut session = scenic_frontend::Session::new();
    session.add_path(path).expect("program loads");
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("program validates");
    (module, info)
}

/// What one generated step does.
#[derive(Clone, Copy, Debug)]
enum Step {
    Signal(CcId, u64, CcEvent),
    Tick,
    Param(usize, usize, u64),
}

struct Run<'m> {
    module: &'m scenic_ir::Module,
    interp: Machine<'m>,
    csim: CsimDevice<'m>,
    rng: Rng,
    now: u64,
    flows: Vec<Vec<u64>>,
    mismatches: Vec<String>,
    counts: std::collections::BTreeMap<&'static str, usize>,
    notes: usize,
}

/// The handler an event runs, for reports.
fn handler_name(module: &scenic_ir::Module, cc: CcId, event: CcEvent) -> String {
    let def = &module.ccs[cc];
    let kind = match event {
        CcEvent::Ack { .. } => Event::Ack,
        CcEvent::Cnp => Event::Cnp,
        CcEvent::Ecn => Event::Ecn,
        CcEvent::Loss => Event::Loss,
        CcEvent::Timeout => Event::Timeout,
        CcEvent::Rtt(_) => Event::Rtt,
        CcEvent::Int(_) => Event::Int,
        CcEvent::Sent(_) => {
            return "the byte counters' handlers (`on bytes`), after the timers due".into()
        }
    };
    if def.handlers.iter().any(|h| h.event == kind) {
        format!(
            "`{}`, after the timers due",
            scenic_backend_hls::writer::cc::handler_part(def, kind)
        )
    } else {
        "no handler, only the timers due".into()
    }
}

impl Run<'_> {
    /// One hop of INT: hop numbers in and out of a 4-entry per-hop array's range, queues from
    /// empty to several MB, counters and times anywhere in 64 bits, rates up to 400 Gb/s.
    fn int_hop(&mut self) -> IntHop {
        let hops = 1 + self.rng.below(5) as u8;
        IntHop {
            hop: match self.rng.below(8) {
                0 => self.rng.below(256) as u8,
                _ => self.rng.below(u64::from(hops)) as u8,
            },
            hops,
            qlen: match self.rng.below(3) {
                0 => 0,
                1 => self.rng.below(100_000),
                _ => self.rng.below(8_000_000),
            },
            tx_bytes: self.rng.next(),
            ts_ns: match self.rng.below(2) {
                0 => self.now,
                _ => self.rng.next(),
            },
            rate_bps: match self.rng.below(3) {
                0 => 0,
                1 => 200_000_000_000,
                _ => self.rng.below(400_000_000_001),
            },
        }
    }

    fn pick_event(&mut self) -> (CcEvent, &'static str) {
        match self.rng.below(100) {
            0..=34 => {
                let bytes = match self.rng.below(6) {
                    0 => 0,
                    1 => self.rng.below(1 << 22),
                    2 => 1 << 20,
                    _ => 1 + self.rng.below(65536),
                };
                let ecn = self.rng.below(8) == 0;
                (CcEvent::Ack { bytes, ecn }, "ack")
            }
            35..=49 => (CcEvent::Cnp, "cnp"),
            50..=57 => (CcEvent::Ecn, "ecn"),
            58..=64 => (CcEvent::Loss, "loss"),
            65..=69 => (CcEvent::Timeout, "timeout"),
            70..=74 => (CcEvent::Rtt(self.rng.below(2_000_000)), "rtt"),
            75..=82 => (CcEvent::Int(self.int_hop()), "int"),
            _ => {
                let bytes = match self.rng.below(4) {
                    0 => self.rng.below(40_000_000),
                    _ => self.rng.below(4_000_000),
                };
                (CcEvent::Sent(bytes), "sent")
            }
        }
    }

    /// Time moves forward: mostly a little, sometimes onto a 5 us grid (ties with timers of
    /// round periods), sometimes far (timers catch up on many periods).
    fn step_time(&mut self) {
        self.now += match self.rng.below(200) {
            0..=119 => self.rng.below(20_000),
            120..=159 => 0,
            160..=189 => 5_000 - self.now % 5_000,
            190..=198 => self.rng.below(300_000),
            _ => self.rng.below(3_000_000),
        };
    }

    fn step(&mut self) -> Step {
        self.step_time();
        let ccs: Vec<CcId> = self.module.ccs.keys().collect();
        let cc = ccs[self.rng.below(ccs.len() as u64) as usize];
        match self.rng.below(100) {
            0..=2 => {
                let def = &self.module.ccs[cc];
                if def.params.is_empty() {
                    return Step::Tick;
                }
                let p = self.rng.below(def.params.len() as u64) as usize;
                let (_, param) = def.params.iter().nth(p).expect("param");
                let width = scenic_interp::value::width_of(&param.ty, self.module);
                let value = match self.rng.below(3) {
                    0 => self.rng.next(),
                    _ => {
                        let d = scenic_scu_abi::control::to_u64(&param.default.0);
                        d / 2 + self.rng.below(d.max(1) * 2)
                    }
                };
                let value = if width >= 64 {
                    value
                } else {
                    value & ((1 << width) - 1)
                };
                Step::Param(cc.index(), p, value)
            }
            3..=4 => Step::Tick,
            _ => {
                let flows = &self.flows[cc.index()];
                let flow = flows[self.rng.below(flows.len() as u64) as usize];
                let (event, name) = self.pick_event();
                *self.counts.entry(name).or_default() += 1;
                Step::Signal(cc, flow, event)
            }
        }
    }

    fn compare_flow(&mut self, n: usize, cc: CcId, flow: u64, what: &str) {
        let a = Device::cc_output(&mut self.interp, cc, flow).expect("interp");
        let b = self.csim.cc_output(cc, flow).expect("csim");
        if a != b && self.mismatches.len() < 20 {
            self.mismatches.push(format!(
                "event {n} ({what}) at {} ns: cc `{}` flow {flow}: expected {a:?} (interpreter), \
                 got {b:?} (C-sim)",
                self.now, self.module.ccs[cc].name
            ));
        }
    }

    /// Each cc's notifications: the same values, in the same order (only event handlers notify
    /// in these programs, so the order is the signals').
    fn compare_notes(&mut self) -> usize {
        let mut total = 0;
        for def in self.module.ccs.values() {
            let expected: Vec<(bool, u32)> = self
                .interp
                .notifications
                .iter()
                .filter(|n| *n.source == *def.name)
                .map(|n| (n.to_arm, n.value))
                .collect();
            let actual: Vec<(bool, u32)> = self
                .csim
                .cc_notifications(&def.name)
                .iter()
                .map(|n| (n.to_arm, n.value))
                .collect();
            total += expected.len();
            if expected != actual {
                let first = expected
                    .iter()
                    .zip(&actual)
                    .position(|(a, b)| a != b)
                    .unwrap_or(expected.len().min(actual.len()));
                self.mismatches.push(format!(
                    "cc `{}`: {} notifications expected, {} raised; first difference at #{first}: \
                     expected {:?}, got {:?}",
                    def.name,
                    expected.len(),
                    actual.len(),
                    expected.get(first),
                    actual.get(first)
                ));
            }
        }
        total
    }

    fn compare_all(&mut self, n: usize) {
        for (cc, def) in self.module.ccs.iter() {
            for flow in self.flows[cc.index()].clone() {
                self.compare_flow(n, cc, flow, "sweep of every flow");
            }
            for p in &def.params {
                let a = Device::cc_param(&mut self.interp, &def.name, &p.1.name).expect("i");
                let b = self.csim.cc_param(&def.name, &p.1.name).expect("c");
                if a != b && self.mismatches.len() < 20 {
                    self.mismatches.push(format!(
                        "after event {n}: param `{}.{}`: expected {a:?}, got {b:?}",
                        def.name, p.1.name
                    ));
                }
            }
        }
    }

    fn run(&mut self) {
        for n in 0..EVENTS {
            match self.step() {
                Step::Signal(cc, flow, event) => {
                    Device::cc_event(&mut self.interp, cc, flow, event, self.now).expect("i");
                    self.csim
                        .cc_event(cc, flow, event, self.now)
                        .expect("csim event");
                    let what = format!("{event:?}; ran {}", handler_name(self.module, cc, event));
                    self.compare_flow(n, cc, flow, &what);
                }
                Step::Tick => {
                    *self.counts.entry("time step").or_default() += 1;
                    Device::advance_time(&mut self.interp, self.now).expect("i");
                    self.csim.advance_time(self.now).expect("csim time");
                }
                Step::Param(cc, p, value) => {
                    *self.counts.entry("param write").or_default() += 1;
                    let def = &self.module.ccs[CcId::new(cc)];
                    let name = &def.params.values().nth(p).expect("param").name;
                    let a = Device::set_cc_param(&mut self.interp, &def.name, name, value);
                    let b = self.csim.set_cc_param(&def.name, name, value);
                    assert_eq!(a.expect("i"), b.expect("c"), "set_cc_param {name}");
                }
            }
            if n % 500 == 499 {
                self.compare_all(n);
            }
        }
        self.compare_all(EVENTS);
        self.notes = self.compare_notes();
    }
}

use cranelift_entity::EntityRef;

fn diff(label: &str, module: &scenic_ir::Module, info: &scenic_ir::ModuleInfo, seed: u64) {
    let Some(ap_types) = common::ap_types_or_skip(label) else {
        return;
    };
    let options = scenic_backend_hls::Options::default();
    let files = scenic_backend_hls::write_kernel(module, info, &options).expect("generates");
    let started = std::time::Instant::now();
    let csim = CsimDevice::new(module, &files, &ap_types, &["-Wall", "-Wextra", "-Werror"])
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let built = started.elapsed();
    let mut rng = Rng(seed | 1);
    // 128 flows per cc, with ids spread out (slots are given in order of first use).
    let flows = module
        .ccs
        .values()
        .map(|def| {
            let n = def.flows.min(128);
            (0..n).map(|i| i * 7919 + rng.below(7)).collect()
        })
        .collect();
    let mut run = Run {
        module,
        interp: Machine::new(module),
        csim,
        rng,
        now: 0,
        flows,
        mismatches: Vec::new(),
        counts: Default::default(),
        notes: 0,
    };
    run.run();
    eprintln!(
        "{label}: {EVENTS} steps ({:?}), {} notifications, {} mismatches; kernel built \
         in {built:.2?}, whole run {:.2?}",
        run.counts,
        run.notes,
        run.mismatches.len(),
        started.elapsed()
    );
    assert!(
        run.mismatches.is_empty(),
        "{label}: {} mismatches:\n{}",
        run.mismatches.len(),
        run.mismatches.join("\n")
    );
}

fn example(name: &str, seed: u64) {
    let (module, info, _) = common::load(name);
    diff(name, &module, &info, seed);
}

#[test]
fn dcqcn_diff() {
    example("dcqcn.sn", 0x5eed_0011);
}

#[test]
fn hpcc_diff() {
    example("hpcc.sn", 0x5eed_0051);
}

#[test]
fn window_cc_diff() {
    example("window_cc.sn", 0x5eed_0021);
}

#[test]
fn timely_diff() {
    example("timely.sn", 0x5eed_0041);
}

#[test]
fn swift_diff() {
    example("swift.sn", 0x5eed_0051);
}

#[test]
fn cc_features_diff() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/cc_features.sn");
    let (module, info) = load_path(&path);
    diff("cc_features.sn", &module, &info, 0x5eed_0031);
}

/// Nested arrays in per-flow state written through compound assignments (issue 10: places that
/// reach an element through a field or another element), under generated events.
#[test]
fn nested_state_places_diff() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/lower_issue10_cc.sn");
    let (module, info) = load_path(&path);
    diff("lower_issue10_cc.sn", &module, &info, 0x5eed_0041);
}
