//! Conformance `state.refusals` (docs/device.md §8): every slot command from every reachable bank
//! state, on a live device, against a model written from the §3.4 table (not from the crate's
//! `SlotMachine`). Accepted commands must produce the model's `SLOT_STATE`; refused ones must give
//! `E_BAD_STATE` with `SLOT_STATE[0..16)` as detail and leave `SLOT_STATE` unchanged.

// A test binary: a failed unwrap in a helper is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use scenic_runtime::abi::codes::Code;
use scenic_runtime::abi::slot;
use scenic_runtime::abi::slot_block;
use scenic_runtime::emu::{EmuConfig, EmuServer};
use scenic_runtime::Device;

const EMPTY: u8 = 0;
const SHADOW: u8 = 2;
const ACTIVE: u8 = 3;
const DRAINING: u8 = 4;

/// The §3.4 model: bank state codes, the active bank, MIRROR. Draining banks are always
/// `QUIESCED` here (the server runs with `quiesce_polls = 0`; the drain window has its own test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Model {
    banks: [u8; 2],
    active: Option<usize>,
    mirror: bool,
}

impl Model {
    const START: Model = Model {
        banks: [EMPTY, EMPTY],
        active: None,
        mirror: false,
    };

    /// `SLOT_STATE` as §3.2 lays it out.
    fn word(&self) -> u64 {
        let mut w = u64::from(self.banks[0]) | u64::from(self.banks[1]) << 8;
        if let Some(a) = self.active {
            w |= 1 << 17 | (a as u64) << 16;
        }
        if self.mirror {
            w |= 1 << 18;
        }
        if self.banks.contains(&DRAINING) {
            w |= 1 << 19;
        }
        w
    }

    /// §3.4: the non-active bank; with none active the DRAINING one, else the SHADOW one, else 0.
    fn other(&self, cc: bool) -> usize {
        if cc {
            return 0;
        }
        if let Some(a) = self.active {
            return 1 - a;
        }
        let find = |s: u8| (0..2).find(|b| self.banks[*b] == s);
        find(DRAINING).or_else(|| find(SHADOW)).unwrap_or(0)
    }

    /// The next model, or `None` when §3.4 refuses the command.
    fn apply(&self, op: u8, arg: u64, cc: bool) -> Option<Model> {
        let o = self.other(cc);
        let mut m = *self;
        let draining = self.banks.contains(&DRAINING);
        match (op, arg) {
            (0x01, _) if self.banks[o] == EMPTY => m.banks[o] = SHADOW,
            (0x02, _) if !cc && self.banks[o] == SHADOW && !draining => {
                if let Some(a) = self.active {
                    m.banks[a] = DRAINING;
                }
                m.banks[o] = ACTIVE;
                m.active = Some(o);
                m.mirror = false;
            }
            (0x03, _) if !cc && self.active.is_some() => {
                m.banks[self.active?] = DRAINING;
                m.active = None;
                m.mirror = false;
            }
            (0x04, 1) if self.banks[o] == DRAINING => m.banks[o] = EMPTY,
            (0x04, 0) if self.banks[o] == SHADOW => {
                m.banks[o] = EMPTY;
                m.mirror = false;
            }
            (0x05, a) if !cc && self.banks[o] == SHADOW && self.active.is_some() => {
                m.mirror = a == 1
            }
            (0x06..=0x08, _) => {}
            _ => return None,
        }
        Some(m)
    }
}

/// The state-changing commands the search walks with.
const MOVES: [(u8, u64); 7] = [
    (0x01, 0),
    (0x02, 0),
    (0x03, 0),
    (0x04, 0),
    (0x04, 1),
    (0x05, 0),
    (0x05, 1),
];
/// Every command tried from every state: the moves, the staging and queue commands, unknown opcodes.
const TRIES: [(u8, u64); 12] = [
    (0x01, 0),
    (0x02, 0),
    (0x03, 0),
    (0x04, 0),
    (0x04, 1),
    (0x05, 0),
    (0x05, 1),
    (0x06, 0),
    (0x07, 0),
    (0x08, 3),
    (0x09, 0),
    (0xFF, 0),
];

/// Every reachable model with the shortest command path to it.
fn reachable(cc: bool) -> BTreeMap<Model, Vec<(u8, u64)>> {
    let mut paths = BTreeMap::from([(Model::START, Vec::new())]);
    let mut queue = VecDeque::from([Model::START]);
    while let Some(m) = queue.pop_front() {
        for (op, arg) in MOVES {
            if let Some(next) = m.apply(op, arg, cc) {
                if !paths.contains_key(&next) {
                    let mut path = paths[&m].clone();
                    path.push((op, arg));
                    paths.insert(next, path);
                    queue.push_back(next);
                }
            }
        }
    }
    paths
}

fn run_command(dev: &Device, k: u8, op: u8, arg: u64, model: &Model, cc: bool, ctx: &str) -> Model {
    let base = slot_block(k).unwrap();
    let before = dev.read(base + slot::SLOT_STATE).unwrap();
    assert_eq!(before, model.word(), "{ctx}: state before");
    let result = dev.slot_command_raw(k, op, arg);
    let after = dev.read(base + slot::SLOT_STATE).unwrap();
    match (model.apply(op, arg, cc), result) {
        (Some(next), Ok(_)) => {
            assert_eq!(
                after,
                next.word(),
                "{ctx}: op {op:#x} arg {arg}: state after"
            );
            next
        }
        (None, Err(e)) => {
            let want = if (0x01..=0x08).contains(&op) {
                Code::BadState
            } else {
                Code::BadCommand
            };
            assert_eq!(e.code(), Some(want), "{ctx}: op {op:#x} arg {arg}: {e}");
            if want == Code::BadState {
                let detail = match e {
                    scenic_runtime::DeviceError::Command(
                        scenic_runtime::command::CommandError::Refused { detail, .. },
                    ) => detail,
                    _ => unreachable!(),
                };
                assert_eq!(
                    u64::from(detail),
                    before & 0xFFFF,
                    "{ctx}: detail = SLOT_STATE[0..16)"
                );
            }
            assert_eq!(
                after, before,
                "{ctx}: op {op:#x} arg {arg}: refused, so unchanged"
            );
            *model
        }
        (want, got) => panic!("{ctx}: op {op:#x} arg {arg}: model {want:?}, device {got:?}"),
    }
}

/// Stops and joins the server thread when dropped, also when a check panics (no hung test).
struct Server {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn check_every_command_from_every_state(k: u8, cc: bool) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map");
    let mut emu = EmuServer::create_path(&path, EmuConfig::default()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = Arc::clone(&stop);
    let thread = std::thread::spawn(move || emu.run(&stop2, &AtomicBool::new(false)).unwrap());
    let _server = Server {
        stop,
        thread: Some(thread),
    };
    let dev = Device::open(path.to_str().unwrap()).unwrap();
    let mut checked = 0;
    for (target, path) in &reachable(cc) {
        for (op, arg) in TRIES {
            dev.reset().unwrap();
            dev.stage_image(k, 1, b"SCNMODEL").unwrap();
            let mut model = Model::START;
            for (i, (pop, parg)) in path.iter().enumerate() {
                let ctx = format!("slot {k}: path to {target:?}, step {i}");
                model = run_command(&dev, k, *pop, *parg, &model, cc, &ctx);
            }
            assert_eq!(model, *target);
            run_command(
                &dev,
                k,
                op,
                arg,
                &model,
                cc,
                &format!("slot {k}: from {target:?}"),
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn every_scu_slot_command_from_every_state() {
    let states = reachable(false);
    // EMPTY/EMPTY, SHADOW alone, ACTIVE alone, ACTIVE + SHADOW (mirror on/off), ACTIVE + DRAINING,
    // DRAINING alone, DRAINING + SHADOW, each with bank roles swapped where reachable.
    assert!(
        states.len() >= 12,
        "only {} states reachable: {states:?}",
        states.len()
    );
    let checked = check_every_command_from_every_state(0, false);
    assert_eq!(checked, states.len() * TRIES.len());
}

#[test]
fn every_cc_slot_command_from_every_state() {
    let states = reachable(true);
    assert_eq!(states.len(), 2, "CC slots use bank 0 only: EMPTY or SHADOW");
    assert_eq!(
        check_every_command_from_every_state(17, true),
        2 * TRIES.len()
    );
}
