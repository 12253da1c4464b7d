//! The `event` command: `event <cc> <flow> <kind> [name=value ...]`.
//!
//! [`KINDS`] is the one description of every kind's options (their names, value types and
//! whether they are required); the parser, its error messages and the defaults follow it.
//! Invariant: an event is built only from options its kind takes, each given at most once, with
//! every required one present.

use super::lex::Line;
use super::{CcEvent, CommandKind, StfError};
use crate::value::{parse_quantity, parse_uint, to_u64, ValueError, ValueErrorKind};
use scenic_ir::program::IntHop;
use scenic_ir::types::Dimension;

/// How an option's value is written.
#[derive(Clone, Copy)]
enum Value {
    /// A quantity of a dimension (`4KiB`, `12us`, `200Gbps`; a bare number counts base units).
    Quantity(Dimension),
    /// `0`, `1`, `false` or `true`.
    Flag,
    /// An integer 0 ..= 255.
    Byte,
}

/// An option of an event kind.
struct Opt {
    name: &'static str,
    value: Value,
    required: bool,
}

const fn opt(name: &'static str, value: Value, required: bool) -> Opt {
    Opt {
        name,
        value,
        required,
    }
}

const SIZE: Value = Value::Quantity(Dimension::Size);
const DURATION: Value = Value::Quantity(Dimension::Duration);
const RATE: Value = Value::Quantity(Dimension::Rate);

/// An event kind: its name, its options, and what an unknown option is told.
struct Kind {
    name: &'static str,
    options: &'static [Opt],
    expected: &'static str,
}

/// Every event kind and its options.
const KINDS: &[Kind] = &[
    Kind {
        name: "ack",
        options: &[opt("bytes", SIZE, false), opt("ecn", Value::Flag, false)],
        expected: "an option `bytes=` or `ecn=`",
    },
    Kind {
        name: "cnp",
        options: &[],
        expected: "end of line (`cnp` events take no options)",
    },
    Kind {
        name: "ecn",
        options: &[],
        expected: "end of line (`ecn` events take no options)",
    },
    Kind {
        name: "loss",
        options: &[],
        expected: "end of line (`loss` events take no options)",
    },
    Kind {
        name: "timeout",
        options: &[],
        expected: "end of line (`timeout` events take no options)",
    },
    Kind {
        name: "rtt",
        options: &[opt("sample", DURATION, true)],
        expected: "an option `sample=`",
    },
    Kind {
        name: "sent",
        options: &[opt("bytes", SIZE, true)],
        expected: "an option `bytes=`",
    },
    Kind {
        name: "int",
        options: &[
            opt("hop", Value::Byte, true),
            opt("hops", Value::Byte, true),
            opt("qlen", SIZE, true),
            opt("tx_bytes", SIZE, true),
            opt("ts", DURATION, true),
            opt("rate", RATE, true),
        ],
        expected: "an option `hop=`, `hops=`, `qlen=`, `tx_bytes=`, `ts=` or `rate=`",
    },
];

const KIND_LIST: &str = "an event kind (ack, cnp, ecn, loss, timeout, rtt, sent or int)";

/// The options given on a line, by position in the kind's list: value and column.
type Given = Vec<Option<(u64, u32)>>;

/// Parses the rest of an `event` line.
pub(super) fn event(l: &mut Line<'_>) -> Result<CommandKind, StfError> {
    let cc = l.name("a congestion controller name")?.text.to_string();
    let flow = l.u64("flow")?;
    let k = l.word(KIND_LIST)?;
    let lower = k.text.to_ascii_lowercase();
    let Some(kind) = KINDS.iter().find(|kind| kind.name == lower) else {
        return Err(l.expected(KIND_LIST, Some(k)));
    };
    let given = options(l, kind)?;
    for (o, g) in kind.options.iter().zip(&given) {
        if o.required && g.is_none() {
            return Err(StfError::MissingOption {
                line: l.line,
                column: k.col,
                option: o.name,
                event: kind.name,
            });
        }
    }
    let event = build(l, kind.name, &given)?;
    Ok(CommandKind::Event { cc, flow, event })
}

/// Reads the `name=value` options of `kind` up to the end of the line.
fn options(l: &mut Line<'_>, kind: &'static Kind) -> Result<Given, StfError> {
    let mut given: Given = vec![None; kind.options.len()];
    while let Some(t) = l.take() {
        let Some((name, v)) = t.text.split_once('=') else {
            return Err(l.expected(kind.expected, Some(t)));
        };
        let Some(at) = kind.options.iter().position(|o| o.name == name) else {
            let elsewhere = KINDS
                .iter()
                .any(|other| other.options.iter().any(|o| o.name == name));
            if elsewhere {
                return Err(StfError::OptionNotAllowed {
                    line: l.line,
                    column: t.col,
                    option: name.to_string(),
                    event: kind.name,
                });
            }
            return Err(l.expected(kind.expected, Some(t)));
        };
        if given[at].is_some() {
            return Err(StfError::Duplicate {
                line: l.line,
                column: t.col,
                name: name.to_string(),
            });
        }
        let vcol = t.col.saturating_add(name.len() as u32 + 1);
        let value = match kind.options[at].value {
            Value::Quantity(dim) => parse_quantity(v, dim),
            Value::Flag => match v {
                "0" | "false" => Ok(0),
                "1" | "true" => Ok(1),
                _ => return Err(l.expected("`ecn=0` or `ecn=1`", Some(t))),
            },
            Value::Byte => byte(v),
        };
        let value = value.map_err(|e| l.value_error("option value", v, vcol, e))?;
        given[at] = Some((value, t.col));
    }
    Ok(given)
}

/// An integer that fits 8 bits.
fn byte(text: &str) -> Result<u64, ValueError> {
    let v = to_u64(parse_uint(text)?, 0)?;
    if v > 255 {
        return Err(ValueError {
            at: 0,
            kind: ValueErrorKind::TooLarge { bits: 8 },
        });
    }
    Ok(v)
}

/// The event of kind `name` from its options (required ones are present; optional ones default
/// to 0 and `false`).
fn build(l: &Line<'_>, name: &str, given: &Given) -> Result<CcEvent, StfError> {
    let value = |i: usize| given.get(i).copied().flatten().map_or(0, |(v, _)| v);
    Ok(match name {
        "ack" => CcEvent::Ack {
            bytes: value(0),
            ecn: value(1) == 1,
        },
        "cnp" => CcEvent::Cnp,
        "ecn" => CcEvent::Ecn,
        "loss" => CcEvent::Loss,
        "timeout" => CcEvent::Timeout,
        "rtt" => CcEvent::Rtt {
            sample_ns: value(0),
        },
        "sent" => CcEvent::Sent { bytes: value(0) },
        _ => {
            let hop = IntHop {
                hop: value(0) as u8,
                hops: value(1) as u8,
                qlen: value(2),
                tx_bytes: value(3),
                ts_ns: value(4),
                rate_bps: value(5),
            };
            if hop.hop >= hop.hops {
                let col = given[0].map_or(l.end_col, |(_, c)| c);
                return Err(StfError::Expected {
                    line: l.line,
                    column: col,
                    expected: "`hop=` below `hops=` (hops are numbered from 0)",
                    found: format!("hop={} with hops={}", hop.hop, hop.hops),
                });
            }
            CcEvent::Int(hop)
        }
    })
}
