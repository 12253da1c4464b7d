// scenic_regs_pkg.sv: the device interface of docs/device.md (v1.0) for the shell glue.
// Written by scenic_runtime::abi::sv::render(); do not edit (tests/shell_hw_abi.rs checks it,
// SCENIC_REWRITE=1 cargo test -p scenic-runtime --test shell_hw_abi rewrites it).

package scenic_regs_pkg;
  // Every module imports the whole map and uses a few names of it; without this, `verilator -Wall`
  // reports each name a module leaves unused (UNUSEDPARAM at this file), in every module.
  /* verilator lint_off UNUSEDPARAM */

  // §2.2 identity, status, control
  localparam int unsigned REG_MAGIC = 'h0;
  localparam int unsigned REG_VERSION = 'h8;
  localparam int unsigned REG_SLOTS = 'h10;
  localparam int unsigned REG_CLOCK_HZ = 'h18;
  localparam int unsigned REG_LINE_RATE_BPS = 'h20;
  localparam int unsigned REG_FEATURES = 'h28;
  localparam int unsigned REG_STATUS = 'h30;
  localparam int unsigned REG_ERROR = 'h38;
  localparam int unsigned REG_SCRATCH = 'h40;
  localparam int unsigned REG_RESET = 'h48;
  localparam int unsigned REG_HOST_FENCE = 'h50;
  localparam int unsigned REG_DEV_FENCE = 'h58;
  localparam int unsigned REG_POLL_NS = 'h60;
  localparam int unsigned REG_NOW_NS = 'h68;
  localparam int unsigned REG_BAR_BYTES = 'h70;
  localparam int unsigned REG_HEARTBEAT = 'h78;
  localparam int unsigned REG_RESET_RESULT = 'h80;
  localparam int unsigned REG_INSTANCE = 'h88;

  // §2.3 steering
  localparam int unsigned REG_STEER_CAPS = 'h1000;
  localparam int unsigned REG_SLOW_PATH_SLOT = 'h1008;
  localparam int unsigned REG_STEER_KEY = 'h1010;
  localparam int unsigned REG_STEER_VALUE = 'h1018;
  localparam int unsigned REG_STEER_CMD = 'h1020;
  localparam int unsigned REG_STEER_RESULT = 'h1028;
  localparam int unsigned REG_STEER_RD_KEY = 'h1030;
  localparam int unsigned REG_STEER_RD_VALUE = 'h1038;
  localparam int unsigned REG_STEER_MISSES = 'h1040;

  // §2.4 network port blocks (from the block)
  localparam int unsigned PORT_REG_RX_PKTS = 'h0;
  localparam int unsigned PORT_REG_RX_BYTES = 'h8;
  localparam int unsigned PORT_REG_RX_DROPS = 'h10;
  localparam int unsigned PORT_REG_TX_PKTS = 'h18;
  localparam int unsigned PORT_REG_TX_BYTES = 'h20;
  localparam int unsigned PORT_REG_TX_DROPS = 'h28;
  localparam int unsigned PORT_REG_RX_SLOW_PATH = 'h30;
  localparam int unsigned PORT_REG_RX_STEERED = 'h38;
  localparam int unsigned PORT_REG_MAC_ADDR = 'h40;
  localparam int unsigned PORT_REG_LINK = 'h48;

  // §5.1 host rings
  localparam int unsigned REG_RING_CTRL = 'h3000;
  localparam int unsigned REG_RING_MEM_OFFSET = 'h3008;
  localparam int unsigned REG_RING_MEM_BYTES = 'h3010;
  localparam int unsigned REG_BUF_BYTES = 'h3018;
  localparam int unsigned REG_MTU_MAX = 'h3020;
  localparam int unsigned REG_MTU = 'h3028;
  localparam int unsigned REG_RX_BASE = 'h3030;
  localparam int unsigned REG_RX_SIZE = 'h3038;
  localparam int unsigned REG_RX_PROD = 'h3040;
  localparam int unsigned REG_RX_CONS = 'h3048;
  localparam int unsigned REG_TX_BASE = 'h3050;
  localparam int unsigned REG_TX_SIZE = 'h3058;
  localparam int unsigned REG_TX_PROD = 'h3060;
  localparam int unsigned REG_TX_CONS = 'h3068;
  localparam int unsigned REG_HOST_RX_PKTS = 'h3070;
  localparam int unsigned REG_HOST_RX_BYTES = 'h3078;
  localparam int unsigned REG_HOST_RX_DROPS = 'h3080;
  localparam int unsigned REG_HOST_TX_PKTS = 'h3088;
  localparam int unsigned REG_HOST_TX_BYTES = 'h3090;
  localparam int unsigned REG_HOST_TX_DROPS = 'h3098;

  // §5.5 interrupts
  localparam int unsigned REG_INT_CAUSE = 'h30a0;
  localparam int unsigned REG_INT_MASK = 'h30a8;
  localparam int unsigned REG_INT_ACK = 'h30b0;
  localparam int unsigned REG_RX_COAL_NS = 'h30b8;
  localparam int unsigned REG_RX_COAL_COUNT = 'h30c0;
  localparam int unsigned REG_TX_COAL_COUNT = 'h30c8;
  localparam int unsigned REG_INT_VECTORS = 'h30d0;

  // §4.1 CC selection
  localparam int unsigned REG_CC_ACTIVE = 'h4000;
  localparam int unsigned REG_CC_CMD = 'h4008;
  localparam int unsigned REG_CC_RESULT = 'h4010;
  localparam int unsigned REG_CC_SWITCH_SEQ = 'h4018;
  localparam int unsigned REG_CC_EVENT_SEQ = 'h4020;
  localparam int unsigned REG_CC_OUTPUT_KIND = 'h4028;

  // §4.3 CC event ring
  localparam int unsigned REG_EV_INFO = 'h4030;
  localparam int unsigned REG_EV_PROD = 'h4038;
  localparam int unsigned REG_EV_CONS = 'h4040;
  localparam int unsigned REG_EV_DROPPED = 'h4048;

  // §3.2 slot registers (from the block)
  localparam int unsigned SLOT_REG_SLOT_INFO = 'h0;
  localparam int unsigned SLOT_REG_SLOT_STATE = 'h8;
  localparam int unsigned SLOT_REG_SLOT_CMD = 'h10;
  localparam int unsigned SLOT_REG_SLOT_RESULT = 'h18;
  localparam int unsigned SLOT_REG_SLOT_ERROR = 'h20;
  localparam int unsigned SLOT_REG_SWITCH_SEQ = 'h28;
  localparam int unsigned SLOT_REG_SWITCH_COUNT = 'h30;
  localparam int unsigned SLOT_REG_ARB_WEIGHT = 'h38;
  localparam int unsigned SLOT_REG_PKT_SEQ = 'h40;
  localparam int unsigned SLOT_REG_RX_BYTES = 'h48;
  localparam int unsigned SLOT_REG_OUT_NET_PKTS = 'h50;
  localparam int unsigned SLOT_REG_OUT_NET_BYTES = 'h58;
  localparam int unsigned SLOT_REG_OUT_HOST_PKTS = 'h60;
  localparam int unsigned SLOT_REG_OUT_HOST_BYTES = 'h68;
  localparam int unsigned SLOT_REG_DROP_PROGRAM = 'h70;
  localparam int unsigned SLOT_REG_DROP_PARSER = 'h78;
  localparam int unsigned SLOT_REG_DROP_NO_UNIT = 'h80;
  localparam int unsigned SLOT_REG_DROP_FULL = 'h88;
  localparam int unsigned SLOT_REG_MIRRORED = 'h90;

  // §2.1, §3.1, §3.5, §4.3, §4.4, §5.2 blocks, windows and records
  localparam longint unsigned SLOT_BLOCK_BASE = 'h100000;
  localparam longint unsigned SLOT_BLOCK_STRIDE = 'h40000;
  localparam longint unsigned SLOT_BLOCKS = 'h12;
  localparam longint unsigned MAX_SCU_SLOTS = 'h10;
  localparam longint unsigned CC_SLOT_A = 'h10;
  localparam longint unsigned CC_SLOT_B = 'h11;
  localparam longint unsigned PORT_BLOCK_BASE = 'h2000;
  localparam longint unsigned PORT_BLOCK_STRIDE = 'h100;
  localparam longint unsigned CSR_WINDOW = 'h20000;
  localparam longint unsigned CSR_WINDOW_WORDS = 'h2000;
  localparam longint unsigned CC_OUTPUTS = 'h10000;
  localparam longint unsigned EV_RING_BASE = 'h8000;
  localparam longint unsigned EV_RING_ENTRIES = 'h200;
  localparam longint unsigned EV_ENTRY_BYTES = 'h40;
  localparam longint unsigned SLOW_PATH_NONE = 'hff;
  localparam longint unsigned CC_SWITCH_CARRY = 'h1;
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

  // command opcodes (§2.3, §3.4, §4.1)
  localparam byte unsigned STEER_OP_WRITE_ROCE = 8'h01;
  localparam byte unsigned STEER_OP_WRITE_TCP = 8'h02;
  localparam byte unsigned STEER_OP_READ_ROCE = 8'h03;
  localparam byte unsigned STEER_OP_READ_TCP = 8'h04;
  localparam byte unsigned STEER_OP_LOOKUP_ROCE = 8'h05;
  localparam byte unsigned STEER_OP_LOOKUP_TCP = 8'h06;
  localparam byte unsigned STEER_OP_CLEAR_ROCE = 8'h07;
  localparam byte unsigned STEER_OP_CLEAR_TCP = 8'h08;
  localparam byte unsigned SLOT_OP_LOAD = 8'h01;
  localparam byte unsigned SLOT_OP_ACTIVATE = 8'h02;
  localparam byte unsigned SLOT_OP_DEACTIVATE = 8'h03;
  localparam byte unsigned SLOT_OP_FREE = 8'h04;
  localparam byte unsigned SLOT_OP_MIRROR = 8'h05;
  localparam byte unsigned SLOT_OP_STAGE_RESET = 8'h06;
  localparam byte unsigned SLOT_OP_STAGE_WRITE = 8'h07;
  localparam byte unsigned SLOT_OP_QUEUE_RESET = 8'h08;
  localparam byte unsigned CC_OP_SWITCH = 8'h01;
  localparam byte unsigned CC_OP_STOP = 8'h02;

  // §6 status codes
  localparam shortint unsigned OK = 16'h0000;
  localparam shortint unsigned E_BAD_COMMAND = 16'h0001;
  localparam shortint unsigned E_BAD_STATE = 16'h0002;
  localparam shortint unsigned E_SEQ = 16'h0003;
  localparam shortint unsigned E_READ_ONLY = 16'h0004;
  localparam shortint unsigned E_NOT_FOUND = 16'h0005;
  localparam shortint unsigned E_QUEUE_OVERRUN = 16'h0006;
  localparam shortint unsigned E_RESET_KEY = 16'h0007;
  localparam shortint unsigned E_IMAGE_KIND = 16'h0010;
  localparam shortint unsigned E_IMAGE_LEN = 16'h0011;
  localparam shortint unsigned E_IMAGE_CRC = 16'h0012;
  localparam shortint unsigned E_IMAGE_FORMAT = 16'h0013;
  localparam shortint unsigned E_VERSION = 16'h0014;
  localparam shortint unsigned E_UNIT = 16'h0015;
  localparam shortint unsigned E_IDENTITY = 16'h0016;
  localparam shortint unsigned E_TOO_WIDE = 16'h0017;
  localparam shortint unsigned E_RESOURCES = 16'h0018;
  localparam shortint unsigned E_STEER_SLOT = 16'h0020;
  localparam shortint unsigned E_STEER_KIND = 16'h0021;
  localparam shortint unsigned E_STEER_INDEX = 16'h0022;
  localparam shortint unsigned E_STEER_DUP = 16'h0023;
  localparam shortint unsigned E_CSR_READONLY = 16'h0030;
  localparam shortint unsigned E_CSR_UNMAPPED = 16'h0031;
  localparam shortint unsigned E_CSR_NO_BANK = 16'h0032;
  localparam shortint unsigned E_RING_CONFIG = 16'h0040;
  localparam shortint unsigned E_MTU = 16'h0041;
  localparam shortint unsigned E_CC_NO_STANDBY = 16'h0050;
  localparam shortint unsigned E_CC_MISMATCH = 16'h0051;
  localparam shortint unsigned E_CC_EVENT = 16'h0052;

endpackage
