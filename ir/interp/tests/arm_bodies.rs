//! `return` and `drop()` as the body of a `match` arm (docs/language.md §5.4: "an arm body is a
//! block, an `if`, a `match`, a `return` (…: `0 => return,`), or a single expression (`_ =>
//! drop(),`) or assignment"; §5.6: `return;` leaves `control` early; §7.15: `drop()` drops the
//! packet). Expected results from those sections: a packet whose source MAC ends in 0 leaves the
//! control before `hits += 1` and goes to the slow path's default destination, the host; one
//! ending in 1 is dropped; any other is counted and sent to port 1. A function's arm returns its
//! value: `classify(7)` is 70 (`7 => return 70,`), `classify(9)` falls through to `return 1;`.

use scenic_frontend::Session;
use scenic_interp::{Destination, Machine};

const PROGRAM: &str = "
use std::net::ethernet;

fn classify(x: bit<8>) -> bit<8> {
    match x {
        7 => return 70,
        _ => {}
    }
    return 1;
}

scu s on slow_path {
    csr hits: bit<8>;
    csr class: bit<8>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        match eth.src[7:0] {
            0 => return,
            1 => drop(),
            _ => {}
        }
        hits += 1;
        class = classify(eth.src[7:0]);
        to_network(1);
    }
}
";

fn frame(last: u8) -> Vec<u8> {
    let mut p = vec![0u8; 60];
    p[11] = last;
    p[12] = 0x08;
    p
}

#[test]
fn return_and_drop_end_a_match_arm() {
    let mut session = Session::new();
    session.add_source("test.sn", PROGRAM);
    let module =
        scenic_lower::lower_session(&mut session).unwrap_or_else(|e| panic!("cannot lower: {e}"));
    let mut m = Machine::new(&module);
    let Some(scu) = m.scu_by_name("s") else {
        panic!("no scu `s`")
    };
    let csr = |m: &Machine<'_>, name: &str| match m.csr(scu, name) {
        Some(v) => v.to_u64(),
        None => panic!("no csr {name}"),
    };
    let returned = m.process_packet(scu, &frame(0), 0, 1_000);
    assert_eq!(csr(&m, "hits"), 0);
    assert!(
        matches!(returned.outputs.as_slice(), [(Destination::Host, _)]),
        "{:?}",
        returned.outputs
    );
    let dropped = m.process_packet(scu, &frame(1), 0, 2_000);
    assert_eq!(csr(&m, "hits"), 0);
    assert!(dropped.outputs.is_empty(), "{:?}", dropped.outputs);
    let counted = m.process_packet(scu, &frame(7), 0, 3_000);
    assert_eq!((csr(&m, "hits"), csr(&m, "class")), (1, 70));
    assert!(
        matches!(counted.outputs.as_slice(), [(Destination::Network(1), _)]),
        "{:?}",
        counted.outputs
    );
    m.process_packet(scu, &frame(9), 0, 4_000);
    assert_eq!((csr(&m, "hits"), csr(&m, "class")), (2, 1));
}
