//! The CC switch proof (issue 12, item 6, the CC half): the running cc (dcqcn.sn) is replaced again
//! and again (`CcHost::switch`: load into the standby slot, `CC_CMD` `SWITCH` with `CARRY`) while a
//! thread injects CNPs, ACKs, sent bytes and ticks for many flows through the §4.3 event ring.
//!
//! Expectations, from device.md §4 and dcqcn.sn's formulas, checked against a reference run of the
//! same events on ONE interpreter machine without switches: `CC_EVENT_SEQ` equals the events
//! injected (none lost, none applied twice; `EV_DROPPED` 0); the active cc's per-flow state (every
//! state variable and timer) equals the reference's; every flow's rate output equals the
//! reference's. Every 10th switch is made with the events paused: the outputs just before and just
//! after the switch are equal, and equal the reference at that event (the switch adds no jump).
//!
//! CI runs a short version; the campaign: `SCENIC_CC_SWITCHES=1000 SCENIC_CC_EVENTS=100000 cargo
//! test --release -p scenic-runtime --test cc_switch -- --nocapture`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use scenic_interp::cc::CcEvent as Signal;
use scenic_interp::Machine;
use scenic_runtime::abi::{global, slot, slot_block};
use scenic_runtime::emu::cc_events::{self, CcUnits};
use scenic_runtime::frame::CcEvent;
use scenic_runtime::{CcHost, Device, Package};
use support::{Emu, TestPackage};

const FLOWS: u32 = 48;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Event `i` of the stream: 4 µs apart (dcqcn's 55 µs timers fire often), mostly ACKs and sent
/// bytes (1 MB: the 10 MB byte counter fires), CNPs on a few flows, a tick now and then.
fn event(rng: &mut Rng, i: u64) -> CcEvent {
    let r = rng.next();
    let flow = (r % u64::from(FLOWS)) as u32;
    let (kind, value) = match (r >> 32) % 16 {
        0..=2 => (2, 0),
        3..=8 => (1, 4096),
        9..=13 => (7, 1_000_000),
        _ => (0, 0),
    };
    CcEvent {
        kind,
        flow,
        ecn: kind == 1 && (r >> 40) % 8 == 0,
        value,
        time_ns: 1_000_000 + 4_000 * i,
        int: Default::default(),
    }
}

/// The reference: one machine, the events of §4.3 as the interpreter's signals, in order.
struct Reference<'m> {
    machine: Machine<'m>,
    cc: scenic_ir::entities::CcId,
    applied: usize,
}

impl<'m> Reference<'m> {
    fn new(module: &'m scenic_ir::program::Module) -> Reference<'m> {
        let cc = module.ccs.keys().next().unwrap();
        Reference {
            machine: Machine::new(module),
            cc,
            applied: 0,
        }
    }

    fn apply(&mut self, events: &[CcEvent], upto: usize) {
        for e in &events[self.applied..upto] {
            let flow = u64::from(e.flow);
            let signal = match e.kind {
                0 => {
                    self.machine.advance_time(e.time_ns);
                    continue;
                }
                1 => Signal::Ack {
                    bytes: e.value,
                    ecn: e.ecn,
                },
                2 => Signal::Cnp,
                7 => Signal::Sent(e.value),
                k => panic!("the stream has no kind {k}"),
            };
            self.machine.cc_event(self.cc, flow, signal, e.time_ns);
        }
        self.applied = upto;
    }

    fn output(&self, flow: u32) -> u64 {
        self.machine
            .cc_output(self.cc, u64::from(flow))
            .unwrap_or(0)
    }
}

fn outputs(dev: &Device, k: u8) -> Vec<u64> {
    let base = slot_block(k).unwrap() + slot::CC_OUTPUTS;
    (0..FLOWS)
        .map(|f| dev.read(base + 8 * u64::from(f)).unwrap())
        .collect()
}

fn start() -> (Emu, CcUnits) {
    let mut units = None;
    let emu = Emu::start_with(|s| {
        s.enable_models();
        units = s.cc_units();
    });
    (emu, units.unwrap())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn a_cc_switched_under_events_loses_duplicates_and_jumps_nothing() {
    let switches = env_or("SCENIC_CC_SWITCHES", 50);
    let min_events = env_or("SCENIC_CC_EVENTS", 3_000);
    let (emu, units) = start();
    let dev = emu.open();
    let p = TestPackage::new("dcqcn");
    let pkg = Package::open(&p.dir).unwrap();
    let module = pkg.module().clone();
    let host = CcHost::new(&dev, emu.state_dir()).unwrap();

    let first = host.switch(&pkg, None, true).unwrap();
    assert_eq!(first.old, None);
    assert_eq!(first.new.0, 16, "slot A first");

    let events = Arc::new(Mutex::new(Vec::<CcEvent>::new()));
    let (pause, done, paused) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    // The injector may go up to `allowed` events: about min_events / switches per switch, so the
    // events flow during every switch call, whatever the build's speed.
    let per_switch = min_events.div_ceil(switches.max(1)).max(8);
    let (injected, allowed) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    // Microseconds between two chunks of 4: the last switch call spread over its events.
    let pace = Arc::new(AtomicU64::new(100));
    let injector = {
        let pace = pace.clone();
        let (events, pause, done, paused, injected, allowed) = (
            events.clone(),
            pause.clone(),
            done.clone(),
            paused.clone(),
            injected.clone(),
            allowed.clone(),
        );
        let dev = emu.open();
        let state = emu.state_dir();
        std::thread::spawn(move || {
            let host = CcHost::new(&dev, state).unwrap();
            let mut rng = Rng(0x5CE1_1C0C);
            let mut i = 0u64;
            loop {
                let limit = allowed.load(Ordering::Acquire);
                if done.load(Ordering::Acquire) && i >= limit {
                    break;
                }
                if pause.load(Ordering::Acquire) || i >= limit {
                    paused.store(pause.load(Ordering::Acquire), Ordering::Release);
                    std::thread::sleep(Duration::from_micros(50));
                    continue;
                }
                paused.store(false, Ordering::Release);
                let chunk: Vec<CcEvent> = (0..4).map(|j| event(&mut rng, i + j)).collect();
                // Recorded before the device can see them: the reference never lags the ring.
                events.lock().unwrap().extend_from_slice(&chunk);
                host.inject(&chunk).unwrap();
                i += 4;
                injected.store(i, Ordering::Release);
                std::thread::sleep(Duration::from_micros(pace.load(Ordering::Acquire)));
            }
        })
    };

    let mut reference = Reference::new(&module);
    let (mut call, mut command) = (Vec::new(), Vec::new());
    let mut last_seq = 0;
    let mut in_flow = 0;
    for n in 0..switches {
        allowed.store((n + 2) * per_switch, Ordering::Release);
        let quiet = n % 10 == 9;
        let mut before = None;
        if quiet {
            pause.store(true, Ordering::Release);
            while !paused.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_micros(50));
            }
            let total = injected.load(Ordering::Acquire);
            host.wait_events(total, Duration::from_secs(30)).unwrap();
            let k = host.active().unwrap().unwrap();
            before = Some((total, outputs(&dev, k)));
        }
        let seq_before = host.event_seq().unwrap();
        let r = host.switch(&pkg, None, true).unwrap();
        if r.switch_seq > seq_before && injected.load(Ordering::Acquire) > r.switch_seq {
            in_flow += 1;
        }
        let chunks = (per_switch / 4).max(1) as u128;
        let spread = (r.total_time.as_micros() / chunks).clamp(10, 20_000);
        pace.store(spread as u64, Ordering::Release);
        assert!(r.switch_seq >= last_seq, "CC_SWITCH_SEQ moves forward");
        last_seq = r.switch_seq;
        assert!(
            r.plan.fresh().next().is_none(),
            "same cc: everything is carried"
        );
        call.push(r.total_time);
        command.push(r.switch_time);
        if let Some((total, outs)) = before {
            assert_eq!(r.switch_seq, total, "switched after the last event");
            let after = outputs(&dev, r.new.0);
            assert_eq!(
                after, outs,
                "switch {n}: the outputs do not jump at the switch"
            );
            let list = events.lock().unwrap().clone();
            reference.apply(&list, total as usize);
            let expected: Vec<u64> = (0..FLOWS).map(|f| reference.output(f)).collect();
            assert_eq!(
                after, expected,
                "switch {n}: the reference at event {total}"
            );
            pause.store(false, Ordering::Release);
        }
    }
    allowed.store(min_events.max(switches * per_switch), Ordering::Release);
    done.store(true, Ordering::Release);
    injector.join().unwrap();
    let total = injected.load(Ordering::Acquire);
    host.wait_events(total, Duration::from_secs(60)).unwrap();
    assert_eq!(
        host.event_seq().unwrap(),
        total,
        "each event processed once"
    );
    assert_eq!(dev.read(global::EV_DROPPED).unwrap(), 0);
    assert_eq!(dev.read(global::EV_CONS).unwrap(), total & 0xFFFF_FFFF);

    let list = events.lock().unwrap().clone();
    assert_eq!(list.len() as u64, total);
    reference.apply(&list, list.len());
    let k = host.active().unwrap().unwrap();
    let expected: Vec<u64> = (0..FLOWS).map(|f| reference.output(f)).collect();
    assert_eq!(
        outputs(&dev, k),
        expected,
        "every flow's rate = the reference's"
    );
    assert!(expected.iter().any(|r| *r != 0), "the flows were seen");
    {
        let pair = cc_events::lock(&units);
        let active = pair.active.unwrap();
        let states = pair.unit(active).unwrap().flow_states();
        let want = &reference.machine.ccs[0].flows;
        assert_eq!(states.len(), want.len(), "the same flows");
        for (flow, f) in want {
            assert_eq!(states.get(flow), Some(f), "flow {flow}: state and timers");
        }
    }
    // The reference cut rates: the events did congest the flows.
    let line_rate = expected.iter().copied().max().unwrap();
    assert!(expected.iter().any(|r| *r < line_rate), "some flow was cut");

    // How many switches fell between two events the device processed depends on the machine's
    // load; the campaign reports it. At least one did.
    assert!(in_flow > 0, "no switch had events on both sides");
    call.sort();
    command.sort();
    println!(
        "{switches} switches ({in_flow} with events processed on both sides) under {total} events ({FLOWS} flows): switch call (stage + load + SWITCH) median {:?} p99 {:?} max {:?}; SWITCH command median {:?} p99 {:?} max {:?}",
        percentile(&call, 0.5),
        percentile(&call, 0.99),
        call.last().unwrap(),
        percentile(&command, 0.5),
        percentile(&command, 0.99),
        command.last().unwrap(),
    );
}
