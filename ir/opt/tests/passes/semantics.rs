//! Differential tests: the interpreter gives the same results before and after every pass.
//!
//! For each program (the examples and the pass goldens) and each pass (and the `all` pipeline),
//! two machines run the original and the transformed module side by side on the same random
//! inputs: packets for scus with a parser or control, payload words for stream kernels, events
//! for congestion controllers, with virtual time advancing so `every` blocks and cc timers fire.
//! Before the run both get the same random CSR values, map contents and table entries (written
//! for the original keys; [`pack_key_matches`] rewrites them for a table whose keys were
//! packed). Every outcome must be equal, and so must the CSRs, counters, table hit counts,
//! statistics, notifications and cc state at the end.

use super::common::{self, Rng};
use super::{examples, goldens, run_passes};
use cranelift_entity::EntityRef;
use scenic_interp::{Machine, PacketOutcome};
use scenic_ir::program::Module;
use scenic_ir::{CcId, ScuId};
use scenic_opt::table_key_packing::pack_key_matches;
use scenic_opt::PassManager;
use std::path::Path;

/// Inputs per program and pass.
const STEPS: usize = 400;

/// Random run-time entries per table.
const ENTRIES: usize = 24;

/// Gives both machines the same random CSRs, map contents and table entries.
fn configure(rng: &mut Rng, original: &Module, transformed: &Module, machines: [&mut Machine; 2]) {
    let [a, b] = machines;
    for (id, scu) in original.scus.iter() {
        for csr in scu.csrs.values() {
            if !csr.host_readonly && rng.chance(2, 3) {
                let w = scenic_interp::value::width_of(&csr.ty, original);
                let v = if w <= 2 {
                    rng.bits(w)
                } else {
                    common::key_value(rng, w)
                };
                assert!(a.set_csr(id, &csr.name, &v));
                assert!(b.set_csr(id, &csr.name, &v));
            }
        }
        for (m, map) in scu.maps.iter() {
            for _ in 0..rng.below(map.size.min(16) + 1) {
                let key_w = scenic_interp::value::width_of(&map.key, original);
                let key = scenic_ir::proc::bits::Bits::from_biguint(key_w, &rng.bits(key_w));
                let value = common::value(rng, &map.value, original);
                let index = m.index();
                a.scus[id.index()].maps[index].insert(key.clone(), value.clone());
                b.scus[id.index()].maps[index].insert(key, value);
            }
        }
        for (t, table) in scu.tables.iter() {
            if table.is_const {
                continue;
            }
            for _ in 0..ENTRIES {
                let (keys, action, args) = common::table_entry(rng, original, scu, table);
                let priority = rng.below(8);
                let ra = a.add_entry(id, &table.name, &keys, &action, &args, priority);
                let packed_len = transformed.scus[id].tables[t].keys.len();
                let keys_b = if packed_len == keys.len() {
                    Some(keys)
                } else {
                    pack_key_matches(table, original, &keys)
                };
                let rb = keys_b.map(|k| b.add_entry(id, &table.name, &k, &action, &args, priority));
                assert_eq!(
                    Some(ra.is_ok()),
                    rb.map(|r| r.is_ok()),
                    "entry for {}",
                    table.name
                );
            }
        }
    }
}

/// Something to feed the machines.
#[derive(Clone, Copy, Debug)]
enum Target {
    Packets(ScuId),
    Words(ScuId),
    Events(CcId),
}

fn targets(module: &Module) -> Vec<Target> {
    let mut out = Vec::new();
    for (id, scu) in module.scus.iter() {
        if scu.parser.is_some() || scu.control.is_some() {
            out.push(Target::Packets(id));
        }
        if scu.stream.is_some() {
            out.push(Target::Words(id));
        }
    }
    out.extend(module.ccs.keys().map(Target::Events));
    out
}

/// Runs both machines on the same inputs and compares everything they produce.
fn compare(what: &str, original: &Module, transformed: &Module, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut a = Machine::new(original);
    let mut b = Machine::new(transformed);
    configure(&mut rng, original, transformed, [&mut a, &mut b]);
    let targets = targets(original);
    if targets.is_empty() {
        return;
    }
    let flows = [1u64, 2, 3, 0x00ab_cdef];
    let mut now = 1_000u64;
    for step in 0..STEPS {
        now += rng.pick(&[0, 10, 1_000, 20_000, 60_000, 400_000]);
        let at = format!("{what}, step {step}");
        match rng.pick(&targets) {
            Target::Packets(scu) => {
                let p = common::packet(&mut rng);
                let port = rng.below(4) as u8;
                let oa: PacketOutcome = a.process_packet(scu, &p, port, now);
                let ob = b.process_packet(scu, &p, port, now);
                assert_eq!(oa, ob, "{at}: packet {p:02x?}");
            }
            Target::Words(scu) => {
                let (word, last, keep) = common::word(&mut rng);
                let flow = rng.pick(&flows);
                let oa = a.process_word(scu, flow, &word, last, keep, now);
                let ob = b.process_word(scu, flow, &word, last, keep, now);
                assert_eq!(oa, ob, "{at}: word {word} last {last} keep {keep:x}");
            }
            Target::Events(cc) => {
                let event = common::cc_event(&mut rng);
                let flow = rng.pick(&flows);
                let na = a.cc_event(cc, flow, event, now);
                let nb = b.cc_event(cc, flow, event, now);
                assert_eq!(na, nb, "{at}: event {event:?} on flow {flow}");
            }
        }
    }
    compare_state(what, original, &a, &b, &flows);
}

/// Compares what the machines keep: CSRs, counters, tables, statistics, notifications, cc state.
fn compare_state(what: &str, module: &Module, a: &Machine, b: &Machine, flows: &[u64]) {
    for (id, scu) in module.scus.iter() {
        for csr in scu.csrs.values() {
            assert_eq!(
                a.csr(id, &csr.name),
                b.csr(id, &csr.name),
                "{what}: csr {}",
                csr.name
            );
        }
        for counter in scu.counters.values() {
            for i in 0..counter.size as usize {
                let (ca, cb) = (
                    a.counter(id, &counter.name, i),
                    b.counter(id, &counter.name, i),
                );
                assert_eq!(ca, cb, "{what}: counter {}[{i}]", counter.name);
            }
        }
        let (ra, rb) = (&a.scus[id.index()], &b.scus[id.index()]);
        assert_eq!(ra.stats, rb.stats, "{what}: statistics of {}", scu.name);
        for (ta, tb) in ra.tables.iter().zip(&rb.tables) {
            assert_eq!(
                (ta.hits, ta.misses),
                (tb.hits, tb.misses),
                "{what}: table hits"
            );
            assert_eq!(ta.len(), tb.len(), "{what}: table entries");
        }
        for (ma, mb) in ra.maps.iter().zip(&rb.maps) {
            assert_eq!(ma.len(), mb.len(), "{what}: map sizes");
            assert_eq!(
                ma.failed_inserts, mb.failed_inserts,
                "{what}: failed inserts"
            );
        }
    }
    assert_eq!(a.notifications, b.notifications, "{what}: notifications");
    for (id, cc) in module.ccs.iter() {
        for &flow in flows {
            assert_eq!(
                a.cc_output(id, flow),
                b.cc_output(id, flow),
                "{what}: output"
            );
            for s in cc.state.values() {
                let (sa, sb) = (a.cc_state(id, flow, &s.name), b.cc_state(id, flow, &s.name));
                assert_eq!(sa, sb, "{what}: cc state {} of flow {flow}", s.name);
            }
        }
    }
}

/// Every pass and `all` on one program.
fn check_program(path: &Path) {
    let original = common::lower(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let pm = PassManager::with_default_passes();
    let mut pipelines: Vec<&str> = pm.passes().iter().map(|p| p.name).collect();
    pipelines.push("all");
    for (k, pass) in pipelines.iter().enumerate() {
        let what = format!("{} with `{pass}`", path.display());
        let mut transformed = original.clone();
        run_passes(&mut transformed, &[pass], &what);
        compare(&what, &original, &transformed, 0x5eed_0000 + k as u64);
    }
}

#[test]
fn passes_keep_the_examples_behaviour() {
    let paths = examples();
    assert!(paths.len() >= 7);
    for path in paths {
        check_program(&path);
    }
}

#[test]
fn passes_keep_the_goldens_behaviour() {
    for path in goldens() {
        check_program(&path);
    }
}
