//! What a generated program offers its inputs: the scu's CSRs, tables (keys, kinds, actions),
//! maps and headers, and the controllers and their handlers. The input generator
//! (`inputs.rs`) draws host operations and packets from it; the comparison reads state by
//! these names.

use super::env::MapKind;
use super::gen_types::Ty;

/// A table key.
#[derive(Clone, Debug)]
pub struct KeyInfo {
    /// The key expression as written (its name in STF `add`).
    pub name: String,
    /// `exact`, `lpm`, `ternary` or `range`.
    pub kind: &'static str,
    /// Its width in bits (`bool`: 1).
    pub width: u32,
    /// A `bool` key.
    pub is_bool: bool,
}

/// A table.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// Its name.
    pub name: String,
    /// Its keys.
    pub keys: Vec<KeyInfo>,
    /// Actions: name and parameter (name, width) pairs.
    pub actions: Vec<(String, Vec<(String, u32)>)>,
    /// Whether the host may add entries (it has a `size`).
    pub runtime: bool,
}

impl TableInfo {
    /// A priority table: one with a ternary or range key (language.md §7.9.6).
    pub fn is_priority(&self) -> bool {
        self.keys
            .iter()
            .any(|k| k.kind == "ternary" || k.kind == "range")
    }
}

/// A map.
#[derive(Clone, Debug)]
pub struct MapInfo {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: MapKind,
    /// Key width.
    pub key_width: u32,
    /// Value width, when the value is a `bit<N>` the host can write.
    pub scalar_value: Option<u32>,
    /// Whether the value is a struct (written by the host as a packed record, not by STF).
    pub struct_value: bool,
    /// Its size.
    pub size: u64,
}

/// A congestion controller.
#[derive(Clone, Debug)]
pub struct CcInfo {
    /// Its name.
    pub name: String,
    /// Its flows.
    pub flows: u64,
    /// `rate` or `window`.
    pub output: &'static str,
    /// Params: name and width.
    pub params: Vec<(String, u32)>,
}

/// An output of a stream kernel (language.md §7.14).
#[derive(Clone, Debug)]
pub struct OutInfo {
    /// Its name.
    pub name: String,
    /// The element count of an output array.
    pub count: Option<u32>,
}

/// What an `rdma`/`tcp` scu's stream kernel offers its inputs.
#[derive(Clone, Debug)]
pub struct StreamInfo {
    /// The attach binding's width: 24 (`rdma(qp)`) or 16 (`tcp(flow)`), language.md §4.16.
    pub flow_width: u32,
    /// Its outputs.
    pub outs: Vec<OutInfo>,
}

/// The scus and controllers of a program: the first scu (which gets every packet, word and
/// host operation, as in STF) described here, a second one in `peer`.
#[derive(Clone, Debug, Default)]
pub struct ProgramInfo {
    /// The scu's name.
    pub scu: String,
    /// CSRs and params the host writes: name and width.
    pub host_csrs: Vec<(String, u32)>,
    /// Every CSR and param: name.
    pub csrs: Vec<String>,
    /// Tables.
    pub tables: Vec<TableInfo>,
    /// Maps.
    pub maps: Vec<MapInfo>,
    /// Counters: name and cell count.
    pub counters: Vec<(String, u32)>,
    /// Bytes the parser's headers take on the longest path (packets are drawn around it).
    pub header_bytes: usize,
    /// Controllers.
    pub ccs: Vec<CcInfo>,
    /// The stream kernel, for an `rdma`/`tcp` scu (which then gets words instead of packets).
    pub stream: Option<StreamInfo>,
    /// A second scu, fed the copies the first one sends it with `to_scu` (language.md §7.15).
    pub peer: Option<Box<ProgramInfo>>,
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its source text.
    pub source: String,
    /// What it offers its inputs.
    pub info: ProgramInfo,
}

/// Whether a type is `bit<N>` with N ≤ 64 (a value STF and the host can write).
pub fn host_width(ty: &Ty) -> Option<u32> {
    match ty {
        Ty::Bit(n) if *n <= 64 => Some(*n),
        _ => None,
    }
}
