//! Large exact tables (hashed in BRAM, `writer::tables_exact`) behave as the interpreter's:
//! `programs/exact_flows.stf` runs on both with the same passes and the same failures (duplicate
//! keys, full tables), and a differential run of 12,000 packets over a pool of flows, with run-time
//! adds (filling the 4096-entry table to full and beyond), removes, clears and default changes,
//! must give the same outputs, the same answers to every host request and the same final CSRs;
//! structured key sets (sequential, strided) fill the hash to exactly its declared size.
//! Skips (with the reason) when `AP_TYPES` is unset outside CI.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use num_bigint::BigUint;
use scenic_hls_csim::CsimDevice;
use scenic_interp::{Destination, Machine};
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;
use scenic_ir::ScuId;
use scenic_sim::device::Device;
use scenic_sim::port_of;
use std::path::{Path, PathBuf};
use std::time::Instant;

const PACKETS: usize = 12_000;
const POOL: usize = 6_000;

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

fn load() -> (scenic_ir::Module, scenic_backend_hls::KernelFiles) {
    let path = programs_dir().join("exact_flows.sn");
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("program loads");
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("program validates");
    let options = scenic_backend_hls::Options::default();
    let files = scenic_backend_hls::write_kernel(&module, &info, &options).expect("generates");
    (module, files)
}

fn device<'m>(
    module: &'m scenic_ir::Module,
    files: &scenic_backend_hls::KernelFiles,
    ap_types: &Path,
) -> CsimDevice<'m> {
    let start = Instant::now();
    let device = CsimDevice::new(module, files, ap_types, &["-Wall", "-Wextra", "-Werror"])
        .unwrap_or_else(|e| panic!("exact_flows: {e}"));
    eprintln!(
        "exact_flows: kernel built (or reused) in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    device
}

#[test]
fn tables_are_hashed_by_kind_and_size() {
    let (_, files) = load();
    let cpp = &files.kernels[0].cpp;
    assert!(cpp.contains("scenic::exact_table<KW, data_t, 7372> store;"));
    assert!(cpp.contains("scenic::exact_table<KW, data_t, 230> store;"));
    // `ports` (16 entries) stays a register CAM.
    assert!(cpp.contains("struct tbl_ports_t {\n    static const int SLOTS = 16;\n    static const int RECORD_BITS = 63;\n    static const int ARG_BITS = 6;\n    bool used[SLOTS];"));
}

#[test]
fn exact_flows_stf_on_interpreter_and_csim() {
    let Some(ap_types) = common::ap_types_or_skip("exact_flows_stf") else {
        return;
    };
    let (module, files) = load();
    let text = std::fs::read_to_string(programs_dir().join("exact_flows.stf")).expect("stf");
    let commands = scenic_sim::stf::parse_report(&text).expect("stf parses");
    let golden = scenic_sim::stf::run(&module, &commands, None);
    let mut csim = device(&module, &files, &ap_types);
    let start = Instant::now();
    let report = scenic_sim::stf::run_on(&mut csim, &commands, None);
    eprintln!(
        "exact_flows.stf: {} passed, {} failed as expected, C-simulated in {:.2} s",
        report.passed,
        report.failures.len(),
        start.elapsed().as_secs_f64()
    );
    let lines = |r: &scenic_sim::stf::StfReport| -> Vec<String> {
        r.failures
            .iter()
            .map(|f| format!("line {}: {}", f.pos.line, f.message))
            .collect()
    };
    assert_eq!(
        lines(&golden),
        lines(&report),
        "interpreter vs csim failures"
    );
    assert_eq!(golden.passed, report.passed);
    // The failures are exactly the adds the file marks `# FAILS`.
    let expected: Vec<usize> = text
        .lines()
        .enumerate()
        .scan(false, |failing, (i, l)| {
            if l.starts_with("# FAILS") {
                *failing = true;
            } else if !l.starts_with("add ") {
                *failing = false;
            }
            Some((*failing && l.starts_with("add ")).then_some(i + 1))
        })
        .flatten()
        .collect();
    let got: Vec<usize> = report
        .failures
        .iter()
        .map(|f| f.pos.line as usize)
        .collect();
    assert_eq!(got, expected, "{:#?}", lines(&report));
    assert!(report.passed >= 30);
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A 5-tuple: source, destination, protocol, ports.
type Flow = (u32, u32, u8, u16, u16);

fn packet(f: Flow) -> Vec<u8> {
    let (src, dst, proto, sp, dp) = f;
    let mut l4 = Vec::new();
    l4.extend(sp.to_be_bytes());
    l4.extend(dp.to_be_bytes());
    if proto == 17 {
        l4.extend(12u16.to_be_bytes());
        l4.extend([0, 0]);
    } else {
        l4.extend([0; 8]);
        l4.extend([0x50, 0x10, 0x04, 0x00, 0, 0, 0, 0]);
    }
    let total = (20 + l4.len() + 4) as u16;
    let mut p = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0xaa, 0x08, 0x00];
    p.extend([0x45, 0]);
    p.extend(total.to_be_bytes());
    p.extend([0, 0, 0x40, 0, 64, proto, 0, 0]);
    p.extend(src.to_be_bytes());
    p.extend(dst.to_be_bytes());
    p.extend(l4);
    p.extend([0xde, 0xad, 0xbe, 0xef]);
    p
}

fn exact(v: u64) -> KeyMatch {
    KeyMatch::Exact(Const(BigUint::from(v)))
}

struct Diff<'m> {
    scu: ScuId,
    interp: Machine<'m>,
    csim: CsimDevice<'m>,
    rng: Rng,
    pool: Vec<Flow>,
    /// Run-time entries: (table, handle).
    handles: Vec<(&'static str, u64)>,
    mismatches: Vec<String>,
    adds: [usize; 4],
}

impl Diff<'_> {
    /// A random action of `flows` with random data.
    fn flow_action(&mut self) -> (&'static str, Vec<BigUint>) {
        match self.rng.below(6) {
            0 => ("punt", vec![]),
            1 => ("deny", vec![]),
            _ => (
                "forward",
                vec![
                    BigUint::from(self.rng.below(8)),
                    BigUint::from(self.rng.next() >> 16),
                    BigUint::from(self.rng.below(64)),
                ],
            ),
        }
    }

    /// Adds an entry on both devices; their answers must agree. Counts ok/full/duplicate/other.
    fn add(&mut self, table: &'static str, keys: Vec<KeyMatch>, action: &str, args: Vec<BigUint>) {
        let a = Device::add_entry(&mut self.interp, self.scu, table, &keys, action, &args, 0);
        let b = self
            .csim
            .add_entry(self.scu, table, &keys, action, &args, 0);
        match (&a, &b) {
            (Ok(x), Ok(y)) if x == y => {
                self.handles.push((table, *x));
                self.adds[0] += 1;
            }
            (Err(x), Err(y)) if x.to_string() == y.to_string() => {
                let s = x.to_string();
                self.adds[if s.contains("full") {
                    1
                } else if s.contains("same keys") {
                    2
                } else {
                    3
                }] += 1;
            }
            _ => self.mismatches.push(format!(
                "add {table} {keys:?} {action}{args:?}: interpreter {a:?}, csim {b:?}"
            )),
        }
    }

    fn add_flow(&mut self) {
        let f = self.pool[self.rng.below(self.pool.len() as u64) as usize];
        let mut keys = vec![
            exact(f.0.into()),
            exact(f.1.into()),
            exact(f.2.into()),
            exact(f.3.into()),
            exact(f.4.into()),
        ];
        // Now and then an element left as "any" (such an entry matches no packet).
        if self.rng.below(40) == 0 {
            keys[self.rng.below(5) as usize] = KeyMatch::Any;
        }
        let (action, args) = self.flow_action();
        self.add("flows", keys, action, args);
    }

    fn add_vip(&mut self) {
        let dst = 0x0a09_0000 | self.rng.below(512) as u32;
        let args = vec![
            BigUint::from(self.rng.below(8)),
            BigUint::from(self.rng.below(65536)),
        ];
        self.add("vips", vec![exact(dst.into())], "steer", args);
    }

    fn remove(&mut self) {
        if self.handles.is_empty() {
            return;
        }
        let i = self.rng.below(self.handles.len() as u64) as usize;
        let (t, h) = self.handles.swap_remove(i);
        let a = Device::remove_entry(&mut self.interp, self.scu, t, h).unwrap();
        let b = self.csim.remove_entry(self.scu, t, h).unwrap();
        if a != b {
            self.mismatches
                .push(format!("remove {t} {h}: interpreter {a}, csim {b}"));
        }
    }

    fn clear(&mut self, table: &'static str) {
        let a = Device::clear_entries(&mut self.interp, self.scu, table).unwrap();
        let b = self.csim.clear_entries(self.scu, table).unwrap();
        assert_eq!(a, b);
        self.handles.retain(|(t, _)| *t != table);
    }

    fn set_default(&mut self) {
        let (action, args) = self.flow_action();
        let a = Device::set_default(&mut self.interp, self.scu, "flows", action, &args);
        let b = self.csim.set_default(self.scu, "flows", action, &args);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    /// A packet of a pool flow (installed or not), a constant flow, a VIP or anything.
    fn packet(&mut self, index: usize, now: u64) {
        let r = self.rng.below(100);
        let flow = match r {
            0..=69 => self.pool[self.rng.below(self.pool.len() as u64) as usize],
            70..=79 => [
                (0x0a00_0001, 0x0a00_0002, 6, 1000, 80),
                (0x0a00_0001, 0x0a00_0002, 17, 1000, 80),
                (0x0a00_0003, 0x0a00_0002, 6, 22, 22),
                (0xc0a8_0101, 0x0a00_0002, 17, 53, 53),
            ][self.rng.below(4) as usize],
            80..=89 => (
                self.rng.next() as u32,
                0x0a09_0000 | self.rng.below(512) as u32,
                17,
                7,
                if self.rng.below(2) == 0 { 443 } else { 80 },
            ),
            _ => (
                self.rng.next() as u32,
                self.rng.next() as u32,
                if self.rng.below(2) == 0 { 6 } else { 17 },
                self.rng.next() as u16,
                self.rng.next() as u16,
            ),
        };
        let data = packet(flow);
        let port = self.rng.below(4) as u8;
        let a = Device::packet(&mut self.interp, self.scu, &data, port, now).unwrap();
        let b = self.csim.packet(self.scu, &data, port, now);
        let by_port = |v: Vec<(Destination, Vec<u8>)>| -> Vec<(u32, Vec<u8>)> {
            let mut out: Vec<_> = v.into_iter().map(|(d, b)| (port_of(&d), b)).collect();
            out.sort_by_key(|(p, _)| *p);
            out
        };
        match b {
            Ok(b) if by_port(a.clone()) == by_port(b.clone()) => {}
            other => self.mismatches.push(format!(
                "packet #{index} {flow:?}: interpreter {:?}, csim {other:?}",
                by_port(a)
            )),
        }
    }
}

#[test]
fn exact_flows_differential() {
    let Some(ap_types) = common::ap_types_or_skip("exact_flows_differential") else {
        return;
    };
    let (module, files) = load();
    let scu = module.scus.keys().next().expect("an scu");
    let mut rng = Rng(0x5eed_0e4a_c7f1_0005);
    let pool: Vec<Flow> = (0..POOL)
        .map(|_| {
            (
                0x0a00_0000 | (rng.next() as u32 & 0x00ff_ffff),
                0x0a00_0000 | (rng.next() as u32 & 0x00ff_ffff),
                if rng.below(2) == 0 { 6 } else { 17 },
                rng.next() as u16,
                rng.next() as u16,
            )
        })
        .collect();
    let mut d = Diff {
        scu,
        interp: Machine::new(&module),
        csim: device(&module, &files, &ap_types),
        rng,
        pool,
        handles: Vec::new(),
        mismatches: Vec::new(),
        adds: [0; 4],
    };
    Device::advance_time(&mut d.interp, 0).unwrap();
    d.csim.advance_time(0).unwrap();
    let start = Instant::now();
    let mut now = 0u64;
    for i in 0..PACKETS {
        // Phases: fill `flows` past full (packets 3000..3100 add 50 flows each), churn at full,
        // clear it at 8000, churn again; `vips` churns throughout around its 80 entries.
        match d.rng.below(100) {
            0..=29 => d.add_flow(),
            30..=37 => d.remove(),
            38..=41 => d.add_vip(),
            42 if d.rng.below(20) == 0 => d.set_default(),
            43 if d.rng.below(50) == 0 => d.clear("vips"),
            _ => {}
        }
        if (3000..3100).contains(&i) {
            for _ in 0..50 {
                d.add_flow();
            }
        }
        if i == 8000 {
            d.clear("flows");
        }
        now += d.rng.below(100);
        d.packet(i, now);
        if d.mismatches.len() >= 5 {
            break;
        }
    }
    for csr in ["hits", "dropped", "steered"] {
        let a = Device::csr(&mut d.interp, scu, csr).unwrap();
        let b = d.csim.csr(scu, csr).unwrap();
        if a != b {
            d.mismatches
                .push(format!("final CSR {csr}: interpreter {a:?}, csim {b:?}"));
        }
    }
    let [ok, full, dup, other] = d.adds;
    // Table 0 is `flows`: how many packets the hash answered with an entry.
    let flows = &d.interp.scus[0].tables[0];
    eprintln!(
        "exact_flows: {PACKETS} packets ({} flow-table hits, {} misses), adds {ok} ok / {full} full / \
         {dup} duplicate / {other} other, {} mismatches, {:.1} s",
        flows.hits,
        flows.misses,
        d.mismatches.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(d.mismatches.is_empty(), "{}", d.mismatches.join("\n"));
    assert!(full > 100 && dup > 100 && ok > 4096, "adds: {:?}", d.adds);
    assert!(flows.hits > 1000, "too few flow-table hits: {}", flows.hits);
}

/// A program with one table keyed on the 5-tuple, of `size` entries and match kind `kind`.
fn five_tuple_table(size: u64, kind: &str) -> (scenic_ir::Module, scenic_ir::ModuleInfo) {
    let text = format!(
        "use std::net::{{ethernet, ipv4, udp}};
scu t on slow_path {{
    headers {{ eth: ethernet, ip: ipv4, udp: udp }}
    parser {{
        state start {{ extract(eth); extract(ip); extract(udp); accept }}
    }}
    action fwd(port: bit<8>) {{ to_network(port); }}
    table big {{
        key {{ ip.src: {kind}, ip.dst: {kind}, ip.protocol: {kind}, udp.src_port: {kind}, udp.dst_port: {kind} }}
        actions {{ fwd }}
        size {size};
    }}
    control {{ big.apply(); }}
    deparser {{ emit(eth); emit(ip); emit(udp); }}
}}
"
    );
    let mut session = scenic_frontend::Session::new();
    session.add_source("big.sn", text);
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("program validates");
    (module, info)
}

#[test]
fn geometry_of_the_hashed_tables() {
    use scenic_backend_hls::writer::tables_exact::Geometry;
    let (_, files) = load();
    let tables = &files.control.scus[0].tables;
    let flows = Geometry::of(&tables[0]);
    // 4096 entries: 2 banks x 512 buckets x 8 ways (50% full), 109-bit keys, 70-bit data.
    assert_eq!(
        (flows.buckets, flows.key_bits, flows.data_bits),
        (512, 109, 70)
    );
    assert_eq!(flows.ram_bits(), 8192 * 181 + 4096 * 142);
    assert_eq!(flows.register_bits(), 8 * (109 + 70 + 18 + 2));
    let vips = Geometry::of(&tables[1]);
    assert_eq!((vips.buckets, vips.ram_bits()), (16, 256 * 67 + 80 * 66));
}

#[test]
fn hashed_tables_count_against_ram_not_registers() {
    use scenic_backend_hls::{Error, Options};
    // 65,536 5-tuples: as a CAM 13.7 M flip-flops (over the U55C's 2.6 M); hashed, 25.9 Mbit of
    // BRAM (16.6 in the banks, 9.3 in the handle table), within the on-chip RAM budget.
    let (module, info) = five_tuple_table(65_536, "exact");
    let files = scenic_backend_hls::write_kernel(&module, &info, &Options::default())
        .expect("a hashed table fits");
    assert!(files.kernels[0]
        .cpp
        .contains("scenic::exact_table<KW, data_t, 117964> store;"));
    let small = Options {
        ram_budget_bits: 10_000_000,
        ..Options::default()
    };
    let err = scenic_backend_hls::write_kernel(&module, &info, &small).unwrap_err();
    let Error::Limit { what, figure, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        what.contains("table `big` (65536 entries hashed in block RAM)"),
        "{what}"
    );
    assert!(figure.contains("bits of on-chip RAM"), "{figure}");
    // The same size with ternary keys is a CAM: over the register budget.
    let (module, info) = five_tuple_table(65_536, "ternary");
    let err = scenic_backend_hls::write_kernel(&module, &info, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("register CAM"), "{err}");
}

/// The `i`-th flow of a structured key set.
type Pattern = fn(u32) -> Flow;

/// Structured key sets (sequential, strided, one field varying) fill `flows` to its declared size
/// on the C-sim exactly where the interpreter does: no key is refused below 4096 entries (a
/// hash overflow would show as a differing answer), and the next is refused as full.
#[test]
fn structured_keys_fill_the_hash_to_its_size() {
    let Some(ap_types) = common::ap_types_or_skip("structured_keys") else {
        return;
    };
    let (module, files) = load();
    let scu = module.scus.keys().next().expect("an scu");
    let mut interp = Machine::new(&module);
    let mut csim = device(&module, &files, &ap_types);
    let patterns: [(&str, Pattern); 4] = [
        ("sequential sources", |i| {
            (0x0a00_0000 + i, 0x0a00_0002, 6, 1000, 80)
        }),
        ("strided destinations", |i| {
            (0x0a00_0001, 0x0a00_0000 + (i << 8), 17, 1000, 80)
        }),
        ("sequential ports", |i| {
            (
                0x0a00_0001,
                0x0a00_0002,
                6,
                (i >> 8) as u16,
                (i & 0xff) as u16,
            )
        }),
        ("mixed", |i| {
            (
                i.wrapping_mul(0x0101_0101),
                !i,
                17,
                i as u16,
                (i >> 4) as u16,
            )
        }),
    ];
    let start = Instant::now();
    for (name, flow) in patterns {
        assert!(Device::clear_entries(&mut interp, scu, "flows").unwrap());
        assert!(csim.clear_entries(scu, "flows").unwrap());
        let mut added = 0;
        for i in 0..4093u32 {
            let f = flow(i + 100);
            let keys: Vec<KeyMatch> = [f.0.into(), f.1.into(), f.2.into(), f.3.into(), f.4.into()]
                .into_iter()
                .map(exact)
                .collect();
            let args = [BigUint::from(1u8), BigUint::from(i), BigUint::from(0u8)];
            let a = Device::add_entry(&mut interp, scu, "flows", &keys, "forward", &args, 0);
            let b = csim.add_entry(scu, "flows", &keys, "forward", &args, 0);
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}: entry {i}");
            added += usize::from(a.is_ok());
        }
        // 4 constant flows + 4092 run-time ones; the 4093rd is refused as full.
        assert_eq!(added, 4092, "{name}");
        let last = flow(4190);
        let data = packet(last);
        let a = Device::packet(&mut interp, scu, &data, 0, 0).unwrap();
        let b = csim.packet(scu, &data, 0, 0).unwrap();
        assert_eq!(a, b, "{name}: a packet of the last flow added");
    }
    eprintln!(
        "exact_flows: 4 structured fills of 4092 run-time flows, {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
