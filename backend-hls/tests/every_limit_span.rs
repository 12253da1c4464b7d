//! An `every` block whose period is shorter than one invocation of the process stage is an
//! `Error::Limit` (`limits::check_every_periods`) pointing at the block's head, `every T`, as the
//! P4 backends' P0005 does (issue 10: both pointed at the first statement of the body).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use scenic_backend_hls::{Error, Options};

const TEXT: &str = "scu tick on slow_path {
    csr n: bit<32>;
    control { }
    every 1ns {
        n = n + 1;
    }
}
";

#[test]
fn an_every_period_limit_points_at_the_every_head() {
    let dir = std::env::temp_dir().join(format!("scenicc-every-span-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tick.sn");
    std::fs::write(&path, TEXT).unwrap();
    let mut session = scenic_frontend::Session::new();
    session.add_path(&path).expect("program loads");
    let module = scenic_lower::lower_session(&mut session).expect("program lowers");
    let info = scenic_ir::Validator::new()
        .validate(&module)
        .expect("program validates");
    let err = scenic_backend_hls::write_kernel(&module, &info, &Options::default())
        .expect_err("1 ns is shorter than one invocation");
    let Error::Limit { what, span, .. } = &err else {
        panic!("not a limit: {err}");
    };
    assert_eq!(what, "an `every` block");
    assert_eq!(&TEXT[span.lo as usize..span.hi as usize], "every 1ns");
}
