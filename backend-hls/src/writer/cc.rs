//! The kernel of a congestion controller (`cc`): one free-running top function per cc, named
//! after it, that takes congestion signals on `cc_event_in` and answers with the flow's output
//! (rate or window) on `cc_update_out` ([`crate::ports::cc_ports`]).
//!
//! What it owns:
//!
//! - **Per-flow state in block RAM**: `flows[N]` (a `flow_t` record per flow, `AGGREGATE`d into
//!   one wide word, `BIND_STORAGE ram_2p`), `timers[N][T]` (the next due time in ns of each time
//!   timer, the bytes counted so far of each byte counter; the timer dimension is partitioned so
//!   that all timers of a flow are read in one cycle) and `valid[N]` (the flow has started).
//!   Statics are zero- or constructor-initialised, so a flow slot starts as the language says:
//!   state at its initialisers when the flow's first signal arrives.
//! - **Params as CSRs**: `state_t` holds the params, read and written with the existing
//!   `CsrRead`/`CsrWrite` ops of [`scenic_scu_abi::control`] (target = the param's position), so the
//!   host, the mailbox bridge and the C-simulation use one protocol for scus and ccs.
//! - **Handlers**: each handler is a C++ function over `(state_t& st, pkt_t& pk)` written by the
//!   shared [`super::body::BodyWriter`]; `pk.fs` is the flow's state record while it runs,
//!   `pk.restart` collects `restart` statements, which are applied when it returns (a time timer
//!   to one period after the handler's time, a byte counter to zero), as the interpreter does.
//!
//! Order of things, observably the interpreter's (`ir/interp/src/cc.rs`): an event at time `t`
//! fires its own flow's time timers due by `t` (earliest first, ties by declaration order, each
//! at its due time, catching up on missed periods), or starts the flow if it is new, then runs
//! its handler (or, for `sent` bytes, each byte counter in order, its handler once per period
//! reached). The interpreter fires every flow's due timers before any event; flows are
//! independent, so the kernel leaves the others to its idle scan (an invocation without an
//! event: every started flow's timers due by `now_ns`), and runs that scan before it changes a
//! param, so that no timer ever runs with a param value it would not have seen in the
//! interpreter. The per-event cost is thus the flow's own handlers, not a pass over all flows.
//! After each handler run and after every event the kernel writes the flow's output to
//! `cc_update_out`, which is what the NIC's pacer reads.
//!
//! The shared body writer needs an scu: [`write_cc`] builds a synthetic one that holds nothing
//! but the cc's handler bodies (as `every` bodies, so that the shared analyses — aggregate types,
//! reachable functions, notification counts — see them); nothing else of the scu machinery is
//! used for a cc.

use super::body::{write_function, BodyWriter, Ctx};
use super::names::Names;
use super::{Code, Facts, ScuWriter};
use crate::analysis::{Halts, Measure, Tally};
use crate::namer::Namer;
use crate::{Error, Kernel, Options};
use cranelift_entity::{EntityRef, PrimaryMap};
use scenic_ir::entities::*;
use scenic_ir::program::{Attach, Cc, Event, Every, Scu};
use scenic_ir::types::{Dimension, Type};
use scenic_ir::{Module, ModuleInfo};
use scenic_scu_abi::control::{type_bits, ControlLayout, CsrControl, Mailbox, ScuControl};
use scenic_timing::{BodyKind, TimingReport};

/// Event kinds on `cc_event_in` (bits 0..8 of a record).
pub mod kind {
    /// No signal: fire the timers due at the record's time.
    pub const TICK: u8 = 0;
    /// An acknowledgement (`value` = bytes, `ecn` = the echo).
    pub const ACK: u8 = 1;
    /// A congestion notification packet.
    pub const CNP: u8 = 2;
    /// An ECN mark.
    pub const ECN: u8 = 3;
    /// A loss.
    pub const LOSS: u8 = 4;
    /// A retransmission timeout.
    pub const TIMEOUT: u8 = 5;
    /// An RTT sample (`value` = ns).
    pub const RTT: u8 = 6;
    /// The flow sent `value` bytes (byte counters).
    pub const SENT: u8 = 7;
    /// One hop of INT telemetry (`value` = the queue length, the rest in bits 48..64 and
    /// 192..384; [`crate::ports::cc_event_fields`]).
    pub const INT: u8 = 8;
}

/// The C++ names of a cc's state, params and timers, for the shared body writer.
#[derive(Clone, Debug, Default)]
pub struct CcNames {
    state: Vec<(String, Type)>,
    params: Vec<String>,
}

impl CcNames {
    /// A state variable as an lvalue/rvalue of the running handler (`pk.fs.rc`).
    pub fn state(&self, s: CcStateId) -> String {
        self.state
            .get(s.index())
            .map_or_else(|| "pk.fs".into(), |(n, _)| format!("pk.fs.{n}"))
    }

    /// A state variable's type.
    pub fn state_ty(&self, s: CcStateId) -> Type {
        self.state
            .get(s.index())
            .map_or(Type::Unit, |(_, t)| t.clone())
    }

    /// A param (`st.r_ai`).
    pub fn param(&self, p: CcParamId) -> String {
        self.params
            .get(p.index())
            .map_or_else(|| "st".into(), |n| format!("st.{n}"))
    }

    /// The statement of `restart t;`: marked now, applied when the handler returns.
    pub fn restart(&self, t: TimerId) -> String {
        format!("pk.restart[{}] = 1;", t.index())
    }
}

/// What the cc kernel writer works from.
pub struct CcWriter<'w, 'a> {
    /// The shared writer over the synthetic scu.
    pub w: &'w ScuWriter<'a>,
    /// The cc.
    pub cc: &'a Cc,
    /// Names of state, params and timers.
    pub names: CcNames,
    /// C++ names of the handler functions, by handler position.
    pub handlers: Vec<String>,
    /// Number of timer slots per flow (at least 1, so no array is empty).
    pub ntimers: usize,
    /// Most notifications one handler run raises (at least 1).
    pub max_notes: u64,
    /// Each handler's `(part, latency, ii)` estimate of `scenic_timing`, in handler order.
    pub times: Vec<(String, u32, u32)>,
}

/// The synthetic scu a cc's bodies are written through (see the module doc).
fn synthetic_scu(cc: &Cc) -> Scu {
    Scu {
        name: cc.name.clone(),
        attach: Attach::SlowPath,
        csrs: PrimaryMap::new(),
        instances: PrimaryMap::new(),
        meta: None,
        errors: PrimaryMap::new(),
        parser: None,
        tables: PrimaryMap::new(),
        actions: PrimaryMap::new(),
        maps: PrimaryMap::new(),
        counters: PrimaryMap::new(),
        meters: PrimaryMap::new(),
        outs: PrimaryMap::new(),
        control: None,
        on_parser_error: None,
        deparser: None,
        stream: None,
        every: cc
            .handlers
            .iter()
            .map(|h| Every {
                period_ns: 1,
                body: h.body.clone(),
                span: h.span,
            })
            .collect(),
        span: cc.span,
    }
}

/// The params as the CSRs of the cc's control interface (offset = position).
pub fn cc_control(module: &Module, info: &ModuleInfo, cc: &Cc, data_bits: u32) -> ScuControl {
    let csrs: Vec<CsrControl> = cc
        .params
        .values()
        .enumerate()
        .map(|(i, p)| CsrControl {
            name: p.name.clone(),
            offset: i as u32,
            width: type_bits(module, info, &p.ty),
            host_readonly: false,
            is_param: true,
        })
        .collect();
    ScuControl {
        name: cc.name.clone(),
        mailbox: Mailbox::new(csrs.len() as u32, data_bits),
        csrs,
        tables: Vec::new(),
        maps: Vec::new(),
        counters: Vec::new(),
        meters: Vec::new(),
    }
}

/// The handler's name in the timing report (`on cnp`, `on timer alpha_timer`).
pub fn handler_part(cc: &Cc, event: Event) -> String {
    match event {
        Event::Ack => "on ack".into(),
        Event::Cnp => "on cnp".into(),
        Event::Ecn => "on ecn".into(),
        Event::Loss => "on loss".into(),
        Event::Timeout => "on timeout".into(),
        Event::Rtt => "on rtt".into(),
        Event::Int => "on int".into(),
        Event::Timer(t) => {
            let timer = &cc.timers[t];
            let word = if timer.period.0 == Dimension::Size {
                "bytes"
            } else {
                "timer"
            };
            format!("on {word} {}", timer.name)
        }
    }
}

/// Per-handler estimates of `scenic_timing`: (part, latency, ii), in handler order.
pub fn handler_timing(cc: &Cc, timing: &TimingReport) -> Vec<(String, u32, u32)> {
    cc.handlers
        .iter()
        .map(|h| {
            let part = handler_part(cc, h.event);
            let t = timing
                .bodies
                .iter()
                .find(|b| b.unit == cc.name && b.kind == BodyKind::CcHandler && b.part == part);
            (
                part,
                t.map_or(1, |b| b.latency),
                t.map_or(1, |b| b.ii.max(1)),
            )
        })
        .collect()
}

/// Generates the kernel of cc `id` of a validated module.
pub fn write_cc(
    module: &Module,
    info: &ModuleInfo,
    options: &Options,
    control: &ControlLayout,
    timing: &TimingReport,
    id: CcId,
) -> Result<Kernel, Error> {
    let cc = &module.ccs[id];
    let scu = synthetic_scu(cc);
    let scu_control = cc_control(module, info, cc, control.data_bits);
    let times = handler_timing(cc, timing);
    let ii = times.iter().map(|t| t.2).max().unwrap_or(1).max(1);
    crate::writer::limits::check_cc(module, info, options, cc, &times, ii)?;
    // Aggregate state needs its C++ type (and `unpack_*` for a non-zero initialiser) even when
    // no handler names it: the host reads and carries it through the control queue.
    let state_types: Vec<Type> = cc
        .state
        .values()
        .filter(|s| crate::conv::width(module, &s.ty).is_none())
        .map(|s| s.ty.clone())
        .collect();
    let w = ScuWriter {
        module,
        info,
        options,
        scu: &scu,
        scu_id: ScuId::new(0),
        control: &scu_control,
        data_bits: control.data_bits,
        names: {
            let mut names = Names::new(module, &scu);
            names.name_arrays(
                module,
                &super::types::aggregates(module, &scu, &state_types),
            );
            names
        },
        halts: Halts::new(module, &scu),
        facts: Facts::default(),
        ii,
        state_types,
    };
    let cw = CcWriter::new(&w, cc, times)?;
    let hpp = super::cc_kernel::write_hpp(&cw);
    let cpp = cw.write_cpp()?;
    let tb = crate::writer::testbench_cc::write(&cw);
    Ok(Kernel {
        scu: cc.name.clone(),
        top: w.names.top.clone(),
        hpp,
        cpp,
        tb,
        ports: crate::ports::cc_ports(control.data_bits),
        ii,
        window_beats: 0,
    })
}

impl<'w, 'a> CcWriter<'w, 'a> {
    fn new(
        w: &'w ScuWriter<'a>,
        cc: &'a Cc,
        times: Vec<(String, u32, u32)>,
    ) -> Result<CcWriter<'w, 'a>, Error> {
        let mut fields = Namer::new();
        let mut state = Vec::new();
        for s in cc.state.values() {
            state.push((fields.name(&s.name), s.ty.clone()));
        }
        let mut members = Namer::new();
        members.reserve("latest");
        let params = cc.params.values().map(|p| members.name(&p.name)).collect();
        // Handler functions share the kernel namespace: `on_` names cannot collide with the
        // program's objects, whose C++ names all carry a prefix (`fn_`, `st_`, ...).
        let mut fns = Namer::new();
        let handlers = cc
            .handlers
            .iter()
            .map(|h| fns.name(&handler_part(cc, h.event).replace(' ', "_")))
            .collect();
        let max_notes = cc
            .handlers
            .iter()
            .map(|h| Tally::new(w.module, w.scu, Measure::Notes).body(&h.body))
            .max()
            .unwrap_or(0)
            .max(1);
        if max_notes > 256 {
            return Err(Error::Limit {
                scu: cc.name.clone(),
                what: "notifications of one handler run".into(),
                figure: max_notes.to_string(),
                limit: "256".into(),
                span: cc.span,
            });
        }
        Ok(CcWriter {
            w,
            cc,
            names: CcNames { state, params },
            handlers,
            ntimers: cc.timers.len().max(1),
            max_notes,
            times,
        })
    }

    /// `// file.sn:LINE` of a span, if known.
    pub fn loc(&self, span: scenic_ir::Span) -> String {
        self.w
            .loc(span)
            .map_or_else(String::new, |l| format!("  // {l}"))
    }

    /// The C++ name of the output state member.
    pub fn output(&self) -> String {
        self.names.state(self.cc.output.1)
    }

    /// The handler of `event`, by position.
    pub fn handler_of(&self, event: Event) -> Option<usize> {
        self.cc.handlers.iter().position(|h| h.event == event)
    }

    /// The kernel `.cpp`.
    fn write_cpp(&self) -> Result<String, Error> {
        let w = self.w;
        let mut c = Code::new();
        c.line(format!(
            "// {}: the HLS kernel of cc `{}` ({}), generated by scenicc. Do not edit.",
            w.names.top, self.cc.name, w.module.source_name
        ));
        c.line(format!("#include \"{}.hpp\"", w.names.top));
        c.blank();
        c.line(format!("namespace {} {{", w.names.ns));
        c.blank();
        super::types::write(w, &mut c)?;
        super::cc_kernel::write_records(self, &mut c);
        self.write_handlers(&mut c)?;
        super::cc_kernel::write_machinery(self, &mut c);
        c.line(format!("}}  // namespace {}", w.names.ns));
        c.blank();
        super::cc_kernel::write_top(self, &mut c);
        Ok(c.finish())
    }

    /// The cc's functions and one function per handler.
    fn write_handlers(&self, c: &mut Code) -> Result<(), Error> {
        let w = self.w;
        // The functions a handler calls (the synthetic scu has no actions, tables or control,
        // so only they are written here).
        let mut funcs = Code::new();
        write_bodies_cc(self, &mut funcs)?;
        c.append(funcs);
        c.line(
            "// ---- handlers -----------------------------------------------------------------",
        );
        c.blank();
        for (i, h) in self.cc.handlers.iter().enumerate() {
            let mut bw = BodyWriter::new(w, &h.body, 0, Ctx::Every);
            bw.cc = Some(self.names.clone());
            c.line(format!(
                "// {}{}",
                handler_part(self.cc, h.event),
                self.loc(h.span)
            ));
            if let Some((_, latency, ii)) = self.times.get(i) {
                c.line(format!(
                    "// estimated (scenic_ir::timing): latency {latency} cycles, II {ii}{}",
                    self.cc
                        .budget
                        .map_or(String::new(), |b| format!(", budget {b}"))
                ));
            }
            write_function(c, bw, "void", &self.handlers[i], &[])?;
        }
        Ok(())
    }

    /// The time timers: (index, period in ns).
    pub fn time_timers(&self) -> Vec<(usize, u64)> {
        self.cc
            .timers
            .iter()
            .filter(|(_, t)| t.period.0 != Dimension::Size)
            .map(|(id, t)| (id.index(), t.period.1.max(1)))
            .collect()
    }

    /// The byte counters: (timer id, index, period in bytes).
    pub fn byte_counters(&self) -> Vec<(TimerId, usize, u64)> {
        self.cc
            .timers
            .iter()
            .filter(|(_, t)| t.period.0 == Dimension::Size)
            .map(|(id, t)| (id, id.index(), t.period.1.max(1)))
            .collect()
    }

    /// The C++ type of the handler parameter of `event`'s handler, if it has one.
    pub fn param_ty(&self, h: usize) -> Option<&'a Type> {
        let body = &self.cc.handlers.get(h)?.body;
        let p = body.params.first()?;
        Some(&body.locals[*p].ty)
    }
}

/// The cc's functions, through the shared writer with the cc's names in every body.
fn write_bodies_cc(cw: &CcWriter<'_, '_>, c: &mut Code) -> Result<(), Error> {
    let w = cw.w;
    let funcs = crate::analysis::reachable_functions(w.module, w.scu);
    if funcs.is_empty() {
        return Ok(());
    }
    // The shape of `super::body::write_bodies` (declarations, then definitions), with the cc's
    // names in every body.
    c.line("// ---- functions ----------------------------------------------------------------");
    c.blank();
    for f in &funcs {
        let func = &w.module.functions[*f];
        let bw = BodyWriter::new(w, &func.body, 0, Ctx::Every);
        let mut all = vec!["state_t& st".to_string(), "pkt_t& pk".to_string()];
        all.extend(super::body::params(&bw));
        c.line(format!(
            "static {} {}({});",
            w.ty(&func.ret),
            w.names.func[*f],
            all.join(", ")
        ));
    }
    c.blank();
    for f in &funcs {
        let func = &w.module.functions[*f];
        let mut bw = BodyWriter::new(w, &func.body, 0, Ctx::Every);
        bw.cc = Some(cw.names.clone());
        bw.halt_return = match func.ret {
            Type::Unit => "return;".into(),
            ref t => format!("return {};", w.zero(t)),
        };
        c.line(format!("// fn {}{}", func.name, cw.loc(func.span)));
        write_function(c, bw, &w.ty(&func.ret), &w.names.func[*f], &[])?;
    }
    Ok(())
}
