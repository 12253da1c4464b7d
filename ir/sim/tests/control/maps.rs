//! Counters, meters and maps through `serve`: cells, rates, and every map op including iteration
//! positions to `End`.

use super::*;

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
