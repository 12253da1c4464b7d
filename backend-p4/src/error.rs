//! Why a program cannot be written as P4: one [`Error`] per construct, with its span, the target,
//! the reason and what to do instead.
//!
//! Errors carry IR spans (file and byte range); the CLI turns them into the compiler's ordinary
//! diagnostics (`error[P0003]: ...`, `--> file.sn:12:5`, a label, notes and a help line), so this
//! crate needs nothing from the frontend. The `P` codes are this backend's own and are listed in
//! `docs/p4.md`; they are not in the frontend's catalogue because `scenicc check` never reports them
//! (`docs/language.md` §11.9: target limits are found when building for the target).

use crate::Target;
use scenic_ir::span::Span;
use scenic_ir::MapKind;
use std::fmt;

/// A construct some P4 target cannot express.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Construct {
    /// A congestion controller (`cc`).
    CongestionController {
        /// Its name.
        name: String,
    },
    /// A `stream` kernel over payload words, or an scu on `rdma`/`tcp`.
    StreamKernel {
        /// The scu.
        scu: String,
    },
    /// A map.
    Map {
        /// Its name.
        name: String,
        /// Its kind.
        kind: MapKind,
    },
    /// A token-bucket meter.
    Meter {
        /// Its name.
        name: String,
    },
    /// An `every` block.
    Every,
    /// `notify(...)`.
    Notify,
    /// `to_scu(...)`.
    ToScu,
    /// A CSR the program writes other than by adding 1 to a 64-bit counter (Vitis).
    CsrWritten {
        /// Its name.
        name: String,
    },
    /// A CSR read in the parser (v1model registers live in the ingress control).
    CsrInParser {
        /// Its name.
        name: String,
    },
    /// `packet.timestamp` (v1model).
    Timestamp,
    /// `/` or `%` by something other than a power of two.
    Division {
        /// `%` rather than `/`.
        remainder: bool,
        /// On `int<N>` operands.
        signed: bool,
    },
    /// A value of a signed type (Vitis).
    SignedInteger,
    /// A hash function the target does not have.
    Hash {
        /// `hash::crc32`, ...
        name: &'static str,
    },
    /// An array value.
    Array,
    /// A header-stack element chosen at run time.
    RuntimeIndex,
    /// A second destination for one packet (P4 sends a packet to one place).
    SeveralDestinations,
    /// A parser select whose cases overlap (Vitis).
    OverlappingSelect {
        /// The state.
        state: String,
    },
    /// A parser state reading a header that may be invalid there.
    MaybeInvalidInParser {
        /// The header instance.
        header: String,
    },
    /// A computation a parser state would need a branch for (`min`, `max`, a guarded division).
    ParserComputation {
        /// What it is.
        what: &'static str,
    },
    /// An `emit` under a condition.
    ConditionalEmit,
    /// A deparser statement that changes a header after it was emitted.
    WriteAfterEmit {
        /// The header instance.
        header: String,
    },
}

impl Construct {
    /// The diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            Construct::CongestionController { .. } => "P0001",
            Construct::StreamKernel { .. } => "P0002",
            Construct::Map { .. } => "P0003",
            Construct::Meter { .. } => "P0004",
            Construct::Every => "P0005",
            Construct::Notify => "P0006",
            Construct::ToScu => "P0007",
            Construct::CsrWritten { .. } => "P0008",
            Construct::CsrInParser { .. } => "P0009",
            Construct::Timestamp => "P0010",
            Construct::Division { .. } => "P0011",
            Construct::SignedInteger => "P0012",
            Construct::Hash { .. } => "P0013",
            Construct::Array => "P0014",
            Construct::RuntimeIndex => "P0015",
            Construct::SeveralDestinations => "P0016",
            Construct::OverlappingSelect { .. } => "P0017",
            Construct::MaybeInvalidInParser { .. } | Construct::ParserComputation { .. } => "P0018",
            Construct::ConditionalEmit | Construct::WriteAfterEmit { .. } => "P0019",
        }
    }

    /// The construct, as the headline names it.
    pub fn what(&self) -> String {
        match self {
            Construct::CongestionController { name } => format!("congestion controller `{name}`"),
            Construct::StreamKernel { scu } => format!("the payload stream of scu `{scu}`"),
            Construct::Map { name, kind } => format!("{} map `{name}`", map_kind(*kind)),
            Construct::Meter { name } => format!("meter `{name}`"),
            Construct::Every => "an `every` block".into(),
            Construct::Notify => "`notify`".into(),
            Construct::ToScu => "`to_scu`".into(),
            Construct::CsrWritten { name } => format!("CSR `{name}`, written by the program"),
            Construct::CsrInParser { name } => format!("CSR `{name}`, read in the parser"),
            Construct::Timestamp => "`packet.timestamp`".into(),
            Construct::Division { remainder, signed } => format!(
                "{}`{}`{}",
                if *signed { "signed " } else { "" },
                if *remainder { "%" } else { "/" },
                if *signed {
                    ""
                } else {
                    " by a value that is not a power of two"
                }
            ),
            Construct::SignedInteger => "a signed integer (`int<N>`)".into(),
            Construct::Hash { name } => format!("`{name}`"),
            Construct::Array => "an array".into(),
            Construct::RuntimeIndex => "a header-stack element chosen at run time".into(),
            Construct::SeveralDestinations => "a second destination for one packet".into(),
            Construct::OverlappingSelect { state } => {
                format!("overlapping select cases in parser state `{state}`")
            }
            Construct::MaybeInvalidInParser { header } => {
                format!("a read of header `{header}`, which may be invalid here")
            }
            Construct::ParserComputation { what } => format!("{what} in a parser state"),
            Construct::ConditionalEmit => {
                "an `emit` under a condition, or a `return` before one".into()
            }
            Construct::WriteAfterEmit { header } => {
                format!("a change to header `{header}` after it was emitted")
            }
        }
    }

    /// Why the target cannot express it.
    pub fn why(&self, target: Target) -> String {
        match self {
            Construct::CongestionController { .. } => "P4 describes packet pipelines; a congestion controller's per-flow state, timers and rate or window output have no P4 equivalent".into(),
            Construct::StreamKernel { .. } => "P4 parses and rewrites headers; it has no kernel over a flow's payload words (RDMA and TCP payload streams)".into(),
            Construct::Map { kind: MapKind::Array, .. } if target == Target::V1Model => "a v1model register could hold an array map, but this backend does not lower maps yet".into(),
            Construct::Map { .. } => format!("{target} has no key-value store the data path can insert into: tables are written only by the control plane"),
            Construct::Meter { .. } => "P4 meters are two-rate three-colour meters (RFC 2698) that colour packets; scenic meters are single-rate token buckets in bytes that answer `exceeds`, so the results would differ".into(),
            Construct::Every => "P4 programs run per packet; nothing runs on a timer between packets".into(),
            Construct::Notify => format!("{target} has no interrupt to the host or the Arm cores"),
            Construct::ToScu => "the P4 program is one SCU: it cannot hand a copy to another SCU".into(),
            Construct::CsrWritten { .. } => "Vitis Networking P4 (2023.1) has no register extern the program can read back; CSRs become user-metadata inputs, and a CSR the program writes can only be a 64-bit `Counter` when every write adds 1 to it, it starts at 0 and nothing else reads it".into(),
            Construct::CsrInParser { .. } => "CSRs are v1model registers of the ingress control, which the parser cannot read".into(),
            Construct::Timestamp => "bmv2's `ingress_global_timestamp` counts microseconds of bmv2's own clock, not the nanoseconds of `packet.timestamp`".into(),
            Construct::Division { signed: true, .. } => "P4_16 defines `/` and `%` only on unsigned values".into(),
            Construct::Division { .. } => "Vitis Networking P4 has no `/` and `%` operators".into(),
            Construct::SignedInteger => "Vitis Networking P4 supports only unsigned `bit<N>` integers".into(),
            Construct::Hash { name } if name.starts_with("hash::crc") => "Vitis Networking P4's `Checksum` extern does not document its CRC parameters (reflection, initial value), so its result cannot be promised to equal scenic's".into(),
            Construct::Hash { .. } => format!("{target} has no such hash function"),
            Construct::Array => "P4_16 has no arrays of values (only header stacks)".into(),
            Construct::RuntimeIndex => "this backend writes header-stack elements with constant indices only".into(),
            Construct::SeveralDestinations => "a P4 pipeline sends each packet to one place (one egress port, or the host); copies need multicast or clone configuration outside the program".into(),
            Construct::OverlappingSelect { .. } => "Vitis Networking P4 does not support `select` statements whose cases overlap".into(),
            Construct::MaybeInvalidInParser { .. } => "reading a field of an invalid header gives 0 in scenic but an unspecified value in P4, and a P4 parser cannot test validity before reading".into(),
            Construct::ParserComputation { .. } => "a P4 parser state can only branch by `select`, and this computation needs a branch".into(),
            Construct::ConditionalEmit => "a P4 deparser emits headers in a fixed order; whether a header is emitted is decided by its validity".into(),
            Construct::WriteAfterEmit { .. } => "the deparser's computations run before its emits in P4, so a change after an emit would reach the wire".into(),
        }
    }

    /// What the programmer can do instead.
    pub fn instead(&self, target: Target) -> String {
        match self {
            Construct::CongestionController { .. } | Construct::StreamKernel { .. } | Construct::Every | Construct::Notify | Construct::ToScu => {
                "build it with `--target hls`".into()
            }
            Construct::Map { .. } => "keep per-flow state in a table the host fills, or build with `--target hls`".into(),
            Construct::Meter { .. } => "build with `--target hls`, or police in the host".into(),
            Construct::CsrWritten { .. } => "count with a `counter` instead, or build with `--target v1model` (registers) or `--target hls`".into(),
            Construct::CsrInParser { .. } => "read the CSR in the control instead, or build with `--target vitis-p4` or `--target hls`".into(),
            Construct::Timestamp => "build with `--target vitis-p4` (the shell's timestamp in user metadata) or `--target hls`".into(),
            Construct::Division { signed: false, .. } if target == Target::VitisP4 => "divide by a power of two (it becomes a shift or a mask), or build with `--target v1model` or `--target hls`".into(),
            Construct::Division { .. } => "use unsigned operands, or build with `--target hls`".into(),
            Construct::SignedInteger => "use `bit<N>` values, or build with `--target v1model` or `--target hls`".into(),
            Construct::Hash { .. } if target == Target::VitisP4 => "compute the hash in the host or build with `--target v1model` (CRCs) or `--target hls`".into(),
            Construct::Hash { .. } => "build with `--target hls`".into(),
            Construct::Array => "use separate variables or struct fields, or build with `--target hls`".into(),
            Construct::RuntimeIndex => "index with a constant (loops are unrolled, so a loop variable is a constant), or build with `--target hls`".into(),
            Construct::SeveralDestinations => "send each packet to one destination on every path, or build with `--target hls`".into(),
            Construct::OverlappingSelect { .. } => "write the cases so that no value matches two of them (for example test one field per state), or build with `--target v1model`".into(),
            Construct::MaybeInvalidInParser { .. } => "copy the value into `meta` where the header is extracted, or test the header in the control".into(),
            Construct::ParserComputation { .. } => "compute it in the control, or select on the operands".into(),
            Construct::ConditionalEmit => "emit unconditionally and make the header invalid in the control when it must not be sent".into(),
            Construct::WriteAfterEmit { .. } => "change the header before its `emit`".into(),
        }
    }

    /// The text of the primary label.
    pub fn label(&self, target: Target) -> String {
        match self {
            Construct::SeveralDestinations => {
                "a packet that already has a destination is sent here too".into()
            }
            _ => format!("not expressible in {target}"),
        }
    }
}

fn map_kind(kind: MapKind) -> &'static str {
    match kind {
        MapKind::Array => "array",
        MapKind::Hash => "hash",
        MapKind::LruHash => "lru_hash",
    }
}

/// Why a program was not written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A construct the target cannot express.
    #[error("{target} cannot express {}", construct.what())]
    Unsupported {
        /// What.
        construct: Construct,
        /// The target asked for.
        target: Target,
        /// Where it is written.
        span: Span,
        /// Other places that explain it (e.g. the first destination), with labels.
        related: Vec<(Span, String)>,
    },
    /// The module has no scu (P4 programs are per-packet pipelines).
    #[error("`{file}` has no scu to write as P4")]
    NoScu {
        /// The source file.
        file: String,
    },
    /// Several scus and none chosen.
    #[error("`{file}` has {} scus ({}); P4 programs hold one: choose one", names.len(), names.join(", "))]
    SeveralScus {
        /// The source file.
        file: String,
        /// Their names.
        names: Vec<String>,
    },
    /// The scu asked for does not exist.
    #[error("`{file}` has no scu named `{name}` (it has {})", names.join(", "))]
    UnknownScu {
        /// The source file.
        file: String,
        /// The name asked for.
        name: String,
        /// The scus there are.
        names: Vec<String>,
    },
    /// A bug in scenicc: the IR failed validation after the backend's passes.
    #[error("internal compiler error in the P4 backend: {0}")]
    Internal(String),
}

impl Error {
    /// The diagnostic code (`P0003`); selection and internal errors have `P0020` and `P0099`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Unsupported { construct, .. } => construct.code(),
            Error::NoScu { .. } | Error::SeveralScus { .. } | Error::UnknownScu { .. } => "P0020",
            Error::Internal(_) => "P0099",
        }
    }

    /// Where the problem is, when it is somewhere in the source.
    pub fn span(&self) -> Option<Span> {
        match self {
            Error::Unsupported { span, .. } if span.is_known() => Some(*span),
            _ => None,
        }
    }

    /// The primary label's text.
    pub fn label(&self) -> String {
        match self {
            Error::Unsupported {
                construct, target, ..
            } => construct.label(*target),
            _ => String::new(),
        }
    }

    /// Secondary labels.
    pub fn related(&self) -> &[(Span, String)] {
        match self {
            Error::Unsupported { related, .. } => related,
            _ => &[],
        }
    }

    /// `= note:` lines: why the target cannot express it.
    pub fn notes(&self) -> Vec<String> {
        match self {
            Error::Unsupported {
                construct, target, ..
            } => vec![construct.why(*target)],
            Error::Internal(_) => {
                vec!["this is a bug in scenicc; please report it with the program".into()]
            }
            _ => Vec::new(),
        }
    }

    /// `= help:` lines: what to do instead.
    pub fn help(&self) -> Vec<String> {
        match self {
            Error::Unsupported {
                construct, target, ..
            } => vec![construct.instead(*target)],
            Error::SeveralScus { names, .. } | Error::UnknownScu { names, .. } => {
                vec![format!(
                    "pass `--scu NAME` with one of: {}",
                    names.join(", ")
                )]
            }
            _ => Vec::new(),
        }
    }
}

/// Every reason a program was not written, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Errors(pub Vec<Error>);

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, err) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{err}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}

impl From<Error> for Errors {
    fn from(err: Error) -> Errors {
        Errors(vec![err])
    }
}
