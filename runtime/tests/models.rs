//! The emulated device running packages: model containers loaded into banks (every `LOAD` check of
//! device.md §3.3 in its order), the CSR window of §3.5, the control queue of §3.6 at the byte level,
//! notifications of §3.7 and packets through the slot's engine, switching banks at a packet
//! boundary. Expectations come from device.md and from the example programs' sources
//! (`examples/firewall.sn`, `examples/flow_monitor.sn`), not from this code's output.

// A test binary: a failed unwrap in a helper is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{call, identity_of, load_example, packages::example_package, stage_and_load, Emu};
use scenic_runtime::abi::codes::Code;
use scenic_runtime::abi::slot::{self, Bank, BankState, SlotOp};
use scenic_runtime::abi::{slot_block, ErrorWord};
use scenic_runtime::container::{self, StagedIdentity};
use scenic_runtime::emu::banks::ModelEngine;
use scenic_runtime::frame::{ControlEntry, Notification, FLAG_OTHER_BANK};
use scenic_runtime::net::{Class, Destination, SlotEngine, SlotInput, Source};
use scenic_runtime::ring::{Consumer, RingLayout};

#[test]
fn load_checks_come_in_the_documents_order() {
    let emu = Emu::start_models();
    let dev = emu.open();
    let (manifest, model) = example_package("firewall");
    let image = container::build(&manifest, &model);
    let id = identity_of(&manifest, 0);
    let crc = container::crc32(&image);
    let load =
        |image: &[u8], id: &StagedIdentity, crc: u32| stage_and_load(&dev, 0, image, id, crc);

    // A wrong CRC is found before anything else in the image.
    assert_eq!(load(&image, &id, crc ^ 1), Err(Code::ImageCrc));
    // A damaged header, with its CRC right: not a container.
    let mut bad = image.clone();
    bad[3] = b'x';
    assert_eq!(
        load(&bad, &id, container::crc32(&bad)),
        Err(Code::ImageFormat)
    );
    // A manifest of another format version.
    let text = String::from_utf8(manifest.clone()).unwrap();
    let other = text.replacen("\"format_version\": 1", "\"format_version\": 99", 1);
    assert_ne!(
        other, text,
        "the manifest's format_version is written as the test expects"
    );
    let img = container::build(other.as_bytes(), &model);
    assert_eq!(load(&img, &id, container::crc32(&img)), Err(Code::Version));
    // A unit the package does not have.
    let mut no_unit = id;
    no_unit.unit = 7;
    assert_eq!(load(&image, &no_unit, crc), Err(Code::Unit));
    // Each identity field that differs.
    for field in 0..4 {
        let mut wrong = id;
        match field {
            0 => wrong.source_sha256[5] ^= 1,
            1 => wrong.name_hash ^= 1,
            2 => wrong.format ^= 1,
            _ => wrong.compiler += 1,
        }
        assert_eq!(
            load(&image, &wrong, crc),
            Err(Code::Identity),
            "field {field}"
        );
    }
    // A model that is not the manifest's: a damaged model/module.json.
    let img = container::build(&manifest, b"{\"not\": \"a module\"}");
    assert_eq!(
        load(&img, &id, container::crc32(&img)),
        Err(Code::ImageFormat)
    );
    // Every failure left the bank EMPTY with LOAD_STATUS; the good image loads into bank 0.
    let state = dev.slot_state(0).unwrap();
    assert_eq!(
        state.banks,
        [Some(BankState::Empty), Some(BankState::Empty)]
    );
    assert_eq!(load(&image, &id, crc), Ok(0));
    let ident = slot_block(0).unwrap() + slot::identity_block(Bank::B0);
    assert_eq!(dev.read(ident + slot::NAME_HASH).unwrap(), id.name_hash);
    // firewall.sn declares four CSRs: dropped, rate_limited, malformed, window_packets.
    assert_eq!(dev.read(ident + slot::CSR_WORDS).unwrap(), 4);
    assert_eq!(dev.read(ident + slot::LOAD_STATUS).unwrap(), 0);
}

fn window(k: u8, n: u64) -> u64 {
    slot_block(k).unwrap() + slot::CSR_WINDOW + 8 * n
}

#[test]
fn the_csr_window_masks_refuses_and_follows_the_active_bank() {
    let emu = Emu::start_models();
    let dev = emu.open();
    // l3_router.sn: csr 0 `router_mac: bit<48> = 02:00:00:00:00:01`, csr 2 `ttl_expired` readonly.
    load_example(&dev, 0, "l3_router");
    wait_for(|| dev.read(window(0, 0)).unwrap() == 0x0200_0000_0001);
    dev.write(window(0, 0), u64::MAX).unwrap();
    dev.fence().unwrap();
    wait_for(|| dev.read(window(0, 0)).unwrap() == mask(48));
    dev.write(window(0, 2), 12345).unwrap();
    dev.fence().unwrap();
    wait_for(|| dev.read(window(0, 2)).unwrap() == 0);
    let err = ErrorWord::decode(dev.read(slot_block(0).unwrap() + slot::SLOT_ERROR).unwrap());
    assert_eq!(err.code, Code::CsrReadonly.number());
    assert_eq!(u64::from(err.offset), slot::CSR_WINDOW + 8 * 2);
    // The unit holds what the window showed: a control-queue read of csr 0 agrees.
    let rsp = call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 9));
    assert_eq!((rsp.op, rsp.data[0]), (0, mask(48)));
    // Deactivated: the window reads 0.
    dev.slot_command(0, SlotOp::Deactivate, 0).unwrap();
    wait_for(|| dev.read(window(0, 0)).unwrap() == 0);
}

/// A host that writes a CSR as soon as it sees `ACTIVATE`'s result writes the bank it just made
/// active (§3.5: the window shows the active bank): the write is never undone by the window's
/// switch-over. A CI run once read the old value back this way (the server published the result
/// before the window followed the bank, within one poll).
#[test]
fn a_csr_written_right_after_a_swap_sticks() {
    let emu = Emu::start_models();
    let dev = emu.open();
    let block = slot_block(0).unwrap();
    for i in 0..40u64 {
        load_example(&dev, 0, "l3_router");
        let value = 0x0200_0000_1000 + i;
        dev.write(window(0, 0), value).unwrap();
        dev.fence().unwrap();
        assert_eq!(dev.read(window(0, 0)).unwrap(), value, "swap {i}");
        let rsp = call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 9));
        assert_eq!(
            (rsp.op, rsp.data[0]),
            (0, value),
            "swap {i}: the unit holds it"
        );
        if i > 0 {
            // Bank `1 - bank` drains; free it so that the next load has a bank to go to.
            wait_for(|| dev.read(block + slot::SLOT_STATE).unwrap() & (1 << 19) != 0);
            dev.slot_command(0, SlotOp::Free, 1).unwrap();
        }
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

fn wait_for(mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < until, "timed out");
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn the_control_queue_reaches_the_unit_and_answers_framing_errors_itself() {
    let emu = Emu::start_models();
    let dev = emu.open();
    // Nothing loaded: DS_NO_BANK, with the tag echoed.
    let rsp = call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 77));
    assert_eq!((rsp.op, rsp.tag, rsp.data_words), (0x80, 77, 0));
    load_example(&dev, 0, "firewall");
    // CsrRead of `dropped` (offset 0): 0, with D/64 data words.
    let d = common::packages::data_bits("firewall");
    assert_eq!(d % 64, 0);
    let rsp = call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 1));
    assert_eq!((rsp.op, rsp.tag), (0, 1));
    assert_eq!(u32::from(rsp.data_words), d / 64);
    assert_eq!(rsp.data[0], 0);
    // CsrWrite of the readonly `dropped`: the unit's ReadOnly (7).
    let write = ControlEntry::new(0x02, 0, 0, 0, 2).with_data(&[5]).unwrap();
    assert_eq!(call(&dev, 0, &write).op, 7);
    // An op code control::Op lacks: DS_BAD_OP; a reserved flag: DS_BAD_FLAGS; too many words.
    assert_eq!(call(&dev, 0, &ControlEntry::new(0x77, 0, 0, 0, 3)).op, 0x83);
    assert_eq!(call(&dev, 0, &ControlEntry::new(0x01, 2, 0, 0, 4)).op, 0x82);
    let long = vec![1u64; (d / 64) as usize + 1];
    let rsp = call(
        &dev,
        0,
        &ControlEntry::new(0x01, 0, 0, 0, 5)
            .with_data(&long)
            .unwrap(),
    );
    assert_eq!(rsp.op, 0x81);
    // OTHER_BANK with no shadow bank: DS_NO_BANK.
    let rsp = call(&dev, 0, &ControlEntry::new(0x01, FLAG_OTHER_BANK, 0, 0, 6));
    assert_eq!(rsp.op, 0x80);
    // CQ_MALFORMED counts every answer with a device status: the five above.
    let malformed = dev
        .read(slot_block(0).unwrap() + slot::CQ_MALFORMED)
        .unwrap();
    assert_eq!(malformed, 5);
    // An unknown CSR offset reaches the unit: BadTarget (5).
    assert_eq!(call(&dev, 0, &ControlEntry::new(0x01, 0, 999, 0, 8)).op, 5);
}

fn ipv4_udp(src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
    let mut f = vec![0u8; 14 + 20 + 8];
    f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&28u16.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let udp = &mut f[34..42];
    udp[0..2].copy_from_slice(&1234u16.to_be_bytes());
    udp[2..4].copy_from_slice(&80u16.to_be_bytes());
    udp[4..6].copy_from_slice(&8u16.to_be_bytes());
    f
}

#[test]
fn packets_run_on_the_active_bank_and_notifications_reach_the_ring() {
    let emu = Emu::start_models();
    let dev = emu.open();
    load_example(&dev, 0, "firewall");
    let mut engine = ModelEngine::new(emu.banks.clone(), 0);
    let frame = ipv4_udp([10, 1, 2, 3], [10, 0, 0, 1]);
    let started = Instant::now();
    for i in 0..100u64 {
        let v = engine.packet(SlotInput {
            data: &frame,
            source: Source::Network(0),
            now_ns: i * 1000,
            class: Class::Slow,
        });
        // firewall.sn passes UDP it does not police to the host, unchanged.
        assert_eq!(
            v.outputs,
            vec![(Destination::Host, frame.clone())],
            "packet {i}"
        );
    }
    // `every 1ms` notifies the Arm cores with `window_packets` and zeroes it: the records' values
    // add up to the 100 IPv4 packets, however the timer fell between them.
    let r = dev.region();
    let mut ring = Consumer::attach(r, RingLayout::notifications(0)).unwrap();
    let mut raw = [0u8; 32];
    let mut seen = Vec::new();
    wait_for(|| {
        while ring.pop(r, &mut raw).unwrap() {
            seen.push(Notification::decode(&raw));
        }
        seen.iter().map(|n| u64::from(n.value)).sum::<u64>() == 100
    });
    assert!(started.elapsed() < Duration::from_secs(5));
    for (i, n) in seen.iter().enumerate() {
        // `notify(arm, …)`: target 1; raised by the active bank 0.
        assert_eq!((n.slot, n.target, n.bank, n.flags), (0, 1, 0, 0));
        assert_eq!(n.seq, i as u64 + 1, "seq numbers every record");
    }
}

/// The data words of a record.
fn words(v: &num_bigint::BigUint) -> Vec<u64> {
    v.iter_u64_digits().collect()
}

#[test]
fn activate_with_carry_keeps_program_and_host_state_exactly() {
    let emu = Emu::start_models();
    let dev = emu.open();
    let first = load_example(&dev, 0, "firewall");
    let (manifest, _) = example_package("firewall");
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest).unwrap())
        .unwrap();
    let control = &m.control.scus[0];
    let acl = control.tables.iter().find(|t| t.name == "acl").unwrap();
    // deny: 10.9.0.0/16, any, any, any (firewall.sn's acl keys: src lpm, dst ternary,
    // protocol ternary, l4_dst range).
    use scenic_ir::program::KeyMatch;
    use scenic_ir::types::Const;
    let deny = acl.actions.iter().position(|a| a.name == "deny").unwrap() as u32;
    let record = acl
        .encode_entry(
            &[
                KeyMatch::Lpm(Const(0x0A09_0000u32.into()), 16),
                KeyMatch::Any,
                KeyMatch::Any,
                KeyMatch::Any,
            ],
            deny,
            &[],
            1,
        )
        .unwrap();
    let add = ControlEntry::new(0x10, 0, acl.target, 0, 1)
        .with_data(&words(&record))
        .unwrap();
    let rsp = call(&dev, 0, &add);
    assert_eq!(rsp.op, 0, "TableAdd");
    let handle = rsp.data[0];
    // Traffic: 30 packets from pod 1 (10.1.x.x, passed) and 20 from 10.9.x.x (denied).
    let mut engine = ModelEngine::new(emu.banks.clone(), 0);
    let mut send = |src: [u8; 4], n: u64| {
        for i in 0..n {
            let f = ipv4_udp(src, [10, 0, 0, 1]);
            let _ = engine.packet(SlotInput {
                data: &f,
                source: Source::Network(0),
                now_ns: i,
                class: Class::Slow,
            });
        }
    };
    send([10, 1, 2, 3], 30);
    send([10, 9, 0, 7], 20);
    let by_pod = control
        .counters
        .iter()
        .find(|c| c.name == "by_pod")
        .unwrap();
    let read_cell = |cell: u32| {
        let rsp = call(&dev, 0, &ControlEntry::new(0x20, 0, by_pod.target, cell, 2));
        assert_eq!(rsp.op, 0);
        (rsp.data[0], rsp.data[1])
    };
    // by_pod counts every IPv4 packet by its second octet before the ACL: 30 in cell 1, 20 in 9.
    assert_eq!(read_cell(1).0, 30);
    assert_eq!(read_cell(9).0, 20);
    let dropped_before = call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 3)).data[0];
    assert_eq!(
        dropped_before, 20,
        "the run-time deny entry dropped 10.9/16"
    );

    // Swap to the same program with CARRY: everything agrees, so everything is carried.
    let (manifest, model) = example_package("firewall");
    let image = container::build(&manifest, &model);
    let second = stage_and_load(
        &dev,
        0,
        &image,
        &identity_of(&manifest, 0),
        container::crc32(&image),
    )
    .unwrap();
    assert_ne!(second, first as u32);
    dev.slot_command(0, SlotOp::Activate, slot::ACTIVATE_CARRY)
        .unwrap();
    assert_eq!(read_cell(1).0, 30);
    assert_eq!(read_cell(9).0, 20);
    assert_eq!(
        call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 4)).data[0],
        20
    );
    // The carried entry still denies, and its handle still names it.
    send([10, 9, 0, 8], 5);
    assert_eq!(
        call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 5)).data[0],
        25
    );
    let del = ControlEntry::new(0x11, 0, acl.target, handle as u32, 6);
    assert_eq!(
        call(&dev, 0, &del).op,
        0,
        "TableRemove of the carried handle"
    );

    // Without CARRY the next unit starts fresh.
    wait_for(|| dev.slot_state(0).unwrap().quiesced);
    dev.slot_command(0, SlotOp::Free, 1).unwrap();
    stage_and_load(
        &dev,
        0,
        &image,
        &identity_of(&manifest, 0),
        container::crc32(&image),
    )
    .unwrap();
    dev.slot_command(0, SlotOp::Activate, 0).unwrap();
    assert_eq!(read_cell(1).0, 0);
    assert_eq!(
        call(&dev, 0, &ControlEntry::new(0x01, 0, 0, 0, 7)).data[0],
        0
    );
}

fn control_of(name: &str) -> scenic_scu_abi::control::ScuControl {
    let (manifest, _) = example_package(name);
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest).unwrap())
        .unwrap();
    m.control.scus[0].clone()
}

#[test]
fn the_carry_plan_lists_every_object_of_the_new_unit_once() {
    use scenic_runtime::carry::CarryPlan;
    let fw = control_of("firewall");
    let same = CarryPlan::between(&fw, &fw);
    // firewall.sn: 4 CSRs, table acl, map subnets, counter by_pod, meter limiter.
    assert_eq!(same.items.len(), 4 + 1 + 1 + 1 + 1);
    assert_eq!(same.fresh().count(), 0);
    let router = control_of("l3_router");
    let plan = CarryPlan::between(&fw, &router);
    let objects = router.csrs.len()
        + router.tables.len()
        + router.maps.len()
        + router.counters.len()
        + router.meters.len();
    assert_eq!(plan.items.len(), objects);
    // No name of l3_router.sn's is one of firewall.sn's: nothing carried, each says why.
    assert_eq!(plan.carried().count(), 0);
    assert!(plan.fresh().all(|i| i.reason.contains("has no")));
    // A CSR of the same name and another width is not carried.
    let mut wider = fw.clone();
    wider.csrs[3].width = 64;
    let plan = CarryPlan::between(&fw, &wider);
    let window = plan
        .items
        .iter()
        .find(|i| i.name == "window_packets")
        .unwrap();
    assert_eq!(window.from, None);
    assert!(window.reason.contains("width"));
}
