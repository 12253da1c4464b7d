//! The host control path on the interpreter (`scenic_sim::control::serve`): every op and every
//! status the kernel can answer, on `programs/control_ops.sn`. Expectations come from the control
//! interface's documentation (`ir/abi/src/control/mod.rs`, docs/device.md §3.5–3.6,
//! docs/language.md §7.9–7.11) and the generated kernel's decoder (`backend-hls/src/writer/ctrl.rs`,
//! `tables.rs`, `tables_exact.rs`, `include/scenic_map_*.hpp`), not from `serve`'s output.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use num_bigint::BigUint;
use scenic_interp::{Destination, Machine};
use scenic_ir::entities::ScuId;
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;
use scenic_scu_abi::control::{
    decode_counter, encode_meter, ControlLayout, MapControl, Op, Request, ScuControl, Status,
    TableControl,
};
use scenic_sim::control::serve;
use std::collections::BTreeSet;

fn load() -> scenic_ir::Module {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/control_ops.sn");
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("program loads");
    scenic_lower::lower_session(&mut session).unwrap_or_else(|e| panic!("lowers: {e}"))
}

/// A machine, its scu's layout, and every status answered so far.
struct Rig<'m> {
    m: Machine<'m>,
    layout: ScuControl,
    seen: BTreeSet<u8>,
}

/// Where a packet went.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    Port(u8),
    Dropped,
    Host,
}

const ETH_IPV4: u16 = 0x0800;

impl<'m> Rig<'m> {
    fn new(module: &'m scenic_ir::Module) -> Rig<'m> {
        let info = scenic_ir::Validator::new()
            .validate(module)
            .expect("validates");
        let layout = ControlLayout::new(module, &info).scus.remove(0);
        Rig {
            m: Machine::new(module),
            layout,
            seen: BTreeSet::new(),
        }
    }

    fn req(&mut self, op: Op, target: u16, index: u32, data: BigUint) -> (Status, BigUint) {
        let r = serve(
            &mut self.m,
            ScuId::from_u32(0),
            &self.layout,
            &Request {
                op,
                target,
                index,
                data,
            },
        );
        self.seen.insert(r.status);
        (r.status().expect("a known status"), r.data)
    }

    fn status(&mut self, op: Op, target: u16, index: u32, data: BigUint) -> Status {
        self.req(op, target, index, data).0
    }

    fn ok(&mut self, op: Op, target: u16, index: u32, data: BigUint) -> BigUint {
        let (s, d) = self.req(op, target, index, data);
        assert_eq!(s, Status::Ok, "{op:?} {target} {index}");
        d
    }

    fn table(&self, name: &str) -> TableControl {
        self.layout.table(name).expect("table").clone()
    }

    fn map(&self, name: &str) -> MapControl {
        self.layout.map(name).expect("map").clone()
    }

    /// `TableAdd` of an entry; the status and the handle.
    fn add(
        &mut self,
        t: &str,
        keys: &[KeyMatch],
        action: u32,
        args: &[u64],
        prio: u64,
    ) -> (Status, u32) {
        let tc = self.table(t);
        let args: Vec<BigUint> = args.iter().map(|a| BigUint::from(*a)).collect();
        let rec = tc.encode_entry(keys, action, &args, prio).expect("encodes");
        let (s, d) = self.req(Op::TableAdd, tc.target, 0, rec);
        (s, u32::try_from(d).expect("a 32-bit handle"))
    }

    fn set_default(&mut self, t: &str, action: u32, args: &[u64]) -> Status {
        let tc = self.table(t);
        let args: Vec<BigUint> = args.iter().map(|a| BigUint::from(*a)).collect();
        let rec = tc.encode_default(action, &args).expect("encodes");
        self.status(Op::TableSetDefault, tc.target, 0, rec)
    }

    /// A packet: destination MAC ending in `sel`, source MAC ending in `src`, and an IPv4 header
    /// (`ip`: source, destination, protocol, ttl) when the ether type is IPv4.
    fn packet(&mut self, sel: u8, src: u8, ether: u16, ip: (u32, u32, u8, u8)) -> Fate {
        let mut p = vec![2, 0, 0, 0, 0, sel, 2, 0, 0, 0, 0, src];
        p.extend(ether.to_be_bytes());
        if ether == ETH_IPV4 {
            p.extend([0x45, 0, 0, 46, 0, 0, 0, 0, ip.3, ip.2, 0, 0]);
            p.extend(ip.0.to_be_bytes());
            p.extend(ip.1.to_be_bytes());
        }
        p.resize(60, 0);
        let out = self.m.process_packet(ScuId::from_u32(0), &p, 0, 0);
        match out.outputs.first() {
            _ if out.dropped.is_some() => Fate::Dropped,
            Some((Destination::Network(port), _)) => Fate::Port(*port),
            Some((Destination::Host, _)) => Fate::Host,
            other => panic!("unexpected output {other:?}"),
        }
    }

    fn ip_packet(&mut self, sel: u8, src: u32, dst: u32, proto: u8, ttl: u8) -> Fate {
        self.packet(sel, 0, ETH_IPV4, (src, dst, proto, ttl))
    }
}

fn exact(v: u64) -> KeyMatch {
    KeyMatch::Exact(Const::from_u64(v))
}

fn ip(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from_be_bytes([a, b, c, d])
}

fn csrs(r: &mut Rig<'_>) {
    // Offsets in declaration order: seen 0 (readonly), knob 1 (12 bits), param mode 2.
    assert_eq!(r.ok(Op::CsrRead, 1, 0, 0u32.into()), BigUint::from(0u32));
    r.ok(Op::CsrWrite, 1, 0, BigUint::from(0x1abcu32));
    assert_eq!(
        r.ok(Op::CsrRead, 1, 0, 0u32.into()),
        BigUint::from(0xabcu32),
        "masked to 12 bits"
    );
    assert_eq!(
        r.ok(Op::CsrRead, 2, 0, 0u32.into()),
        BigUint::from(3u32),
        "the param's default"
    );
    r.ok(Op::CsrWrite, 2, 0, BigUint::from(0xffu32));
    assert_eq!(r.ok(Op::CsrRead, 2, 0, 0u32.into()), BigUint::from(0xfu32));
    let before = r.ok(Op::CsrRead, 0, 0, 0u32.into());
    assert_eq!(
        r.status(Op::CsrWrite, 0, 0, BigUint::from(99u32)),
        Status::ReadOnly
    );
    assert_eq!(
        r.ok(Op::CsrRead, 0, 0, 0u32.into()),
        before,
        "a refused write changes nothing"
    );
    r.packet(0, 1, 0x86dd, (0, 0, 0, 0));
    assert_eq!(
        r.ok(Op::CsrRead, 0, 0, 0u32.into()),
        before + 1u32,
        "the program counts"
    );
    assert_eq!(r.status(Op::CsrRead, 3, 0, 0u32.into()), Status::BadTarget);
    assert_eq!(r.status(Op::CsrWrite, 3, 0, 0u32.into()), Status::BadTarget);
}

#[test]
fn csr_read_write_mask_and_readonly() {
    let module = load();
    csrs(&mut Rig::new(&module));
}

fn exact_table(r: &mut Rig<'_>) {
    let t = r.table("by_type").target;
    let arp: u16 = 0x0806;
    let arp64 = u64::from(arp);
    assert_eq!(
        r.packet(0, 0x22, arp, (0, 0, 0, 0)),
        Fate::Port(7),
        "the default"
    );
    assert_eq!(
        r.add("by_type", &[exact(arp64), exact(0x22)], 0, &[3], 0),
        (Status::Ok, 1)
    );
    assert_eq!(
        r.packet(0, 0x22, arp, (0, 0, 0, 0)),
        Fate::Port(3),
        "the entry added"
    );
    assert_eq!(r.packet(0, 0x23, arp, (0, 0, 0, 0)), Fate::Port(7));
    assert_eq!(
        r.add("by_type", &[exact(arp64), exact(0x22)], 1, &[], 0),
        (Status::Duplicate, 0)
    );
    assert_eq!(
        r.add("by_type", &[exact(arp64), exact(0x23)], 1, &[], 0),
        (Status::Ok, 2)
    );
    assert_eq!(
        r.packet(0, 0x23, arp, (0, 0, 0, 0)),
        Fate::Dropped,
        "ex_drop"
    );
    // Action 3 does not exist (ex_out, ex_drop, no_action): refused before anything else.
    let mut bad = r
        .table("by_type")
        .encode_entry(&[exact(1), exact(1)], 0, &[], 0)
        .unwrap();
    bad |= BigUint::from(3u32);
    assert_eq!(r.status(Op::TableAdd, t, 0, bad.clone()), Status::BadAction);
    assert_eq!(r.status(Op::TableSetDefault, t, 0, bad), Status::BadAction);
    assert_eq!(
        r.add("by_type", &[exact(1), exact(1)], 2, &[], 0),
        (Status::Ok, 3)
    );
    assert_eq!(
        r.add("by_type", &[exact(1), exact(2)], 2, &[], 0),
        (Status::Ok, 4)
    );
    assert_eq!(
        r.add("by_type", &[exact(1), exact(3)], 2, &[], 0),
        (Status::Full, 0),
        "size 4"
    );
    exact_table_lifecycle(r, t, arp);
}

/// Removal by handle, default change and clear on `by_type` after [`exact_table`]'s adds.
fn exact_table_lifecycle(r: &mut Rig<'_>, t: u16, arp: u16) {
    let arp64 = u64::from(arp);
    // Removal by handle; a handle is never given twice.
    assert_eq!(r.status(Op::TableRemove, t, 2, 0u32.into()), Status::Ok);
    assert_eq!(
        r.status(Op::TableRemove, t, 2, 0u32.into()),
        Status::NotFound
    );
    assert_eq!(
        r.packet(0, 0x23, arp, (0, 0, 0, 0)),
        Fate::Port(7),
        "removed"
    );
    assert_eq!(
        r.add("by_type", &[exact(1), exact(3)], 2, &[], 0),
        (Status::Ok, 5)
    );
    assert_eq!(r.set_default("by_type", 0, &[8]), Status::Ok);
    assert_eq!(
        r.packet(0, 0x23, arp, (0, 0, 0, 0)),
        Fate::Port(8),
        "the new default"
    );
    assert_eq!(r.status(Op::TableClear, t, 0, 0u32.into()), Status::Ok);
    assert_eq!(
        r.packet(0, 0x22, arp, (0, 0, 0, 0)),
        Fate::Port(8),
        "cleared"
    );
    assert_eq!(
        r.status(Op::TableRemove, t, 1, 0u32.into()),
        Status::NotFound
    );
    assert_eq!(
        r.add("by_type", &[exact(arp64), exact(0x22)], 0, &[4], 0),
        (Status::Ok, 6)
    );
    assert_eq!(r.packet(0, 0x22, arp, (0, 0, 0, 0)), Fate::Port(4));
    for op in [
        Op::TableAdd,
        Op::TableRemove,
        Op::TableClear,
        Op::TableSetDefault,
    ] {
        assert_eq!(r.status(op, 9, 0, 0u32.into()), Status::BadTarget, "{op:?}");
    }
}

#[test]
fn exact_table_add_match_remove_clear_default() {
    let module = load();
    exact_table(&mut Rig::new(&module));
}

fn lpm_table(r: &mut Rig<'_>) {
    let lpm = |a: u32, len: u32| KeyMatch::Lpm(Const::from_u64(u64::from(a)), len);
    assert_eq!(
        r.ip_packet(1, 0, ip(10, 1, 2, 3), 6, 64),
        Fate::Port(1),
        "the constant /8"
    );
    assert_eq!(
        r.add("routes", &[lpm(ip(10, 1, 0, 0), 16), exact(6)], 0, &[2], 0),
        (Status::Ok, 1)
    );
    assert_eq!(
        r.ip_packet(1, 0, ip(10, 1, 2, 3), 6, 64),
        Fate::Port(2),
        "/16 beats /8"
    );
    assert_eq!(r.ip_packet(1, 0, ip(10, 2, 2, 3), 6, 64), Fate::Port(1));
    assert_eq!(
        r.ip_packet(1, 0, ip(10, 1, 2, 3), 17, 64),
        Fate::Port(9),
        "the exact key"
    );
    assert_eq!(
        r.add("routes", &[lpm(ip(10, 1, 2, 0), 24), exact(6)], 0, &[4], 0),
        (Status::Ok, 2)
    );
    assert_eq!(
        r.ip_packet(1, 0, ip(10, 1, 2, 3), 6, 64),
        Fate::Port(4),
        "/24 beats /16"
    );
    // Equal keys repeat an entry, the constant one included (language.md §7.9.8); the host bits
    // below the prefix do not count.
    assert_eq!(
        r.add("routes", &[lpm(ip(10, 1, 9, 9), 16), exact(6)], 0, &[5], 0)
            .0,
        Status::Duplicate
    );
    assert_eq!(
        r.add("routes", &[lpm(ip(10, 0, 0, 0), 8), exact(6)], 0, &[5], 0)
            .0,
        Status::Duplicate
    );
    assert_eq!(r.set_default("routes", 0, &[11]), Status::Ok);
    assert_eq!(r.ip_packet(1, 0, ip(11, 1, 2, 3), 6, 64), Fate::Port(11));
    assert_eq!(r.status(Op::TableRemove, 1, 2, 0u32.into()), Status::Ok);
    assert_eq!(r.ip_packet(1, 0, ip(10, 1, 2, 3), 6, 64), Fate::Port(2));
}

#[test]
fn lpm_table_longest_prefix_wins() {
    let module = load();
    lpm_table(&mut Rig::new(&module));
}

fn priority_table(r: &mut Rig<'_>) {
    let tern = KeyMatch::Ternary(
        Const::from_u64(u64::from(ip(192, 168, 0, 0))),
        Const::from_u64(0xffff_0000),
    );
    let range = |lo: u64, hi: u64| KeyMatch::Range(Const::from_u64(lo), Const::from_u64(hi));
    let host = ip(192, 168, 7, 7);
    assert_eq!(
        r.ip_packet(2, host, 0, 6, 15),
        Fate::Port(20),
        "the default"
    );
    assert_eq!(
        r.add("acl", &[tern.clone(), range(10, 20)], 0, &[4, 1], 5),
        (Status::Ok, 1)
    );
    assert_eq!(r.ip_packet(2, host, 0, 6, 15), Fate::Port(4));
    assert_eq!(
        r.ip_packet(2, host, 0, 6, 21),
        Fate::Port(20),
        "outside the range"
    );
    assert_eq!(
        r.ip_packet(2, ip(192, 169, 7, 7), 0, 6, 15),
        Fate::Port(20),
        "outside the mask"
    );
    // Lower priority number wins; equal keys with another priority are no duplicate.
    assert_eq!(
        r.add("acl", &[tern.clone(), range(10, 20)], 0, &[6, 0], 3),
        (Status::Ok, 2)
    );
    assert_eq!(r.ip_packet(2, host, 0, 6, 15), Fate::Port(6));
    assert_eq!(
        r.add("acl", &[tern.clone(), range(10, 20)], 0, &[7, 0], 3),
        (Status::Duplicate, 0)
    );
    // A later entry with the same number ranks after the earlier one.
    assert_eq!(
        r.add("acl", &[KeyMatch::Any, range(15, 15)], 0, &[8, 0], 3),
        (Status::Ok, 3)
    );
    assert_eq!(r.ip_packet(2, host, 0, 6, 15), Fate::Port(6));
    assert_eq!(r.status(Op::TableRemove, 2, 2, 0u32.into()), Status::Ok);
    assert_eq!(
        r.ip_packet(2, host, 0, 6, 15),
        Fate::Port(8),
        "priority 3 before 5"
    );
    assert_eq!(r.ip_packet(2, host, 0, 6, 14), Fate::Port(4));
    // Constant entries come first whatever the host's priority: ttl 1 is dropped.
    assert_eq!(
        r.add("acl", &[KeyMatch::Any, KeyMatch::Any], 0, &[9, 0], 0),
        (Status::Ok, 4)
    );
    assert_eq!(r.ip_packet(2, host, 0, 6, 1), Fate::Dropped);
    assert_eq!(
        r.ip_packet(2, host, 0, 6, 15),
        Fate::Port(9),
        "priority 0 first"
    );
}

#[test]
fn priority_table_ternary_range_and_priorities() {
    let module = load();
    priority_table(&mut Rig::new(&module));
}

fn constant_table(r: &mut Rig<'_>) {
    let t = r.table("fixed").target;
    assert_eq!(
        r.ip_packet(3, 0, 0, 17, 64),
        Fate::Port(17),
        "the constant entry"
    );
    assert_eq!(
        r.add("fixed", &[exact(6)], 0, &[1], 0),
        (Status::Constant, 0)
    );
    // An unknown action is refused first (BadAction before Constant, as the kernel checks).
    let bad = BigUint::from(r.table("fixed").actions.len() as u64);
    assert_eq!(r.status(Op::TableAdd, t, 0, bad), Status::BadAction);
    assert_eq!(
        r.status(Op::TableRemove, t, 0, 0u32.into()),
        Status::NotFound,
        "constant entries have no handle"
    );
    assert_eq!(r.status(Op::TableClear, t, 0, 0u32.into()), Status::Ok);
    assert_eq!(
        r.ip_packet(3, 0, 0, 17, 64),
        Fate::Port(17),
        "a clear keeps constant entries"
    );
    // language.md §7.9.3: "The host may replace the default action at run time, except in a
    // constant table": refused, and a miss still runs the declared default `fx_out(5)`.
    assert_eq!(r.ip_packet(3, 0, 0, 6, 64), Fate::Port(5), "the default");
    assert_eq!(r.set_default("fixed", 0, &[12]), Status::Constant);
    assert_eq!(
        r.ip_packet(3, 0, 0, 6, 64),
        Fate::Port(5),
        "the default is unchanged"
    );
    // An unknown action is still refused first.
    let bad = BigUint::from(r.table("fixed").actions.len() as u64);
    assert_eq!(r.status(Op::TableSetDefault, t, 0, bad), Status::BadAction);
}

#[test]
fn constant_table_refuses_entries() {
    let module = load();
    constant_table(&mut Rig::new(&module));
}

fn hashed_table(r: &mut Rig<'_>) {
    // `hosts` has 100 entries, all keys exact: hashed in BRAM, handles `generation << 7 | row`
    // (7 bits hold rows 0..99), rows in FIFO order, generations from 1 (tables_exact.rs).
    let t = r.table("hosts").target;
    let a = ip(10, 0, 0, 1);
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(30));
    assert_eq!(
        r.add("hosts", &[exact(u64::from(a))], 0, &[31], 0),
        (Status::Ok, 1 << 7)
    );
    assert_eq!(
        r.add("hosts", &[exact(2)], 0, &[32], 0),
        (Status::Ok, (1 << 7) | 1)
    );
    assert_eq!(
        r.add("hosts", &[exact(2)], 0, &[32], 0),
        (Status::Duplicate, 0)
    );
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(31));
    assert_eq!(
        r.status(Op::TableRemove, t, 1 << 7, 0u32.into()),
        Status::Ok
    );
    assert_eq!(
        r.status(Op::TableRemove, t, 1 << 7, 0u32.into()),
        Status::NotFound,
        "stale"
    );
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(30));
    // Row 0 went to the back of the ring: the next add takes row 2.
    assert_eq!(
        r.add("hosts", &[exact(u64::from(a))], 0, &[33], 0),
        (Status::Ok, (1 << 7) | 2)
    );
    // A clear frees every row in row order; the rows that held entries move on a generation.
    assert_eq!(r.status(Op::TableClear, t, 0, 0u32.into()), Status::Ok);
    assert_eq!(
        r.add("hosts", &[exact(5)], 0, &[1], 0),
        (Status::Ok, 2 << 7)
    );
    assert_eq!(
        r.add("hosts", &[exact(6)], 0, &[1], 0),
        (Status::Ok, (2 << 7) | 1)
    );
    assert_eq!(
        r.add("hosts", &[exact(7)], 0, &[1], 0),
        (Status::Ok, (2 << 7) | 2)
    );
    assert_eq!(
        r.add("hosts", &[exact(8)], 0, &[1], 0),
        (Status::Ok, (1 << 7) | 3)
    );
    for k in 9..105 {
        assert_eq!(r.add("hosts", &[exact(k)], 0, &[1], 0).0, Status::Ok, "{k}");
    }
    assert_eq!(
        r.add("hosts", &[exact(200)], 0, &[1], 0),
        (Status::Full, 0),
        "100 entries"
    );
}

#[test]
fn hashed_exact_table_numbers_entries_by_row() {
    let module = load();
    hashed_table(&mut Rig::new(&module));
}

fn counters(r: &mut Rig<'_>) {
    let per_port = r.layout.counter("per_port").expect("counter").target;
    let pkts = r.layout.counter("pkts").expect("counter").target;
    let before = decode_counter(&r.ok(Op::CounterRead, per_port, 1, 0u32.into()));
    let cell2 = decode_counter(&r.ok(Op::CounterRead, per_port, 2, 0u32.into())).0;
    r.packet(1, 0, 0x86dd, (0, 0, 0, 0));
    r.packet(1, 0, 0x86dd, (0, 0, 0, 0));
    r.packet(2, 0, 0x86dd, (0, 0, 0, 0));
    let (p, b) = decode_counter(&r.ok(Op::CounterRead, per_port, 1, 0u32.into()));
    assert_eq!(
        (p - before.0, b - before.1),
        (2, 120),
        "two 60-byte packets on cell 1"
    );
    let data = r.ok(Op::CounterRead, per_port, 1, 0u32.into());
    assert_eq!(
        data,
        BigUint::from(p) | (BigUint::from(b) << 64),
        "packets 0..64, bytes 64..128"
    );
    let (p, b) = decode_counter(&r.ok(Op::CounterRead, pkts, 0, 0u32.into()));
    assert!(p >= 3);
    assert_eq!(b, 0, "a packets counter reads 0 bytes");
    r.ok(Op::CounterClear, per_port, 1, 0u32.into());
    assert_eq!(
        decode_counter(&r.ok(Op::CounterRead, per_port, 1, 0u32.into())),
        (0, 0)
    );
    assert_eq!(
        decode_counter(&r.ok(Op::CounterRead, per_port, 2, 0u32.into())).0,
        cell2 + 1,
        "cell 2 kept"
    );
    assert_eq!(
        r.req(Op::CounterRead, per_port, 4, 0u32.into()),
        (Status::BadIndex, 0u32.into())
    );
    assert_eq!(
        r.status(Op::CounterClear, per_port, 4, 0u32.into()),
        Status::BadIndex
    );
    assert_eq!(
        r.status(Op::CounterRead, 7, 0, 0u32.into()),
        Status::BadTarget
    );
    assert_eq!(
        r.status(Op::CounterClear, 7, 0, 0u32.into()),
        Status::BadTarget
    );
}

#[test]
fn counters_count_packets_and_clear() {
    let module = load();
    counters(&mut Rig::new(&module));
}

fn meters(r: &mut Rig<'_>) {
    let lim = r.layout.meter("lim").expect("meter").target;
    let host = ip(1, 2, 3, 4);
    // Declared without a rate: it never exceeds until configured. (`acl` sends to port 20 by
    // default, or where an earlier scenario's entry says.)
    let pass = r.ip_packet(2, host, 0, 6, 64);
    assert!(matches!(pass, Fate::Port(_)));
    for _ in 0..3 {
        assert_eq!(r.ip_packet(2, host, 0, 6, 64), pass);
    }
    // 8 bit/s (one byte a second) and a 100-byte burst: one 60-byte packet fits, the next not.
    r.ok(Op::MeterConfigure, lim, 0, encode_meter(8, 100));
    assert_eq!(r.ip_packet(2, host, 0, 6, 64), pass);
    assert_eq!(r.ip_packet(2, host, 0, 6, 64), Fate::Dropped);
    r.ok(Op::MeterConfigure, lim, 0, encode_meter(8, 100));
    assert_eq!(r.ip_packet(2, host, 0, 6, 64), pass, "refilled to full");
    assert_eq!(
        r.status(Op::MeterConfigure, lim, 2, encode_meter(1, 1)),
        Status::BadIndex
    );
    assert_eq!(
        r.status(Op::MeterConfigure, 1, 0, encode_meter(1, 1)),
        Status::BadTarget
    );
}

#[test]
fn meters_configure_rate_and_burst() {
    let module = load();
    meters(&mut Rig::new(&module));
}

/// `MapIterate` from `pos`: the status, key, value and next position.
fn iterate(r: &mut Rig<'_>, m: &MapControl, pos: u32) -> (Status, BigUint, BigUint, u32) {
    let (s, d) = r.req(Op::MapIterate, m.target, pos, 0u32.into());
    let (k, v, next) = m.decode_iterate(&d);
    (s, k, v, next)
}

/// Every (key, value) from position 0 to `End`, with the positions seen; the `End` position.
fn walk(r: &mut Rig<'_>, m: &MapControl) -> (Vec<(u64, u64, u32)>, u32) {
    let mut pos = 0;
    let mut out = Vec::new();
    loop {
        let (s, k, v, next) = iterate(r, m, pos);
        if s == Status::End {
            assert_eq!(
                (k, v),
                (0u32.into(), 0u32.into()),
                "End carries a zero key and value"
            );
            return (out, next);
        }
        assert_eq!(s, Status::Ok);
        assert!(next > pos, "positions move forward");
        out.push((
            u64::try_from(k).unwrap(),
            u64::try_from(v).unwrap(),
            next - 1,
        ));
        pos = next;
    }
}

/// Removes every entry of a hash or LRU map (found by iterating).
fn empty(r: &mut Rig<'_>, m: &MapControl) {
    for (k, _, _) in walk(r, m).0 {
        r.ok(Op::MapRemove, m.target, 0, m.encode_key(&k.into()));
    }
    assert_eq!(walk(r, m).0, vec![]);
}

fn hash_map(r: &mut Rig<'_>) {
    let m = r.map("flows");
    let pair = |a: u64, b: u64| BigUint::from(a | (b << 8)); // first field lowest
    let put = |r: &mut Rig<'_>, k: u64, v: BigUint| {
        r.status(
            Op::MapInsert,
            m.target,
            0,
            m.encode_key_value(&k.into(), &v),
        )
    };
    assert_eq!(put(r, 0x0a00_0001, pair(2, 0x12_3456)), Status::Ok);
    let (s, d) = r.req(
        Op::MapGet,
        m.target,
        0,
        m.encode_key(&0x0a00_0001u32.into()),
    );
    assert_eq!((s, m.decode_value(&d)), (Status::Ok, pair(2, 0x12_3456)));
    assert_eq!(
        r.req(Op::MapGet, m.target, 0, m.encode_key(&7u32.into())),
        (Status::NotFound, 0u32.into())
    );
    // The program reads it: `hosts` sends to its port plus the pair's `a`.
    assert_eq!(r.ip_packet(4, 0x0a00_0001, 0, 6, 64), Fate::Port(32));
    for k in 1..=7 {
        assert_eq!(put(r, k, pair(k, k)), Status::Ok);
    }
    assert_eq!(put(r, 8, pair(0, 0)), Status::Full, "8 keys");
    assert_eq!(put(r, 3, pair(33, 0)), Status::Ok, "replacing never fails");
    // A map of at most 16 keys is a register CAM after 16 bank slots: slots 16.., lowest free.
    let (entries, end) = walk(r, &m);
    assert_eq!(end, 16 + 8);
    let positions: Vec<u32> = entries.iter().map(|e| e.2).collect();
    assert_eq!(positions, (16..24).collect::<Vec<_>>());
    assert_eq!(entries[0].0, 0x0a00_0001);
    assert_eq!(entries[3], (3, 33, 19));
    assert_eq!(
        r.status(Op::MapRemove, m.target, 0, m.encode_key(&2u32.into())),
        Status::Ok
    );
    assert_eq!(
        r.status(Op::MapRemove, m.target, 0, m.encode_key(&2u32.into())),
        Status::NotFound
    );
    assert_eq!(
        r.status(Op::MapRemove, m.target, 0, m.encode_key(&5u32.into())),
        Status::Ok
    );
    let (s, k, _, next) = iterate(r, &m, 18);
    assert_eq!(
        (s, k, next),
        (Status::Ok, 3u32.into(), 20),
        "slot 18 (key 2) is free"
    );
    assert_eq!(put(r, 40, pair(4, 0)), Status::Ok);
    let (s, k, _, next) = iterate(r, &m, 18);
    assert_eq!(
        (s, k, next),
        (Status::Ok, 40u32.into(), 19),
        "the lowest free slot is reused"
    );
    assert_eq!(iterate(r, &m, 24).0, Status::End);
    assert_eq!(iterate(r, &m, u32::MAX).3, 24);
}

#[test]
fn hash_map_get_insert_remove_iterate() {
    let module = load();
    hash_map(&mut Rig::new(&module));
}

fn array_and_lru_maps(r: &mut Rig<'_>) {
    let cells = r.map("cells");
    let lru = r.map("recent");
    // Start empty whatever ran before: removing a cell zeroes it; emptying `recent` frees its slots.
    for k in 0..10u32 {
        r.ok(Op::MapRemove, cells.target, 0, cells.encode_key(&k.into()));
    }
    empty(r, &lru);
    // The program counts packets by the low nibble of the source MAC.
    r.packet(0, 0x25, 0x86dd, (0, 0, 0, 0));
    r.packet(0, 0x35, 0x86dd, (0, 0, 0, 0));
    let (s, d) = r.req(Op::MapGet, cells.target, 0, cells.encode_key(&5u32.into()));
    assert_eq!((s, d), (Status::Ok, 2u32.into()));
    assert_eq!(
        r.req(Op::MapGet, cells.target, 0, cells.encode_key(&4u32.into())),
        (Status::Ok, 0u32.into()),
        "every cell exists"
    );
    assert_eq!(
        r.status(
            Op::MapInsert,
            cells.target,
            0,
            cells.encode_key_value(&12u32.into(), &1u32.into())
        ),
        Status::Full
    );
    assert_eq!(
        r.status(Op::MapGet, cells.target, 0, cells.encode_key(&12u32.into())),
        Status::NotFound
    );
    assert_eq!(
        r.status(
            Op::MapRemove,
            cells.target,
            0,
            cells.encode_key(&12u32.into())
        ),
        Status::NotFound
    );
    r.ok(
        Op::MapInsert,
        cells.target,
        0,
        cells.encode_key_value(&9u32.into(), &0xbeefu32.into()),
    );
    // An array's positions are its keys: every cell, then End at the size.
    let (entries, end) = walk(r, &cells);
    assert_eq!(end, 10);
    let want: Vec<(u64, u64, u32)> = (0..10)
        .map(|k| (k, [0, 0, 0, 0, 0, 2, 0, 0, 0, 0xbeef][k as usize], k as u32))
        .collect();
    assert_eq!(entries, want);
    r.ok(
        Op::MapRemove,
        cells.target,
        0,
        cells.encode_key(&5u32.into()),
    );
    assert_eq!(
        r.req(Op::MapGet, cells.target, 0, cells.encode_key(&5u32.into())),
        (Status::Ok, 0u32.into()),
        "zeroed"
    );
    lru_map(r, &lru);
}

/// `recent` after [`array_and_lru_maps`]'s two packets put 0x86dd in it.
fn lru_map(r: &mut Rig<'_>, lru: &MapControl) {
    // lru_hash of 3: a host get does not refresh, a host insert does (and may evict).
    for k in 1..=3u32 {
        r.ok(
            Op::MapInsert,
            lru.target,
            0,
            lru.encode_key_value(&k.into(), &k.into()),
        );
    }
    r.ok(Op::MapGet, lru.target, 0, lru.encode_key(&1u32.into()));
    r.ok(
        Op::MapInsert,
        lru.target,
        0,
        lru.encode_key_value(&2u32.into(), &22u32.into()),
    );
    r.ok(
        Op::MapInsert,
        lru.target,
        0,
        lru.encode_key_value(&4u32.into(), &4u32.into()),
    );
    assert_eq!(
        r.status(Op::MapGet, lru.target, 0, lru.encode_key(&1u32.into())),
        Status::NotFound,
        "1 was the least recently used"
    );
    assert_eq!(
        r.req(Op::MapGet, lru.target, 0, lru.encode_key(&2u32.into())),
        (Status::Ok, 22u32.into())
    );
    let (entries, end) = walk(r, lru);
    assert_eq!(end, 16 + 3);
    // The two packets above put their ether type 0x86dd in slot 0 (position 16) first: key 3
    // evicted it and took its slot, and 4 took 1's.
    assert_eq!(
        entries,
        vec![(3, 3, 16), (4, 4, 17), (2, 22, 18)],
        "evicted slots are reused"
    );
}

#[test]
fn array_map_positions_and_lru_recency() {
    let module = load();
    array_and_lru_maps(&mut Rig::new(&module));
}

fn big_map(r: &mut Rig<'_>) {
    // 20 keys: hashed (4 buckets of 8 ways per bank and an 8-slot stash: 72 positions).
    let big = r.map("big");
    empty(r, &big);
    for k in 0..20u32 {
        r.ok(
            Op::MapInsert,
            big.target,
            0,
            big.encode_key_value(&(k * 7).into(), &k.into()),
        );
    }
    assert_eq!(
        r.status(
            Op::MapInsert,
            big.target,
            0,
            big.encode_key_value(&999u32.into(), &0u32.into())
        ),
        Status::Full
    );
    r.ok(Op::MapRemove, big.target, 0, big.encode_key(&14u32.into()));
    let (entries, end) = walk(r, &big);
    assert_eq!(end, 72);
    let got: BTreeSet<(u64, u64)> = entries.iter().map(|e| (e.0, e.1)).collect();
    let want: BTreeSet<(u64, u64)> = (0..20u64).filter(|k| *k != 2).map(|k| (k * 7, k)).collect();
    assert_eq!(got, want, "every entry once");
    assert_eq!(entries.len(), 19);
    assert!(entries.iter().all(|e| e.2 < 72));
    for op in [Op::MapGet, Op::MapInsert, Op::MapRemove, Op::MapIterate] {
        assert_eq!(r.status(op, 9, 0, 0u32.into()), Status::BadTarget, "{op:?}");
    }
}

#[test]
fn large_hash_map_iterates_every_entry_once() {
    let module = load();
    big_map(&mut Rig::new(&module));
}

#[test]
fn every_status_is_answered_and_bad_op_never() {
    let module = load();
    let mut r = Rig::new(&module);
    csrs(&mut r);
    exact_table(&mut r);
    lpm_table(&mut r);
    priority_table(&mut r);
    constant_table(&mut r);
    hashed_table(&mut r);
    counters(&mut r);
    meters(&mut r);
    hash_map(&mut r);
    array_and_lru_maps(&mut r);
    big_map(&mut r);
    // Every op has its own target space in the kernel (writer/ctrl.rs), so no known op is ever
    // `BadOp`: that status is only for op codes `Op` does not have, which no `Request` carries.
    let want: BTreeSet<u8> = Status::ALL
        .iter()
        .filter(|s| **s != Status::BadOp)
        .map(|s| *s as u8)
        .collect();
    assert_eq!(r.seen, want);
}
