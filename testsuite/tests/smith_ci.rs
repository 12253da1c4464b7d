//! A short fixed-seed scenic-smith campaign (docs/fuzzing.md): every generated program passes
//! `scenicc check`, and behaves the same on the reference interpreter before and after
//! `--passes all` and each pass alone, with no panic and IR that validates after every pass.
//! It also checks that the generator still emits the constructs the campaign is meant to
//! compare (the shapes of the bugs that motivated it: aggregates nested in structs, indices and
//! slices with loop-dependent and run-time bounds, every table match kind, maps, cc handlers,
//! stream kernels with their outputs, a second scu fed by `to_scu`, struct-valued host writes).
//! A long campaign is `cargo run --release -p scenic-testsuite --bin smith -- --seeds 0..20000`.

use scenic_testsuite::smith::{self, stats::Stats, Backend};

/// Seeds of the campaign: small enough for a debug build to finish well under a minute.
const SEEDS: std::ops::Range<u64> = 0..150;

/// Constructs the campaign must have emitted at least once.
const REQUIRED: &[&str] = &[
    "item.struct.array-of-structs",
    "place.nested-path",
    "place.index.loop-var",
    "place.index.run-time",
    "place.slice",
    "slice.loop-bounds",
    "stmt.compound.add",
    "stmt.for",
    "stmt.match.enum",
    "expr.if",
    "expr.call",
    "scu.table.key.exact",
    "scu.table.key.lpm",
    "scu.table.key.ternary",
    "scu.table.key.range",
    "scu.map.array",
    "scu.map.hash",
    "scu.map.lru_hash",
    "scu.every",
    "parser.select.tuple",
    "place.header-stack-element",
    "scu.meter",
    "scu.fn.effects",
    "expr.call.in-operand",
    "cc.timer",
    "stmt.restart",
    "scu.rdma",
    "scu.tcp",
    "stream.kernel",
    "stream.pass",
    "stream.push",
    "stream.push.indexed",
    "stream.out.dma",
    "stream.out.host",
    "stream.out.batch",
    "stream.fn.push",
    "stream.map-update",
    "stream.for-lanes",
    "slice.loop-scaled-bounds",
    "scu.second",
    "stmt.to-scu",
    "input.words",
    "input.map-write-struct",
];

#[test]
fn a_short_campaign_finds_no_difference() {
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    for seed in SEEDS {
        let report = smith::run_seed(seed, &[Backend::Interp, Backend::Passes]);
        stats.merge(&report.case.stats);
        if let Some(diags) = &report.check_error {
            failures.push(format!("seed {seed}: the program does not check:\n{diags}"));
        }
        for f in &report.findings {
            failures.push(format!("seed {seed}: {}", f.describe()));
        }
    }
    assert!(
        failures.is_empty(),
        "reproduce with `cargo run --release -p scenic-testsuite --bin smith -- --seeds A..B`:\n{}",
        failures.join("\n")
    );
    let missing: Vec<&str> = REQUIRED
        .iter()
        .copied()
        .filter(|c| stats.count(c) == 0)
        .collect();
    assert!(
        missing.is_empty(),
        "never emitted: {missing:?}\n{}",
        stats.table()
    );
}

/// The STF smith writes for a program (its reproductions' `.stf`) states what the reference
/// did: it must pass on the reference, words, DMA pushes and `to_scu` copies included. Seeds
/// with a stream kernel, a second scu or a struct-valued map write are among these.
#[test]
fn the_written_stf_passes_on_the_reference() {
    let mut checked = 0;
    for seed in 0..60 {
        let case = smith::generate(seed);
        let Ok(module) = smith::lower(&case.program.source) else {
            continue;
        };
        let t = smith::transcript(&module, &module, &case, &case.ops, "the reference")
            .unwrap_or_else(|f| panic!("seed {seed}: {}", f.describe()));
        let stf = t.stf_text().join("\n");
        let report = scenic_sim::stf::run_text(&module, &stf, None);
        // Cut before its first check (a struct-valued map write first): nothing left to test.
        let nothing_before_cut = t.stf_cut.is_some()
            && report.passed == 0
            && report.failures.len() == 1
            && report.failures[0].message.contains("tests nothing");
        if nothing_before_cut {
            continue;
        }
        assert!(
            report.ok(),
            "seed {seed}: {:?}\n{}\n{stf}",
            report.failures,
            case.program.source
        );
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} programs lowered");
}

#[test]
fn generation_is_deterministic_per_seed() {
    for seed in [3, 17] {
        let a = smith::generate(seed);
        let b = smith::generate(seed);
        assert_eq!(a.program.source, b.program.source);
        assert_eq!(format!("{:?}", a.ops), format!("{:?}", b.ops));
    }
    assert_ne!(
        smith::generate(1).program.source,
        smith::generate(2).program.source
    );
}
