//! The differential proof for stream kernels (scus on `rdma(qp)` / `tcp(flow)`): at least 10,000
//! generated payload words run through the interpreter (`Machine::process_word`) and the
//! C-simulated kernel, word by word. Messages of 1 to 3,000 bytes (so short and odd last words,
//! rows cut by the message's end, one-byte words), interleaved over 48 flows (0 and the largest
//! 24-bit number among them), bytes beyond `keep` sometimes left as garbage (the kernel must ignore
//! them as the interpreter does), host CSR writes and map writes between words, time moving on.
//! xor_cipher also runs on `tcp(flow)`, where the flow is cut to 16 bits.
//!
//! Per word, equal: the words passed on (their valid bytes, in order) and the DMA transfers the
//! word completed (per output element, in order: the kernel sends a batch the moment it fills,
//! the interpreter after the whole word, so only the order within one element is meaningful).
//! Every 500 words and at the end: every CSR; at the end: every map cell the run touched.
//!
//! partition runs twice: as written (64 KiB batches, so every transfer is a message-end flush)
//! and with 128-byte batches (two words), so that batches also fill and leave mid-message;
//! xor_cipher as written and with an `every 1us` block and a `notify` per message, so that
//! notifications from both (compared at the end, in order) and time-driven blocks are covered.
//!
//! A mismatch report names the input (word number, flow, message, position in it, keep, last,
//! time, the word's bytes), the first differing byte, and the source constructs that produce
//! that output (`pass`/`push` statements, assignments to the CSR) as `file.sn:LINE`.

use crate::common;
use crate::gen;
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_hls_csim::CsimDevice;
use scenic_interp::stream::DmaTransfer;
use scenic_interp::value::Value;
use scenic_interp::Machine;
use scenic_ir::body::{Place, Stmt};
use scenic_ir::proc::bits::Bits;
use scenic_ir::types::Type;
use scenic_ir::{Module, ScuId};
use scenic_scu_abi::control::{Op, Request, Status};
use scenic_sim::device::Device;
use std::collections::BTreeMap;

/// The fewest words a run must put through both devices.
pub const WORDS: usize = 10_000;

/// One message being delivered: its flow, its bytes, how far it has got.
struct Message {
    number: usize,
    flow: u64,
    data: Vec<u8>,
    pos: usize,
}

struct Run<'m> {
    name: &'static str,
    module: &'m Module,
    options: scenic_backend_hls::Options,
    scu: ScuId,
    interp: Machine<'m>,
    csim: CsimDevice<'m>,
    control: scenic_scu_abi::control::ControlLayout,
    rng: gen::Rng,
    now: u64,
    words: usize,
    csr_writes: usize,
    map_writes: usize,
    touched: BTreeMap<usize, Vec<u64>>,
    mismatches: Vec<String>,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Transfers grouped by output element, order kept within each.
fn by_element(v: &[DmaTransfer]) -> BTreeMap<(String, usize), Vec<Vec<u8>>> {
    let mut m: BTreeMap<(String, usize), Vec<Vec<u8>>> = BTreeMap::new();
    for t in v {
        m.entry((t.out.clone(), t.index))
            .or_default()
            .push(t.data.clone());
    }
    m
}

/// The first byte where two byte-string lists differ: (item, byte) or a count difference.
fn first_difference(a: &[Vec<u8>], b: &[Vec<u8>]) -> String {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if let Some(k) = (0..x.len().max(y.len())).find(|k| x.get(*k) != y.get(*k)) {
            let byte = |v: &Vec<u8>| v.get(k).map_or("none".into(), |b| format!("{b:#04x}"));
            return format!(
                "item {i}, byte {k}: interpreter {}, csim {}",
                byte(x),
                byte(y)
            );
        }
    }
    format!("{} items vs {}", a.len(), b.len())
}

impl Run<'_> {
    /// `file.sn:LINE` of every statement of the stream kernel, the `every` blocks and the
    /// functions that `matches`.
    fn constructs(&self, matches: &dyn Fn(&Stmt) -> bool) -> String {
        let def = &self.module.scus[self.scu];
        let mut bodies: Vec<&scenic_ir::Body> = def.stream.iter().collect();
        bodies.extend(def.every.iter().map(|e| &e.body));
        bodies.extend(self.module.functions.values().map(|f| &f.body));
        let mut found = Vec::new();
        for body in bodies {
            let mut stack: Vec<&scenic_ir::body::Block> = vec![&body.block];
            while let Some(block) = stack.pop() {
                for (i, s) in block.stmts.iter().enumerate() {
                    if matches(s) {
                        let span = block.spans.get(i).copied().unwrap_or_default();
                        found.extend(self.options.sources.locate(span));
                    }
                    stack.extend(scenic_backend_hls::analysis::stmt_blocks(s));
                }
            }
        }
        found.sort();
        found.dedup();
        if found.is_empty() {
            "(none found)".into()
        } else {
            found.join(", ")
        }
    }

    fn input(&self, m: &Message, keep: u64, last: bool, word: &[u8]) -> String {
        format!(
            "{}: word #{} (flow {}, message #{} of {} bytes, bytes {}.., keep {keep:#018x}, last {last}, t={} ns): {}",
            self.name,
            self.words,
            m.flow,
            m.number,
            m.data.len(),
            m.pos,
            self.now,
            hex(word)
        )
    }

    /// One word of message `m` through both devices.
    fn word(&mut self, m: &mut Message) {
        let n = (m.data.len() - m.pos).min(64);
        let last = m.pos + n == m.data.len();
        let keep = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut bytes = m.data[m.pos..m.pos + n].to_vec();
        if n < 64 {
            // Garbage beyond `keep` now and then, zeros otherwise (as the STF runner sends).
            let garbage = self.rng.chance(1, 3);
            bytes.extend((n..64).map(|_| {
                if garbage {
                    self.rng.next_u64() as u8
                } else {
                    0
                }
            }));
        }
        let mut be = bytes.clone();
        be.reverse();
        let word = Bits::from_bytes_be(512, &be);
        let input = self.input(m, keep, last, &bytes);
        m.pos += n;
        let expected = self
            .interp
            .process_word(self.scu, m.flow, &word, last, keep, self.now);
        let before = self.csim.transfers.len();
        let got = match self
            .csim
            .word(self.scu, m.flow, &word, keep, last, self.now)
        {
            Ok(got) => got,
            Err(e) => {
                self.mismatches.push(format!("{input}\n  csim error: {e}"));
                return;
            }
        };
        self.words += 1;
        let passed: Vec<Vec<u8>> = expected
            .passed
            .iter()
            .map(|(w, k)| scenic_interp::stream::word_bytes(w, *k))
            .collect();
        if passed != got.passed {
            let at = first_difference(&passed, &got.passed);
            let src = self.constructs(&|s| matches!(s, Stmt::Pass(_)));
            self.mismatches.push(format!(
                "{input}\n  passed words differ: {at}\n  source: pass at {src}"
            ));
        }
        let want = by_element(&expected.transfers);
        let have = by_element(&self.csim.transfers[before..]);
        if want != have {
            self.transfer_mismatch(&input, &want, &have);
        }
    }

    fn transfer_mismatch(
        &mut self,
        input: &str,
        want: &BTreeMap<(String, usize), Vec<Vec<u8>>>,
        have: &BTreeMap<(String, usize), Vec<Vec<u8>>>,
    ) {
        let keys: std::collections::BTreeSet<_> = want.keys().chain(have.keys()).collect();
        for key in keys {
            let (a, b) = (want.get(key), have.get(key));
            if a == b {
                continue;
            }
            let empty = Vec::new();
            let at = first_difference(a.unwrap_or(&empty), b.unwrap_or(&empty));
            let out = key.0.clone();
            let def = &self.module.scus[self.scu];
            let src =
                self.constructs(&|s| matches!(s, Stmt::Push(o, _, _) if def.outs[*o].name == out));
            self.mismatches.push(format!(
                "{input}\n  DMA transfers of {}[{}] differ: {at}\n  source: push at {src}",
                key.0, key.1
            ));
            return;
        }
    }

    /// A host write of a random value to a random writable CSR, on both devices.
    fn csr_write(&mut self) {
        let def = &self.module.scus[self.scu];
        let writable: Vec<_> = def.csrs.values().filter(|c| !c.host_readonly).collect();
        if writable.is_empty() {
            return;
        }
        let csr = self.rng.pick(&writable);
        let width = scenic_interp::value::width_of(&csr.ty, self.module);
        let value = self.rng.next_u64() & (u64::MAX >> (64 - width.min(64)));
        let a = Device::set_csr(&mut self.interp, self.scu, &csr.name, value).unwrap();
        let b = self.csim.set_csr(self.scu, &csr.name, value).unwrap();
        assert_eq!(a, b, "set_csr {}", csr.name);
        self.csr_writes += 1;
    }

    /// A host insert into a map with a scalar value (xor_cipher's `qp_mode`), on both devices:
    /// `flows` are the keys most inserts use, so the kernel sees them.
    fn map_write(&mut self, flows: &[u64]) {
        let def = &self.module.scus[self.scu];
        let Some((index, map)) = def
            .maps
            .values()
            .enumerate()
            .find(|(_, m)| matches!(m.value, Type::Bits(_) | Type::Enum(_)))
        else {
            return;
        };
        let kw = scenic_interp::value::width_of(&map.key, self.module);
        let vw = scenic_interp::value::width_of(&map.value, self.module);
        let key = if self.rng.chance(7, 8) {
            self.rng.pick(flows)
        } else {
            self.rng.next_u64()
        } & (u64::MAX >> (64 - kw.min(64)));
        // Enum values past the last variant are never written by a host that knows the type.
        let value = self.rng.below(3.min(1u64 << vw.min(63)));
        let ok_interp = self.interp.scus[self.scu.index()].maps[index].insert(
            Bits::from_u64(kw, key),
            Value::Bits(Bits::from_u64(vw, value)),
        );
        let mc = self.control.scus[self.scu.index()].maps[index].clone();
        let req = Request {
            op: Op::MapInsert,
            target: mc.target,
            index: 0,
            data: mc.encode_key_value(&BigUint::from(key), &BigUint::from(value)),
        };
        let (status, _) = self.csim.ctrl(self.scu, &req).unwrap();
        let ok_csim = status == Some(Status::Ok);
        if ok_interp != ok_csim {
            self.mismatches.push(format!(
                "{}: host insert {}[{key:#x}] = {value}: interpreter {ok_interp}, csim {status:?}",
                self.name, map.name
            ));
        }
        self.touched.entry(index).or_default().push(key);
        self.map_writes += 1;
    }
}

/// A map value as the control interface's record: its scalars at their layout positions.
fn record(v: &Value, fields: &[scenic_scu_abi::control::FieldLayout]) -> BigUint {
    fn scalars<'v>(v: &'v Value, out: &mut Vec<&'v Bits>) {
        match v {
            Value::Bits(b) => out.push(b),
            Value::Struct(f) | Value::Array(f) | Value::Tuple(f) => {
                f.iter().for_each(|x| scalars(x, out))
            }
            _ => {}
        }
    }
    let mut leaves = Vec::new();
    scalars(v, &mut leaves);
    if fields.is_empty() {
        return leaves
            .first()
            .map_or_else(BigUint::default, |b| b.to_biguint());
    }
    let mut r = BigUint::default();
    for (b, f) in leaves.iter().zip(fields) {
        r |= b.to_biguint() << f.lo as usize;
    }
    r
}

impl Run<'_> {
    /// Every CSR must read the same on both devices.
    fn compare_csrs(&mut self, when: &str) {
        let def = &self.module.scus[self.scu];
        for csr in def.csrs.values() {
            let a = Device::csr(&mut self.interp, self.scu, &csr.name).unwrap();
            let b = self.csim.csr(self.scu, &csr.name).unwrap();
            if a != b {
                let name = csr.name.clone();
                let id = def
                    .csrs
                    .iter()
                    .find(|(_, c)| c.name == name)
                    .map(|(i, _)| i);
                let src = self
                    .constructs(&|s| matches!(s, Stmt::Assign(Place::Csr(c), _) if Some(*c) == id));
                self.mismatches.push(format!(
                    "{}: CSR {name} {when} (after word #{}): interpreter {a:?}, csim {b:?}\n  source: assignments at {src}",
                    self.name, self.words
                ));
            }
        }
    }

    /// Every cell of small array maps, and every key the host wrote, must hold the same value.
    fn compare_maps(&mut self) {
        let def = &self.module.scus[self.scu];
        for (index, map) in def.maps.values().enumerate() {
            let mut keys = self.touched.get(&index).cloned().unwrap_or_default();
            if map.kind == scenic_ir::program::MapKind::Array && map.size <= 64 {
                keys.extend(0..map.size);
            }
            keys.sort_unstable();
            keys.dedup();
            let kw = scenic_interp::value::width_of(&map.key, self.module);
            let mc = self.control.scus[self.scu.index()].maps[index].clone();
            for key in keys {
                let a = self.interp.scus[self.scu.index()].maps[index]
                    .get(&Bits::from_u64(kw, key))
                    .map(|v| record(&v, &mc.value_fields));
                let req = Request {
                    op: Op::MapGet,
                    target: mc.target,
                    index: 0,
                    data: mc.encode_key(&BigUint::from(key)),
                };
                let (status, data) = self.csim.ctrl(self.scu, &req).unwrap();
                let b = (status == Some(Status::Ok)).then(|| mc.decode_value(&data));
                if a != b {
                    self.mismatches.push(format!(
                        "{}: final map {}[{key:#x}]: interpreter {a:?}, csim {b:?} (status {status:?})",
                        self.name, map.name
                    ));
                }
            }
        }
    }
}

impl Run<'_> {
    /// Every notification (from the stream body and from `every` blocks), in order.
    fn compare_notifications(&mut self) {
        let a: Vec<(bool, u32)> = self
            .interp
            .notifications
            .iter()
            .map(|n| (n.to_arm, n.value))
            .collect();
        let b: Vec<(bool, u32)> = self
            .csim
            .notifications
            .iter()
            .map(|n| (n.to_arm, n.value))
            .collect();
        if a != b {
            let at = (0..a.len().max(b.len()))
                .find(|i| a.get(*i) != b.get(*i))
                .unwrap_or(0);
            let src = self.constructs(&|s| matches!(s, Stmt::Notify(..)));
            self.mismatches.push(format!(
                "{}: notifications differ from #{at}: interpreter {} ({:?}), csim {} ({:?})\n  source: notify at {src}",
                self.name,
                a.len(),
                a.get(at),
                b.len(),
                b.get(at)
            ));
        }
    }
}

/// A message: mostly short ones, some long; any length from 1 byte.
fn message_len(rng: &mut gen::Rng) -> usize {
    match rng.below(10) {
        0..=5 => 1 + rng.below(200) as usize,
        6..=8 => 1 + rng.below(700) as usize,
        _ => 1 + rng.below(3000) as usize,
    }
}

/// Runs the differential on example `name` (a file with one stream scu).
pub fn differential(name: &'static str, seed: u64) {
    let Some(ap_types) = common::ap_types_or_skip(name) else {
        return;
    };
    let (module, info, options) = common::load(name);
    let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
    let csim =
        CsimDevice::new(&module, &files, &ap_types, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let scu = module.scus.keys().next().expect("an scu");
    let mut rng = gen::Rng::new(seed);
    // Half the flows fit 16 bits (tcp sessions), half need 24 (RDMA queue pairs).
    let mut flows: Vec<u64> = (0..46)
        .map(|i| rng.below(if i % 2 == 0 { 1 << 16 } else { 1 << 24 }))
        .collect();
    flows.extend([0, 0xff_ffff]);
    let mut run = Run {
        name,
        module: &module,
        options,
        scu,
        interp: Machine::new(&module),
        csim,
        control: files.control.clone(),
        rng,
        now: 0,
        words: 0,
        csr_writes: 0,
        map_writes: 0,
        touched: BTreeMap::new(),
        mismatches: Vec::new(),
    };
    drive(&mut run, &flows);
    run.compare_csrs("at the end");
    run.compare_maps();
    run.compare_notifications();
    let summary = format!(
        "{name}: {} words (to t={} ns), {} DMA transfers, {} notifications, {} CSR writes, {} map writes, {} mismatches",
        run.words,
        run.now,
        run.csim.transfers.len(),
        run.csim.notifications.len(),
        run.csr_writes,
        run.map_writes,
        run.mismatches.len()
    );
    eprintln!("{summary}");
    assert!(
        run.mismatches.is_empty(),
        "{summary}\n{}",
        run.mismatches.join("\n\n")
    );
    assert!(run.words >= WORDS, "{summary}: too few words");
}

/// Interleaves messages of several flows until `WORDS` words have run.
fn drive(run: &mut Run<'_>, flows: &[u64]) {
    let mut open: Vec<Message> = Vec::new();
    let mut number = 0;
    while run.words < WORDS && run.mismatches.len() < 5 {
        while open.len() < 1 + run.rng.below(4) as usize {
            let len = message_len(&mut run.rng);
            open.push(Message {
                number,
                flow: run.rng.pick(flows),
                data: run.rng.bytes(len),
                pos: 0,
            });
            number += 1;
        }
        if run.rng.chance(1, 50) {
            run.csr_write();
        }
        if run.rng.chance(1, 40) {
            run.map_write(flows);
        }
        run.now += run.rng.below(50);
        let i = run.rng.below(open.len() as u64) as usize;
        let mut m = open.swap_remove(i);
        run.word(&mut m);
        if m.pos < m.data.len() {
            open.push(m);
        }
        if run.words % 500 == 0 {
            run.compare_csrs("periodically");
        }
    }
}

/// Example `example` with textual `edits` (each `from` must occur), written to a temporary file
/// named after `tag`; the path, for [`differential`].
pub fn variant(example: &str, tag: &str, edits: &[(&str, &str)]) -> &'static str {
    let mut text = std::fs::read_to_string(common::examples_dir().join(example)).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{example} contains {from:?}");
        text = text.replace(from, to);
    }
    let dir = std::env::temp_dir().join(format!("scenicc-stream-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}_{tag}.sn", example.trim_end_matches(".sn")));
    std::fs::write(&path, text).unwrap();
    // `common::load` joins the name to examples/, which keeps an absolute path as it is.
    Box::leak(path.to_string_lossy().into_owned().into_boxed_str())
}
