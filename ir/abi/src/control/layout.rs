//! [`ControlLayout`](super::ControlLayout): the control interface of every scu of a module, built
//! from the module and its `ModuleInfo` — which objects exist, their targets, and where each field
//! of their records sits.

use super::{Mailbox, ACTION_BITS, FORMAT_VERSION, PREFIX_LEN_BITS, PRIORITY_BITS};
use cranelift_entity::EntityRef;
use scenic_ir::entities::*;
use scenic_ir::program::{CounterKind, MapKind, MatchKind, Module, Scu};
use scenic_ir::types::Type;
use scenic_ir::valid::ModuleInfo;
use serde::{Deserialize, Serialize};

/// A named field of a record: bits `lo .. lo+width`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldLayout {
    /// What it holds (`ip.dst`, `class`, `stats.packets`).
    pub name: String,
    /// Its lowest bit.
    pub lo: u32,
    /// Its width.
    pub width: u32,
}

/// The control interface of a whole module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlLayout {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// `D`: the data bits of every request and response (a multiple of 64, at least 128).
    pub data_bits: u32,
    /// Bits of a packed request: `D + 56`.
    pub request_bits: u32,
    /// Bits of a packed response: `D + 8`.
    pub response_bits: u32,
    /// One entry per scu, in `ScuId` order.
    pub scus: Vec<ScuControl>,
}

/// The control interface of one scu.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScuControl {
    /// The scu's name.
    pub name: String,
    /// CSRs and params, by offset.
    pub csrs: Vec<CsrControl>,
    /// The mailbox words after the CSRs.
    pub mailbox: Mailbox,
    /// Tables, by target.
    pub tables: Vec<TableControl>,
    /// Maps, by target.
    pub maps: Vec<MapControl>,
    /// Counters, by target.
    pub counters: Vec<CounterControl>,
    /// Meters, by target.
    pub meters: Vec<MeterControl>,
}

/// A CSR or param.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsrControl {
    /// Its name.
    pub name: String,
    /// Its word offset (the target of CSR ops).
    pub offset: u32,
    /// Its width in bits.
    pub width: u32,
    /// The host may only read it.
    pub host_readonly: bool,
    /// It is a `param`.
    pub is_param: bool,
}

/// How a table picks among matching entries (the interpreter's strategies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStrategy {
    /// Only exact keys: at most one entry matches; equal keys are refused (`Duplicate`).
    Exact,
    /// An lpm key and no ternary/range key: the longest prefix of the lpm key wins (exact keys
    /// must match but do not rank, language.md §7.9.6), ties to the entry added first; constant
    /// entries compete alike.
    LongestPrefix,
    /// A ternary or range key: constant entries first (source order), then run-time entries by
    /// priority number, lowest first, ties to the entry added first.
    Priority,
}

/// How one key element is encoded in an entry record: a value field of the key's width and an
/// auxiliary field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyEncoding {
    /// `aux` is one bit, set for "any". In an exact-only table an "any" element never matches (the
    /// interpreter compares it as a 1-bit zero; the encoder turns "any" on a 1-bit key into the
    /// value 0 for that reason); elsewhere it matches everything.
    Exact,
    /// `aux` is the prefix length ([`PREFIX_LEN_BITS`] bits, at most the key width); "any" is
    /// length 0.
    Lpm,
    /// `aux` is the mask; "any" is mask 0.
    Ternary,
    /// `value` is the low bound and `aux` the high bound, inclusive; "any" is `0 ..= max`.
    Range,
}

/// One key element of a table's entry records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyControl {
    /// The key as written (`ip.dst`).
    pub name: String,
    /// Its match kind.
    pub kind: MatchKind,
    /// Its width.
    pub width: u32,
    /// How the two fields are used.
    pub encoding: KeyEncoding,
    /// The value (or low bound).
    pub value: FieldLayout,
    /// The flag, prefix length, mask or high bound.
    pub aux: FieldLayout,
}

/// An action a table may choose, with where its arguments sit in a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionControl {
    /// Its name.
    pub name: String,
    /// Its position in the table's action list (the `action` field of a record).
    pub position: u32,
    /// Its parameters in order, each a field of the record.
    pub params: Vec<FieldLayout>,
}

/// A table's entry records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableControl {
    /// Its name.
    pub name: String,
    /// Its target (the `TableId` index).
    pub target: u16,
    /// How it picks an entry.
    pub strategy: TableStrategy,
    /// Capacity, constant entries included.
    pub size: u64,
    /// Only constant entries: `TableAdd`, `TableModify` and `TableSetDefault` give `Constant`.
    pub is_const: bool,
    /// The action position field (bits 0..8).
    pub action: FieldLayout,
    /// The priority field (bits 8..40; used by priority tables only).
    pub priority: FieldLayout,
    /// Key elements, in key order.
    pub keys: Vec<KeyControl>,
    /// The actions, in table order.
    pub actions: Vec<ActionControl>,
    /// Bits of a record.
    pub record_bits: u32,
}

/// A map's records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapControl {
    /// Its name.
    pub name: String,
    /// Its target.
    pub target: u16,
    /// Its kind.
    pub kind: MapKind,
    /// Capacity.
    pub size: u64,
    /// Key bits (the key sits in bits `0..key_bits`).
    pub key_bits: u32,
    /// Value bits (the value follows the key).
    pub value_bits: u32,
    /// The value's scalar fields, relative to the value's first bit (first field lowest).
    pub value_fields: Vec<FieldLayout>,
}

/// A counter array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterControl {
    /// Its name.
    pub name: String,
    /// Its target.
    pub target: u16,
    /// What it counts (a packets-only counter reads 0 bytes, and vice versa).
    pub kind: CounterKind,
    /// Cells.
    pub size: u64,
}

/// A meter array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeterControl {
    /// Its name.
    pub name: String,
    /// Its target.
    pub target: u16,
    /// Cells.
    pub size: u64,
    /// The compiled-in rate in bit/s, if any.
    pub rate: Option<u64>,
    /// The compiled-in burst in bytes, if any.
    pub burst: Option<u64>,
}

/// The width of a value of type `ty`, as it is packed in records.
pub fn type_bits(module: &Module, info: &ModuleInfo, ty: &Type) -> u32 {
    match ty {
        Type::Struct(s) => info.struct_bits.get(*s).copied().unwrap_or(0) as u32,
        Type::Array(elem, n) => type_bits(module, info, elem).saturating_mul(*n),
        Type::Header(h) => module.headers.get(*h).map_or(0, |l| l.bits) + 1,
        Type::Tuple(items) => items.iter().map(|t| type_bits(module, info, t)).sum(),
        Type::Unit => 0,
        other => other
            .scalar_width(|e| module.enums.get(e).map_or(8, |d| d.width))
            .unwrap_or(0),
    }
}

/// The scalar fields of a value of type `ty` starting at bit `lo`, first field lowest.
pub fn flatten(
    module: &Module,
    info: &ModuleInfo,
    ty: &Type,
    name: &str,
    lo: u32,
    out: &mut Vec<FieldLayout>,
) {
    match ty {
        Type::Struct(s) => {
            let mut at = lo;
            for f in module.structs.get(*s).map_or(&[][..], |l| &l.fields) {
                flatten(module, info, &f.ty, &format!("{name}.{}", f.name), at, out);
                at += type_bits(module, info, &f.ty);
            }
        }
        Type::Array(elem, n) => {
            let w = type_bits(module, info, elem);
            for i in 0..*n {
                flatten(module, info, elem, &format!("{name}[{i}]"), lo + i * w, out);
            }
        }
        other => out.push(FieldLayout {
            name: name.to_string(),
            lo,
            width: type_bits(module, info, other),
        }),
    }
}

impl ControlLayout {
    /// The layout of every scu of `module` (validated: `info` is its `ModuleInfo`).
    pub fn new(module: &Module, info: &ModuleInfo) -> ControlLayout {
        let mut scus: Vec<ScuControl> = module
            .scus
            .iter()
            .map(|(id, scu)| scu_control(module, info, id, scu))
            .collect();
        let widest = scus.iter().map(widest_record).max().unwrap_or(0);
        let data_bits = widest.max(128).div_ceil(64) * 64;
        for s in &mut scus {
            s.mailbox = Mailbox::new(s.csrs.len() as u32, data_bits);
        }
        ControlLayout {
            format_version: FORMAT_VERSION,
            data_bits,
            request_bits: data_bits + 56,
            response_bits: data_bits + 8,
            scus,
        }
    }

    /// The layout of the scu named `name`.
    pub fn scu(&self, name: &str) -> Option<&ScuControl> {
        self.scus.iter().find(|s| s.name == name)
    }
}

impl ScuControl {
    /// The CSR or param named `name`.
    pub fn csr(&self, name: &str) -> Option<&CsrControl> {
        self.csrs.iter().find(|c| c.name == name)
    }

    /// The table named `name`.
    pub fn table(&self, name: &str) -> Option<&TableControl> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// The map named `name`.
    pub fn map(&self, name: &str) -> Option<&MapControl> {
        self.maps.iter().find(|m| m.name == name)
    }

    /// The counter named `name`.
    pub fn counter(&self, name: &str) -> Option<&CounterControl> {
        self.counters.iter().find(|c| c.name == name)
    }

    /// The meter named `name`.
    pub fn meter(&self, name: &str) -> Option<&MeterControl> {
        self.meters.iter().find(|m| m.name == name)
    }
}

/// The widest record an scu's requests or responses carry.
fn widest_record(s: &ScuControl) -> u32 {
    let csr = s.csrs.iter().map(|c| c.width).max().unwrap_or(0);
    let tables = s.tables.iter().map(|t| t.record_bits).max().unwrap_or(0);
    let maps = s
        .maps
        .iter()
        .map(|m| m.key_bits + m.value_bits + 32)
        .max()
        .unwrap_or(0);
    csr.max(tables).max(maps).max(128)
}

fn scu_control(module: &Module, info: &ModuleInfo, id: ScuId, scu: &Scu) -> ScuControl {
    let si = &info.scus[id];
    let csrs = scu
        .csrs
        .iter()
        .map(|(c, csr)| CsrControl {
            name: csr.name.clone(),
            offset: si.csrs.get(c).map_or(c.index() as u32, |i| i.offset),
            width: type_bits(module, info, &csr.ty),
            host_readonly: csr.host_readonly,
            is_param: csr.is_param,
        })
        .collect();
    let tables = scu
        .tables
        .iter()
        .map(|(t, _)| table_control(module, info, scu, t))
        .collect();
    let maps = scu
        .maps
        .iter()
        .map(|(m, map)| {
            let key_bits = type_bits(module, info, &map.key);
            let mut value_fields = Vec::new();
            flatten(module, info, &map.value, &map.name, 0, &mut value_fields);
            MapControl {
                name: map.name.clone(),
                target: m.index() as u16,
                kind: map.kind,
                size: map.size,
                key_bits,
                value_bits: type_bits(module, info, &map.value),
                value_fields,
            }
        })
        .collect();
    let counters = scu
        .counters
        .iter()
        .map(|(c, counter)| CounterControl {
            name: counter.name.clone(),
            target: c.index() as u16,
            kind: counter.kind,
            size: counter.size,
        })
        .collect();
    let meters = scu
        .meters
        .iter()
        .map(|(m, meter)| MeterControl {
            name: meter.name.clone(),
            target: m.index() as u16,
            size: meter.size,
            rate: meter.rate,
            burst: meter.burst,
        })
        .collect();
    ScuControl {
        name: scu.name.clone(),
        csrs,
        mailbox: Mailbox::new(0, 128),
        tables,
        maps,
        counters,
        meters,
    }
}

/// The strategy the interpreter uses for a table with these key kinds.
pub fn strategy_of(kinds: impl IntoIterator<Item = MatchKind>) -> TableStrategy {
    let kinds: Vec<MatchKind> = kinds.into_iter().collect();
    if kinds
        .iter()
        .any(|k| matches!(k, MatchKind::Ternary | MatchKind::Range))
    {
        TableStrategy::Priority
    } else if kinds.contains(&MatchKind::Lpm) {
        TableStrategy::LongestPrefix
    } else {
        TableStrategy::Exact
    }
}

fn table_control(module: &Module, info: &ModuleInfo, scu: &Scu, t: TableId) -> TableControl {
    let table = &scu.tables[t];
    let field = |name: &str, lo: u32, width: u32| FieldLayout {
        name: name.to_string(),
        lo,
        width,
    };
    let mut at = ACTION_BITS + PRIORITY_BITS;
    let mut keys = Vec::new();
    for k in &table.keys {
        let width = type_bits(module, info, &k.ty).max(1);
        let (encoding, aux_width) = match k.kind {
            MatchKind::Exact => (KeyEncoding::Exact, 1),
            MatchKind::Lpm => (KeyEncoding::Lpm, PREFIX_LEN_BITS),
            MatchKind::Ternary => (KeyEncoding::Ternary, width),
            MatchKind::Range => (KeyEncoding::Range, width),
        };
        keys.push(KeyControl {
            name: k.name.clone(),
            kind: k.kind,
            width,
            encoding,
            value: field(&k.name, at, width),
            aux: field(&format!("{}/aux", k.name), at + width, aux_width),
        });
        at += width + aux_width;
    }
    let args_lo = at;
    let mut record_bits = args_lo;
    let actions = table
        .actions
        .iter()
        .enumerate()
        .map(|(position, a)| {
            let body = &scu.actions[*a].body;
            let mut lo = args_lo;
            let params = body
                .params
                .iter()
                .map(|p| {
                    let local = &body.locals[*p];
                    let width = type_bits(module, info, &local.ty).max(1);
                    let f = field(&local.name, lo, width);
                    lo += width;
                    f
                })
                .collect();
            record_bits = record_bits.max(lo);
            ActionControl {
                name: scu.actions[*a].name.clone(),
                position: position as u32,
                params,
            }
        })
        .collect();
    TableControl {
        name: table.name.clone(),
        target: t.index() as u16,
        strategy: strategy_of(table.keys.iter().map(|k| k.kind)),
        size: table.size,
        is_const: table.is_const,
        action: field("action", 0, ACTION_BITS),
        priority: field("priority", ACTION_BITS, PRIORITY_BITS),
        keys,
        actions,
        record_bits,
    }
}
