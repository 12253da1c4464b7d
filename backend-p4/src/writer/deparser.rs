//! The deparser: the emits in order; its other statements (checksum recomputation, header
//! rewrites) move to the end of the control.
//!
//! P4 deparsers (bmv2's, and VNP4's, which allows `InternetChecksum` only in the control) only
//! emit. Moving the computations in front of every emit is exact when no computation changes a
//! header after that header's emit and no emit is conditional; otherwise the program is refused.
//! Without a deparser every header instance is emitted in `headers { }` order.

use super::body::{items, BodyWriter, Kind, Shared};
use super::{target, Ctx};
use crate::analysis::deparser::emits;
use crate::analysis::facts::Facts;
use crate::error::Error;
use crate::namer::Namer;
use scenic_ir::Stmt;
use std::fmt::Write;

/// The deparser control.
pub fn write_deparser(cx: &Ctx<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "\ncontrol ScuDeparser({}) {{",
        target::deparser_params(cx.target)
    );
    out.push_str("    apply {\n");
    let mut checked = Vec::new();
    for inst in emits(cx.scu, cx.target, &mut checked) {
        let name = cx.names.instances.get(&inst).cloned().unwrap_or_default();
        let _ = writeln!(out, "        packet.emit(hdr.{name});");
    }
    out.push_str("    }\n}\n");
}

/// The deparser's statements other than emits, written at the end of the control's `apply`.
pub fn moved_code(
    cx: &Ctx<'_>,
    namer: &mut Namer,
    shared: &mut Shared,
    errors: &mut Vec<Error>,
    level: usize,
) -> String {
    let Some(body) = &cx.scu.deparser else {
        return String::new();
    };
    let list: Vec<_> = items(&body.block)
        .into_iter()
        .filter(|(s, _)| !matches!(s, Stmt::Emit(_)))
        .collect();
    if list.is_empty() {
        return String::new();
    }
    let mut w = BodyWriter::new(
        cx,
        body,
        namer,
        shared,
        errors,
        Kind::Deparser,
        level,
        Facts::unknown(),
    );
    w.code
        .line("// The deparser's computations (P4 deparsers only emit).");
    w.stmts(&list);
    w.code.text
}
