//! Exact-match table storage: scenic::exact_table against the interpreter's `TableState` (the
//! Exact strategy), including constant entries, full tables, duplicates, removal by key (the
//! interpreter removes by handle; the test keeps handle ↔ key as the host runtime does), clear,
//! iteration, and fills to the geometry's highest load with random, sequential and strided keys.

use super::harness::{self, Rng, Toolchain};
use cranelift_entity::EntityRef;
use scenic_interp::state::{EntryError, KeyTest, RtEntry, TableState};
use scenic_ir::proc::bits::Bits;
use scenic_ir::{ActionId, Body, ExprId, MatchKind, Span, Table, TableKey, Type};
use std::collections::HashMap;

/// One instance of tests/cpp/table_driver.cpp (ids and parameters as its TABLES list).
#[derive(Clone, Copy, Debug)]
struct Spec {
    id: u32,
    kw: u32,
    n: u64,
}

const SPECS: &[Spec] = &[
    Spec {
        id: 0,
        kw: 32,
        n: 8,
    },
    Spec {
        id: 1,
        kw: 32,
        n: 17,
    },
    Spec {
        id: 2,
        kw: 32,
        n: 1000,
    },
    Spec {
        id: 3,
        kw: 104,
        n: 4096,
    },
    Spec {
        id: 4,
        kw: 16,
        n: 65000,
    },
    Spec {
        id: 5,
        kw: 32,
        n: 14745,
    },
    Spec {
        id: 6,
        kw: 200,
        n: 300,
    },
];

/// Width of the action data in the driver (ap_uint<40>).
const DW: u32 = 40;

/// How keys of a fill are chosen.
#[derive(Clone, Copy, Debug)]
enum Pattern {
    Random,
    Sequential,
    /// i << shift.
    Strided(u32),
}

fn table(kw: u32, n: u64) -> Table {
    Table {
        name: "t".into(),
        key_body: Body::default(),
        keys: vec![TableKey {
            expr: ExprId::new(0),
            kind: MatchKind::Exact,
            ty: Type::Bits(kw),
            name: "k".into(),
        }],
        actions: vec![ActionId::new(0)],
        default: (ActionId::new(0), Vec::new()),
        size: n,
        const_entries: Vec::new(),
        is_const: false,
        span: Span::default(),
    }
}

fn entry(key: &Bits, data: u64, constant: bool, handle: u64) -> RtEntry {
    RtEntry {
        keys: vec![KeyTest::Exact(key.clone())],
        action: 0,
        args: vec![Bits::from_u64(DW, data)],
        priority: 0,
        constant,
        handle,
    }
}

fn hex_bits(b: &Bits) -> String {
    format!("{:x}", b.to_biguint())
}

/// The golden table, the host's handle ↔ key bookkeeping and a shadow of the entries (for
/// iteration, checked against the table's size and lookups).
struct Model {
    state: TableState,
    handles: HashMap<Bits, u64>,
    next_handle: u64,
    shadow: HashMap<Bits, (u64, bool)>,
}

impl Model {
    fn new(spec: Spec, consts: &[(Bits, u64)]) -> Model {
        let entries = consts.iter().map(|(k, d)| entry(k, *d, true, 0)).collect();
        Model {
            state: TableState::new(&table(spec.kw, spec.n), vec![spec.kw], (0, vec![]), entries),
            handles: HashMap::new(),
            next_handle: 1,
            shadow: consts
                .iter()
                .map(|(k, d)| (k.clone(), (*d, true)))
                .collect(),
        }
    }

    fn apply(&mut self, op: &Op) -> String {
        match op {
            Op::AddConst(k, _) => {
                // Installed by TableState::new already; the C++ side inserts it now.
                assert!(self.shadow.get(k).is_some_and(|e| e.1), "constant {k:?}");
                "0".into()
            }
            Op::Add(k, d) => {
                let handle = self.next_handle;
                match self.state.insert(entry(k, *d, false, handle)) {
                    Ok(()) => {
                        self.next_handle += 1;
                        self.handles.insert(k.clone(), handle);
                        self.shadow.insert(k.clone(), (*d, false));
                        "0".into()
                    }
                    Err(EntryError::Full(_)) => "2".into(),
                    Err(EntryError::Duplicate) => "3".into(),
                    Err(e) => panic!("unexpected {e:?}"),
                }
            }
            Op::Remove(k) => {
                let removed = match self.handles.remove(k) {
                    Some(h) => self.state.remove(h),
                    None => false,
                };
                if removed {
                    self.shadow.remove(k);
                }
                if removed { "1" } else { "0" }.into()
            }
            Op::Lookup(k) => match self.state.lookup(std::slice::from_ref(k)) {
                Some(e) => {
                    let d = e.args[0].to_u64();
                    assert_eq!(self.shadow.get(k).map(|e| e.0), Some(d), "shadow {k:?}");
                    format!("1 {d:x}")
                }
                None => "0".into(),
            },
            Op::Clear => {
                self.state.clear_runtime();
                self.handles.clear();
                self.shadow.retain(|_, e| e.1);
                "ok".into()
            }
            Op::Size => format!("{:x}", self.state.len()),
            Op::Hits => format!("{:x} {:x}", self.state.hits, self.state.misses),
            Op::Iterate(_) => {
                assert_eq!(self.shadow.len(), self.state.len(), "shadow size");
                let mut items: Vec<String> = self
                    .shadow
                    .iter()
                    .map(|(k, (d, c))| format!("{}:{d:x}:{}", hex_bits(k), u8::from(*c)))
                    .collect();
                items.sort();
                format!("{:x} {}", items.len(), items.join(" "))
                    .trim_end()
                    .to_string()
            }
            Op::Stats => String::new(),
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    AddConst(Bits, u64),
    Add(Bits, u64),
    Remove(Bits),
    Lookup(Bits),
    Clear,
    Size,
    Hits,
    Iterate(char),
    Stats,
}

impl Op {
    fn line(&self, id: u32) -> String {
        match self {
            Op::AddConst(k, d) => format!("{id} A {} {d:x}", hex_bits(k)),
            Op::Add(k, d) => format!("{id} a {} {d:x}", hex_bits(k)),
            Op::Remove(k) => format!("{id} r {}", hex_bits(k)),
            Op::Lookup(k) => format!("{id} l {}", hex_bits(k)),
            Op::Clear => format!("{id} x"),
            Op::Size => format!("{id} s"),
            Op::Hits => format!("{id} h"),
            Op::Iterate(c) => format!("{id} {c}"),
            Op::Stats => format!("{id} q"),
        }
    }
}

/// `count` distinct keys of `kw` bits following `pattern`, none in `avoid`.
fn keys(rng: &mut Rng, kw: u32, count: usize, pattern: Pattern, avoid: &[Bits]) -> Vec<Bits> {
    let mut seen: std::collections::HashSet<Bits> = avoid.iter().cloned().collect();
    let mut out = Vec::with_capacity(count);
    let mut i = 0u64;
    while out.len() < count {
        let k = match pattern {
            Pattern::Random => Bits::from_bytes_be(kw, &rng.bytes(kw.div_ceil(8) as usize)),
            Pattern::Sequential => Bits::from_u64(kw, i),
            Pattern::Strided(s) => Bits::from_u64(kw, i << s),
        };
        i += 1;
        if seen.insert(k.clone()) {
            out.push(k);
        }
    }
    out
}

/// A sequence for one table: constants, a fill to N with `patterns[0]`, the full-table and
/// duplicate edge cases, a random mix, then for every further pattern a clear and a refill.
fn sequence(rng: &mut Rng, spec: Spec, patterns: &[Pattern], mix: usize) -> (Vec<Op>, Model) {
    let n = spec.n as usize;
    let n_const = (n / 8).min(5);
    let consts: Vec<(Bits, u64)> = keys(rng, spec.kw, n_const, Pattern::Random, &[])
        .into_iter()
        .map(|k| (k, rng.next_u64() & ((1 << DW) - 1)))
        .collect();
    let const_keys: Vec<Bits> = consts.iter().map(|c| c.0.clone()).collect();
    let model = Model::new(spec, &consts);
    let mut ops: Vec<Op> = consts
        .iter()
        .map(|(k, d)| Op::AddConst(k.clone(), *d))
        .collect();
    let data = |rng: &mut Rng| rng.next_u64() & ((1 << DW) - 1);
    for (round, pattern) in patterns.iter().enumerate() {
        if round > 0 {
            ops.push(Op::Clear);
            ops.push(Op::Size);
        }
        let fill = keys(rng, spec.kw, n - n_const + 3, *pattern, &const_keys);
        for k in &fill[..n - n_const] {
            ops.push(Op::Add(k.clone(), data(rng)));
        }
        ops.push(Op::Size);
        // Full: a new key and a present key are both refused as Full (checked first).
        ops.push(Op::Add(fill[n - n_const].clone(), data(rng)));
        if let Some(k) = fill.first() {
            ops.push(Op::Add(k.clone(), data(rng)));
        }
        if let Some(k) = const_keys.first() {
            ops.push(Op::Remove(k.clone()));
        }
        if n > n_const {
            let k = fill[0].clone();
            ops.push(Op::Remove(k.clone()));
            ops.push(Op::Remove(k.clone()));
            ops.push(Op::Lookup(k.clone()));
            ops.push(Op::Add(fill[1 % (n - n_const)].clone(), data(rng)));
            ops.push(Op::Add(k.clone(), data(rng)));
            ops.push(Op::Lookup(k));
        }
        ops.push(Op::Stats);
        for k in fill.iter().step_by(fill.len() / 64 + 1) {
            ops.push(Op::Lookup(k.clone()));
        }
        ops.push(Op::Iterate(if round % 2 == 0 { 'I' } else { 'J' }));
        // A random mix over the fill, the constants and a few keys never added.
        let mut pool: Vec<Bits> = fill.clone();
        pool.extend(const_keys.iter().cloned());
        for _ in 0..mix {
            let k = pool[rng.below(pool.len() as u64) as usize].clone();
            ops.push(match rng.below(100) {
                0..=49 => Op::Lookup(k),
                50..=74 => Op::Add(k, data(rng)),
                _ => Op::Remove(k),
            });
        }
        ops.push(Op::Hits);
        ops.push(Op::Size);
    }
    ops.push(Op::Iterate('J'));
    ops.push(Op::Clear);
    ops.push(Op::Iterate('I'));
    ops.push(Op::Stats);
    (ops, model)
}

/// Runs every table; returns the operations compared and each table's stash figures.
pub fn run(tc: &Toolchain, seed: u64) -> (usize, Vec<String>) {
    let driver = tc.driver("table_driver", "c++14");
    let mut rng = Rng::new(seed);
    let mut lines = Vec::new();
    let mut expected = Vec::new();
    let mut stats_at = Vec::new();
    for spec in SPECS {
        let patterns: &[Pattern] = match spec.id {
            4 => &[Pattern::Sequential],
            5 => &[
                Pattern::Random,
                Pattern::Sequential,
                Pattern::Strided(12),
                Pattern::Strided(17),
            ],
            _ => &[Pattern::Random, Pattern::Sequential, Pattern::Strided(8)],
        };
        // TableState removes in O(size) (it rebuilds its index), so big tables get fewer.
        let mix = match spec.n {
            0..=1000 => 4000,
            1001..=5000 => 1000,
            _ => 250,
        };
        let (ops, mut model) = sequence(&mut rng, *spec, patterns, mix);
        for op in &ops {
            lines.push(op.line(spec.id));
            expected.push(model.apply(op));
            if matches!(op, Op::Stats) {
                stats_at.push(lines.len() - 1);
            }
        }
    }
    let got = harness::run(&driver, &(lines.join("\n") + "\n"));
    let mut stats = Vec::new();
    let mut got = got;
    let mut compared = expected.len();
    for &i in &stats_at {
        let have = got.get(i).cloned().unwrap_or_default();
        let overflows = have.split(' ').nth(3).unwrap_or("?");
        assert_eq!(overflows, "0", "{}: overflows: {have}", lines[i]);
        stats.push(format!("{}: {have}", lines[i]));
        if let Some(g) = got.get_mut(i) {
            g.clear();
        }
        compared -= 1;
    }
    for (i, line) in lines.iter().enumerate() {
        if line.ends_with(" I") || line.ends_with(" J") {
            if let Some(g) = got.get_mut(i) {
                *g = canonical(g);
            }
            expected[i] = canonical(&expected[i]);
        }
    }
    harness::compare("tables", &lines, &expected, &got);
    (compared, stats)
}

fn canonical(line: &str) -> String {
    let mut words: Vec<&str> = line.split(' ').collect();
    if words.len() > 1 {
        words[1..].sort_unstable();
    }
    words.join(" ")
}
