//! `TableModify` through `serve`, on every table kind of `control_ops.sn`. Expectations from the
//! op's documentation (`scenic_scu_abi::control::Op::TableModify`: only the action and its
//! arguments are read, the entry keeps its keys, priority, handle and place; `BadAction`, then
//! `Constant`, then `NotFound`) and docs/language.md §7.9.5 (constant entries cannot be modified)
//! and §7.9.8 (the host modifies entries of non-constant tables).

use super::*;

impl Rig<'_> {
    /// `TableModify` of the entry `handle` of `t` to `action(args)`, with a record that carries
    /// no keys (as the runtime sends it).
    fn modify(&mut self, t: &str, handle: u32, action: u32, args: &[u64]) -> Status {
        let tc = self.table(t);
        let args: Vec<BigUint> = args.iter().map(|a| BigUint::from(*a)).collect();
        let rec = tc.encode_default(action, &args).expect("encodes");
        self.status(Op::TableModify, tc.target, handle, rec)
    }
}

fn modify_exact(r: &mut Rig<'_>) {
    let t = r.table("by_type").target;
    let arp: u16 = 0x0806;
    let arp64 = u64::from(arp);
    assert_eq!(
        r.add("by_type", &[exact(arp64), exact(0x22)], 0, &[3], 0),
        (Status::Ok, 1)
    );
    assert_eq!(r.packet(0, 0x22, arp, (0, 0, 0, 0)), Fate::Port(3));
    assert_eq!(r.modify("by_type", 1, 1, &[]), Status::Ok, "to ex_drop");
    assert_eq!(r.packet(0, 0x22, arp, (0, 0, 0, 0)), Fate::Dropped);
    assert_eq!(r.modify("by_type", 1, 0, &[5]), Status::Ok, "to ex_out(5)");
    assert_eq!(r.packet(0, 0x22, arp, (0, 0, 0, 0)), Fate::Port(5));
    assert_eq!(
        r.packet(0, 0x23, arp, (0, 0, 0, 0)),
        Fate::Port(7),
        "other keys still miss"
    );
    // Only the action and arguments are read: keys in the record change nothing.
    let rec = r
        .table("by_type")
        .encode_entry(&[exact(arp64), exact(0x23)], 0, &[BigUint::from(6u32)], 9)
        .expect("encodes");
    assert_eq!(r.status(Op::TableModify, t, 1, rec), Status::Ok);
    assert_eq!(
        r.packet(0, 0x22, arp, (0, 0, 0, 0)),
        Fate::Port(6),
        "the entry keeps its keys"
    );
    assert_eq!(r.packet(0, 0x23, arp, (0, 0, 0, 0)), Fate::Port(7));
    // An unknown action (3: ex_out, ex_drop, no_action) first, whatever the handle.
    let bad = BigUint::from(3u32);
    assert_eq!(
        r.status(Op::TableModify, t, 1, bad.clone()),
        Status::BadAction
    );
    assert_eq!(r.status(Op::TableModify, t, 77, bad), Status::BadAction);
    assert_eq!(
        r.packet(0, 0x22, arp, (0, 0, 0, 0)),
        Fate::Port(6),
        "a refused modify changes nothing"
    );
    assert_eq!(r.modify("by_type", 0, 0, &[1]), Status::NotFound, "no 0");
    assert_eq!(r.modify("by_type", 2, 0, &[1]), Status::NotFound, "not yet");
    // A modify takes no handle: the next add gets 2.
    assert_eq!(
        r.add("by_type", &[exact(arp64), exact(0x23)], 2, &[], 0),
        (Status::Ok, 2)
    );
    assert_eq!(r.status(Op::TableRemove, t, 1, 0u32.into()), Status::Ok);
    assert_eq!(r.modify("by_type", 1, 0, &[1]), Status::NotFound, "removed");
    assert_eq!(
        r.packet(0, 0x22, arp, (0, 0, 0, 0)),
        Fate::Port(7),
        "no entry came back"
    );
    assert_eq!(r.modify("by_type", 2, 0, &[9]), Status::Ok);
    assert_eq!(r.packet(0, 0x23, arp, (0, 0, 0, 0)), Fate::Port(9));
    assert_eq!(r.status(Op::TableClear, t, 0, 0u32.into()), Status::Ok);
    assert_eq!(r.modify("by_type", 2, 0, &[9]), Status::NotFound, "cleared");
    assert_eq!(
        r.status(Op::TableModify, 9, 1, 0u32.into()),
        Status::BadTarget
    );
}

#[test]
fn modify_exact_table_entry_in_place() {
    let module = load();
    modify_exact(&mut Rig::new(&module));
}

fn modify_lpm(r: &mut Rig<'_>) {
    let lpm = |a: u32, len: u32| KeyMatch::Lpm(Const::from_u64(u64::from(a)), len);
    assert_eq!(
        r.add("routes", &[lpm(ip(10, 1, 0, 0), 16), exact(6)], 0, &[2], 0),
        (Status::Ok, 1)
    );
    assert_eq!(
        r.add("routes", &[lpm(ip(10, 1, 2, 0), 24), exact(6)], 0, &[4], 0),
        (Status::Ok, 2)
    );
    assert_eq!(r.modify("routes", 1, 0, &[12]), Status::Ok);
    assert_eq!(
        r.ip_packet(1, 0, ip(10, 1, 2, 3), 6, 64),
        Fate::Port(4),
        "the /24 still beats the modified /16"
    );
    assert_eq!(r.ip_packet(1, 0, ip(10, 1, 3, 3), 6, 64), Fate::Port(12));
    assert_eq!(
        r.ip_packet(1, 0, ip(10, 2, 3, 3), 6, 64),
        Fate::Port(1),
        "the constant /8"
    );
    // The constant entry has no handle: 0 names nothing.
    assert_eq!(r.modify("routes", 0, 0, &[13]), Status::NotFound);
    assert_eq!(r.ip_packet(1, 0, ip(10, 2, 3, 3), 6, 64), Fate::Port(1));
    assert_eq!(r.modify("routes", 2, 0, &[14]), Status::Ok);
    assert_eq!(r.ip_packet(1, 0, ip(10, 1, 2, 3), 6, 64), Fate::Port(14));
}

#[test]
fn modify_lpm_table_entry_keeps_its_prefix() {
    let module = load();
    modify_lpm(&mut Rig::new(&module));
}

fn modify_priority(r: &mut Rig<'_>) {
    let t = r.table("acl").target;
    let tern = KeyMatch::Ternary(
        Const::from_u64(u64::from(ip(192, 168, 0, 0))),
        Const::from_u64(0xffff_0000),
    );
    let range = |lo: u64, hi: u64| KeyMatch::Range(Const::from_u64(lo), Const::from_u64(hi));
    let host = ip(192, 168, 7, 7);
    assert_eq!(
        r.add("acl", &[tern.clone(), range(10, 20)], 0, &[4, 1], 5),
        (Status::Ok, 1)
    );
    assert_eq!(
        r.add("acl", &[tern.clone(), range(10, 20)], 0, &[6, 0], 3),
        (Status::Ok, 2)
    );
    assert_eq!(r.ip_packet(2, host, 0, 6, 15), Fate::Port(6));
    // The record's priority (0) is not read: entry 1 keeps 5 and stays behind entry 2.
    let rec = r
        .table("acl")
        .encode_entry(
            &[KeyMatch::Any, KeyMatch::Any],
            0,
            &[BigUint::from(40u32), BigUint::from(2u32)],
            0,
        )
        .expect("encodes");
    assert_eq!(r.status(Op::TableModify, t, 1, rec), Status::Ok);
    assert_eq!(
        r.ip_packet(2, host, 0, 6, 15),
        Fate::Port(6),
        "priority kept"
    );
    assert_eq!(
        r.ip_packet(2, host, 0, 6, 21),
        Fate::Port(20),
        "keys kept: outside the range"
    );
    assert_eq!(r.status(Op::TableRemove, t, 2, 0u32.into()), Status::Ok);
    assert_eq!(r.ip_packet(2, host, 0, 6, 15), Fate::Port(40), "modified");
    assert_eq!(r.modify("acl", 1, 1, &[]), Status::Ok, "to acl_drop");
    assert_eq!(r.ip_packet(2, host, 0, 6, 15), Fate::Dropped);
    assert_eq!(r.modify("acl", 2, 0, &[1, 1]), Status::NotFound, "removed");
    // The constant entry (ttl 1 => acl_drop) has no handle and still drops.
    assert_eq!(r.modify("acl", 0, 0, &[1, 1]), Status::NotFound);
    assert_eq!(r.ip_packet(2, ip(1, 2, 3, 4), 0, 6, 1), Fate::Dropped);
}

#[test]
fn modify_priority_table_entry_keeps_its_priority() {
    let module = load();
    modify_priority(&mut Rig::new(&module));
}

fn modify_constant(r: &mut Rig<'_>) {
    let t = r.table("fixed").target;
    // language.md §7.9.5: constant entries cannot be modified. `Constant` after the action,
    // before the handle (the order of `TableAdd` and `TableSetDefault`).
    for h in [0, 1, 0xdead] {
        assert_eq!(r.modify("fixed", h, 0, &[12]), Status::Constant, "{h}");
    }
    let bad = BigUint::from(r.table("fixed").actions.len() as u64);
    assert_eq!(r.status(Op::TableModify, t, 0, bad), Status::BadAction);
    assert_eq!(
        r.ip_packet(3, 0, 0, 17, 64),
        Fate::Port(17),
        "the entry is unchanged"
    );
    assert_eq!(r.ip_packet(3, 0, 0, 6, 64), Fate::Port(5));
}

#[test]
fn modify_constant_table_is_refused() {
    let module = load();
    modify_constant(&mut Rig::new(&module));
}

fn modify_hashed(r: &mut Rig<'_>) {
    // `hosts`: handles `generation << 7 | row` (tables_exact.rs).
    let t = r.table("hosts").target;
    let a = ip(10, 0, 0, 1);
    let b = ip(10, 0, 0, 2);
    assert_eq!(
        r.add("hosts", &[exact(u64::from(a))], 0, &[31], 0),
        (Status::Ok, 1 << 7)
    );
    assert_eq!(
        r.add("hosts", &[exact(u64::from(b))], 0, &[32], 0),
        (Status::Ok, (1 << 7) | 1)
    );
    assert_eq!(r.modify("hosts", 1 << 7, 0, &[41]), Status::Ok);
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(41));
    assert_eq!(r.ip_packet(4, b, 0, 6, 64), Fate::Port(32), "the other row");
    // The right row with another generation, a free row, a row past the size.
    for h in [2 << 7, (1 << 7) | 2, (1 << 7) | 127, 1] {
        assert_eq!(r.modify("hosts", h, 0, &[50]), Status::NotFound, "{h:#x}");
    }
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(41));
    assert_eq!(
        r.status(Op::TableRemove, t, 1 << 7, 0u32.into()),
        Status::Ok
    );
    assert_eq!(
        r.modify("hosts", 1 << 7, 0, &[42]),
        Status::NotFound,
        "stale"
    );
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(30), "the default");
    // A modify moves no row: the next add takes row 2, then row 0 in its next generation.
    assert_eq!(
        r.add("hosts", &[exact(u64::from(a))], 0, &[33], 0),
        (Status::Ok, (1 << 7) | 2)
    );
    assert_eq!(r.modify("hosts", (1 << 7) | 2, 0, &[43]), Status::Ok);
    assert_eq!(r.ip_packet(4, a, 0, 6, 64), Fate::Port(43));
}

#[test]
fn modify_hashed_table_entry_by_generation_and_row() {
    let module = load();
    modify_hashed(&mut Rig::new(&module));
}
