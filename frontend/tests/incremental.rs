//! Incrementality: editing one function body re-checks that function and nothing else that does
//! not depend on it (counted through salsa's execution events, not timed).

use scenic_frontend::db::Database;
use scenic_frontend::{CheckOptions, Session};

const PROGRAM: &str = "
use std::net::{ethernet};
const A: bit<8> = 1;
fn f(x: bit<8>) -> bit<8> { return x + A; }
fn g(x: bit<8>) -> bit<8> { return x ^ 0x5a; }
fn h(x: bit<8>) -> bit<8> { return g(x) | 1; }
scu s on slow_path {
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { if f(eth.dst[7:0]) == h(1) { drop(); } }
}
";

fn executions(log: &scenic_frontend::db::ExecutionLog, query: &str) -> usize {
    match log.lock() {
        Ok(entries) => entries.iter().filter(|e| e.starts_with(query)).count(),
        Err(poisoned) => panic!("execution log poisoned: {poisoned}"),
    }
}

#[test]
fn editing_one_body_rechecks_only_that_body() {
    let (db, log) = Database::with_execution_log();
    let mut session = Session::with_database(db);
    let file = session.add_source("inc.sn", PROGRAM);
    assert_eq!(session.check(CheckOptions::default()).error_count(), 0);
    let first_bodies = executions(&log, "check_body");
    assert!(
        first_bodies >= 8,
        "expected every chunk to be checked once, saw {first_bodies}"
    );
    log.lock().expect("log lock").clear();

    // Change the body of `g` only: same length, so even the offsets of later items stay put...
    session.set_text(file, PROGRAM.replace("x ^ 0x5a", "x ^ 0x5b"));
    assert_eq!(session.check(CheckOptions::default()).error_count(), 0);
    assert_eq!(
        executions(&log, "check_body"),
        1,
        "only g's body is re-checked: {:?}",
        log.lock().expect("log lock")
    );
    assert_eq!(
        executions(&log, "parse_chunk_text"),
        1,
        "only g's text is re-parsed"
    );
    assert_eq!(
        executions(&log, "signature"),
        1,
        "only g's signature is recomputed (and found unchanged)"
    );
    log.lock().expect("log lock").clear();

    // ...and when the edit moves everything after it, nothing else is re-checked either.
    session.set_text(file, PROGRAM.replace("x ^ 0x5a", "(x ^ 0x5a) & 0xff"));
    assert_eq!(session.check(CheckOptions::default()).error_count(), 0);
    assert_eq!(
        executions(&log, "check_body"),
        1,
        "{:?}",
        log.lock().expect("log lock")
    );
}

#[test]
fn changing_a_signature_rechecks_its_users() {
    let (db, log) = Database::with_execution_log();
    let mut session = Session::with_database(db);
    let file = session.add_source("inc.sn", PROGRAM);
    assert_eq!(session.check(CheckOptions::default()).error_count(), 0);
    log.lock().expect("log lock").clear();
    session.set_text(
        file,
        PROGRAM.replace("const A: bit<8> = 1;", "const A: bit<16> = 1;"),
    );
    let report = session.check(CheckOptions::default());
    assert!(
        report.diagnostics.iter().any(|d| d.code.id == "E0202"),
        "{}",
        report.render_plain()
    );
    assert!(
        executions(&log, "check_body") >= 2,
        "f uses A and must be re-checked"
    );
}
