//! The kernel writer: one scu → `<top>.hpp`, `<top>.cpp` and `<top>_tb.cpp`.
//!
//! [`ScuWriter`] holds what every part needs (the module, the scu, the C++ [`names::Names`], the
//! static facts of [`crate::analysis`]); each concern has its own file: [`types`] (headers,
//! structs, arrays and their packing), [`state`] (the packet context and the persistent state),
//! [`tables`] (per-table CAMs and their application), [`body`] with [`expr`] and [`stmt`] (IR
//! bodies → C++ functions), [`parser`], [`deparser`], [`every`], [`ctrl`] (the host control
//! decoder) and [`top`] (the stages, the top function and the header file).

pub mod body;
pub mod cc;
pub mod cc_kernel;
pub mod ctrl;
pub mod deparser;
pub mod every;
pub mod expr;
pub mod limits;
pub mod names;
pub mod parser;
pub mod state;
pub mod stmt;
pub mod stream;
pub mod stream_stages;
pub mod tables;
pub mod tables_exact;
pub mod testbench;
pub mod testbench_cc;
pub mod top;
pub mod types;

use crate::analysis::{Halts, Measure, ParserBound, ParserFacts, Tally};
use crate::{Error, Kernel, Options};
use names::Names;
use scenic_ir::entities::ScuId;
use scenic_ir::program::{Attach, Scu};
use scenic_ir::types::Type;
use scenic_ir::{Module, ModuleInfo, Span};
use scenic_scu_abi::control::{ControlLayout, ScuControl};
use scenic_timing::{BodyKind, TimingReport};
use std::fmt::Write as _;

/// Indented C++ text.
#[derive(Clone, Debug, Default)]
pub struct Code {
    out: String,
    level: usize,
}

impl Code {
    /// A new, empty buffer.
    pub fn new() -> Code {
        Code::default()
    }

    /// One line at the current indentation.
    pub fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if s.is_empty() {
            self.out.push('\n');
            return;
        }
        for _ in 0..self.level {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A line ending in `{`, then one level deeper.
    pub fn open(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if s.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{s} {{"));
        }
        self.level += 1;
    }

    /// One level up, then `}` followed by `tail` (`""`, `";"`, `" else {"`).
    pub fn close(&mut self, tail: &str) {
        self.level = self.level.saturating_sub(1);
        self.line(format!("}}{tail}"));
        if tail.ends_with('{') {
            self.level += 1;
        }
    }

    /// An empty line.
    pub fn blank(&mut self) {
        self.out.push('\n');
    }

    /// The text.
    pub fn finish(self) -> String {
        self.out
    }

    /// Appends another buffer's text at its own indentation.
    pub fn append(&mut self, other: Code) {
        self.out.push_str(&other.out);
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// The current indentation level.
    pub fn level(&self) -> usize {
        self.level
    }

    /// A buffer starting at indentation `level`.
    pub fn at(level: usize) -> Code {
        Code {
            out: String::new(),
            level,
        }
    }
}

/// Sizes the kernel's buffers are built with.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The parser's paths.
    pub parser: ParserFacts,
    /// Header window, in beats (at least 1).
    pub window_beats: u32,
    /// Most copies one packet can request (at least 1: the default destination).
    pub max_copies: u32,
    /// Most notifications one packet can raise.
    pub max_notes: u32,
    /// Most notifications one run of any `every` block can raise.
    pub max_every_notes: u32,
    /// Most bytes the deparser can emit (at least 1).
    pub out_bytes: u32,
}

/// Everything the parts of one scu's kernel need.
pub struct ScuWriter<'a> {
    /// The module.
    pub module: &'a Module,
    /// Its validation facts.
    pub info: &'a ModuleInfo,
    /// Generation options.
    pub options: &'a Options,
    /// The scu.
    pub scu: &'a Scu,
    /// Its id.
    pub scu_id: ScuId,
    /// Its control interface.
    pub control: &'a ScuControl,
    /// `D`, the control data width.
    pub data_bits: u32,
    /// C++ names.
    pub names: Names,
    /// What can halt.
    pub halts: Halts,
    /// Buffer sizes.
    pub facts: Facts,
    /// The `PIPELINE II` of `process`.
    pub ii: u32,
    /// A cc kernel's state types (empty for an scu): declared even when no handler uses them.
    pub state_types: Vec<Type>,
}

/// Writes one scu's kernel.
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
    if scu.attach != Attach::SlowPath {
        return stream::write_scu(module, info, options, control, timing, scu_id);
    }
    let facts = facts(module, scu, options)?;
    let ii = timing
        .bodies
        .iter()
        .filter(|b| b.unit == scu.name && b.kind == BodyKind::Packet)
        .map(|b| b.ii)
        .max()
        .unwrap_or(1)
        .max(1);
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
            names.name_arrays(module, &types::aggregates(module, scu, &[]));
            names
        },
        halts: Halts::new(module, scu),
        facts,
        ii,
        state_types: Vec::new(),
    };
    crate::writer::limits::check(&w)?;
    let hpp = top::write_hpp(&w);
    let cpp = w.write_cpp()?;
    let tb = crate::writer::testbench::write(&w);
    Ok(Kernel {
        scu: scu.name.clone(),
        top: w.names.top.clone(),
        hpp,
        cpp,
        tb,
        ports: crate::ports::top_ports(scu.attach, w.data_bits),
        ii,
        window_beats: w.facts.window_beats,
    })
}

/// The first known span of a body's statements, or `fallback`.
pub fn body_span(body: &scenic_ir::Body, fallback: Span) -> Span {
    body.block
        .spans
        .iter()
        .copied()
        .find(Span::is_known)
        .unwrap_or(fallback)
}

fn facts(module: &Module, scu: &Scu, options: &Options) -> Result<Facts, Error> {
    let limit = options.max_window_beats.saturating_mul(512);
    let parser = crate::analysis::parser_facts(module, scu, limit).map_err(|e| {
        let span = scu
            .parser
            .as_ref()
            .map_or(scu.span, |p| p.states[p.start].span);
        match e {
            ParserBound::TooDeep(bits) => Error::Limit {
                scu: scu.name.clone(),
                what: "the parser's header window".into(),
                figure: format!("{} bytes on its deepest path", bits.div_ceil(8)),
                limit: format!(
                    "{} bytes ({} beats, Options::max_window_beats)",
                    limit / 8,
                    options.max_window_beats
                ),
                span,
            },
            ParserBound::TooComplex => Error::Unsupported {
                scu: scu.name.clone(),
                what: "a parser with more than 200,000 distinct paths".into(),
                span,
            },
        }
    })?;
    let window_beats = parser.max_reach_bits.div_ceil(512).max(1);
    let control_copies = |body: Option<&scenic_ir::Body>| {
        body.map_or(0, |b| Tally::new(module, scu, Measure::Copies).body(b))
    };
    let copies = control_copies(scu.control.as_ref())
        .max(control_copies(scu.on_parser_error.as_ref()))
        .max(1);
    let notes_of = |body: Option<&scenic_ir::Body>| {
        body.map_or(0, |b| Tally::new(module, scu, Measure::Notes).body(b))
    };
    let notes = notes_of(scu.control.as_ref()).max(notes_of(scu.on_parser_error.as_ref()));
    let every_notes = scu
        .every
        .iter()
        .map(|e| notes_of(Some(&e.body)))
        .max()
        .unwrap_or(0);
    let out_bytes = match &scu.deparser {
        Some(d) => Tally::new(module, scu, Measure::EmitBytes).body(d),
        None => scu
            .instances
            .values()
            .map(|i| u64::from(module.headers[i.header].bits / 8) * u64::from(i.stack.unwrap_or(1)))
            .sum(),
    }
    .max(1);
    let cap = |what: &str, v: u64, max: u64| -> Result<u32, Error> {
        if v > max {
            return Err(Error::Limit {
                scu: scu.name.clone(),
                what: what.into(),
                figure: v.to_string(),
                limit: max.to_string(),
                span: scu.span,
            });
        }
        Ok(v as u32)
    };
    Ok(Facts {
        parser,
        window_beats,
        max_copies: cap("copies of one packet", copies, 64)?,
        max_notes: cap("notifications of one packet", notes, 256)?,
        max_every_notes: cap("notifications of one `every` run", every_notes, 256)?,
        out_bytes: cap(
            "bytes the deparser emits",
            out_bytes,
            u64::from(options.max_window_beats) * 64,
        )?,
    })
}

impl ScuWriter<'_> {
    /// The header window in bits.
    pub fn window_bits(&self) -> u32 {
        self.facts.window_beats * 512
    }

    /// The deparser output buffer in bits.
    pub fn out_bits(&self) -> u32 {
        self.facts.out_bytes * 8
    }

    /// Beats the deparsed headers occupy at most.
    pub fn hdr_beats(&self) -> u32 {
        self.facts.out_bytes.div_ceil(64).max(1)
    }

    /// The packet buffer, in beats.
    pub fn max_beats(&self) -> u32 {
        self.options.max_packet_bytes.div_ceil(64).max(1)
    }

    /// `// file.sn:LINE` for a span, or nothing.
    pub fn loc(&self, span: Span) -> Option<String> {
        self.options.sources.locate(span)
    }

    /// An `Unsupported` error for this scu.
    pub fn unsupported(&self, what: impl Into<String>, span: Span) -> Error {
        Error::Unsupported {
            scu: self.scu.name.clone(),
            what: what.into(),
            span,
        }
    }

    /// The kernel `.cpp`.
    fn write_cpp(&self) -> Result<String, Error> {
        let mut c = Code::new();
        let mut head = String::new();
        let _ = writeln!(
            head,
            "// {}: the HLS kernel of scu `{}` ({}), generated by scenicc. Do not edit.",
            self.names.top, self.scu.name, self.module.source_name
        );
        c.line(head.trim_end());
        c.line(format!("#include \"{}.hpp\"", self.names.top));
        c.blank();
        c.line(format!("namespace {} {{", self.names.ns));
        c.blank();
        types::write(self, &mut c)?;
        state::write_pkt(self, &mut c)?;
        tables::write_types(self, &mut c)?;
        state::write_state(self, &mut c)?;
        body::write_bodies(self, &mut c)?;
        parser::write(self, &mut c)?;
        deparser::write(self, &mut c)?;
        every::write(self, &mut c)?;
        ctrl::write(self, &mut c)?;
        top::write_stages(self, &mut c)?;
        c.line(format!("}}  // namespace {}", self.names.ns));
        c.blank();
        top::write_top(self, &mut c);
        Ok(c.finish())
    }
}
