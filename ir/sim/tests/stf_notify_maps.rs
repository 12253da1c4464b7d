//! STF access to notifications and maps (issue 10): `expect_notify`, `map_write` and `check_map`
//! (docs/testing.md, "Notifications and maps") on the interpreter.
//!
//! The program is `backend-hls/csim/tests/programs/stf_notify_maps.sn` (shared with the HLS
//! C-simulation test): it counts packets per source MAC in a `hash` map, notifies the host of
//! `ether_type ++ src[15:0]` and the Arm cores of the count, and copies a host-written byte of an
//! `array` map into the packet. Its STF file's expectations are worked out by hand from
//! docs/language.md §4.6 (concatenation: the first operand is the high bits), §7.11 (maps: `get`
//! of an absent key is zero, an `array` holds every key below its size, a full `hash` map refuses
//! a new key) and §7.15 (`notify` carries a 32-bit value). The error cases check the messages: an
//! unknown map names the maps there are, a key wider than the map's key type, an `expect_notify`
//! that does not come, an unexpected notification to a target the file checks, and a file without
//! `expect_notify` that ignores notifications (every STF file written before the command).

use scenic_frontend::Session;
use scenic_ir::Module;
use scenic_sim::stf::{self, StfReport};

const PROGRAM: &str = include_str!("../../../backend-hls/csim/tests/programs/stf_notify_maps.sn");
const PROGRAM_STF: &str =
    include_str!("../../../backend-hls/csim/tests/programs/stf_notify_maps.stf");

fn module() -> Module {
    let mut session = Session::new();
    session.add_source("stf_notify_maps.sn", PROGRAM);
    match scenic_lower::lower_session(&mut session) {
        Ok(m) => m,
        Err(e) => panic!("cannot lower: {e}"),
    }
}

fn run(text: &str) -> StfReport {
    stf::run_text(&module(), text, None)
}

fn failures(r: &StfReport) -> Vec<String> {
    r.failures
        .iter()
        .map(|f| format!("line {}: {}", f.pos.line, f.message))
        .collect()
}

#[test]
fn the_hand_computed_file_passes() {
    let report = run(PROGRAM_STF);
    assert_eq!(failures(&report), Vec::<String>::new());
    // Every expect, expect_notify, check_map and check_csr line is one check that holds.
    let checks = PROGRAM_STF
        .lines()
        .filter(|l| {
            let w = l.split_whitespace().next().unwrap_or("");
            matches!(w, "expect" | "expect_notify" | "check_map" | "check_csr")
        })
        .count();
    assert_eq!(report.passed, checks);
}

/// A packet from 02:00:00:00:00:0b with ether type 0x88b5 (host value 0x88b5000b).
const PACKET: &str = "packet 0 020000000001 02000000000b 88b5 deadbeef\nexpect 0\n";

#[test]
fn a_host_write_is_read_by_the_program() {
    // n = 99 + 1 = 100 (§7.11: the program's get sees the host's insert).
    let text = format!("map_write per_src 0x02000000000b 99\n{PACKET}expect_notify arm 100\n");
    let report = run(&text);
    assert_eq!(failures(&report), Vec::<String>::new());
    assert_eq!(report.passed, 2);
}

#[test]
fn an_unknown_map_names_the_maps() {
    let report = run("map_write counts 1 2\ncheck_map counts 1 absent\n");
    let expected = "scu `stf_notify_maps` has no map named `counts` (its maps: `per_src`, `marks`)";
    assert_eq!(
        failures(&report),
        vec![format!("line 1: {expected}"), format!("line 2: {expected}")]
    );
}

#[test]
fn a_key_or_value_wider_than_the_map_fails_at_its_line() {
    // marks is array<bit<4>, bit<8>>: 16 needs 5 bits, 0x100 needs 9.
    let report = run("map_write marks 16 1\nmap_write marks 1 0x100\ncheck_map marks 0x10 == 0\n");
    assert_eq!(
        failures(&report),
        vec![
            "line 1: key 0x10 is wider than map `marks`'s 4-bit key",
            "line 2: value 0x100 is wider than map `marks`'s 8-bit value",
            "line 3: key 0x10 is wider than map `marks`'s 4-bit key",
        ]
    );
}

#[test]
fn a_wrong_map_value_and_a_present_key_expected_absent_fail() {
    let report = run("map_write marks 3 7\ncheck_map marks 3 == 8\ncheck_map marks 3 absent\ncheck_map per_src 5 == 0\n");
    assert_eq!(
        failures(&report),
        vec![
            "line 2: map marks[0x3] is 7, expected == 8",
            "line 3: map marks[0x3] is 7, expected it absent",
            "line 4: map per_src[0x5] is absent, expected 0",
        ]
    );
}

#[test]
fn a_notification_that_does_not_come_fails() {
    let text = format!("{PACKET}expect_notify host 0x88b5000b\nexpect_notify host 7\nexpect_notify arm 1 from other\n");
    let report = run(&text);
    assert_eq!(
        failures(&report),
        vec![
            "line 4: expected a notification to host carrying 0x7, none came",
            "line 5: notification to arm: expected 0x1 from other, got 0x1 from stf_notify_maps",
        ]
    );
}

#[test]
fn an_unexpected_notification_to_a_checked_target_fails() {
    // The host is checked (an expect_notify names it), the Arm cores are not.
    let text = format!("{PACKET}{PACKET}expect_notify host 0x88b5000b\nwait\n");
    let report = run(&text);
    assert_eq!(
        failures(&report),
        vec!["line 6: unexpected notification to host: 0x88b5000b from stf_notify_maps"]
    );
}

#[test]
fn a_file_without_expect_notify_ignores_notifications() {
    let report = run(PACKET);
    assert_eq!(failures(&report), Vec::<String>::new());
}

#[test]
fn syntax_errors_say_what_was_expected() {
    for (text, message) in [
        (
            "expect_notify cpu 1\n",
            "line 1: expected `host` or `arm`, found `cpu`",
        ),
        (
            "expect_notify host 0x100000000\n",
            "line 1: expected a 32-bit notification value, found `0x100000000`",
        ),
        (
            "expect_notify arm 1 by x\n",
            "line 1: expected `from <name>` or end of line, found `by`",
        ),
        (
            "check_map marks 1 present\n",
            "line 1: expected a comparison (== != < <= > >=), found `present`",
        ),
    ] {
        assert_eq!(failures(&run(text)), vec![message.to_string()], "{text}");
    }
}
