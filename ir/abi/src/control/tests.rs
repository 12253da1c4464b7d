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
    let codes: std::collections::BTreeSet<u8> = Op::ALL.iter().map(|op| *op as u8).collect();
    assert_eq!(codes.len(), Op::ALL.len(), "codes are unique");
    let names: std::collections::BTreeSet<&str> =
        Op::ALL.iter().map(|op| op.const_name()).collect();
    assert_eq!(names.len(), Op::ALL.len(), "names are unique");
    assert_eq!(Op::from_code(0x14), Some(Op::TableModify));
    assert_eq!(Op::TableModify.const_name(), "OP_TABLE_MODIFY");
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

/// Tables of every key encoding, for the decode round trip.
const ENCODINGS: &str = "
use std::net::{ethernet, ipv4};
scu t on slow_path {
    headers { eth: ethernet, ip: ipv4 }
    parser { state start { extract(eth); extract(ip); accept } }
    table ex {
        key { ip.protocol: exact, eth.ether_type: exact }
        actions { a(x: bit<8>), b(y: bit<3>, z: bit<16>) }
        size 4;
    }
    table lp {
        key { ip.dst: lpm, ip.protocol: exact }
        actions { a(x: bit<8>) }
        size 4;
    }
    table pr {
        key { ip.src: ternary, ip.ttl: range, ip.dst: lpm, ip.protocol: exact }
        actions { a(x: bit<8>), b(y: bit<3>, z: bit<16>) }
        size 4;
    }
    control {
        match ex.apply() { a(_) => {} b(_, _) => {} no_action => {} }
        match lp.apply() { a(_) => {} no_action => {} }
        match pr.apply() { a(_) => {} b(_, _) => {} no_action => {} }
        to_network(0);
    }
}
";

/// xorshift64: a fixed pseudo-random sequence for the property tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn bits(&mut self, width: u32) -> u64 {
        let v = self.next();
        if width >= 64 {
            v
        } else if self.next() % 4 == 0 {
            (1 << width) - 1 // all ones, the edge case
        } else {
            v & ((1 << width) - 1)
        }
    }
}

/// A random match that fits a key of this encoding and width.
fn random_match(rng: &mut Rng, k: &KeyControl) -> KeyMatch {
    let w = k.width;
    let c = Const::from_u64;
    match (k.encoding, rng.next() % 4) {
        (_, 0) => KeyMatch::Any,
        (KeyEncoding::Exact, _) | (_, 1) => KeyMatch::Exact(c(rng.bits(w))),
        (KeyEncoding::Lpm, _) => {
            KeyMatch::Lpm(c(rng.bits(w)), (rng.next() % u64::from(w + 3)) as u32)
        }
        (KeyEncoding::Ternary, _) => KeyMatch::Ternary(c(rng.bits(w)), c(rng.bits(w))),
        (KeyEncoding::Range, _) => KeyMatch::Range(c(rng.bits(w)), c(rng.bits(w))),
    }
}

/// The canonical form of a match as the record stores it (`TableControl::decode_entry`'s doc):
/// written from the documented encoding, not from the decoder.
fn canonical(k: &KeyControl, exact_table: bool, m: &KeyMatch) -> KeyMatch {
    let w = k.width;
    let max = (1u64 << w) - 1;
    let lpm = |v: u64, len: u32| {
        let len = len.min(w);
        if len == 0 {
            KeyMatch::Any
        } else {
            let mask = max ^ ((1u64 << (w - len)) - 1);
            KeyMatch::Lpm(Const::from_u64(v & mask), len)
        }
    };
    let u = |c: &Const| to_u64(&c.0);
    match (k.encoding, m) {
        (KeyEncoding::Exact, KeyMatch::Any) if w == 1 && exact_table => {
            KeyMatch::Exact(Const::from_u64(0))
        }
        (KeyEncoding::Lpm, KeyMatch::Lpm(v, len)) => lpm(u(v), *len),
        (KeyEncoding::Lpm, KeyMatch::Exact(v)) => lpm(u(v), w),
        (KeyEncoding::Ternary, KeyMatch::Exact(v)) => {
            KeyMatch::Ternary(v.clone(), Const::from_u64(max))
        }
        (KeyEncoding::Ternary, KeyMatch::Ternary(_, m)) if u(m) == 0 => KeyMatch::Any,
        (KeyEncoding::Ternary, KeyMatch::Ternary(v, m)) => {
            KeyMatch::Ternary(Const::from_u64(u(v) & u(m)), m.clone())
        }
        (KeyEncoding::Range, KeyMatch::Exact(v)) => KeyMatch::Range(v.clone(), v.clone()),
        (KeyEncoding::Range, KeyMatch::Range(lo, hi)) if u(lo) == 0 && u(hi) == max => {
            KeyMatch::Any
        }
        (_, m) => m.clone(),
    }
}

#[test]
fn decode_entry_inverts_encode_entry() {
    let mut session = scenic_frontend::Session::new();
    session.add_source("encodings.sn", ENCODINGS);
    let module = scenic_lower::lower_session(&mut session).expect("lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("validates");
    let layout = ControlLayout::new(&module, &info);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for table in &layout.scus[0].tables {
        let exact_table = table.strategy == TableStrategy::Exact;
        for _ in 0..2000 {
            let keys: Vec<KeyMatch> = table
                .keys
                .iter()
                .map(|k| random_match(&mut rng, k))
                .collect();
            let action = (rng.next() % table.actions.len() as u64) as u32;
            let args: Vec<BigUint> = (0..3).map(|_| BigUint::from(rng.next())).collect();
            let priority = rng.next() & 0xffff_ffff;
            let record = table
                .encode_entry(&keys, action, &args, priority)
                .expect("encodes");
            let back = table.decode_entry(&record).expect("decodes");
            let want: Vec<KeyMatch> = table
                .keys
                .iter()
                .zip(&keys)
                .map(|(k, m)| canonical(k, exact_table, m))
                .collect();
            assert_eq!(back.keys, want, "{}: {keys:?}", table.name);
            assert_eq!(back.action, action);
            assert_eq!(back.priority, priority);
            let params = &table.actions[action as usize].params;
            let want_args: Vec<BigUint> = params
                .iter()
                .zip(&args)
                .map(|(p, a)| low_bits(a, p.width))
                .collect();
            assert_eq!(back.args, want_args);
            // Decoding is a fixed point: the canonical entry encodes to the same record.
            let again = table
                .encode_entry(&back.keys, back.action, &back.args, back.priority)
                .expect("re-encodes");
            assert_eq!(table.decode_entry(&again).expect("decodes"), back);
        }
    }
    let ex = &layout.scus[0].tables[0];
    let n = ex.actions.len() as u32;
    assert!(matches!(
        ex.decode_entry(&BigUint::from(n)),
        Err(ControlError::NoAction { position, .. }) if position == n
    ));
}
