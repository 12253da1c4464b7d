//! Table-entry files: the JSON that `scenicc sim --entries E.json` loads before the first packet,
//! parsed ([`parse`]) into [`Entries`].
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "tables": {
//!     "acl": [
//!       { "priority": 10,
//!         "key": { "ip.src": "10.0.0.0/8",
//!                  "ip.dst": { "value": "0x0a000001", "mask": "0xffffffff" },
//!                  "tcp.dst_port": { "range": [22, 22] } },
//!         "action": "limit", "args": { "class": 3 } }
//!     ],
//!     "route": {
//!       "entries": [ { "key": { "ip.dst": "10.1.0.0/16" }, "action": "forward", "args": { "port": 2 } } ],
//!       "default": { "action": "forward", "args": { "port": 1 } }
//!     }
//!   },
//!   "csrs": { "default_rate_mbps": 50000, "aimd.min_cwnd": "8KiB" }
//! }
//! ```
//!
//! - `format_version` (required) is 1. Unknown fields anywhere are errors, so typos do not go
//!   unnoticed; so are names given twice.
//! - `tables` maps a table name to either a list of entries or an object with `entries` (a list)
//!   and/or `default` (`{"action": …, "args": …}`, replacing the default action).
//! - An entry has `key` (key name → match; keys left out match anything), `action` (required),
//!   `args` (parameter name → value; default none) and `priority` (optional, for ternary and range
//!   tables).
//! - A match is a string in the [`value`](crate::value) grammar (`"42"`, `"0x2a"`,
//!   `"10.0.0.0/8"`, `"0x0a****01"`, `"0x0a&&&0xff"`, `"7000..=7099"`, `"_"`, addresses), a JSON
//!   number (exact), `true`/`false` (exact 1/0), `null` (any), or an object: `{"value", "mask"}`
//!   (ternary), `{"value", "prefix_len"}` (longest prefix), `{"range": [lo, hi]}` (inclusive).
//! - Values (arguments, match parts) are non-negative integers: JSON numbers up to 2^53 (larger ones
//!   are not exact in every JSON implementation: write them as strings), decimal/hex/binary strings,
//!   addresses, booleans.
//! - `csrs` maps a CSR or param name (`<cc>.<param>` for a cc's param) to a 64-bit value: a number,
//!   or a string that may also be a quantity such as `"40Mbps"` or `"55us"` (base units).
//!
//! Names are kept as written; matching them to a program's tables, keys, actions and CSRs is the
//! interpreter's job. Errors ([`EntriesError`]) give the JSON line and column (as serde_json reports
//! them: just after the offending value) and a path such as `tables.acl[2].key."ip.dst"`.

use crate::value::{parse_match, parse_scalar, parse_uint, ValueError};
pub use crate::value::{ActionCall, Arg, KeyField, MatchValue};
use indexmap::IndexMap;
use num_bigint::BigUint;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt;

/// The only format version.
pub const FORMAT_VERSION: u64 = 1;

/// The largest integer accepted as a JSON number (2^53).
pub const MAX_JSON_INTEGER: u64 = 1 << 53;

/// A parsed entries file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entries {
    /// Entries and defaults per table, in file order.
    pub tables: IndexMap<String, TableEntries>,
    /// CSR and param values, in file order.
    pub csrs: IndexMap<String, u64>,
}

/// What the file sets for one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableEntries {
    /// Entries to add, in order.
    pub entries: Vec<Entry>,
    /// The new default action, if any.
    pub default: Option<ActionCall>,
}

/// One table entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The priority, if given.
    pub priority: Option<u32>,
    /// Key matches in file order.
    pub keys: Vec<KeyField>,
    /// The action and its arguments.
    pub action: ActionCall,
    /// Where the entry is, e.g. `tables.acl[2]`, for later error messages.
    pub path: String,
}

/// A malformed entries file: where (JSON line and column, 1-based, and a path) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct EntriesError {
    /// Line.
    pub line: usize,
    /// Column.
    pub column: usize,
    /// Path to the value at fault, such as `tables.acl[2].key."ip.dst"` (empty: the document).
    pub path: String,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for EntriesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: ", self.line, self.column)?;
        if !self.path.is_empty() {
            write!(f, "at {}: ", self.path)?;
        }
        write!(f, "{}", self.problem)
    }
}

/// What is wrong in an entries file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// JSON syntax, or a value of the wrong JSON type (serde_json's message, without position).
    #[error("{0}")]
    Json(String),
    /// A field this format does not have.
    #[error("unknown field `{found}` (expected {expected})")]
    UnknownField {
        /// The field.
        found: String,
        /// The fields allowed there.
        expected: &'static str,
    },
    /// A required field is missing.
    #[error("missing field `{0}`")]
    MissingField(&'static str),
    /// A name given twice in one object.
    #[error("`{0}` is given twice")]
    Duplicate(String),
    /// A `format_version` other than 1.
    #[error("unsupported format_version {0} (expected 1)")]
    Version(BigUint),
    /// A malformed value string.
    #[error("invalid value `{text}`: {error}")]
    Value {
        /// The string.
        text: String,
        /// What is wrong.
        error: ValueError,
    },
    /// A JSON number that is negative, fractional, or above 2^53.
    #[error("{0} is not an integer from 0 to 2^53; write larger integers as strings")]
    Number(String),
    /// An integer too wide for its field.
    #[error("{value} does not fit in {bits} bits")]
    TooLarge {
        /// The value.
        value: BigUint,
        /// The field's width.
        bits: u32,
    },
    /// A match object with a combination of fields that is not one of the forms.
    #[error("a match object is {{\"value\", \"mask\"}}, {{\"value\", \"prefix_len\"}} or {{\"range\": [lo, hi]}}")]
    MatchObject,
    /// A range whose bounds are reversed.
    #[error("range bounds are reversed ({lo} > {hi})")]
    ReversedRange {
        /// The lower bound.
        lo: BigUint,
        /// The upper bound.
        hi: BigUint,
    },
}

/// Parses an entries file.
pub fn parse(text: &str) -> Result<Entries, EntriesError> {
    let ctx = Ctx::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let result = Doc(&ctx)
        .deserialize(&mut de)
        .and_then(|doc| de.end().map(|()| doc));
    result.map_err(|e| {
        let (path, problem) = ctx.failure.take().unwrap_or_else(|| {
            let message = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let message = message
                .strip_suffix(&suffix)
                .unwrap_or(&message)
                .to_string();
            (ctx.path(), Problem::Json(message))
        });
        EntriesError {
            line: e.line(),
            column: e.column(),
            path,
            problem,
        }
    })
}

/// A segment of a path.
enum Seg {
    Field(String),
    Index(usize),
}

/// The walk's state: the path to the current value and the first failure.
#[derive(Default)]
struct Ctx {
    path: RefCell<Vec<Seg>>,
    failure: RefCell<Option<(String, Problem)>>,
}

impl Ctx {
    fn enter(&self, seg: Seg) {
        self.path.borrow_mut().push(seg);
    }

    fn leave(&self) {
        self.path.borrow_mut().pop();
    }

    fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.path.borrow().iter() {
            match seg {
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
                Seg::Field(f) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    if !f.is_empty() && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        out.push_str(f);
                    } else {
                        out.push_str(&format!("{f:?}"));
                    }
                }
            }
        }
        out
    }

    /// Records a problem at the current path; serde_json adds the position to the returned error.
    fn fail<E: de::Error>(&self, problem: Problem) -> E {
        let mut failure = self.failure.borrow_mut();
        if failure.is_none() {
            *failure = Some((self.path(), problem));
        }
        E::custom("invalid entries file")
    }

    /// Visits the fields of an object, checking for duplicates and keeping the path.
    fn fields<'de, A: MapAccess<'de>>(
        &self,
        map: &mut A,
        mut f: impl FnMut(&mut A, &str) -> Result<(), A::Error>,
    ) -> Result<(), A::Error> {
        let mut seen: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            self.enter(Seg::Field(key.clone()));
            if seen.contains(&key) {
                return Err(self.fail(Problem::Duplicate(key)));
            }
            f(map, &key)?;
            seen.push(key);
            self.leave();
        }
        Ok(())
    }

    /// Visits the elements of a list, keeping the path.
    fn elements<'de, A: SeqAccess<'de>, T>(
        &self,
        seq: &mut A,
        mut f: impl FnMut(&mut A) -> Result<Option<T>, A::Error>,
    ) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        loop {
            self.enter(Seg::Index(out.len()));
            let Some(v) = f(seq)? else { break };
            out.push(v);
            self.leave();
        }
        self.leave();
        Ok(out)
    }

    fn unknown<E: de::Error>(&self, found: &str, expected: &'static str) -> E {
        self.fail(Problem::UnknownField {
            found: found.to_string(),
            expected,
        })
    }

    /// Checks that a required field was present.
    fn required<T, E: de::Error>(&self, v: Option<T>, field: &'static str) -> Result<T, E> {
        v.ok_or_else(|| self.fail(Problem::MissingField(field)))
    }
}

/// Implements `DeserializeSeed` for a visitor by asking serde_json for any value.
macro_rules! seed {
    ($($ty:ident),*) => {$(
        impl<'de> DeserializeSeed<'de> for $ty<'_> {
            type Value = <Self as Visitor<'de>>::Value;
            fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    )*};
}

mod visitors;
use visitors::Doc;

#[cfg(test)]
mod tests;
