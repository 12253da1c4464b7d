//! `array`, `hash` and `lru_hash` maps: the C++ classes against the interpreter's `MapState`.
//!
//! Every get/contains/insert/remove result is the interpreter's. Peek and iteration need values
//! without refreshing recency, which `MapState` cannot give, so a shadow model follows the
//! operations; it is checked against `MapState` at every step where they meet (every get, every
//! eviction's victim, the size and membership at every iteration), so it cannot drift unnoticed.

use super::harness::{self, Rng, Toolchain};
use scenic_interp::state::MapState;
use scenic_interp::value::Value;
use scenic_ir::proc::bits::Bits;
use scenic_ir::program::MapKind;
use std::collections::{BTreeMap, HashMap};

/// One instance of tests/cpp/maps_driver.cpp (the ids and parameters must match its MAPS list).
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub id: u32,
    pub kind: MapKind,
    pub kw: u32,
    pub n: u64,
}

pub const SPECS: &[Spec] = &[
    spec(0, MapKind::Hash, 32, 1),
    spec(1, MapKind::Hash, 32, 4),
    spec(2, MapKind::Hash, 32, 16),
    spec(3, MapKind::Hash, 32, 17),
    spec(4, MapKind::Hash, 32, 100),
    spec(5, MapKind::Hash, 32, 1000),
    spec(6, MapKind::Hash, 104, 300),
    spec(7, MapKind::Hash, 200, 64),
    spec(8, MapKind::Hash, 8, 256),
    spec(9, MapKind::Hash, 32, 50),
    spec(10, MapKind::Hash, 16, 4096),
    spec(20, MapKind::LruHash, 32, 1),
    spec(21, MapKind::LruHash, 32, 2),
    spec(22, MapKind::LruHash, 32, 16),
    spec(23, MapKind::LruHash, 32, 17),
    spec(24, MapKind::LruHash, 32, 100),
    spec(25, MapKind::LruHash, 32, 1000),
    spec(26, MapKind::LruHash, 104, 300),
    spec(27, MapKind::LruHash, 200, 33),
    spec(28, MapKind::LruHash, 8, 256),
    spec(29, MapKind::LruHash, 16, 64),
    spec(30, MapKind::LruHash, 16, 4096),
    spec(40, MapKind::Array, 8, 1),
    spec(41, MapKind::Array, 8, 16),
    spec(42, MapKind::Array, 8, 17),
    spec(43, MapKind::Array, 8, 256),
    spec(44, MapKind::Array, 16, 1000),
    spec(45, MapKind::Array, 64, 5),
    spec(46, MapKind::Array, 4, 16),
    spec(47, MapKind::Array, 8, 100),
];

const fn spec(id: u32, kind: MapKind, kw: u32, n: u64) -> Spec {
    Spec { id, kind, kw, n }
}

/// What the shadow knows about one key: its value and, for LRU maps, when it was last used.
#[derive(Default)]
struct Shadow {
    values: HashMap<Bits, (u64, u64)>,
    by_use: BTreeMap<u64, Bits>,
    clock: u64,
}

impl Shadow {
    fn touch(&mut self, key: &Bits) {
        if let Some(entry) = self.values.get_mut(key) {
            self.by_use.remove(&entry.1);
            self.clock += 1;
            entry.1 = self.clock;
            self.by_use.insert(self.clock, key.clone());
        }
    }

    fn set(&mut self, key: &Bits, value: u64) {
        self.clock += 1;
        if let Some(old) = self.values.insert(key.clone(), (value, self.clock)) {
            self.by_use.remove(&old.1);
        }
        self.by_use.insert(self.clock, key.clone());
    }

    fn remove(&mut self, key: &Bits) {
        if let Some(old) = self.values.remove(key) {
            self.by_use.remove(&old.1);
        }
    }

    fn least_recent(&self) -> Option<Bits> {
        self.by_use.values().next().cloned()
    }
}

/// The golden map plus the shadow, and the expected line of each operation.
struct Model {
    spec: Spec,
    map: MapState,
    shadow: Shadow,
    cleared: bool,
}

fn value_of(v: u64) -> Value {
    Value::Bits(Bits::from_u64(64, v))
}

fn hex_bits(b: &Bits) -> String {
    format!("{:x}", b.to_biguint())
}

impl Model {
    fn new(spec: Spec) -> Model {
        Model {
            spec,
            map: MapState::new(spec.kind, spec.n),
            shadow: Shadow::default(),
            cleared: false,
        }
    }

    fn in_array(&self, key: &Bits) -> bool {
        key.to_biguint() < num_bigint::BigUint::from(self.spec.n)
    }

    /// The interpreter's get, checked against the shadow.
    fn get(&mut self, key: &Bits) -> (bool, u64) {
        let found = self.map.get(key).map(|v| v.bits().to_u64());
        let shadow = self.shadow.values.get(key).map(|e| e.0);
        match self.spec.kind {
            MapKind::Array => {
                assert_eq!(found, shadow, "shadow of array cell {key:?}");
                (self.in_array(key), found.unwrap_or(0))
            }
            _ => {
                assert_eq!(found, shadow, "shadow of key {key:?}");
                self.shadow.touch(key);
                (found.is_some(), found.unwrap_or(0))
            }
        }
    }

    fn apply(&mut self, op: &Op) -> String {
        let bit = |b: bool| if b { "1" } else { "0" }.to_string();
        match op {
            Op::Get(k) => format!("{:x}", self.get(k).1),
            Op::GetFound(k) => {
                let (found, v) = self.get(k);
                format!("{} {v:x}", bit(found))
            }
            Op::Contains(k) => bit(self.map.contains(k)),
            Op::Insert(k, v) => {
                let full = self.map.len() as u64 >= self.spec.n;
                let new = !self.shadow.values.contains_key(k);
                let victim = self.shadow.least_recent();
                let ok = self.map.insert(k.clone(), value_of(*v));
                if ok {
                    if self.spec.kind == MapKind::LruHash && full && new {
                        let victim = victim.unwrap_or_else(|| Bits::zero(1));
                        assert!(
                            !self.map.contains(&victim),
                            "victim {victim:?} still present"
                        );
                        self.shadow.remove(&victim);
                    }
                    self.shadow.set(k, *v);
                }
                bit(ok)
            }
            Op::Remove(k) => {
                let ok = self.map.remove(k);
                self.shadow.remove(k);
                bit(ok)
            }
            Op::Peek(k) => {
                let found = self.map.contains(k);
                let v = self.shadow.values.get(k).map_or(0, |e| e.0);
                format!("{} {v:x}", bit(found))
            }
            Op::Iterate(_) => {
                let mut items: Vec<String> = match self.spec.kind {
                    MapKind::Array => (0..self.spec.n)
                        .map(|i| {
                            let k = Bits::from_u64(self.spec.kw, i);
                            let v = self.shadow.values.get(&k).map_or(0, |e| e.0);
                            format!("{i:x}:{v:x}")
                        })
                        .collect(),
                    _ => {
                        assert_eq!(self.map.len(), self.shadow.values.len(), "shadow size");
                        self.shadow
                            .values
                            .iter()
                            .map(|(k, (v, _))| {
                                assert!(self.map.contains(k), "shadow key {k:?} absent");
                                format!("{}:{v:x}", hex_bits(k))
                            })
                            .collect()
                    }
                };
                items.sort();
                format!("{:x} {}", items.len(), items.join(" "))
                    .trim_end()
                    .to_string()
            }
            Op::Size if self.spec.kind == MapKind::Array => "-".into(),
            Op::Size => format!("{:x}", self.map.len()),
            Op::Failed => format!("{:x}", self.map.failed_inserts),
            Op::Clear => {
                self.map = MapState::new(self.spec.kind, self.spec.n);
                self.shadow = Shadow::default();
                self.cleared = true;
                "ok".into()
            }
            Op::Stats => String::new(),
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Get(Bits),
    GetFound(Bits),
    Contains(Bits),
    Insert(Bits, u64),
    Remove(Bits),
    Peek(Bits),
    /// `I` (host_iterate) or `J` (iterate).
    Iterate(char),
    Size,
    Failed,
    Clear,
    Stats,
}

impl Op {
    fn line(&self, id: u32) -> String {
        match self {
            Op::Get(k) => format!("{id} g {}", hex_bits(k)),
            Op::GetFound(k) => format!("{id} G {}", hex_bits(k)),
            Op::Contains(k) => format!("{id} c {}", hex_bits(k)),
            Op::Insert(k, v) => format!("{id} i {} {v:x}", hex_bits(k)),
            Op::Remove(k) => format!("{id} r {}", hex_bits(k)),
            Op::Peek(k) => format!("{id} p {}", hex_bits(k)),
            Op::Iterate(c) => format!("{id} {c}"),
            Op::Size => format!("{id} s"),
            Op::Failed => format!("{id} f"),
            Op::Clear => format!("{id} x"),
            Op::Stats => format!("{id} q"),
        }
    }
}

/// A random key of `kw` bits.
fn random_key(rng: &mut Rng, kw: u32) -> Bits {
    Bits::from_bytes_be(kw, &rng.bytes(kw.div_ceil(8) as usize))
}

/// The keys a sequence draws from: for hashed maps about 1.5·N + 3 distinct keys (every key when
/// the key space is that small) including 0 and all ones; for arrays mostly k < N, plus N, N + 1
/// and the largest key.
fn key_pool(rng: &mut Rng, spec: Spec) -> Vec<Bits> {
    let space = if spec.kw >= 64 {
        u64::MAX
    } else {
        (1u64 << spec.kw) - 1
    };
    if spec.kind == MapKind::Array {
        let mut keys: Vec<Bits> = (0..spec.n).map(|i| Bits::from_u64(spec.kw, i)).collect();
        for extra in [spec.n, spec.n.saturating_add(1), space] {
            if extra <= space {
                keys.push(Bits::from_u64(spec.kw, extra));
            }
        }
        keys.push(Bits::ones(spec.kw));
        return keys;
    }
    let want = spec.n + spec.n / 2 + 3;
    if spec.kw < 64 && want > space {
        return (0..=space).map(|i| Bits::from_u64(spec.kw, i)).collect();
    }
    let mut keys = vec![Bits::zero(spec.kw), Bits::ones(spec.kw)];
    let mut seen: std::collections::HashSet<Bits> = keys.iter().cloned().collect();
    while (keys.len() as u64) < want {
        let k = random_key(rng, spec.kw);
        if seen.insert(k.clone()) {
            keys.push(k);
        }
    }
    keys
}

/// The operations of one sequence: fill to N, overfill, replace while full, remove and
/// reinsert, then a random mix (with iterations, sizes and one clear), ending with stats.
fn sequence(rng: &mut Rng, spec: Spec, random_ops: usize) -> Vec<Op> {
    let keys = key_pool(rng, spec);
    let pick = |rng: &mut Rng| keys[rng.below(keys.len() as u64) as usize].clone();
    let mut ops = Vec::new();
    let fill = (spec.n as usize).min(keys.len());
    for k in keys.iter().take(fill) {
        ops.push(Op::Insert(k.clone(), rng.next_u64()));
    }
    ops.push(Op::Size);
    ops.push(Op::Iterate('I'));
    for k in keys.iter().skip(fill).take(4) {
        ops.push(Op::Insert(k.clone(), rng.next_u64()));
        ops.push(Op::Contains(k.clone()));
    }
    for k in keys.iter().take(3) {
        ops.push(Op::Insert(k.clone(), rng.next_u64()));
        ops.push(Op::Get(k.clone()));
        ops.push(Op::Remove(k.clone()));
        ops.push(Op::Remove(k.clone()));
        ops.push(Op::GetFound(k.clone()));
        ops.push(Op::Insert(k.clone(), rng.next_u64()));
        ops.push(Op::Peek(k.clone()));
    }
    ops.push(Op::Failed);
    ops.push(Op::Iterate('J'));
    let clear_at = random_ops / 2 + rng.below(random_ops as u64 / 4 + 1) as usize;
    for i in 0..random_ops {
        if i == clear_at {
            ops.push(Op::Clear);
        }
        if i % (random_ops / 6 + 1) == 0 {
            ops.push(Op::Iterate(if i % 2 == 0 { 'I' } else { 'J' }));
            ops.push(Op::Size);
        }
        let k = pick(rng);
        ops.push(match rng.below(100) {
            0..=24 => Op::Get(k),
            25..=34 => Op::Contains(k),
            35..=69 => Op::Insert(k, rng.next_u64()),
            70..=84 => Op::Remove(k),
            85..=92 => Op::GetFound(k),
            _ => Op::Peek(k),
        });
    }
    ops.push(Op::Iterate('I'));
    ops.push(Op::Iterate('J'));
    ops.push(Op::Stats);
    ops
}

/// Sorts the items of an iteration line, so storage order does not matter.
fn canonical(line: &str) -> String {
    let mut words: Vec<&str> = line.split(' ').collect();
    if words.len() > 1 {
        words[1..].sort_unstable();
    }
    words.join(" ")
}

/// Runs every spec with `random_ops` random operations after the edge cases; returns the number
/// of operations compared and the stash figures of the hashed maps.
pub fn run(tc: &Toolchain, std: &str, seed: u64, random_ops: usize) -> (usize, Vec<String>) {
    let driver = tc.driver("maps_driver", std);
    let mut rng = Rng::new(seed);
    let mut lines = Vec::new();
    let mut expected = Vec::new();
    let mut kinds = Vec::new();
    for spec in SPECS {
        let mut model = Model::new(*spec);
        let ops = sequence(&mut rng, *spec, random_ops.max(spec.n as usize * 4));
        for op in ops {
            lines.push(op.line(spec.id));
            let mut want = model.apply(&op);
            if matches!(op, Op::Failed) && model.cleared {
                want = "-".into(); // the interpreter's count restarts with its new state
            }
            expected.push(want);
            kinds.push(op);
        }
    }
    let got = harness::run(&driver, &(lines.join("\n") + "\n"));
    let mut compared = 0;
    let mut stats = Vec::new();
    let mut got_canon = Vec::with_capacity(got.len());
    let mut want_canon = Vec::with_capacity(expected.len());
    for (i, op) in kinds.iter().enumerate() {
        let have = got.get(i).cloned().unwrap_or_default();
        match op {
            Op::Stats => {
                if !have.starts_with('-') {
                    let overflows = have.split(' ').nth(3).unwrap_or("?");
                    assert_eq!(overflows, "0", "{}: overflows: {have}", lines[i]);
                    stats.push(format!("{}: {have}", lines[i]));
                }
                got_canon.push(String::new());
                want_canon.push(String::new());
            }
            Op::Failed if expected[i] == "-" => {
                got_canon.push("-".into());
                want_canon.push("-".into());
            }
            Op::Iterate(_) => {
                got_canon.push(canonical(&have));
                want_canon.push(canonical(&expected[i]));
                compared += 1;
            }
            _ => {
                got_canon.push(have);
                want_canon.push(expected[i].clone());
                compared += 1;
            }
        }
    }
    harness::compare("maps", &lines, &want_canon, &got_canon);
    assert_eq!(got.len(), expected.len(), "maps: output lines");
    (compared, stats)
}
