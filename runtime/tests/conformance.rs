//! The register-level conformance scenarios of docs/device.md §8 (`tests/conformance/*.scn`, the
//! format of §8.1) run against the emulated NIC: its server, models and datapath on a temporary
//! map, one fresh device per scenario. The same files are the contract for every implementation
//! (shell-hw's glue in Verilator reads them too), so the expectations live in the files, derived
//! from the document's tables, never in this runner.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{identity_of, packages::example_package, stage_and_load};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use scenic_runtime::abi::global;
use scenic_runtime::abi::slot::SlotOp;
use scenic_runtime::abi::{self, CommandWord, ErrorWord, ResultWord};
use scenic_runtime::container::{self, StagedIdentity, UnitKind};
use scenic_runtime::emu::thread::EmuThread;
use scenic_runtime::Device;
use scenic_scu_abi::manifest::Manifest;

#[path = "conformance/script.rs"]
mod script;

use script::{Op, Scenario, Target};

/// The features of `scenario ID needs …` (device.md §8.1); the emulated NIC has them all.
const EMULATOR_HAS: &[&str] = &["slot-commands"];

fn scenario_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "scn"))
        .collect();
    files.sort();
    files
}

/// One scenario on a fresh emulated NIC; the first failed step's message.
fn run(scenario: &Scenario, file: &Path) -> Result<usize, String> {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map");
    let _emu = EmuThread::start_wired(&map, 1).map_err(|e| e.to_string())?;
    let dev = Device::open_path(&map).map_err(|e| e.to_string())?;
    let mut bus = Bus {
        dev: &dev,
        vars: script::Vars::default(),
        seq: 0,
    };
    for step in &scenario.steps {
        let at = format!("{}:{}", file.display(), step.line);
        bus.step(&step.op).map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(scenario.steps.len())
}

/// The map as a bus master sees it: plain 64-bit loads and stores, as a card's BAR would take
/// them. The runtime's client checks (liveness by `MAGIC`, refusals before sending) stay out of
/// the way, since scenarios write what a client never would (`MAGIC`, bad command words).
struct Bus<'d> {
    dev: &'d Device,
    vars: script::Vars,
    seq: u16,
}

/// How long a command or a fence may take (§1.6 bounds the wait by the heartbeat; 10 s here).
const WAIT: Duration = Duration::from_secs(10);

impl Bus<'_> {
    fn read(&self, addr: u64) -> Result<u64, String> {
        self.dev
            .region()
            .load(addr, Ordering::Acquire)
            .map_err(|e| e.to_string())
    }

    fn write(&self, addr: u64, value: u64) -> Result<(), String> {
        self.dev
            .region()
            .store(addr, value, Ordering::Release)
            .map_err(|e| e.to_string())
    }

    /// Polls `addr` until `done` holds for its value; the value.
    fn wait(&self, addr: u64, done: impl Fn(u64) -> bool) -> Result<u64, String> {
        let until = Instant::now() + WAIT;
        loop {
            let v = self.read(addr)?;
            if done(v) {
                return Ok(v);
            }
            if Instant::now() > until {
                return Err(format!("no answer at {addr:#x} within {WAIT:?}"));
            }
            std::thread::sleep(Duration::from_micros(20));
        }
    }

    fn step(&mut self, op: &Op) -> Result<(), String> {
        let reg = |t: &Target| t.address().ok_or_else(|| format!("no register {t:?}"));
        match op {
            Op::Load { slot, example } => load(self.dev, *slot, example),
            Op::Let {
                name,
                target,
                mask,
                shift,
            } => {
                let v = self.read(reg(target)?)?;
                self.vars.set(name, (v & mask) >> shift);
                Ok(())
            }
            Op::Write { target, value } => {
                let v = value.eval(&self.vars)?;
                self.write(reg(target)?, v)
            }
            Op::Fence => {
                let value = self.read(global::DEV_FENCE)?.wrapping_add(1).max(1);
                self.write(global::HOST_FENCE, value)?;
                self.wait(global::DEV_FENCE, |v| v == value).map(|_| ())
            }
            Op::Read {
                target,
                mask,
                value,
            } => {
                let got = self.read(reg(target)?)?;
                let mask = mask.as_ref().map_or(Ok(u64::MAX), |m| m.eval(&self.vars))?;
                let want = value.eval(&self.vars)?;
                if got & mask == want {
                    return Ok(());
                }
                Err(format!(
                    "read {target:?} & {mask:#x}: {:#x}, expected {want:#x}",
                    got & mask
                ))
            }
            Op::Error {
                target,
                code,
                offset,
            } => {
                let word = ErrorWord::decode(self.read(reg(target)?)?);
                let want = (*code, offset.eval(&self.vars)? as u32);
                if (word.code, word.offset) == want {
                    return Ok(());
                }
                Err(format!(
                    "{target:?}: code {:#06x} at {:#x}, expected {:#06x} at {:#x}",
                    word.code, word.offset, want.0, want.1
                ))
            }
            Op::Cmd {
                target,
                opcode,
                arg,
                status,
                detail,
            } => {
                let result = target.result().ok_or("not a command register")?;
                self.seq = self.seq.wrapping_add(1).max(1);
                let word = CommandWord {
                    opcode: *opcode,
                    arg: arg.eval(&self.vars)?,
                    seq: self.seq,
                };
                let word = word.encode().ok_or("the argument does not fit 40 bits")?;
                self.write(reg(target)?, word)?;
                let seq = self.seq;
                let got = ResultWord::decode(self.wait(result, |r| (r >> 48) as u16 == seq)?);
                let want_detail = detail.as_ref().map(|d| d.eval(&self.vars)).transpose()?;
                if got.status == *status && want_detail.is_none_or(|d| d == u64::from(got.detail)) {
                    return Ok(());
                }
                Err(format!(
                    "command {opcode:#04x}: status {:#06x} detail {}, expected {status:#06x}{}",
                    got.status,
                    got.detail,
                    want_detail.map_or(String::new(), |d| format!(" detail {d}"))
                ))
            }
        }
    }
}

/// `load SLOT EXAMPLE`: stages the example's package unit 0 and loads it; an SCU slot's bank is
/// then activated, a CC slot's stays `SHADOW` (§4.1).
fn load(dev: &Device, slot: u8, example: &str) -> Result<(), String> {
    let (manifest, model) = example_package(example);
    let image = container::build(&manifest, &model);
    let cc = slot >= abi::CC_SLOT_A;
    let identity: StagedIdentity = if cc {
        let m = Manifest::from_json(std::str::from_utf8(&manifest).unwrap()).unwrap();
        StagedIdentity::of(&m, UnitKind::Cc, 0).map_err(|e| e.to_string())?
    } else {
        identity_of(&manifest, 0)
    };
    stage_and_load(dev, slot, &image, &identity, container::crc32(&image))
        .map_err(|c| format!("load {example} into slot {slot}: {}", c.doc_name()))?;
    if !cc {
        dev.slot_command(slot, SlotOp::Activate, 0)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[test]
fn the_register_scenarios_hold_on_the_emulated_nic() {
    let files = scenario_files();
    assert!(!files.is_empty(), "no scenario files");
    let mut ran = Vec::new();
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let scenarios = script::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for s in &scenarios {
            // The emulated NIC has every feature a scenario may need; an unknown one is a typo.
            if let Some(f) = s.needs.iter().find(|f| !EMULATOR_HAS.contains(&f.as_str())) {
                failures.push(format!("{}: needs unknown feature `{f}`", s.id));
                continue;
            }
            match run(s, &file) {
                Ok(steps) => ran.push(format!("{} ({steps} steps)", s.id)),
                Err(e) => failures.push(format!("{}: {e}", s.id)),
            }
        }
    }
    eprintln!("passed: {}", ran.join(", "));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
