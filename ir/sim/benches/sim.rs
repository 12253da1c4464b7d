//! Interpreter speed: `cargo bench -p scenic-ir --bench sim`.
//!
//! Measures one core on three figures, each run three times (best, and the spread of the runs):
//! 1. `parse`: a parse-only program (Ethernet/IPv4/TCP/UDP parser, empty control);
//! 2. `firewall`: `examples/firewall.sn` with 1,000 run-time ACL entries (lpm source, ternary
//!    destination and protocol, range port), packets given to `Machine::process_packet`;
//!
//! both also with `Machine::process_packet_into` and one outcome reused for every packet (no
//! allocation per packet: the output buffers are the previous packet's);
//! 3. `pcap`: the same firewall end to end as `scenicc sim --out` runs it: the entries parsed from
//!    their JSON (`io::entries::parse`), a pcap file (in `/dev/shm` if there is one: memory, not a
//!    disk) checked in one pass
//!    read piece by piece (`io::stream`, also taking the largest step of time), the machine set up
//!    (`sim::capture::Simulation`) and every packet simulated in a second pass, with a sink that
//!    writes each output packet as it comes to a pcap file through a `BufWriter`, as the CLI does;
//! 4. `floor`: what any engine must do for `pcap` whatever it computes: the same file checked in
//!    the same pass and every packet copied, unchanged, to the output file. It bounds the `pcap`
//!    figure from above on the machine that runs the bench (copying memory, not interpretation).
//!
//! Packets are of mixed sizes (64 to 1,500 bytes, 10,000 distinct packets cycled: 7.8 MB, more
//! than the L2 cache, so every packet's headers come from memory as a NIC's would). Default:
//! 1,000,000 packets (for `pcap` and `floor`, a file of 798 MB).
//! Target: at least 10 Mpps end to end.
//!
//! Arguments, in any order: a packet count; `parse`, `firewall`, `pcap` and/or `floor` to run only
//! those;
//! `fresh` or `reused` to run only that entry point; `runs=N` (default 3); `pool=N` distinct
//! packets (default 10,000; a small pool stays in cache, which separates the interpreter's own
//! cost from memory). For profiling, run the binary under `perf record` with `runs=1`; for
//! instruction counts, under `valgrind --tool=cachegrind` with two packet counts (the difference
//! leaves out the setup).
//!
//! Besides the wall clock each run prints the rate by the thread's CPU time (from
//! `/proc/thread-self/schedstat`, where available): on a shared machine the wall clock also counts
//! the time other processes ran. The best of the runs is the least disturbed one.

// The one exception to the workspace's `unsafe_code = "deny"`: a global allocator must implement
// the unsafe `GlobalAlloc`; this one only counts and forwards to the system's.
#![allow(unsafe_code)]

use scenic_frontend::Session;
use scenic_interp::Machine;
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The system allocator, counting allocations: each figure reports allocations per packet, since
/// an allocation per packet costs about as much as a header's worth of interpretation.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Counts an allocation: a plain load and store, not a locked read-modify-write, which would cost
/// more than the allocator's fast path. The bench runs on one thread, so no count is lost.
#[inline]
fn count() {
    ALLOCATIONS.store(ALLOCATIONS.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, i.e. from the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        count();
        // SAFETY: as for `dealloc`.
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const PARSE_ONLY: &str = "
use std::net::{ethernet, ipv4, tcp, udp};
scu parse_only on slow_path {
    headers { eth: ethernet, ip: ipv4, tcp: tcp, udp: udp }
    parser {
        state start { extract(eth); match eth.ether_type { 0x0800 => l3, _ => accept } }
        state l3 { extract(ip); match ip.protocol { 6 => l4t, 17 => l4u, _ => accept } }
        state l4t { extract(tcp); accept }
        state l4u { extract(udp); accept }
    }
    control { }
}
";

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn lower(name: &str, text: &str) -> scenic_ir::Module {
    let mut session = Session::new();
    session.add_source(name, text);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

fn packets(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let size = 64 + (rng.next() % 1437) as usize;
            let proto = if rng.next() % 2 == 0 { 6u8 } else { 17 };
            let mut p = vec![0u8; size];
            p[12] = 0x08;
            p[14] = 0x45;
            p[16..18].copy_from_slice(&((size - 14) as u16).to_be_bytes());
            p[22] = 64;
            p[23] = proto;
            let src = if rng.next() % 2 == 0 {
                0x0a00_0000 | (rng.next() as u32 & 0x00ff_ffff)
            } else {
                rng.next() as u32
            };
            p[26..30].copy_from_slice(&src.to_be_bytes());
            p[30..34].copy_from_slice(&(rng.next() as u32).to_be_bytes());
            p[34..36].copy_from_slice(&(rng.next() as u16).to_be_bytes());
            p[36..38].copy_from_slice(&((rng.next() % 10_000) as u16).to_be_bytes());
            p[46] = 0x50;
            p
        })
        .collect()
}

/// One ACL entry: source prefix and length, destination value and mask, protocol (`None`: any),
/// port range, action and its argument.
struct Acl {
    src: (u32, u32),
    dst: (u64, u64),
    proto: Option<u64>,
    ports: (u64, u64),
    action: (&'static str, Option<u64>),
}

fn acl(rng: &mut Rng, n: usize) -> Vec<Acl> {
    (0..n)
        .map(|i| {
            let len = 8 + (rng.next() % 25) as u32;
            let src = (rng.next() as u32) & (u32::MAX << (32 - len));
            let dst_mask: u64 = if rng.next() % 3 == 0 { 0 } else { 0xffff_0000 };
            // The draws are in the order of the first version of this bench, so that its figures
            // compare.
            let proto = (rng.next() % 2 != 0).then_some(6);
            let lo = rng.next() % 9_000;
            let dst = (rng.next() & dst_mask, dst_mask);
            let ports = (lo, lo + rng.next() % 1_000);
            let action = match i % 3 {
                0 => ("allow", None),
                1 => ("deny", None),
                _ => ("limit", Some(rng.next() % 16)),
            };
            Acl {
                src: (src, len),
                dst,
                proto,
                ports,
                action,
            }
        })
        .collect()
}

fn add_acl(m: &mut Machine<'_>, entries: &[Acl]) {
    let Some(scu) = m.scu_by_name("incast_firewall") else {
        panic!("no firewall scu")
    };
    let c = |v: u64| Const(v.into());
    for (i, e) in entries.iter().enumerate() {
        let keys = [
            KeyMatch::Lpm(c(u64::from(e.src.0)), e.src.1),
            KeyMatch::Ternary(c(e.dst.0), c(e.dst.1)),
            e.proto
                .map_or(KeyMatch::Any, |p| KeyMatch::Ternary(c(p), c(0xff))),
            KeyMatch::Range(c(e.ports.0), c(e.ports.1)),
        ];
        let args: Vec<num_bigint::BigUint> = e.action.1.into_iter().map(Into::into).collect();
        if let Err(e) = m.add_entry(scu, "acl", &keys, e.action.0, &args, 10 + i as u64) {
            panic!("entry {i}: {e}");
        }
    }
}

/// The same entries as an entries file (`scenicc sim --entries`).
fn acl_json(entries: &[Acl]) -> String {
    let rows: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let src = std::net::Ipv4Addr::from(e.src.0);
            let proto = e.proto.map_or("null".to_string(), |p| {
                format!(r#"{{"value": {p}, "mask": 255}}"#)
            });
            let args = e
                .action
                .1
                .map_or(String::new(), |a| format!(r#", "args": {{"class": {a}}}"#));
            format!(
                r#"{{"priority": {}, "key": {{"ip.src": "{src}/{}", "ip.dst": {{"value": {}, "mask": {}}}, "ip.protocol": {proto}, "meta.l4_dst": {{"range": [{}, {}]}}}}, "action": "{}"{args}}}"#,
                10 + i,
                e.src.1,
                e.dst.0,
                e.dst.1,
                e.ports.0,
                e.ports.1,
                e.action.0
            )
        })
        .collect();
    format!(
        r#"{{"format_version": 1, "tables": {{"acl": [{}]}}}}"#,
        rows.join(",\n")
    )
}

/// Nanoseconds this thread has spent on a CPU (`/proc/thread-self/schedstat`), when the kernel
/// says: on a shared machine the wall clock also counts the time other processes ran.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Times `work` over `n` packets: millions of packets per second by the wall clock and by CPU
/// time. Prints the allocations per packet.
fn timed(n: usize, work: impl FnOnce()) -> (f64, Option<f64>) {
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    let cpu_start = cpu_ns();
    work();
    let secs = start.elapsed().as_secs_f64();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - allocations;
    println!(
        "  ({:.2} allocations per packet)",
        allocations as f64 / n as f64
    );
    let cpu = cpu_start
        .zip(cpu_ns())
        .map(|(a, b)| n as f64 / (b.saturating_sub(a).max(1) as f64 / 1e9) / 1e6);
    (n as f64 / secs / 1e6, cpu)
}

/// Runs `n` packets through `process_packet`, or through `process_packet_into` with one outcome
/// reused for every packet (`reuse`).
fn run(
    m: &mut Machine<'_>,
    scu: scenic_ir::ScuId,
    pool: &[Vec<u8>],
    n: usize,
    reuse: bool,
) -> usize {
    let mut out = 0usize;
    let mut o = scenic_interp::PacketOutcome::default();
    for i in 0..n {
        let p = &pool[i % pool.len()];
        if reuse {
            m.process_packet_into(scu, p, 0, (i as u64) * 50, &mut o);
            out += o.outputs.len();
        } else {
            // Each outcome is dropped before the next is made, as a caller that handles one
            // packet at a time does (the allocator then hands the same memory back).
            out += m.process_packet(scu, p, 0, (i as u64) * 50).outputs.len();
        }
    }
    std::hint::black_box(out)
}

/// Runs the figure `what` of `module`'s scu `scu` `o.runs` times (a fresh machine each time,
/// prepared by `setup`) and reports it.
fn figure(
    what: &str,
    module: &scenic_ir::Module,
    scu: &str,
    setup: impl Fn(&mut Machine<'_>),
    (o, pool, n, reuse): (&Options, &[Vec<u8>], usize, bool),
) {
    if o.variant.is_some_and(|v| v != reuse) {
        return;
    }
    let runs: Vec<_> = (0..o.runs)
        .map(|_| {
            let mut m = Machine::new(module);
            setup(&mut m);
            let Some(scu) = m.scu_by_name(scu) else {
                panic!("no scu {scu}")
            };
            timed(n, || {
                run(&mut m, scu, pool, n, reuse);
            })
        })
        .collect();
    report(what, n, &runs);
}

/// Prints each run and the best with the spread of the runs (by the wall clock, and by CPU time).
fn report(what: &str, n: usize, runs: &[(f64, Option<f64>)]) {
    for (k, (wall, cpu)) in runs.iter().enumerate() {
        let cpu = cpu.map_or(String::new(), |c| format!(" ({c:.2} Mpps of CPU time)"));
        println!("  {what} run {}: {wall:.2} Mpps{cpu}", k + 1);
    }
    let span = |xs: Vec<f64>| {
        let best = xs.iter().copied().fold(0.0, f64::max);
        let worst = xs.iter().copied().fold(f64::INFINITY, f64::min);
        (best, worst)
    };
    let (best, worst) = span(runs.iter().map(|r| r.0).collect());
    let cpus: Vec<f64> = runs.iter().filter_map(|r| r.1).collect();
    let cpu = if cpus.is_empty() {
        String::new()
    } else {
        let (b, w) = span(cpus);
        format!("; by CPU time {b:.2} Mpps ({w:.2}-{b:.2})")
    };
    println!(
        "{what}: {best:.2} Mpps best of {} over {n} packets (runs {worst:.2}-{best:.2}){cpu}",
        runs.len()
    );
}

/// The options given on the command line.
struct Options {
    n: Option<usize>,
    runs: usize,
    pool: usize,
    only: Vec<String>,
    /// `fresh` or `reused`: only that entry point (`process_packet`, `process_packet_into`).
    variant: Option<bool>,
}

fn options() -> Options {
    let mut o = Options {
        n: None,
        runs: 3,
        pool: 10_000,
        only: Vec::new(),
        variant: None,
    };
    for a in std::env::args().skip(1) {
        if let Some(v) = a.strip_prefix("runs=").and_then(|v| v.parse().ok()) {
            o.runs = v;
        } else if let Some(v) = a.strip_prefix("pool=").and_then(|v| v.parse().ok()) {
            o.pool = v;
        } else if let Ok(v) = a.parse() {
            o.n = Some(v);
        } else if a == "fresh" || a == "reused" {
            o.variant = Some(a == "reused");
        } else if ["parse", "firewall", "pcap", "floor"].contains(&a.as_str()) {
            o.only.push(a);
        }
    }
    o
}

impl Options {
    fn wants(&self, what: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|w| w == what)
    }
}

/// An in-memory pcap of `n` packets from `pool`, 50 ns apart.
fn capture(pool: &[Vec<u8>], n: usize) -> Vec<u8> {
    use scenic_io::pcap::{Resolution, Writer, LINKTYPE_ETHERNET};
    let out = Vec::with_capacity(n * 800);
    let Ok(mut w) = Writer::with_options(out, Resolution::Nanos, LINKTYPE_ETHERNET) else {
        panic!("pcap header")
    };
    for i in 0..n {
        if let Err(e) = w.write_packet(1_000_000_000 + i as u64 * 50, &pool[i % pool.len()]) {
            panic!("{e}");
        }
    }
    w.into_inner()
}

/// `scenicc sim --out` as the command runs it: parse the entries, check the capture file (records
/// and the largest step of time) in one pass read piece by piece, set up, simulate in a second
/// pass, writing each output packet as it comes to the pcap file `out`.
fn sim_pcap(module: &scenic_ir::Module, input: &Path, out: &Path, entries: &str) -> usize {
    use scenic_sim::capture::{Event, SimOptions, Simulation};
    let entries = match scenic_io::entries::parse(entries) {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    let steps = check(input);
    let options = SimOptions::default();
    let mut sim = match Simulation::new(module, Some(&entries), &[], &options) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    if let Err(e) = sim.check_time(steps, std::iter::empty()) {
        panic!("{e}");
    }
    let mut w = writer(out);
    let mut sink = |event: Event<'_>| match event {
        Event::Packet { ts_ns, data, .. } => w.write_packet(ts_ns, data),
        Event::Trace { .. } | Event::Transfer { .. } => Ok(()),
    };
    let mut pass = stream(input);
    while let Some(r) = pass.next() {
        let r = r.unwrap_or_else(|e| panic!("{e}"));
        if let Err(e) = sim.packet(r.ts_ns, r.data, &mut sink) {
            panic!("{e}");
        }
    }
    std::hint::black_box(sim.finish().packets_in as usize)
}

/// A pass over the capture file at `path`, read piece by piece.
fn stream(path: &Path) -> scenic_io::stream::CaptureStream<std::fs::File> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{e}"));
    scenic_io::stream::CaptureStream::new(file).unwrap_or_else(|e| panic!("{e}"))
}

/// The checking pass of `scenicc sim`: every record read, the largest step of time taken.
fn check(path: &Path) -> u64 {
    let mut steps = scenic_sim::capture::LargestStep::default();
    let mut pass = stream(path);
    while let Some(r) = pass.next() {
        steps.push(r.unwrap_or_else(|e| panic!("{e}")).ts_ns);
    }
    steps.get()
}

/// A pcap file at `path` written as `scenicc sim --out` writes it.
fn writer(path: &Path) -> scenic_io::pcap::Writer<std::io::BufWriter<std::fs::File>> {
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}"));
    scenic_io::pcap::Writer::new(std::io::BufWriter::with_capacity(1 << 16, file))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The `floor` figure: `sim_pcap` without the simulation. The capture is checked in the same pass
/// and every packet is written to `out` as it is, so what is left is reading the capture file
/// twice and writing it once.
fn copy_pcap(input: &Path, out: &Path) -> usize {
    std::hint::black_box(check(input));
    let mut w = writer(out);
    let mut pass = stream(input);
    let mut n = 0;
    while let Some(r) = pass.next() {
        let r = r.unwrap_or_else(|e| panic!("{e}"));
        w.write_packet(r.ts_ns, r.data)
            .unwrap_or_else(|e| panic!("{e}"));
        n += 1;
    }
    w.flush().unwrap_or_else(|e| panic!("{e}"));
    std::hint::black_box(n)
}

/// The capture of the `pcap` and `floor` figures, written to a temporary file (removed on drop),
/// and the path their output goes to: in `/dev/shm` where there is one, so that the figures
/// measure reading and writing the page cache, not the speed of a disk taking the writes.
struct Files {
    input: PathBuf,
    out: PathBuf,
}

impl Files {
    fn new(pool: &[Vec<u8>], n: usize) -> Files {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let id = std::process::id();
        let files = Files {
            input: dir.join(format!("scenic-bench-{id}-in.pcap")),
            out: dir.join(format!("scenic-bench-{id}-out.pcap")),
        };
        std::fs::write(&files.input, capture(pool, n)).unwrap_or_else(|e| panic!("{e}"));
        files
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.input);
        let _ = std::fs::remove_file(&self.out);
    }
}

fn main() {
    let o = options();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let pool = packets(&mut rng, o.pool);
    let n = o.n.unwrap_or(1_000_000);
    println!(
        "one core, {} distinct packets of 64-1500 bytes, {} runs each",
        pool.len(),
        o.runs
    );
    if o.wants("parse") {
        let parse_only = lower("parse_only.sn", PARSE_ONLY);
        for (what, reuse) in [("parse only", false), ("parse only, outcome reused", true)] {
            figure(
                what,
                &parse_only,
                "parse_only",
                |_| {},
                (&o, &pool, n, reuse),
            );
        }
    }
    let fw = lower("firewall.sn", include_str!("../../../examples/firewall.sn"));
    let entries = acl(&mut rng, 1_000);
    if o.wants("firewall") {
        for (what, reuse) in [
            ("firewall, 1,000 ACL entries", false),
            ("firewall, 1,000 ACL entries, outcome reused", true),
        ] {
            let setup = |m: &mut Machine<'_>| add_acl(m, &entries);
            figure(what, &fw, "incast_firewall", setup, (&o, &pool, n, reuse));
        }
    }
    if o.wants("pcap") || o.wants("floor") {
        let n = o.n.unwrap_or(1_000_000);
        let files = Files::new(&pool, n);
        let json = acl_json(&entries);
        let figures: [(&str, &str, &dyn Fn() -> usize); 2] = [
            (
                "pcap",
                "scenicc sim of a pcap file, firewall, 1,000 ACL entries",
                &|| sim_pcap(&fw, &files.input, &files.out, &json),
            ),
            (
                "floor",
                "floor: the same pcap file checked and copied out",
                &|| copy_pcap(&files.input, &files.out),
            ),
        ];
        for (name, what, work) in figures {
            if !o.wants(name) {
                continue;
            }
            let runs: Vec<_> = (0..o.runs)
                .map(|_| {
                    timed(n, || {
                        work();
                    })
                })
                .collect();
            report(what, n, &runs);
        }
    }
}
