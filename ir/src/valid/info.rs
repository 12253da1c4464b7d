//! [`ModuleInfo`]: the facts the validator computes for backends, the interpreter and the runtime.
//!
//! It exists only for a module that validated, so every id the module holds indexes it (`info[h]`
//! for a header, `info[f]` for a function, `info[s][t]` for a table of scu `s`). Indexing with an
//! id the module does not have yields an empty default entry rather than panicking
//! (cranelift-entity `SecondaryMap`s).

use super::error::Construct;
use crate::entities::*;
use crate::span::Span;
use cranelift_entity::SecondaryMap;
use std::ops::Index;

/// Byte address of CSR word 0 in Coyote's user window (ARCHITECTURE.md: "CSRs follow Coyote").
pub const CSR_WINDOW_BASE: u64 = 0x20000;

/// Facts about a validated module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleInfo {
    /// Every header layout.
    pub headers: SecondaryMap<HeaderId, HeaderInfo>,
    /// The width in bits of every struct value (the sum of its fields' widths).
    pub struct_bits: SecondaryMap<StructId, u64>,
    /// Every function's body.
    pub functions: SecondaryMap<FuncId, BodyInfo>,
    /// Every scu.
    pub scus: SecondaryMap<ScuId, ScuInfo>,
    /// Every cc.
    pub ccs: SecondaryMap<CcId, CcInfo>,
    /// Every function, callees before their callers (a topological order of the call graph).
    pub call_order: Vec<FuncId>,
}

/// A header layout's size and field positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderInfo {
    /// Size on the wire in bytes.
    pub bytes: u32,
    /// Each field's `(bit offset, width)`, in wire order.
    pub fields: Vec<(u32, u32)>,
}

/// Facts about one body: its size, and what it applies and calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyInfo {
    /// Number of expressions.
    pub exprs: usize,
    /// Number of locals (parameters included).
    pub locals: usize,
    /// The deepest expression tree (a leaf has depth 1; 0 without expressions).
    pub max_depth: u32,
    /// Tables applied by this body itself, in id order.
    pub applies: Vec<TableId>,
    /// Functions called by this body itself, in id order.
    pub calls: Vec<FuncId>,
    /// Actions called directly (`CallAction`) by this body itself, in id order.
    pub call_actions: Vec<ActionId>,
    /// Tables applied when this body runs: by itself and by every function it reaches.
    pub applies_transitive: Vec<TableId>,
    /// Functions that may run when this body runs: called by it, by its callees, by the keys and
    /// actions of the tables it applies and by the actions it calls; in id order.
    pub calls_transitive: Vec<FuncId>,
    /// Restricted constructs this body uses itself, each with its first span, in construct order.
    pub constructs: Vec<(Construct, Span)>,
}

impl BodyInfo {
    /// Whether the body itself uses a construct.
    pub fn uses(&self, c: Construct) -> bool {
        self.constructs.iter().any(|(k, _)| *k == c)
    }
}

/// A CSR's place in the register file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsrInfo {
    /// Its word offset (its position in declaration order).
    pub offset: u32,
    /// Its byte address in the user window: `0x20000 + 8 * offset`.
    pub byte_offset: u64,
    /// Its width in bits (at most 64).
    pub width: u32,
}

/// A table's key layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableInfo {
    /// Total key width in bits.
    pub key_bits: u32,
    /// Each key element's width, in key order.
    pub key_widths: Vec<u32>,
    /// The key body.
    pub key: BodyInfo,
}

/// A map's entry layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapInfo {
    /// Key width in bits.
    pub key_bits: u64,
    /// Value width in bits.
    pub value_bits: u64,
}

/// Facts about one scu.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScuInfo {
    /// Every CSR.
    pub csrs: SecondaryMap<CsrId, CsrInfo>,
    /// Every table.
    pub tables: SecondaryMap<TableId, TableInfo>,
    /// Every map.
    pub maps: SecondaryMap<MapId, MapInfo>,
    /// Every action's body.
    pub actions: SecondaryMap<ActionId, BodyInfo>,
    /// The parser body (all states), if any.
    pub parser: Option<BodyInfo>,
    /// The control, if any.
    pub control: Option<BodyInfo>,
    /// `on parser_error`, if any.
    pub on_parser_error: Option<BodyInfo>,
    /// The deparser, if any.
    pub deparser: Option<BodyInfo>,
    /// The stream kernel, if any.
    pub stream: Option<BodyInfo>,
    /// Each `every` block.
    pub every: Vec<BodyInfo>,
}

/// Facts about one cc.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CcInfo {
    /// Bits of state per flow: the sum of the state variables' widths.
    pub state_bits: u64,
    /// Each state variable's bit offset in a flow's state record, in id order.
    pub state_offsets: SecondaryMap<CcStateId, u64>,
    /// Total state memory in bits: flows × `state_bits`.
    pub state_memory_bits: u64,
    /// Each handler's body, in handler order.
    pub handlers: Vec<BodyInfo>,
}

impl Index<HeaderId> for ModuleInfo {
    type Output = HeaderInfo;
    fn index(&self, id: HeaderId) -> &HeaderInfo {
        &self.headers[id]
    }
}

impl Index<FuncId> for ModuleInfo {
    type Output = BodyInfo;
    fn index(&self, id: FuncId) -> &BodyInfo {
        &self.functions[id]
    }
}

impl Index<ScuId> for ModuleInfo {
    type Output = ScuInfo;
    fn index(&self, id: ScuId) -> &ScuInfo {
        &self.scus[id]
    }
}

impl Index<CcId> for ModuleInfo {
    type Output = CcInfo;
    fn index(&self, id: CcId) -> &CcInfo {
        &self.ccs[id]
    }
}

impl Index<CsrId> for ScuInfo {
    type Output = CsrInfo;
    fn index(&self, id: CsrId) -> &CsrInfo {
        &self.csrs[id]
    }
}

impl Index<TableId> for ScuInfo {
    type Output = TableInfo;
    fn index(&self, id: TableId) -> &TableInfo {
        &self.tables[id]
    }
}

impl Index<MapId> for ScuInfo {
    type Output = MapInfo;
    fn index(&self, id: MapId) -> &MapInfo {
        &self.maps[id]
    }
}

impl Index<ActionId> for ScuInfo {
    type Output = BodyInfo;
    fn index(&self, id: ActionId) -> &BodyInfo {
        &self.actions[id]
    }
}
