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

#[path = "control/maps.rs"]
mod maps;
#[path = "control/modify.rs"]
mod modify;

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
        Op::TableModify,
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
