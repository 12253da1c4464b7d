//! Tests of the STF parser (every command, p4c's own examples, the extensions, error positions and
//! messages, robustness) and of the expected-packet matcher.

use super::*;
use crate::testutil::robustness;
use num_bigint::BigUint;

fn one(line: &str) -> CommandKind {
    let mut cmds = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(cmds.len(), 1, "{line}");
    cmds.remove(0).kind
}

fn error(text: &str) -> String {
    parse(text)
        .map(|c| format!("parsed: {c:?}"))
        .unwrap_or_else(|e| e.to_string())
}

fn n(v: u64) -> BigUint {
    BigUint::from(v)
}

fn arg(name: &str, v: u64) -> Arg {
    Arg {
        name: name.into(),
        value: n(v),
    }
}

#[test]
fn packets_and_expectations() {
    assert_eq!(
        one("packet 0 01010101 03030303 9999"),
        CommandKind::Packet {
            port: 0,
            data: vec![1, 1, 1, 1, 3, 3, 3, 3, 0x99, 0x99]
        }
    );
    assert_eq!(
        one("PACKET 2 0 1 aB"),
        CommandKind::Packet {
            port: 2,
            data: vec![0x01, 0xab]
        }
    );
    let CommandKind::Expect { port, pattern } = one("expect 1 *1010101 0303 $") else {
        panic!()
    };
    assert_eq!(port, 1);
    assert!(pattern.exact);
    assert_eq!(pattern.to_string(), "*10101010303$");
    assert_eq!(pattern.nibbles[0], None);
    assert_eq!(pattern.nibbles[1], Some(1));
    let CommandKind::Expect { pattern, .. } = one("expect 3 0a0b$") else {
        panic!()
    };
    assert_eq!(pattern, ExpectPattern::exactly(&[0x0a, 0x0b]));
    let CommandKind::Expect { pattern, .. } = one("Expect 5") else {
        panic!()
    };
    assert_eq!(pattern, ExpectPattern::default());
    let CommandKind::Expect { pattern, .. } = one("expect 5 abc") else {
        panic!()
    };
    assert_eq!(
        pattern.nibbles.len(),
        3,
        "expectations may have an odd number of nibbles"
    );
    assert_eq!(one("no_packet"), CommandKind::NoPacket);
    assert_eq!(one("wait"), CommandKind::Wait);
}

#[test]
fn comments_blank_lines_positions_and_crlf() {
    let text = "# a test\r\n\r\n   packet 1 ab # trailing\r\n\texpect 1 ab$\n";
    let cmds = parse(text).unwrap();
    assert_eq!(cmds.len(), 2);
    assert_eq!(cmds[0].pos, Pos { line: 3, column: 4 });
    assert_eq!(cmds[1].pos, Pos { line: 4, column: 2 });
}

#[test]
fn add_entries_p4c_examples() {
    let CommandKind::Add(e) =
        one("ADD test2 100 data.f2:0x04040404 c4_6(val4:0x4040, val5:0x5050, port:2)")
    else {
        panic!()
    };
    assert_eq!(e.table, "test2");
    assert_eq!(e.priority, Some(100));
    assert_eq!(
        e.keys,
        vec![KeyField {
            name: "data.f2".into(),
            value: MatchValue::Exact(n(0x0404_0404))
        }]
    );
    assert_eq!(e.action.name, "c4_6");
    assert_eq!(
        e.action.args,
        vec![arg("val4", 0x4040), arg("val5", 0x5050), arg("port", 2)]
    );
    assert_eq!(e.id, None);

    let CommandKind::Add(e) = one("add tab1 dstAddr:0xa1a2a3a4a5a6 act(port:2) = A") else {
        panic!()
    };
    assert_eq!((e.priority, e.id.as_deref()), (None, Some("A")));

    let CommandKind::Add(e) =
        one("add test1 0 data.$valid:0b1 data.f1:0x****0101 setb1(val:0x7f, port:2)=B")
    else {
        panic!()
    };
    assert_eq!(e.priority, Some(0));
    assert_eq!(e.keys[0].name, "data.$valid");
    assert_eq!(
        e.keys[1].value,
        MatchValue::Ternary {
            value: n(0x0101),
            mask: n(0xffff)
        }
    );
    assert_eq!(e.id.as_deref(), Some("B"));
}

#[test]
fn add_entries_in_scenic_forms() {
    let line = "add acl ip.src:10.0.0.0/8 ip.dst:10.200.0.0&&&255.255.0.0 vlans$0.vid : 7 tcp.dport:7000..=7099 eth.src:00:11:22:33:44:55 allow";
    let CommandKind::Add(e) = one(line) else {
        panic!()
    };
    let names: Vec<_> = e.keys.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        ["ip.src", "ip.dst", "vlans$0.vid", "tcp.dport", "eth.src"]
    );
    assert_eq!(
        e.keys[0].value,
        MatchValue::Lpm {
            value: n(0x0a00_0000),
            prefix_len: 8
        }
    );
    assert_eq!(e.keys[2].value, MatchValue::Exact(n(7)));
    assert_eq!(
        e.keys[3].value,
        MatchValue::Range {
            lo: n(7000),
            hi: n(7099)
        }
    );
    assert_eq!(e.keys[4].value, MatchValue::Exact(n(0x0011_2233_4455)));
    assert_eq!(
        e.action,
        ActionCall {
            name: "allow".into(),
            args: vec![]
        }
    );

    let CommandKind::Add(e) = one("add t k:1->5 k2:_ ctl.set( p : 1 , q:true ) = e_1") else {
        panic!()
    };
    assert_eq!(e.keys[1].value, MatchValue::Any);
    assert_eq!(e.action.name, "ctl.set");
    assert_eq!(e.action.args, vec![arg("p", 1), arg("q", 1)]);
    assert_eq!(e.id.as_deref(), Some("e_1"));
}

#[test]
fn defaults_removal_counters() {
    assert_eq!(
        one("setdefault ethertype_match l2_packet()"),
        CommandKind::SetDefault {
            table: "ethertype_match".into(),
            action: ActionCall {
                name: "l2_packet".into(),
                args: vec![]
            }
        }
    );
    assert_eq!(one("remove all"), CommandKind::Remove(Removal::Everything));
    assert_eq!(
        one("remove acl ALL"),
        CommandKind::Remove(Removal::Table("acl".into()))
    );
    assert_eq!(
        one("remove acl A"),
        CommandKind::Remove(Removal::Entry {
            table: "acl".into(),
            id: "A".into()
        })
    );
    assert_eq!(
        one("check_counter cntDum(10) packets == 2"),
        CommandKind::CheckCounter(CounterCheck {
            name: "cntDum".into(),
            index: CounterIndex::Index(10),
            compare: Some((Count::Packets, CmpOp::Eq, 2)),
        })
    );
    assert_eq!(
        one("check_counter cntDum($A)"),
        CommandKind::CheckCounter(CounterCheck {
            name: "cntDum".into(),
            index: CounterIndex::Entry("A".into()),
            compare: None,
        })
    );
    let CommandKind::CheckCounter(c) = one("check_counter total BYTES >= 0x40") else {
        panic!()
    };
    assert_eq!(
        (c.index, c.compare),
        (CounterIndex::Index(0), Some((Count::Bytes, CmpOp::Ge, 64)))
    );
    let CommandKind::CheckCounter(c) = one("check_counter c(1) != 3") else {
        panic!()
    };
    assert_eq!(c.compare, Some((Count::Packets, CmpOp::Ne, 3)));
}

#[test]
fn extensions_time_and_events() {
    assert_eq!(one("time 1500"), CommandKind::Time { ns: 1500 });
    assert_eq!(one("TIME 1.5ms"), CommandKind::Time { ns: 1_500_000 });
    assert_eq!(one("wait 55us"), CommandKind::Advance { ns: 55_000 });
    assert_eq!(
        one("event dcqcn 3 ack bytes=4KiB ecn=1"),
        CommandKind::Event {
            cc: "dcqcn".into(),
            flow: 3,
            event: CcEvent::Ack {
                bytes: 4096,
                ecn: true
            }
        }
    );
    assert_eq!(
        one("event aimd 0 ACK"),
        CommandKind::Event {
            cc: "aimd".into(),
            flow: 0,
            event: CcEvent::Ack {
                bytes: 0,
                ecn: false
            }
        }
    );
    assert_eq!(
        one("event aimd 7 rtt sample=12us"),
        CommandKind::Event {
            cc: "aimd".into(),
            flow: 7,
            event: CcEvent::Rtt { sample_ns: 12_000 }
        }
    );
    assert_eq!(
        one("event dcqcn 2 sent bytes=1MB"),
        CommandKind::Event {
            cc: "dcqcn".into(),
            flow: 2,
            event: CcEvent::Sent { bytes: 1_000_000 }
        }
    );
    assert_eq!(
        one("event hpcc 1 INT hop=1 hops=2 qlen=10KB tx_bytes=123456B ts=15us rate=200Gbps"),
        CommandKind::Event {
            cc: "hpcc".into(),
            flow: 1,
            event: CcEvent::Int(scenic_ir::program::IntHop {
                hop: 1,
                hops: 2,
                qlen: 10_000,
                tx_bytes: 123_456,
                ts_ns: 15_000,
                rate_bps: 200_000_000_000,
            })
        }
    );
    for (kind, ev) in [
        ("cnp", CcEvent::Cnp),
        ("ecn", CcEvent::Ecn),
        ("loss", CcEvent::Loss),
        ("timeout", CcEvent::Timeout),
    ] {
        assert_eq!(
            one(&format!("event c 1 {kind}")),
            CommandKind::Event {
                cc: "c".into(),
                flow: 1,
                event: ev
            }
        );
    }
}

#[test]
fn extensions_checks_csrs_words_dma() {
    assert_eq!(
        one("check_rate dcqcn 3 >= 40Mbps"),
        CommandKind::CheckRate {
            cc: "dcqcn".into(),
            flow: 3,
            op: CmpOp::Ge,
            bps: 40_000_000
        }
    );
    assert_eq!(
        one("check_window aimd 0 == 40960"),
        CommandKind::CheckWindow {
            cc: "aimd".into(),
            flow: 0,
            op: CmpOp::Eq,
            bytes: 40960
        }
    );
    assert_eq!(
        one("set_csr blocked_port 9"),
        CommandKind::SetCsr {
            name: "blocked_port".into(),
            value: 9
        }
    );
    assert_eq!(
        one("set_csr aimd.min_cwnd 8KiB"),
        CommandKind::SetCsr {
            name: "aimd.min_cwnd".into(),
            value: 8192
        }
    );
    assert_eq!(
        one("check_csr dropped < 0x10"),
        CommandKind::CheckCsr {
            name: "dropped".into(),
            op: CmpOp::Lt,
            value: 16
        }
    );
    let CommandKind::Words { flow, data } = one(&format!("words 4 {} 0102", "ab".repeat(64)))
    else {
        panic!()
    };
    assert_eq!(flow, 4);
    let words: Vec<_> = message_words(&data).collect();
    assert_eq!(
        (words.len(), words[0].len(), words[1]),
        (2, 64, &[1u8, 2][..])
    );
    assert_eq!(
        one("expect_dma to_gpu[2] 00ff** $"),
        CommandKind::ExpectDma {
            out: "to_gpu".into(),
            index: Some(2),
            pattern: ExpectPattern {
                nibbles: vec![Some(0), Some(0), Some(15), Some(15), None, None],
                exact: true
            },
        }
    );
    assert_eq!(
        one("expect_dma log"),
        CommandKind::ExpectDma {
            out: "log".into(),
            index: None,
            pattern: ExpectPattern::default()
        }
    );
}

#[test]
fn error_messages_say_where_and_what() {
    let cases = [
        ("packet 0 01 zz", "line 1, column 13: expected a hexadecimal byte string, found `zz`"),
        ("\n\npacket 0", "line 3, column 9: expected a hexadecimal byte string, found end of line"),
        ("packet 0 012", "line 1, column 10: 3 hexadecimal digits do not make whole bytes"),
        ("packet x 00", "line 1, column 8: expected a port number, found `x`"),
        ("packet 99999999999 00", "line 1, column 8: expected a port number, found `99999999999`"),
        ("expect 1 ab$ cd", "line 1, column 14: expected end of line after `$`, found `cd`"),
        ("expect 1 a$b", "line 1, column 10: expected hexadecimal digits, `*` or a final `$`, found `a$b`"),
        ("frobnicate 1", "line 1, column 1: unknown command `frobnicate` (expected packet, expect, no_packet, add, setdefault, remove, check_counter, wait, time, event, check_rate, check_window, set_csr, check_csr, words, expect_dma, expect_notify, map_write or check_map)"),
        ("add t k:0x1g a()", "line 1, column 12: invalid match value `0x1g`: invalid character `g` in a hexadecimal number"),
        ("add t k:22..22 a()", "line 1, column 13: invalid match value `22..22`: empty range: `..` excludes its upper bound; write `..=` (or `->`) to include it"),
        ("add t k:1 k:2 a()", "line 1, column 11: `k` is given twice"),
        ("add t 5 a(x:1, x:2)", "line 1, column 16: `x` is given twice"),
        ("add t k:1 a(x:1,)", "line 1, column 17: expected an argument `name:value`, found `)`"),
        ("add t k:1 a(x:1 y:2)", "line 1, column 17: expected `,` or `)`, found `y:2`"),
        ("add t k:1 a(x:1", "line 1, column 16: expected `)`, found end of line"),
        ("add t k:1 a(x:zz)", "line 1, column 15: invalid argument value `zz`: invalid character `z` in a decimal number"),
        ("add t k:1 a() junk", "line 1, column 15: expected `= id` or end of line, found `junk`"),
        ("add t", "line 1, column 6: expected key matches and an action, found end of line"),
        ("add t 1k a()", "line 1, column 7: expected a key match `name:value`, found `1k`"),
        ("add 3t k:1 a()", "line 1, column 5: expected a table name, found `3t`"),
        ("check_counter c(1) packets =! 2", "line 1, column 28: expected a comparison (== != < <= > >=), found `=!`"),
        ("check_counter c(1 packets == 2", "line 1, column 19: expected `)`, found `packets`"),
        ("time 1.5ns", "line 1, column 6: invalid time `1.5ns`: not a whole number of nanoseconds"),
        ("wait 5 minutes", "line 1, column 8: expected end of line, found `minutes`"),
        ("wait 5m", "line 1, column 7: invalid duration `5m`: unknown duration unit `m` (expected one of: ns, us, ms, s)"),
        ("event c 1 nack", "line 1, column 11: expected an event kind (ack, cnp, ecn, loss, timeout, rtt, sent or int), found `nack`"),
        ("event c 1 rtt", "line 1, column 11: `rtt` events need `sample=`"),
        ("event c 1 cnp bytes=5", "line 1, column 15: `bytes=` does not apply to `cnp` events"),
        ("event c 1 ack bytes=5 bytes=6", "line 1, column 23: `bytes` is given twice"),
        ("event c 1 ack ecn=2", "line 1, column 15: expected `ecn=0` or `ecn=1`, found `ecn=2`"),
        ("event c 1 ack color=2", "line 1, column 15: expected an option `bytes=` or `ecn=`, found `color=2`"),
        ("event c 1 ack sample=2us", "line 1, column 15: `sample=` does not apply to `ack` events"),
        ("event c 1 sent", "line 1, column 11: `sent` events need `bytes=`"),
        ("event c 1 sent bytes=5 ecn=1", "line 1, column 24: `ecn=` does not apply to `sent` events"),
        ("event c 1 int hop=0 hops=1 qlen=0 tx_bytes=0 ts=0", "line 1, column 11: `int` events need `rate=`"),
        ("event c 1 int hops=1 qlen=0 tx_bytes=0 ts=0 rate=1Gbps", "line 1, column 11: `int` events need `hop=`"),
        ("event c 1 int hop=256 hops=1 qlen=0 tx_bytes=0 ts=0 rate=0", "line 1, column 19: invalid option value `256`: the value does not fit in 8 bits"),
        ("event c 1 int hop=2 hops=2 qlen=0 tx_bytes=0 ts=0 rate=0", "line 1, column 15: expected `hop=` below `hops=` (hops are numbered from 0), found hop=2 with hops=2"),
        ("event c 1 int hop=0 hops=1 qlen=3us tx_bytes=0 ts=0 rate=0", "line 1, column 34: invalid option value `3us`: unknown size unit `us` (expected one of: B, KB, KiB, MB, MiB, GB, GiB, TB, TiB)"),
        ("event c 1 int hop=0 hops=1 qlen=0 tx_bytes=0 ts=0 rate=0 hop=1", "line 1, column 58: `hop` is given twice"),
        ("event c 1 int hop=0 hops=1 queue=0", "line 1, column 28: expected an option `hop=`, `hops=`, `qlen=`, `tx_bytes=`, `ts=` or `rate=`, found `queue=0`"),
        ("event c 1 cnp 5", "line 1, column 15: expected end of line (`cnp` events take no options), found `5`"),
        ("event c 1 ack bytes=5us", "line 1, column 22: invalid option value `5us`: unknown size unit `us` (expected one of: B, KB, KiB, MB, MiB, GB, GiB, TB, TiB)"),
        ("check_rate c 1 >= 40mbps", "line 1, column 21: invalid rate `40mbps`: unknown rate unit `mbps` (expected one of: bps, Kbps, Mbps, Gbps, Tbps)"),
        ("set_csr x 0x1_0000_0000_0000_0000", "line 1, column 11: invalid CSR value `0x1_0000_0000_0000_0000`: the value does not fit in 64 bits"),
        ("words 1", "line 1, column 8: expected a hexadecimal byte string, found end of line"),
        ("expect_dma out[x] 00", "line 1, column 12: expected an output name, optionally indexed (`out` or `out[2]`), found `out[x]`"),
    ];
    for (text, want) in cases {
        assert_eq!(error(text), want, "{text}");
    }
}

#[test]
fn parse_all_collects_every_error() {
    let (cmds, errs) = parse_all("packet 0 00\nbogus\nexpect 0 00\nwait 3x\n");
    assert_eq!(cmds.len(), 2);
    let lines: Vec<u32> = errs.iter().map(|e| e.pos().line).collect();
    assert_eq!(lines, [2, 4]);
}

#[test]
fn unicode_columns_count_characters() {
    assert_eq!(
        error("packet 0 é"),
        "line 1, column 10: expected a hexadecimal byte string, found `é`"
    );
    assert_eq!(
        error("add t k:é1 a()"),
        "line 1, column 9: invalid match value `é1`: invalid character `é` in a decimal number"
    );
}

#[test]
fn matcher_reports_first_nibble_and_length_rules() {
    let p = |s: &str| match one(&format!("expect 0 {s}")) {
        CommandKind::Expect { pattern, .. } => pattern,
        _ => unreachable!(),
    };
    assert_eq!(matches(&p("0a0b"), &[0x0a, 0x0b, 0xff]), Ok(()));
    assert_eq!(matches(&p("0a0b$"), &[0x0a, 0x0b]), Ok(()));
    assert_eq!(matches(&p("*a**"), &[0x3a, 0x77]), Ok(()));
    assert_eq!(matches(&p(""), &[]), Ok(()));
    assert_eq!(matches(&p(""), &[1, 2, 3]), Ok(()));
    assert_eq!(matches(&p("0a0"), &[0x0a, 0x0b]), Ok(()));
    let e = matches(&p("0a0b0c"), &[0x0a, 0x0b, 0x1c]).unwrap_err();
    assert_eq!(
        e,
        Mismatch::Nibble {
            offset: 4,
            expected: 0,
            actual: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "nibble 4 (byte 2, high half) differs: expected 0, got 1"
    );
    let e = matches(&p("0a0b0c"), &[0x0a, 0x0b, 0x0d]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "nibble 5 (byte 2, low half) differs: expected c, got d"
    );
    let e = matches(&p("0a0b0c"), &[0x0a]).unwrap_err();
    assert_eq!(
        e,
        Mismatch::TooShort {
            expected_nibbles: 6,
            actual_len: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "too short: expected at least 6 nibbles (3 bytes), got 1 bytes"
    );
    let e = matches(&p("0a$"), &[0x0a, 0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "too long: expected exactly 2 nibbles (`$`), got 2 bytes"
    );
    assert!(matches!(
        matches(&p("0a0$"), &[0x0a, 0]),
        Err(Mismatch::TooLong { .. })
    ));
    assert!(matches!(
        matches(&p("ff"), &[0x0a]),
        Err(Mismatch::Nibble { offset: 0, .. })
    ));
    assert_eq!(matches(&p("$"), &[]), Ok(()));
    assert!(matches(&p("$"), &[0]).is_err());
}

#[test]
fn cmp_ops() {
    assert!(CmpOp::Le.holds(&3, &3));
    assert!(!CmpOp::Lt.holds(&3, &3));
    assert!(CmpOp::Ne.holds("a", "b"));
    assert_eq!(CmpOp::Ge.as_str(), ">=");
}

const SAMPLE: &str = "# sample\n\
add acl 10 ip.src:10.0.0.0/8 ip.dst:0x0a****01 l4:1..=5 limit(class:3) = A\n\
setdefault route forward(port:1)\n\
packet 0 000102030405 0a0b0c0d0e0f 0800 4500\n\
expect 1 000102030405 **** $\n\
check_counter hits($A) bytes == 60\n\
time 1ms\nwait 55us\nevent dcqcn 3 ack bytes=4096 ecn=1\nevent dcqcn 3 rtt sample=10us\n\
check_rate dcqcn 3 >= 40Mbps\ncheck_window aimd 0 < 64KiB\nset_csr pad 0xff\ncheck_csr dropped == 0\n\
words 2 00112233\nexpect_dma out[1] 0011 $\nremove acl A\nremove all\nno_packet\nwait\n";

#[test]
fn sample_file_parses() {
    assert_eq!(parse(SAMPLE).unwrap().len(), 19);
}

#[test]
fn robust_against_truncation_and_corruption() {
    let runs = robustness(SAMPLE.as_bytes(), 5000, |b| {
        let text = String::from_utf8_lossy(b);
        let (_, errors) = parse_all(&text);
        let lines = u32::try_from(text.lines().count()).unwrap();
        for e in errors {
            assert!(e.pos().line >= 1 && e.pos().line <= lines, "{e}");
            assert!(e.pos().column >= 1, "{e}");
        }
    });
    assert!(runs > 5000);
}

/// The fenced blocks of `docs/testing.md` that follow a line starting with `marker`.
pub(crate) fn doc_block(marker: &str) -> String {
    let doc = include_str!("../../../../docs/testing.md");
    let at = doc.find(marker).expect("marker in docs/testing.md");
    let rest = &doc[at..];
    let start = rest.find("```").expect("a code block") + 3;
    let body = &rest[start..];
    let body = &body[body.find('\n').unwrap_or(0)..];
    body[..body.find("```").expect("end of block")].to_string()
}

#[test]
fn the_example_in_docs_testing_md_parses() {
    let cmds = parse(&doc_block("### Example")).unwrap();
    assert_eq!(cmds.len(), 12);
}
