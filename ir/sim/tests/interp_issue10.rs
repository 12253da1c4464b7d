//! Regression tests for issue 10: interpreter results that differed from docs/language.md.
//!
//! - an assignment to an element of an array reached through a struct field (of a local, a `meta`
//!   field, a map value copied into a local, or a cc state variable; arrays of structs and arrays
//!   nested in arrays) writes the element the place names (§5.2, §3.9);
//! - `set_valid()` on a valid header, or a valid element of a stack, changes nothing (§3.6);
//! - `every` blocks caught up in one step of time run in order of due time, then source order
//!   (§11.8), in STF;
//! - the host cannot replace a constant table's default action (§7.9.3–4), nor add a repeated key
//!   (or key and priority) to an lpm or priority table (§7.9.8), nor give a key or action argument
//!   wider than it (STF `add`/`setdefault`; entries files go through the same checks);
//! - an lpm table with an exact key ranks matching entries by the prefix length alone (§7.9.6);
//! - entries files (`scenicc sim --entries`) refuse the same, with an error naming the table;
//! - STF refuses what it cannot do as told: a port above 255, a queue pair or session that does not
//!   fit the attach binding, words to a scu without a stream, a file that tests nothing.
//!
//! Every expected value is computed by hand from the reference, never copied from the interpreter.

use scenic_frontend::Session;
use scenic_interp::cc::CcEvent;
use scenic_interp::Machine;
use scenic_ir::Module;
use scenic_sim::stf::run_text;

fn lower(text: &str) -> Module {
    let mut session = Session::new();
    session.add_source("test.sn", text);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => {
            let report = session.check(scenic_frontend::CheckOptions::default());
            panic!("cannot lower: {e}\n{}", report.render_plain())
        }
    }
}

/// Runs one 64-byte packet through scu `s` and returns the CSRs `names`.
fn csrs_after_packet(module: &Module, names: &[&str]) -> Vec<u64> {
    let mut m = Machine::new(module);
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    m.process_packet(scu, &[0u8; 64], 0, 1_000);
    names
        .iter()
        .map(|n| match m.csr(scu, n) {
            Some(v) => v.to_u64(),
            None => panic!("no csr {n}"),
        })
        .collect()
}

const LOCAL_ARRAYS: &str = "
struct inner { a: [bit<8>; 4], flag: bool }
struct outer { x: bit<8>, arr: [bit<8>; 4] }
struct deep { ins: [inner; 2], k: [[bit<8>; 2]; 2] }
struct cell { x: bit<8>, y: bit<8> }
struct grid { cells: [cell; 2] }
scu s on slow_path {
    csr o0: bit<8>; csr o1: bit<8>; csr o2: bit<8>; csr o3: bit<8>; csr ox: bit<8>;
    csr p0: bit<8>; csr p3: bit<8>;
    csr d12: bit<8>; csr d10: bit<8>; csr d02: bit<8>; csr f1: bit<1>; csr f0: bit<1>;
    csr k11: bit<8>; csr k00: bit<8>; csr k10: bit<8>;
    csr q1x: bit<8>; csr q0x: bit<8>; csr q1y: bit<8>;
    control {
        let mut o = outer { x: 0x55, arr: [1, 2, 3, 4] };
        o.arr[2] = 0xc;
        o0 = o.arr[0]; o1 = o.arr[1]; o2 = o.arr[2]; o3 = o.arr[3]; ox = o.x;

        let mut p = outer { x: 0, arr: [10, 20, 30, 40] };
        let j: bit<2> = 3;
        p.arr[j] += 1;
        p0 = p.arr[0]; p3 = p.arr[3];

        let mut d = deep {
            ins: [inner { a: [0, 0, 0, 0], flag: true }, inner { a: [0, 0, 0, 0], flag: true }],
            k: [[0, 0], [0, 0]],
        };
        d.ins[1].a[2] = 7;
        d.ins[1].flag = false;
        d.k[1][1] = 3;
        d12 = d.ins[1].a[2]; d10 = d.ins[1].a[0]; d02 = d.ins[0].a[2];
        f1 = d.ins[1].flag as bit<1>; f0 = d.ins[0].flag as bit<1>;
        k11 = d.k[1][1]; k00 = d.k[0][0]; k10 = d.k[1][0];

        let mut q = grid { cells: [cell { x: 1, y: 2 }, cell { x: 3, y: 4 }] };
        q.cells[1].x = 5;
        q1x = q.cells[1].x; q0x = q.cells[0].x; q1y = q.cells[1].y;
    }
}";

/// §5.2: a place is "a field or element of" a `let mut` variable, and `x op= e` is `x = x op e`;
/// §3.9: `a[i]` is element i. So only the element named changes:
/// `o.arr[2] = 0xc` gives `[1, 2, 12, 4]` and keeps `x = 0x55`; `p.arr[3] += 1` gives 40 + 1 = 41
/// at index 3 and leaves index 0 at 10; `d.ins[1].a[2] = 7` sets that one byte (7) and no other;
/// `d.ins[1].flag = false` clears element 1's flag only; `d.k[1][1] = 3`; `q.cells[1].x = 5`
/// leaves `q.cells[0].x = 1` and `q.cells[1].y = 4`.
#[test]
fn array_elements_through_struct_fields_of_locals() {
    let names = [
        "o0", "o1", "o2", "o3", "ox", "p0", "p3", "d12", "d10", "d02", "f1", "f0", "k11", "k00",
        "k10", "q1x", "q0x", "q1y",
    ];
    let got = csrs_after_packet(&lower(LOCAL_ARRAYS), &names);
    let want = [1, 2, 12, 4, 0x55, 10, 41, 7, 0, 0, 0, 1, 3, 0, 0, 5, 1, 4];
    assert_eq!(got, want, "{names:?}");
}

const META_AND_MAP: &str = "
struct st { n: bit<8>, a: [bit<8>; 4] }
struct rec { count: bit<8>, bins: [bit<8>; 4] }
scu s on slow_path {
    csr m3: bit<8>; csr m0: bit<8>; csr mn: bit<8>;
    csr b2: bit<8>; csr b0: bit<8>; csr c: bit<8>;
    meta { s: st }
    map flows: hash<bit<8>, rec>[4];
    control {
        meta.s.n = 9;
        meta.s.a[3] = 6;
        m3 = meta.s.a[3]; m0 = meta.s.a[0]; mn = meta.s.n;

        let _ = flows.insert(1, rec { count: 1, bins: [5, 5, 5, 5] });
        let mut v = flows.get(1);
        let i: bit<2> = 2;
        v.bins[i] += 1;
        let _ = flows.insert(1, v);
        let w = flows.get(1);
        b2 = w.bins[2]; b0 = w.bins[0]; c = w.count;
    }
}";

/// §5.2 (a `meta` field, or a field or element of a `let mut` variable) and §7.11 (a map value
/// is copied out with `get`, modified, and inserted back): `meta.s.a[3] = 6` leaves `a[0]` at its
/// zero value (§3.12) and `n = 9`; `v.bins[2] += 1` makes 5 + 1 = 6 at index 2 only.
#[test]
fn array_elements_through_meta_and_map_values() {
    let names = ["m3", "m0", "mn", "b2", "b0", "c"];
    let got = csrs_after_packet(&lower(META_AND_MAP), &names);
    assert_eq!(got, [6, 0, 9, 6, 5, 1], "{names:?}");
}

const CC_STATE: &str = "
struct st { n: bit<8>, a: [bit<8>; 4] }
cc c per flow[4] {
    state s: st;
    state r0: bit<8> = 0;
    state r1: bit<8> = 0;
    state r2: bit<8> = 0;
    state r3: bit<8> = 0;
    state rn: bit<8> = 0;
    state w: size = 0B;
    output window w;
    on ecn {
        s = st { n: 1, a: [1, 2, 3, 250] };
    }
    on cnp {
        s.a[1] = 5;
        s.a[2] += 5;
        s.a[3] |+|= 9;
        r0 = s.a[0]; r1 = s.a[1]; r2 = s.a[2]; r3 = s.a[3]; rn = s.n;
    }
}
scu s on slow_path { control { } }";

/// §5.2 (a `state` variable of a `cc`, or a field of one) and §4.3 (`|+|` saturates):
/// `s.a[1] = 5`; `s.a[2] += 5` is 3 + 5 = 8; `s.a[3] |+|= 9` is 250 + 9 = 259, saturated to 255;
/// `s.a[0]` and `s.n` keep 1 (set by the `ecn` handler that runs first, §8.6).
#[test]
fn array_elements_through_cc_state() {
    let module = lower(CC_STATE);
    let mut m = Machine::new(&module);
    let Some(cc) = m.cc_by_name("c") else {
        panic!("no cc `c`")
    };
    m.cc_event(cc, 1, CcEvent::Ecn, 1_000);
    m.cc_event(cc, 1, CcEvent::Cnp, 2_000);
    let got: Vec<u64> = ["r0", "r1", "r2", "r3", "rn"]
        .iter()
        .map(|n| m.cc_state(cc, 1, n).map_or(u64::MAX, |b| b.to_u64()))
        .collect();
    assert_eq!(got, [1, 5, 8, 255, 1]);
}

const SET_VALID: &str = "
header tag { v: bit<8> }
scu s on slow_path {
    csr one: bit<8>; csr two: bit<8>; csr vt: bit<1>; csr again: bit<8>; csr z: bit<8>;
    headers { h: tag, ts: [tag; 2] }
    parser { state start { extract(h); extract(ts); extract(ts); accept } }
    control {
        h.set_valid();
        ts[1].set_valid();
        one = h.v;
        two = ts[1].v;
        vt = ts[1].valid() as bit<1>;
        ts[0].set_valid();
        ts[0].set_valid();
        again = ts[0].v;
        h.set_invalid();
        h.set_valid();
        z = h.v;
    }
}";

/// §3.6: `h.set_valid()` sets the validity bit, \"an invalid header becomes valid with all fields
/// zero; a valid one is unchanged\". The packet starts 0x11 0x22 0x33, so `h.v` = 0x11, `ts[0].v` =
/// 0x22 and `ts[1].v` = 0x33, all valid: set_valid() (once or twice) keeps them; after
/// `set_invalid()`, `set_valid()` gives a zero field.
#[test]
fn set_valid_on_a_valid_header_changes_nothing() {
    let module = lower(SET_VALID);
    let mut m = Machine::new(&module);
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    let mut packet = vec![0u8; 64];
    packet[..3].copy_from_slice(&[0x11, 0x22, 0x33]);
    m.process_packet(scu, &packet, 0, 1_000);
    let got: Vec<u64> = ["one", "two", "vt", "again", "z"]
        .iter()
        .map(|n| m.csr(scu, n).map_or(u64::MAX, |b| b.to_u64()))
        .collect();
    assert_eq!(got, [0x11, 0x33, 1, 0x22, 0]);
}

const EVERY_ORDER: &str = "
scu s on slow_path {
    csr order: bit<32>;
    control { }
    every 2ms { order = order * 10 + 2; }
    every 1ms { order = order * 10 + 1; }
}";

/// §11.8 / docs/interpreter.md: before time t, every `every` block due at or before t runs, in order
/// of due time, then source order; an `every T` block runs at T, 2T, ... from time 0. Moving from 0
/// to 2 ms: `every 1ms` is due at 1 ms (appends 1), then at 2 ms `every 2ms` (first in the source,
/// appends 2) and `every 1ms` (appends 1): 121. Then at 3 ms only `every 1ms`: 1211.
#[test]
fn every_blocks_caught_up_run_by_due_time_then_source_order() {
    let module = lower(EVERY_ORDER);
    let text = "time 2ms\ncheck_csr order == 121\ntime 3ms\ncheck_csr order == 1211\n";
    let report = run_text(&module, text, None);
    assert!(report.ok(), "{:?}", report.failures);
    assert_eq!(report.passed, 2);
}

const TABLES: &str = "
header hd { a: bit<8>, b: bit<32> }
scu s on slow_path {
    csr hit: bit<8>;
    headers { h: hd }
    parser { state start { extract(h); accept } }
    table ct {
        key { h.a: exact }
        actions { one, two }
        default one;
        entries { 1 => two; }
    }
    table lp {
        key { h.a: exact, h.b: lpm }
        actions { set(v: bit<8>) }
        size 16;
    }
    table lc {
        key { h.b: lpm }
        actions { set(v: bit<8>) }
        size 16;
        entries { 10.0.0.0/8 => set(1); }
    }
    table pr {
        key { h.b: ternary }
        actions { set(v: bit<8>) }
        size 16;
    }
    control {
        let _ = ct.apply();
        let _ = lc.apply();
        let _ = pr.apply();
        match lp.apply() {
            set(v) => { hit = v; }
            _ => {}
        }
        drop();
    }
}";

/// The failures of `text` as (line, message).
fn stf_failures(module: &Module, text: &str) -> Vec<(u32, String)> {
    let report = run_text(module, text, None);
    report
        .failures
        .iter()
        .map(|f| (f.pos.line, f.message.clone()))
        .collect()
}

/// §7.9.3: \"The host may replace the default action at run time, except in a constant table\";
/// §7.9.4: a table with `entries` and no `size` is constant. So `setdefault ct two()` fails at its
/// line, and `setdefault lp set(v:1)` (lp has a size) is accepted.
#[test]
fn setdefault_on_a_constant_table_is_refused() {
    let module = lower(TABLES);
    let failures = stf_failures(
        &module,
        "setdefault ct two()\nsetdefault lp set(v:1)\ncheck_csr hit == 0\n",
    );
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].0, 1);
    assert!(failures[0].1.contains("constant"), "{failures:?}");
}

/// §7.9.8: \"An entry whose key repeats an existing one (or, in a priority table, repeats a key and
/// priority) is refused\". Lines 2, 4 and 6 repeat line 1's /16, line 3's ternary key at priority 5,
/// and the constant 10.0.0.0/8 of `lc`; line 5 (same ternary key, priority 6) and line 7 (another
/// prefix) are new.
#[test]
fn repeated_entries_of_lpm_and_priority_tables_are_refused() {
    let module = lower(TABLES);
    let text = "add lp h.a:1 h.b:10.1.0.0/16 set(v:1)\n\
                add lp h.a:1 h.b:10.1.0.0/16 set(v:2)\n\
                add pr 5 h.b:0x0a000000&&&0xff000000 set(v:1)\n\
                add pr 5 h.b:0x0a000000&&&0xff000000 set(v:2)\n\
                add pr 6 h.b:0x0a000000&&&0xff000000 set(v:2)\n\
                add lc h.b:10.0.0.0/8 set(v:2)\n\
                add lc h.b:10.2.0.0/16 set(v:2)\n\
                check_csr hit == 0\n";
    let failures = stf_failures(&module, text);
    let lines: Vec<u32> = failures.iter().map(|f| f.0).collect();
    assert_eq!(lines, [2, 4, 6], "{failures:?}");
}

/// §7.9.1 (an exact key matches a value, an lpm key a prefix) and §7.9.6 (\"a table with an `lpm`
/// key picks the matching entry with the longest prefix, whatever the order of the entries\"): for
/// h.a = 1, h.b = 10.1.2.3 both entries match, and the /16 wins over the /8 although the /8 was
/// added first (the /8's exact key does not lengthen its prefix). The packet is h.a = 1 then
/// h.b = 10.1.2.3 (0x0a010203), so `hit` is 2.
#[test]
fn an_lpm_table_with_an_exact_key_ranks_by_prefix_length() {
    let module = lower(TABLES);
    let text = "add lp h.a:1 h.b:10.0.0.0/8 set(v:1)\n\
                add lp h.a:1 h.b:10.1.0.0/16 set(v:2)\n\
                packet 0 01 0a010203 00000000000000000000\n\
                check_csr hit == 2\n";
    let report = run_text(&module, text, None);
    assert!(report.ok(), "{:?}", report.failures);
    assert_eq!(report.passed, 1);
    // §7.9.1: an exact key's pattern is a value, so `_` or no value for `h.a` is refused (the choice
    // documented in §7.9.8).
    let text = "add lp h.b:10.0.0.0/8 set(v:1)\nadd lp h.a:_ h.b:10.0.0.0/8 set(v:1)\nno_packet\n";
    let lines: Vec<u32> = stf_failures(&module, text).iter().map(|f| f.0).collect();
    assert_eq!(lines, [1, 2]);
}

/// §3.1 (a `bit<N>` value has N bits) and docs/testing.md (`set_csr` refuses a value that does
/// not fit): h.a is `bit<8>`, so 0x1ff (9 bits) is refused at its line, and so is `v:0x100` for the
/// `bit<8>` parameter `v`. 0xff fits both.
#[test]
fn keys_and_action_data_too_wide_are_refused() {
    let module = lower(TABLES);
    let text = "add lp h.a:0x1ff h.b:10.0.0.0/8 set(v:1)\n\
                add lp h.a:1 h.b:10.0.0.0/8 set(v:0x100)\n\
                add lp h.a:0xff h.b:10.0.0.0/8 set(v:0xff)\n\
                check_csr hit == 0\n";
    let failures = stf_failures(&module, text);
    let lines: Vec<u32> = failures.iter().map(|f| f.0).collect();
    assert_eq!(lines, [1, 2], "{failures:?}");
    assert!(failures[0].1.contains("0x1ff"), "{failures:?}");
    assert!(failures[1].1.contains("0x100"), "{failures:?}");
}

const STREAMS: &str = "
scu r on rdma(qp) {
    csr words: bit<32>;
    stream(word: bit<512>) { words = words + 1; }
}";

/// docs/testing.md: `packet <port>` injects on a port, and ports are 8-bit; language.md §4.16:
/// `qp` is `bit<24>` in an `rdma(qp)` scu and `flow` is `bit<16>` in a `tcp(flow)` one. So
/// `words 16777216` names no queue pair (2^24 does not fit 24 bits) and fails at its line instead of
/// running as qp 0; `words 16777215` runs (one word: `words` becomes 1).
#[test]
fn stf_out_of_range_ports_and_flows_fail_at_their_line() {
    let module = lower(TABLES);
    let failures = stf_failures(&module, "packet 999 00\npacket 300 00\nno_packet\n");
    let lines: Vec<u32> = failures.iter().map(|f| f.0).collect();
    assert_eq!(lines, [1, 2], "{failures:?}");
    let module = lower(STREAMS);
    let text = "words 16777216 00\nwords 16777215 00\ncheck_csr words == 1\n";
    let failures = stf_failures(&module, text);
    let lines: Vec<u32> = failures.iter().map(|f| f.0).collect();
    assert_eq!(lines, [1], "{failures:?}");
}

/// docs/testing.md: `words` delivers a message to a stream; a slow_path scu has none, so it fails.
/// A file that sends nothing and checks nothing (an empty one too) fails instead of passing; one
/// that only sends packets states, as in p4c, that nothing comes out: TABLES drops every packet,
/// so it passes there, and fails on a program that forwards.
#[test]
fn stf_words_without_a_stream_and_files_testing_nothing_fail() {
    let module = lower(TABLES);
    let failures = stf_failures(&module, "words 1 00\ncheck_csr hit == 0\n");
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].0, 1);
    assert_eq!(stf_failures(&module, "").len(), 1);
    assert_eq!(stf_failures(&module, "setdefault lp set(v:1)\n").len(), 1);
    let report = run_text(&module, "packet 1 0000000000\n", None);
    assert_eq!((report.passed, report.failures.len()), (1, 0));
    let forwards = lower(
        "header hd { a: bit<8> }
        scu f on slow_path {
            headers { h: hd }
            parser { state start { extract(h); accept } }
            control { to_network(2); }
        }",
    );
    let failures = stf_failures(&forwards, "packet 1 07\n");
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].1.contains("unexpected packet on port 2"),
        "{failures:?}"
    );
}

/// The error of installing entries file `json` on scu `s` of `module`.
fn entries_error(module: &Module, json: &str) -> String {
    let entries = match scenic_io::entries::parse(json) {
        Ok(e) => e,
        Err(e) => panic!("bad entries file: {e}"),
    };
    let mut m = Machine::new(module);
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    match scenic_sim::capture::install(&mut m, scu, &entries) {
        Ok(()) => String::new(),
        Err(e) => e.to_string(),
    }
}

/// docs/testing.md (entries files follow the runtime's rules): as in STF, a new default for the
/// constant table `ct` (§7.9.3-4), a repeated /16 in `lp` (§7.9.8) and a key value 0x1ff for the
/// 8-bit key `h.a` are errors naming the table.
#[test]
fn entries_files_refuse_what_the_runtime_refuses() {
    let module = lower(TABLES);
    let constant = r#"{"format_version": 1, "tables": {"ct": {"default": {"action": "two"}}}}"#;
    let e = entries_error(&module, constant);
    assert!(e.contains("`ct`") && e.contains("constant"), "{e}");
    let entry = r#"{"key": {"h.a": 1, "h.b": "10.1.0.0/16"}, "action": "set", "args": {"v": 1}}"#;
    let repeated = format!(r#"{{"format_version": 1, "tables": {{"lp": [{entry}, {entry}]}}}}"#);
    let e = entries_error(&module, &repeated);
    assert!(e.contains("`lp`") && e.contains("same keys"), "{e}");
    let wide = r#"{"format_version": 1, "tables": {"lp": [
        {"key": {"h.a": "0x1ff", "h.b": "10.1.0.0/16"}, "action": "set", "args": {"v": 1}}]}}"#;
    let e = entries_error(&module, wide);
    assert!(e.contains("`lp`") && e.contains("0x1ff"), "{e}");
}
