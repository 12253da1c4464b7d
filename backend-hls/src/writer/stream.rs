//! Stream kernels: the kernel of an scu on `rdma(qp)` or `tcp(flow)`, which sees the payload of
//! the flows steered to it one 512-bit word at a time (`ir/interp/src/stream.rs` is the golden
//! semantics).
//!
//! This module owns what differs from a slow-path kernel: the [`StreamPlan`] (how many words one
//! input word can pass on and push, and the DMA slots with their batch buffers), the honest limits
//! of a stream kernel, `word_t` (the payload word's context inside `pkt_t`: `beat.last`,
//! `beat.keep`, the flow, and the words passed and pushed so far), and the C++ of the IR's stream
//! constructs (`beat`, the flow id, `pass`, `push`), which the shared expression and statement
//! writers delegate here. The stages and the top function are in [`super::stream_stages`].
//!
//! Invariants: one invocation of the stream body handles exactly one word, at II 1 (a body the
//! timing analysis cannot schedule at II 1 is an [`Error::Limit`], and so is a body that can pass
//! on more than one word per input word); `wd.npass <= MAX_PASS` and
//! `wd.npush <= MAX_PUSH` always hold, because both bounds come from [`Tally`] over the body with
//! every `for` loop counted unrolled; DMA slot `k` is element `k - base(out)` of output `out`,
//! slots numbered in declaration order; every batch is a whole number of 64-byte words, and two
//! banks of it per slot fit in [`Options::ram_budget_bits`].

use super::body::BodyWriter;
use super::names::Names;
use super::{Code, ScuWriter};
use crate::analysis::{Halts, Measure, Tally};
use crate::{Error, Kernel, Options};
use scenic_ir::body::{BeatField, Expr, Stmt};
use scenic_ir::entities::{ExprId, ScuId};
use scenic_ir::program::{Attach, Scu};
use scenic_ir::{Module, ModuleInfo, Span};
use scenic_scu_abi::control::ControlLayout;
use scenic_timing::{BodyKind, TimingReport};

/// Most words one input word may pass on or push (a bound on the per-word buffers).
const MAX_WORDS_PER_WORD: u64 = 256;

/// One DMA slot: an element of an output (array), with its batch buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The output, in declaration order.
    pub out: u32,
    /// The element of an output array (0 otherwise).
    pub element: u32,
    /// Words per transfer (`batch / 64`; 1 for an unbatched output).
    pub words: u32,
    /// The slot's first word in the kernel's flat batch buffer.
    pub base: u32,
}

/// The sizes a stream kernel is built with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamPlan {
    /// Most words one input word passes on (at least 1, so the buffer is never empty).
    pub max_pass: u32,
    /// Most words one input word pushes (at least 1).
    pub max_push: u32,
    /// Every DMA slot, outputs in declaration order, elements in order.
    pub slots: Vec<Slot>,
    /// Words in one bank of every slot together (the kernel keeps two banks per slot).
    pub buffer_words: u32,
    /// The II the stream body was scheduled at (1, or an error).
    pub ii: u32,
}

fn limit(scu: &Scu, what: String, figure: String, limit: String, span: Span) -> Error {
    Error::Limit {
        scu: scu.name.clone(),
        what,
        figure,
        limit,
        span,
    }
}

/// Sizes the kernel and checks the stream kernel's limits: II 1 per word, bounded per-word
/// outputs, batch buffers that fit on chip.
pub fn plan(
    module: &Module,
    scu: &Scu,
    options: &Options,
    timing: &TimingReport,
) -> Result<StreamPlan, Error> {
    let Some(body) = scu.stream.as_ref() else {
        return Ok(StreamPlan {
            max_pass: 1,
            max_push: 1,
            ii: 1,
            ..StreamPlan::default()
        });
    };
    let span = super::body_span(body, scu.span);
    let stream_timing = timing
        .bodies
        .iter()
        .find(|b| b.unit == scu.name && b.kind == BodyKind::Stream);
    let ii = stream_timing.map_or(1, |t| t.ii.max(1));
    if let Some(t) = stream_timing.filter(|t| t.ii > 1) {
        // Unrolled loops are scheduled unrolled by the timing analysis: a loop whose copies chain
        // through one stateful object shows up here as an II above 1.
        let (why, at) = t.ii_limit.as_ref().map_or((String::new(), span), |l| {
            (format!(": {}", l.reason), l.span)
        });
        return Err(limit(
            scu,
            "the stream kernel (one 512-bit word per invocation, loops unrolled)".into(),
            format!("II {}{why}", t.ii),
            "II 1 (one word per cycle: line rate)".into(),
            at,
        ));
    }
    let mut counts = [0u64; 2];
    for (i, m) in [Measure::Passes, Measure::Pushes].into_iter().enumerate() {
        counts[i] = Tally::new(module, scu, m).body(body);
        if counts[i] > MAX_WORDS_PER_WORD {
            let what = if i == 0 { "passed on" } else { "pushed" };
            return Err(limit(
                scu,
                format!("words {what} per input word (loops unrolled)"),
                counts[i].to_string(),
                MAX_WORDS_PER_WORD.to_string(),
                span,
            ));
        }
    }
    if counts[0] > 1 {
        // `pass_out` takes one word per cycle: a kernel that can pass on two words per input
        // word could not take one word per cycle (pushed words are batched and drain at the
        // outputs' average rate, so several pushes per word are fine).
        return Err(limit(
            scu,
            "words passed on per input word (`pass`, loops unrolled)".into(),
            format!("{} words", counts[0]),
            "1 word (pass_out takes one word per cycle)".into(),
            span,
        ));
    }
    let mut plan = StreamPlan {
        max_pass: counts[0].max(1) as u32,
        max_push: counts[1].max(1) as u32,
        ii,
        ..StreamPlan::default()
    };
    slots(scu, options, &mut plan)?;
    Ok(plan)
}

/// The DMA slots and their batch buffers; a buffer too big for on-chip RAM is an error.
fn slots(scu: &Scu, options: &Options, plan: &mut StreamPlan) -> Result<(), Error> {
    let mut total_bits = 0u64;
    for (k, (_, out)) in scu.outs.iter().enumerate() {
        let batch = out.batch.unwrap_or(64);
        if batch == 0 || batch % 64 != 0 {
            return Err(Error::Unsupported {
                scu: scu.name.clone(),
                what: format!(
                    "output `{}` batched in {batch} bytes (not a whole number of 64-byte words)",
                    out.name
                ),
                span: scu.span,
            });
        }
        let count = out.count.unwrap_or(1);
        // Two banks per element: one fills while the other is sent.
        let bits = u64::from(count).saturating_mul(batch).saturating_mul(16);
        total_bits = total_bits.saturating_add(bits);
        if total_bits > options.ram_budget_bits {
            return Err(limit(
                scu,
                format!(
                    "the batch buffers of output `{}` ({count} x 2 banks x {batch} bytes, on-chip)",
                    out.name
                ),
                format!("{total_bits} bits for all batch buffers"),
                format!(
                    "{} bits of on-chip RAM (Options::ram_budget_bits)",
                    options.ram_budget_bits
                ),
                scu.span,
            ));
        }
        for element in 0..count {
            plan.slots.push(Slot {
                out: k as u32,
                element,
                words: (batch / 64) as u32,
                base: plan.buffer_words,
            });
            plan.buffer_words += (batch / 64) as u32;
        }
    }
    Ok(())
}

/// Writes the kernel of an scu on an rdma or tcp attach point.
pub fn write_scu(
    module: &Module,
    info: &ModuleInfo,
    options: &Options,
    control: &ControlLayout,
    timing: &TimingReport,
    scu_id: ScuId,
) -> Result<Kernel, Error> {
    let scu = &module.scus[scu_id];
    let scu_control = control
        .scus
        .get(cranelift_entity::EntityRef::index(scu_id))
        .ok_or_else(|| Error::NoSuchScu(scu.name.clone()))?;
    refuse_packet_code(scu)?;
    let plan = plan(module, scu, options, timing)?;
    let mut facts = super::facts(module, scu, options)?;
    if let Some(body) = scu.stream.as_ref() {
        let notes = Tally::new(module, scu, Measure::Notes).body(body);
        facts.max_notes = facts.max_notes.max(notes.min(256) as u32);
    }
    let w = ScuWriter {
        module,
        info,
        options,
        scu,
        scu_id,
        control: scu_control,
        data_bits: control.data_bits,
        names: {
            let mut names = Names::new(module, scu);
            names.name_arrays(module, &super::types::aggregates(module, scu, &[]));
            names
        },
        halts: Halts::new(module, scu),
        facts,
        ii: plan.ii,
        state_types: Vec::new(),
    };
    crate::writer::limits::check(&w)?;
    let hpp = super::top::write_hpp(&w);
    let cpp = super::stream_stages::write_cpp(&w, &plan)?;
    let quiet = plan.max_push + plan.slots.len().max(1) as u32 + 4;
    let tb = crate::writer::testbench::stream::write(&w, quiet);
    Ok(Kernel {
        scu: scu.name.clone(),
        top: w.names.top.clone(),
        hpp,
        cpp,
        tb,
        ports: crate::ports::top_ports(scu.attach, w.data_bits),
        ii: plan.ii,
        // A stream kernel parses no headers: no header window (as a cc kernel).
        window_beats: 0,
    })
}

/// An rdma/tcp scu's per-packet code (a parser, a control) would need the packets the NIC's
/// stacks consume as well as their payload words: not generated yet, and said so.
fn refuse_packet_code(scu: &Scu) -> Result<(), Error> {
    let packet_code = scu
        .parser
        .as_ref()
        .map(|p| p.states[p.start].span)
        .or_else(|| scu.control.as_ref().map(|b| super::body_span(b, scu.span)));
    if let Some(span) = packet_code {
        return Err(Error::Unsupported {
            scu: scu.name.clone(),
            what: "per-packet code (a parser or control) in an scu on an rdma or tcp attach point"
                .into(),
            span,
        });
    }
    if scu.attach == Attach::SlowPath {
        return Err(Error::Unsupported {
            scu: scu.name.clone(),
            what: "a slow-path scu as a stream kernel".into(),
            span: scu.span,
        });
    }
    Ok(())
}

/// Writes `word_t` (a member of `pkt_t`) and its helpers: must come before `pkt_t`.
pub fn write_word_ctx(plan: &StreamPlan, c: &mut Code) {
    c.line("// ---- the payload word being processed (rdma/tcp) -------------------------------");
    c.blank();
    c.line(format!(
        "static const int MAX_PASS = {};  // words one input word passes on, loops unrolled",
        plan.max_pass
    ));
    c.line(format!(
        "static const int MAX_PUSH = {};  // words one input word pushes, loops unrolled",
        plan.max_push
    ));
    c.blank();
    c.open("struct word_t");
    c.line("bool last;  // beat.last: the message's last word");
    c.line("ap_uint<64> keep;  // beat.keep: bit i says byte i is valid");
    c.line("ap_uint<24> flow;  // queue pair (rdma) or session (tcp)");
    c.line("ap_uint<16> npass;  // words passed on so far");
    c.line("ap_uint<512> pass[MAX_PASS];");
    c.line("ap_uint<16> npush;  // words pushed so far");
    c.line("ap_uint<16> push_slot[MAX_PUSH];  // DMA slot of each pushed word");
    c.line("ap_uint<512> push[MAX_PUSH];");
    c.open("word_t() : last(false), keep(0), flow(0), npass(0), npush(0)");
    c.open("for (int i = 0; i < MAX_PASS; ++i)");
    c.line("pass[i] = 0;");
    c.close("");
    c.open("for (int i = 0; i < MAX_PUSH; ++i)");
    c.line("push_slot[i] = 0;");
    c.line("push[i] = 0;");
    c.close("");
    c.close("");
    c.close(";");
    c.blank();
    c.line("// pass(w): the word goes on to the stream's own destination with the input's keep.");
    c.open("static inline void wd_pass(word_t& wd, const ap_uint<512>& w)");
    c.open("if (wd.npass < MAX_PASS)");
    c.line("wd.pass[wd.npass] = w;");
    c.line("wd.npass++;");
    c.close("");
    c.close("");
    c.line("// out[i].push(w): the whole 64-byte word is appended to DMA slot `slot`'s batch.");
    c.open(
        "static inline void wd_push(word_t& wd, const ap_uint<16>& slot, const ap_uint<512>& w)",
    );
    c.open("if (wd.npush < MAX_PUSH)");
    c.line("wd.push_slot[wd.npush] = slot;");
    c.line("wd.push[wd.npush] = w;");
    c.line("wd.npush++;");
    c.close("");
    c.close("");
    c.blank();
}

/// `beat.last`, `beat.keep` and the flow id, for [`super::expr`].
pub fn word_expr(bw: &BodyWriter<'_, '_>, e: ExprId) -> Result<String, Error> {
    if bw.w.scu.attach == Attach::SlowPath {
        return Err(
            bw.unsupported_expr("payload words (`beat`, the flow id) in a slow-path scu", e)
        );
    }
    let cty = bw.w.ty(bw.ty_of(e));
    Ok(match &bw.body.exprs[e] {
        Expr::Beat(BeatField::Last) => "pk.wd.last".into(),
        Expr::Beat(BeatField::Keep) => "pk.wd.keep".into(),
        // The interpreter truncates the flow to the expression's width (`qp` is a bit<24>).
        _ => format!("{cty}(pk.wd.flow)"),
    })
}

/// `pass(w)` and `out[i].push(w)`, for [`super::stmt`]: the index is evaluated before the word,
/// as the interpreter does.
pub fn word_stmt(bw: &mut BodyWriter<'_, '_>, stmt: &Stmt, span: Span) -> Result<(), Error> {
    if bw.w.scu.attach == Attach::SlowPath {
        return Err(bw
            .w
            .unsupported("stream kernels (`pass`, `push`) in a slow-path scu", span));
    }
    match stmt {
        Stmt::Pass(e) => {
            let v = bw.expr(*e)?;
            bw.c.line(format!("wd_pass(pk.wd, ap_uint<512>(scn::bits({v})));"));
        }
        Stmt::Push(out, index, e) => {
            let i = match index {
                Some(x) => bw.expr(*x)?,
                None => "0".into(),
            };
            let v = bw.expr(*e)?;
            let base = out_base(bw.w.scu, *out);
            bw.c.line(format!(
                "wd_push(pk.wd, ap_uint<16>({base} + int({i})), ap_uint<512>(scn::bits({v})));  // {}",
                bw.w.scu.outs[*out].name
            ));
        }
        _ => return Err(bw.w.unsupported("this statement in a stream kernel", span)),
    }
    Ok(())
}

/// The first DMA slot of output `out` (the slots of earlier outputs come first).
fn out_base(scu: &Scu, out: scenic_ir::entities::OutId) -> u32 {
    scu.outs
        .iter()
        .take_while(|(id, _)| *id != out)
        .map(|(_, o)| o.count.unwrap_or(1))
        .sum()
}

/// Writes the stream body as `static void stream_kernel(state_t&, pkt_t&, const ap_uint<512>& word)`.
pub fn write_kernel_fn(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    let Some(body) = w.scu.stream.as_ref() else {
        c.line("// no stream kernel: every word is consumed");
        c.open("static void stream_kernel(state_t& st, pkt_t& pk, const ap_uint<512>& word)");
        c.line("(void)st;");
        c.line("(void)pk;");
        c.line("(void)word;");
        c.close("");
        c.blank();
        return Ok(());
    };
    if let Some(loc) = w.loc(body_span(body, w.scu.span)) {
        c.line(format!("// stream ({loc}): one payload word"));
    }
    let bw = BodyWriter::new(w, body, 0, super::body::Ctx::Packet);
    super::body::write_function(c, bw, "void", "stream_kernel", &[])
}

fn body_span(body: &scenic_ir::Body, fallback: Span) -> Span {
    super::body_span(body, fallback)
}
