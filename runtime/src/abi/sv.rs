//! The device interface as a SystemVerilog package, `shell-hw/rtl/scenic_regs_pkg.sv`: the shell
//! glue (issue 17) takes every register offset, opcode, status code and field position from it, so
//! the hardware, the emulator, the runtime and the kmod read one contract.
//!
//! [`render`] writes the package from this crate's constants ([`super::global`], [`super::slot`],
//! [`super::codes`]); the test `tests/shell_hw_abi.rs` compares the committed file with it
//! (`SCENIC_REWRITE=1` rewrites it), so the file cannot drift from the Rust side.
//!
//! Names: a global register `NAME` at byte offset `o` is `localparam int unsigned REG_NAME =
//! 'h<o>`; registers of slot blocks and port blocks are `SLOT_REG_NAME` and `PORT_REG_NAME`, with
//! offsets relative to the block (the two tables share names such as `RX_BYTES`). A status code
//! `E_X` keeps its document name; opcodes are `STEER_OP_*`, `SLOT_OP_*`, `CC_OP_*`.

use std::fmt::Write;

use super::codes::Code;
use super::global::{self, CcOp, SteerOp};
use super::slot::{self, SlotOp};
use super::{Reg, MAX_SCU_SLOTS, SLOT_BLOCKS, SLOT_BLOCK_BASE, SLOT_BLOCK_STRIDE};

/// The package's text, byte for byte what `shell-hw/rtl/scenic_regs_pkg.sv` holds.
pub fn render() -> String {
    let mut s = String::from(HEADER);
    section(
        &mut s,
        "§2.2 identity, status, control",
        "REG",
        global::GLOBAL,
    );
    section(&mut s, "§2.3 steering", "REG", global::STEER);
    section(
        &mut s,
        "§2.4 network port blocks (from the block)",
        "PORT_REG",
        global::PORT,
    );
    section(&mut s, "§5.1 host rings", "REG", global::RING);
    section(&mut s, "§5.5 interrupts", "REG", global::INTERRUPT);
    section(&mut s, "§4.1 CC selection", "REG", global::CC);
    section(&mut s, "§4.3 CC event ring", "REG", global::EVENT);
    section(
        &mut s,
        "§3.2 slot registers (from the block)",
        "SLOT_REG",
        slot::SLOT,
    );
    layout(&mut s);
    opcodes(&mut s);
    codes(&mut s);
    s.push_str("\nendpackage\n");
    s
}

const HEADER: &str = "\
// scenic_regs_pkg.sv: the device interface of docs/device.md (v1.0) for the shell glue.
// Written by scenic_runtime::abi::sv::render(); do not edit (tests/shell_hw_abi.rs checks it,
// SCENIC_REWRITE=1 cargo test -p scenic-runtime --test shell_hw_abi rewrites it).

package scenic_regs_pkg;
  // Every module imports the whole map and uses a few names of it; without this, `verilator -Wall`
  // reports each name a module leaves unused (UNUSEDPARAM at this file), in every module.
  /* verilator lint_off UNUSEDPARAM */
";

fn section(s: &mut String, title: &str, prefix: &str, regs: &[Reg]) {
    let _ = writeln!(s, "\n  // {title}");
    for r in regs {
        let _ = writeln!(
            s,
            "  localparam int unsigned {prefix}_{} = 'h{:x};",
            r.name, r.offset
        );
    }
}

fn param(s: &mut String, name: &str, value: u64) {
    let _ = writeln!(s, "  localparam longint unsigned {name} = 'h{value:x};");
}

fn layout(s: &mut String) {
    s.push_str("\n  // §2.1, §3.1, §3.5, §4.3, §4.4, §5.2 blocks, windows and records\n");
    param(s, "SLOT_BLOCK_BASE", SLOT_BLOCK_BASE);
    param(s, "SLOT_BLOCK_STRIDE", SLOT_BLOCK_STRIDE);
    param(s, "SLOT_BLOCKS", u64::from(SLOT_BLOCKS));
    param(s, "MAX_SCU_SLOTS", u64::from(MAX_SCU_SLOTS));
    param(s, "CC_SLOT_A", u64::from(super::CC_SLOT_A));
    param(s, "CC_SLOT_B", u64::from(super::CC_SLOT_B));
    param(s, "PORT_BLOCK_BASE", super::PORT_BLOCK_BASE);
    param(s, "PORT_BLOCK_STRIDE", super::PORT_BLOCK_STRIDE);
    param(s, "CSR_WINDOW", slot::CSR_WINDOW);
    param(s, "CSR_WINDOW_WORDS", slot::CSR_WINDOW_WORDS);
    param(s, "CC_OUTPUTS", slot::CC_OUTPUTS);
    param(s, "EV_RING_BASE", global::EV_RING_BASE);
    param(s, "EV_RING_ENTRIES", u64::from(global::EV_RING_ENTRIES));
    param(s, "EV_ENTRY_BYTES", global::EV_ENTRY_BYTES);
    param(s, "SLOW_PATH_NONE", global::SLOW_PATH_NONE);
    param(s, "CC_SWITCH_CARRY", global::CC_SWITCH_CARRY);
    s.push_str(EVENT_AND_TAG_FIELDS);
}

/// Field positions of §4.3's event record, §5.2's RX tag and §2.3's `STEER_VALUE`, as the
/// document's tables give them (`tests/shell_hw_abi.rs` reads those tables and compares).
const EVENT_AND_TAG_FIELDS: &str = "\
  localparam int unsigned EV_RECORD_BITS = 384;  // cc_event_in: kind[0+:8] flow[8+:32] ecn[40]
  localparam int unsigned EV_KIND_LSB = 0;       // hop[48+:8] hops[56+:8] value[64+:64]
  localparam int unsigned EV_FLOW_LSB = 8;       // time_ns[128+:64] tx_bytes[192+:64]
  localparam int unsigned EV_ECN_BIT = 40;       // ts_ns[256+:64] rate_bps[320+:64]
  localparam int unsigned EV_HOP_LSB = 48;
  localparam int unsigned EV_HOPS_LSB = 56;
  localparam int unsigned EV_VALUE_LSB = 64;
  localparam int unsigned EV_TIME_LSB = 128;
  localparam int unsigned EV_TX_BYTES_LSB = 192;
  localparam int unsigned EV_TS_LSB = 256;
  localparam int unsigned EV_RATE_LSB = 320;
  localparam int unsigned RX_TAG_BYTES = 16;     // len[0+:16] flags[16+:8] slot[24+:8] port[32+:8]
  localparam int unsigned RX_TAG_LEN_LSB = 0;    // time_ns[64+:64], bits 40..64 zero
  localparam int unsigned RX_TAG_FLAGS_LSB = 16;
  localparam int unsigned RX_TAG_SLOT_LSB = 24;
  localparam int unsigned RX_TAG_PORT_LSB = 32;
  localparam int unsigned RX_TAG_TIME_LSB = 64;
  localparam int unsigned RX_TAG_VALID = 1;      // flags bit 0
  localparam int unsigned RX_TAG_FROM_SCU = 2;   // flags bit 1
  localparam int unsigned STEER_VALUE_SLOT_LSB = 32;  // index[0+:32] slot[32+:8] valid[40]
  localparam int unsigned STEER_VALUE_VALID_BIT = 40;
";

fn opcodes(s: &mut String) {
    s.push_str("\n  // command opcodes (§2.3, §3.4, §4.1)\n");
    let steer = SteerOp::ALL.map(|(op, name)| (name, op));
    for (name, op) in steer {
        let _ = writeln!(
            s,
            "  localparam byte unsigned STEER_OP_{name} = 8'h{:02x};",
            op as u8
        );
    }
    for op in SlotOp::ALL {
        let _ = writeln!(
            s,
            "  localparam byte unsigned SLOT_OP_{} = 8'h{:02x};",
            op.doc_name(),
            op as u8
        );
    }
    for (op, name) in CcOp::ALL {
        let _ = writeln!(
            s,
            "  localparam byte unsigned CC_OP_{name} = 8'h{:02x};",
            op as u8
        );
    }
}

fn codes(s: &mut String) {
    s.push_str("\n  // §6 status codes\n");
    for code in Code::ALL {
        let _ = writeln!(
            s,
            "  localparam shortint unsigned {} = 16'h{:04x};",
            code.doc_name(),
            code.number()
        );
    }
}
