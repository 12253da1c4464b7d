//! `pkt_t`, one packet's context (headers, `meta`, the header window, the parser position, the
//! copies and notifications requested, the deparser's output), and `state_t`, everything that
//! outlives a packet (CSRs, tables, maps, counters, meters, `every` due times).
//!
//! `state_t` lives in static storage inside `process`: all-zero storage is its power-on state (as
//! the support library's objects expect), and `init_state` gives CSRs their initial values and
//! tables their constant entries and defaults on the first invocation. `pkt_t` is built fresh for
//! every packet by its constructor, which zeroes every member.

use super::{Code, ScuWriter};
use crate::conv;
use crate::Error;
use scenic_ir::program::{CounterKind, MapKind};
use scenic_ir::types::Type;

/// Destination code of a copy to the host.
pub const DEST_HOST: u32 = 0x100;
/// Destination code base of copies to scu k.
pub const DEST_SCU: u32 = 0x200;

/// Writes `pkt_t` and its helpers.
pub fn write_pkt(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- the packet being processed -----------------------------------------------");
    c.blank();
    write_pkt_limits(w, c);
    c.blank();
    write_pkt_struct(w, c);
    c.blank();
    write_pkt_helpers(c);
    Ok(())
}

/// The bounds of `pkt_t`'s arrays and bit strings, with the meaning of copy destinations.
fn write_pkt_limits(w: &ScuWriter<'_>, c: &mut Code) {
    c.line(format!(
        "// Destinations of copies: network port p is p, the host is {DEST_HOST:#x}, scu k is {DEST_SCU:#x} + k."
    ));
    c.line(format!(
        "static const int MAX_COPIES = {};",
        w.facts.max_copies
    ));
    c.line(format!(
        "static const int MAX_NOTES = {};",
        w.facts.max_notes.max(w.facts.max_every_notes).max(1)
    ));
    c.line(format!(
        "static const int WIN_BITS = {};  // header window: {} beat(s)",
        w.window_bits(),
        w.facts.window_beats
    ));
    c.line(format!(
        "static const int OUT_BITS = {};  // deparsed headers: at most {} bytes",
        w.out_bits(),
        w.facts.out_bytes
    ));
}

/// `struct pkt_t`: the packet's header instances and metadata, then the fields every scu has, and
/// a constructor that zeroes them.
fn write_pkt_struct(w: &ScuWriter<'_>, c: &mut Code) {
    let n = &w.names;
    c.open("struct pkt_t");
    let mut init: Vec<String> = Vec::new();
    for (id, inst) in &w.scu.instances {
        let ty = &n.hdr[inst.header];
        match inst.stack {
            Some(k) => {
                c.line(format!("{ty} {}[{k}];  // stack", n.inst[id]));
                c.line(format!("ap_uint<8> {};  // elements extracted", n.fill[id]));
                init.push(format!("{}(0)", n.fill[id]));
            }
            None => c.line(format!("{ty} {};", n.inst[id])),
        }
    }
    if let Some(m) = w.scu.meta {
        c.line(format!("{} meta;", n.st[m]));
    }
    if w.scu.attach != scenic_ir::program::Attach::SlowPath {
        c.line("word_t wd;  // the payload word (writer/stream.rs)");
    }
    for (name, ty, doc) in PKT_FIELDS {
        match name {
            // The arrays are zeroed in the constructor's body.
            "dest" => c.line(format!("{ty} dest[MAX_COPIES];  // {doc}")),
            "notes" => c.line(format!("{ty} notes[MAX_NOTES];  // {doc}")),
            _ => {
                c.line(format!("{ty} {name};  // {doc}"));
                init.push(format!(
                    "{name}({})",
                    if ty == "bool" { "false" } else { "0" }
                ));
            }
        }
    }
    c.open(format!("pkt_t() : {}", init.join(", ")));
    c.open("for (int i = 0; i < MAX_COPIES; ++i)");
    c.line("dest[i] = 0;");
    c.close("");
    c.open("for (int i = 0; i < MAX_NOTES; ++i)");
    c.line("notes[i] = 0;");
    c.close("");
    c.close("");
    c.close(";");
}

/// The fields of `pkt_t` that every scu has: name, C++ type, and what it holds.
const PKT_FIELDS: [(&str, &str, &str); 15] = [
    (
        "win",
        "ap_uint<WIN_BITS>",
        "header window, wire order: byte 0 in the top bits",
    ),
    ("len", "ap_uint<32>", "length in bytes"),
    ("port", "ap_uint<8>", "ingress port"),
    ("ts", "ap_uint<64>", "arrival time, ns"),
    ("cur", "ap_uint<16>", "parser position, bits"),
    (
        "halt",
        "bool",
        "drop() ran or the parser failed: stop at once",
    ),
    ("dropped", "bool", "drop() ran"),
    ("rejected", "bool", "the parser failed"),
    ("err", "ap_uint<8>", "the parser error"),
    ("ncopies", "ap_uint<8>", "copies requested"),
    ("nnotes", "ap_uint<16>", "notifications raised"),
    ("out", "ap_uint<OUT_BITS>", "deparsed headers, wire order"),
    ("olen", "ap_uint<16>", "deparsed bytes"),
    ("dest", "ap_uint<16>", "destination of each copy"),
    (
        "notes",
        "ap_uint<64>",
        "notify records: value, to_arm << 32",
    ),
];

fn write_pkt_helpers(c: &mut Code) {
    c.line("// A copy of the packet to `dest` (to_host, to_network, to_scu).");
    c.open("static inline void pk_copy(pkt_t& pk, const ap_uint<16>& dest)");
    c.open("if (pk.ncopies < MAX_COPIES)");
    c.line("pk.dest[pk.ncopies] = dest;");
    c.line("pk.ncopies++;");
    c.close("");
    c.close("");
    c.line("// drop(): cancels every copy so far and stops the packet.");
    c.open("static inline void pk_drop(pkt_t& pk)");
    c.line("pk.dropped = true;");
    c.line("pk.halt = true;");
    c.line("pk.ncopies = 0;");
    c.close("");
    c.line("// A parser error: the parser stops at once.");
    c.open("static inline void pk_reject(pkt_t& pk, const ap_uint<8>& err)");
    c.line("pk.rejected = true;");
    c.line("pk.halt = true;");
    c.line("pk.err = err;");
    c.close("");
    c.line("// notify(host | arm, value): queued in order, written to notify_out by process.");
    c.open("static inline void pk_notify(pkt_t& pk, bool to_arm, const ap_uint<32>& value)");
    c.open("if (pk.nnotes < MAX_NOTES)");
    c.line("pk.notes[pk.nnotes] = (ap_uint<64>(to_arm ? 1 : 0) << 32) | ap_uint<64>(value);");
    c.line("pk.nnotes++;");
    c.close("");
    c.close("");
    c.blank();
}

/// The C++ type of a map.
fn map_type(w: &ScuWriter<'_>, m: &scenic_ir::program::Map) -> String {
    let kw = conv::width(w.module, &m.key).unwrap_or(1);
    let v = w.ty(&m.value);
    let class = match m.kind {
        MapKind::Array => "array_map",
        MapKind::Hash => "hash_map",
        MapKind::LruHash => "lru_map",
    };
    format!("scenic::{class}<{kw}, {v}, {}>", m.size)
}

/// Writes `state_t` and `init_state`.
pub fn write_state(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- state that outlives a packet ---------------------------------------------");
    c.blank();
    write_state_struct(w, c);
    c.blank();
    write_init_state(w, c);
    c.blank();
    Ok(())
}

/// `struct state_t`: the scu's CSRs, tables, maps, counters and meters, and the timing of its
/// `every` blocks.
fn write_state_struct(w: &ScuWriter<'_>, c: &mut Code) {
    let n = &w.names;
    c.open("struct state_t");
    for (id, csr) in &w.scu.csrs {
        let info = &w.info.scus[w.scu_id].csrs[id];
        let kind = if csr.is_param {
            "param"
        } else if csr.host_readonly {
            "csr, host readonly"
        } else {
            "csr"
        };
        c.line(format!(
            "{} {};  // {kind}, word {} (byte {:#x})",
            w.ty(&csr.ty),
            n.csr[id],
            info.offset,
            info.byte_offset
        ));
    }
    for (id, t) in &w.scu.tables {
        c.line(format!(
            "{} {};  // table {}",
            n.table_ty[id], n.table[id], t.name
        ));
    }
    for (id, m) in &w.scu.maps {
        c.line(format!(
            "{} {};  // map {}",
            map_type(w, m),
            n.map[id],
            m.name
        ));
    }
    for (id, k) in &w.scu.counters {
        let kind = match k.kind {
            CounterKind::Packets => "scenic::COUNT_PACKETS",
            CounterKind::Bytes => "scenic::COUNT_BYTES",
            CounterKind::PacketsAndBytes => "scenic::COUNT_PACKETS_AND_BYTES",
        };
        c.line(format!(
            "scenic::counter<{}, {kind}> {};  // counter {}",
            k.size, n.counter[id], k.name
        ));
    }
    for (id, m) in &w.scu.meters {
        c.line(format!(
            "scenic::meter<{}, {}ULL, {}ULL, {}> {};  // meter {}",
            m.size,
            m.rate.unwrap_or(0),
            m.burst.unwrap_or(0),
            m.rate.is_some(),
            n.meter[id],
            m.name
        ));
    }
    let ne = w.scu.every.len().max(1);
    c.line(format!(
        "ap_uint<64> every_next[{ne}];  // next due time of each `every` block, ns"
    ));
    c.line("ap_uint<64> start_ns;  // the time of the first invocation");
    c.line("bool started;  // init_state has run");
    c.close(";");
}

/// `init_state`, run once on the first invocation.
fn write_init_state(w: &ScuWriter<'_>, c: &mut Code) {
    let n = &w.names;
    c.line("// Power-on state is all zeros; this gives CSRs their initial values and tables their");
    c.line("// constant entries and default actions, once, on the first invocation.");
    c.open("static void init_state(state_t& st, const ap_uint<64>& now)");
    for (id, csr) in &w.scu.csrs {
        c.line(format!(
            "st.{} = {};",
            n.csr[id],
            conv::literal(w.module, &csr.ty, &csr.init)
        ));
    }
    for (id, _) in &w.scu.tables {
        c.line(format!("st.{}.init();", n.table[id]));
    }
    c.line("st.start_ns = now;");
    for (k, e) in w.scu.every.iter().enumerate() {
        c.line(format!(
            "st.every_next[{k}] = now + ap_uint<64>({}ULL);",
            e.period_ns.max(1)
        ));
    }
    c.line("st.started = true;");
    c.close("");
}

/// Whether a type is one the map classes can hold as a value (every type but headers).
pub fn map_value_ok(ty: &Type) -> bool {
    !matches!(ty, Type::Header(_) | Type::Tuple(_) | Type::Unit)
}
