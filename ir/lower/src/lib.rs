//! scenic-lower: from the checked AST (`.sn` and P4_16) to the IR, and [`check`], the whole check of
//! `scenicc check` (frontend diagnostics, lowering, validation and the timing budgets). The only
//! crate of `ir/` that depends on the frontend (and so on pest and salsa).
//!
//! Lowering: from the checked AST to the IR.
//!
//! The frontend has already resolved names, checked types and folded constants; lowering reads its
//! results (chunk ASTs, signatures, and the per-expression types and values the checker recorded)
//! and builds arenas. It runs only on programs that check without errors, and is the only stage that
//! reads the AST. Layouts, enums and top-level functions are lowered on first use, so only what the
//! program's scus and ccs reach ends up in the module.
//!
//! Submodules: `types` (types, layouts, constants), `scu` and `cc` (containers and their members),
//! `expr` and `stmt` (bodies), `parser`, `table`.

#![deny(missing_docs)]

mod binary;
mod cc;
pub mod check;
mod expr;
mod method;
pub mod p4;
mod parser;
mod pattern;
mod place;
mod scu;
mod stmt;
mod table;
mod types;

use scenic_frontend::db::{chunk_ast, ChunkKey, SourceFile};
use scenic_frontend::resolve::index::{module_index, Container};
use scenic_frontend::types::DefId;
use scenic_frontend::Session;
use scenic_ir::entities::*;
use scenic_ir::program::*;
use std::collections::HashMap;

/// Why a program could not be lowered.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LowerError {
    /// The program has errors; lowering needs a clean check.
    #[error("the program has {0} error(s); fix them before building")]
    NotChecked(usize),
    /// A construct the lowering does not handle (a compiler bug: the checker accepted it).
    #[error("internal error: cannot lower {what} at {file}:{offset}")]
    Unsupported {
        /// What could not be lowered.
        what: String,
        /// The file.
        file: String,
        /// The byte offset.
        offset: u32,
    },
}

/// Checks `session`'s root files and lowers the first root into a module.
pub fn lower_session(session: &mut Session) -> Result<Module, LowerError> {
    let report = session.check(scenic_frontend::CheckOptions::default());
    if report.error_count() > 0 {
        return Err(LowerError::NotChecked(report.error_count()));
    }
    let Some(&root) = session.roots().first() else {
        return Ok(Module::default());
    };
    lower_file(session.db(), root)
}

/// Lowers every scu and cc of `root` (which must check without errors).
pub fn lower_file(db: &dyn salsa::Database, root: SourceFile) -> Result<Module, LowerError> {
    let mut lowerer = Lowerer {
        db,
        module: Module {
            source_name: root.name(db).clone(),
            ..Module::default()
        },
        headers: HashMap::new(),
        structs: HashMap::new(),
        enums: HashMap::new(),
        functions: HashMap::new(),
        pending: Vec::new(),
        scu_ids: HashMap::new(),
        errors: Vec::new(),
    };
    let index = module_index(db, root);
    for container in &index.containers {
        if !container.is_cc {
            let id = ScuId::from_u32(lowerer.scu_ids.len() as u32);
            lowerer.scu_ids.insert(container.name.clone(), id);
        }
    }
    for container in &index.containers {
        if container.is_cc {
            lowerer.lower_cc(root, container);
        } else {
            lowerer.lower_scu(root, container);
        }
    }
    lowerer.finish_functions();
    match lowerer.errors.into_iter().next() {
        Some(err) => Err(err),
        None => Ok(lowerer.module),
    }
}

/// The state of one lowering.
pub(crate) struct Lowerer<'db> {
    pub(crate) db: &'db dyn salsa::Database,
    pub(crate) module: Module,
    pub(crate) headers: HashMap<DefId, HeaderId>,
    pub(crate) structs: HashMap<DefId, StructId>,
    pub(crate) enums: HashMap<DefId, EnumId>,
    /// Top-level functions by definition.
    pub(crate) functions: HashMap<DefId, FuncId>,
    /// Functions created but whose bodies are not lowered yet.
    pub(crate) pending: Vec<(FuncId, SourceFile, u32, Option<ScuCx>)>,
    /// Scus of the root file by name (for `to_scu`).
    pub(crate) scu_ids: HashMap<String, ScuId>,
    pub(crate) errors: Vec<LowerError>,
}

/// What member names of an scu or cc refer to in the IR.
#[derive(Clone, Debug, Default)]
pub(crate) struct ScuCx {
    pub(crate) scu: Option<ScuId>,
    pub(crate) cc: Option<CcId>,
    pub(crate) csrs: HashMap<String, CsrId>,
    pub(crate) instances: HashMap<String, InstId>,
    pub(crate) tables: HashMap<String, TableId>,
    pub(crate) actions: HashMap<String, ActionId>,
    pub(crate) maps: HashMap<String, MapId>,
    pub(crate) counters: HashMap<String, CounterId>,
    pub(crate) meters: HashMap<String, MeterId>,
    pub(crate) outs: HashMap<String, OutId>,
    pub(crate) functions: HashMap<String, FuncId>,
    pub(crate) errors: HashMap<String, ErrorId>,
    pub(crate) cc_state: HashMap<String, CcStateId>,
    pub(crate) cc_params: HashMap<String, CcParamId>,
    pub(crate) timers: HashMap<String, TimerId>,
    pub(crate) meta: Option<StructId>,
    pub(crate) meta_fields: Vec<String>,
    /// The header of each instance (the scu is not in the module while it is being built).
    pub(crate) instance_headers: HashMap<InstId, HeaderId>,
    /// Parameter types of each action.
    pub(crate) action_params: HashMap<ActionId, Vec<scenic_ir::types::Type>>,
    /// The name bound by `rdma(qp)` / `tcp(flow)`.
    pub(crate) flow_binding: Option<String>,
    /// Key and value types of each map.
    pub(crate) map_types: HashMap<MapId, (scenic_ir::types::Type, scenic_ir::types::Type)>,
    /// Where each table's action list comes from: action ids in table order.
    pub(crate) table_actions: HashMap<TableId, Vec<ActionId>>,
    /// Action names of each table, in table order (positions are `TableResult` values).
    pub(crate) table_action_names: HashMap<TableId, Vec<String>>,
    /// The `no_action` of this scu, once a table needed it.
    pub(crate) no_action: Option<ActionId>,
}

impl<'db> Lowerer<'db> {
    /// The AST of chunk `chunk` of `file`.
    pub(crate) fn ast(
        &self,
        file: SourceFile,
        chunk: u32,
    ) -> std::sync::Arc<scenic_frontend::parse::ParsedChunk> {
        chunk_ast(self.db, ChunkKey::new(self.db, file, chunk))
    }

    /// Records an internal error at a chunk-relative span of `file`'s chunk.
    pub(crate) fn unsupported(&mut self, file: SourceFile, what: impl Into<String>, offset: u32) {
        self.errors.push(LowerError::Unsupported {
            what: what.into(),
            file: file.name(self.db).clone(),
            offset,
        });
    }

    /// Lowers the bodies of functions created on demand, until none is left.
    fn finish_functions(&mut self) {
        while let Some((id, file, chunk, cx)) = self.pending.pop() {
            self.lower_function_body(id, file, chunk, cx.unwrap_or_default());
        }
    }
}

/// The chunk-relative span of a container's head, as an IR span.
pub(crate) fn container_span(
    db: &dyn salsa::Database,
    file: SourceFile,
    container: &Container,
) -> scenic_ir::span::Span {
    let span = scenic_frontend::db::chunk_span(db, file, container.head);
    scenic_ir::span::Span {
        file: crate::ir_file(file.id(db)),
        lo: span.lo,
        hi: span.hi,
    }
}

/// The IR's number for a frontend file: the same index, in the IR's own type.
pub(crate) fn ir_file(file: scenic_frontend::diag::FileId) -> scenic_ir::span::FileId {
    scenic_ir::span::FileId(file.0)
}
