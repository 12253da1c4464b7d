//! Frontend speed figures: `cargo bench -p scenic-frontend --bench check`.
//!
//! Prints, as medians over several runs:
//! - checking all `examples/*.sn` together in a fresh session (target: under 50 ms);
//! - a full check of generated programs of 2,500 to 20,000 lines (target: 10,000 lines under 1 s,
//!   cost growing linearly: the ms-per-1,000-lines column should stay flat);
//! - incremental re-checking of a generated 5,000-line program after editing one function body
//!   (target: at most 10% of the full check).
//!
//! This is a benchmark, not a test: it asserts only that the generated programs check clean, so that
//! the figures measure real work.

use scenic_frontend::{CheckOptions, Session};
use std::time::{Duration, Instant};

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    if wants("examples") {
        bench_examples();
    }
    if wants("scaling") {
        bench_scaling();
    }
    if wants("incremental") {
        bench_incremental();
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn bench_examples() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "sn"));
    paths.sort();
    let sources: Vec<(String, String)> = paths
        .iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(p).ok()?)))
        .collect();
    let lines: usize = sources.iter().map(|(_, t)| t.lines().count()).sum();
    let samples: Vec<Duration> = (0..15)
        .map(|_| {
            let start = Instant::now();
            let mut session = Session::new();
            for (name, text) in &sources {
                session.add_source(name.clone(), text.clone());
            }
            let report = session.check(CheckOptions::default());
            assert_eq!(report.error_count(), 0, "{}", report.render_plain());
            start.elapsed()
        })
        .collect();
    println!(
        "examples: {} files, {lines} lines, checked together in {:.2} ms (median of 15, fresh session each)",
        sources.len(),
        ms(median(samples))
    );
}

fn full_check(text: &str) -> Duration {
    let start = Instant::now();
    let mut session = Session::new();
    session.add_source("generated.sn", text.to_string());
    let report = session.check(CheckOptions::default());
    let elapsed = start.elapsed();
    assert_eq!(
        report.error_count(),
        0,
        "generated program has errors:\n{}",
        report.render_plain()
    );
    elapsed
}

fn bench_scaling() {
    println!("scaling (full check, fresh session, median of 5):");
    println!("  {:>7} {:>10} {:>14}", "lines", "ms", "ms/1000 lines");
    for target in [2_500, 5_000, 10_000, 20_000] {
        let text = generate(target, 0);
        let lines = text.lines().count();
        let d = median((0..5).map(|_| full_check(&text)).collect());
        println!(
            "  {lines:>7} {:>10.1} {:>14.2}",
            ms(d),
            ms(d) * 1000.0 / lines as f64
        );
    }
}

fn bench_incremental() {
    let base = generate(5_000, 0);
    let lines = base.lines().count();
    let mut fulls = Vec::new();
    let mut edits = Vec::new();
    for round in 0..7u32 {
        let mut session = Session::new();
        let file = session.add_source("generated.sn", base.clone());
        let start = Instant::now();
        let report = session.check(CheckOptions::default());
        fulls.push(start.elapsed());
        assert_eq!(report.error_count(), 0, "{}", report.render_plain());
        // Edit one function body (a different constant each round), then re-check.
        session.set_text(file, generate(5_000, round + 1));
        let start = Instant::now();
        let report = session.check(CheckOptions::default());
        edits.push(start.elapsed());
        assert_eq!(report.error_count(), 0, "{}", report.render_plain());
    }
    let (full, edit) = (median(fulls), median(edits));
    println!(
        "incremental: {lines}-line program, full check {:.1} ms, re-check after a one-function edit {:.2} ms = {:.1}% of full (median of 7)",
        ms(full),
        ms(edit),
        100.0 * edit.as_secs_f64() / full.as_secs_f64()
    );
}

/// A valid program of about `lines` lines: headers, constants, functions and scus with parsers,
/// tables and controls. `edit` changes one constant inside the body of the middle function only.
fn generate(lines: usize, edit: u32) -> String {
    let mut out = String::from("use std::net::{ethernet, ipv4, udp};\n\n");
    let units = lines / UNIT_LINES;
    for i in 0..units {
        let bump = if i == units / 2 { edit } else { 0 };
        unit(&mut out, i, bump);
    }
    out
}

const UNIT_LINES: usize = 50;

/// About 50 lines: a header, a constant, two functions and, every fourth unit, an scu.
fn unit(out: &mut String, i: usize, bump: u32) {
    out.push_str(&format!(
        "header h{i} {{ a: bit<8>, b: bit<16>, c: bit<32>, d: bit<8> }}\n\
         const K{i}: bit<32> = {k};\n\
         \n\
         fn mix{i}(x: bit<32>, y: bit<32>) -> bit<32> {{\n\
         \x20   let mut acc: bit<32> = x ^ K{i};\n\
         \x20   if acc > y {{\n\
         \x20       acc = acc - y;\n\
         \x20   }} else {{\n\
         \x20       acc = acc + y + {bump};\n\
         \x20   }}\n\
         \x20   for s in 0..4 {{\n\
         \x20       acc = acc ^ (x >> (s * 8));\n\
         \x20   }}\n\
         \x20   let low: bit<16> = acc[15:0];\n\
         \x20   return acc + (low as bit<32>);\n\
         }}\n\
         \n\
         fn pick{i}(v: bit<8>) -> bit<8> {{\n\
         \x20   match v {{\n\
         \x20       0 => {{ return 1; }}\n\
         \x20       1..=9 => {{ return v |+| 3; }}\n\
         \x20       0x10 &&& 0xf0 => {{ return v & 0x0f; }}\n\
         \x20       _ => {{ return v - 1; }}\n\
         \x20   }}\n\
         }}\n\
         \n",
        k = 1000 + i
    ));
    if i % 4 == 0 {
        scu(out, i);
    } else {
        for j in 0..24 {
            out.push_str(&format!("const C{i}_{j}: bit<16> = {} * 3 + 1;\n", j + 1));
        }
        out.push('\n');
    }
}

fn scu(out: &mut String, i: usize) {
    out.push_str(&format!(
        "scu s{i} on slow_path {{\n\
         \x20   csr hits: bit<64> readonly;\n\
         \x20   headers {{ eth: ethernet, ip: ipv4, u: udp }}\n\
         \x20   parser {{\n\
         \x20       state start {{ extract(eth); match eth.ether_type {{ 0x0800 => l3, _ => accept }} }}\n\
         \x20       state l3 {{ extract(ip); match ip.protocol {{ 17 => l4, _ => accept }} }}\n\
         \x20       state l4 {{ extract(u); accept }}\n\
         \x20   }}\n\
         \x20   table route {{\n\
         \x20       key {{ ip.dst: lpm }}\n\
         \x20       actions {{ forward(port: bit<8>), discard }}\n\
         \x20       default discard;\n\
         \x20       size 1024;\n\
         \x20       entries {{ 10.0.0.0/8 => forward(1); 192.168.{o}.0/24 => forward(2); }}\n\
         \x20   }}\n\
         \x20   control {{\n\
         \x20       if !ip.valid() {{ to_host(); return; }}\n\
         \x20       hits += 1;\n\
         \x20       let h: bit<32> = mix{i}(ip.src, ip.dst);\n\
         \x20       if h == 0 {{ drop(); }}\n\
         \x20       match route.apply() {{\n\
         \x20           forward(port) => to_network(port),\n\
         \x20           discard => drop(),\n\
         \x20           no_action => {{}}\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   deparser {{ emit(eth); emit(ip); emit(u); }}\n\
         }}\n\
         \n",
        o = i % 256
    ));
}
