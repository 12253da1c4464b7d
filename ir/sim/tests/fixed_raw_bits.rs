//! The raw bits of a fixed-point value, by the idiom of docs/language.md §4.10: for
//! `x: fixed<1,15>`, `((x as fixed<16,15>) * 32768) as bit<16>` is k where x = k · 2^−15. By §4.9
//! the cast to `fixed<16,15>` keeps the value (the integer part, 0 or 1, fits 16 bits), `* 32768`
//! scales by an integer (§4.10: exact here, as k < 2^16 fits the integer part), and `as bit<16>` takes
//! the integer part. Hand-computed: 0.75 = 24576 · 2^−15 → 0x6000; 1.999969482421875 = 65535 · 2^−15
//! → 0xffff; 2^−15 → 1.

use scenic_frontend::Session;

#[test]
fn the_raw_bits_idiom_gives_k() {
    let source = "
use std::net::ethernet;
scu s on slow_path {
    csr a: bit<16>;
    csr b: bit<16>;
    csr c: bit<16>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control {
        let x: fixed<1,15> = 0.75;
        a = ((x as fixed<16,15>) * 32768) as bit<16>;
        let y: fixed<1,15> = 1.999969482421875;
        b = ((y as fixed<16,15>) * 32768) as bit<16>;
        let z: fixed<1,15> = 0.000030517578125;
        c = ((z as fixed<16,15>) * 32768) as bit<16>;
        to_network(1);
    }
}
";
    let mut session = Session::new();
    session.add_source("t.sn", source);
    let module =
        scenic_lower::lower_session(&mut session).unwrap_or_else(|e| panic!("cannot lower: {e}"));
    let stf = "packet 0 020000000001 020000000002 0800 00\nexpect 1\n\
               check_csr a == 0x6000\ncheck_csr b == 0xffff\ncheck_csr c == 1\n";
    let report = scenic_sim::stf::run_text(&module, stf, None);
    assert!(report.ok(), "{:?}", report.failures);
    assert_eq!(report.passed, 4);
}
