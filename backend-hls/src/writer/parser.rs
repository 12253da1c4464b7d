//! The parser: one function per state (`ps_*`: its statements, then its transition) and `parse`,
//! a loop over the state number, fully unrolled to the longest path of
//! [`crate::analysis::ParserFacts`].
//!
//! Extraction reads the header window (`pk.win`, wire order: packet byte 0 in the most significant
//! bits) at the cursor. Where every path enters a state at the same position and the state
//! extracts unconditionally, offsets are constants; elsewhere they follow `pk.cur`. A read that
//! would pass the packet's end rejects with `packet_too_short` (error 0) before reading, and a
//! full stack with `stack_overflow` (error 2) before that, as the interpreter checks them.

use super::body::{BodyWriter, Ctx};
use super::{Code, ScuWriter};
use crate::conv;
use crate::Error;
use cranelift_entity::EntityRef;
use num_bigint::BigUint;
use scenic_ir::body::Pattern;
use scenic_ir::entities::*;
use scenic_ir::program::{Target, Transition};
use scenic_ir::types::Type;

/// The state number of "accepted".
pub const S_ACCEPT: u32 = 254;

/// `hi, lo` of `pk.win.range(…)` for `width` bits at `offset` bits past the cursor.
pub fn window_range(static_cur: Option<u32>, win_bits: u32, offset: u32, width: u32) -> String {
    match static_cur {
        Some(c) if c + offset + width <= win_bits => {
            let at = c + offset;
            format!("{}, {}", win_bits - 1 - at, win_bits - width - at)
        }
        _ => format!(
            "WIN_BITS - 1 - {offset} - int(pk.cur), WIN_BITS - {} - int(pk.cur)",
            offset + width
        ),
    }
}

/// `extract(inst)`.
pub fn extract(bw: &mut BodyWriter<'_, '_>, inst: InstId) -> Result<(), Error> {
    let w = bw.w;
    let i = &w.scu.instances[inst];
    let layout = &w.module.headers[i.header];
    let bits = layout.bits;
    let ret = bw.halt_return.clone();
    let name = &w.names.inst[inst];
    if let Some(n) = i.stack {
        let fill = w.names.fill_of(inst);
        bw.c.open(format!("if (pk.{fill} >= {n})"));
        bw.c.line("pk_reject(pk, 2);  // stack_overflow");
        bw.c.line(ret.clone());
        bw.c.close("");
    }
    match bw.static_cur {
        Some(c) => bw.c.open(format!("if (pk.len < {})", (c + bits) / 8)),
        None => bw.c.open(format!(
            "if (ap_uint<40>(pk.cur) + {bits} > ap_uint<40>(pk.len) * 8)"
        )),
    }
    bw.c.line("pk_reject(pk, 0);  // packet_too_short");
    bw.c.line(ret);
    bw.c.close("");
    let range = window_range(bw.static_cur, w.window_bits(), 0, bits);
    let value = format!(
        "unpack_{}(ap_uint<{bits}>(pk.win.range({range})))",
        w.names.hdr[i.header]
    );
    match i.stack {
        Some(_) => {
            let fill = w.names.fill_of(inst);
            bw.c.line(format!("pk.{name}[pk.{fill}] = {value};"));
            bw.c.line(format!("pk.{fill}++;"));
        }
        None => bw.c.line(format!("pk.{name} = {value};")),
    }
    bw.c.line(format!("pk.cur += {bits};"));
    bw.static_cur = bw.static_cur.map(|c| c + bits);
    Ok(())
}

/// Whether pattern `p` matches `v`, a C++ value of type `ty`.
pub fn pattern(w: &ScuWriter<'_>, p: &Pattern, ty: &Type, v: &str) -> String {
    let width = conv::width(w.module, ty).unwrap_or(1);
    let lit = |c: &BigUint| conv::uint_literal(width, c);
    match p {
        Pattern::Any => "true".into(),
        Pattern::Value(c) => format!("scn::bits({v}) == {}", lit(&c.0)),
        Pattern::Mask(val, mask) => {
            let m = conv::low(&mask.0, width);
            let vm = &conv::low(&val.0, width) & &m;
            format!("(scn::bits({v}) & {}) == {}", lit(&m), lit(&vm))
        }
        Pattern::Range(lo, hi) => match ty {
            Type::Int(n) => {
                let l = conv::literal(w.module, &Type::Int(*n), lo);
                let h = conv::literal(w.module, &Type::Int(*n), hi);
                format!("({v} >= {l} && {v} <= {h})")
            }
            _ => format!(
                "(scn::bits({v}) >= {} && scn::bits({v}) <= {})",
                lit(&lo.0),
                lit(&hi.0)
            ),
        },
        Pattern::Tuple(_) => "false".into(),
    }
}

fn target(w: &ScuWriter<'_>, t: &Target) -> String {
    match t {
        Target::Accept => format!("next = {S_ACCEPT};  // accept"),
        Target::Reject(e) => {
            let name = w.scu.errors.get(*e).map_or("?", String::as_str);
            format!("pk_reject(pk, {});  // reject({name})", e.index())
        }
        Target::State(s) => {
            let name = w
                .scu
                .parser
                .as_ref()
                .map_or("?", |p| p.states[*s].name.as_str());
            format!("next = {};  // {name}", s.index())
        }
    }
}

/// Writes the state functions and `parse`.
pub fn write(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- parser ------------------------------------------------------------------");
    c.blank();
    let Some(parser) = &w.scu.parser else {
        c.line("// No parser: every packet is accepted with no header extracted.");
        c.open("static void parse(state_t& st, pkt_t& pk)");
        c.line("(void)st;");
        c.line("(void)pk;");
        c.close("");
        c.blank();
        return Ok(());
    };
    if parser.states.len() >= S_ACCEPT as usize {
        return Err(w.unsupported("a parser with more than 253 states", w.scu.span));
    }
    for (id, state) in &parser.states {
        if let Some(loc) = w.loc(state.span) {
            c.line(format!("// state {} ({loc})", state.name));
        } else {
            c.line(format!("// state {}", state.name));
        }
        c.open(format!(
            "static void {}(state_t& st, pkt_t& pk, ap_uint<8>& next)",
            w.names.state[id]
        ));
        c.line("(void)st;");
        let mut bw = BodyWriter::new(w, &parser.body, c.level(), Ctx::Packet);
        if w.facts.parser.straight.contains(&id) {
            bw.static_cur = w.facts.parser.static_entry.get(&id).copied();
        }
        if let Some(cur) = bw.static_cur {
            bw.c.line(format!("// entered at bit {cur} on every path"));
        }
        let select: Vec<ExprId> = match &state.transition {
            Transition::Select { on, .. } => vec![*on],
            Transition::Direct(_) => Vec::new(),
        };
        bw.declare_locals(&[&state.block], &select);
        bw.block(&state.block)?;
        match &state.transition {
            Transition::Direct(t) => bw.c.line(target(w, t)),
            Transition::Select { on, cases } => {
                let values = bw.scrutinee(*on)?;
                let mut first = true;
                for case in cases {
                    let cond = bw.case_condition(*on, &values, &case.patterns);
                    if first {
                        bw.c.open(format!("if ({cond})"));
                        first = false;
                    } else {
                        bw.c.close(&format!(" else if ({cond}) {{"));
                    }
                    bw.c.line(target(w, &case.target));
                }
                if first {
                    bw.c.line("pk_reject(pk, 1);  // no_match");
                } else {
                    bw.c.close(" else {");
                    bw.c.line("pk_reject(pk, 1);  // no_match");
                    bw.c.close("");
                }
            }
        }
        c.append(bw.c);
        c.close("");
        c.blank();
    }
    write_parse(w, c, parser);
    Ok(())
}

fn write_parse(w: &ScuWriter<'_>, c: &mut Code, parser: &scenic_ir::program::Parser) {
    let steps = w.facts.parser.max_steps.max(1);
    c.line(format!(
        "// The longest path runs {steps} state(s): the loop is unrolled that far."
    ));
    c.open("static void parse(state_t& st, pkt_t& pk)");
    c.line(format!("ap_uint<8> s = {};", parser.start.index()));
    c.open(format!("for (int step = 0; step < {steps}; ++step)"));
    c.line("#pragma HLS UNROLL");
    c.open(format!("if (s == {S_ACCEPT} || pk.halt)"));
    c.line("break;");
    c.close("");
    c.line(format!("ap_uint<8> next = {S_ACCEPT};"));
    c.open("switch (int(s))");
    for (id, _) in &parser.states {
        c.line(format!(
            "case {}: {}(st, pk, next); break;",
            id.index(),
            w.names.state[id]
        ));
    }
    c.line("default: break;");
    c.close("");
    c.line("s = next;");
    c.close("");
    c.open(format!("if (s != {S_ACCEPT} && !pk.halt)"));
    c.line("pk_reject(pk, 1);  // unreachable: the loop covers the longest path");
    c.close("");
    c.close("");
    c.blank();
}
