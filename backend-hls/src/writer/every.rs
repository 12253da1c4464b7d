//! `every` blocks: one function per block (`every_k`, run with a notification-only packet
//! context), and `run_every`, which runs the due blocks one firing at a time, the earliest due
//! first and blocks due at the same instant in source order — language.md §7.18 and the
//! interpreter's order (`Machine::advance_time`). Catching up block by block instead (all of
//! block 0's missed periods, then block 1's) gives another result as soon as one block reads what
//! another writes (scenic-smith seed 0). In hardware `now_ns` advances by one cycle per
//! invocation, so as many firings per invocation as there are blocks suffice (`EVERY_CATCHUP`
//! under synthesis); C simulation jumps in time and catches up in full.

use super::body::{BodyWriter, Ctx};
use super::{Code, ScuWriter};
use crate::Error;

/// Writes the `every` functions and `run_every`.
pub fn write(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- every blocks ------------------------------------------------------------");
    c.blank();
    for (k, every) in w.scu.every.iter().enumerate() {
        c.line(format!("// every {} ns", every.period_ns));
        let bw = BodyWriter::new(w, &every.body, 0, Ctx::Every);
        super::body::write_function(c, bw, "void", &w.names.every[k], &[])?;
    }
    c.line("#ifdef __SYNTHESIS__");
    c.line(format!(
        "#define EVERY_CATCHUP {}",
        w.scu.every.len().max(1)
    ));
    c.line("#else");
    c.line("#define EVERY_CATCHUP 0x7fffffff");
    c.line("#endif");
    c.blank();
    c.line("// Runs the `every` blocks due at `now`; their notifications go to notify_out.");
    c.open(
        "static void run_every(state_t& st, const ap_uint<64>& now, hls::stream<ap_uint<64> >& notify_out)",
    );
    if w.scu.every.is_empty() {
        c.line("(void)st;");
        c.line("(void)now;");
        c.line("(void)notify_out;");
    }
    if !w.scu.every.is_empty() {
        write_catch_up(w, c);
    }
    c.close("");
    c.blank();
    Ok(())
}

/// The loop of `run_every`: each round runs the earliest due block (ties: source order).
fn write_catch_up(w: &ScuWriter<'_>, c: &mut Code) {
    c.open("for (int n = 0; n < EVERY_CATCHUP; ++n)");
    c.line("int k = -1;");
    c.line("ap_uint<64> due = 0;");
    for k in 0..w.scu.every.len() {
        c.open(format!(
            "if (st.every_next[{k}] <= now && (k < 0 || st.every_next[{k}] < due))"
        ));
        c.line(format!("k = {k};"));
        c.line(format!("due = st.every_next[{k}];"));
        c.close("");
    }
    c.open("if (k < 0)");
    c.line("break;");
    c.close("");
    c.line("pkt_t pk;");
    c.open("switch (k)");
    for (k, every) in w.scu.every.iter().enumerate() {
        c.line(format!("case {k}:"));
        c.line(format!("    {}(st, pk);", w.names.every[k]));
        c.line(format!(
            "    st.every_next[{k}] += ap_uint<64>({}ULL);",
            every.period_ns.max(1)
        ));
        c.line("    break;");
    }
    c.line("default:");
    c.line("    break;");
    c.close("");
    c.open("for (int i = 0; i < MAX_NOTES; ++i)");
    c.open("if (i < int(pk.nnotes))");
    c.line("notify_out.write(pk.notes[i]);");
    c.close("");
    c.close("");
    c.close("");
}
