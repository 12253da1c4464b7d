//! The module: layouts, functions, stream compute units and congestion controllers.
//!
//! Ordering rules: ids are assigned in source order, so printing a module in id order follows the
//! program. CSR and param offsets are the positions of [`Csr`]s in [`Scu::csrs`] (declaration order,
//! 64-bit words, as the package manifest publishes them). Header layouts list fields in wire order.

use crate::body::{Block, Body, Pattern};
use crate::entities::*;
use crate::span::Span;
use crate::types::{Const, Dimension, Type};
use cranelift_entity::PrimaryMap;
use serde::{Deserialize, Serialize};

/// A compiled program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    /// The name of the source file, for messages and manifests.
    pub source_name: String,
    /// Header layouts.
    pub headers: PrimaryMap<HeaderId, HeaderLayout>,
    /// Struct layouts (including `meta` blocks).
    pub structs: PrimaryMap<StructId, StructLayout>,
    /// Enums.
    pub enums: PrimaryMap<EnumId, EnumDef>,
    /// Functions of the module, of scus and of ccs.
    pub functions: PrimaryMap<FuncId, Function>,
    /// Stream compute units.
    pub scus: PrimaryMap<ScuId, Scu>,
    /// Congestion controllers.
    pub ccs: PrimaryMap<CcId, Cc>,
}

/// A header's wire layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderLayout {
    /// Its name.
    pub name: String,
    /// Fields in wire order.
    pub fields: Vec<Field>,
    /// Total width in bits (a multiple of 8).
    pub bits: u32,
}

/// A field of a header or struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// For header fields: the bit offset from the start of the header (big-endian, most significant
    /// bit first). For struct fields: 0.
    pub offset: u32,
}

/// A struct layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructLayout {
    /// Its name.
    pub name: String,
    /// Fields in declaration order.
    pub fields: Vec<Field>,
}

/// An enum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumDef {
    /// Its name.
    pub name: String,
    /// Variant names and their values (the representation; variant numbers without one).
    pub variants: Vec<(String, Const)>,
    /// Width of the stored value.
    pub width: u32,
}

/// Who owns a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Owner {
    /// A top-level function.
    Module,
    /// A function of an scu (may use its headers, CSRs, tables, ...).
    Scu(ScuId),
    /// A function of a cc (may use its per-flow state).
    Cc(CcId),
}

/// A function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Its owner.
    pub owner: Owner,
    /// Its return type (`Unit` for none).
    pub ret: Type,
    /// Its code; parameters are `body.params`.
    pub body: Body,
    /// Where it is defined.
    pub span: Span,
}

/// Where an scu sits on the NIC's datapath.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attach {
    /// Every packet the offloaded stacks do not take.
    SlowPath,
    /// The payload streams of RDMA queue pairs.
    Rdma,
    /// The payload streams of TCP sessions.
    Tcp,
}

/// A stream compute unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scu {
    /// Its name.
    pub name: String,
    /// Its attach point.
    pub attach: Attach,
    /// CSRs and params, in declaration order (the order gives their offsets).
    pub csrs: PrimaryMap<CsrId, Csr>,
    /// Header instances and stacks, in `headers { }` order (the default deparse order).
    pub instances: PrimaryMap<InstId, Instance>,
    /// The `meta` struct, if declared.
    pub meta: Option<StructId>,
    /// Parser errors: `packet_too_short`, `no_match`, `stack_overflow`, then the declared ones.
    pub errors: PrimaryMap<ErrorId, String>,
    /// The parser.
    pub parser: Option<Parser>,
    /// Tables.
    pub tables: PrimaryMap<TableId, Table>,
    /// Actions (declared members and inline table actions; `no_action` included).
    pub actions: PrimaryMap<ActionId, Action>,
    /// Maps.
    pub maps: PrimaryMap<MapId, Map>,
    /// Counters.
    pub counters: PrimaryMap<CounterId, Counter>,
    /// Meters.
    pub meters: PrimaryMap<MeterId, Meter>,
    /// Stream outputs.
    pub outs: PrimaryMap<OutId, Out>,
    /// The per-packet control.
    pub control: Option<Body>,
    /// Runs instead of `control` when the parser rejects (binding: the error, parameter 0).
    pub on_parser_error: Option<Body>,
    /// The deparser; `None` emits every instance in declaration order.
    pub deparser: Option<Body>,
    /// The stream kernel (parameter 0: the word).
    pub stream: Option<Body>,
    /// Periodic blocks.
    pub every: Vec<Every>,
    /// Where the scu is defined.
    pub span: Span,
}

/// A CSR, or a param (host-set, never written by the program).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Csr {
    /// Its name.
    pub name: String,
    /// Its type (at most 64 bits).
    pub ty: Type,
    /// Value after loading.
    pub init: Const,
    /// The host may only read it.
    pub host_readonly: bool,
    /// It is a `param`: the program only reads it.
    pub is_param: bool,
}

/// A header instance or stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    /// Its name.
    pub name: String,
    /// Its layout.
    pub header: HeaderId,
    /// For a stack, the number of elements.
    pub stack: Option<u32>,
}

/// A parser state machine. All states share one body (one arena of locals and expressions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parser {
    /// Locals and expressions of every state.
    pub body: Body,
    /// The states.
    pub states: PrimaryMap<StateId, ParserState>,
    /// Where parsing starts.
    pub start: StateId,
}

/// A parser state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParserState {
    /// Its name.
    pub name: String,
    /// Extractions and assignments.
    pub block: Block,
    /// Where to go next.
    pub transition: Transition,
    /// Where it is defined.
    pub span: Span,
}

/// Where a parser state goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Transition {
    /// Go to a target.
    Direct(Target),
    /// Evaluate `on` (in the parser body) and take the first matching case; `no_match` otherwise.
    Select {
        /// The value selected on.
        on: crate::entities::ExprId,
        /// Cases in order.
        cases: Vec<SelectCase>,
    },
}

/// A select case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectCase {
    /// Alternatives.
    pub patterns: Vec<Pattern>,
    /// Where to go.
    pub target: Target,
}

/// A transition target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Target {
    /// Parsing succeeds.
    Accept,
    /// Parsing fails with this error.
    Reject(ErrorId),
    /// Another state.
    State(StateId),
}

/// A table key's match kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MatchKind {
    /// Equal.
    Exact,
    /// Longest prefix.
    Lpm,
    /// Value and mask, by priority.
    Ternary,
    /// Inclusive range, by priority.
    Range,
}

/// A match-action table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// Its name.
    pub name: String,
    /// Key expressions (evaluated in the applying packet context) in `key_body`.
    pub key_body: Body,
    /// Key elements, in order.
    pub keys: Vec<TableKey>,
    /// The actions it may choose; `TableResult` values index this list.
    pub actions: Vec<ActionId>,
    /// The action on a miss, and its arguments.
    pub default: (ActionId, Vec<Const>),
    /// Capacity in entries (constant entries included).
    pub size: u64,
    /// Entries compiled in.
    pub const_entries: Vec<Entry>,
    /// No run-time entries: the table is fully defined by `const_entries`.
    pub is_const: bool,
    /// Where it is defined.
    pub span: Span,
}

/// A key element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableKey {
    /// The expression in the table's `key_body`.
    pub expr: ExprId,
    /// Its match kind.
    pub kind: MatchKind,
    /// Its type.
    pub ty: Type,
    /// The source text of the key, for manifests and entry files (`ip.dst`).
    pub name: String,
}

/// How one key element of an entry matches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KeyMatch {
    /// Equal.
    Exact(Const),
    /// The top `len` bits equal.
    Lpm(Const, u32),
    /// Value and mask.
    Ternary(Const, Const),
    /// Inclusive range.
    Range(Const, Const),
    /// Anything.
    Any,
}

/// A table entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// One match per key element.
    pub keys: Vec<KeyMatch>,
    /// The action's position in the table's action list.
    pub action: u32,
    /// Its arguments.
    pub args: Vec<Const>,
    /// For ternary/range tables: lower numbers win (constant entries number from 0 in source order).
    pub priority: u32,
}

/// An action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    /// Its name.
    pub name: String,
    /// Its code; `body.params` are the action data. Inline actions have an empty block.
    pub body: Body,
}

/// A map kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MapKind {
    /// Indexed by key, all cells present.
    Array,
    /// Hash table; insertion fails when full.
    Hash,
    /// Hash table evicting the least recently used entry.
    LruHash,
}

/// An eBPF-style map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Map {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: MapKind,
    /// Key type (a `bit<N>`).
    pub key: Type,
    /// Value type.
    pub value: Type,
    /// Capacity.
    pub size: u64,
}

/// What a counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CounterKind {
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
    /// Both.
    PacketsAndBytes,
}

/// A counter array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// Its name.
    pub name: String,
    /// What it counts.
    pub kind: CounterKind,
    /// Number of cells.
    pub size: u64,
}

/// A token-bucket meter array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meter {
    /// Its name.
    pub name: String,
    /// Number of cells.
    pub size: u64,
    /// Default rate in bit/s (`None`: set by the host; until then the bucket never exceeds).
    pub rate: Option<u64>,
    /// Default burst in bytes.
    pub burst: Option<u64>,
}

/// Where an output sends words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OutKind {
    /// DMA to host, GPU or SSD memory.
    Dma,
    /// To the host.
    Host,
}

/// A stream output (or an array of them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Out {
    /// Its name.
    pub name: String,
    /// Where words go.
    pub kind: OutKind,
    /// `[dma; N]`: the number of outputs.
    pub count: Option<u32>,
    /// Transfer size in bytes, if batched.
    pub batch: Option<u64>,
}

/// A periodic block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Every {
    /// The period in ns.
    pub period_ns: u64,
    /// The code.
    pub body: Body,
    /// Its head, `every T` (where diagnostics about the block as a whole point; side data, like
    /// every span of the IR).
    pub span: Span,
}

/// A congestion controller.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cc {
    /// Its name.
    pub name: String,
    /// Number of flows with state.
    pub flows: u64,
    /// The cycle budget per handler, if declared.
    pub budget: Option<u64>,
    /// Host-set parameters.
    pub params: PrimaryMap<CcParamId, CcParam>,
    /// Per-flow state.
    pub state: PrimaryMap<CcStateId, CcState>,
    /// What the controller outputs.
    pub output: (OutputKind, CcStateId),
    /// Timers and byte counters.
    pub timers: PrimaryMap<TimerId, Timer>,
    /// Event handlers.
    pub handlers: Vec<Handler>,
    /// Where it is defined.
    pub span: Span,
}

/// A host-set parameter of a cc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CcParam {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Its default.
    pub default: Const,
}

/// A per-flow state variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CcState {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Its value for a new flow; for a struct or an array, the value's record bits (first field
    /// or element lowest, [`crate::record`]).
    pub init: Const,
}

/// What a cc controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OutputKind {
    /// A sending rate (bit/s).
    Rate,
    /// A congestion window (bytes).
    Window,
}

/// A timer or byte counter of a cc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timer {
    /// Its name.
    pub name: String,
    /// What drives it and its period.
    pub period: (Dimension, u64),
}

/// What triggers a handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Event {
    /// An acknowledgement (binding: bytes acknowledged and ECN echo).
    Ack,
    /// A congestion notification packet.
    Cnp,
    /// An ECN-marked packet.
    Ecn,
    /// A loss.
    Loss,
    /// A retransmission timeout.
    Timeout,
    /// An RTT sample (binding: the duration).
    Rtt,
    /// One hop of in-band network telemetry carried by an ACK (binding: an [`IntHop`] struct).
    Int,
    /// A timer or byte counter expired.
    Timer(TimerId),
}

/// One hop of in-band network telemetry (INT), the data of `on int(h)`: what the switch at
/// position `hop` of the path stamped into the data packet when it left its egress port, echoed
/// by the receiver in the ACK. The binding's struct has these fields in this order, with widths
/// [`IntHop::FIELDS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IntHop {
    /// The hop's position on the path, 0 = the first switch.
    pub hop: u8,
    /// Hops on this ACK's path.
    pub hops: u8,
    /// The egress queue length in bytes when the packet left.
    pub qlen: u64,
    /// Bytes the egress port had sent in total (cumulative).
    pub tx_bytes: u64,
    /// The switch's time in ns when the packet left.
    pub ts_ns: u64,
    /// The egress link's rate in bit/s.
    pub rate_bps: u64,
}

impl IntHop {
    /// The binding's fields: name and width in bits (`bit<8>`, `bit<8>`, `size`, `size`,
    /// `duration`, `rate`).
    pub const FIELDS: [(&'static str, u32); 6] = [
        ("hop", 8),
        ("hops", 8),
        ("qlen", 64),
        ("tx_bytes", 64),
        ("ts", 64),
        ("rate", 64),
    ];

    /// The field values in [`IntHop::FIELDS`] order.
    pub fn values(&self) -> [u64; 6] {
        [
            u64::from(self.hop),
            u64::from(self.hops),
            self.qlen,
            self.tx_bytes,
            self.ts_ns,
            self.rate_bps,
        ]
    }
}

/// An event handler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handler {
    /// What triggers it.
    pub event: Event,
    /// Its code (parameter 0, if any: the event's data).
    pub body: Body,
    /// Where it is defined.
    pub span: Span,
}
