//! The host control path of the interpreter (`scenic_sim::control::serve`) against the generated
//! kernel's (`serve_ctrl`, C-simulated): the same requests, interleaved with the same packets, to
//! both, on examples/firewall.sn, examples/l3_router.sn, examples/flow_monitor.sn and
//! ir/sim/tests/programs/control_ops.sn (exact, lpm, ternary/range, constant and hashed tables,
//! hash/array/lru maps, counters, a meter). Every response must be the same, packed, bit for bit —
//! except `MapIterate` on `hash`/`lru_hash` maps of more than 16 keys, whose positions are the
//! kernel's bucket order, which the interpreter does not model (`scenic_sim::control` docs): those
//! maps are walked to `End` on each side and must give the same entries and the same `End`.
//! Skips (with the reason) when `AP_TYPES` is unset outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use num_bigint::BigUint;
use scenic_hls_csim::CsimDevice;
use scenic_interp::Machine;
use scenic_ir::entities::ScuId;
use scenic_ir::program::{KeyMatch, MapKind};
use scenic_ir::types::Const;
use scenic_scu_abi::control::{
    encode_meter, ControlLayout, KeyControl, KeyEncoding, MapControl, Op, Request, Response,
    ScuControl, Status, TableControl,
};
use scenic_sim::control::serve;
use scenic_sim::device::Device;
use std::collections::BTreeSet;
use std::path::Path;

/// xorshift64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A random value of `width` bits (all ones now and then).
    fn bits(&mut self, width: u32) -> BigUint {
        if self.below(8) == 0 {
            return (BigUint::from(1u32) << width as usize) - 1u32;
        }
        let mut v = BigUint::default();
        for _ in 0..width.div_ceil(64) {
            v = (v << 64) | BigUint::from(self.next());
        }
        v & ((BigUint::from(1u32) << width as usize) - 1u32)
    }
}

/// Both sides of one scu, and what was compared.
struct Pair<'m> {
    name: String,
    scu: ScuId,
    machine: Machine<'m>,
    csim: CsimDevice<'m>,
    layout: ScuControl,
    data_bits: u32,
    rng: Rng,
    requests: usize,
    statuses: BTreeSet<u8>,
}

impl Pair<'_> {
    /// Sends `req` to both; asserts the packed responses are equal; the interpreter's response.
    fn both(&mut self, req: &Request) -> Response {
        let sim = serve(&mut self.machine, self.scu, &self.layout, req);
        let (status, data) = self.csim.ctrl(self.scu, req).expect("the kernel answers");
        let hw = Response {
            status: status.map_or(u8::MAX, |s| s as u8),
            data,
        };
        self.requests += 1;
        self.statuses.insert(sim.status);
        assert_eq!(
            sim.pack(self.data_bits),
            hw.pack(self.data_bits),
            "{}: request {} {req:?}: interpreter {sim:?}, kernel {hw:?}",
            self.name,
            self.requests
        );
        sim
    }

    fn send(&mut self, op: Op, target: u16, index: u32, data: BigUint) -> Response {
        self.both(&Request {
            op,
            target,
            index,
            data,
        })
    }

    /// A random packet to both (Ethernet, IPv4 from 10.x, TCP or UDP); the outputs must agree.
    fn packet(&mut self, n: u64) {
        let r = &mut self.rng;
        let mut p = vec![
            2,
            0,
            0,
            0,
            0,
            r.below(6) as u8,
            2,
            0,
            0,
            0,
            0,
            r.below(4) as u8,
            8,
            0,
        ];
        let proto = [6u8, 17, 1][r.below(3) as usize];
        let src = [10, r.below(3) as u8, r.below(3) as u8, r.below(4) as u8];
        let dst = [
            [10, 1, 2, 3],
            [192, 168, 0, 1],
            [10, 200, 1, 1],
            [10, 0, 0, 2],
        ][r.below(4) as usize];
        p.extend([
            0x45,
            0,
            0,
            46,
            0,
            0,
            0,
            0,
            1 + r.below(70) as u8,
            proto,
            0,
            0,
        ]);
        p.extend(src);
        p.extend(dst);
        p.extend((r.below(4) as u16 * 1000 + 22).to_be_bytes());
        p.extend([0x1b, 0x58 + r.below(2) as u8]);
        p.resize(64, 0);
        let now = 1_000 * n;
        let a = Device::packet(&mut self.machine, self.scu, &p, 0, now).expect("interpreter");
        let b = self.csim.packet(self.scu, &p, 0, now).expect("csim");
        assert_eq!(a, b, "{}: packet {n}", self.name);
    }

    fn packets(&mut self, k: u64) {
        for _ in 0..k {
            let n = self.rng.next() % 1_000_000;
            self.packet(n);
        }
    }
}

/// A random match for a key of this encoding.
fn random_match(rng: &mut Rng, k: &KeyControl) -> KeyMatch {
    let w = k.width;
    match (k.encoding, rng.below(5)) {
        (_, 0) => KeyMatch::Any,
        (KeyEncoding::Exact, _) | (_, 1) => KeyMatch::Exact(Const(rng.bits(w))),
        (KeyEncoding::Lpm, _) => {
            KeyMatch::Lpm(Const(rng.bits(w)), rng.below(u64::from(w) + 1) as u32)
        }
        (KeyEncoding::Ternary, _) => KeyMatch::Ternary(Const(rng.bits(w)), Const(rng.bits(w))),
        (KeyEncoding::Range, _) => {
            let (a, b) = (rng.bits(w), rng.bits(w));
            KeyMatch::Range(Const(a.clone().min(b.clone())), Const(a.max(b)))
        }
    }
}

/// A random entry record of `t` (a valid action).
fn random_entry(rng: &mut Rng, t: &TableControl) -> BigUint {
    let keys: Vec<KeyMatch> = t.keys.iter().map(|k| random_match(rng, k)).collect();
    let action = rng.below(t.actions.len() as u64) as u32;
    let args: Vec<BigUint> = (0..4).map(|_| rng.bits(64)).collect();
    t.encode_entry(&keys, action, &args, rng.below(4))
        .expect("encodes")
}

fn csrs(p: &mut Pair<'_>) {
    let csrs = p.layout.csrs.clone();
    for c in &csrs {
        let target = c.offset as u16;
        p.send(Op::CsrRead, target, 0, 0u32.into());
        let v = p.rng.bits(64);
        p.send(Op::CsrWrite, target, 0, v);
        p.send(Op::CsrRead, target, 0, 0u32.into());
    }
    let past = csrs.len() as u16;
    p.send(Op::CsrRead, past, 0, 0u32.into());
    p.send(Op::CsrWrite, past, 0, 1u32.into());
}

fn table(p: &mut Pair<'_>, t: &TableControl) {
    let mut handles = Vec::new();
    let mut records = Vec::new();
    let adds = if t.size <= 16 { t.size + 2 } else { 14 };
    for i in 0..adds {
        let rec = random_entry(&mut p.rng, t);
        let r = p.send(Op::TableAdd, t.target, 0, rec.clone());
        if r.status == Status::Ok as u8 {
            handles.push(u32::try_from(&r.data).expect("a handle"));
        }
        records.push(rec);
        if i % 4 == 3 {
            p.packets(3);
        }
    }
    // Repeats (duplicates where the table refuses them), a bad action.
    for rec in records.into_iter().take(3) {
        p.send(Op::TableAdd, t.target, 0, rec);
    }
    p.send(
        Op::TableAdd,
        t.target,
        0,
        BigUint::from(t.actions.len() as u64),
    );
    p.send(
        Op::TableSetDefault,
        t.target,
        0,
        BigUint::from(t.actions.len() as u64),
    );
    modifies(p, t, &handles);
    for h in handles.iter().step_by(2) {
        p.send(Op::TableRemove, t.target, *h, 0u32.into());
    }
    // Stale handles (removed above), on both sides `NotFound` (or `BadAction`, `Constant`).
    for h in handles.iter().step_by(2).take(2) {
        let rec = random_entry(&mut p.rng, t);
        p.send(Op::TableModify, t.target, *h, rec);
    }
    if let Some(h) = handles.first() {
        p.send(Op::TableRemove, t.target, *h, 0u32.into());
    }
    p.send(Op::TableRemove, t.target, 0xdead, 0u32.into());
    p.packets(4);
    let default = random_entry(&mut p.rng, t);
    p.send(Op::TableSetDefault, t.target, 0, default);
    p.packets(4);
    p.send(Op::TableClear, t.target, 0, 0u32.into());
    let rec = random_entry(&mut p.rng, t);
    p.send(Op::TableAdd, t.target, 0, rec);
    p.packets(2);
}

/// `TableModify` of live entries (a random record: its keys and priority must be ignored), of
/// handles nobody was given, with an action the table lacks, then packets through the table.
fn modifies(p: &mut Pair<'_>, t: &TableControl, handles: &[u32]) {
    for h in handles.iter().skip(1).step_by(2) {
        let rec = random_entry(&mut p.rng, t);
        p.send(Op::TableModify, t.target, *h, rec);
    }
    let bad = BigUint::from(t.actions.len() as u64);
    for h in handles.first().copied().into_iter().chain([0, 0xdead]) {
        p.send(Op::TableModify, t.target, h, bad.clone());
        let rec = random_entry(&mut p.rng, t);
        p.send(Op::TableModify, t.target, h, rec);
    }
    if let Some(h) = handles.last() {
        // Row bits kept, another generation (hashed tables), or simply another number.
        let rec = random_entry(&mut p.rng, t);
        p.send(Op::TableModify, t.target, h.wrapping_add(1 << 24), rec);
    }
    p.packets(4);
}

fn counters_and_meters(p: &mut Pair<'_>) {
    for c in p.layout.counters.clone() {
        for i in [0, 1, c.size.saturating_sub(1), c.size] {
            p.send(Op::CounterRead, c.target, i as u32, 0u32.into());
        }
        p.send(Op::CounterClear, c.target, 0, 0u32.into());
        p.send(Op::CounterClear, c.target, c.size as u32, 0u32.into());
        p.send(Op::CounterRead, c.target, 0, 0u32.into());
    }
    for m in p.layout.meters.clone() {
        p.send(Op::MeterConfigure, m.target, 0, encode_meter(8_000, 70));
        p.send(
            Op::MeterConfigure,
            m.target,
            (m.size - 1) as u32,
            encode_meter(1, 1),
        );
        p.send(
            Op::MeterConfigure,
            m.target,
            m.size as u32,
            encode_meter(1, 1),
        );
    }
    p.packets(6);
}

/// Whether `MapIterate` positions are the kernel's (see the module docs).
fn positions_modelled(m: &MapControl) -> bool {
    m.kind == MapKind::Array || m.size <= 16
}

/// Walks a map to `End` on one side (the kernel when `kernel`); the entries and the `End` data.
fn walk(p: &mut Pair<'_>, m: &MapControl, kernel: bool) -> (BTreeSet<(BigUint, BigUint)>, BigUint) {
    let mut out = BTreeSet::new();
    let mut pos = 0;
    loop {
        let req = Request {
            op: Op::MapIterate,
            target: m.target,
            index: pos,
            data: 0u32.into(),
        };
        let (status, data) = if kernel {
            let (s, d) = p.csim.ctrl(p.scu, &req).expect("the kernel answers");
            (s.map_or(u8::MAX, |s| s as u8), d)
        } else {
            let r = serve(&mut p.machine, p.scu, &p.layout, &req);
            (r.status, r.data)
        };
        if status != Status::Ok as u8 {
            assert_eq!(status, Status::End as u8);
            return (out, data);
        }
        let (k, v, next) = m.decode_iterate(&data);
        assert!(next > pos);
        out.insert((k, v));
        pos = next;
    }
}

fn map(p: &mut Pair<'_>, m: &MapControl) {
    let n = if m.size <= 16 { m.size + 2 } else { 20 };
    let mut keys = Vec::new();
    for _ in 0..n {
        let key = if m.kind == MapKind::Array {
            BigUint::from(p.rng.below(m.size + 2))
        } else {
            p.rng.bits(m.key_bits)
        };
        let value = p.rng.bits(m.value_bits);
        p.send(Op::MapInsert, m.target, 0, m.encode_key_value(&key, &value));
        keys.push(key);
    }
    p.packets(4);
    for k in keys.iter().take(6) {
        p.send(Op::MapGet, m.target, 0, m.encode_key(k));
    }
    let absent = p.rng.bits(m.key_bits);
    p.send(Op::MapGet, m.target, 0, m.encode_key(&absent));
    for k in keys.iter().step_by(3) {
        p.send(Op::MapRemove, m.target, 0, m.encode_key(k));
    }
    p.send(Op::MapRemove, m.target, 0, m.encode_key(&absent));
    if let Some(k) = keys.first() {
        let value = p.rng.bits(m.value_bits);
        p.send(Op::MapInsert, m.target, 0, m.encode_key_value(k, &value));
    }
    if positions_modelled(m) {
        let end = m.size.min(64) as u32;
        for pos in (0..end + 20).chain([m.size as u32, u32::MAX]) {
            p.send(Op::MapIterate, m.target, pos, 0u32.into());
        }
    } else {
        let interp = walk(p, m, false);
        let kernel = walk(p, m, true);
        assert_eq!(interp, kernel, "{}: walking map {}", p.name, m.name);
        let slots = scenic_sim::control::iteration_slots(m.kind, m.size) as u32;
        p.send(Op::MapIterate, m.target, slots, 0u32.into());
    }
}

/// Ops on targets one past the last of each kind.
fn bad_targets(p: &mut Pair<'_>) {
    let l = p.layout.clone();
    for op in [
        Op::TableAdd,
        Op::TableRemove,
        Op::TableClear,
        Op::TableSetDefault,
        Op::TableModify,
    ] {
        p.send(op, l.tables.len() as u16, 0, 0u32.into());
    }
    for op in [Op::MapGet, Op::MapInsert, Op::MapRemove, Op::MapIterate] {
        p.send(op, l.maps.len() as u16, 0, 0u32.into());
    }
    p.send(Op::CounterRead, l.counters.len() as u16, 0, 0u32.into());
    p.send(Op::CounterClear, l.counters.len() as u16, 0, 0u32.into());
    p.send(Op::MeterConfigure, l.meters.len() as u16, 0, 0u32.into());
}

fn load(path: &Path) -> scenic_ir::Module {
    let mut session = scenic_frontend::Session::new();
    session.add_path(path).expect("program loads");
    scenic_lower::lower_session(&mut session).expect("program lowers")
}

/// The interpreter and the C-simulated kernel of `module`'s first scu.
fn pair<'m>(name: &str, module: &'m scenic_ir::Module, ap_types: &Path, seed: u64) -> Pair<'m> {
    let info = scenic_ir::Validator::new()
        .validate(module)
        .expect("validates");
    let files =
        scenic_backend_hls::write_kernel(module, &info, &scenic_backend_hls::Options::default())
            .expect("generates");
    let layout = ControlLayout::new(module, &info);
    assert_eq!(
        layout, files.control,
        "the layout the kernel was generated from"
    );
    let csim =
        CsimDevice::new(module, &files, ap_types, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
    Pair {
        name: name.to_string(),
        scu: ScuId::from_u32(0),
        machine: Machine::new(module),
        csim,
        layout: layout.scus[0].clone(),
        data_bits: layout.data_bits,
        rng: Rng(seed),
        requests: 0,
        statuses: BTreeSet::new(),
    }
}

fn run(name: &str, path: &Path, ap_types: &Path, seed: u64) -> BTreeSet<u8> {
    let module = load(path);
    let mut p = pair(name, &module, ap_types, seed);
    p.packets(8);
    csrs(&mut p);
    for t in p.layout.tables.clone() {
        table(&mut p, &t);
    }
    counters_and_meters(&mut p);
    for m in p.layout.maps.clone() {
        map(&mut p, &m);
    }
    bad_targets(&mut p);
    csrs(&mut p);
    eprintln!("{name}: {} requests, statuses {:?}", p.requests, p.statuses);
    p.statuses
}

#[test]
fn control_requests_match_the_kernel() {
    let Some(ap_types) = common::ap_types_or_skip("csim_control") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let programs = [
        ("firewall", root.join("../../examples/firewall.sn")),
        ("l3_router", root.join("../../examples/l3_router.sn")),
        ("flow_monitor", root.join("../../examples/flow_monitor.sn")),
        (
            "control_ops",
            root.join("../../ir/sim/tests/programs/control_ops.sn"),
        ),
    ];
    let mut statuses = BTreeSet::new();
    for (i, (name, path)) in programs.iter().enumerate() {
        statuses.extend(run(name, path, &ap_types, 0x9e37_79b9_7f4a_7c15 ^ i as u64));
    }
    for s in [
        Status::Ok,
        Status::NotFound,
        Status::Full,
        Status::Duplicate,
        Status::Constant,
        Status::BadTarget,
        Status::BadIndex,
        Status::ReadOnly,
        Status::BadAction,
        Status::End,
    ] {
        assert!(statuses.contains(&(s as u8)), "no request answered {s:?}");
    }
}

/// A packet to both sides of `control_ops` (destination MAC ending in `sel`, IPv4 to `dst` with
/// protocol `proto`); the network port it leaves on, the same on both sides.
fn ops_port(p: &mut Pair<'_>, sel: u8, dst: [u8; 4], proto: u8) -> u8 {
    let mut pkt = vec![2, 0, 0, 0, 0, sel, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    pkt.extend([0x45, 0, 0, 46, 0, 0, 0, 0, 64, proto, 0, 0, 10, 9, 9, 9]);
    pkt.extend(dst);
    pkt.resize(64, 0);
    let a = Device::packet(&mut p.machine, p.scu, &pkt, 0, 0).expect("interpreter");
    let b = p.csim.packet(p.scu, &pkt, 0, 0).expect("csim");
    assert_eq!(a, b, "{}: a packet to {dst:?}, protocol {proto}", p.name);
    match a.as_slice() {
        [(scenic_interp::Destination::Network(port), _)] => *port,
        other => panic!("one output to the network expected, got {other:?}"),
    }
}

/// Two rules of docs/language.md on both sides, with the expected results taken from it (not
/// from either side's output), on `control_ops.sn`:
///
/// - §7.9.3: "The host may replace the default action at run time, except in a constant table":
///   `TableSetDefault` on `fixed` (constant: `entries` and no `size`, §7.9.4) is refused with
///   `Constant`, and a miss still runs `fx_out(5)`. The kernel once answered `Ok` and replaced it.
/// - §7.9.6: in `routes` (`ip.dst: lpm, ip.protocol: exact`) the exact key must match but does
///   not rank entries: only the lpm prefix does. An entry whose exact key is "any" (the record's
///   flag; the runtime refuses it, §7.9.8, but the kernel takes it) competes on its prefix alone:
///   `11.0.0.0/16, any` beats `11.0.0.0/9, 6` for 11.0.x.x protocol 6, whatever the order they
///   were added in. The kernel once added the width of every valued exact key to the prefix
///   length, so the /9 (9 + 8) beat the /16.
#[test]
fn language_rules_hold_on_both_sides() {
    let Some(ap_types) = common::ap_types_or_skip("csim_control") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let module = load(&root.join("../../ir/sim/tests/programs/control_ops.sn"));
    let mut p = pair("control_ops (language.md)", &module, &ap_types, 1);
    let status = |r: Response| Status::from_code(r.status).expect("a known status");

    // §7.9.3 on the constant table `fixed` (selector 3): 17 => fx_out(17), default fx_out(5).
    let fixed = p.layout.table("fixed").expect("fixed").clone();
    assert_eq!(ops_port(&mut p, 3, [10, 0, 0, 1], 6), 5, "the default");
    let rec = fixed
        .encode_default(0, &[BigUint::from(12u32)])
        .expect("encodes");
    let r = p.send(Op::TableSetDefault, fixed.target, 0, rec);
    assert_eq!(status(r), Status::Constant, "a constant table's default");
    assert_eq!(ops_port(&mut p, 3, [10, 0, 0, 1], 6), 5, "the default kept");
    assert_eq!(ops_port(&mut p, 3, [10, 0, 0, 1], 17), 17, "the entry kept");
    let bad = BigUint::from(fixed.actions.len() as u64);
    let r = p.send(Op::TableSetDefault, fixed.target, 0, bad);
    assert_eq!(status(r), Status::BadAction, "the action is checked first");

    // §7.9.6 on `routes` (selector 1): constant 10.0.0.0/8, 6 => rt_out(1), default rt_out(9).
    let routes = p.layout.table("routes").expect("routes").clone();
    let lpm =
        |a: [u8; 4], len: u32| KeyMatch::Lpm(Const::from_u64(u32::from_be_bytes(a).into()), len);
    let tcp = KeyMatch::Exact(Const::from_u64(6));
    let add = |p: &mut Pair<'_>, keys: [KeyMatch; 2], port: u32| {
        let rec = routes
            .encode_entry(&keys, 0, &[BigUint::from(port)], 0)
            .expect("encodes");
        let r = p.send(Op::TableAdd, routes.target, 0, rec);
        assert_eq!(status(r), Status::Ok, "adds {keys:?}");
    };
    // The /9 with the exact key first, then the /16 with "any".
    add(&mut p, [lpm([11, 0, 0, 0], 9), tcp.clone()], 21);
    add(&mut p, [lpm([11, 0, 0, 0], 16), KeyMatch::Any], 22);
    assert_eq!(ops_port(&mut p, 1, [11, 0, 1, 1], 6), 22, "/16 beats /9");
    assert_eq!(ops_port(&mut p, 1, [11, 0, 1, 1], 17), 22, "only the /16");
    assert_eq!(ops_port(&mut p, 1, [11, 1, 0, 1], 6), 21, "only the /9");
    assert_eq!(ops_port(&mut p, 1, [11, 1, 0, 1], 17), 9, "a miss");
    // The other order: the /16 with "any" first, then the /9 with the exact key.
    add(&mut p, [lpm([12, 0, 0, 0], 16), KeyMatch::Any], 23);
    add(&mut p, [lpm([12, 0, 0, 0], 9), tcp.clone()], 24);
    assert_eq!(ops_port(&mut p, 1, [12, 0, 1, 1], 6), 23, "/16 beats /9");
    assert_eq!(ops_port(&mut p, 1, [12, 1, 0, 1], 6), 24, "only the /9");
    // A longer prefix with "any" beats the constant /8 with the exact key, and a /32 given as
    // a value (a full-length prefix, §7.9.1) beats them all.
    add(&mut p, [lpm([10, 1, 0, 0], 16), KeyMatch::Any], 25);
    assert_eq!(
        ops_port(&mut p, 1, [10, 1, 2, 3], 6),
        25,
        "/16 beats the constant /8"
    );
    assert_eq!(ops_port(&mut p, 1, [10, 2, 2, 3], 6), 1, "the constant /8");
    let host = KeyMatch::Exact(Const::from_u64(u32::from_be_bytes([10, 1, 2, 3]).into()));
    add(&mut p, [host, tcp], 26);
    assert_eq!(ops_port(&mut p, 1, [10, 1, 2, 3], 6), 26, "/32 beats /16");
    assert_eq!(ops_port(&mut p, 1, [10, 1, 2, 4], 6), 25, "the /16");
}

/// A packet to both sides of `control_ops` as [`ops_port`] sends it; the port it leaves on, or
/// `None` when the program dropped it.
fn ops_fate(p: &mut Pair<'_>, sel: u8, dst: [u8; 4], proto: u8) -> Option<u8> {
    let mut pkt = vec![2, 0, 0, 0, 0, sel, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    pkt.extend([0x45, 0, 0, 46, 0, 0, 0, 0, 64, proto, 0, 0, 10, 9, 9, 9]);
    pkt.extend(dst);
    pkt.resize(64, 0);
    let a = Device::packet(&mut p.machine, p.scu, &pkt, 0, 0).expect("interpreter");
    let b = p.csim.packet(p.scu, &pkt, 0, 0).expect("csim");
    assert_eq!(a, b, "{}: a packet to {dst:?}, protocol {proto}", p.name);
    match a.as_slice() {
        [] => None,
        [(scenic_interp::Destination::Network(port), _)] => Some(*port),
        other => panic!("one output to the network or none expected, got {other:?}"),
    }
}

/// `TableModify` on every table kind of `control_ops.sn`, both sides, with the results taken from
/// the op's documentation (`Op::TableModify`: the entry `index` takes the record's action and
/// arguments, keeps its keys and priority; `BadAction`, then `Constant`, then `NotFound`) and
/// language.md §7.9.5 (constant entries cannot be modified): a packet before the modify takes the
/// old action, a packet after it the new one.
#[test]
fn modify_takes_effect_on_both_sides() {
    let Some(ap_types) = common::ap_types_or_skip("csim_control") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let module = load(&root.join("../../ir/sim/tests/programs/control_ops.sn"));
    let mut p = pair("control_ops (modify)", &module, &ap_types, 7);
    let status = |r: Response| Status::from_code(r.status).expect("a known status");
    let src = u64::from(u32::from_be_bytes([10, 9, 9, 9]));
    let exact = |v: u64| KeyMatch::Exact(Const::from_u64(v));
    let dst = [10, 1, 2, 3];
    let args = |a: &[u32]| a.iter().map(|x| BigUint::from(*x)).collect::<Vec<_>>();
    // (table, selector, its keys for the packet above, action positions and arguments: added,
    // modified to, modified again; the ports those give, `None` for a drop).
    type Step = (u32, &'static [u32], Option<u8>);
    let cases: [(&str, u8, Vec<KeyMatch>, [Step; 3]); 4] = [
        (
            "by_type",
            0,
            vec![exact(0x0800), exact(1)],
            [(0, &[3], Some(3)), (1, &[], None), (0, &[5], Some(5))],
        ),
        (
            "routes",
            1,
            vec![
                KeyMatch::Lpm(Const::from_u64(u64::from(u32::from_be_bytes(dst))), 24),
                exact(6),
            ],
            [
                (0, &[2], Some(2)),
                (0, &[12], Some(12)),
                (0, &[13], Some(13)),
            ],
        ),
        (
            "acl",
            2,
            vec![
                exact(src),
                KeyMatch::Range(Const::from_u64(64), Const::from_u64(64)),
            ],
            [
                (0, &[21, 1], Some(21)),
                (1, &[], None),
                (0, &[22, 2], Some(22)),
            ],
        ),
        (
            "hosts",
            4,
            vec![exact(src)],
            [
                (0, &[31], Some(31)),
                (0, &[41], Some(41)),
                (0, &[42], Some(42)),
            ],
        ),
    ];
    for (name, sel, keys, [added, first, second]) in cases {
        let tc = p.layout.table(name).expect("table").clone();
        let rec = tc
            .encode_entry(&keys, added.0, &args(added.1), 0)
            .expect("encodes");
        let r = p.send(Op::TableAdd, tc.target, 0, rec);
        assert_eq!(status(r.clone()), Status::Ok, "{name}: adds");
        let h = u32::try_from(&r.data).expect("a handle");
        assert_eq!(ops_fate(&mut p, sel, dst, 6), added.2, "{name}: added");
        for (action, a, fate) in [first, second] {
            let rec = tc.encode_default(action, &args(a)).expect("encodes");
            let r = p.send(Op::TableModify, tc.target, h, rec);
            assert_eq!(status(r), Status::Ok, "{name}: modifies");
            assert_eq!(ops_fate(&mut p, sel, dst, 6), fate, "{name}: modified");
        }
        // An action the table lacks, then a handle no entry has: refused, nothing changes.
        let bad = BigUint::from(tc.actions.len() as u64);
        let r = p.send(Op::TableModify, tc.target, h, bad);
        assert_eq!(status(r), Status::BadAction, "{name}: bad action");
        let rec = tc.encode_default(added.0, &args(added.1)).expect("encodes");
        let r = p.send(Op::TableModify, tc.target, h ^ (1 << 20), rec.clone());
        assert_eq!(status(r), Status::NotFound, "{name}: no such handle");
        assert_eq!(ops_fate(&mut p, sel, dst, 6), second.2, "{name}: unchanged");
        // Removed: its handle is stale.
        let r = p.send(Op::TableRemove, tc.target, h, 0u32.into());
        assert_eq!(status(r), Status::Ok, "{name}: removes");
        let r = p.send(Op::TableModify, tc.target, h, rec);
        assert_eq!(status(r), Status::NotFound, "{name}: a stale handle");
    }
    // The constant table `fixed` (selector 3): 17 => fx_out(17); `Constant` for any handle.
    let fixed = p.layout.table("fixed").expect("fixed").clone();
    let rec = fixed.encode_default(0, &args(&[12])).expect("encodes");
    for h in [0, 1] {
        let r = p.send(Op::TableModify, fixed.target, h, rec.clone());
        assert_eq!(status(r), Status::Constant, "fixed: handle {h}");
    }
    let bad = BigUint::from(fixed.actions.len() as u64);
    let r = p.send(Op::TableModify, fixed.target, 0, bad);
    assert_eq!(status(r), Status::BadAction, "fixed: the action first");
    assert_eq!(ops_fate(&mut p, 3, dst, 17), Some(17), "fixed: unchanged");
}
