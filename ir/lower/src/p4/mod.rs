//! Lowering P4_16 programs (checked by `scenic_frontend::p4`) to the IR.
//!
//! A v1model (`V1Switch`) or Vitis Networking P4 (`XilinxPipeline`) program becomes one
//! `slow_path` [`Scu`] named after the P4 file, so `scenicc check/sim/test` run P4 programs with
//! the reference interpreter. The lowering reads only the AST and the checker's tables, and accepts
//! exactly what the checker accepted; the few things only visible here (a sub-control with
//! `return`, a counter indexed at run time with a size that is not a power of two) are reported
//! as [`P4LowerError`]s, which the driver shows as E0702.
//!
//! # How P4 maps to the IR
//!
//! | P4 | IR |
//! |---|---|
//! | the headers struct (`hdr`) | one header instance per header or stack, named by its path (`ethernet`, `inner.ipv4`) |
//! | user metadata, `standard_metadata` | fields of the scu's `meta` struct: `standard_metadata`, `meta`, then one field per parser/control variable (`<block>.<var>`) and hidden state (`$port`, checksum states) |
//! | parser states | IR states; `verify(c, e)` ends a state with a select on `c` (`false` rejects with `e`); `advance(n)` extracts an unnamed `n`-bit header that is never emitted |
//! | parser errors | `packet_too_short`, `no_match`, `stack_overflow` are P4's `PacketTooShort`, `NoMatch`, `StackOutOfBounds`; the others follow with their P4 names |
//! | a rejected packet | goes on to the controls with `standard_metadata.parser_error` set (as in BMv2), through `on parser_error` |
//! | controls | inlined into the scu's control in pipeline order; sub-control instances are inlined with their parameters bound to the arguments; a control using `exit` becomes an scu function (`exit` is `return`) |
//! | actions | IR actions named by their instance path (`c.a`); directionless parameters are action data |
//! | tables | IR tables named by instance path (`c.t`, prefixed with the top-level control when names clash); keys named by `@name` or their text; when `.hit`/`.miss` is read, each action gets a second copy used only as the default, so a miss is told from a hit |
//! | `counter`/`Counter` | counters (packets, bytes or both) |
//! | `register<T>` | `array` maps indexed by `bit<32>` |
//! | `@scenic_csr(...)` on a one-cell `register`/`Counter` or a Vitis user-metadata field | a CSR (csr.rs) |
//! | `verify_checksum`/`update_checksum` (csum16) | the `ones_complement` intrinsic over the fields concatenated |
//! | `InternetChecksum` | a 16-bit running sum in `meta`, updated with `ones_complement` |
//! | v1model `hash(r, crc32/crc16/csum16, base, data, 2^k)` | the `crc32`/`crc16`/`ones_complement` intrinsic, masked, plus `base` |
//!
//! Destinations (docs/p4.md, "P4 input"): v1model: `mark_to_drop` sets `egress_spec` to 511; after
//! ingress, 511 drops; otherwise egress runs with `egress_port = egress_spec`, and after it 511
//! drops again; then port 0–255 is `to_network(port)`, 256 (the CPU port, as in scenicc's STF
//! numbering) is `to_host()`, anything else drops (BMv2 has no such port). Vitis: `drop == 1`
//! drops; otherwise a user-metadata field `to_host` equal to 1 sends to the host and a field
//! `egress_port` names the network port (same numbering); without either the packet goes to the
//! host, the slow path's default. Vitis user-metadata fields `ingress_port`, `packet_length` and
//! `timestamp_ns` (the SCENIC shell's inputs) hold `packet.port`, `packet.len` and
//! `packet.timestamp` from the start, as do `@scenic_csr` fields their CSRs (csr.rs).

mod arch;
mod body;
mod calls;
mod control;
mod csr;
mod parser;
mod stmt;
mod types;

use scenic_frontend::diag::{codes, Diagnostic, Loc};
use scenic_frontend::p4::check::{Checked, DeclRef, Owner, VarId};
use scenic_frontend::span::Span as FileSpan;
use scenic_frontend::{CheckReport, LoadError};
use scenic_ir::body::Place;
use scenic_ir::entities::*;
use scenic_ir::program::*;
use scenic_ir::span::Span;
use std::collections::HashMap;

/// A construct the lowering cannot express (reported as E0702 by the driver).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not supported yet: {what}")]
pub struct P4LowerError {
    /// What is not supported.
    pub what: String,
    /// Where.
    pub span: Span,
}

/// Lowers a checked P4 program (without errors) to a module with one scu.
pub fn lower(checked: &Checked, scu_name: &str) -> Result<Module, Vec<P4LowerError>> {
    let Some(arch) = checked.arch.as_ref() else {
        return Err(vec![P4LowerError {
            what: "a program without a valid `main`".into(),
            span: Span::default(),
        }]);
    };
    let mut lw = Lw::new(checked, arch, scu_name);
    lw.run();
    if lw.errors.is_empty() {
        Ok(lw.finish())
    } else {
        Err(lw.errors)
    }
}

/// Reads, checks and lowers a P4 program held in memory (tests and tools): every diagnostic, the
/// lowering's problems included (as E0702), and the module when there are none. `#include "..."`
/// finds nothing but the built-in architecture files.
pub fn compile_source(name: &str, text: &str) -> (CheckReport, Option<Module>) {
    finish_read(scenic_frontend::p4::read(
        name,
        text,
        &mut scenic_frontend::p4::source::NoFiles,
    ))
}

/// [`compile_source`] for a file on disk, whose `#include "..."` files are read relative to it.
pub fn compile_path(path: &std::path::Path) -> Result<(CheckReport, Option<Module>), LoadError> {
    scenic_frontend::p4::read_path(path).map(finish_read)
}

/// The scu's name: the file's stem (`router.p4` gives `router`).
fn scu_name(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map_or_else(|| "p4".to_string(), |s| s.to_string_lossy().into_owned())
}

fn finish_read(read: scenic_frontend::p4::Read) -> (CheckReport, Option<Module>) {
    if read.ok().is_none() {
        return (read.report, None);
    }
    let (mut report, checked) = (read.report, &read.checked);
    let name = scu_name(
        checked
            .sources
            .files
            .first()
            .map_or("p4", |f| f.name.as_str()),
    );
    match lower(checked, &name) {
        Ok(module) => (report, Some(module)),
        Err(errors) => {
            for e in errors {
                let loc = Loc::File {
                    file: scenic_frontend::diag::FileId(e.span.file.0),
                    span: FileSpan {
                        lo: e.span.lo,
                        hi: e.span.hi,
                    },
                };
                report.diagnostics.push(
                    Diagnostic::at(codes::E0702, loc, e.to_string())
                        .label("not supported by scenicc's P4 reader")
                        .note("docs/p4.md lists the supported subset of P4_16"),
                );
            }
            (report, None)
        }
    }
}

/// What a parameter of a block or action, or a path expression, denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// `packet_in` / `packet_out`.
    Packet,
    /// A struct inside the headers struct: its aggregate and the path prefix of its fields.
    Headers { agg: usize, prefix: String },
    /// A header instance, or an element of a stack.
    Header { inst: InstId, index: Option<u32> },
    /// A whole header stack.
    Stack(InstId),
    /// A field of a header instance.
    Field {
        inst: InstId,
        index: Option<u32>,
        field: u32,
    },
    /// Storage in `meta` or in a local, with its P4 type.
    Place(Place, scenic_frontend::p4::check::Ty),
    /// Bits `hi..=lo` of a header stack element's field (an assignment target).
    Slice(Box<Bound>, u32, u32),
}

/// One instance of a parser or control: how its parameters are bound and where its state lives.
#[derive(Clone, Debug)]
pub(crate) struct Inst {
    /// Instance path relative to the top-level block (`""`, `c`, `c.d`).
    pub(crate) path: String,
    /// A key unique across the whole pipeline.
    pub(crate) key: String,
    /// The top-level block's declaration name (to tell tables of ingress and egress apart).
    pub(crate) top: String,
    /// Parameter bindings.
    pub(crate) params: HashMap<Owner, Vec<Bound>>,
}

impl Inst {
    /// The name of something declared in this instance.
    pub(crate) fn name(&self, local: &str) -> String {
        if self.path.is_empty() {
            local.to_string()
        } else {
            format!("{}.{local}", self.path)
        }
    }
}

/// The state of one lowering.
pub(crate) struct Lw<'c> {
    pub(crate) ck: &'c Checked,
    pub(crate) arch: &'c scenic_frontend::p4::check::Arch,
    pub(crate) module: Module,
    pub(crate) scu: Scu,
    /// Fields of the `meta` struct being built.
    pub(crate) meta_fields: Vec<Field>,
    pub(crate) std_field: u32,
    pub(crate) user_field: u32,
    /// The v1model output port saved before egress.
    pub(crate) port_field: Option<u32>,
    pub(crate) headers: HashMap<usize, HeaderId>,
    pub(crate) structs: HashMap<usize, StructId>,
    /// Header instances by path in the headers struct.
    pub(crate) instances: HashMap<String, InstId>,
    /// P4 error index to IR error.
    pub(crate) error_ids: Vec<ErrorId>,
    pub(crate) actions: HashMap<(String, DeclRef), ActionId>,
    /// Miss copies of actions (tables whose hit/miss is read).
    pub(crate) miss_actions: HashMap<(String, DeclRef), ActionId>,
    pub(crate) tables: HashMap<(String, DeclRef), TableId>,
    /// The top-level block of each table, for renaming on clashes.
    pub(crate) table_tops: Vec<(TableId, String)>,
    pub(crate) counters: HashMap<(String, DeclRef), CounterId>,
    pub(crate) maps: HashMap<(String, DeclRef), MapId>,
    /// Registers and counters annotated `@scenic_csr` (csr.rs): the CSR each holds.
    pub(crate) csr_instances: HashMap<DeclRef, CsrId>,
    /// Vitis user-metadata fields annotated `@scenic_csr`: field position and CSR.
    pub(crate) csr_meta_fields: Vec<(u32, CsrId)>,
    pub(crate) csum_fields: HashMap<(String, DeclRef), u32>,
    pub(crate) var_fields: HashMap<(String, VarId), u32>,
    /// Headers created for `advance(n)`, by width.
    pub(crate) skip_headers: HashMap<u32, InstId>,
    /// Functions made for controls that `exit`, by instance key.
    pub(crate) functions: HashMap<String, FuncId>,
    pub(crate) errors: Vec<P4LowerError>,
}

impl<'c> Lw<'c> {
    fn new(ck: &'c Checked, arch: &'c scenic_frontend::p4::check::Arch, name: &str) -> Lw<'c> {
        let root = ck.sources.files.first();
        Lw {
            ck,
            arch,
            module: Module {
                source_name: root.map(|f| f.name.clone()).unwrap_or_default(),
                ..Module::default()
            },
            scu: Scu {
                name: name.to_string(),
                attach: Attach::SlowPath,
                csrs: Default::default(),
                instances: Default::default(),
                meta: None,
                errors: Default::default(),
                parser: None,
                tables: Default::default(),
                actions: Default::default(),
                maps: Default::default(),
                counters: Default::default(),
                meters: Default::default(),
                outs: Default::default(),
                control: None,
                on_parser_error: None,
                deparser: None,
                stream: None,
                every: Vec::new(),
                span: Span::default(),
            },
            meta_fields: Vec::new(),
            std_field: 0,
            user_field: 1,
            port_field: None,
            headers: HashMap::new(),
            structs: HashMap::new(),
            instances: HashMap::new(),
            error_ids: Vec::new(),
            actions: HashMap::new(),
            miss_actions: HashMap::new(),
            tables: HashMap::new(),
            table_tops: Vec::new(),
            counters: HashMap::new(),
            maps: HashMap::new(),
            csr_instances: HashMap::new(),
            csr_meta_fields: Vec::new(),
            csum_fields: HashMap::new(),
            var_fields: HashMap::new(),
            skip_headers: HashMap::new(),
            functions: HashMap::new(),
            errors: Vec::new(),
        }
    }

    /// An IR span for an expanded-text span of the program.
    pub(crate) fn span(&self, span: scenic_frontend::span::Span) -> Span {
        match self.ck.sources.locate(span) {
            Some((file, s)) => Span {
                file: crate::ir_file(file),
                lo: s.lo,
                hi: s.hi,
            },
            None => Span::default(),
        }
    }

    /// Records a construct the lowering cannot express.
    pub(crate) fn unsupported(
        &mut self,
        span: scenic_frontend::span::Span,
        what: impl Into<String>,
    ) {
        let span = self.span(span);
        self.errors.push(P4LowerError {
            what: what.into(),
            span,
        });
    }

    /// Adds a field to `meta` and returns its position.
    pub(crate) fn meta_field(&mut self, name: String, ty: scenic_ir::types::Type) -> u32 {
        self.meta_fields.push(Field {
            name,
            ty,
            offset: 0,
        });
        (self.meta_fields.len() - 1) as u32
    }

    fn finish(mut self) -> Module {
        self.rename_clashing_tables();
        let meta = self.module.structs.push(StructLayout {
            name: "meta".into(),
            fields: std::mem::take(&mut self.meta_fields),
        });
        self.scu.meta = Some(meta);
        self.module.scus.push(self.scu);
        self.module
    }

    /// Tables of different top-level controls with one name get the control's name in front.
    fn rename_clashing_tables(&mut self) {
        let mut count: HashMap<String, usize> = HashMap::new();
        for t in self.scu.tables.values() {
            *count.entry(t.name.clone()).or_default() += 1;
        }
        for (id, top) in &self.table_tops {
            let table = &mut self.scu.tables[*id];
            if count.get(&table.name).copied().unwrap_or(0) > 1 {
                table.name = format!("{top}.{}", table.name);
            }
        }
    }
}
