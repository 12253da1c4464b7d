//! Interpreter speed: `cargo bench -p scenic-ir --bench sim`.
//!
//! Runs on one core: (1) a parse-only program (Ethernet/IPv4/TCP/UDP parser, empty control) and (2)
//! `examples/firewall.sn` with 1,000 run-time ACL entries (lpm source, ternary destination and
//! protocol, range port) over 1,000,000 packets of mixed sizes (64 to 1,500 bytes, 10,000 distinct
//! packets cycled), and prints packets per second. Target: at least 10 Mpps end to end.
//!
//! `cargo bench -p scenic-ir --bench sim -- 200000 firewall` runs 200,000 packets of the firewall
//! only (`parse` for the other); for profiling, run the binary under `perf record`.
//!
//! Besides the wall clock it prints the rate by the thread's CPU time (from
//! `/proc/thread-self/schedstat`, where available): on a shared machine the wall clock also counts
//! the time other processes ran.

use scenic_frontend::Session;
use scenic_ir::interp::Machine;
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;
use std::time::Instant;

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
    match scenic_ir::lower::lower_session(&mut session) {
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

fn add_acl(m: &mut Machine<'_>, rng: &mut Rng, n: usize) {
    let Some(scu) = m.scu_by_name("incast_firewall") else {
        panic!("no firewall scu")
    };
    let c = |v: u64| Const(v.into());
    for i in 0..n {
        let len = 8 + (rng.next() % 25) as u32;
        let src = (rng.next() as u32) & (u32::MAX << (32 - len));
        let dst_mask: u64 = if rng.next() % 3 == 0 { 0 } else { 0xffff_0000 };
        let proto = if rng.next() % 2 == 0 {
            KeyMatch::Any
        } else {
            KeyMatch::Ternary(c(6), c(0xff))
        };
        let lo = rng.next() % 9_000;
        let keys = [
            KeyMatch::Lpm(c(u64::from(src)), len),
            KeyMatch::Ternary(c(rng.next() & dst_mask), c(dst_mask)),
            proto,
            KeyMatch::Range(c(lo), c(lo + rng.next() % 1_000)),
        ];
        let (action, args): (&str, Vec<num_bigint::BigUint>) = match i % 3 {
            0 => ("allow", vec![]),
            1 => ("deny", vec![]),
            _ => ("limit", vec![(rng.next() % 16).into()]),
        };
        if let Err(e) = m.add_entry(scu, "acl", &keys, action, &args, 10 + i as u64) {
            panic!("entry {i}: {e}");
        }
    }
}

/// Nanoseconds this thread has spent on a CPU (`/proc/thread-self/schedstat`), when the kernel
/// says: on a shared machine the wall clock also counts the time other processes ran.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Runs `n` packets; packets per second in millions, by the wall clock and by CPU time.
fn run(
    m: &mut Machine<'_>,
    scu: scenic_ir::ScuId,
    pool: &[Vec<u8>],
    n: usize,
) -> (f64, Option<f64>) {
    let start = Instant::now();
    let cpu_start = cpu_ns();
    let mut out = 0usize;
    for i in 0..n {
        let p = &pool[i % pool.len()];
        let o = m.process_packet(scu, p, 0, (i as u64) * 50);
        out += o.outputs.len();
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_start
        .zip(cpu_ns())
        .map(|(a, b)| n as f64 / (b.saturating_sub(a).max(1) as f64 / 1e9) / 1e6);
    std::hint::black_box(out);
    (n as f64 / secs / 1e6, cpu)
}

fn report(what: &str, n: usize, (wall, cpu): (f64, Option<f64>)) {
    match cpu {
        Some(cpu) => {
            println!("{what}: {wall:.2} Mpps over {n} packets ({cpu:.2} Mpps of CPU time)")
        }
        None => println!("{what}: {wall:.2} Mpps over {n} packets"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args
        .iter()
        .filter_map(|a| a.parse().ok())
        .next()
        .unwrap_or(1_000_000);
    // `parse` or `firewall` runs only that one (for profiling); both run otherwise.
    let only = |what: &str| {
        let named = |w: &str| args.iter().any(|a| a == w);
        !(named("parse") || named("firewall")) || named(what)
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let pool = packets(&mut rng, 10_000);
    if only("parse") {
        let parse_only = lower("parse_only.sn", PARSE_ONLY);
        let mut m = Machine::new(&parse_only);
        let Some(scu) = m.scu_by_name("parse_only") else {
            panic!("no parse_only scu")
        };
        report("parse only", n, run(&mut m, scu, &pool, n));
    }
    if !only("firewall") {
        return;
    }
    let text = include_str!("../../examples/firewall.sn");
    let fw = lower("firewall.sn", text);
    let mut m = Machine::new(&fw);
    add_acl(&mut m, &mut rng, 1_000);
    let Some(scu) = m.scu_by_name("incast_firewall") else {
        panic!("no firewall scu")
    };
    report("firewall, 1,000 ACL entries", n, run(&mut m, scu, &pool, n));
}
