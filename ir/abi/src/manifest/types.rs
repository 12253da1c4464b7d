//! The parts of a [`super::Manifest`], field by field.
//!
//! Each type mirrors one JSON object of `manifest.json`; the doc comment of every field is its
//! meaning in the document. Enumerations are manifest-local types (not the IR's) so the document's
//! spelling never changes when the IR is refactored.

use serde::{Deserialize, Serialize};

/// Which program, from which source, by which compiler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// The program's name: the source file's name without directory and extension (`firewall`).
    pub name: String,
    /// The source file as it was given to the compiler (`examples/firewall.sn`).
    pub source_file: String,
    /// SHA-256 of the source file's text (the root file only; `use`d standard modules are part of
    /// the compiler, named by `compiler_version`), 64 lower-case hex digits.
    pub source_sha256: String,
    /// The compiler's name, `scenicc`.
    pub compiler: String,
    /// The compiler's version (`0.1.0`).
    pub compiler_version: String,
}

/// Where CSRs live: Coyote's user window of the vFPGA's AXI-Lite control space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsrWindow {
    /// Byte address of CSR word 0 (`0x20000`, Coyote's `VFPGA_CTRL_USER_OFFS`).
    pub base: u64,
    /// Bytes per CSR word (8: Coyote's `setCSR(value, offset)` writes 64-bit words).
    pub word_bytes: u64,
    /// Bytes between the CSR word 0 of consecutive scus: every scu's CSRs and mailbox
    /// (`control`), rounded up to a power of two so the glue decodes it with address bits.
    pub stride_bytes: u64,
}

/// Where an scu sits on the datapath.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachKind {
    /// Every packet the offloaded stacks do not take.
    SlowPath,
    /// The payload streams of RDMA queue pairs.
    Rdma,
    /// The payload streams of TCP sessions.
    Tcp,
}

/// One stream compute unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScuManifest {
    /// Its name in the program.
    pub name: String,
    /// Its position among the program's scus (`to_scu` targets and control requests use it).
    pub index: u32,
    /// Its attach point.
    pub attach: AttachKind,
    /// The HLS kernel built for it (absent when the manifest was built without a backend).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Kernel>,
    /// Byte address of this scu's CSR word 0 in the AXI-Lite control space: `csr_window.base`
    /// plus `index × csr_window.stride_bytes` (scus of one vFPGA share its window).
    pub csr_base: u64,
    /// CSRs and params, by offset.
    pub csrs: Vec<CsrEntry>,
    /// Match-action tables.
    pub tables: Vec<TableEntry>,
    /// eBPF-style maps.
    pub maps: Vec<MapEntry>,
    /// Counter arrays.
    pub counters: Vec<CounterEntry>,
    /// Token-bucket meter arrays.
    pub meters: Vec<MeterEntry>,
    /// Stream outputs (`out` declarations).
    pub outs: Vec<OutEntry>,
    /// Periodic `every` blocks.
    pub every: Vec<EveryEntry>,
    /// Parser error names; an error's position is the value `on parser_error` sees.
    pub parser_errors: Vec<String>,
    /// The scu's figures at a glance (the full list is in the top-level `estimates`).
    pub summary: ScuSummary,
}

/// The HLS kernel of an scu.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// The top function's name, also the kernel directory `hls/<name>/` and the file `<name>.cpp`.
    pub name: String,
    /// The IP Coyote packages it as, instantiated in `coyote/vfpga_top.svh` (`<name>_hls_ip`).
    pub ip: String,
    /// The `#pragma HLS PIPELINE II` the kernel requests for its packet (or word) stage: the II
    /// of the timing estimates (`summary`), so synthesis is asked for what the estimates assume.
    #[serde(default)]
    pub pipeline_ii: u32,
    /// How many 512-bit beats of each packet the parser sees at once (the header window).
    #[serde(default)]
    pub header_window_beats: u32,
    /// The top function's ports.
    pub ports: Vec<Port>,
}

/// One port of a kernel's top function (`scenic_backend_hls::ports`, plus where the Coyote glue
/// connects it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Port {
    /// The C++ parameter name.
    pub name: String,
    /// The RTL port prefix of the exported IP (`s_axis_net_in` → `s_axis_net_in_TDATA`).
    #[serde(default)]
    pub rtl_name: String,
    /// What it is for (`net_in`, `ctrl_in`, `now_ns`, ...).
    pub role: String,
    /// `in` (the kernel reads it) or `out`.
    pub direction: String,
    /// The C++ parameter type (`hls::stream<ap_axiu<512,0,0,0>>&`).
    pub cpp_type: String,
    /// The RTL interface: `axis_packet` (TDATA, TKEEP, TSTRB, TLAST), `axis_record` (TDATA only)
    /// or `ap_none` (a plain wire).
    pub interface: String,
    /// `TDATA` width, or the wire's width.
    pub width: u32,
    /// The bit fields of a record port (`lo` from TDATA bit 0).
    pub fields: Vec<PortField>,
    /// What flows through it.
    pub doc: String,
    /// What `coyote/vfpga_top.svh` connects it to: a shell interface (`axis_host_send[0]`) or the
    /// glue it generates (`control bridge`, `ns clock`), or `tied off` when nothing drives it.
    pub coyote: String,
}

/// A bit field of a record port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortField {
    /// Its name.
    pub name: String,
    /// Its lowest bit.
    pub lo: u32,
    /// Its width.
    pub width: u32,
    /// What it holds.
    pub doc: String,
}

/// Who may write a CSR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CsrAccess {
    /// The program writes it, the host only reads it (`csr x: T readonly`).
    Readonly,
    /// Both the program and the host write it (`csr x: T`).
    ReadWrite,
    /// The host writes it, the program only reads it (`param x: T`).
    Param,
}

/// A CSR or param.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsrEntry {
    /// Its name.
    pub name: String,
    /// Its word offset: its position in declaration order (Coyote's `setCSR(value, offset)`).
    pub offset: u32,
    /// Its byte address in the AXI-Lite control space: the scu's `csr_base + 8 * offset`.
    pub byte_address: u64,
    /// Its width in bits (at most 64; the upper bits of the word read as 0).
    pub width: u32,
    /// Its type in the program (`bit<32>`, `rate`).
    pub ty: String,
    /// Who writes it.
    pub access: CsrAccess,
    /// Its value after loading.
    pub init: String,
}

/// How a table element matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKindName {
    /// Equal.
    Exact,
    /// Longest prefix.
    Lpm,
    /// Value and mask.
    Ternary,
    /// Inclusive range.
    Range,
}

/// How a table picks among matching entries (docs/language.md §7.9.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranking {
    /// All keys exact: at most one entry matches.
    Exact,
    /// An `lpm` key and no ternary/range key: the longest prefix wins.
    LongestPrefix,
    /// A ternary or range key: constant entries first in source order, then run-time entries by
    /// the priority number the host gives, lowest first, ties by insertion order.
    Priority,
}

/// A match-action table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableEntry {
    /// Its name.
    pub name: String,
    /// Its position among the scu's tables.
    pub index: u32,
    /// Capacity in entries, constant entries included.
    pub size: u64,
    /// Entries compiled in (they occupy capacity and cannot be changed).
    pub const_entries: u64,
    /// Whether the host cannot change the table at all (entries without `size`).
    pub is_const: bool,
    /// How it picks among matching entries.
    pub ranking: Ranking,
    /// Total key width: the sum of the key elements' widths.
    pub key_bits: u32,
    /// Key elements in key order.
    pub keys: Vec<KeyField>,
    /// The actions an entry may name; an action's `id` is what entries and `apply` results carry.
    pub actions: Vec<ActionEntry>,
    /// Bits of an entry record (`TableAdd` data; see `control`).
    pub record_bits: u32,
    /// Where an entry record holds the action id.
    pub action_field: BitField,
    /// Where an entry record holds the priority (priority tables).
    pub priority_field: BitField,
    /// The action run on a miss.
    pub default: DefaultAction,
}

/// One key element of a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyField {
    /// The key's source text (`ip.dst`; joined keys read `a ++ b`).
    pub name: String,
    /// How it matches.
    pub match_kind: MatchKindName,
    /// Its type in the program.
    pub ty: String,
    /// Its width in bits.
    pub width: u32,
    /// How an entry record encodes it (`exact`: aux is an "any" flag; `lpm`: aux is the prefix
    /// length; `ternary`: aux is the mask; `range`: value and aux are the inclusive bounds).
    pub encoding: String,
    /// Where the value (or low bound) sits in an entry record.
    pub value: BitField,
    /// Where the auxiliary field sits in an entry record.
    pub aux: BitField,
}

/// A field of a record: bits `lo .. lo + width`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BitField {
    /// Its lowest bit.
    pub lo: u32,
    /// Its width.
    pub width: u32,
}

/// An action a table may run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionEntry {
    /// Its position in the table's action list: the action id of entries and results.
    pub id: u32,
    /// Its name (`no_action` is every table's implicit empty action).
    pub name: String,
    /// Total width of its data (its parameters together).
    pub data_bits: u64,
    /// Its parameters in order; `lo` is the position in an entry record.
    pub params: Vec<FieldLayout>,
}

/// A named part of a record: a parameter, a struct field, a state variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldLayout {
    /// Its name.
    pub name: String,
    /// Its type in the program.
    pub ty: String,
    /// Its width in bits.
    pub width: u64,
    /// Its lowest bit in the record.
    pub lo: u64,
}

/// A named field of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedBits {
    /// What it holds.
    pub name: String,
    /// Its lowest bit.
    pub lo: u32,
    /// Its width.
    pub width: u32,
}

/// A table's miss action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefaultAction {
    /// The action's id in the table's action list.
    pub action: u32,
    /// The action's name.
    pub name: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Whether the host may replace it (not in constant tables).
    pub host_may_change: bool,
}

/// A map kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapKindName {
    /// Indexed by key, every cell present.
    Array,
    /// Hash table; inserting into a full map fails.
    Hash,
    /// Hash table evicting the least recently used key when full.
    LruHash,
}

/// An eBPF-style map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapEntry {
    /// Its name.
    pub name: String,
    /// Its position among the scu's maps.
    pub index: u32,
    /// Its kind.
    pub kind: MapKindName,
    /// Key width in bits.
    pub key_bits: u64,
    /// Value width in bits.
    pub value_bits: u64,
    /// The value's type in the program.
    pub value_ty: String,
    /// The value's scalar fields (`stats.packets`), `lo` from the value's first bit, first field
    /// lowest; in map requests the key takes bits `0 .. key_bits` and the value follows it.
    pub value_fields: Vec<NamedBits>,
    /// Capacity in keys.
    pub size: u64,
}

/// What a counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKindName {
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
    /// Both.
    PacketsAndBytes,
}

/// A counter array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterEntry {
    /// Its name.
    pub name: String,
    /// Its position among the scu's counters.
    pub index: u32,
    /// What it counts.
    pub kind: CounterKindName,
    /// Number of cells.
    pub size: u64,
    /// Bits of each count in a cell (64: packet and byte counts wrap at 2^64).
    pub count_bits: u32,
}

/// A token-bucket meter array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeterEntry {
    /// Its name.
    pub name: String,
    /// Its position among the scu's meters.
    pub index: u32,
    /// Number of buckets.
    pub size: u64,
    /// Rate of every bucket after loading, bit/s (`null`: unset; the bucket never exceeds until
    /// the host sets one).
    pub rate_bps: Option<u64>,
    /// Burst of every bucket after loading, bytes.
    pub burst_bytes: Option<u64>,
}

/// Where an output sends words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutKindName {
    /// DMA to host, GPU or SSD memory.
    Dma,
    /// To the host.
    Host,
}

/// A stream output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutEntry {
    /// Its name.
    pub name: String,
    /// Its position among the scu's outputs.
    pub index: u32,
    /// Where words go.
    pub kind: OutKindName,
    /// For `[dma; N]`, N; `null` for a single output.
    pub count: Option<u32>,
    /// Transfer size in bytes, if batched.
    pub batch_bytes: Option<u64>,
}

/// A periodic block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EveryEntry {
    /// Its position among the scu's `every` blocks.
    pub index: u32,
    /// Its period in ns.
    pub period_ns: u64,
}

/// An scu's figures at a glance, from the timing estimates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScuSummary {
    /// The packet path (parser worst path, control, deparser), if the scu processes packets.
    pub packet: Option<BodySummary>,
    /// The stream kernel, per 512-bit word, if the scu has one.
    pub stream: Option<BodySummary>,
}

/// Latency and II of one body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodySummary {
    /// Estimated cycles from start to the last effect.
    pub latency: u32,
    /// Estimated initiation interval in cycles.
    pub ii: u32,
    /// For per-packet bodies: the smallest packet in bytes that still runs at line rate.
    pub line_rate_min_bytes: Option<u64>,
}

/// What a cc controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcOutputKind {
    /// A sending rate (bit/s).
    Rate,
    /// A congestion window (bytes).
    Window,
}

/// A congestion controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CcManifest {
    /// Its name.
    pub name: String,
    /// Its position among the program's ccs.
    pub index: u32,
    /// The HLS kernel built for it (absent when the manifest was built without a backend). Its
    /// params are the kernel's CSRs: `CsrRead`/`CsrWrite` with target = the param's `index`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Kernel>,
    /// Number of flows with state.
    pub flows: u64,
    /// Its cycle budget per handler, if declared.
    pub budget_cycles: Option<u64>,
    /// What it controls.
    pub output: CcOutputKind,
    /// The state variable holding the output.
    pub output_state: String,
    /// Host-set parameters.
    pub params: Vec<CcParamEntry>,
    /// The per-flow state record (`lo` from the record's first bit).
    pub state: Vec<CcStateEntry>,
    /// Bits of state per flow.
    pub state_bits: u64,
    /// Total state memory: flows × state bits.
    pub state_memory_bits: u64,
    /// Timers and byte counters.
    pub timers: Vec<TimerEntry>,
    /// Event handlers with their estimated cycles against the budget.
    pub handlers: Vec<HandlerEntry>,
}

/// A host-set parameter of a cc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CcParamEntry {
    /// Its name.
    pub name: String,
    /// Its position among the cc's params (the control interface's param id).
    pub index: u32,
    /// Its type in the program.
    pub ty: String,
    /// Its width in bits.
    pub width: u64,
    /// Its value after loading.
    pub default: String,
}

/// A per-flow state variable of a cc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CcStateEntry {
    /// Its name.
    pub name: String,
    /// Its type in the program.
    pub ty: String,
    /// Its width in bits.
    pub width: u64,
    /// Its lowest bit in the flow's state record.
    pub lo: u64,
    /// Its value for a new flow.
    pub init: String,
}

/// What drives a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimerUnit {
    /// Time: the period is in ns.
    Ns,
    /// Bytes sent: the period is in bytes (a byte counter).
    Bytes,
}

/// A timer or byte counter of a cc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimerEntry {
    /// Its name.
    pub name: String,
    /// Its period.
    pub period: u64,
    /// The unit of the period.
    pub unit: TimerUnit,
}

/// An event handler of a cc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandlerEntry {
    /// The event (`on ack`, `on timer rate_timer`, `on bytes byte_counter`).
    pub event: String,
    /// Estimated cycles, reading and writing back the flow's state included.
    pub latency: u32,
    /// Estimated initiation interval (events of one flow).
    pub ii: u32,
    /// The cc's budget, if declared.
    pub budget: Option<u64>,
    /// Whether the estimate exceeds the budget.
    pub over_budget: bool,
}

/// The timing estimates and what they assume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimates {
    /// The kernel clock the estimates (and `create_clock` in the HLS scripts) assume, MHz.
    pub clock_mhz: f64,
    /// The same as a period, ns.
    pub clock_period_ns: f64,
    /// Datapath width: bits per beat.
    pub datapath_bits: u32,
    /// The line rate the budgets are computed for, bit/s.
    pub line_rate_bps: u64,
    /// The largest packet, bytes.
    pub mtu_bytes: u32,
    /// Cycles per MTU-size packet at line rate (the natural cc budget).
    pub mtu_budget_cycles: u64,
    /// Cycles per 64-byte packet at line rate.
    pub min_packet_budget_cycles: u64,
    /// Every body of every scu and cc, in module order.
    pub bodies: Vec<BodyEstimate>,
}

/// The estimate of one body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyEstimate {
    /// `scu incast_firewall: control`, `cc dcqcn: on cnp`.
    pub name: String,
    /// The kind of body (`parser_state`, `parser`, `control`, `packet`, `stream`, `cc_handler`, ...).
    pub kind: String,
    /// Estimated cycles from start to the last effect.
    pub latency: u32,
    /// Estimated initiation interval.
    pub ii: u32,
    /// Why `ii` is above 1.
    pub ii_limit: Option<IiLimitEntry>,
    /// For cc handlers, the budget.
    pub budget: Option<u64>,
    /// For per-packet bodies, the smallest packet in bytes that runs at line rate.
    pub line_rate_min_bytes: Option<u64>,
    /// The most expensive operations on the critical path, most expensive first.
    pub costly: Vec<CostlyEntry>,
}

/// Why a body's II is above 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IiLimitEntry {
    /// The stateful object (`map subnets`).
    pub object: String,
    /// The II it forces.
    pub cycles: u32,
    /// A sentence for reports.
    pub reason: String,
}

/// An expensive operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostlyEntry {
    /// What it is (`multiply (64×16 bits)`).
    pub what: String,
    /// Cycles it adds to the path.
    pub cycles: u32,
    /// Copies on the path.
    pub count: u32,
}

/// What only the backend knows, passed to [`super::Manifest::build`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BackendFacts {
    /// One kernel per scu, in scu order; empty to build a manifest without kernels.
    pub kernels: Vec<Kernel>,
    /// One kernel per cc, in cc order; empty to build a manifest without them.
    pub cc_kernels: Vec<Kernel>,
}

/// The source a manifest describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source<'a> {
    /// The file name as given to the compiler.
    pub file: &'a str,
    /// Its text.
    pub text: &'a str,
}
