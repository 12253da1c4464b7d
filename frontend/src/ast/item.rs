//! Items: top-level declarations and the members of `scu` and `cc` bodies.

use super::{Block, Expr, Ident, Pattern, TypeExpr};
use crate::span::Span;

/// A top-level item (one chunk).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Item {
    /// What kind of item.
    pub kind: ItemKind,
    /// The whole item.
    pub span: Span,
}

/// The top-level item forms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// `use std::net::{ethernet, ipv4};`
    Use(UseDecl),
    /// `const NAME: T = value;`
    Const(ConstDecl),
    /// `header NAME { field: bit<N>, ... }`
    Header(RecordDecl),
    /// `struct NAME { field: T, ... }`
    Struct(RecordDecl),
    /// `enum NAME[: bit<N>] { a, b = 3, ... }`
    Enum(EnumDecl),
    /// `fn name(params) -> T { }`
    Fn(FnDecl),
    /// The head of `scu NAME on ATTACH { ... }`; the members are separate chunks.
    Scu(ScuHead),
    /// The head of `cc NAME per flow[N] budget B cycles { ... }`.
    Cc(CcHead),
    /// Unreadable input; an error was reported already.
    Error,
}

/// `use a::b::{c, d};`, `use a::b::c;` or `use a::b::*;`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UseDecl {
    /// The module path (everything before the imported names).
    pub module: Vec<Ident>,
    /// What is imported.
    pub names: UseNames,
    /// The span of the module path.
    pub module_span: Span,
}

/// The names a `use` imports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum UseNames {
    /// `{a, b}` or a single trailing name.
    List(Vec<Ident>),
    /// `*`.
    Glob(Span),
    /// `use common;`: the module itself, used as `common::name`.
    Module,
}

/// `const` and `param`: a named value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstDecl {
    /// Its name.
    pub name: Ident,
    /// Its declared type (required for `param`).
    pub ty: Option<TypeExpr>,
    /// Its value (the default, for `param`).
    pub value: Expr,
}

/// `header` and `struct` bodies, and `headers { }` / `meta { }` blocks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordDecl {
    /// The type's name (`headers` / `meta` for those blocks).
    pub name: Ident,
    /// Fields in declaration order: for headers this is the wire order.
    pub fields: Vec<FieldDecl>,
}

/// `name: T` in a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldDecl {
    /// The field's name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
}

/// `enum NAME[: repr] { variants }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnumDecl {
    /// The enum's name.
    pub name: Ident,
    /// The representation type, `bit<N>`, if written.
    pub repr: Option<TypeExpr>,
    /// The variants, each with an optional explicit value.
    pub variants: Vec<(Ident, Option<Expr>)>,
}

/// `fn name(params) -> T { body }`, and `action name(params) { body }`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnDecl {
    /// The function's name.
    pub name: Ident,
    /// Parameters in order.
    pub params: Vec<FieldDecl>,
    /// The return type, if any.
    pub ret: Option<TypeExpr>,
    /// The body.
    pub body: Block,
}

/// `scu NAME on ATTACH`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScuHead {
    /// The SCU's name.
    pub name: Ident,
    /// `slow_path`, `rdma`, `tcp`, ... as written.
    pub attach: Ident,
    /// The bound flow identifier in `rdma(qp)` / `tcp(flow)`.
    pub attach_binding: Option<Ident>,
}

/// `cc NAME per flow[N] budget B cycles`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CcHead {
    /// The controller's name.
    pub name: Ident,
    /// `flow` in `per flow`, if written.
    pub per: Option<Ident>,
    /// The number of flows in `per flow[N]`, if written.
    pub flows: Option<Expr>,
    /// The cycle budget and the unit word written after it (`cycles`).
    pub budget: Option<(Expr, Ident)>,
}

/// A member of an `scu` or `cc` body (one chunk).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// What kind of member.
    pub kind: MemberKind,
    /// The whole member.
    pub span: Span,
}

/// The member forms. Which are allowed in `scu` and which in `cc` is checked, not parsed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemberKind {
    /// `csr name: bit<N> [readonly] [= init];`
    Csr(CsrDecl),
    /// `headers { eth: ethernet, vlans: [vlan; 2], ... }`
    Headers(Vec<super::FieldDecl>),
    /// `meta { field: T, ... }`: per-packet metadata, zero at the start of each packet.
    Meta(Vec<super::FieldDecl>),
    /// `errors { bad_version, ... }`: parser errors of this SCU.
    Errors(Vec<Ident>),
    /// `parser { state ... }`
    Parser(ParserDecl),
    /// `table name { ... }`
    Table(TableDecl),
    /// `action name(params) { body }`
    Action(FnDecl),
    /// `map name: kind<K, V>[N];`
    Map(MapDecl),
    /// `counter name: kind[N];`
    Counter(CounterDecl),
    /// `meter name: kind[N] rate R burst B;`
    Meter(MeterDecl),
    /// `out name: T [batch S];`
    Out(OutDecl),
    /// `control { }`
    Control(Block),
    /// `deparser { }`
    Deparser(Block),
    /// `stream(word: bit<512>) { }`
    Stream(StreamDecl),
    /// `every T { }`
    Every(EveryDecl),
    /// `on EVENT { }`
    On(HandlerDecl),
    /// `fn` inside an scu or cc: may use its state.
    Fn(FnDecl),
    /// `const`.
    Const(ConstDecl),
    /// `param`: a value the host may set; a default is required.
    Param(ConstDecl),
    /// `state name: T = init;` (congestion controllers: per-flow state).
    State(StateDecl),
    /// `output rate rc;` / `output window cwnd;`
    Output(OutputDecl),
    /// Unreadable input; an error was reported already.
    Error,
}

/// `csr name: bit<N> [readonly] [= init];`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CsrDecl {
    /// The register's name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
    /// Whether the host may only read it.
    pub readonly: bool,
    /// The value after load (0 if absent).
    pub init: Option<Expr>,
}

/// `parser { state ... }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParserDecl {
    /// The states in source order.
    pub states: Vec<ParserState>,
}

/// `state name { stmts transition }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParserState {
    /// The state's name.
    pub name: Ident,
    /// Extractions and assignments.
    pub stmts: Vec<super::Stmt>,
    /// Where to go next.
    pub transition: Transition,
    /// The whole state.
    pub span: Span,
}

/// How a parser state ends.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Transition {
    /// Go to a state (or `accept` / `reject`) unconditionally.
    Direct(Target),
    /// `match expr { pattern => target, ... }`
    Select {
        /// The value selected on.
        scrutinee: Expr,
        /// Arms in order; the first match wins.
        arms: Vec<(Pattern, Target)>,
    },
}

/// A transition target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// `accept`: parsing ends; the control runs.
    Accept(Span),
    /// `reject` or `reject(error)`: parsing fails with that error (`no_match` when unnamed).
    Reject(Span, Option<Ident>),
    /// Another state.
    State(Ident),
}

impl Target {
    /// Where the target was written.
    pub fn span(&self) -> Span {
        match self {
            Target::Accept(span) | Target::Reject(span, _) => *span,
            Target::State(name) => name.span,
        }
    }
}

/// `table name { key {..} actions {..} default ..; size N; entries {..} }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableDecl {
    /// The table's name.
    pub name: Ident,
    /// `key { expr: kind, ... }`, if written.
    pub keys: Option<(Vec<KeyElem>, Span)>,
    /// `actions { ... }`, if written.
    pub actions: Option<(Vec<ActionRef>, Span)>,
    /// `default name(args);`, if written.
    pub default: Option<ActionCall>,
    /// `size N;`, if written.
    pub size: Option<Expr>,
    /// `entries { ... }`, if written.
    pub entries: Option<(Vec<Entry>, Span)>,
    /// Properties written more than once: (what, second span); reported by the checker.
    pub repeated: Vec<(&'static str, Span)>,
}

/// `expr: kind` in a table key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyElem {
    /// The value matched.
    pub expr: Expr,
    /// `exact`, `lpm`, `ternary` or `range`.
    pub kind: Ident,
}

/// An action named in a table's `actions { }`: either an `action` member (no parameters written) or
/// an inline action declared here with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActionRef {
    /// The action's name.
    pub name: Ident,
    /// Parameters written here, if any.
    pub params: Option<Vec<FieldDecl>>,
}

/// `name(args)`: an action with its arguments, in `default` and in entries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActionCall {
    /// The action.
    pub name: Ident,
    /// Its arguments, constants.
    pub args: Vec<Expr>,
    /// The whole call.
    pub span: Span,
}

/// `p1, p2, ... => action(args);` in `entries { }`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// One pattern per key element.
    pub keys: Vec<Pattern>,
    /// The action taken.
    pub action: ActionCall,
    /// The whole entry.
    pub span: Span,
}

/// `map name: kind<K, V>[N];`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapDecl {
    /// The map's name.
    pub name: Ident,
    /// `array<K, V>`, `hash<K, V>` or `lru_hash<K, V>`.
    pub ty: TypeExpr,
    /// Number of entries, a constant.
    pub size: Expr,
}

/// `counter name: kind[N];`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CounterDecl {
    /// The counter's name.
    pub name: Ident,
    /// `packets`, `bytes` or `packets_and_bytes`.
    pub kind: Ident,
    /// Number of cells; a single cell when absent.
    pub size: Option<Expr>,
}

/// `meter name: kind[N] rate R burst B;`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeterDecl {
    /// The meter's name.
    pub name: Ident,
    /// `token_bucket`.
    pub kind: Ident,
    /// Number of cells; a single cell when absent.
    pub size: Option<Expr>,
    /// `rate R`, `burst B` and any other options as written.
    pub options: Vec<(Ident, Expr)>,
}

/// `out name: T [batch S];`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutDecl {
    /// The output's name.
    pub name: Ident,
    /// `dma`, `[dma; N]`, `host`, `network`.
    pub ty: TypeExpr,
    /// Transfer size for batched outputs.
    pub batch: Option<Expr>,
}

/// `stream(word: bit<512>) { }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StreamDecl {
    /// The word parameter(s) as written.
    pub params: Vec<FieldDecl>,
    /// Runs once per payload word.
    pub body: Block,
    /// The `stream(...)` head.
    pub head_span: Span,
}

/// `every T { }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EveryDecl {
    /// The period, a duration constant.
    pub period: Expr,
    /// Runs once per period.
    pub body: Block,
}

/// `on EVENT { }`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HandlerDecl {
    /// What triggers the handler.
    pub event: Event,
    /// What it does.
    pub body: Block,
}

/// Handler triggers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// `ack`, `cnp`, `ecn`, `loss`, `timeout`, `rtt(sample)`, `parser_error(e)`, ... with an optional
    /// binding for the event's data.
    Simple {
        /// The event's name.
        name: Ident,
        /// The name bound to its data, if written.
        binding: Option<Ident>,
    },
    /// `timer NAME every T` or `bytes NAME every S`.
    Periodic {
        /// `timer` or `bytes`.
        kind: Ident,
        /// The timer's or byte counter's name (for `restart`).
        name: Ident,
        /// The period.
        period: Expr,
    },
}

/// `state name: T = init;`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StateDecl {
    /// The state variable's name.
    pub name: Ident,
    /// Its type.
    pub ty: TypeExpr,
    /// Its value for a new flow (0 if absent).
    pub init: Option<Expr>,
}

/// `output rate rc;`
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OutputDecl {
    /// `rate` or `window`.
    pub kind: Ident,
    /// The state variable that holds it.
    pub state: Ident,
}
