//! `SlotHandle` (the Python and C APIs' slot) over an `EmuThread` (their in-process device), on
//! `examples/xor_cipher.sn`: `key` is CSR offset 0, `words_ciphered` (offset 2) is readonly.
//! Expectations from docs/device.md (§3.2 reset values, §3.4 `SWITCH_COUNT`) and runtime.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use scenic_runtime::emu::thread::EmuThread;
use scenic_runtime::handle::Reconfigured;
use scenic_runtime::state::StateDir;
use scenic_runtime::{Device, SlotHandle};
use support::TestPackage;

const KEY: u64 = 0x9f3c_7a2b_6e41_d8c5;

#[test]
fn reconfigure_loads_then_swaps_and_the_handle_follows() {
    let p = TestPackage::new("xor_cipher");
    let dir = tempfile::tempdir().unwrap();
    let map = dir
        .path()
        .join(format!("scenic-handle-{}", std::process::id()));
    let mut emu = EmuThread::start(&map).unwrap();
    let dev = Arc::new(Device::open(map.to_str().unwrap()).unwrap());
    let state = StateDir::of(&dev).unwrap();
    let slot = SlotHandle::new(Arc::clone(&dev), state.clone(), 2).unwrap();

    let err = slot.with_scu(|s| s.csr_get_offset(0)).unwrap_err();
    assert!(err.to_string().contains("nothing was loaded"), "{err}");

    let first = slot.reconfigure(&p.dir).unwrap();
    assert!(
        matches!(first, Reconfigured::Loaded(ref r) if r.bank == 0 && r.active),
        "{first:?}"
    );
    slot.with_scu(|s| s.csr_set_offset(0, KEY)).unwrap();
    let readonly = slot.with_scu(|s| s.csr_set_offset(2, 1)).unwrap_err();
    assert!(readonly.to_string().contains("readonly"), "{readonly}");
    assert_eq!(
        slot.completed("remote_write").unwrap(),
        0,
        "PKT_SEQ resets to 0"
    );

    // Another handle on the same slot swaps; this one must re-attach to the new bank.
    let other = SlotHandle::new(Arc::clone(&dev), state, 2).unwrap();
    let second = other.reconfigure(&p.dir).unwrap();
    assert!(
        matches!(second, Reconfigured::Swapped(ref r) if r.bank == 1),
        "{second:?}"
    );
    assert_eq!(
        slot.with_scu(|s| s.csr_get_offset(0)).unwrap(),
        KEY,
        "carried"
    );
    assert_eq!(slot.attachment().unwrap().run(|s| s.bank().index()), 1);
    // §3.4: the load's ACTIVATE and the swap's each update SWITCH_COUNT.
    assert_eq!(slot.completed("switch_count").unwrap(), 2);
    assert_eq!(slot.register("SWITCH_COUNT").unwrap(), 2);
    let unknown = slot.register("teleports").unwrap_err();
    assert!(unknown.to_string().contains("PKT_SEQ"), "{unknown}");

    emu.stop();
    assert!(
        slot.with_scu(|s| s.csr_get_offset(0)).is_err(),
        "the device went away"
    );
}

#[test]
fn a_slot_that_does_not_exist_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir
        .path()
        .join(format!("scenic-handle-absent-{}", std::process::id()));
    let _emu = EmuThread::start(&map).unwrap();
    let dev = Arc::new(Device::open(map.to_str().unwrap()).unwrap());
    let state = StateDir::of(&dev).unwrap();
    assert!(
        SlotHandle::new(dev, state, 15).is_err(),
        "EmuConfig::default has 4 SCU slots"
    );
}
