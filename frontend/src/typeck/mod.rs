//! Type checking and the language's static rules.
//!
//! A [`Checker`] checks the bodies of one chunk (a function, a control block, a parser, a table's
//! entries, an initialiser, ...) against the signatures of everything it refers to. It folds constants
//! as it types ([`Typed::value`]), so constant contexts (sizes, slice bounds, loop bounds, entries) use
//! the same rules as runtime code. The result of checking a chunk ([`BodyCheck`]) holds its
//! diagnostics (chunk-relative) and a [`Summary`] that the container-level checks (`container.rs`)
//! combine: which members are used, which functions are called, how often each table is applied.
//!
//! Submodules: `expr` (operators, literals, casts), `name` (paths), `unknown` (names that cannot be
//! found), `call` (functions, builtins and methods), `stmt`, `pattern`, `parser`, `table`, `body`
//! (the per-chunk query), `container`.

mod body;
mod call;
mod cond;
pub mod container;
mod exact;
mod expr;
mod method;
mod name;
mod ops;
mod parser;
mod pattern;
pub mod records;
pub mod signature;
mod stmt;
mod table;
mod unknown;

pub use body::{check_body, BodyCheck};
pub use name::Res;
pub use pattern::BUILTIN_PARSER_ERRORS;

use crate::consteval::Value;
use crate::db::SourceFile;
use crate::diag::{Code, Diagnostic};
use crate::resolve::index::{Container, ModuleIndex};
use crate::span::Span;
use crate::types::Ty;
use indexmap::{IndexMap, IndexSet};
use std::sync::Arc;

/// A checked expression: its type and, if it is constant, its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    /// The type.
    pub ty: Ty,
    /// The value, when known at compile time.
    pub value: Option<Value>,
}

impl Typed {
    /// A runtime value of type `ty`.
    pub fn of(ty: Ty) -> Typed {
        Typed { ty, value: None }
    }

    /// The poison value.
    pub fn error() -> Typed {
        Typed::of(Ty::Error)
    }
}

/// What kind of body is being checked, which decides the builtins and statements allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// An initialiser or other constant expression.
    Const,
    /// A top-level function, or a function inside an scu/cc.
    Fn {
        /// Its return type.
        ret: Ty,
        /// Whether it is inside an scu (`true`) or a cc (`false`), or top-level (`None`).
        in_scu: Option<bool>,
    },
    /// `control { }`.
    Control,
    /// A parser state.
    Parser,
    /// `deparser { }`.
    Deparser,
    /// `action name(..) { }`.
    Action,
    /// `stream(word) { }`.
    Stream,
    /// `every T { }`.
    Every,
    /// `on parser_error(e) { }`.
    ParserError,
    /// A congestion-controller handler.
    CcHandler,
}

impl BodyKind {
    /// Bodies that process a packet (and may use `packet`, outputs, tables).
    pub fn is_packet(&self) -> bool {
        matches!(
            self,
            BodyKind::Control
                | BodyKind::Action
                | BodyKind::ParserError
                | BodyKind::Fn {
                    in_scu: Some(true),
                    ..
                }
        )
    }
}

/// A local variable.
#[derive(Clone, Debug)]
pub struct Local {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Whether it may be assigned.
    pub mutable: bool,
    /// Its value, for loop variables (a constant in each unrolled iteration).
    pub value: Option<Value>,
    /// Where it is declared.
    pub span: Span,
    /// Whether it has been read.
    pub used: bool,
    /// What it is, for messages: "variable", "parameter", "loop variable", ...
    pub what: &'static str,
}

/// Counts of table applies and calls along the worst path through a body.
pub type PathCounts = IndexMap<PathKey, u32>;

/// What [`PathCounts`] counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathKey {
    /// `t.apply()` of the table named.
    Apply(String),
    /// A call to the scu/cc function or action named.
    Call(String),
}

/// What the container-level checks need to know about a checked body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Members and module items referred to, by name.
    pub used: IndexSet<String>,
    /// Calls to scu/cc functions and actions and to top-level functions, with a call site.
    pub calls: Vec<(String, Span)>,
    /// Worst-path counts of applies and calls.
    pub counts: PathCounts,
    /// The first two apply sites of each table in this chunk, for messages.
    pub apply_sites: IndexMap<String, Vec<Span>>,
    /// Header instances extracted (parser) or emitted (deparser).
    pub headers: IndexSet<String>,
}

/// The checker for one chunk.
pub struct Checker<'db> {
    pub(crate) db: &'db dyn salsa::Database,
    pub(crate) file: SourceFile,
    pub(crate) index: Arc<ModuleIndex>,
    pub(crate) container: Option<usize>,
    pub(crate) kind: BodyKind,
    pub(crate) scopes: Vec<Vec<Local>>,
    pub(crate) diags: Vec<Diagnostic>,
    pub(crate) summary: Summary,
    /// Counts along the path being checked.
    pub(crate) path: PathCounts,
    /// Whether the current path has ended (`return`, `drop()`); statements after it are unreachable.
    pub(crate) ended: bool,
    /// The width of every slice checked so far, by the span of its bounds: a slice whose bounds use
    /// a loop variable is checked once per unrolled iteration and must keep its width (E0204).
    pub(crate) slice_widths: IndexMap<Span, u32>,
    /// The type and constant value of every expression checked, by [`crate::ast::ExprId`].
    pub(crate) infos: ExprInfos,
    /// Constants whose exact value does not fit their type, waiting for an enclosing constant
    /// expression to absorb them ([`exact`]).
    pub(crate) unfit: Vec<(Span, Value, Ty)>,
}

/// What the checker found for one expression: its type and, when constant, its value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExprInfo {
    /// The type (after conversion of a constant to the type its context expects).
    pub ty: Ty,
    /// The value, when it is the same constant every time the expression is evaluated (an
    /// expression inside an unrolled loop that depends on the loop variable has none).
    pub value: Option<Value>,
}

/// Expression facts of one chunk, indexed by expression id; later stages (lowering to the IR) read
/// them instead of re-deriving types.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExprInfos(pub Vec<Option<ExprInfo>>);

impl ExprInfos {
    /// The facts about expression `id`, if it was checked.
    pub fn get(&self, id: crate::ast::ExprId) -> Option<&ExprInfo> {
        self.0.get(id.index()).and_then(Option::as_ref)
    }

    /// Records `typed` for `id`; a second, different value (another loop iteration) clears it.
    fn record(&mut self, id: crate::ast::ExprId, typed: &Typed) {
        if id.0 == u32::MAX || typed.ty.is_error() {
            return;
        }
        let index = id.index();
        if self.0.len() <= index {
            self.0.resize(index + 1, None);
        }
        let slot = &mut self.0[index];
        match slot {
            Some(info) if info.value != typed.value => info.value = None,
            Some(_) => {}
            None => {
                *slot = Some(ExprInfo {
                    ty: typed.ty.clone(),
                    value: typed.value.clone(),
                })
            }
        }
    }
}

impl<'db> Checker<'db> {
    /// A checker for chunk `chunk` of `file`.
    pub fn new(
        db: &'db dyn salsa::Database,
        file: SourceFile,
        chunk: u32,
        kind: BodyKind,
    ) -> Checker<'db> {
        let index = crate::resolve::index::module_index(db, file);
        let container = index.container_of.get(&chunk).copied();
        Checker {
            db,
            file,
            index,
            container,
            kind,
            scopes: vec![Vec::new()],
            diags: Vec::new(),
            summary: Summary::default(),
            path: PathCounts::new(),
            ended: false,
            slice_widths: IndexMap::new(),
            infos: ExprInfos::default(),
            unfit: Vec::new(),
        }
    }

    /// The scu/cc this chunk belongs to.
    pub(crate) fn container(&self) -> Option<&Container> {
        self.container.and_then(|i| self.index.containers.get(i))
    }

    /// Whether the chunk is inside a `cc`.
    pub(crate) fn in_cc(&self) -> bool {
        self.container().is_some_and(|c| c.is_cc)
    }

    /// Records the type and value found for expression `e`.
    pub(crate) fn record(&mut self, e: &crate::ast::Expr, typed: &Typed) {
        self.infos.record(e.id, typed);
    }

    /// Records a diagnostic.
    pub(crate) fn report(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Records a simple error at `span`.
    pub(crate) fn error(
        &mut self,
        code: Code,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) {
        self.report(Diagnostic::new(code, span, message).label(label));
    }

    /// Opens a block scope.
    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Closes a block scope, warning about locals never read.
    pub(crate) fn pop_scope(&mut self) {
        let Some(scope) = self.scopes.pop() else {
            return;
        };
        for local in scope {
            if !local.used && !local.name.starts_with('_') {
                self.report(
                    Diagnostic::new(
                        crate::diag::codes::W0001,
                        local.span,
                        format!("unused {} `{}`", local.what, local.name),
                    )
                    .label("never read")
                    .help(format!(
                        "remove it, or name it `_{}` if it is unused on purpose",
                        local.name
                    )),
                );
            }
        }
    }

    /// Declares a local in the innermost scope, warning when it shadows another name.
    pub(crate) fn declare(&mut self, local: Local) {
        if local.name != "_" {
            self.warn_shadowing(&local);
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(local);
        }
    }

    fn warn_shadowing(&mut self, local: &Local) {
        let outer_local = self.find_local(&local.name).map(|l| l.span);
        let member = self
            .container()
            .and_then(|c| c.members.get(&local.name))
            .is_some();
        let shadowed = match (outer_local, member) {
            (Some(span), _) => Some(
                Diagnostic::new(
                    crate::diag::codes::W0003,
                    local.span,
                    format!("`{}` shadows an earlier variable", local.name),
                )
                .label("new variable")
                .secondary(span, "shadowed variable declared here"),
            ),
            (None, true) => Some(
                Diagnostic::new(
                    crate::diag::codes::W0003,
                    local.span,
                    format!(
                        "`{}` shadows a member of this {}",
                        local.name,
                        if self.in_cc() { "cc" } else { "scu" }
                    ),
                )
                .label("hides the member of the same name"),
            ),
            (None, false) if name::BUILTINS.contains(&local.name.as_str()) => Some(
                Diagnostic::new(
                    crate::diag::codes::W0003,
                    local.span,
                    format!("`{}` shadows a builtin", local.name),
                )
                .label("hides the builtin of the same name"),
            ),
            _ => None,
        };
        if let Some(diag) = shadowed {
            self.report(diag.help("use a different name"));
        }
    }

    /// The innermost local named `name`.
    pub(crate) fn find_local(&self, name: &str) -> Option<&Local> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|l| l.name == name)
    }

    /// Marks the innermost local named `name` as read, returning a copy.
    pub(crate) fn use_local(&mut self, name: &str) -> Option<Local> {
        let local = self
            .scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|l| l.name == name)?;
        local.used = true;
        Some(local.clone())
    }

    /// Notes that a member or item was used.
    pub(crate) fn note_use(&mut self, name: &str) {
        self.summary.used.insert(name.to_string());
    }

    /// Adds `n` to the current path's count for `key`.
    pub(crate) fn count(&mut self, key: PathKey, n: u32) {
        *self.path.entry(key).or_insert(0) += n;
    }
}

/// Merges the counts of alternative paths: the worst case of each key.
pub(crate) fn max_counts(a: &PathCounts, b: &PathCounts) -> PathCounts {
    let mut out = a.clone();
    for (key, n) in b {
        let slot = out.entry(key.clone()).or_insert(0);
        *slot = (*slot).max(*n);
    }
    out
}
