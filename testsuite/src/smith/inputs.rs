//! Inputs for a generated program: packets (random bytes around the length of the parser's
//! headers, biased to zeros and ones so that the narrow select fields take the values the parser's
//! arms name) or, for a stream kernel, messages of payload words (STF `words`), host operations as
//! in STF (`set_csr`, `add`, `setdefault`, `map_write`) and struct-valued map writes (which only
//! the host's control path can express),
//! virtual time that runs `every` blocks and cc timers, and congestion events. Each operation
//! renders as its STF command, so a mismatch's inputs become a `.stf` file.

use super::program::{ProgramInfo, TableInfo};
use super::rng::Rng;
use num_bigint::BigUint;
use scenic_interp::cc::CcEvent;
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;

/// One input operation.
#[derive(Clone, Debug)]
pub enum Op {
    /// A packet on a port, at the current time.
    Packet {
        /// Ingress port.
        port: u8,
        /// Its bytes (at least one).
        bytes: Vec<u8>,
    },
    /// Advance virtual time to this many ns.
    Time(u64),
    /// The host writes a CSR or param.
    SetCsr {
        /// Its name.
        name: String,
        /// The value.
        value: u64,
    },
    /// The host adds a table entry.
    AddEntry {
        /// The table.
        table: String,
        /// One match per key (as written in the source).
        keys: Vec<KeyMatch>,
        /// The action.
        action: String,
        /// Its arguments.
        args: Vec<BigUint>,
        /// The priority (priority tables only).
        priority: Option<u64>,
    },
    /// The host replaces a table's default action.
    SetDefault {
        /// The table.
        table: String,
        /// The action.
        action: String,
        /// Its arguments.
        args: Vec<BigUint>,
    },
    /// The host writes a map entry.
    MapWrite {
        /// The map.
        map: String,
        /// The key.
        key: u64,
        /// The value.
        value: u64,
    },
    /// A message of payload words to the stream kernel (STF `words`).
    Words {
        /// The flow or queue pair (fits the attach binding).
        flow: u64,
        /// The message's bytes (at least one), cut into 64-byte words.
        bytes: Vec<u8>,
    },
    /// The host writes a map entry whose value is a struct, as a packed record through the
    /// control path (`scenic_sim::control`); STF cannot write one (docs/testing.md).
    MapRecord {
        /// The map.
        map: String,
        /// The key.
        key: u64,
        /// The seed of the value, drawn per field from the map's value type (`host_record.rs`).
        seed: u64,
    },
    /// A congestion signal.
    Event {
        /// The controller.
        cc: String,
        /// The flow.
        flow: u64,
        /// The signal.
        event: CcEvent,
    },
}

/// The input sequence for a program.
pub fn ops(rng: &mut Rng, info: &ProgramInfo) -> Vec<Op> {
    let mut ops = Vec::new();
    let mut now = 0u64;
    for _ in 0..rng.range(8, 30) {
        let op = match rng.below(20) {
            0..=2 => {
                now += rng.pick(&[100, 499, 500, 1000, 1501, 3000, 7000]);
                Op::Time(now)
            }
            3 | 4 if !info.host_csrs.is_empty() => {
                let (name, w) = rng.pick(&info.host_csrs);
                Op::SetCsr {
                    name,
                    value: edge_u64(rng, w),
                }
            }
            5..=7 if info.tables.iter().any(|t| t.runtime) => add_entry(rng, info),
            8 if info.tables.iter().any(|t| t.runtime) => set_default(rng, info),
            9 if info.maps.iter().any(|m| m.scalar_value.is_some()) => map_write(rng, info),
            10..=12 if !info.ccs.is_empty() => event(rng, info),
            13 if info.maps.iter().any(|m| m.struct_value) => map_record(rng, info),
            _ => match &info.stream {
                Some(s) => words(rng, s.flow_width),
                None => packet(rng, info),
            },
        };
        ops.push(op);
    }
    ops
}

/// A value of `w` bits (w ≤ 64), biased to edges.
fn edge_u64(rng: &mut Rng, w: u32) -> u64 {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = match rng.below(6) {
        0 => 0,
        1 => 1,
        2 => mask,
        3 => rng.below(8),
        _ => rng.next_u64(),
    };
    v & mask
}

fn big(rng: &mut Rng, w: u32) -> BigUint {
    if w <= 64 {
        BigUint::from(edge_u64(rng, w))
    } else {
        let bytes = rng.bytes(w.div_ceil(8) as usize);
        BigUint::from_bytes_be(&bytes) & ((BigUint::from(1u32) << w as usize) - 1u32)
    }
}

fn packet(rng: &mut Rng, info: &ProgramInfo) -> Op {
    let len = rng.range(1, info.header_bytes as u64 + 12) as usize;
    let bytes = (0..len)
        .map(|_| match rng.below(10) {
            0..=3 => 0,
            4 => 1,
            5 => 0xff,
            _ => rng.next_u64() as u8,
        })
        .collect();
    Op::Packet {
        port: rng.below(4) as u8,
        bytes,
    }
}

/// A message of 1 to 200 bytes (biased to whole words and to one byte past them), on a flow
/// biased to small numbers and to the binding's largest value.
fn words(rng: &mut Rng, flow_width: u32) -> Op {
    let len = match rng.below(6) {
        0 => rng.pick(&[64u64, 128, 192]),
        1 => rng.pick(&[1u64, 65, 129]),
        _ => rng.range(1, 200),
    } as usize;
    let bytes = (0..len)
        .map(|_| match rng.below(8) {
            0 | 1 => 0,
            2 => 1,
            3 => 0xff,
            _ => rng.next_u64() as u8,
        })
        .collect();
    let flow = match rng.below(4) {
        0 => (1u64 << flow_width) - 1,
        _ => rng.below(4),
    };
    Op::Words { flow, bytes }
}

fn map_record(rng: &mut Rng, info: &ProgramInfo) -> Op {
    let maps: Vec<_> = info.maps.iter().filter(|m| m.struct_value).collect();
    let m = maps[rng.index(maps.len())];
    Op::MapRecord {
        map: m.name.clone(),
        key: edge_u64(rng, m.key_width),
        seed: rng.next_u64(),
    }
}

fn key_match(rng: &mut Rng, kind: &str, w: u32) -> KeyMatch {
    let c = Const;
    match kind {
        "exact" => KeyMatch::Exact(c(big(rng, w))),
        _ if rng.chance(1, 4) => KeyMatch::Any,
        "lpm" => {
            let len = rng.below(u64::from(w) + 1) as u32;
            let v = big(rng, w);
            let keep = (BigUint::from(1u32) << len as usize) - 1u32;
            let v = (v >> (w - len) as usize & keep) << (w - len) as usize;
            KeyMatch::Lpm(c(v), len)
        }
        "ternary" => {
            let v = big(rng, w);
            let m = big(rng, w);
            KeyMatch::Ternary(c(v & &m), c(m))
        }
        _ => {
            let a = big(rng, w);
            let b = big(rng, w);
            KeyMatch::Range(c(a.clone().min(b.clone())), c(a.max(b)))
        }
    }
}

fn runtime_table(rng: &mut Rng, info: &ProgramInfo) -> TableInfo {
    let tables: Vec<&TableInfo> = info.tables.iter().filter(|t| t.runtime).collect();
    tables[rng.index(tables.len())].clone()
}

fn action_call(rng: &mut Rng, t: &TableInfo) -> (String, Vec<BigUint>) {
    let (a, ps) = rng.pick(&t.actions);
    let args = ps.iter().map(|(_, w)| big(rng, *w)).collect();
    (a, args)
}

fn add_entry(rng: &mut Rng, info: &ProgramInfo) -> Op {
    let t = runtime_table(rng, info);
    let keys = t
        .keys
        .iter()
        .map(|k| key_match(rng, k.kind, k.width))
        .collect();
    let (action, args) = action_call(rng, &t);
    Op::AddEntry {
        priority: t.is_priority().then(|| rng.below(4)),
        table: t.name,
        keys,
        action,
        args,
    }
}

fn set_default(rng: &mut Rng, info: &ProgramInfo) -> Op {
    let t = runtime_table(rng, info);
    let (action, args) = action_call(rng, &t);
    Op::SetDefault {
        table: t.name,
        action,
        args,
    }
}

fn map_write(rng: &mut Rng, info: &ProgramInfo) -> Op {
    let maps: Vec<_> = info
        .maps
        .iter()
        .filter(|m| m.scalar_value.is_some())
        .collect();
    let m = maps[rng.index(maps.len())];
    Op::MapWrite {
        map: m.name.clone(),
        key: edge_u64(rng, m.key_width),
        value: edge_u64(rng, m.scalar_value.unwrap_or(8)),
    }
}

fn event(rng: &mut Rng, info: &ProgramInfo) -> Op {
    let cc = rng.pick(&info.ccs);
    let event = match rng.below(8) {
        0 | 1 => CcEvent::Ack {
            bytes: {
                let any = rng.below(1 << 20);
                rng.pick(&[0, 1, 1500, 4096, 65536, any])
            },
            ecn: rng.chance(1, 3),
        },
        2 => CcEvent::Cnp,
        3 => CcEvent::Ecn,
        4 => CcEvent::Loss,
        5 => CcEvent::Timeout,
        6 => CcEvent::Rtt(rng.below(100_000)),
        _ => CcEvent::Sent(rng.pick(&[100, 1500, 5000])),
    };
    Op::Event {
        flow: rng.below(cc.flows + 1),
        cc: cc.name,
        event,
    }
}

/// Hex digits of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A key match in STF syntax (docs/testing.md).
fn stf_match(m: &KeyMatch) -> String {
    match m {
        KeyMatch::Exact(v) => format!("0x{:x}", v.0),
        KeyMatch::Lpm(v, len) => format!("0x{:x}/{len}", v.0),
        KeyMatch::Ternary(v, m) => format!("0x{:x}&&&0x{:x}", v.0, m.0),
        KeyMatch::Range(a, b) => format!("0x{:x}..=0x{:x}", a.0, b.0),
        KeyMatch::Any => "_".into(),
    }
}

fn stf_args(t: Option<&TableInfo>, action: &str, args: &[BigUint]) -> String {
    let names: Vec<String> = t
        .and_then(|t| t.actions.iter().find(|a| a.0 == action))
        .map(|a| a.1.iter().map(|p| p.0.clone()).collect())
        .unwrap_or_default();
    let list: Vec<String> = names
        .iter()
        .zip(args)
        .map(|(n, v)| format!("{n}:0x{v:x}"))
        .collect();
    format!("{action}({})", list.join(", "))
}

impl Op {
    /// The `--stats` name of the operation.
    pub fn stat_name(&self) -> &'static str {
        match self {
            Op::Packet { .. } => "input.packet",
            Op::Time(_) => "input.time",
            Op::SetCsr { .. } => "input.set-csr",
            Op::AddEntry { .. } => "input.table-add",
            Op::SetDefault { .. } => "input.table-set-default",
            Op::MapWrite { .. } => "input.map-write",
            Op::Words { .. } => "input.words",
            Op::MapRecord { .. } => "input.map-write-struct",
            Op::Event { .. } => "input.cc-event",
        }
    }

    /// The STF command.
    pub fn stf(&self, info: &ProgramInfo) -> String {
        let table = |name: &str| info.tables.iter().find(|t| t.name == name);
        match self {
            Op::Packet { port, bytes } => format!("packet {port} {}", hex(bytes)),
            Op::Time(t) => format!("time {t}"),
            Op::SetCsr { name, value } => format!("set_csr {name} {value}"),
            Op::AddEntry {
                table: t,
                keys,
                action,
                args,
                priority,
            } => {
                let info_t = table(t);
                let mut s = format!("add {t}");
                if let Some(p) = priority {
                    s.push_str(&format!(" {p}"));
                }
                if let Some(ti) = info_t {
                    for (k, m) in ti.keys.iter().zip(keys) {
                        if !matches!(m, KeyMatch::Any) {
                            s.push_str(&format!(" {}:{}", k.name, stf_match(m)));
                        }
                    }
                }
                s.push(' ');
                s.push_str(&stf_args(info_t, action, args));
                s
            }
            Op::SetDefault {
                table: t,
                action,
                args,
            } => format!("setdefault {t} {}", stf_args(table(t), action, args)),
            Op::MapWrite { map, key, value } => format!("map_write {map} {key} {value}"),
            Op::Words { flow, bytes } => format!("words {flow} {}", hex(bytes)),
            Op::MapRecord { map, key, seed } => format!(
                "# the host writes a struct value (record seed {seed}) to map {map} key {key}: STF cannot"
            ),
            Op::Event { cc, flow, event } => match event {
                CcEvent::Ack { bytes, ecn } => {
                    format!("event {cc} {flow} ack bytes={bytes} ecn={}", u8::from(*ecn))
                }
                CcEvent::Cnp => format!("event {cc} {flow} cnp"),
                CcEvent::Ecn => format!("event {cc} {flow} ecn"),
                CcEvent::Loss => format!("event {cc} {flow} loss"),
                CcEvent::Timeout => format!("event {cc} {flow} timeout"),
                CcEvent::Rtt(s) => format!("event {cc} {flow} rtt sample={s}"),
                CcEvent::Sent(bytes) => format!("event {cc} {flow} sent bytes={bytes}"),
                CcEvent::Int(h) => format!(
                    "event {cc} {flow} int hop={} hops={} qlen={} tx_bytes={} ts={}ns rate={}",
                    h.hop, h.hops, h.qlen, h.tx_bytes, h.ts_ns, h.rate_bps
                ),
            },
        }
    }
}
