// tb: the conformance bench's device. The shell glue's register blocks behind one register port
// at device.md byte offsets, driven by main.cpp, which reads runtime/tests/conformance/*.scn (the
// scenarios the emulated NIC passes) through tb/common/scn.hpp.
//
// Port: `wr_en/addr/wdata` one aligned 64-bit write; `rd_en/addr` -> `rdata` on the next edge
// (registered, as an AXI-Lite front would register it). One access at a time.
module tb
  import scenic_regs_pkg::*;
(
    input logic clk,
    input logic rst_n,

    input  logic        wr_en,
    input  logic        rd_en,
    input  logic [31:0] addr,
    input  logic [63:0] wdata,
    output logic [63:0] rdata
);
  logic [63:0] global_rd;
  logic reset_pulse;
  logic [63:0] now_ns;

  wire in_global = addr < 32'h1000;

  scenic_global_regs #(
      .SCU_SLOTS(4),
      .CC_SLOTS(2)
  ) global_regs (
      .clk(clk),
      .rst_n(rst_n),
      .reg_wr_en(wr_en && in_global),
      .reg_wr_addr(addr),
      .reg_wr_data(wdata),
      .reg_rd_addr(addr),
      .reg_rd_data(global_rd),
      .err_in_valid(1'b0),
      .err_in_code(16'd0),
      .err_in_addr(32'd0),
      .reset_pulse(reset_pulse),
      .now_ns(now_ns)
  );

  always_ff @(posedge clk) begin
    if (!rst_n) rdata <= '0;
    else if (rd_en) rdata <= in_global ? global_rd : 64'd0;
  end

  // reset_pulse and now_ns drive the other blocks once they are here.
  wire unused = reset_pulse ^ ^now_ns;
endmodule
