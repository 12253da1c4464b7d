//! Name resolution and type checking of P4_16 programs, for the subset scenicc supports.
//!
//! P4 declares before use, so one pass over the declarations in order resolves every name: the
//! checker keeps the global names, then the scopes of the parser, control or action being checked.
//! It records, per expression, its type ([`Checked::types`]), its compile-time value when it has one
//! ([`Checked::values`]) and what a name or member denotes ([`Checked::res`]); per table and parser,
//! the resolved actions, entries and select cases; and which blocks the architecture's `main`
//! instantiates ([`Checked::arch`]). The lowering to the IR (`scenic_ir::lower::p4`) reads only the
//! AST and these tables, and never meets a construct the checker did not accept: everything outside
//! the subset is reported here as E0702 "not supported yet", with a span.
//!
//! Submodules: `types` (the type model), `decls` (top-level declarations and written types),
//! `expr` and `call` (expressions), `stmt` (statements and places), `parser`, `control` (actions and
//! tables), `arch` (the `main` package: v1model's `V1Switch` and VNP4's `XilinxPipeline`).

mod arch;
mod call;
mod control;
mod decls;
mod expr;
mod ops;
mod parser;
mod stmt;
pub mod types;

pub use arch::{Arch, ArchKind, BlockRole, ParamRole};
pub use types::{Aggregate, EnumInfo, Env, Ty};

use super::ast::{Direction, Program};
use super::parse::unsupported;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use num_bigint::BigInt;
use std::collections::HashMap;

/// A declaration: a top-level one (`local: None`) or a local of a parser or control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeclRef {
    /// The top-level declaration's index in [`Program::decls`].
    pub decl: usize,
    /// The local's index in the parser's or control's locals.
    pub local: Option<usize>,
}

/// Whose parameter a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A parser's or control's (top-level declaration index).
    Block(usize),
    /// An action's.
    Action(DeclRef),
}

/// A variable declared in a block, parser or control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Where it lives.
    pub scope: VarScope,
    /// Where it is declared.
    pub span: Span,
}

/// Where a variable lives, which decides how long it keeps its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarScope {
    /// Declared at a parser's or control's top level (or in a parser state): lives for the whole
    /// packet in that block, visible to its actions and states.
    Block(usize),
    /// Declared in a statement block (an `apply`, an action body): lives until the block ends.
    Local,
}

/// The index of a variable in [`Checked::vars`].
pub type VarId = usize;

/// Extern methods and built-in operations the reader gives meaning to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `packet_in.extract(h)`.
    Extract,
    /// `packet_in.lookahead<T>()`.
    Lookahead,
    /// `packet_in.advance(n)`.
    Advance,
    /// `packet_out.emit(h)`.
    Emit,
    /// `h.isValid()`.
    IsValid,
    /// `h.setValid()`.
    SetValid,
    /// `h.setInvalid()`.
    SetInvalid,
    /// `t.apply()`.
    TableApply(DeclRef),
    /// `c.apply(args)` of a control instance.
    ControlApply(DeclRef),
    /// A direct call of an action.
    Action(DeclRef),
    /// `verify(cond, err)`.
    Verify,
    /// v1model `mark_to_drop(standard_metadata)`.
    MarkToDrop,
    /// v1model `verify_checksum(cond, data, checksum, csum16)`.
    VerifyChecksum,
    /// v1model `update_checksum(cond, data, checksum, csum16)`.
    UpdateChecksum,
    /// `counter.count(index)` (v1model `counter`, VNP4 `Counter`).
    Count(DeclRef),
    /// v1model `register.read(out value, index)`.
    RegisterRead(DeclRef),
    /// v1model `register.write(index, value)`.
    RegisterWrite(DeclRef),
    /// VNP4 `InternetChecksum.clear()`.
    CsumClear(DeclRef),
    /// VNP4 `InternetChecksum.add(data)`.
    CsumAdd(DeclRef),
    /// VNP4 `InternetChecksum.subtract(data)`.
    CsumSubtract(DeclRef),
    /// VNP4 `InternetChecksum.get()`.
    CsumGet(DeclRef),
    /// VNP4 `InternetChecksum.get_state()`.
    CsumGetState(DeclRef),
    /// VNP4 `InternetChecksum.set_state(s)`.
    CsumSetState(DeclRef),
    /// v1model `hash(result, algorithm, base, data, max)` with a constant `base` and a power of
    /// two `max`.
    Hash(HashKind),
}

/// The `HashAlgorithm`s the reader gives meaning to (the IR's intrinsics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashKind {
    /// `crc32`: IEEE 802.3 CRC-32 over the data's bytes.
    Crc32,
    /// `crc16`: CRC-16/ARC over the data's bytes.
    Crc16,
    /// `csum16`: the Internet checksum of the data's 16-bit words.
    Csum16,
}

/// What a name, member or call expression denotes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Res {
    /// Nothing to resolve (operators, literals), or an error was reported.
    #[default]
    None,
    /// A variable.
    Var(VarId),
    /// A parameter (its position).
    Param(Owner, usize),
    /// A compile-time constant (the value is in [`Checked::values`]).
    Const,
    /// A field of a header or struct (its position).
    Field(usize),
    /// `stack.next` in `extract`.
    StackNext,
    /// A table.
    Table(DeclRef),
    /// An action.
    Action(DeclRef),
    /// An instance of an extern or a control.
    Instance(DeclRef),
    /// A method or built-in function (the callee of a call; also recorded on the call).
    Method(Method),
    /// `t.apply().hit`.
    Hit,
    /// `t.apply().miss`.
    Miss,
    /// `t.apply().action_run`.
    ActionRun,
}

/// How one element of a keyset matches, with constants already evaluated at the key's width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyVal {
    /// Equal to the value.
    Exact(BigInt),
    /// `value &&& mask`.
    Mask(BigInt, BigInt),
    /// The top `len` bits of the value (lpm keys).
    Lpm(BigInt, u32),
    /// `lo .. hi`, inclusive.
    Range(BigInt, BigInt),
    /// `_` or `default`.
    Any,
}

/// A table after checking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    /// Key elements: expression, match kind and the name entries use.
    pub keys: Vec<KeyInfo>,
    /// The actions in `actions` order.
    pub actions: Vec<DeclRef>,
    /// The default action's position in `actions`, and its argument expressions.
    pub default: (usize, Vec<super::ast::ExprId>),
    /// `const default_action`.
    pub default_is_const: bool,
    /// `size`, if written.
    pub size: Option<u64>,
    /// Constant entries in source order.
    pub entries: Vec<EntryInfo>,
    /// `const entries`: no run-time entries.
    pub entries_const: bool,
    /// Whether `.hit`/`.miss` of an application is read (the lowering then tells a miss from a
    /// hit that chose the default action).
    pub reads_hit: bool,
}

/// A key element of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key expression.
    pub expr: super::ast::ExprId,
    /// `exact`, `lpm`, `ternary`, `range`, ...
    pub kind: String,
    /// The name STF `add` commands use: `@name("...")`, else the expression as written.
    pub name: String,
    /// The key's width.
    pub width: u32,
}

/// A constant table entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryInfo {
    /// One match per key.
    pub keys: Vec<KeyVal>,
    /// The action's position in the table's action list.
    pub action: usize,
    /// Its argument expressions (constants).
    pub args: Vec<super::ast::ExprId>,
}

/// Where a select case goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `accept`.
    Accept,
    /// `reject` (`error.NoMatch` semantics apply only to missing cases).
    Reject,
    /// A state of the parser (its position).
    State(usize),
}

/// A parser state's transition after checking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransitionInfo {
    /// Go to a target.
    Direct(Target),
    /// `select`: cases in order, each with one match per selected expression.
    Select(Vec<(Vec<KeyVal>, Target)>),
}

/// Everything the checker found, for the lowering.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The program.
    pub program: Program,
    /// Its sources.
    pub sources: super::source::Expanded,
    /// Type declarations.
    pub env: Env,
    /// The type of each expression.
    pub types: Vec<Ty>,
    /// The compile-time value of each expression that has one (bools are 0/1, errors their
    /// index in [`Env::errors`], enum members their value).
    pub values: Vec<Option<BigInt>>,
    /// What each name, member and call denotes.
    pub res: Vec<Res>,
    /// Variables.
    pub vars: Vec<VarInfo>,
    /// The variable declared by each variable declaration, by its span's start.
    pub var_at: HashMap<u32, VarId>,
    /// Tables.
    pub tables: HashMap<DeclRef, TableInfo>,
    /// Parser transitions, by parser declaration and state position.
    pub transitions: HashMap<(usize, usize), TransitionInfo>,
    /// Kinds of extern instances (`counter`, `register`, `Counter`, `InternetChecksum`) with their
    /// constructor values: size and counter kind.
    pub instances: HashMap<DeclRef, InstanceInfo>,
    /// The types of each action's parameters.
    pub action_params: HashMap<DeclRef, Vec<Ty>>,
    /// The architecture and its blocks; `None` if the program has no valid `main`.
    pub arch: Option<Arch>,
}

/// An instance declared in a parser or control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceInfo {
    /// A counter array: cells, and 0 packets / 1 bytes / 2 both.
    Counter {
        /// Number of cells.
        size: u64,
        /// 0: packets, 1: bytes, 2: packets and bytes.
        kind: u8,
        /// The index type: `bit<32>` for v1model's `counter`, `S` of Vitis's `Counter<W, S>`.
        index: Ty,
    },
    /// A register array.
    Register {
        /// Cell type.
        ty: Ty,
        /// Number of cells.
        size: u64,
    },
    /// A VNP4 InternetChecksum.
    InternetChecksum,
    /// A control instance (the control's declaration).
    Control(usize),
}

/// A name in scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    Var(VarId, Ty),
    Param(Owner, usize, Ty, Direction),
    Const(Ty, Option<BigInt>),
    Type(Ty),
    Table(DeclRef),
    Action(DeclRef),
    Instance(DeclRef, Ty),
    ExternObject(usize),
    ExternFn(String),
    Parser(usize),
    Control(usize),
    BlockType(usize),
    Package(usize),
    Unsupported(String),
}

/// Where statements being checked are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ctx {
    /// At the top level (constants, types).
    Top,
    /// In a parser state of parser `.0`.
    Parser(usize),
    /// In a control's `apply` block.
    Apply(usize),
    /// In an action (of control `.0`, if it is local to one).
    Action(Option<usize>),
}

/// The state of one check.
pub(crate) struct Checker<'p> {
    pub(crate) prog: &'p Program,
    pub(crate) out: Checked,
    pub(crate) globals: HashMap<String, (Binding, Span)>,
    pub(crate) scopes: Vec<HashMap<String, Binding>>,
    pub(crate) ctx: Ctx,
    pub(crate) diags: Vec<Diagnostic>,
    /// Extern objects by name: their declaration index.
    pub(crate) externs: HashMap<String, usize>,
    /// The expanded program text (key names are taken from it).
    pub(crate) source_text: &'p str,
}

/// Checks a parsed program; the result is complete only when no error was reported.
pub fn check(program: Program, sources: super::source::Expanded) -> (Checked, Vec<Diagnostic>) {
    let n = program.expr_count as usize;
    let mut checker = Checker {
        prog: &program,
        out: Checked {
            types: vec![Ty::Unknown; n],
            values: vec![None; n],
            res: vec![Res::None; n],
            ..Checked::default()
        },
        globals: HashMap::new(),
        scopes: Vec::new(),
        ctx: Ctx::Top,
        diags: Vec::new(),
        externs: HashMap::new(),
        source_text: &sources.text,
    };
    for (i, decl) in program.decls.iter().enumerate() {
        checker.decl(i, decl);
    }
    checker.find_main();
    let Checker { mut out, diags, .. } = checker;
    out.program = program;
    out.sources = sources;
    (out, diags)
}

impl Checker<'_> {
    pub(crate) fn error(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    pub(crate) fn unsupported(&mut self, span: Span, what: &str) {
        self.diags.push(unsupported(span, what));
    }

    pub(crate) fn type_error(&self, span: Span, message: String) -> Diagnostic {
        Diagnostic::new(codes::E0705, span, message)
    }

    /// Declares a global name; a second declaration is E0704 (extern functions may overload).
    pub(crate) fn declare_global(&mut self, name: &crate::p4::ast::Ident, binding: Binding) {
        if let Some((old, first)) = self.globals.get(&name.name) {
            let overload = matches!(
                (old, &binding),
                (Binding::ExternFn(_), Binding::ExternFn(_))
            );
            if !overload {
                let first = *first;
                self.error(
                    Diagnostic::new(
                        codes::E0704,
                        name.span,
                        format!("`{}` is declared more than once", name.name),
                    )
                    .label("declared again here")
                    .secondary(first, "first declared here"),
                );
            }
            return;
        }
        self.globals.insert(name.name.clone(), (binding, name.span));
    }

    /// Declares a name in the innermost scope; a second declaration in the same scope is E0704.
    pub(crate) fn declare_local(&mut self, name: &crate::p4::ast::Ident, binding: Binding) {
        let Some(scope) = self.scopes.last_mut() else {
            return self.declare_global(name, binding);
        };
        if scope.contains_key(&name.name) {
            self.error(
                Diagnostic::new(
                    codes::E0704,
                    name.span,
                    format!("`{}` is declared more than once in this scope", name.name),
                )
                .label("declared again here"),
            );
            return;
        }
        scope.insert(name.name.clone(), binding);
    }

    /// What a name means here, innermost scope first.
    pub(crate) fn lookup(&self, name: &str) -> Option<Binding> {
        let name = name.strip_prefix('.').unwrap_or(name);
        for scope in self.scopes.iter().rev() {
            if let Some(b) = scope.get(name) {
                return Some(b.clone());
            }
        }
        self.globals.get(name).map(|(b, _)| b.clone())
    }

    /// E0703 for a name that is not declared.
    pub(crate) fn unknown_name(&mut self, name: &crate::p4::ast::Ident, what: &str) {
        let similar = self.similar_name(&name.name);
        let mut diag = Diagnostic::new(
            codes::E0703,
            name.span,
            format!("cannot find {what} `{}`", name.name),
        )
        .label("not declared before this point");
        if let Some(s) = similar {
            diag = diag.help(format!("a name with a similar spelling exists: `{s}`"));
        }
        self.error(diag);
    }

    fn similar_name(&self, name: &str) -> Option<String> {
        let lower = name.to_ascii_lowercase();
        self.scopes
            .iter()
            .flat_map(|s| s.keys())
            .chain(self.globals.keys())
            .find(|k| k.to_ascii_lowercase() == lower && k.as_str() != name)
            .cloned()
    }

    /// Records a variable and returns its id.
    pub(crate) fn new_var(&mut self, name: &str, ty: Ty, scope: VarScope, span: Span) -> VarId {
        self.out.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            scope,
            span,
        });
        self.out.vars.len() - 1
    }

    pub(crate) fn set_type(&mut self, id: super::ast::ExprId, ty: Ty) {
        if let Some(slot) = self.out.types.get_mut(id.index()) {
            *slot = ty;
        }
    }

    pub(crate) fn set_value(&mut self, id: super::ast::ExprId, value: Option<BigInt>) {
        if let Some(slot) = self.out.values.get_mut(id.index()) {
            *slot = value;
        }
    }

    pub(crate) fn set_res(&mut self, id: super::ast::ExprId, res: Res) {
        if let Some(slot) = self.out.res.get_mut(id.index()) {
            *slot = res;
        }
    }

    pub(crate) fn value_of(&self, id: super::ast::ExprId) -> Option<&BigInt> {
        self.out.values.get(id.index()).and_then(Option::as_ref)
    }

    pub(crate) fn type_of(&self, id: super::ast::ExprId) -> Ty {
        self.out.types.get(id.index()).cloned().unwrap_or_default()
    }
}
