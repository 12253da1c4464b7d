//! The register-level conformance scenarios of docs/device.md §8 (`tests/conformance/*.scn`, the
//! format of §8.1) run against the emulated NIC: its server, models and datapath on a temporary
//! map, one fresh device per scenario. The same files are the contract for every implementation
//! (shell-hw's glue in Verilator reads them too), so the expectations live in the files, derived
//! from the document's tables, never in this runner.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{identity_of, packages::example_package, stage_and_load};
use scenic_runtime::abi::slot::SlotOp;
use scenic_runtime::abi::{self, ErrorWord};
use scenic_runtime::command::Channel;
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
    let mut vars = script::Vars::default();
    for step in &scenario.steps {
        let at = format!("{}:{}", file.display(), step.line);
        do_step(&dev, &step.op, &mut vars).map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(scenario.steps.len())
}

fn do_step(dev: &Device, op: &Op, vars: &mut script::Vars) -> Result<(), String> {
    let reg = |t: &Target| t.address().ok_or_else(|| format!("no register {t:?}"));
    match op {
        Op::Load { slot, example } => load(dev, *slot, example),
        Op::Let {
            name,
            target,
            mask,
            shift,
        } => {
            let v = dev.read(reg(target)?).map_err(|e| e.to_string())?;
            vars.set(name, (v & mask) >> shift);
            Ok(())
        }
        Op::Write { target, value } => {
            let v = value.eval(vars)?;
            dev.write(reg(target)?, v).map_err(|e| e.to_string())
        }
        Op::Fence => dev.fence().map(|_| ()).map_err(|e| e.to_string()),
        Op::Read {
            target,
            mask,
            value,
        } => {
            let got = dev.read(reg(target)?).map_err(|e| e.to_string())?;
            let mask = mask.as_ref().map_or(Ok(u64::MAX), |m| m.eval(vars))?;
            let want = value.eval(vars)?;
            if got & mask == want {
                Ok(())
            } else {
                Err(format!(
                    "read {target:?} & {mask:#x}: {:#x}, expected {want:#x}",
                    got & mask
                ))
            }
        }
        Op::Error {
            target,
            code,
            offset,
        } => {
            let word = ErrorWord::decode(dev.read(reg(target)?).map_err(|e| e.to_string())?);
            let want = (*code, offset.eval(vars)? as u32);
            if (word.code, word.offset) == want {
                Ok(())
            } else {
                Err(format!(
                    "{target:?}: code {:#06x} at {:#x}, expected {:#06x} at {:#x}",
                    word.code, word.offset, want.0, want.1
                ))
            }
        }
        Op::Cmd {
            target,
            opcode,
            arg,
            status,
            detail,
        } => {
            let cmd = reg(target)?;
            let result = target.result().ok_or("not a command register")?;
            let channel = Channel { cmd, result };
            let arg = arg.eval(vars)?;
            let (got, got_detail) = match dev.command(channel, *opcode, arg) {
                Ok(c) => (0, c.detail),
                Err(e) => match e.code() {
                    Some(code) => (code.number(), detail_of(&e)),
                    None => return Err(e.to_string()),
                },
            };
            let detail_ok = detail.as_ref().map_or(Ok(true), |d| {
                d.eval(vars).map(|d| d == u64::from(got_detail))
            })?;
            if got == *status && detail_ok {
                Ok(())
            } else {
                Err(format!(
                    "command {opcode:#04x}: status {got:#06x} detail {got_detail}, expected {status:#06x}{}",
                    detail.as_ref().map_or(String::new(), |d| format!(" detail {d:?}"))
                ))
            }
        }
    }
}

fn detail_of(e: &scenic_runtime::DeviceError) -> u32 {
    match e {
        scenic_runtime::DeviceError::Command(scenic_runtime::command::CommandError::Refused {
            detail,
            ..
        }) => *detail,
        _ => 0,
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
