// scenic_global_regs: the identity, status and control registers of docs/device.md §2.2.
//
// Owns: MAGIC, VERSION, SLOTS, CLOCK_HZ, LINE_RATE_BPS, FEATURES, STATUS, ERROR, SCRATCH, RESET and
// RESET_RESULT, HOST_FENCE and DEV_FENCE, POLL_NS, NOW_NS, BAR_BYTES, HEARTBEAT, INSTANCE.
//
// Interfaces:
//   - register port (the front, scenic_shell_regs, hands this block the accesses of bytes
//     0x000..0xFFF): `reg_wr_en/reg_wr_addr/reg_wr_data` one aligned 64-bit write at its device.md
//     offset; `reg_rd_addr` -> `reg_rd_data` a combinational read. Unnamed offsets read 0.
//   - `err_in_*`: a refused access elsewhere in the global area (a steering block's E_READ_ONLY or
//     E_STEER_SLOT): recorded in ERROR like this block's own refusals, count + 1.
//   - `reset_pulse`: one cycle when RESET is taken with its key; every block that §2.2's global
//     reset clears takes it as a synchronous clear.
//   - `now_ns`: the device time that stamps tags and events (NOW_NS).
//
// Invariants:
//   - a write to an RO register changes nothing but ERROR (E_READ_ONLY at its offset, §1.2);
//   - register writes take effect in the cycle they arrive and the front serves one access at a
//     time, so when HOST_FENCE is written every earlier write has been applied: DEV_FENCE copies
//     it on the next edge (§1.3);
//   - RESET: opcode 0x52 with argument RESET_KEY resets; seq 0 is E_SEQ (with seq 0); another
//     argument E_RESET_KEY; another opcode E_BAD_COMMAND; RESET always reads 0 (taken at once).
//   - identity registers never change (§2.2: a global reset leaves them).
//
// Timing: every access one cycle; POLL_NS is 0 (every write acts at once, §1.5 rule 4).
module scenic_global_regs
  import scenic_regs_pkg::*;
#(
    parameter int unsigned SCU_SLOTS = 4,
    parameter int unsigned CC_SLOTS = 2,
    parameter int unsigned CC_MAX_FLOWS = 1024,
    parameter int unsigned PORTS = 1,
    parameter longint unsigned CLOCK_HZ = 64'd391_000_000,
    parameter longint unsigned LINE_RATE_BPS = 64'd200_000_000_000,
    parameter logic [63:0] FEATURES = 64'h0000_0000_0000_0508,  // F_STAGE_WINDOW, F_STEER_ROCE, F_JUMBO
    parameter logic [63:0] INSTANCE = 64'h0000_0000_6d69_7376,  // "vsim"
    // One clock period in ns, 32.32 fixed point (391 MHz: 2.5575 ns).
    parameter logic [63:0] NS_STEP = 64'd10984571090
) (
    input logic clk,
    input logic rst_n,

    input  logic        reg_wr_en,
    input  logic [31:0] reg_wr_addr,
    input  logic [63:0] reg_wr_data,
    input  logic [31:0] reg_rd_addr,
    output logic [63:0] reg_rd_data,

    input logic        err_in_valid,
    input logic [15:0] err_in_code,
    input logic [31:0] err_in_addr,

    output logic        reset_pulse,
    output logic [63:0] now_ns
);
  localparam logic [63:0] MAGIC_VALUE = 64'h0000_4349_4E45_4353;  // "SCENIC\0\0"
  localparam logic [63:0] VERSION_VALUE = 64'h0001_0000;
  localparam logic [63:0] BAR_BYTES_VALUE = 64'h200_0000;
  localparam logic [7:0] RESET_OPCODE = 8'h52;
  localparam logic [39:0] RESET_KEY = 40'h45_5345;

  logic [63:0] scratch, host_fence, dev_fence, error_word, reset_result;
  logic [95:0] ns_acc;
  logic [63:0] heartbeat;

  assign now_ns = ns_acc[95:32];

  // The identity and read-only registers, by offset.
  function automatic logic is_ro(input logic [31:0] a);
    return a == REG_MAGIC || a == REG_VERSION || a == REG_SLOTS || a == REG_CLOCK_HZ ||
        a == REG_LINE_RATE_BPS || a == REG_FEATURES || a == REG_STATUS || a == REG_ERROR ||
        a == REG_DEV_FENCE || a == REG_POLL_NS || a == REG_NOW_NS || a == REG_BAR_BYTES ||
        a == REG_HEARTBEAT || a == REG_RESET_RESULT || a == REG_INSTANCE;
  endfunction

  // {status, detail, seq} of a RESET command word (§1.2).
  function automatic logic [63:0] reset_answer(input logic [63:0] cmd);
    logic [15:0] seq;
    logic [15:0] status;
    seq = cmd[63:48];
    if (seq == 16'd0) status = E_SEQ;
    else if (cmd[7:0] != RESET_OPCODE) status = E_BAD_COMMAND;
    else if (cmd[47:8] != RESET_KEY) status = E_RESET_KEY;
    else status = OK;
    return {seq, 32'd0, status};
  endfunction

  wire ro_write = reg_wr_en && is_ro(reg_wr_addr);
  wire reset_write = reg_wr_en && reg_wr_addr == REG_RESET && reg_wr_data != 64'd0;
  wire [63:0] reset_word = reset_answer(reg_wr_data);
  wire reset_taken = reset_write && reset_word[15:0] == OK;
  wire [95:0] ns_next = ns_acc + {32'd0, NS_STEP};

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      scratch <= '0;
      host_fence <= '0;
      dev_fence <= '0;
      error_word <= '0;
      reset_result <= '0;
      ns_acc <= '0;
      heartbeat <= '0;
      reset_pulse <= 1'b0;
    end else begin
      ns_acc <= ns_next;
      // §1.6: at least every millisecond; here every 2^10 ns of device time.
      if (ns_acc[42] != ns_next[42]) heartbeat <= heartbeat + 64'd1;
      reset_pulse <= reset_taken;
      dev_fence <= host_fence;
      if (reg_wr_en && reg_wr_addr == REG_SCRATCH) scratch <= reg_wr_data;
      if (reg_wr_en && reg_wr_addr == REG_HOST_FENCE) host_fence <= reg_wr_data;
      if (reset_write) reset_result <= reset_word;
      if (reset_taken) begin
        // §2.2: RW registers back to their reset values, SCRATCH included.
        scratch <= '0;
        host_fence <= '0;
      end
      if (ro_write) begin
        error_word <= {error_word[63:48] + 16'd1, reg_wr_addr, E_READ_ONLY};
      end else if (err_in_valid) begin
        error_word <= {error_word[63:48] + 16'd1, err_in_addr, err_in_code};
      end
    end
  end

  always_comb begin
    unique case (reg_rd_addr)
      REG_MAGIC: reg_rd_data = MAGIC_VALUE;
      REG_VERSION: reg_rd_data = VERSION_VALUE;
      REG_SLOTS:
      reg_rd_data = {24'd0, 8'(PORTS), 16'(CC_MAX_FLOWS), 8'(CC_SLOTS), 8'(SCU_SLOTS)};
      REG_CLOCK_HZ: reg_rd_data = CLOCK_HZ;
      REG_LINE_RATE_BPS: reg_rd_data = LINE_RATE_BPS;
      REG_FEATURES: reg_rd_data = FEATURES;
      REG_STATUS: reg_rd_data = 64'd1;  // READY; a reset completes within its cycle
      REG_ERROR: reg_rd_data = error_word;
      REG_SCRATCH: reg_rd_data = scratch;
      REG_RESET: reg_rd_data = 64'd0;
      REG_HOST_FENCE: reg_rd_data = host_fence;
      REG_DEV_FENCE: reg_rd_data = dev_fence;
      REG_POLL_NS: reg_rd_data = 64'd0;
      REG_NOW_NS: reg_rd_data = now_ns;
      REG_BAR_BYTES: reg_rd_data = BAR_BYTES_VALUE;
      REG_HEARTBEAT: reg_rd_data = heartbeat;
      REG_RESET_RESULT: reg_rd_data = reset_result;
      REG_INSTANCE: reg_rd_data = INSTANCE;
      default: reg_rd_data = 64'd0;
    endcase
  end
endmodule
