//! The P4 writer: one program for one scu, assembled from sections written by the files of this
//! folder, one per concern.
//!
//! - [`types`]: header and struct types, `headers_t`, `metadata_t` (the metadata layouts), errors.
//! - [`parser`]: the parser state machine.
//! - [`control`]: the control with its externs, CSRs, variables, actions and `apply` block;
//!   [`table`] writes the tables and their entries.
//! - [`body`] and [`expr`]: statements and expressions of every body (early exits made structured,
//!   reads of maybe-invalid headers guarded).
//! - [`deparser`]: the emits, and the deparser computations moved into the control.
//! - [`target`]: what differs between the architectures (includes, ports, drop, the package).
//!
//! Every name is declared before it is used, in this order: includes and constants, errors, header
//! types, struct types, `headers_t`, `metadata_t`, the parser, the controls, the package.

pub mod apply;
pub mod body;
pub mod control;
pub mod deparser;
pub mod expr;
pub mod parser;
pub mod stmt;
pub mod table;
pub mod target;
pub mod types;

use crate::analysis::{self, Plan};
use crate::error::{Error, Errors};
use crate::namer::Namer;
use crate::prepare::Prepared;
use crate::{Options, Target};
use scenic_ir::{
    ActionId, CounterId, CsrId, ErrorId, HeaderId, InstId, Module, Scu, ScuId, StateId, StructId,
    TableId,
};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One level of indentation.
pub const INDENT: &str = "    ";

/// The P4 names of the program's declarations.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Header type names (`ethernet_t`).
    pub header_types: BTreeMap<HeaderId, String>,
    /// Field names of each header type.
    pub header_fields: BTreeMap<HeaderId, Vec<String>>,
    /// Struct type names.
    pub struct_types: BTreeMap<StructId, String>,
    /// Field names of each struct type.
    pub struct_fields: BTreeMap<StructId, Vec<String>>,
    /// Members of `headers_t`.
    pub instances: BTreeMap<InstId, String>,
    /// The program's `meta` fields in `metadata_t`.
    pub meta_fields: Vec<String>,
    /// Members of `error` (`PacketTooShort`, `ip_options`).
    pub errors: BTreeMap<ErrorId, String>,
    /// Parser states.
    pub states: BTreeMap<StateId, String>,
    /// Tables.
    pub tables: BTreeMap<TableId, String>,
    /// Actions (`NoAction` for `no_action`).
    pub actions: BTreeMap<ActionId, String>,
    /// Counters.
    pub counters: BTreeMap<CounterId, String>,
    /// CSRs: the declaration (register, counter or metadata field) and, for registers, the
    /// variable holding its value during the control.
    pub csrs: BTreeMap<CsrId, (String, String)>,
    /// Vitis: the shell's fields of `metadata_t`.
    pub shell: target::ShellFields,
    /// The control's `scenic_done` flag.
    pub done_flag: String,
    /// The control's scope after the names above (the bodies' locals are named from it).
    pub control_namer: Namer,
}

/// What every section writer reads.
pub struct Ctx<'a> {
    /// The simplified module.
    pub module: &'a Module,
    /// The scu being written.
    pub scu: &'a Scu,
    /// Its id.
    pub scu_id: ScuId,
    /// The target.
    pub target: Target,
    /// The options.
    pub options: &'a Options,
    /// The analysis results.
    pub plan: &'a Plan,
    /// The names.
    pub names: Names,
}

impl Ctx<'_> {
    /// A constant of type `ty` in P4: a literal, or for a parser error `error.NAME` (P4's
    /// `error` is not a number; scenicc's IR numbers them).
    pub fn literal(&self, c: &scenic_ir::Const, ty: &scenic_ir::Type) -> String {
        if *ty == scenic_ir::Type::ParserError {
            let id = c.to_u64().map(|v| ErrorId::from_u32(v as u32));
            let name = id
                .and_then(|id| self.names.errors.get(&id))
                .cloned()
                .unwrap_or_else(|| "NoError".into());
            return format!("error.{name}");
        }
        crate::conv::literal(c, ty, self.module)
    }
}

/// Writes the program, or returns every error found.
pub fn write(prepared: &Prepared, options: &Options) -> Result<String, Errors> {
    let module = &prepared.module;
    let Some(scu) = module.scus.get(prepared.scu) else {
        return Err(Error::Internal("the chosen scu is missing".into()).into());
    };
    let plan = analysis::analyze(module, scu, options.target).map_err(sorted)?;
    let mut cx = Ctx {
        module,
        scu,
        scu_id: prepared.scu,
        target: options.target,
        options,
        plan: &plan,
        names: Names::default(),
    };
    types::name_everything(&mut cx);
    let mut errors = Vec::new();
    let mut out = String::new();
    target::write_preamble(&cx, &mut out);
    types::write_types(&cx, &mut out);
    parser::write_parser(&cx, &mut out, &mut errors);
    control::write_controls(&cx, &mut out, &mut errors);
    deparser::write_deparser(&cx, &mut out);
    target::write_package(&cx, &mut out);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(sorted(errors))
    }
}

/// Errors in source order, duplicates removed.
fn sorted(mut errors: Vec<Error>) -> Errors {
    errors.sort_by_key(|e| e.span().map(|s| (s.file.0, s.lo, s.hi)));
    errors.dedup();
    Errors(errors)
}

/// A block of P4 text under construction, with its indentation level.
#[derive(Clone, Debug, Default)]
pub struct Code {
    /// The text so far.
    pub text: String,
    /// The current indentation level.
    pub level: usize,
}

impl Code {
    /// Code starting at indentation `level`.
    pub fn at(level: usize) -> Code {
        Code {
            text: String::new(),
            level,
        }
    }

    /// Appends one line at the current level.
    pub fn line(&mut self, line: impl AsRef<str>) {
        let line = line.as_ref();
        if line.is_empty() {
            self.text.push('\n');
            return;
        }
        for _ in 0..self.level {
            self.text.push_str(INDENT);
        }
        let _ = writeln!(self.text, "{line}");
    }

    /// Appends a line and indents what follows (`if (...) {`).
    pub fn open(&mut self, line: impl AsRef<str>) {
        self.line(line);
        self.level += 1;
    }

    /// Dedents and appends a line (`}`).
    pub fn close(&mut self, line: impl AsRef<str>) {
        self.level = self.level.saturating_sub(1);
        self.line(line);
    }

    /// Appends another block's text as is (it was written at the right level).
    pub fn append(&mut self, other: &Code) {
        self.text.push_str(&other.text);
    }
}

/// A fresh namer for a control's scope, with the program's global names taken.
pub fn control_namer(cx: &Ctx<'_>) -> Namer {
    let mut namer = Namer::new();
    for name in cx
        .names
        .header_types
        .values()
        .chain(cx.names.struct_types.values())
    {
        namer.reserve(name);
    }
    namer
}
