//! Honest limits of cc kernels (`limits::check_cc`): per-flow state over the on-chip RAM budget,
//! and a handler over its cycle budget, are `Error::Limit`s naming the cc or handler, the
//! computed figure and the limit, at the cc's or handler's span; the examples are within both.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use scenic_backend_hls::{Error, Options};

fn lower(name: &str, text: &str) -> (scenic_ir::Module, scenic_ir::ModuleInfo) {
    let dir = std::env::temp_dir().join(format!("scenicc-cc-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("program loads");
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("program validates");
    (module, info)
}

const BIG: &str = "cc big per flow[8000000] {
    state rc: rate = 100Gbps;
    state seen: bit<64> = 0;
    output rate rc;
    on cnp {
        rc = rc / 2;
        seen = seen + 1;
    }
}
";

#[test]
fn per_flow_state_over_ram_is_a_limit() {
    let (module, info) = lower("big.sn", BIG);
    let err = scenic_backend_hls::write_kernel(&module, &info, &Options::default())
        .expect_err("8M flows x 129 bits do not fit");
    let Error::Limit {
        scu,
        what,
        figure,
        limit,
        span,
    } = &err
    else {
        panic!("not a limit: {err}");
    };
    assert_eq!(scu, "big");
    assert!(what.contains("8,000,000 flows × 129 bits"), "{what}");
    assert_eq!(figure, "1,032,000,000 bits of on-chip RAM");
    assert!(limit.contains("Options::ram_budget_bits"), "{limit}");
    assert!(span.is_known());
}

#[test]
fn a_smaller_ram_budget_refuses_an_example() {
    let (module, info, _) = common::load("dcqcn.sn");
    let options = Options {
        ram_budget_bits: 100_000,
        ..Options::default()
    };
    let err = scenic_backend_hls::write_kernel(&module, &info, &options).expect_err("limit");
    // 1024 flows × (160 bits of state + 3 × 64 of timers + 1 started bit).
    assert!(
        err.to_string().contains("361,472 bits of on-chip RAM"),
        "{err}"
    );
}

// Within its budget of 200 cycles for `scenicc check` (E0604 would refuse a handler over it);
// the test lowers the budget afterwards, as IR from elsewhere (the P4 reader, a package's
// model/module.json) or a slower clock could present it to the backend.
const SLOW: &str = "cc slow per flow[16] budget 200 cycles {
    param d: bit<64> = 3;
    state w: size = 1000B;
    output window w;
    on ack(a) {
        let x: bit<64> = w as bit<64>;
        w = (((x * (a.bytes as bit<64>)) / d + x / (d + 1)) as size);
    }
    on cnp {
        w = w / 2;
    }
}
";

#[test]
fn a_handler_over_its_budget_is_a_limit() {
    let (mut module, info) = lower("slow.sn", SLOW);
    for cc in module.ccs.values_mut() {
        cc.budget = Some(4);
    }
    let err = scenic_backend_hls::write_kernel(&module, &info, &Options::default())
        .expect_err("a 64-bit divider needs more than 4 cycles");
    let Error::Limit {
        what,
        figure,
        limit,
        span,
        ..
    } = &err
    else {
        panic!("not a limit: {err}");
    };
    assert_eq!(what, "handler `on ack` of cc `slow`");
    assert!(figure.contains("cycles per event (latency"), "{figure}");
    assert_eq!(limit, "its budget of 4 cycles");
    assert!(span.is_known());
}

#[test]
fn the_examples_are_within_the_limits() {
    for name in ["dcqcn.sn", "window_cc.sn"] {
        let (module, info, options) = common::load(name);
        let files = scenic_backend_hls::write_kernel(&module, &info, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(files.ccs.len(), 1, "{name}");
        assert!(files.ccs[0].ii <= 65, "{name}: II {}", files.ccs[0].ii);
    }
}

const FAST: &str = "cc fast per flow[4096] {
    state rc: rate = 100Gbps;
    output rate rc;
    on timer tick every 5us {
        rc = rc + 1bps;
    }
}
";

#[test]
fn a_timer_faster_than_the_flow_scan_is_a_limit() {
    let (module, info) = lower("fast.sn", FAST);
    let err = scenic_backend_hls::write_kernel(&module, &info, &Options::default())
        .expect_err("4096 slots take 10.5 us to scan");
    let Error::Limit {
        what,
        figure,
        limit,
        ..
    } = &err
    else {
        panic!("not a limit: {err}");
    };
    assert_eq!(what, "timer `tick` of cc `fast`");
    assert_eq!(figure, "a period of 5000 ns");
    assert!(
        limit.starts_with("10476 ns, one scan over the 4,096 flow slots"),
        "{limit}"
    );
}
