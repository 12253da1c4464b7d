//! Tests of the control interface: packing, field placement and the examples' layouts.

use super::*;
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;

fn example(name: &str) -> (scenic_ir::Module, scenic_ir::ModuleInfo) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("example loads");
    let module = scenic_lower::lower_session(&mut session).expect("example lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("example validates");
    (module, info)
}

#[test]
fn requests_and_responses_round_trip() {
    let r = Request {
        op: Op::TableAdd,
        target: 3,
        index: 0xdead_beef,
        data: BigUint::from(0x1234_5678_9abc_def0_u64) << 70,
    };
    let packed = r.pack(192);
    assert_eq!(Request::unpack(&packed, 192), Some(r));
    let resp = Response {
        status: Status::Full as u8,
        data: BigUint::from(7u32),
    };
    assert_eq!(Response::unpack(&resp.pack(128), 128), resp);
    assert_eq!(
        Response::unpack(&resp.pack(128), 128).status(),
        Some(Status::Full)
    );
}

#[test]
fn codes_are_unique_and_decode() {
    for op in Op::ALL {
        assert_eq!(Op::from_code(op as u8), Some(op));
    }
    for s in Status::ALL {
        assert_eq!(Status::from_code(s as u8), Some(s));
    }
    assert_eq!(Op::from_code(0xff), None);
}

#[test]
fn put_and_get_fields() {
    let mut v = BigUint::from(u64::MAX);
    put_field(&mut v, 8, 16, &BigUint::from(0x1_2345u32));
    assert_eq!(get_field(&v, 8, 16), BigUint::from(0x2345u32));
    assert_eq!(get_field(&v, 0, 8), BigUint::from(0xffu32));
    assert_eq!(get_field(&v, 24, 40), BigUint::from((1u64 << 40) - 1));
}

#[test]
fn firewall_layout() {
    let (module, info) = example("firewall.sn");
    let layout = ControlLayout::new(&module, &info);
    assert_eq!(layout.data_bits % 64, 0);
    let scu = layout.scu("incast_firewall").expect("scu");
    assert_eq!(scu.mailbox.request_data, 4);
    let acl = scu.table("acl").expect("acl");
    assert_eq!(acl.strategy, TableStrategy::Priority);
    assert!(acl.record_bits <= layout.data_bits);
    let keys = [
        KeyMatch::Lpm(Const::from_u64(0x0a03_0700), 24),
        KeyMatch::Any,
        KeyMatch::Ternary(Const::from_u64(6), Const::from_u64(0xff)),
        KeyMatch::Range(Const::from_u64(7000), Const::from_u64(7099)),
    ];
    let record = acl
        .encode_entry(&keys, 2, &[BigUint::from(0x15u32)], 10)
        .expect("encodes");
    assert_eq!(acl.decode_action(&record), 2);
    // limit(class: bit<4>) keeps the low 4 bits, as the interpreter does.
    assert_eq!(acl.decode_args(&record), vec![BigUint::from(5u32)]);
    let src = &acl.keys[0];
    assert_eq!(
        get_field(&record, src.aux.lo, src.aux.width),
        BigUint::from(24u32)
    );
    let dst = &acl.keys[1];
    assert_eq!(
        get_field(&record, dst.aux.lo, dst.aux.width),
        BigUint::zero()
    );
    let port = &acl.keys[3];
    assert_eq!(
        get_field(&record, port.aux.lo, port.aux.width),
        BigUint::from(7099u32)
    );
    assert!(acl.encode_entry(&keys, 9, &[], 0).is_err());
    assert!(acl.encode_entry(&keys, 0, &[], 1 << 40).is_err());
    assert!(acl.encode_entry(&keys[..2], 0, &[], 0).is_err());
    let subnets = scu.map("subnets").expect("map");
    assert_eq!(subnets.key_bits, 24);
    assert_eq!(subnets.value_bits, 32 + 48 + 64);
    assert_eq!(subnets.value_fields[1].lo, 32);
    let json = serde_json::to_string(&layout).expect("serialises");
    let back: ControlLayout = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(back, layout);
}

#[test]
fn every_example_has_a_layout() {
    for name in [
        "l3_router.sn",
        "flow_monitor.sn",
        "partition.sn",
        "dcqcn.sn",
    ] {
        let (module, info) = example(name);
        let layout = ControlLayout::new(&module, &info);
        for scu in &layout.scus {
            for t in &scu.tables {
                assert!(t.record_bits <= layout.data_bits, "{name}");
            }
            assert_eq!(
                scu.mailbox.end - scu.mailbox.request_data,
                3 + 2 * layout.data_bits / 64
            );
        }
    }
}
