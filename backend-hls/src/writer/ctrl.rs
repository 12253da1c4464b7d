//! The host control decoder: `serve_ctrl` turns one `ctrl_in` request into one `ctrl_out`
//! response, following `scenic_scu_abi::control` (op codes, targets, record layouts, status codes).
//!
//! It fails exactly where the interpreter's host API fails: an unknown action (`BAD_ACTION`)
//! before a constant table (`CONSTANT`: no entry may be added and the default action may not be
//! replaced, language.md §7.9.3–7.9.5), a full table (`FULL`) before equal keys in an exact table
//! (`DUPLICATE`); removing an entry that does not exist is `NOT_FOUND`. Modifying an entry checks
//! in the same order: `BAD_ACTION`, `CONSTANT` (constant entries cannot be modified, §7.9.5), then
//! `NOT_FOUND` for a handle no run-time entry has. Writes to `readonly` CSRs are refused
//! (`READ_ONLY`), as the runtime's setter refuses them.

use super::{Code, ScuWriter};
use crate::Error;
use cranelift_entity::EntityRef;
use scenic_ir::program::MapKind;
use scenic_scu_abi::control::Op;

fn case(c: &mut Code, op: Op) {
    c.open(format!("case {}:", op.const_name()));
    c.open("switch (int(target))");
}

fn end_case(c: &mut Code) {
    c.line("default: status = ST_BAD_TARGET; break;");
    c.close("");
    c.line("break;");
    c.close("");
}

/// Writes `serve_ctrl`.
pub fn write(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    let d = w.data_bits;
    c.line("// ---- host control requests (scenic_ir::control) ---------------------------------");
    c.blank();
    c.open("static ctrl_resp_t serve_ctrl(state_t& st, const ctrl_req_t& req)");
    c.line(format!(
        "ap_uint<8> op = req.range({}, {});",
        d + 55,
        d + 48
    ));
    c.line(format!(
        "ap_uint<16> target = req.range({}, {});",
        d + 47,
        d + 32
    ));
    c.line(format!("ap_uint<32> index = req.range({}, {});", d + 31, d));
    c.line(format!("ap_uint<{d}> data = req.range({}, 0);", d - 1));
    c.line("ap_uint<8> status = ST_OK;");
    c.line(format!("ap_uint<{d}> out = 0;"));
    c.line("(void)index;");
    c.line("(void)data;");
    c.open("switch (int(op))");
    csr_ops(w, c);
    table_ops(w, c);
    counter_ops(w, c);
    map_ops(w, c);
    meter_ops(w, c);
    c.line("default: status = ST_BAD_OP; break;");
    c.close("");
    c.line("ctrl_resp_t resp = 0;");
    c.line(format!("resp.range({}, 0) = out;", d - 1));
    c.line(format!("resp.range({}, {d}) = status;", d + 7));
    c.line("return resp;");
    c.close("");
    c.blank();
    Ok(())
}

fn csr_ops(w: &ScuWriter<'_>, c: &mut Code) {
    case(c, Op::CsrRead);
    for (id, _) in &w.scu.csrs {
        let off = w.info.scus[w.scu_id].csrs[id].offset;
        c.line(format!(
            "case {off}: out = scn::bits(st.{}); break;",
            w.names.csr[id]
        ));
    }
    end_case(c);
    case(c, Op::CsrWrite);
    for (id, csr) in &w.scu.csrs {
        let off = w.info.scus[w.scu_id].csrs[id].offset;
        let width = crate::conv::width(w.module, &csr.ty).unwrap_or(1);
        if csr.host_readonly {
            c.line(format!("case {off}: status = ST_READ_ONLY; break;"));
        } else {
            let raw = format!("ap_uint<{width}>(data.range({}, 0))", width - 1);
            c.line(format!(
                "case {off}: st.{} = {}; break;",
                w.names.csr[id],
                w.unpack(&csr.ty, &raw)
            ));
        }
    }
    end_case(c);
}

fn table_ops(w: &ScuWriter<'_>, c: &mut Code) {
    let n = &w.names;
    let nactions = |t: scenic_ir::TableId| w.scu.tables[t].actions.len();
    case(c, Op::TableAdd);
    for (t, table) in &w.scu.tables {
        c.line(format!("case {}: {{", t.index()));
        c.line("    ap_uint<32> h = 0;");
        c.line(format!(
            "    if (data.range(7, 0) >= {}) status = ST_BAD_ACTION;",
            nactions(t)
        ));
        if table.is_const {
            c.line("    else status = ST_CONSTANT;");
        } else {
            c.line(format!(
                "    else status = st.{}.insert(data.range({}::RECORD_BITS - 1, 0), false, h);",
                n.table[t], n.table_ty[t]
            ));
        }
        c.line("    out = h;");
        c.line("    break;");
        c.line("}");
    }
    end_case(c);
    case(c, Op::TableRemove);
    for (t, _) in &w.scu.tables {
        c.line(format!(
            "case {}: status = st.{}.remove(index) ? ST_OK : ST_NOT_FOUND; break;",
            t.index(),
            n.table[t]
        ));
    }
    end_case(c);
    case(c, Op::TableClear);
    for (t, _) in &w.scu.tables {
        c.line(format!(
            "case {}: st.{}.clear(); break;",
            t.index(),
            n.table[t]
        ));
    }
    end_case(c);
    // language.md §7.9.3: the host may replace the default action, except in a constant table
    // (`Machine::set_default` refuses it too, after an unknown action).
    case(c, Op::TableSetDefault);
    for (t, table) in &w.scu.tables {
        let set = if table.is_const {
            "status = ST_CONSTANT;".to_string()
        } else {
            format!(
                "st.{}.set_default(data.range({}::RECORD_BITS - 1, 0));",
                n.table[t], n.table_ty[t]
            )
        };
        c.line(format!(
            "case {}: if (data.range(7, 0) >= {}) status = ST_BAD_ACTION; else {set} break;",
            t.index(),
            nactions(t),
        ));
    }
    end_case(c);
    // The entry `index` takes the record's action and arguments in place, between two packets
    // (keys, rank and handle stay): the order of `TableAdd`, then the handle.
    case(c, Op::TableModify);
    for (t, table) in &w.scu.tables {
        let modify = if table.is_const {
            "status = ST_CONSTANT;".to_string()
        } else {
            format!(
                "status = st.{}.modify(index, data.range({}::RECORD_BITS - 1, 0)) ? ST_OK : ST_NOT_FOUND;",
                n.table[t], n.table_ty[t]
            )
        };
        c.line(format!(
            "case {}: if (data.range(7, 0) >= {}) status = ST_BAD_ACTION; else {modify} break;",
            t.index(),
            nactions(t),
        ));
    }
    end_case(c);
}

fn counter_ops(w: &ScuWriter<'_>, c: &mut Code) {
    case(c, Op::CounterRead);
    for (id, _) in &w.scu.counters {
        let name = &w.names.counter[id];
        c.line(format!("case {}: {{", id.index()));
        c.line("    ap_uint<64> packets = 0;");
        c.line("    ap_uint<64> bytes = 0;");
        c.line(format!(
            "    if (!st.{name}.read(index, packets, bytes)) status = ST_BAD_INDEX;"
        ));
        c.line("    out.range(63, 0) = packets;");
        c.line("    out.range(127, 64) = bytes;");
        c.line("    break;");
        c.line("}");
    }
    end_case(c);
    case(c, Op::CounterClear);
    for (id, counter) in &w.scu.counters {
        c.line(format!(
            "case {}: if (index >= {}) status = ST_BAD_INDEX; else st.{}.clear(index); break;",
            id.index(),
            counter.size,
            w.names.counter[id]
        ));
    }
    end_case(c);
}

fn map_ops(w: &ScuWriter<'_>, c: &mut Code) {
    let maps: Vec<_> = w.scu.maps.iter().collect();
    let layout = |m: scenic_ir::MapId| {
        let map = &w.scu.maps[m];
        let kw = crate::conv::width(w.module, &map.key).unwrap_or(1);
        let vw = w.record_bits(&map.value);
        (kw, vw, w.ty(&map.value))
    };
    case(c, Op::MapGet);
    for (m, _) in &maps {
        let (kw, _, vty) = layout(*m);
        c.line(format!("case {}: {{", m.index()));
        c.line(format!("    {vty} v = {};", w.zero(&w.scu.maps[*m].value)));
        c.line(format!(
            "    if (!st.{}.peek(ap_uint<{kw}>(data.range({}, 0)), v)) status = ST_NOT_FOUND;",
            w.names.map[*m],
            kw - 1
        ));
        c.line(format!("    out = {};", w.pack(&w.scu.maps[*m].value, "v")));
        c.line("    break;");
        c.line("}");
    }
    end_case(c);
    case(c, Op::MapInsert);
    for (m, _) in &maps {
        let (kw, vw, _) = layout(*m);
        let raw = format!("ap_uint<{vw}>(data.range({}, {kw}))", kw + vw - 1);
        c.line(format!(
            "case {}: status = st.{}.host_insert(ap_uint<{kw}>(data.range({}, 0)), {}) ? ST_OK : ST_FULL; break;",
            m.index(),
            w.names.map[*m],
            kw - 1,
            w.unpack(&w.scu.maps[*m].value, &raw)
        ));
    }
    end_case(c);
    case(c, Op::MapRemove);
    for (m, _) in &maps {
        let (kw, _, _) = layout(*m);
        c.line(format!(
            "case {}: status = st.{}.host_remove(ap_uint<{kw}>(data.range({}, 0))) ? ST_OK : ST_NOT_FOUND; break;",
            m.index(),
            w.names.map[*m],
            kw - 1
        ));
    }
    end_case(c);
    case(c, Op::MapIterate);
    for (m, map) in &maps {
        let (kw, vw, vty) = layout(*m);
        c.line(format!("case {}: {{", m.index()));
        c.line(format!("    ap_uint<{kw}> k = 0;"));
        c.line(format!("    {vty} v = {};", w.zero(&map.value)));
        c.line("    ap_uint<32> next = 0;");
        c.line(format!(
            "    if (!st.{}.iterate(index, k, v, next)) status = ST_END;",
            w.names.map[*m]
        ));
        c.line(format!("    out.range({}, 0) = k;", kw - 1));
        c.line(format!(
            "    out.range({}, {kw}) = {};",
            kw + vw - 1,
            w.pack(&map.value, "v")
        ));
        c.line(format!(
            "    out.range({}, {}) = next;",
            kw + vw + 31,
            kw + vw
        ));
        c.line("    break;");
        c.line("}");
        let _ = MapKind::Hash;
    }
    end_case(c);
}

fn meter_ops(w: &ScuWriter<'_>, c: &mut Code) {
    case(c, Op::MeterConfigure);
    for (id, meter) in &w.scu.meters {
        c.line(format!(
            "case {}: if (index >= {}) status = ST_BAD_INDEX; else st.{}.configure(index, data.range(63, 0), data.range(127, 64)); break;",
            id.index(),
            meter.size,
            w.names.meter[id]
        ));
    }
    end_case(c);
}
