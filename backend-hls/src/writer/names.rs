//! [`Names`]: the C++ identifier of every IR object one kernel mentions, given out once by
//! [`crate::namer::Namer`]s so that all parts of the writer agree.
//!
//! Scopes: the kernel's namespace (types, functions, tables' helper types), the members of
//! `pkt_t` (header instances, stack fill counts), the members of `state_t` (CSRs, tables, maps,
//! counters, meters) and each struct's members. Readable names are kept where they are legal
//! (`pk.ip.ttl`, `st.dropped`); scaffolding names are reserved first so that a program object can
//! never shadow them.

use crate::namer::Namer;
use cranelift_entity::{EntityRef, SecondaryMap};
use scenic_ir::entities::*;
use scenic_ir::program::Scu;
use scenic_ir::types::Type;
use scenic_ir::Module;
use std::collections::BTreeMap;

/// Members of `pkt_t` the scaffolding uses.
pub const PKT_MEMBERS: &[&str] = &[
    "meta", "win", "len", "port", "ts", "cur", "halt", "dropped", "rejected", "err", "ncopies",
    "dest", "nnotes", "notes", "out", "olen",
];

/// Members of `state_t` the scaffolding uses.
pub const STATE_MEMBERS: &[&str] = &["every_next", "started", "start_ns"];

/// C++ names of one kernel.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// The top function.
    pub top: String,
    /// The kernel's namespace.
    pub ns: String,
    /// Header struct types.
    pub hdr: SecondaryMap<HeaderId, String>,
    /// Header field members.
    pub hdr_fields: SecondaryMap<HeaderId, Vec<String>>,
    /// Struct types.
    pub st: SecondaryMap<StructId, String>,
    /// Struct members.
    pub st_fields: SecondaryMap<StructId, Vec<String>>,
    /// Array struct types, by the array type's text.
    pub arrays: BTreeMap<String, String>,
    /// Header instances (members of `pkt_t`).
    pub inst: SecondaryMap<InstId, String>,
    /// Stack fill counts (members of `pkt_t`).
    pub fill: SecondaryMap<InstId, String>,
    /// CSRs and params (members of `state_t`).
    pub csr: SecondaryMap<CsrId, String>,
    /// Tables (members of `state_t`).
    pub table: SecondaryMap<TableId, String>,
    /// Table struct types.
    pub table_ty: SecondaryMap<TableId, String>,
    /// Table result struct types.
    pub table_res: SecondaryMap<TableId, String>,
    /// Table application functions.
    pub apply: SecondaryMap<TableId, String>,
    /// Maps (members of `state_t`).
    pub map: SecondaryMap<MapId, String>,
    /// Counters (members of `state_t`).
    pub counter: SecondaryMap<CounterId, String>,
    /// Meters (members of `state_t`).
    pub meter: SecondaryMap<MeterId, String>,
    /// Functions.
    pub func: SecondaryMap<FuncId, String>,
    /// Actions.
    pub action: SecondaryMap<ActionId, String>,
    /// Parser state functions.
    pub state: SecondaryMap<StateId, String>,
    /// `every` block functions.
    pub every: Vec<String>,
    kernel: Namer,
}

fn members(namer: &mut Namer, names: impl Iterator<Item = String>) -> Vec<String> {
    names.map(|n| namer.name(&n)).collect()
}

/// Names the kernel file defines itself (types, functions, constants): no generated name may take
/// them.
const KERNEL_FIXED_NAMES: [&str; 25] = [
    "state_t",
    "pkt_t",
    "win_t",
    "desc_t",
    "parse",
    "control",
    "deparse",
    "on_parser_error",
    "init_state",
    "serve_ctrl",
    "run_every",
    "handle_packet",
    "pk_copy",
    "pk_drop",
    "pk_reject",
    "pk_notify",
    "ctrl_req_t",
    "ctrl_resp_t",
    "MAX_COPIES",
    "MAX_NOTES",
    "WIN_BITS",
    "OUT_BITS",
    "MAX_BEATS",
    "HDR_BEATS",
    "MAX_OUT_BEATS",
];

impl Names {
    /// Names for every object of `scu` and every type of `module`.
    pub fn new(module: &Module, scu: &Scu) -> Names {
        let mut global = Namer::new();
        let top = global.name(&scu.name);
        let mut n = Names {
            ns: format!("{top}_kernel"),
            top,
            ..Names::default()
        };
        n.name_kernel_scope(module, scu);
        n.name_packet_members(scu);
        n.name_state_members(scu);
        n
    }

    /// Names at the kernel's namespace scope: types, functions, actions, table types, parser
    /// states and `every` blocks.
    fn name_kernel_scope(&mut self, module: &Module, scu: &Scu) {
        let k = &mut self.kernel;
        KERNEL_FIXED_NAMES.iter().for_each(|fixed| k.reserve(fixed));
        for (id, h) in &module.headers {
            self.hdr[id] = k.name(&format!("hdr_{}", h.name));
            let mut fields = Namer::new();
            self.hdr_fields[id] = members(&mut fields, h.fields.iter().map(|f| f.name.clone()));
        }
        for (id, s) in &module.structs {
            self.st[id] = k.name(&format!("st_{}", s.name));
            let mut fields = Namer::new();
            self.st_fields[id] = members(&mut fields, s.fields.iter().map(|f| f.name.clone()));
        }
        for (id, f) in &module.functions {
            self.func[id] = k.name(&format!("fn_{}", f.name));
        }
        for (id, a) in &scu.actions {
            self.action[id] = k.name(&format!("act_{}", a.name));
        }
        for (id, t) in &scu.tables {
            self.table_ty[id] = k.name(&format!("tbl_{}_t", t.name));
            self.table_res[id] = k.name(&format!("res_{}_t", t.name));
            self.apply[id] = k.name(&format!("apply_{}", t.name));
        }
        if let Some(p) = &scu.parser {
            for (id, s) in &p.states {
                self.state[id] = k.name(&format!("ps_{}", s.name));
            }
        }
        self.every = (0..scu.every.len())
            .map(|i| k.name(&format!("every_{i}")))
            .collect();
    }

    /// Members of `pkt_t`: header instances and the fill counts of stacks.
    fn name_packet_members(&mut self, scu: &Scu) {
        let mut pkt = Namer::new();
        PKT_MEMBERS.iter().for_each(|m| pkt.reserve(m));
        for (id, inst) in &scu.instances {
            self.inst[id] = pkt.name(&inst.name);
        }
        for (id, inst) in &scu.instances {
            if inst.stack.is_some() {
                self.fill[id] = pkt.name(&format!("fill_{}", inst.name));
            }
        }
    }

    /// Members of `state_t`: CSRs, tables, maps, counters and meters.
    fn name_state_members(&mut self, scu: &Scu) {
        let mut st = Namer::new();
        STATE_MEMBERS.iter().for_each(|m| st.reserve(m));
        for (id, c) in &scu.csrs {
            self.csr[id] = st.name(&c.name);
        }
        for (id, t) in &scu.tables {
            self.table[id] = st.name(&t.name);
        }
        for (id, m) in &scu.maps {
            self.map[id] = st.name(&m.name);
        }
        for (id, c) in &scu.counters {
            self.counter[id] = st.name(&c.name);
        }
        for (id, m) in &scu.meters {
            self.meter[id] = st.name(&m.name);
        }
    }

    /// Names the array types of `aggregates` (in order, so element types come first).
    pub fn name_arrays(&mut self, module: &Module, aggregates: &[Type]) {
        for ty in aggregates {
            if let Type::Array(elem, len) = ty {
                let base = format!("arr_{}_{len}", self.short(module, elem));
                let name = self.kernel.name(&base);
                self.arrays.insert(ty.to_string(), name);
            }
        }
    }

    /// The C++ name of an array type (`arr_u16_4`); "arr" if it was never named.
    pub fn array(&self, ty: &Type) -> String {
        self.arrays
            .get(&ty.to_string())
            .cloned()
            .unwrap_or_else(|| "arr".into())
    }

    /// A short spelling of a type for derived names.
    fn short(&self, module: &Module, ty: &Type) -> String {
        match ty {
            Type::Bool => "b".into(),
            Type::Int(n) => format!("i{n}"),
            Type::Struct(s) => module
                .structs
                .get(*s)
                .map_or("s".into(), |l| l.name.clone()),
            Type::Header(h) => module
                .headers
                .get(*h)
                .map_or("h".into(), |l| l.name.clone()),
            Type::Array(..) => self.array(ty),
            other => format!("u{}", crate::conv::width(module, other).unwrap_or(1)),
        }
    }

    /// A name in the kernel namespace for a helper (given out once).
    pub fn helper(&mut self, base: &str) -> String {
        self.kernel.name(base)
    }

    /// The fill-count member of a stack (empty for plain instances).
    pub fn fill_of(&self, inst: InstId) -> &str {
        self.fill.get(inst).map_or("", String::as_str)
    }

    /// The index of an entity, for generated constants.
    pub fn index<E: EntityRef>(e: E) -> usize {
        e.index()
    }
}
