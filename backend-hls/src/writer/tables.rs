//! Tables: per table, a struct holding a fully partitioned register CAM (`tbl_*_t`), its
//! application (`apply_*`) and its result (`res_*_t`: the action's position and data). Exact
//! tables above [`super::tables_exact::CAM_MAX_SLOTS`] slots are hashed in BRAM instead
//! ([`super::tables_exact`]), behind the same struct interface.
//!
//! The CAM keeps its used slots at the front, in the interpreter's search order
//! (`scenic_interp::state::TableState`): priority tables rank constant entries by source
//! order, then run-time entries by priority number, then insertion; longest-prefix tables rank by
//! the prefix length of their one `lpm` key (their `exact` keys must match but do not rank, as
//! language.md §7.9.6 says), then insertion; exact tables keep
//! insertion order and refuse equal keys. A lookup compares every slot in parallel and the first
//! matching slot wins (a priority encoder). Insertion shifts the slots after its rank by one,
//! removal shifts them back, a modification rewrites one slot's action and data in place:
//! control-path work, one request at a time.
//!
//! Entries arrive as the records of `scenic_scu_abi::control::TableControl` (the constant entries too,
//! encoded at generation time), so the host's path and the compiled-in path are the same code.

use super::body::{BodyWriter, Ctx};
use super::{Code, ScuWriter};
use crate::conv;
use crate::Error;
use cranelift_entity::EntityRef;
use scenic_ir::entities::TableId;
use scenic_scu_abi::control::{KeyEncoding, TableControl, TableStrategy};

/// What one key element stores per slot.
struct KeyCols {
    width: u32,
    aux: u32,
    encoding: KeyEncoding,
    value_lo: u32,
    aux_lo: u32,
}

fn key_cols(tc: &TableControl) -> Vec<KeyCols> {
    tc.keys
        .iter()
        .map(|k| KeyCols {
            width: k.width,
            aux: match k.encoding {
                KeyEncoding::Exact => 1,
                _ => k.width,
            },
            encoding: k.encoding,
            value_lo: k.value.lo,
            aux_lo: k.aux.lo,
        })
        .collect()
}

/// First bit of the arguments in a record.
pub(super) fn args_lo(tc: &TableControl) -> u32 {
    tc.keys
        .iter()
        .map(|k| k.value.width + k.aux.width)
        .fold(tc.priority.lo + tc.priority.width, |a, b| a + b)
}

/// Bits of the arguments region (at least 1).
pub(super) fn args_bits(tc: &TableControl) -> u32 {
    tc.record_bits.saturating_sub(args_lo(tc)).max(1)
}

/// The arguments of a record `rec`: its bits from `args_lo`, or 0 when its actions take none
/// (the record ends with the keys; `rec.range(RECORD_BITS - 1, RECORD_BITS)` would be out of
/// range, and `args_bits` keeps a 1-bit placeholder).
fn args_of_record(tc: &TableControl) -> String {
    let alo = args_lo(tc);
    if tc.record_bits > alo {
        format!("rec.range(RECORD_BITS - 1, {alo})")
    } else {
        "ap_uint<ARG_BITS>(0)".into()
    }
}

fn rank_bits(tc: &TableControl) -> u32 {
    match tc.strategy {
        TableStrategy::Priority => 33,
        TableStrategy::LongestPrefix => 16,
        TableStrategy::Exact => 1,
    }
}

fn control_of<'a>(w: &'a ScuWriter<'_>, t: TableId) -> Result<&'a TableControl, Error> {
    w.control
        .tables
        .get(t.index())
        .ok_or_else(|| w.unsupported("a table without a control layout", w.scu.tables[t].span))
}

/// Writes every table's struct and result type.
pub fn write_types(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    if w.scu.tables.is_empty() {
        return Ok(());
    }
    c.line("// ---- tables ------------------------------------------------------------------");
    c.blank();
    for (t, table) in &w.scu.tables {
        let tc = control_of(w, t)?;
        if super::tables_exact::is_hashed(table, tc) {
            super::tables_exact::write_table(w, c, t, tc)?;
        } else {
            write_table(w, c, t, tc)?;
        }
        write_result(w, c, t);
    }
    Ok(())
}

fn write_result(w: &ScuWriter<'_>, c: &mut Code, t: TableId) {
    let table = &w.scu.tables[t];
    let name = &w.names.table_res[t];
    c.line(format!(
        "// What applying table {} chose: the action's position and data.",
        table.name
    ));
    c.open(format!("struct {name}"));
    c.line("ap_uint<8> action;");
    let mut init = vec!["action(0)".to_string()];
    for (p, a) in table.actions.iter().enumerate() {
        let body = &w.scu.actions[*a].body;
        for (j, param) in body.params.iter().enumerate() {
            let ty = &body.locals[*param].ty;
            c.line(format!(
                "{} a{p}_{j};  // {}.{}",
                w.ty(ty),
                w.scu.actions[*a].name,
                body.locals[*param].name
            ));
            init.push(format!("a{p}_{j}({})", w.zero(ty)));
        }
    }
    c.line(format!("{name}() : {} {{}}", init.join(", ")));
    c.close(";");
    c.blank();
}

fn write_table(
    w: &ScuWriter<'_>,
    c: &mut Code,
    t: TableId,
    tc: &TableControl,
) -> Result<(), Error> {
    let table = &w.scu.tables[t];
    let name = &w.names.table_ty[t];
    let cols = key_cols(tc);
    let slot_bits: u32 = cols.iter().map(|k| k.width + k.aux).sum::<u32>() + 1;
    let payload_bits = args_bits(tc) + rank_bits(tc) + 8 + 32 + 1;
    let order = match tc.strategy {
        TableStrategy::Priority => "priority: constant entries first in source order, then run-time entries by priority number (lowest first), ties in insertion order",
        TableStrategy::LongestPrefix => "longest prefix: the longest prefix of the lpm key first (exact keys do not rank), ties in insertion order",
        TableStrategy::Exact => "exact: at most one entry matches; equal keys are refused",
    };
    if let Some(loc) = w.loc(table.span) {
        c.line(format!(
            "// table {} ({loc}), {} slots",
            table.name, table.size
        ));
    } else {
        c.line(format!("// table {}, {} slots", table.name, table.size));
    }
    c.line(format!("// Order: {order}."));
    c.line(format!(
        "// A register CAM of {} slots x {slot_bits} compared bits (payload: {payload_bits} bits per slot in",
        table.size
    ));
    c.line("// block RAM); used slots first, in that order.");
    c.open(format!("struct {name}"));
    c.line(format!("static const int SLOTS = {};", table.size));
    c.line(format!(
        "static const int RECORD_BITS = {};",
        tc.record_bits
    ));
    c.line(format!("static const int ARG_BITS = {};", args_bits(tc)));
    c.line("bool used[SLOTS];");
    c.line("bool konst[SLOTS];  // a constant entry: never removed");
    c.line(format!(
        "ap_uint<{}> rank[SLOTS];  // sort key, ascending",
        rank_bits(tc)
    ));
    c.line("ap_uint<32> handle[SLOTS];  // run-time entries: the host's handle");
    for (i, k) in cols.iter().enumerate() {
        let what = match k.encoding {
            KeyEncoding::Exact => "value; any",
            KeyEncoding::Lpm => "value & mask; prefix mask",
            KeyEncoding::Ternary => "value & mask; mask",
            KeyEncoding::Range => "low; high",
        };
        c.line(format!(
            "ap_uint<{}> v{i}[SLOTS];  // key {} ({what})",
            k.width, tc.keys[i].name
        ));
        c.line(format!("ap_uint<{}> a{i}[SLOTS];", k.aux));
    }
    c.line("ap_uint<8> act[SLOTS];");
    c.line("ap_uint<ARG_BITS> args[SLOTS];");
    c.line("ap_uint<32> count;");
    c.line("ap_uint<32> next_handle;");
    c.line("ap_uint<8> def_act;");
    c.line("ap_uint<ARG_BITS> def_args;");
    c.blank();
    write_init(w, c, t, tc)?;
    write_lookup(c, tc, &cols);
    write_insert(c, tc, &cols);
    write_modify(c, tc);
    write_remove(c, &cols);
    c.close(";");
    c.blank();
    Ok(())
}

fn write_init(w: &ScuWriter<'_>, c: &mut Code, t: TableId, tc: &TableControl) -> Result<(), Error> {
    let table = &w.scu.tables[t];
    c.line("// Constant entries (in source order) and the default action.");
    c.open("void init()");
    c.line("count = 0;");
    c.line("next_handle = 1;");
    c.open("for (int s = 0; s < SLOTS; ++s)");
    c.line("used[s] = false;");
    c.close("");
    write_default_and_constants(w, c, table, tc)?;
    c.close("");
    c.blank();
    Ok(())
}

/// The body of `init()` both table kinds share: the default action, then the constant entries in
/// source order, inserted as the host would insert them (records of [`TableControl`]).
pub(super) fn write_default_and_constants(
    w: &ScuWriter<'_>,
    c: &mut Code,
    table: &scenic_ir::program::Table,
    tc: &TableControl,
) -> Result<(), Error> {
    let rb = tc.record_bits;
    let default_pos = table
        .actions
        .iter()
        .position(|a| *a == table.default.0)
        .unwrap_or(0) as u32;
    let default_args: Vec<_> = table.default.1.iter().map(|c| c.0.clone()).collect();
    let rec = tc.encode_default(default_pos, &default_args).map_err(|e| {
        w.unsupported(
            format!("the default action of table `{}`: {e}", table.name),
            table.span,
        )
    })?;
    c.line(format!("set_default({});", conv::uint_literal(rb, &rec)));
    if !table.const_entries.is_empty() {
        c.line("ap_uint<32> h = 0;");
    }
    for e in &table.const_entries {
        let args: Vec<_> = e.args.iter().map(|c| c.0.clone()).collect();
        let rec = tc
            .encode_entry(&e.keys, e.action, &args, u64::from(e.priority))
            .map_err(|err| {
                w.unsupported(
                    format!("a constant entry of table `{}`: {err}", table.name),
                    table.span,
                )
            })?;
        c.line(format!(
            "insert({}, true, h);",
            conv::uint_literal(rb, &rec)
        ));
    }
    Ok(())
}

fn write_lookup(c: &mut Code, tc: &TableControl, cols: &[KeyCols]) {
    let params: Vec<String> = cols
        .iter()
        .enumerate()
        .map(|(i, k)| format!("const ap_uint<{}>& k{i}", k.width))
        .collect();
    c.line("// The first matching slot's action and data, or the default's; whether one matched.");
    c.open(format!(
        "bool lookup({}, ap_uint<8>& a, ap_uint<ARG_BITS>& d)",
        params.join(", ")
    ));
    c.line("// The compared fields are registers; the payload is block RAM, read at the winner.");
    c.line("#pragma HLS ARRAY_PARTITION variable=used complete");
    for (i, _) in cols.iter().enumerate() {
        c.line(format!(
            "#pragma HLS ARRAY_PARTITION variable=v{i} complete"
        ));
        c.line(format!(
            "#pragma HLS ARRAY_PARTITION variable=a{i} complete"
        ));
    }
    for arr in ["act", "args", "rank", "handle", "konst"] {
        c.line(format!(
            "#pragma HLS BIND_STORAGE variable={arr} type=RAM_2P impl=BRAM"
        ));
    }
    c.line("bool hit = false;");
    c.line("int at = 0;");
    c.open("for (int s = SLOTS - 1; s >= 0; --s)");
    c.line("#pragma HLS UNROLL");
    let conds: Vec<String> = cols
        .iter()
        .enumerate()
        .map(|(i, k)| match (k.encoding, tc.strategy) {
            (KeyEncoding::Exact, TableStrategy::Exact) => {
                format!("a{i}[s] == 0 && v{i}[s] == k{i}")
            }
            (KeyEncoding::Exact, _) => format!("(a{i}[s] == 1 || v{i}[s] == k{i})"),
            (KeyEncoding::Lpm | KeyEncoding::Ternary, _) => format!("(k{i} & a{i}[s]) == v{i}[s]"),
            (KeyEncoding::Range, _) => format!("v{i}[s] <= k{i} && k{i} <= a{i}[s]"),
        })
        .collect();
    let mut all = vec!["used[s]".to_string()];
    all.extend(conds);
    c.open(format!("if ({})", all.join(" && ")));
    c.line("hit = true;");
    c.line("at = s;");
    c.close("");
    c.close("");
    c.line("a = hit ? act[at] : def_act;");
    c.line("d = hit ? args[at] : def_args;");
    c.line("return hit;");
    c.close("");
    c.blank();
}

fn write_insert(c: &mut Code, tc: &TableControl, cols: &[KeyCols]) {
    c.line("// Adds an entry record (scenic_ir::control): a status code and the entry's handle.");
    c.open("ap_uint<8> insert(const ap_uint<RECORD_BITS>& rec, bool is_const, ap_uint<32>& h)");
    c.open(format!("if (!is_const && count >= {})", tc.size));
    c.line("return ST_FULL;");
    c.close("");
    let prefix = write_unpack_keys(c, cols);
    c.line(rank_of_new_entry(tc, cols, &prefix));
    write_insert_position(c, tc, cols);
    c.open("for (int s = SLOTS - 1; s > 0; --s)");
    c.open("if (s > p)");
    c.line("move(s, s - 1);");
    c.close("");
    c.close("");
    c.line("used[p] = true;");
    c.line("konst[p] = is_const;");
    c.line("rank[p] = nr;");
    c.line("handle[p] = is_const ? ap_uint<32>(0) : next_handle;");
    for i in 0..cols.len() {
        c.line(format!("v{i}[p] = nv{i};"));
        c.line(format!("a{i}[p] = na{i};"));
    }
    c.line("act[p] = rec.range(7, 0);");
    c.line(format!("args[p] = {};", args_of_record(tc)));
    c.line("h = handle[p];");
    c.open("if (!is_const)");
    c.line("next_handle++;");
    c.close("");
    c.line("count++;");
    c.line("return ST_OK;");
    c.close("");
    c.blank();
    write_set_default(c, tc);
    c.blank();
}

/// Unpacks each key of an entry record into `nv<i>` (value) and `na<i>` (mask, prefix length or
/// range end, by encoding); returns, for LPM ranking, the prefix length of each `lpm` key as a C++
/// expression (a longest-prefix table has exactly one; its exact keys do not rank).
fn write_unpack_keys(c: &mut Code, cols: &[KeyCols]) -> Vec<String> {
    let mut prefix = Vec::new();
    for (i, k) in cols.iter().enumerate() {
        let w = k.width;
        c.line(format!(
            "ap_uint<{w}> nv{i} = rec.range({}, {});",
            k.value_lo + w - 1,
            k.value_lo
        ));
        match k.encoding {
            KeyEncoding::Exact => {
                c.line(format!("ap_uint<1> na{i} = rec.range({0}, {0});", k.aux_lo));
            }
            KeyEncoding::Lpm => {
                c.line(format!(
                    "ap_uint<16> len{i} = rec.range({}, {});",
                    k.aux_lo + 15,
                    k.aux_lo
                ));
                c.open(format!("if (len{i} > {w})"));
                c.line(format!("len{i} = {w};"));
                c.close("");
                c.line(format!(
                    "ap_uint<{w}> na{i} = len{i} == 0 ? ap_uint<{w}>(0) : ap_uint<{w}>(~ap_uint<{w}>(0) << ({w} - int(len{i})));"
                ));
                c.line(format!("nv{i} &= na{i};"));
                prefix.push(format!("int(len{i})"));
            }
            KeyEncoding::Ternary => {
                c.line(format!(
                    "ap_uint<{w}> na{i} = rec.range({}, {});",
                    k.aux_lo + w - 1,
                    k.aux_lo
                ));
                c.line(format!("nv{i} &= na{i};"));
            }
            KeyEncoding::Range => c.line(format!(
                "ap_uint<{w}> na{i} = rec.range({}, {});",
                k.aux_lo + w - 1,
                k.aux_lo
            )),
        }
    }
    prefix
}

/// The declaration of `nr`, the new entry's rank: its priority (host entries after constant ones),
/// the prefix length of its `lpm` key (longer first; language.md §7.9.6: only that prefix ranks,
/// not the table's exact keys), or 0 for an exact table.
fn rank_of_new_entry(tc: &TableControl, cols: &[KeyCols], prefix: &[String]) -> String {
    match tc.strategy {
        TableStrategy::Priority => {
            "ap_uint<33> nr = ap_uint<33>(rec.range(39, 8)) + (is_const ? ap_uint<33>(0) : (ap_uint<33>(1) << 32));".to_string()
        }
        TableStrategy::LongestPrefix => {
            let total: u32 = cols
                .iter()
                .filter(|k| k.encoding == KeyEncoding::Lpm)
                .map(|k| k.width)
                .sum();
            let len = if prefix.is_empty() {
                "0".to_string()
            } else {
                prefix.join(" + ")
            };
            format!("ap_uint<16> nr = ap_uint<16>({total} - ({len}));")
        }
        TableStrategy::Exact => "ap_uint<1> nr = 0;".to_string(),
    }
}

/// Sets `p`, the slot of the new entry: the end of an exact table, else after every entry that
/// ranks before it or equal; first refuses a repeated entry as the interpreter does (language.md
/// §7.9.8): equal keys in an exact or lpm table (constant entries included), equal keys and
/// priority of two run-time entries in a priority table. Keys compare as stored: an lpm value
/// masked by its prefix, a ternary value by its mask.
fn write_insert_position(c: &mut Code, tc: &TableControl, cols: &[KeyCols]) {
    let mut same = vec!["used[s]".to_string()];
    if tc.strategy == TableStrategy::Priority {
        same.push("!is_const && !konst[s] && rank[s] == nr".to_string());
    }
    same.extend((0..cols.len()).map(|i| format!("v{i}[s] == nv{i} && a{i}[s] == na{i}")));
    c.open("for (int s = 0; s < SLOTS; ++s)");
    c.open(format!("if ({})", same.join(" && ")));
    c.line("return ST_DUPLICATE;");
    c.close("");
    c.close("");
    if tc.strategy == TableStrategy::Exact {
        c.line("int p = int(count);");
    } else {
        c.line("// After every slot that ranks before it or equal (ties: insertion order).");
        c.line("int p = 0;");
        c.open("for (int s = 0; s < SLOTS; ++s)");
        c.open("if (used[s] && rank[s] <= nr)");
        c.line("p++;");
        c.close("");
        c.close("");
    }
}

/// `set_default`: the default action and its arguments from a record.
fn write_set_default(c: &mut Code, tc: &TableControl) {
    c.open("void set_default(const ap_uint<RECORD_BITS>& rec)");
    c.line("def_act = rec.range(7, 0);");
    c.line(format!("def_args = {};", args_of_record(tc)));
    c.close("");
}

/// `modify`: the run-time entry with handle `h` takes a record's action and arguments, in place
/// (its keys, rank and handle stay, so its slot does not move).
fn write_modify(c: &mut Code, tc: &TableControl) {
    c.line("// Replaces the action and data of the run-time entry with handle `h` by a record's");
    c.line("// (keys, rank and handle stay); whether there was one.");
    c.open("bool modify(const ap_uint<32>& h, const ap_uint<RECORD_BITS>& rec)");
    c.line("bool found = false;");
    c.line("int at = 0;");
    c.open("for (int s = 0; s < SLOTS; ++s)");
    c.open("if (!found && used[s] && !konst[s] && handle[s] == h)");
    c.line("found = true;");
    c.line("at = s;");
    c.close("");
    c.close("");
    c.open("if (!found)");
    c.line("return false;");
    c.close("");
    c.line("act[at] = rec.range(7, 0);");
    c.line(format!("args[at] = {};", args_of_record(tc)));
    c.line("return true;");
    c.close("");
    c.blank();
}

fn write_remove(c: &mut Code, cols: &[KeyCols]) {
    c.line("// Removes the run-time entry with handle `h`; whether there was one.");
    c.open("bool remove(const ap_uint<32>& h)");
    c.line("bool found = false;");
    c.line("int at = 0;");
    c.open("for (int s = 0; s < SLOTS; ++s)");
    c.open("if (!found && used[s] && !konst[s] && handle[s] == h)");
    c.line("found = true;");
    c.line("at = s;");
    c.close("");
    c.close("");
    c.open("if (!found)");
    c.line("return false;");
    c.close("");
    c.open("for (int s = 0; s < SLOTS - 1; ++s)");
    c.open("if (s >= at)");
    c.line("move(s, s + 1);");
    c.close("");
    c.close("");
    c.line("used[SLOTS - 1] = false;");
    c.line("count--;");
    c.line("return true;");
    c.close("");
    c.blank();
    c.line("// Removes every run-time entry, keeping the constant ones in order.");
    c.open("void clear()");
    c.line("int kept = 0;");
    c.open("for (int s = 0; s < SLOTS; ++s)");
    c.open("if (used[s] && konst[s])");
    c.line("move(kept, s);");
    c.line("kept++;");
    c.close("");
    c.close("");
    c.open("for (int s = 0; s < SLOTS; ++s)");
    c.open("if (s >= kept)");
    c.line("used[s] = false;");
    c.close("");
    c.close("");
    c.line("count = kept;");
    c.close("");
    c.blank();
    c.open("void move(int to, int from)");
    c.line("used[to] = used[from];");
    c.line("konst[to] = konst[from];");
    c.line("rank[to] = rank[from];");
    c.line("handle[to] = handle[from];");
    for i in 0..cols.len() {
        c.line(format!("v{i}[to] = v{i}[from];"));
        c.line(format!("a{i}[to] = a{i}[from];"));
    }
    c.line("act[to] = act[from];");
    c.line("args[to] = args[from];");
    c.close("");
}

/// Writes every table's `apply_*` function.
pub fn write_applies(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    for (t, table) in &w.scu.tables {
        let tc = control_of(w, t)?;
        let res = &w.names.table_res[t];
        c.line(format!(
            "// apply {}: keys, lookup, the chosen action with its data",
            table.name
        ));
        c.open(format!(
            "static {res} {}(state_t& st, pkt_t& pk)",
            w.names.apply[t]
        ));
        c.line(format!("{res} r;"));
        c.line("(void)pk;");
        let mut bw = BodyWriter::new(w, &table.key_body, c.level(), Ctx::Packet);
        bw.halt_return = "return r;".into();
        let key_exprs: Vec<_> = table.keys.iter().map(|k| k.expr).collect();
        bw.declare_locals(&[], &key_exprs);
        let mut keys = Vec::new();
        for (i, k) in table.keys.iter().enumerate() {
            let v = bw.expr(k.expr)?;
            let width = tc.keys.get(i).map_or(1, |kc| kc.width);
            bw.c.line(format!(
                "ap_uint<{width}> k{i} = scn::bits({v});  // {}",
                k.name
            ));
            keys.push(format!("k{i}"));
        }
        let alo = args_lo(tc);
        bw.c.line("ap_uint<8> a = 0;");
        bw.c.line(format!("ap_uint<{}> d = 0;", args_bits(tc)));
        keys.extend(["a".to_string(), "d".to_string()]);
        bw.c.line(format!(
            "st.{}.lookup({});",
            w.names.table[t],
            keys.join(", ")
        ));
        bw.c.line("r.action = a;");
        for (p, a) in table.actions.iter().enumerate() {
            let action = &w.scu.actions[*a];
            let ac = tc.actions.get(p);
            let params = &action.body.params;
            if params.is_empty() && action.body.block.stmts.is_empty() {
                continue;
            }
            bw.c.open(format!("if (a == {p})"));
            let mut args = vec!["st".to_string(), "pk".to_string()];
            for (j, param) in params.iter().enumerate() {
                let ty = &action.body.locals[*param].ty;
                let (lo, width) = ac
                    .and_then(|ac| ac.params.get(j))
                    .map_or((alo, 1), |f| (f.lo, f.width));
                let raw = format!(
                    "ap_uint<{width}>(d.range({}, {}))",
                    lo - alo + width - 1,
                    lo - alo
                );
                bw.c.line(format!("r.a{p}_{j} = {};", w.unpack(ty, &raw)));
                args.push(format!("r.a{p}_{j}"));
            }
            if !action.body.block.stmts.is_empty() {
                bw.c.line(format!("{}({});", w.names.action[*a], args.join(", ")));
            }
            bw.c.close("");
        }
        bw.c.line("return r;");
        c.append(bw.c);
        c.close("");
        c.blank();
    }
    Ok(())
}
