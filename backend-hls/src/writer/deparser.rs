//! The deparser: `deparse` runs the `deparser` body (or emits every header instance in `headers`
//! order when there is none); `emit(h)` appends a valid header's wire bits to `pk.out` at byte
//! `pk.olen` (a stack: each valid element in index order). The payload after the parsed bytes is
//! appended by `egress`, which re-aligns it behind the new headers.

use super::body::{BodyWriter, Ctx};
use super::{Code, ScuWriter};
use crate::Error;
use scenic_ir::entities::InstId;

/// `emit(inst)`.
pub fn emit(bw: &mut BodyWriter<'_, '_>, inst: InstId) {
    let w = bw.w;
    let i = &w.scu.instances[inst];
    let bits = w.module.headers[i.header].bits;
    let name = &w.names.inst[inst];
    let hdr = &w.names.hdr[i.header];
    let elements: Vec<String> = match i.stack {
        Some(n) => (0..n).map(|k| format!("pk.{name}[{k}]")).collect(),
        None => vec![format!("pk.{name}")],
    };
    for h in elements {
        bw.c.open(format!("if ({h}.valid)"));
        bw.c.line(format!(
            "pk.out.range(OUT_BITS - 1 - 8 * int(pk.olen), OUT_BITS - {bits} - 8 * int(pk.olen)) = pack_{hdr}({h});"
        ));
        bw.c.line(format!("pk.olen += {};", bits / 8));
        bw.c.close("");
    }
}

/// Writes `deparse`.
pub fn write(w: &ScuWriter<'_>, c: &mut Code) -> Result<(), Error> {
    c.line("// ---- deparser ----------------------------------------------------------------");
    c.blank();
    match &w.scu.deparser {
        Some(body) => {
            c.line("// deparser");
            let bw = BodyWriter::new(w, body, 0, Ctx::Packet);
            super::body::write_function(c, bw, "void", "deparse", &[])?;
        }
        None => {
            c.line("// No deparser: every header instance, in `headers` order.");
            c.open("static void deparse(state_t& st, pkt_t& pk)");
            c.line("(void)st;");
            let empty = scenic_ir::Body::default();
            let mut bw = BodyWriter::new(w, &empty, c.level(), Ctx::Packet);
            for inst in w.scu.instances.keys() {
                emit(&mut bw, inst);
            }
            c.append(bw.c);
            c.close("");
            c.blank();
        }
    }
    Ok(())
}
