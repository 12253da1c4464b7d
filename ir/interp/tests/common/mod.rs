//! Shared helpers for the IR's integration tests: a deterministic PRNG, generators of packets
//! (Ethernet with IPv4, IPv6 or ARP, TCP or UDP, sometimes truncated), payload words and
//! congestion-control events, random values of IR types, random table entries, and lowering a
//! source file.
//!
//! Everything is reproducible from the seed: no clock, no OS randomness, no new crates. Addresses,
//! ports and protocols come from small pools of interesting values, so table entries and branches
//! of the example programs are hit often.

#![allow(dead_code)]

use num_bigint::BigUint;
use scenic_interp::cc::CcEvent;
use scenic_interp::value::{width_of, HeaderVal, Value};
use scenic_ir::proc::bits::Bits;
use scenic_ir::proc::intrinsics::ones_complement;
use scenic_ir::program::{KeyMatch, MatchKind, Module, Table};
use scenic_ir::rng::SplitMix64;
use scenic_ir::types::Type;
use std::path::Path;

/// Lowers a source file to the IR.
pub fn lower(path: &Path) -> Result<Module, String> {
    let mut session = scenic_frontend::Session::new();
    session.add_path(path).map_err(|e| e.to_string())?;
    scenic_lower::lower_session(&mut session).map_err(|e| e.to_string())
}

/// Test inputs: the repository's SplitMix64 ([`scenic_ir::rng`]) and [`Rng::bits`].
#[derive(Clone, Debug)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    /// A random value of `width` bits.
    pub fn bits(&mut self, width: u32) -> BigUint {
        let bytes = self.bytes(width.div_ceil(8) as usize);
        let v = BigUint::from_bytes_be(&bytes);
        v & ((BigUint::from(1u32) << width as usize) - 1u32)
    }
}

impl std::ops::Deref for Rng {
    type Target = SplitMix64;

    fn deref(&self) -> &SplitMix64 {
        &self.0
    }
}

impl std::ops::DerefMut for Rng {
    fn deref_mut(&mut self) -> &mut SplitMix64 {
        &mut self.0
    }
}

/// MAC addresses: the l3 router's own, a few hosts, broadcast.
const MACS: [[u8; 6]; 4] = [
    [0x02, 0, 0, 0, 0, 0x01],
    [0x02, 0, 0, 0, 0, 0x02],
    [0x02, 0, 0, 0, 0x01, 0x01],
    [0xff; 6],
];

/// An IPv4 address from the pools the examples care about (the router, its routes, the
/// firewall's management and storage networks), or a random one.
pub fn ipv4_addr(rng: &mut Rng) -> [u8; 4] {
    let r = rng.bytes(4);
    match rng.below(8) {
        0 => [10, 0, 0, 1],
        1 => [10, 1, r[2], r[3]],
        2 => [10, r[1], r[2], r[3]],
        3 => [192, 168, r[2], r[3]],
        4 => [10, 255, r[2], r[3]],
        5 => [10, 200, r[2], r[3]],
        6 => [
            10,
            rng.below(4) as u8,
            rng.below(4) as u8,
            rng.below(4) as u8,
        ],
        _ => [r[0], r[1], r[2], r[3]],
    }
}

/// A transport port: well-known ones the examples match on, the firewall's storage range, or
/// random.
pub fn l4_port(rng: &mut Rng) -> u16 {
    match rng.below(6) {
        0 => 23,
        1 => 111,
        2 => 7000 + rng.below(120) as u16,
        3 => 80,
        _ => rng.next_u64() as u16,
    }
}

fn tcp(rng: &mut Rng) -> Vec<u8> {
    let mut h = Vec::with_capacity(20);
    h.extend(l4_port(rng).to_be_bytes());
    h.extend(l4_port(rng).to_be_bytes());
    h.extend(rng.bytes(8));
    h.push(0x50);
    let any = rng.next_u64() as u8;
    h.push(rng.pick(&[0x02, 0x10, 0x11, 0x04, 0x18, any]));
    h.extend(rng.bytes(6));
    h
}

fn udp(rng: &mut Rng, payload: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(8);
    h.extend(l4_port(rng).to_be_bytes());
    h.extend(l4_port(rng).to_be_bytes());
    h.extend(((8 + payload) as u16).to_be_bytes());
    h.extend(rng.bytes(2));
    h
}

/// A transport header for `protocol` (TCP, UDP or a few random bytes), then a payload.
fn transport(rng: &mut Rng, protocol: u8) -> Vec<u8> {
    let n = rng.below(48) as usize;
    let payload = rng.bytes(n);
    let mut out = match protocol {
        6 => tcp(rng),
        17 => udp(rng, payload.len()),
        _ => Vec::new(),
    };
    out.extend(payload);
    out
}

fn ipv4(rng: &mut Rng) -> Vec<u8> {
    let any = rng.next_u64() as u8;
    let protocol = rng.pick(&[6u8, 6, 17, 17, 1, any]);
    let ihl: u8 = match rng.below(10) {
        0 => 6,
        1 => rng.below(16) as u8,
        _ => 5,
    };
    let any = rng.next_u64() as u8;
    let ttl = rng.pick(&[0u8, 1, 2, 64, 64, 255, any]);
    let frag: u16 = if rng.chance(1, 8) {
        rng.next_u64() as u16
    } else {
        0x4000
    };
    let options = if ihl > 5 { rng.bytes(4) } else { Vec::new() };
    let rest = transport(rng, protocol);
    let total = (20 + options.len() + rest.len()) as u16;
    let mut h = vec![0x40 | ihl, rng.next_u64() as u8];
    h.extend(total.to_be_bytes());
    h.extend(rng.bytes(2));
    h.extend(frag.to_be_bytes());
    h.extend([ttl, protocol, 0, 0]);
    h.extend(ipv4_addr(rng));
    h.extend(ipv4_addr(rng));
    let checksum = ones_complement(&h);
    h[10..12].copy_from_slice(&checksum.to_be_bytes());
    if rng.chance(1, 16) {
        h[10] ^= 0x40; // a bad checksum now and then
    }
    h.extend(options);
    h.extend(rest);
    h
}

fn ipv6(rng: &mut Rng) -> Vec<u8> {
    let any = rng.next_u64() as u8;
    let next = rng.pick(&[6u8, 17, 58, any]);
    let rest = transport(rng, next);
    let mut h = vec![0x60, 0, 0, 0];
    h.extend((rest.len() as u16).to_be_bytes());
    h.extend([next, 64]);
    for _ in 0..2 {
        h.extend([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        h.extend(ipv4_addr(rng));
    }
    h.extend(rest);
    h
}

fn arp(rng: &mut Rng) -> Vec<u8> {
    let mut h = vec![0, 1, 8, 0, 6, 4, 0, rng.pick(&[1u8, 2])];
    h.extend(rng.pick(&MACS));
    h.extend(ipv4_addr(rng));
    h.extend([0; 6]);
    h.extend(ipv4_addr(rng));
    h
}

/// A random packet: Ethernet, then IPv4 (most often), IPv6, ARP or an unknown ethertype, then
/// TCP or UDP and a payload; about one packet in eight is truncated anywhere.
pub fn packet(rng: &mut Rng) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(rng.pick(&MACS));
    p.extend(rng.pick(&MACS));
    let (ether_type, rest): (u16, Vec<u8>) = match rng.below(10) {
        0..=5 => (0x0800, ipv4(rng)),
        6 | 7 => (0x86dd, ipv6(rng)),
        8 => (0x0806, arp(rng)),
        _ => {
            let n = rng.below(40) as usize;
            (rng.next_u64() as u16, rng.bytes(n))
        }
    };
    p.extend(ether_type.to_be_bytes());
    p.extend(rest);
    if rng.chance(1, 8) {
        p.truncate(rng.below(p.len() as u64 + 1) as usize);
    }
    p
}

/// A payload word: 512 random bits (sometimes mostly zero), whether it is the last of its
/// message, and its `keep` mask (full, except often on a last word).
pub fn word(rng: &mut Rng) -> (Bits, bool, u64) {
    let mut bytes = rng.bytes(64);
    if rng.chance(1, 4) {
        bytes.iter_mut().skip(8).for_each(|b| *b = 0);
    }
    let last = rng.chance(1, 4);
    let keep = if last && rng.chance(1, 2) {
        let n = rng.below(64);
        (1u64 << n) - 1
    } else {
        u64::MAX
    };
    (Bits::from_bytes_be(512, &bytes), last, keep)
}

/// A congestion signal.
pub fn cc_event(rng: &mut Rng) -> CcEvent {
    match rng.below(10) {
        0 | 1 => CcEvent::Ack {
            bytes: {
                let any = rng.below(1 << 20);
                rng.pick(&[0, 1, 1500, 4096, 65536, any])
            },
            ecn: rng.chance(1, 4),
        },
        2 => CcEvent::Cnp,
        3 => CcEvent::Ecn,
        4 => CcEvent::Loss,
        5 => CcEvent::Timeout,
        6 => CcEvent::Rtt(rng.below(1_000_000)),
        7 => CcEvent::Int(scenic_ir::program::IntHop {
            hop: rng.below(4) as u8,
            hops: 1 + rng.below(4) as u8,
            qlen: rng.below(1 << 20),
            tx_bytes: rng.below(u64::MAX),
            ts_ns: rng.below(u64::MAX),
            rate_bps: rng.pick(&[0, 100_000_000_000, 200_000_000_000]),
        }),
        _ => {
            let any = rng.below(20 << 20);
            CcEvent::Sent(rng.pick(&[1500, 4096, 1 << 20, any]))
        }
    }
}

/// A random value of type `ty`: scalars uniform in their width, headers valid.
pub fn value(rng: &mut Rng, ty: &Type, module: &Module) -> Value {
    match ty {
        Type::Header(h) => {
            let mut v = HeaderVal::zero(module, *h, true);
            for f in &mut v.fields {
                *f = Bits::from_biguint(f.width(), &rng.bits(f.width()));
            }
            Value::Header(v)
        }
        Type::Struct(s) => Value::Struct(
            module.structs[*s]
                .fields
                .iter()
                .map(|f| value(rng, &f.ty, module))
                .collect(),
        ),
        Type::Array(elem, n) => Value::Array((0..*n).map(|_| value(rng, elem, module)).collect()),
        Type::Tuple(items) => Value::Tuple(items.iter().map(|t| value(rng, t, module)).collect()),
        Type::Unit => Value::Unit,
        scalar => {
            let w = width_of(scalar, module);
            Value::Bits(Bits::from_biguint(w, &rng.bits(w)))
        }
    }
}

/// A key value of `width` bits that packets are likely to carry: addresses, ports, protocols,
/// ethertypes, MACs, or random.
pub fn key_value(rng: &mut Rng, width: u32) -> BigUint {
    let v = match width {
        32 if rng.chance(3, 4) => BigUint::from(u32::from_be_bytes(ipv4_addr(rng))),
        16 if rng.chance(3, 4) => {
            let port = l4_port(rng);
            BigUint::from(rng.pick(&[port, 0x0800, 0x86dd]))
        }
        8 if rng.chance(3, 4) => BigUint::from(rng.pick(&[6u8, 17, 1])),
        48 if rng.chance(1, 2) => BigUint::from_bytes_be(&rng.pick(&MACS)),
        _ => rng.bits(width),
    };
    v & ((BigUint::from(1u32) << width as usize) - 1u32)
}

/// A random match for a key of `kind` and `width` bits.
pub fn key_match(rng: &mut Rng, kind: MatchKind, width: u32) -> KeyMatch {
    let c = |v: BigUint| scenic_ir::types::Const(v);
    let ones = (BigUint::from(1u32) << width as usize) - 1u32;
    match kind {
        MatchKind::Exact => KeyMatch::Exact(c(key_value(rng, width))),
        MatchKind::Lpm => {
            let len = rng.below(u64::from(width) + 1) as u32;
            KeyMatch::Lpm(c(key_value(rng, width)), len.min(rng.below(17) as u32 + 4))
        }
        MatchKind::Ternary if rng.chance(1, 3) => KeyMatch::Any,
        MatchKind::Ternary => {
            let mask = rng.bits(width) & rng.bits(width) & &ones;
            KeyMatch::Ternary(c(key_value(rng, width)), c(mask))
        }
        MatchKind::Range if rng.chance(1, 3) => KeyMatch::Any,
        MatchKind::Range => {
            let a = key_value(rng, width);
            let b = key_value(rng, width);
            KeyMatch::Range(c(a.clone().min(b.clone())), c(a.max(b)))
        }
    }
}

/// A random entry for `table`: keys, an action name and its arguments.
pub fn table_entry(
    rng: &mut Rng,
    module: &Module,
    scu: &scenic_ir::program::Scu,
    table: &Table,
) -> (Vec<KeyMatch>, String, Vec<BigUint>) {
    let keys = table
        .keys
        .iter()
        .map(|k| key_match(rng, k.kind, width_of(&k.ty, module)))
        .collect();
    let action = &scu.actions[rng.pick(&table.actions)];
    let args = action
        .body
        .params
        .iter()
        .map(|p| {
            let w = width_of(&action.body.locals[*p].ty, module);
            if w <= 8 {
                BigUint::from(rng.below(4)) & ((BigUint::from(1u32) << w as usize) - 1u32)
            } else {
                rng.bits(w)
            }
        })
        .collect();
    (keys, action.name.clone(), args)
}
