//! The Vitis HLS backend: IR → C++ for one SCU kernel per `scu` (and per `cc`), its testbench, and
//! the Vitis package. A code generator only: the harness that C-simulates the kernels with g++
//! against the reference interpreter is the `scenic-hls-csim` crate (`backend-hls/csim/`), which
//! depends on this one.
//!
//! # How the IR maps to the kernel
//!
//! One top function per `scu`, named after it (the [`namer::Namer`] makes it a legal identifier),
//! free-running (`ap_ctrl_none`), with the ports of [`ports::top_ports`] for its attach point, and
//! `#pragma HLS DATAFLOW` over three stage functions joined by internal streams:
//!
//! - `ingress` reads a packet's beats from `net_in` and its record from `net_in_meta`, keeps the
//!   first `H` beats as the **header window** (`H` from the parser's worst path, [`analysis`]) and
//!   copies every beat into the packet buffer stream. It is store-and-forward: the window goes to
//!   `process` with the packet's length once the last beat is in, because `packet.len`, counters
//!   and meters need the whole length before the control runs.
//! - `process` owns all state (`static state_t st`: CSRs, tables, maps, counters, meters, `every`
//!   due times). Per invocation it serves one control request (`ctrl_in` → `ctrl_out`,
//!   [`scenic_scu_abi::control`]), runs the `every` blocks that are due at `now_ns` (block by block, each
//!   catching up on its missed periods, as the interpreter does), then, if a window is waiting,
//!   runs the parser, the control (or `on parser_error`) and the deparser on one packet and sends
//!   `egress` a descriptor: the new header bytes, how many bytes the parser consumed, and the list
//!   of destinations. Its `PIPELINE II` is the II of `scenic_timing` for the scu's packet path.
//! - `egress` writes, for each destination, the new headers followed by the payload after the
//!   parsed bytes, re-aligned to 64-byte beats (the shift is `new_len − parsed_len`), to
//!   `net_out` (+ `net_out_meta`), `host_out` or `scu_out` (+ `scu_out_meta`); a dropped packet's
//!   beats are read and discarded.
//!
//! Inside `process`, IR bodies become C++ functions over `(state_t& st, pkt_t& pk, params…)`:
//! functions (`fn_*`), actions (`act_*`), table applications (`apply_*`), parser states (`ps_*`),
//! the control, `on parser_error`, the deparser and `every` blocks. `pkt_t` holds one packet's
//! headers (a header is a struct with `valid`; an invalid header's fields are kept at zero, so
//! reads need no check and writes are guarded by `valid`), `meta`, the parser position, the copies
//! requested and the deparser's output. Every local is declared and zero-initialised at the top of
//! its function. Types: `bit<N>` → `ap_uint<N>`, `int<N>` → `ap_int<N>`, `bool` → `bool`, fixed,
//! units, enums, parser errors and table results → `ap_uint<width>` (their bit patterns), structs
//! and headers → structs, arrays → structs holding a C array ([`conv`]). Operators keep the IR's
//! exact widths: every result is cast back to its type, and the cases where C++ differs from the
//! language (division by zero, shifts past the width, saturation, fixed-point scaling) go through
//! `scenic_ops.hpp`.
//!
//! **Evaluation order and stopping.** Expressions with effects (calls, table applications, map
//! and meter operations, `lookahead`) are evaluated into temporaries in the IR's order, left to
//! right, together with every operand evaluated before them. `drop()` and parser errors set
//! `pk.halt`; after anything that may halt, the generated code returns at once, so a statement
//! that called a dropping function is abandoned exactly as in the interpreter.
//!
//! **Tables** are per-table generated structs ([`writer`]): a fully partitioned register CAM whose
//! slots are kept in the interpreter's search order (priority tables: constant entries in source
//! order, then run-time entries by priority number, ties by insertion; lpm tables: longest total
//! prefix first, ties by insertion), so the winner is the first matching slot. A table whose keys
//! are all `exact` and whose size is above 64 slots is a hash in block RAM instead
//! (`scenic::exact_table`, [`writer::tables_exact`]: 3-cycle lookups at any size, as the timing
//! model assumes), with the same host write path and statuses. Maps, counters, meters and hashes
//! come from the support library in `include/` (`scenic_hls.hpp`).
//!
//! # Stream kernels (scus on `rdma(qp)` and `tcp(flow)`)
//!
//! The paragraphs above describe a slow-path scu. An scu on an rdma or tcp attach point sees the
//! payload of its flows one 512-bit word at a time (`ir/interp/src/stream.rs`), on the ports
//! [`ports::top_ports`] lists for it (`word_in` + `word_in_meta` with the flow, `pass_out`,
//! `push_out` + `push_out_meta`, and the common notify/control/clock ports), and its top function
//! runs two stages under `DATAFLOW` ([`writer::stream`], [`writer::stream_stages`]):
//!
//! - `words` owns the state like `process` (control request, `every` blocks, then one word) and
//!   runs the `stream` body once per word under `PIPELINE II=1`. `beat.last`, `beat.keep` and the
//!   flow id are members of `pk.wd`; `for` loops stay C++ loops with `#pragma HLS UNROLL`;
//!   `pass(w)` and `out[i].push(w)` append to per-word buffers sized by counting every `pass` and
//!   `push` with loops unrolled. Passed words leave on `pass_out` with the input's `keep` and
//!   `last`; pushed words go to `dma` in push order, followed by a flush marker after a message's
//!   last word.
//! - `dma` owns two on-chip banks of `batch / 64` words per output element (1 word for an
//!   unbatched output): one fills while the other is sent, one beat and one pushed word per
//!   invocation, so sending a batch never stalls `words`. A full bank is one transfer on
//!   `push_out` (a beat per word, `last` on the final one, a `push_out_meta` record per beat);
//!   the flush marker queues every partly filled bank: the interpreter's batching, transfer for
//!   transfer.
//!
//! Honest limits of a stream kernel ([`writer::stream::plan`]): a body the timing analysis cannot
//! schedule at II 1 (typically an unrolled loop whose copies chain through one map or CSR) is an
//! [`Error::Limit`] naming the object and the II, at the span where the dependency closes; so are
//! more than one word passed on per input word (`pass_out` takes one word per cycle; an unrolled
//! loop can pass twice although each path has one `pass`), more than 256 words pushed per input
//! word, and batch buffers (two banks each) over [`Options::ram_budget_bits`]. A batch that is not a whole number of words, and per-packet code
//! (a parser or control) in an rdma/tcp scu, are [`Error::Unsupported`].
//!
//! **Congestion controllers** get a kernel each ([`writer::cc`], [`writer::cc_kernel`]), named
//! after the `cc`, free-running, with the ports of [`ports::cc_ports`]: congestion signals in on
//! `cc_event_in` (one record per event: kind, flow slot, ECN echo, value, time, INT hop), rate or window
//! updates out on `cc_update_out` (flow slot, value), and the common control, notify and clock
//! ports. Per-flow state lives in block RAM indexed by the flow's slot (`flow_t flows[N]`,
//! `AGGREGATE`d, `BIND_STORAGE ram_2p`; URAM when it is large), next to each flow's timer due
//! times and byte counts (partitioned by timer) and a started bit; params are `state_t` members
//! read and written as CSRs (target = the param's position) through [`scenic_scu_abi::control`]. An
//! event fires its own flow's timers due by its time (in due order, catching up), or starts the
//! flow if new (state at its initialisers, timers one period out), then runs its handler in
//! `dispatch`, whose `PIPELINE II` is the largest handler II of [`scenic_timing`]; `sent`
//! bytes run each byte counter's handler once per period reached. Other flows' timers fire in
//! the idle scan over the flow slots, which also runs before any param write, so every handler
//! sees the params it sees in the interpreter.
//! Handlers are written by the same body writer as scu code, with `pk.fs` (the flow's record)
//! for state and `pk.restart` for `restart`, applied when the handler returns. After every
//! handler run and every event the flow's output goes to `cc_update_out`. A cc whose per-flow
//! memory exceeds [`Options::ram_budget_bits`], or a handler whose cycles (its latency, at least
//! the kernel's II) exceed its `budget`, is an [`Error::Limit`] ([`writer::limits::check_cc`]).
//!
//! Comments `// file.sn:LINE` point each statement back to its source ([`SourceLines`]).

#![deny(missing_docs)]

pub mod analysis;
pub mod conv;
pub mod keywords;
pub mod namer;
pub mod package;
pub mod ports;
pub mod writer;

use scenic_ir::{Module, ModuleInfo, Span};
use std::collections::BTreeMap;

/// What the backend generates for, and the limits it checks against.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Clock, datapath width, line rate and MTU (shared with the timing analysis): 391 MHz, 512
    /// bits, 200 Gb/s, 4178 B.
    pub timing: scenic_timing::Options,
    /// The FPGA part, for `run_hls.tcl` and reports.
    pub part: String,
    /// The largest packet a kernel buffers, in bytes (jumbo frames: 9216).
    pub max_packet_bytes: u32,
    /// The deepest header window, in 512-bit beats (a parser that can read further is an error).
    pub max_window_beats: u32,
    /// Flip-flops the kernel's register CAMs may use (U55C: 2,607,360 in total).
    pub register_budget_bits: u64,
    /// On-chip RAM bits (BRAM + URAM) maps and large tables may use (U55C: 70.9 Mb BRAM +
    /// 270 Mb URAM).
    pub ram_budget_bits: u64,
    /// Source text lines, for `// file.sn:LINE` comments; without them comments name byte offsets.
    pub sources: SourceLines,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            timing: scenic_timing::Options::default(),
            part: "xcu55c-fsvh2892-2L-e".into(),
            max_packet_bytes: 9216,
            max_window_beats: 8,
            register_budget_bits: 2_607_360,
            ram_budget_bits: 2016 * 36 * 1024 + 960 * 288 * 1024,
            sources: SourceLines::default(),
        }
    }
}

/// Where each line of each source file starts, to turn spans into `file:line`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLines {
    files: BTreeMap<u32, (String, Vec<u32>)>,
}

impl SourceLines {
    /// Adds file `id` (the frontend's `FileId`) with its name and text.
    pub fn add(&mut self, id: u32, name: &str, text: &str) {
        let mut starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i as u32 + 1);
            }
        }
        let short = std::path::Path::new(name)
            .file_name()
            .map_or(name.to_string(), |f| f.to_string_lossy().into_owned());
        self.files.insert(id, (short, starts));
    }

    /// `file.sn:LINE` for a span, if it points at a known file.
    pub fn locate(&self, span: Span) -> Option<String> {
        if !span.is_known() {
            return None;
        }
        let (name, starts) = self.files.get(&span.file.0)?;
        let line = starts.partition_point(|s| *s <= span.lo);
        Some(format!("{name}:{line}"))
    }
}

/// What cannot be generated, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A construct this backend does not implement (yet), with its span.
    #[error("the HLS backend cannot generate {what} (scu `{scu}`)")]
    Unsupported {
        /// The scu.
        scu: String,
        /// The construct.
        what: String,
        /// Where it is.
        span: Span,
    },
    /// Something too big for the hardware at line rate: the figure and the limit.
    #[error("{what} in scu `{scu}` needs {figure}, over the limit of {limit}")]
    Limit {
        /// The scu.
        scu: String,
        /// The construct (`table \`routes\` (a register CAM)`).
        what: String,
        /// What it needs (`1,843,200 flip-flops`).
        figure: String,
        /// The limit (`2,607,360 flip-flops (Options::register_budget_bits)`).
        limit: String,
        /// Where it is.
        span: Span,
    },
    /// The module has neither an scu nor a cc to make a kernel of.
    #[error("the program has no scu and no cc: there is no kernel to generate")]
    NoScu,
    /// The scu asked for does not exist.
    #[error("the program has no scu named `{0}`")]
    NoSuchScu(String),
}

impl Error {
    /// The span the error points at, if any.
    pub fn span(&self) -> Option<Span> {
        match self {
            Error::Unsupported { span, .. } | Error::Limit { span, .. } => Some(*span),
            Error::NoScu | Error::NoSuchScu(_) => None,
        }
    }
}

/// The generated files of one scu's kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The scu's name.
    pub scu: String,
    /// The top function's name (`<kernel>_hls_ip` in Coyote).
    pub top: String,
    /// `<top>.hpp`: port types and the top function's declaration.
    pub hpp: String,
    /// `<top>.cpp`: the kernel.
    pub cpp: String,
    /// `<top>_tb.cpp`: the C-simulation testbench (line protocol on stdin/stdout).
    pub tb: String,
    /// The top function's ports.
    pub ports: Vec<ports::Port>,
    /// The `PIPELINE II` requested for `process`.
    pub ii: u32,
    /// The header window, in beats.
    pub window_beats: u32,
}

impl Kernel {
    /// The file names and contents of the kernel (`<top>.hpp`, `<top>.cpp`, `<top>_tb.cpp`).
    pub fn files(&self) -> Vec<(String, &str)> {
        vec![
            (format!("{}.hpp", self.top), self.hpp.as_str()),
            (format!("{}.cpp", self.top), self.cpp.as_str()),
            (format!("{}_tb.cpp", self.top), self.tb.as_str()),
        ]
    }
}

/// Everything generated for a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelFiles {
    /// One kernel per scu, in declaration order.
    pub kernels: Vec<Kernel>,
    /// One kernel per cc, in declaration order ([`writer::cc`]; `Kernel::scu` holds the cc's
    /// name, `window_beats` is 0).
    pub ccs: Vec<Kernel>,
    /// Headers every kernel includes besides the support library (`scenic_ops.hpp`).
    pub support: Vec<(String, String)>,
    /// The host control interface the kernels decode.
    pub control: scenic_scu_abi::control::ControlLayout,
}

/// `scenic_ops.hpp`, the IR's operators on `ap_[u]int` values.
pub const SCENIC_OPS_HPP: &str = include_str!("../cpp/scenic_ops.hpp");
/// Our `hls_stream.h` shim.
pub const SHIM_HLS_STREAM_H: &str = include_str!("../shims/hls_stream.h");
/// Our `ap_axi_sdata.h` shim.
pub const SHIM_AP_AXI_SDATA_H: &str = include_str!("../shims/ap_axi_sdata.h");

/// Generates the kernel of every scu of a validated module.
pub fn write_kernel(
    module: &Module,
    info: &ModuleInfo,
    options: &Options,
) -> Result<KernelFiles, Error> {
    if module.scus.is_empty() && module.ccs.is_empty() {
        return Err(Error::NoScu);
    }
    let control = scenic_scu_abi::control::ControlLayout::new(module, info);
    let timing = scenic_timing::analyze(module, &options.timing);
    let kernels = module
        .scus
        .keys()
        .map(|scu| writer::write_scu(module, info, options, &control, &timing, scu))
        .collect::<Result<Vec<_>, _>>()?;
    let ccs = module
        .ccs
        .keys()
        .map(|cc| writer::cc::write_cc(module, info, options, &control, &timing, cc))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(KernelFiles {
        kernels,
        ccs,
        support: vec![("scenic_ops.hpp".into(), SCENIC_OPS_HPP.into())],
        control,
    })
}

/// Generates the kernel of the scu (or cc) named `name` only.
pub fn write_one(
    module: &Module,
    info: &ModuleInfo,
    options: &Options,
    name: &str,
) -> Result<Kernel, Error> {
    let control = scenic_scu_abi::control::ControlLayout::new(module, info);
    let timing = scenic_timing::analyze(module, &options.timing);
    if let Some((cc, _)) = module.ccs.iter().find(|(_, c)| c.name == name) {
        return writer::cc::write_cc(module, info, options, &control, &timing, cc);
    }
    let scu = module
        .scus
        .iter()
        .find(|(_, s)| s.name == name)
        .map(|(id, _)| id)
        .ok_or_else(|| Error::NoSuchScu(name.into()))?;
    writer::write_scu(module, info, options, &control, &timing, scu)
}
