//! STF packet tests (`scenicc test FILE TEST.stf`): p4c's "simple test framework" format plus the
//! scenicc extensions, parsed ([`parse`]) into a typed AST of [`Command`]s, and the expected-packet
//! matcher ([`matches()`]).
//!
//! Source of the base format: p4c's `tools/stf/stf_lexer.py` and `stf_parser.py`, bmv2's
//! `backends/bmv2/bmv2stf.py`, and `tools/testutils.py::compare_pkt` for matching. One command per
//! line; `#` starts a comment; blank lines are ignored; command keywords (and `all`, `packets`,
//! `bytes`, event kinds) are case-insensitive, names are not. Commands:
//!
//! | command | meaning |
//! |---|---|
//! | `packet <port> <hex…>` | inject a packet (hex digits, spaces between groups allowed) |
//! | `expect <port> [<hex…>] [$]` | the next packet out of `port` starts with these nibbles (`*` = any nibble); `$` requires the exact length; no data = any packet |
//! | `no_packet` | states that no packet comes out (any output not matched by an `expect` fails anyway) |
//! | `add <table> [<prio>] <key>:<match>… <action>(<p>:<v>, …) [= <id>]` | add an entry; matches per [`value`](crate::value) |
//! | `setdefault <table> <action>(<p>:<v>, …)` | set the default action |
//! | `remove all` / `remove <table> all` / `remove <table> <id>` | remove entries |
//! | `check_counter <name>(<idx or $id>) [packets\|bytes] <op> <N>` | check a counter cell (`packets` if omitted; no comparison: the cell exists) |
//! | `wait` | wait until every injected packet has been processed |
//!
//! scenicc extensions (virtual time starts at 0 ns and only moves forward; a `packet` is injected at
//! the current time, and every `every` block and cc timer due by then runs first):
//!
//! | command | meaning |
//! |---|---|
//! | `time <t>` | set virtual time to `t` (ns, or a duration such as `1.5ms`); the test runner reports a time earlier than the current one |
//! | `wait <d>` | advance virtual time by `d` (ns or a duration such as `55us`) |
//! | `event <cc> <flow> <kind> [bytes=<n>] [ecn=<0\|1>] [sample=<d>]` | deliver a congestion signal; kinds `ack cnp ecn loss timeout rtt`; `bytes`/`ecn` only for `ack` (default 0), `sample` required for `rtt` and only there |
//! | `check_rate <cc> <flow> <op> <rate>` | compare a rate controller's output (bit/s, or `40Mbps`) |
//! | `check_window <cc> <flow> <op> <size>` | compare a window controller's output (bytes, or `64KiB`) |
//! | `set_csr <name> <value>` | the host writes a CSR or `param` (`<cc>.<param>` for a cc's param) |
//! | `check_csr <name> <op> <value>` | the host reads a CSR or `param` and compares |
//! | `words <flow> <hex…>` | deliver one message to a stream kernel: its bytes in order, cut into 64-byte words, the last one possibly short (its `beat.keep` marks the valid bytes, `beat.last` is set) |
//! | `expect_dma <out>[<i>] [<hex…>] [$]` | the next word pushed to output `out` (element `i` of an array) matches, as `expect` |
//! | `expect_notify <host\|arm> <value> [from <name>]` | the next notification to that target carries this 32-bit value (and was raised by scu or cc `<name>`) |
//! | `map_write <map> <key> <value>` | the host writes a map entry (scalar key and value) |
//! | `check_map <map> <key> <op> <value>` / `check_map <map> <key> absent` | the host reads a map entry and compares it, or checks that the key is absent |
//!
//! `<op>` is one of `== != < <= > >=`. Values (`<v>`, CSR values) are integers (`42`, `0x2a`,
//! `0b101010`), addresses, `true`/`false`, or for CSRs quantities such as `40Mbps`. Byte order of
//! stream words: byte i of a message is the low byte of its word's byte lane i (`word[8i+7:8i]`),
//! so the hex is written in message order.
//!
//! Every [`Command`] keeps the line and column of its keyword. Errors ([`StfError`]) say where (line
//! and column, both 1-based, columns counted in characters) and what:
//! `line 12, column 8: expected a hexadecimal byte string, found `zz``.

mod event;
mod lex;
mod parse;

pub use crate::value::{ActionCall, Arg, KeyField, MatchValue};
pub use parse::{parse, parse_all};

use crate::value::ValueError;
use std::fmt;

/// A position in an STF file (1-based line and character column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Line number.
    pub line: u32,
    /// Column, in characters.
    pub column: u32,
}

/// One command and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// Position of its keyword.
    pub pos: Pos,
    /// What it does.
    pub kind: CommandKind,
}

/// The commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandKind {
    /// `packet <port> <hex…>`.
    Packet {
        /// Ingress port.
        port: u32,
        /// The packet.
        data: Vec<u8>,
    },
    /// `expect <port> [<hex…>] [$]`.
    Expect {
        /// Egress port.
        port: u32,
        /// What the packet must look like.
        pattern: ExpectPattern,
    },
    /// `no_packet`.
    NoPacket,
    /// `add …`.
    Add(AddEntry),
    /// `setdefault <table> <action>(…)`.
    SetDefault {
        /// The table.
        table: String,
        /// The new default action.
        action: ActionCall,
    },
    /// `remove …`.
    Remove(Removal),
    /// `check_counter …`.
    CheckCounter(CounterCheck),
    /// `wait` without an argument: let every injected packet be processed.
    Wait,
    /// `time <t>`: set virtual time (ns).
    Time {
        /// The new time in ns.
        ns: u64,
    },
    /// `wait <d>`: advance virtual time (ns).
    Advance {
        /// How far, in ns.
        ns: u64,
    },
    /// `event <cc> <flow> <kind> …`.
    Event {
        /// The congestion controller.
        cc: String,
        /// The flow.
        flow: u64,
        /// The signal and its data.
        event: CcEvent,
    },
    /// `check_rate <cc> <flow> <op> <rate>`.
    CheckRate {
        /// The congestion controller.
        cc: String,
        /// The flow.
        flow: u64,
        /// The comparison (`actual op expected`).
        op: CmpOp,
        /// Expected rate in bit/s.
        bps: u64,
    },
    /// `check_window <cc> <flow> <op> <size>`.
    CheckWindow {
        /// The congestion controller.
        cc: String,
        /// The flow.
        flow: u64,
        /// The comparison (`actual op expected`).
        op: CmpOp,
        /// Expected window in bytes.
        bytes: u64,
    },
    /// `set_csr <name> <value>`.
    SetCsr {
        /// The CSR or param.
        name: String,
        /// The value (raw 64-bit word).
        value: u64,
    },
    /// `check_csr <name> <op> <value>`.
    CheckCsr {
        /// The CSR or param.
        name: String,
        /// The comparison (`actual op expected`).
        op: CmpOp,
        /// The expected value.
        value: u64,
    },
    /// `words <flow> <hex…>`: one message for a stream kernel.
    Words {
        /// The flow (or queue pair).
        flow: u64,
        /// The message's bytes (at least one); see [`message_words`].
        data: Vec<u8>,
    },
    /// `expect_dma <out>[<i>] [<hex…>] [$]`: the next word pushed to an output.
    ExpectDma {
        /// The output's name.
        out: String,
        /// The element of an output array.
        index: Option<u32>,
        /// What the word must look like.
        pattern: ExpectPattern,
    },
    /// `expect_notify <host|arm> <value> [from <name>]`: the next notification to a target.
    ExpectNotify {
        /// To the Arm cores (`arm`) or the host (`host`).
        to_arm: bool,
        /// The 32-bit value it carries.
        value: u32,
        /// The scu or cc that must have raised it, if given.
        from: Option<String>,
    },
    /// `map_write <map> <key> <value>`: the host writes a map entry.
    MapWrite {
        /// The map (of the test's scu).
        map: String,
        /// The key.
        key: u64,
        /// The value.
        value: u64,
    },
    /// `check_map <map> <key> <op> <value>` or `check_map <map> <key> absent`.
    CheckMap {
        /// The map (of the test's scu).
        map: String,
        /// The key.
        key: u64,
        /// What the entry must be.
        check: MapCheck,
    },
}

/// What `check_map` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapCheck {
    /// The key is present and `value op expected` holds.
    Compare(CmpOp, u64),
    /// The key is absent.
    Absent,
}

/// The bytes of a stream word.
pub const WORD_BYTES: usize = 64;

/// Cuts a message into stream words of [`WORD_BYTES`] bytes, the last possibly short.
pub fn message_words(data: &[u8]) -> std::slice::Chunks<'_, u8> {
    data.chunks(WORD_BYTES)
}

/// An `add` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddEntry {
    /// The table.
    pub table: String,
    /// The priority, if given.
    pub priority: Option<u32>,
    /// Key matches in the order written (a key not written matches anything).
    pub keys: Vec<KeyField>,
    /// The action and its arguments.
    pub action: ActionCall,
    /// The entry's id (`= id`), for `remove` and `check_counter name($id)`.
    pub id: Option<String>,
}

/// What a `remove` command removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Removal {
    /// `remove all`: every run-time entry of every table.
    Everything,
    /// `remove <table> all`.
    Table(String),
    /// `remove <table> <id>`.
    Entry {
        /// The table.
        table: String,
        /// The entry's id.
        id: String,
    },
}

/// A `check_counter` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterCheck {
    /// The counter.
    pub name: String,
    /// The cell.
    pub index: CounterIndex,
    /// The comparison; `None`: only check that the cell exists.
    pub compare: Option<(Count, CmpOp, u64)>,
}

/// Which cell of a counter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CounterIndex {
    /// A cell index (0 if the command gives none).
    Index(u64),
    /// `$id`: the cell of the entry added with `= id`.
    Entry(String),
}

/// Which count of a counter cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Count {
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
}

/// A comparison operator; checks read `actual op expected`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl CmpOp {
    /// Whether `actual op expected` holds.
    pub fn holds<T: Ord + ?Sized>(self, actual: &T, expected: &T) -> bool {
        match self {
            CmpOp::Eq => actual == expected,
            CmpOp::Ne => actual != expected,
            CmpOp::Lt => actual < expected,
            CmpOp::Le => actual <= expected,
            CmpOp::Gt => actual > expected,
            CmpOp::Ge => actual >= expected,
        }
    }

    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A congestion signal and its data (`docs/language.md` §8.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CcEvent {
    /// An acknowledgement.
    Ack {
        /// Bytes newly acknowledged.
        bytes: u64,
        /// The ACK echoes an ECN mark.
        ecn: bool,
    },
    /// A congestion notification packet.
    Cnp,
    /// An ECN congestion-experienced mark.
    Ecn,
    /// A loss.
    Loss,
    /// A retransmission timeout.
    Timeout,
    /// An RTT sample.
    Rtt {
        /// The sample in ns.
        sample_ns: u64,
    },
    /// The flow sent bytes (drives `on bytes` counters).
    Sent {
        /// Bytes sent.
        bytes: u64,
    },
    /// One hop of INT telemetry carried by an ACK.
    Int(scenic_ir::program::IntHop),
}

/// An expected packet or word: nibbles (`None` = any), and whether the length must match exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExpectPattern {
    /// Nibbles in order, most significant nibble of each byte first.
    pub nibbles: Vec<Option<u8>>,
    /// `$`: the data must have exactly `nibbles.len()` nibbles; otherwise it must only start with
    /// them.
    pub exact: bool,
}

impl ExpectPattern {
    /// The pattern matching exactly `bytes`.
    pub fn exactly(bytes: &[u8]) -> ExpectPattern {
        let nibbles = bytes
            .iter()
            .flat_map(|b| [Some(b >> 4), Some(b & 0xf)])
            .collect();
        ExpectPattern {
            nibbles,
            exact: true,
        }
    }
}

impl fmt::Display for ExpectPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.nibbles {
            match n {
                Some(n) => write!(f, "{n:x}")?,
                None => f.write_str("*")?,
            }
        }
        if self.exact {
            f.write_str("$")?;
        }
        Ok(())
    }
}

/// Why data does not match an [`ExpectPattern`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// A nibble differs.
    #[error("nibble {offset} (byte {byte}, {half} half) differs: expected {expected:x}, got {actual:x}", byte = offset / 2, half = if offset % 2 == 0 { "high" } else { "low" })]
    Nibble {
        /// Index of the first differing nibble.
        offset: usize,
        /// The expected nibble.
        expected: u8,
        /// The actual nibble.
        actual: u8,
    },
    /// The data is shorter than the pattern.
    #[error("too short: expected at least {} nibbles ({} bytes), got {actual_len} bytes", expected_nibbles, expected_nibbles.div_ceil(2))]
    TooShort {
        /// Nibbles in the pattern.
        expected_nibbles: usize,
        /// Length of the data in bytes.
        actual_len: usize,
    },
    /// `$` was given and the data is longer than the pattern.
    #[error("too long: expected exactly {expected_nibbles} nibbles (`$`), got {actual_len} bytes")]
    TooLong {
        /// Nibbles in the pattern.
        expected_nibbles: usize,
        /// Length of the data in bytes.
        actual_len: usize,
    },
}

/// Matches data against a pattern: nibble by nibble (`*` matches any), the data may be longer than
/// the pattern unless it is exact (`$`). Reports the first differing nibble, else the length rule.
pub fn matches(expected: &ExpectPattern, actual: &[u8]) -> Result<(), Mismatch> {
    let nibbles = actual.iter().flat_map(|b| [b >> 4, b & 0xf]);
    for (offset, (want, got)) in expected.nibbles.iter().zip(nibbles).enumerate() {
        if let Some(want) = *want {
            if want != got {
                return Err(Mismatch::Nibble {
                    offset,
                    expected: want,
                    actual: got,
                });
            }
        }
    }
    let (expected_nibbles, actual_len) = (expected.nibbles.len(), actual.len());
    if actual_len * 2 < expected_nibbles {
        return Err(Mismatch::TooShort {
            expected_nibbles,
            actual_len,
        });
    }
    if expected.exact && actual_len * 2 > expected_nibbles {
        return Err(Mismatch::TooLong {
            expected_nibbles,
            actual_len,
        });
    }
    Ok(())
}

/// A malformed STF line: where (1-based line and character column) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StfError {
    /// The first word of a line is not a command.
    #[error("line {line}, column {column}: unknown command `{found}` (expected packet, expect, no_packet, add, setdefault, remove, check_counter, wait, time, event, check_rate, check_window, set_csr, check_csr, words, expect_dma, expect_notify, map_write or check_map)")]
    UnknownCommand {
        /// Line.
        line: u32,
        /// Column.
        column: u32,
        /// The word.
        found: String,
    },
    /// Something else than what the syntax needs.
    #[error("line {line}, column {column}: expected {expected}, found {found}")]
    Expected {
        /// Line.
        line: u32,
        /// Column.
        column: u32,
        /// What was expected.
        expected: &'static str,
        /// What was found: `` `text` `` or "end of line".
        found: String,
    },
    /// A malformed value.
    #[error("line {line}, column {column}: invalid {what} `{text}`: {error}")]
    Value {
        /// Line.
        line: u32,
        /// Column of the problem within the value.
        column: u32,
        /// What the value is ("match value", "port", …).
        what: &'static str,
        /// The value's text.
        text: String,
        /// What is wrong.
        error: ValueError,
    },
    /// Hex data with an odd number of digits where whole bytes are needed.
    #[error("line {line}, column {column}: {digits} hexadecimal digits do not make whole bytes")]
    OddDigits {
        /// Line.
        line: u32,
        /// Column of the data.
        column: u32,
        /// The number of digits.
        digits: usize,
    },
    /// A key, argument or event option given twice.
    #[error("line {line}, column {column}: `{name}` is given twice")]
    Duplicate {
        /// Line.
        line: u32,
        /// Column of the second occurrence.
        column: u32,
        /// The name.
        name: String,
    },
    /// An event option that does not apply to the event.
    #[error("line {line}, column {column}: `{option}=` does not apply to `{event}` events")]
    OptionNotAllowed {
        /// Line.
        line: u32,
        /// Column of the option.
        column: u32,
        /// The option.
        option: String,
        /// The event kind.
        event: &'static str,
    },
    /// An event without a required option.
    #[error("line {line}, column {column}: `{event}` events need `{option}=`")]
    MissingOption {
        /// Line.
        line: u32,
        /// Column of the event kind.
        column: u32,
        /// The option.
        option: &'static str,
        /// The event kind.
        event: &'static str,
    },
}

impl StfError {
    /// Where the error is.
    pub fn pos(&self) -> Pos {
        let (line, column) = match self {
            StfError::UnknownCommand { line, column, .. }
            | StfError::Expected { line, column, .. }
            | StfError::Value { line, column, .. }
            | StfError::OddDigits { line, column, .. }
            | StfError::Duplicate { line, column, .. }
            | StfError::OptionNotAllowed { line, column, .. }
            | StfError::MissingOption { line, column, .. } => (*line, *column),
        };
        Pos { line, column }
    }
}

#[cfg(test)]
pub(crate) mod tests;
