//! `every` blocks: one function per block (`every_k`, run with a notification-only packet
//! context), and `run_every`, which runs each block whose due time has come, block by block in
//! source order, each catching up on every period it missed — the interpreter's order
//! (`Machine::advance_time`). In hardware `now_ns` advances by one cycle per invocation, so one
//! run per block per invocation suffices (`EVERY_CATCHUP` is 1 under synthesis); C simulation
//! jumps in time and catches up in full.

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
    c.line("#define EVERY_CATCHUP 1");
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
    for (k, every) in w.scu.every.iter().enumerate() {
        c.open("for (int n = 0; n < EVERY_CATCHUP; ++n)");
        c.open(format!("if (st.every_next[{k}] > now)"));
        c.line("break;");
        c.close("");
        c.line("pkt_t pk;");
        c.line(format!("{}(st, pk);", w.names.every[k]));
        c.open("for (int i = 0; i < MAX_NOTES; ++i)");
        c.open("if (i < int(pk.nnotes))");
        c.line("notify_out.write(pk.notes[i]);");
        c.close("");
        c.close("");
        c.line(format!(
            "st.every_next[{k}] += ap_uint<64>({}ULL);",
            every.period_ns.max(1)
        ));
        c.close("");
    }
    c.close("");
    c.blank();
    Ok(())
}
