//! The STF runner's own rules (docs/testing.md), on small programs: the clock starts at 0.

use scenic_frontend::Session;
use scenic_sim::stf::run_text;

fn lower(text: &str) -> scenic_ir::Module {
    let mut session = Session::new();
    session.add_source("t.sn", text);
    match scenic_lower::lower_session(&mut session) {
        Ok(module) => module,
        Err(err) => panic!("cannot lower the test program: {err}"),
    }
}

const COUNTING: &str = "
use std::net::{ethernet};
scu counting on slow_path {
    csr seen: bit<32>;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { seen = seen + 1; drop(); }
    every 1ms { seen = 0; }
}
";

const PACKET: &str = "packet 0 020000000001 020000000002 0800 00000000\n";

#[test]
fn every_periods_count_from_time_zero_not_from_the_first_time_named() {
    let module = lower(COUNTING);
    // Started at 0, `every 1ms` runs at 1 ms and 2 ms: the packet at 1.5 ms is the only one counted
    // by 1.9 ms, and the reset at 2 ms clears it. Had the clock started at 1.5 ms, the first reset
    // would come at 2.5 ms and `seen` would still be 1 at 2.1 ms.
    let text = format!(
        "time 1500us\n{PACKET}check_csr seen == 1\ntime 1900us\ncheck_csr seen == 1\n\
         time 2100us\ncheck_csr seen == 0\n"
    );
    let report = run_text(&module, &text, None);
    assert!(report.ok(), "{:?}", report.failures);
    assert_eq!(report.passed, 3);
}

const REGISTERS: &str = "
use std::net::{ethernet};
scu registers on slow_path {
    csr total: bit<64> readonly;
    csr mode: bit<2> = 1;
    headers { eth: ethernet }
    parser { state start { extract(eth); accept } }
    control { total = total + 1; drop(); }
}
";

#[test]
fn host_writes_to_readonly_or_too_narrow_registers_fail_and_change_nothing() {
    let module = lower(REGISTERS);
    let text = "set_csr total 5\nset_csr mode 4\nset_csr mode 3\ncheck_csr mode == 3\n\
                check_csr total == 0\nset_csr nothing 1\n";
    let report = run_text(&module, text, None);
    let messages: Vec<(u32, &str)> = report
        .failures
        .iter()
        .map(|f| (f.pos.line, f.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (1, "CSR `total` is readonly: the host may only read it"),
            (2, "4 does not fit `mode`, which has 2 bits"),
            (6, "no CSR or param named `nothing`"),
        ]
    );
    assert_eq!(report.passed, 2);
}

#[test]
fn every_syntax_error_of_a_file_is_reported_and_nothing_runs() {
    let module = lower(COUNTING);
    let text = format!("{PACKET}bogus 1\ncheck_csr seen == 1\nexpect x\ntime soon\n");
    let report = run_text(&module, &text, None);
    let lines: Vec<u32> = report.failures.iter().map(|f| f.pos.line).collect();
    assert_eq!(lines, [2, 4, 5], "{:?}", report.failures);
    assert_eq!(report.passed, 0, "a file with syntax errors does not run");
}

#[test]
fn a_time_step_with_too_much_periodic_work_fails_at_its_line() {
    let module = lower(COUNTING);
    // `every 1ms` over 100,000 s would be 10^8 runs: the step fails, time stays where it was.
    let text = format!("time 100000s\ntime 2ms\n{PACKET}check_csr seen == 1\n");
    let report = run_text(&module, &text, None);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert_eq!(report.failures[0].pos.line, 1);
    assert!(
        report.failures[0]
            .message
            .contains("would run 100000000 times"),
        "{}",
        report.failures[0].message
    );
    assert_eq!(report.passed, 1);
}

/// docs/testing.md: `check_window` on a cc whose output is a rate (and `check_rate` on a window)
/// fails at its line and names the right command, whatever the values (it compared raw values:
/// a rate in bit/s against a size in bytes).
#[test]
fn check_window_on_a_rate_controller_and_check_rate_on_a_window_one_fail() {
    let rate = lower(
        "cc r per flow[4] {\n    state rc: rate = 1Gbps;\n    output rate rc;\n    on cnp { rc = rc / 2; }\n}\n",
    );
    let report = run_text(&rate, "event r 1 cnp\ncheck_window r 1 >= 0\n", None);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert_eq!(report.failures[0].pos.line, 2);
    assert!(
        report.failures[0]
            .message
            .contains("outputs a rate, not a window: use `check_rate`"),
        "{}",
        report.failures[0].message
    );
    let report = run_text(&rate, "event r 1 cnp\ncheck_rate r 1 == 500Mbps\n", None);
    assert!(report.ok(), "{:?}", report.failures);
    let window = lower(
        "cc w per flow[4] {\n    state cwnd: size = 10KB;\n    output window cwnd;\n    on cnp { cwnd = cwnd / 2; }\n}\n",
    );
    let report = run_text(&window, "event w 1 cnp\ncheck_rate w 1 >= 0\n", None);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert!(report.failures[0].message.contains("use `check_window`"));
}

/// A syntax error's failure holds its position apart from its message, which is printed after the
/// position once (`t.stf:3:1: unknown command ...`, not `t.stf:3:1: line 3, column 1: ...`).
#[test]
fn a_syntax_error_message_does_not_repeat_its_position() {
    let module = lower(COUNTING);
    let report = run_text(&module, "check_csr seen == 0\n\nbogus 1\n", None);
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    let failure = &report.failures[0];
    assert_eq!((failure.pos.line, failure.pos.column), (3, 1));
    assert!(
        failure.message.starts_with("unknown command `bogus`"),
        "{}",
        failure.message
    );
}

/// `packet` to an rdma scu feeds its stream kernel the packet's payload, as `scenicc sim` does
/// (docs/testing.md, "How rdma and tcp scus are fed"): a RoCEv2 SEND ONLY (opcode 0x04, pad 0) to
/// QP 0x11 carries the payload 01020304 between its 12-byte BTH and its 4-byte ICRC; the kernel
/// passes each word inverted (§7.17), so the packet leaves on the pass port (257) with fefdfcfb in
/// place of its payload and everything else unchanged. A RoCE packet with no payload (opcode 0x11,
/// a BTH and the ICRC only) produces no word and no output.
#[test]
fn a_packet_to_an_rdma_scu_feeds_its_payload_to_the_stream_kernel() {
    let module = lower("scu inv on rdma(qp) {\n    stream(word: bit<512>) { pass(~word); }\n}\n");
    let head = "020000000001 020000000002 0800 \
                4500003000004000401100000a0000010a000002 c00012b7001c0000 \
                040000ff00000011 00000000";
    let empty = "020000000001 020000000002 0800 \
                 4500002c00004000401100000a0000010a000002 c00012b700180000 \
                 110000ff00000011 00000000";
    let text = format!(
        "packet 0 {head} 01020304 deadbeef\nexpect 257 {head} fefdfcfb deadbeef $\n\
         packet 0 {empty} deadbeef\nno_packet\n"
    );
    let report = run_text(&module, &text, None);
    assert!(report.ok(), "{:?}", report.failures);
    // The expectation; `no_packet` is a statement, not a check (docs/testing.md).
    assert_eq!(report.passed, 1);
}
