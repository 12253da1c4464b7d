//! Longest-prefix tables, with expectations taken from docs/language.md:
//!
//! - §7.9.6: a table with an `lpm` key and no ternary/range key picks the matching entry with the
//!   longest prefix, whatever the order the entries were added in; its `exact` keys must equal
//!   the packet's but do not rank entries ("for `a = 1`, `1, 10.1.0.0/16` beats `1, 10.0.0.0/8`");
//! - §7.9.1: a value on an `lpm` key is a full-length prefix. An entry given as a value (through
//!   the by-name API, [`KeyMatch::Exact`]) therefore beats a shorter prefix, and repeats the entry
//!   `v/32` (§7.9.8: refused). The interpreter once ranked such a value as prefix length 0.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use num_bigint::BigUint;
use scenic_interp::runtime::AddEntryError;
use scenic_interp::state::EntryError;
use scenic_interp::{Destination, Machine};
use scenic_ir::entities::ScuId;
use scenic_ir::program::KeyMatch;
use scenic_ir::types::Const;
use scenic_ir::Module;

/// `routes` (lpm with an exact key) for destination MACs ending in 0, `nets` (lpm alone) else.
const PROGRAM: &str = "
use std::net::{ethernet, ipv4};

scu r on slow_path {
    headers { eth: ethernet, ip: ipv4 }
    parser {
        state start {
            extract(eth);
            match eth.ether_type { 0x0800 => l3, _ => accept }
        }
        state l3 { extract(ip); accept }
    }
    table routes {
        key { ip.dst: lpm, ip.protocol: exact }
        actions { fwd(port: bit<8>) }
        default fwd(9);
        size 8;
    }
    table nets {
        key { ip.dst: lpm }
        actions { net(port: bit<8>) }
        default net(9);
        size 8;
    }
    control {
        if eth.dst[7:0] == 0 {
            match routes.apply() {
                fwd(p) => to_network(p),
                no_action => {}
            }
        } else {
            match nets.apply() {
                net(p) => to_network(p),
                no_action => {}
            }
        }
    }
}
";

fn module() -> Module {
    let mut session = scenic_frontend::Session::new();
    session.add_source("lpm_ranking.sn", PROGRAM);
    scenic_lower::lower_session(&mut session).unwrap_or_else(|e| panic!("lowers: {e}"))
}

fn ip(a: u8, b: u8, c: u8, d: u8) -> u64 {
    u64::from(u32::from_be_bytes([a, b, c, d]))
}

fn lpm(v: u64, len: u32) -> KeyMatch {
    KeyMatch::Lpm(Const::from_u64(v), len)
}

fn value(v: u64) -> KeyMatch {
    KeyMatch::Exact(Const::from_u64(v))
}

fn add(
    m: &mut Machine<'_>,
    table: &str,
    action: &str,
    keys: &[KeyMatch],
    port: u64,
) -> Result<u64, AddEntryError> {
    m.add_entry(
        ScuId::from_u32(0),
        table,
        keys,
        action,
        &[BigUint::from(port)],
        0,
    )
}

/// The port a packet to `dst` (protocol `proto`) leaves on; `sel` picks the table (0: `routes`).
fn port(m: &mut Machine<'_>, sel: u8, dst: u64, proto: u8) -> u8 {
    let mut p = vec![2, 0, 0, 0, 0, sel, 2, 0, 0, 0, 0, 1, 0x08, 0x00];
    p.extend([0x45, 0, 0, 46, 0, 0, 0, 0, 64, proto, 0, 0, 10, 9, 9, 9]);
    p.extend((dst as u32).to_be_bytes());
    p.resize(60, 0);
    let out = m.process_packet(ScuId::from_u32(0), &p, 0, 0);
    match out.outputs.as_slice() {
        [(Destination::Network(port), _)] => *port,
        other => panic!("one output to the network expected, got {other:?}"),
    }
}

/// §7.9.6's example, both ways round: `1, 10.1.0.0/16` beats `1, 10.0.0.0/8` (here the lpm key
/// comes first), although the exact key is equal in both and the /8 may come first.
#[test]
fn the_longest_prefix_wins_whatever_the_order() {
    let module = module();
    for first_short in [true, false] {
        let mut m = Machine::new(&module);
        let short = [lpm(ip(10, 0, 0, 0), 8), value(1)];
        let long = [lpm(ip(10, 1, 0, 0), 16), value(1)];
        let entries = if first_short {
            [(short, 1), (long, 2)]
        } else {
            [(long, 2), (short, 1)]
        };
        for (keys, p) in &entries {
            add(&mut m, "routes", "fwd", keys, *p).expect("added");
        }
        let order = format!("/8 first: {first_short}");
        assert_eq!(
            port(&mut m, 0, ip(10, 1, 2, 3), 1),
            2,
            "/16 beats /8, {order}"
        );
        assert_eq!(port(&mut m, 0, ip(10, 2, 2, 3), 1), 1, "only /8, {order}");
        assert_eq!(
            port(&mut m, 0, ip(10, 1, 2, 3), 6),
            9,
            "the exact key must equal, {order}"
        );
    }
}

/// §7.9.1: a value on an `lpm` key is a full-length prefix, so `10.1.2.3` beats `10.1.0.0/16`
/// for 10.1.2.3 whatever the order, and leaves the rest of the /16 to it.
#[test]
fn a_value_on_an_lpm_key_is_a_full_length_prefix() {
    let module = module();
    for value_first in [true, false] {
        let mut m = Machine::new(&module);
        let host = [value(ip(10, 1, 2, 3))];
        let net16 = [lpm(ip(10, 1, 0, 0), 16)];
        let entries = if value_first {
            [(host, 3), (net16, 2)]
        } else {
            [(net16, 2), (host, 3)]
        };
        for (keys, p) in &entries {
            add(&mut m, "nets", "net", keys, *p).expect("added");
        }
        let order = format!("value first: {value_first}");
        assert_eq!(
            port(&mut m, 1, ip(10, 1, 2, 3), 6),
            3,
            "/32 beats /16, {order}"
        );
        assert_eq!(port(&mut m, 1, ip(10, 1, 2, 4), 6), 2, "only /16, {order}");
        assert_eq!(port(&mut m, 1, ip(10, 2, 2, 3), 6), 9, "a miss, {order}");
    }
}

/// §7.9.8: an entry whose key repeats an existing one is refused; the value `10.1.2.3` and the
/// prefix `10.1.2.3/32` are the same key (§7.9.1), in the plain and the mixed table alike.
#[test]
fn a_value_and_its_full_length_prefix_are_the_same_key() {
    let module = module();
    let mut m = Machine::new(&module);
    add(&mut m, "nets", "net", &[value(ip(10, 1, 2, 3))], 3).expect("added");
    assert_eq!(
        add(&mut m, "nets", "net", &[lpm(ip(10, 1, 2, 3), 32)], 4),
        Err(AddEntryError::Entry(EntryError::Duplicate))
    );
    add(
        &mut m,
        "routes",
        "fwd",
        &[lpm(ip(10, 1, 2, 3), 32), value(6)],
        3,
    )
    .expect("added");
    assert_eq!(
        add(
            &mut m,
            "routes",
            "fwd",
            &[value(ip(10, 1, 2, 3)), value(6)],
            4
        ),
        Err(AddEntryError::Entry(EntryError::Duplicate))
    );
    assert_eq!(port(&mut m, 1, ip(10, 1, 2, 3), 6), 3);
    assert_eq!(port(&mut m, 0, ip(10, 1, 2, 3), 6), 3);
}

/// §7.9.8: `0.0.0.0/0` matches anything, like `_`: the same key, so once one of them is in a
/// longest-prefix table the other is refused (scenic-smith seed 17, where the HLS kernel refused
/// the host's `0x0/0` beside a constant `_` and the interpreter took it).
#[test]
fn a_zero_length_prefix_repeats_any() {
    let module = module();
    let mut m = Machine::new(&module);
    add(&mut m, "nets", "net", &[KeyMatch::Any], 3).expect("added");
    assert_eq!(
        add(&mut m, "nets", "net", &[lpm(ip(10, 0, 0, 0), 0)], 4),
        Err(AddEntryError::Entry(EntryError::Duplicate))
    );
    let mut m = Machine::new(&module);
    add(&mut m, "nets", "net", &[lpm(0, 0)], 3).expect("added");
    assert_eq!(
        add(&mut m, "nets", "net", &[KeyMatch::Any], 4),
        Err(AddEntryError::Entry(EntryError::Duplicate))
    );
    // A longer prefix is another key.
    add(&mut m, "nets", "net", &[lpm(ip(10, 0, 0, 0), 8)], 5).expect("added");
}
