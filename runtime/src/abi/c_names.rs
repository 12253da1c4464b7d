//! The device interface's names as a C header, `shell-hw/tb/common/scenic_regs.h`: the table of
//! register names and offsets, status codes and command opcodes that a C or C++ conformance runner
//! needs to read the scenario files of docs/device.md §8.1 (shell-hw's Verilator bench does).
//!
//! [`render`] writes it from this crate's constants; `tests/shell_hw_abi.rs` compares the committed
//! file with it (`SCENIC_REWRITE=1` rewrites it), like the SystemVerilog package of [`super::sv`].

use std::fmt::Write;

use super::codes::Code;
use super::global::{self, CcOp, SteerOp};
use super::slot::{self, SlotOp};
use super::Reg;

/// The header's text, byte for byte what `shell-hw/tb/common/scenic_regs.h` holds.
pub fn render() -> String {
    let mut s = String::from(HEADER);
    let globals = [
        global::GLOBAL,
        global::STEER,
        global::RING,
        global::INTERRUPT,
        global::CC,
        global::EVENT,
    ];
    table(
        &mut s,
        "SCENIC_GLOBAL_REGS",
        "§2, §4, §5: offsets in the map",
        &globals,
    );
    table(
        &mut s,
        "SCENIC_SLOT_REGS",
        "§3.2: offsets in a slot block",
        &[slot::SLOT],
    );
    s.push_str("static const struct scenic_name SCENIC_CODES[] = {  /* §6 */\n");
    for code in Code::ALL {
        let _ = writeln!(
            s,
            "    {{\"{}\", 0x{:04x}}},",
            code.doc_name(),
            code.number()
        );
    }
    s.push_str("    {0, 0},\n};\n\n");
    opcodes(&mut s);
    constants(&mut s);
    s.push_str("#endif\n");
    s
}

const HEADER: &str = "\
/* scenic_regs.h: the names of docs/device.md (v1.0) for C and C++ conformance runners.
 * Written by scenic_runtime::abi::c_names::render(); do not edit (tests/shell_hw_abi.rs checks it,
 * SCENIC_REWRITE=1 cargo test -p scenic-runtime --test shell_hw_abi rewrites it). */
#ifndef SCENIC_REGS_H
#define SCENIC_REGS_H

#include <stdint.h>

/* A name and its value; each table ends with {0, 0}. */
struct scenic_name {
    const char *name;
    uint64_t value;
};

";

fn table(s: &mut String, name: &str, what: &str, tables: &[&[Reg]]) {
    let _ = writeln!(
        s,
        "static const struct scenic_name {name}[] = {{  /* {what} */"
    );
    for r in tables.iter().flat_map(|t| t.iter()) {
        let _ = writeln!(s, "    {{\"{}\", 0x{:x}}},", r.name, r.offset);
    }
    s.push_str("    {0, 0},\n};\n\n");
}

fn opcodes(s: &mut String) {
    s.push_str("static const struct scenic_name SCENIC_OPCODES[] = {  /* §2.3, §3.4, §4.1 */\n");
    let steer = SteerOp::ALL.map(|(op, name)| (name, op));
    for (name, op) in steer {
        let _ = writeln!(s, "    {{\"{name}\", 0x{:02x}}},", op as u8);
    }
    for op in SlotOp::ALL {
        let _ = writeln!(s, "    {{\"{}\", 0x{:02x}}},", op.doc_name(), op as u8);
    }
    for (op, name) in CcOp::ALL {
        let _ = writeln!(s, "    {{\"{name}\", 0x{:02x}}},", op as u8);
    }
    s.push_str("    {0, 0},\n};\n\n");
}

fn constants(s: &mut String) {
    let values = [
        ("SCENIC_SLOT_BLOCK_BASE", super::SLOT_BLOCK_BASE),
        ("SCENIC_SLOT_BLOCK_STRIDE", super::SLOT_BLOCK_STRIDE),
        ("SCENIC_SLOT_BLOCKS", u64::from(super::SLOT_BLOCKS)),
        ("SCENIC_CC_SLOT_A", u64::from(super::CC_SLOT_A)),
        ("SCENIC_CC_SLOT_B", u64::from(super::CC_SLOT_B)),
        ("SCENIC_CSR_WINDOW", slot::CSR_WINDOW),
        ("SCENIC_CSR_WINDOW_WORDS", slot::CSR_WINDOW_WORDS),
    ];
    for (name, v) in values {
        let _ = writeln!(s, "#define {name} 0x{v:x}ull");
    }
    s.push('\n');
}
