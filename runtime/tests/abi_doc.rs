//! Keeps `runtime/src/abi` and `docs/device.md` from drifting apart: every register table, the
//! feature bits, the bank states, the slot opcodes, the device statuses and the error codes of the
//! document are parsed from its markdown and compared, name by name and number by number, with the
//! constants of the crate. A row added to either side without the other fails here.

// A test binary: a failed unwrap in a helper is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use scenic_runtime::abi::codes::{Code, DeviceStatus};
use scenic_runtime::abi::global::{self, Feature};
use scenic_runtime::abi::slot::{self, BankState, SlotOp};
use scenic_runtime::abi::{self, Reg};

/// One markdown table: the section it is in (`2.2`, `6`), its ordinal there, header and rows.
struct Table {
    section: String,
    ordinal: usize,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

fn tables() -> Vec<Table> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/device.md");
    let text = std::fs::read_to_string(path).expect("read docs/device.md");
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Table> = Vec::new();
    let mut section = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(h) = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "))
        {
            section = h
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches('.')
                .to_string();
        }
        let is_table =
            line.starts_with('|') && lines.get(i + 1).is_some_and(|l| l.starts_with("|---"));
        if is_table {
            let ordinal = out.iter().filter(|t| t.section == section).count();
            let header = cells(line);
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].starts_with('|') {
                rows.push(cells(lines[i]));
                i += 1;
            }
            out.push(Table {
                section: section.clone(),
                ordinal,
                header,
                rows,
            });
            continue;
        }
        i += 1;
    }
    out
}

fn table<'a>(all: &'a [Table], section: &str, ordinal: usize) -> &'a Table {
    all.iter()
        .find(|t| t.section == section && t.ordinal == ordinal)
        .unwrap_or_else(|| panic!("docs/device.md has no table {ordinal} in §{section}"))
}

fn unquote(s: &str) -> String {
    s.replace('`', "")
}

fn number(s: &str) -> u64 {
    let s = unquote(s);
    let first = s.split("..").next().unwrap().trim().replace('_', "");
    match first.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("bad hex `{s}`")),
        None => first.parse().unwrap_or_else(|_| panic!("bad number `{s}`")),
    }
}

/// `(name, offset, access)` rows of a register table, plus the "(and 0xNNNN `NAME`)" extras.
fn doc_regs(t: &Table) -> BTreeSet<(String, u64, String)> {
    let access_col = t.header.iter().position(|h| h == "access");
    let mut set = BTreeSet::new();
    for row in &t.rows {
        let access = access_col.map(|c| row[c].clone()).unwrap_or_default();
        set.insert((unquote(&row[1]), number(&row[0]), access.clone()));
        let meaning = row.last().unwrap();
        if let Some(pos) = meaning.find("(and 0x") {
            let rest = &meaning[pos + 5..];
            let off = number(rest.split_whitespace().next().unwrap());
            let name = unquote(rest.split_whitespace().nth(1).unwrap()).replace(')', "");
            set.insert((name, off, access));
        }
    }
    set
}

fn code_regs(regs: &[Reg]) -> BTreeSet<(String, u64, String)> {
    regs.iter()
        .map(|r| {
            (
                r.name.to_string(),
                r.offset,
                r.access
                    .map(|a| a.doc_name().to_string())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn register_tables_match_the_document() {
    let all = tables();
    let pairs: [(&str, usize, &[Reg]); 12] = [
        ("2.2", 0, global::GLOBAL),
        ("2.3", 0, global::STEER),
        ("2.4", 0, global::PORT),
        ("3.2", 0, slot::SLOT),
        ("3.2", 1, slot::IDENTITY),
        ("3.3", 0, slot::STAGE),
        ("3.6", 0, slot::CONTROL_QUEUE),
        ("3.7", 1, slot::NOTIFY_QUEUE),
        ("4.1", 0, global::CC),
        ("4.3", 0, global::EVENT),
        ("5.1", 0, global::RING),
        ("5.5", 0, global::INTERRUPT),
    ];
    for (section, ordinal, regs) in pairs {
        let doc = doc_regs(table(&all, section, ordinal));
        let code = code_regs(regs);
        let only_doc: Vec<_> = doc.difference(&code).collect();
        let only_code: Vec<_> = code.difference(&doc).collect();
        assert!(
            only_doc.is_empty() && only_code.is_empty(),
            "§{section} table {ordinal}: only in the doc {only_doc:?}; only in the code {only_code:?}"
        );
        for r in regs {
            assert_eq!(r.offset % 8, 0, "{} is not 8-byte aligned", r.name);
        }
    }
}

#[test]
fn codes_and_opcodes_match_the_document() {
    let all = tables();
    let set = |t: &Table| -> BTreeSet<(String, u64)> {
        t.rows
            .iter()
            .map(|r| (unquote(&r[1]), number(&r[0])))
            .collect()
    };
    let errors: BTreeSet<_> = Code::ALL
        .iter()
        .map(|c| (c.doc_name().to_string(), u64::from(c.number())))
        .collect();
    assert_eq!(set(table(&all, "6", 0)), errors, "§6 error codes");
    let statuses: BTreeSet<_> = DeviceStatus::ALL
        .iter()
        .map(|s| (s.doc_name().to_string(), u64::from(s.number())))
        .collect();
    assert_eq!(set(table(&all, "3.6", 2)), statuses, "§3.6 device statuses");
    let states: BTreeSet<_> = BankState::ALL
        .iter()
        .map(|s| (s.doc_name().to_string(), *s as u64))
        .collect();
    assert_eq!(set(table(&all, "3.4", 0)), states, "§3.4 bank states");
    let ops: BTreeSet<_> = SlotOp::ALL
        .iter()
        .map(|o| (o.doc_name().to_string(), *o as u64))
        .collect();
    assert_eq!(set(table(&all, "3.4", 1)), ops, "§3.4 slot opcodes");
    let features: BTreeSet<_> = Feature::ALL
        .iter()
        .map(|f| (f.doc_name().to_string(), *f as u64))
        .collect();
    assert_eq!(set(table(&all, "2.2", 1)), features, "§2.2 feature bits");
}

#[test]
fn slot_block_layout_matches_the_document() {
    let all = tables();
    let doc: BTreeSet<u64> = table(&all, "3.1", 0)
        .rows
        .iter()
        .map(|r| number(&r[0]))
        .collect();
    let code: BTreeSet<u64> = [
        0,
        slot::CQ_REQ_RING,
        slot::CQ_RSP_RING,
        slot::NQ_RING,
        slot::CC_OUTPUTS,
        slot::CSR_WINDOW,
        slot::STAGE_WINDOW,
    ]
    .into_iter()
    .collect();
    assert_eq!(doc, code, "§3.1 slot block layout");
    let map = table(&all, "2.1", 0);
    let find = |what: &str| {
        map.rows
            .iter()
            .find(|r| r[1].contains(what))
            .map(|r| unquote(&r[0]))
            .unwrap()
    };
    assert_eq!(
        find("slot block"),
        format!(
            "0x{:x} + k × 0x{:x}",
            abi::SLOT_BLOCK_BASE,
            abi::SLOT_BLOCK_STRIDE
        )
    );
    assert_eq!(number(&find("ring memory")), abi::RING_MEM_START);
    assert_eq!(number(&find("CC event ring entries")), global::EV_RING_BASE);
    // The reset values the doc gives for identity words this crate checks.
    let g = table(&all, "2.2", 0);
    let reset = |name: &str| {
        g.rows
            .iter()
            .find(|r| unquote(&r[1]) == name)
            .map(|r| number(&r[3]))
            .unwrap()
    };
    assert_eq!(reset("MAGIC"), abi::MAGIC_WORD);
    assert_eq!(reset("VERSION"), abi::VERSION_WORD);
    assert_eq!(reset("BAR_BYTES"), abi::MAP_BYTES);
    assert_eq!(&abi::MAGIC_WORD.to_le_bytes(), b"SCENIC\0\0");
}

/// `(start, end)` of a `bytes` cell: `` `2..4` `` or `` `8` ``.
fn byte_range(cell: &str) -> (usize, usize) {
    let s = unquote(cell);
    match s.split_once("..") {
        Some((a, b)) => (a.trim().parse().unwrap(), b.trim().parse().unwrap()),
        None => {
            let a: usize = s.trim().parse().unwrap();
            (a, a + 1)
        }
    }
}

/// Every named field of a byte-layout table holds, at the doc's bytes, the value encoded there.
fn check_layout(t: &Table, bytes: &[u8], fields: &[(&str, u64)]) {
    let mut seen = 0;
    for row in &t.rows {
        let name = unquote(&row[1]);
        let Some((_, value)) = fields.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let (a, b) = byte_range(&row[0]);
        let mut le = [0u8; 8];
        let n = (b - a).min(8);
        le[..n].copy_from_slice(&bytes[a..a + n]);
        assert_eq!(
            u64::from_le_bytes(le),
            *value,
            "field `{name}` at bytes {a}..{b}"
        );
        seen += 1;
    }
    assert_eq!(seen, fields.len(), "every field named in the doc's table");
}

#[test]
fn entry_layouts_match_the_document() {
    use scenic_runtime::frame::{ControlEntry, Notification};
    let all = tables();
    let e = ControlEntry::new(0x21, 1, 0x0302, 0x0706_0504, 0x0B0A_0908)
        .with_data(&[0x1716_1514_1312_1110])
        .unwrap();
    let fields = [
        ("op", 0x21),
        ("flags", 1),
        ("target", 0x0302),
        ("index", 0x0706_0504),
        ("tag", 0x0B0A_0908),
        ("data_words", 1),
        ("data", 0x1716_1514_1312_1110),
    ];
    check_layout(table(&all, "3.6", 1), &e.encode(), &fields);
    let n = Notification {
        time_ns: 0x0102_0304_0506_0708,
        slot: 5,
        target: 1,
        bank: 1,
        flags: 1,
        value: 0xCAFE_F00D,
        seq: 42,
    };
    let fields = [
        ("time_ns", 0x0102_0304_0506_0708),
        ("slot", 5),
        ("target", 1),
        ("bank", 1),
        ("flags", 1),
        ("value", 0xCAFE_F00D),
        ("seq", 42),
    ];
    check_layout(table(&all, "3.7", 0), &n.encode(), &fields);
}
