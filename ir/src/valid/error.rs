//! What the validator reports: [`ValidationError`], and the small types that say where.
//!
//! Every variant is structured: it names the item or body ([`Location`], [`BodyRef`]), the ids
//! involved ([`AnyId`]) and, where the IR records one, the source [`Span`] (the default, unknown
//! span for items that carry none, such as layouts). Nothing is a free-form string.

use crate::body::BinaryOp;
use crate::entities::*;
use crate::program::OutputKind;
use crate::span::Span;
use crate::types::Type;
use std::fmt;

/// A body of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyRef {
    /// A function.
    Function(FuncId),
    /// The parser of an scu (all its states).
    Parser(ScuId),
    /// The key expressions of a table.
    TableKey(ScuId, TableId),
    /// An action.
    Action(ScuId, ActionId),
    /// The control.
    Control(ScuId),
    /// `on parser_error`.
    OnParserError(ScuId),
    /// The deparser.
    Deparser(ScuId),
    /// The stream kernel.
    Stream(ScuId),
    /// The `n`-th `every` block.
    Every(ScuId, usize),
    /// The `n`-th handler of a cc.
    Handler(CcId, usize),
}

impl fmt::Display for BodyRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyRef::Function(id) => write!(f, "{id}"),
            BodyRef::Parser(s) => write!(f, "{s} parser"),
            BodyRef::TableKey(s, t) => write!(f, "{s} {t} key"),
            BodyRef::Action(s, a) => write!(f, "{s} {a}"),
            BodyRef::Control(s) => write!(f, "{s} control"),
            BodyRef::OnParserError(s) => write!(f, "{s} on_parser_error"),
            BodyRef::Deparser(s) => write!(f, "{s} deparser"),
            BodyRef::Stream(s) => write!(f, "{s} stream"),
            BodyRef::Every(s, n) => write!(f, "{s} every #{n}"),
            BodyRef::Handler(c, n) => write!(f, "{c} handler #{n}"),
        }
    }
}

/// An item or body of the module, where an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// A header layout.
    Header(HeaderId),
    /// A struct layout.
    Struct(StructId),
    /// An enum.
    Enum(EnumId),
    /// An scu itself (its `meta`, instances, errors, maps, outputs, counters, meters).
    Scu(ScuId),
    /// A CSR.
    Csr(ScuId, CsrId),
    /// A parser state (its transition).
    State(ScuId, StateId),
    /// A table (its keys, actions, default and entries).
    Table(ScuId, TableId),
    /// A cc itself (its params, state, output, timers and handler events).
    Cc(CcId),
    /// A body.
    Body(BodyRef),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Header(h) => write!(f, "{h}"),
            Location::Struct(s) => write!(f, "{s}"),
            Location::Enum(e) => write!(f, "{e}"),
            Location::Scu(s) => write!(f, "{s}"),
            Location::Csr(s, c) => write!(f, "{s} {c}"),
            Location::State(s, st) => write!(f, "{s} {st}"),
            Location::Table(s, t) => write!(f, "{s} {t}"),
            Location::Cc(c) => write!(f, "{c}"),
            Location::Body(b) => write!(f, "{b}"),
        }
    }
}

/// Any entity id, for errors about ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyId {
    /// A header layout.
    Header(HeaderId),
    /// A struct layout.
    Struct(StructId),
    /// An enum.
    Enum(EnumId),
    /// A function.
    Func(FuncId),
    /// An scu.
    Scu(ScuId),
    /// A cc.
    Cc(CcId),
    /// A header instance.
    Inst(InstId),
    /// A CSR.
    Csr(CsrId),
    /// A table.
    Table(TableId),
    /// An action.
    Action(ActionId),
    /// A map.
    Map(MapId),
    /// A counter.
    Counter(CounterId),
    /// A meter.
    Meter(MeterId),
    /// An output.
    Out(OutId),
    /// A parser state.
    State(StateId),
    /// A parser error.
    Error(ErrorId),
    /// A cc state variable.
    CcState(CcStateId),
    /// A cc parameter.
    CcParam(CcParamId),
    /// A cc timer.
    Timer(TimerId),
    /// A local.
    Local(LocalId),
    /// An expression.
    Expr(ExprId),
}

impl fmt::Display for AnyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyId::Header(i) => write!(f, "{i}"),
            AnyId::Struct(i) => write!(f, "{i}"),
            AnyId::Enum(i) => write!(f, "{i}"),
            AnyId::Func(i) => write!(f, "{i}"),
            AnyId::Scu(i) => write!(f, "{i}"),
            AnyId::Cc(i) => write!(f, "{i}"),
            AnyId::Inst(i) => write!(f, "{i}"),
            AnyId::Csr(i) => write!(f, "{i}"),
            AnyId::Table(i) => write!(f, "{i}"),
            AnyId::Action(i) => write!(f, "{i}"),
            AnyId::Map(i) => write!(f, "{i}"),
            AnyId::Counter(i) => write!(f, "{i}"),
            AnyId::Meter(i) => write!(f, "{i}"),
            AnyId::Out(i) => write!(f, "{i}"),
            AnyId::State(i) => write!(f, "{i}"),
            AnyId::Error(i) => write!(f, "{i}"),
            AnyId::CcState(i) => write!(f, "{i}"),
            AnyId::CcParam(i) => write!(f, "{i}"),
            AnyId::Timer(i) => write!(f, "{i}"),
            AnyId::Local(i) => write!(f, "{i}"),
            AnyId::Expr(i) => write!(f, "{i}"),
        }
    }
}

/// A construct that may appear only in some bodies (docs/language.md §7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Construct {
    /// `Extract` (parser only).
    Extract,
    /// `Lookahead` (parser only).
    Lookahead,
    /// `Emit` (deparser only).
    Emit,
    /// `Pass` (stream only).
    Pass,
    /// `Push` (stream only).
    Push,
    /// `Beat` fields (stream only).
    Beat,
    /// `Restart` (cc handlers).
    Restart,
    /// `Drop` (control, `on parser_error`, actions).
    Drop,
    /// `ToHost` (like `Drop`).
    ToHost,
    /// `ToNetwork` (like `Drop`).
    ToNetwork,
    /// `ToScu` (like `Drop`).
    ToScu,
    /// `Apply` (control and `on parser_error`).
    Apply,
    /// `CallAction` (control, `on parser_error`, actions).
    CallAction,
    /// `Count` (per-packet code with destinations).
    Count,
    /// `MeterExceeds` (like `Count`).
    Meter,
    /// `Packet` fields (per-packet code).
    Packet,
    /// `FlowId` (scus on `rdma`/`tcp`, not in `every`).
    FlowId,
}

impl Construct {
    /// Every construct, in declaration order.
    pub const ALL: [Construct; 17] = [
        Construct::Extract,
        Construct::Lookahead,
        Construct::Emit,
        Construct::Pass,
        Construct::Push,
        Construct::Beat,
        Construct::Restart,
        Construct::Drop,
        Construct::ToHost,
        Construct::ToNetwork,
        Construct::ToScu,
        Construct::Apply,
        Construct::CallAction,
        Construct::Count,
        Construct::Meter,
        Construct::Packet,
        Construct::FlowId,
    ];
}

impl fmt::Display for Construct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Construct::Extract => "extract",
            Construct::Lookahead => "lookahead",
            Construct::Emit => "emit",
            Construct::Pass => "pass",
            Construct::Push => "push",
            Construct::Beat => "beat",
            Construct::Restart => "restart",
            Construct::Drop => "drop",
            Construct::ToHost => "to_host",
            Construct::ToNetwork => "to_network",
            Construct::ToScu => "to_scu",
            Construct::Apply => "a table apply",
            Construct::CallAction => "an action call",
            Construct::Count => "a counter",
            Construct::Meter => "a meter",
            Construct::Packet => "packet",
            Construct::FlowId => "the flow id",
        };
        f.write_str(s)
    }
}

/// A structural error in a module. See the [`valid`](super) module for the rule behind each.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
// Variant fields are named for what they hold (`scu`, `table`, `expr`, `span`, ...).
#[allow(missing_docs)]
pub enum ValidationError {
    /// An id does not exist in the arena it indexes (or there is no such arena: a CSR outside an
    /// scu, a cc state outside a cc).
    #[error("{at}: {id} does not exist")]
    InvalidId { at: Location, id: AnyId, span: Span },
    /// A type is ill-formed: a zero or too large width, an empty array.
    #[error("{at}: type {ty} is ill-formed")]
    BadType { at: Location, ty: Type, span: Span },
    /// A constant has more significant bits than its type holds.
    #[error("{at}: constant does not fit {width} bits")]
    ConstTooWide {
        at: Location,
        width: u64,
        span: Span,
    },
    /// A header field is not `bit<N>` or `int<N>`.
    #[error("{header}: field {field} has type {ty}; header fields are bit<N> or int<N>")]
    HeaderFieldType {
        header: HeaderId,
        field: u32,
        ty: Type,
    },
    /// A header field does not start where the previous one ends.
    #[error("{header}: field {field} is at bit {found}, expected {expected}")]
    HeaderFieldOffset {
        header: HeaderId,
        field: u32,
        expected: u32,
        found: u32,
    },
    /// A header's `bits` is not the sum of its field widths.
    #[error("{header}: `bits` is {found} but the fields add up to {expected}")]
    HeaderBits {
        header: HeaderId,
        expected: u32,
        found: u32,
    },
    /// A header is not a whole number of bytes.
    #[error("{header} is {bits} bits, not a whole number of bytes")]
    HeaderNotBytes { header: HeaderId, bits: u32 },
    /// A struct contains itself.
    #[error("{strukt} contains itself")]
    StructCycle { strukt: StructId },
    /// A function calls itself, directly or through others.
    #[error("{func} is recursive")]
    Recursion { func: FuncId, span: Span },
    /// A body calls a function of another scu or cc.
    #[error("{body}: calls {func}, which belongs to another unit")]
    ForeignCall {
        body: BodyRef,
        func: FuncId,
        span: Span,
    },
    /// An operand is not older than the expression that uses it.
    #[error("{body}: {expr} uses {operand}, which is not older")]
    OperandOrder {
        body: BodyRef,
        expr: ExprId,
        operand: ExprId,
        span: Span,
    },
    /// An expression is used by no statement or parent, or by more than one.
    #[error("{body}: {expr} is used {uses} times; every expression is used exactly once")]
    ExprUses {
        body: BodyRef,
        expr: ExprId,
        uses: u32,
        span: Span,
    },
    /// A local is read or assigned where it is not declared.
    #[error("{body}: {local} is not in scope")]
    LocalNotInScope {
        body: BodyRef,
        local: LocalId,
        span: Span,
    },
    /// An immutable local, a `param` CSR or a loop variable is assigned.
    #[error("{body}: {target} cannot be assigned")]
    NotAssignable {
        body: BodyRef,
        target: AnyId,
        span: Span,
    },
    /// An operand has a type the operator does not take.
    #[error("{body}: operand {operand} of {expr} has type {ty}, which it does not take")]
    OperandType {
        body: BodyRef,
        expr: ExprId,
        operand: u32,
        ty: Type,
        span: Span,
    },
    /// The two operands of a binary operator have different types.
    #[error("{body}: {expr}: {op:?} of {lhs} and {rhs}")]
    OperandsDiffer {
        body: BodyRef,
        expr: ExprId,
        op: BinaryOp,
        lhs: Type,
        rhs: Type,
        span: Span,
    },
    /// An expression's recorded type is not the type its operands give it.
    #[error("{body}: {expr} has type {found}, expected {expected}")]
    ResultType {
        body: BodyRef,
        expr: ExprId,
        expected: Type,
        found: Type,
        span: Span,
    },
    /// A cast that docs/language.md §4.9 does not define.
    #[error("{body}: {expr} casts {from} to {to}")]
    BadCast {
        body: BodyRef,
        expr: ExprId,
        from: Type,
        to: Type,
        span: Span,
    },
    /// The wrong number of operands: call arguments, intrinsic arguments, literal elements.
    #[error("{body}: {expr} has {found} operands, expected {expected}")]
    Arity {
        body: BodyRef,
        expr: ExprId,
        expected: usize,
        found: usize,
        span: Span,
    },
    /// A value has the wrong type where one type is required (assignment, `let`, argument, ...).
    #[error("{body}: expected {expected}, found {found}")]
    TypeMismatch {
        body: BodyRef,
        expected: Type,
        found: Type,
        span: Span,
    },
    /// A slice outside its base's width, or with `hi < lo`.
    /// (`expr` is `None` for a sliced place.)
    #[error("{body}: slice [{hi}:{lo}] of {width} bits")]
    SliceBounds {
        body: BodyRef,
        expr: Option<ExprId>,
        hi: u32,
        lo: u32,
        width: u32,
        span: Span,
    },
    /// An index that is not in bounds by construction (a constant below the length, a `bit<K>`
    /// with 2^K at most the length, or a loop variable whose range fits).
    #[error("{body}: index not in bounds for length {len}")]
    IndexBounds { body: BodyRef, len: u64, span: Span },
    /// An index on something that is not an array, or a missing index on an array of instances,
    /// outputs, counter or meter cells.
    #[error("{body}: {target} indexed wrongly")]
    IndexForm {
        body: BodyRef,
        target: AnyId,
        span: Span,
    },
    /// `Index` on a value that is not an array.
    #[error("{body}: indexing a {ty}")]
    IndexNonArray { body: BodyRef, ty: Type, span: Span },
    /// A field position that the struct, header or `meta` does not have, or a field of a value that
    /// has no fields.
    #[error("{body}: {ty} has no field {field}")]
    FieldIndex {
        body: BodyRef,
        ty: Type,
        field: u32,
        span: Span,
    },
    /// `Meta` in a body whose scu declares no `meta`.
    #[error("{body}: the scu has no meta")]
    NoMeta { body: BodyRef, span: Span },
    /// `ActionData` that does not refer to an `Apply` with that action and parameter.
    #[error("{body}: {expr} reads data of no such action of {apply}")]
    BadActionData {
        body: BodyRef,
        expr: ExprId,
        apply: ExprId,
        span: Span,
    },
    /// `ActionData` outside a switch case bound to its action.
    #[error("{body}: {expr} is read outside a case of its action")]
    ActionDataUnbound {
        body: BodyRef,
        expr: ExprId,
        span: Span,
    },
    /// An `If` condition that is not a bool.
    #[error("{body}: condition of type {ty}")]
    ConditionNotBool { body: BodyRef, ty: Type, span: Span },
    /// A pattern constant wider than the scrutinee.
    #[error("{at}: pattern constant does not fit {width} bits")]
    PatternWidth {
        at: Location,
        width: u32,
        span: Span,
    },
    /// A pattern of the wrong shape for the scrutinee (a tuple of the wrong arity, a non-tuple for
    /// a tuple, any pattern on an aggregate), or a table-result value with no such action.
    #[error("{at}: pattern does not fit a {ty}")]
    PatternShape { at: Location, ty: Type, span: Span },
    /// `Return` with or without a value against the function's return type.
    #[error("{body}: returns {found}, expected {expected}")]
    ReturnType {
        body: BodyRef,
        expected: Type,
        found: Type,
        span: Span,
    },
    /// A `For` bound that the loop variable's type cannot hold.
    #[error("{body}: loop bounds {first}..={last} do not fit {var}")]
    LoopBounds {
        body: BodyRef,
        var: LocalId,
        first: i64,
        last: i64,
        span: Span,
    },
    /// A `Notify` value that is not a bool or an integer of at most 32 bits.
    #[error("{body}: notify of a {ty}")]
    NotifyValue { body: BodyRef, ty: Type, span: Span },
    /// A construct in a body where it cannot run.
    #[error("{body}: {construct} is not allowed here")]
    Misplaced {
        body: BodyRef,
        construct: Construct,
        span: Span,
    },
    /// A function called (directly or not) from a body uses a construct that body cannot run.
    #[error("{body}: calls {callee}, which uses {construct}")]
    MisplacedInCallee {
        body: BodyRef,
        callee: FuncId,
        construct: Construct,
        span: Span,
    },
    /// A body's parameters are not the bindings its kind provides: none for the control,
    /// deparser, parser, table keys and `every`; at most the error for `on parser_error`; one
    /// `bit<512>` word for the stream kernel; scalars for action data; at most the ack data (a
    /// struct) for `on ack`, the sample (a `duration`) for `on rtt`, none for other events.
    #[error("{body}: parameters do not match what the body binds")]
    BadParams { body: BodyRef },
    /// A CSR wider than 64 bits or not a scalar.
    #[error("{scu} {csr}: a CSR of type {ty}")]
    CsrType { scu: ScuId, csr: CsrId, ty: Type },
    /// A map key that is not `bit<N>`.
    #[error("{scu} {map}: key of type {ty}")]
    MapKeyType { scu: ScuId, map: MapId, ty: Type },
    /// A table's default action is not in its action list.
    #[error("{scu} {table}: default {action} is not one of its actions")]
    DefaultNotListed {
        scu: ScuId,
        table: TableId,
        action: ActionId,
        span: Span,
    },
    /// A table key whose type differs from its expression's.
    #[error("{scu} {table}: key {key} has type {expected} but its expression {found}")]
    KeyType {
        scu: ScuId,
        table: TableId,
        key: usize,
        expected: Type,
        found: Type,
        span: Span,
    },
    /// A constant entry with the wrong number of key matches.
    #[error("{scu} {table}: entry {entry} has {found} key matches, expected {expected}")]
    EntryKeyCount {
        scu: ScuId,
        table: TableId,
        entry: usize,
        expected: usize,
        found: usize,
        span: Span,
    },
    /// A key match that does not fit its key's match kind, or whose prefix is longer than the key.
    #[error("{scu} {table}: entry {entry} key {key} does not fit the key's match kind")]
    EntryKeyKind {
        scu: ScuId,
        table: TableId,
        entry: usize,
        key: usize,
        span: Span,
    },
    /// An entry's action position is not in the table's action list.
    #[error("{scu} {table}: entry {entry} names action position {action}")]
    EntryAction {
        scu: ScuId,
        table: TableId,
        entry: usize,
        action: u32,
        span: Span,
    },
    /// Action data of the wrong count (`entry: None` for the default action).
    #[error("{scu} {table}: {found} action arguments, expected {expected}")]
    ActionArgs {
        scu: ScuId,
        table: TableId,
        entry: Option<usize>,
        expected: usize,
        found: usize,
        span: Span,
    },
    /// More constant entries than the table's size.
    #[error("{scu} {table}: {entries} entries exceed size {size}")]
    TooManyEntries {
        scu: ScuId,
        table: TableId,
        entries: usize,
        size: u64,
        span: Span,
    },
    /// A cc's output state does not have the output's type (`rate` or `size`).
    #[error("{cc}: output {kind:?} of a state of type {ty}")]
    CcOutputType {
        cc: CcId,
        kind: OutputKind,
        ty: Type,
        span: Span,
    },
}
