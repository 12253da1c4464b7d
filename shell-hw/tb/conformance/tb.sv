// tb: the conformance bench's device: the shell glue's register front (scenic_shell_regs, one
// AXI-Lite slave at device.md byte offsets) with the blocks behind it, driven by main.cpp, which
// runs runtime/tests/conformance/*.scn (the scenarios the emulated NIC passes) through
// tb/common/scn.hpp.
module tb
  import scenic_regs_pkg::*;
#(
    parameter int unsigned SLOTS = 4
) (
    input logic aclk,
    input logic aresetn,

    input  logic [24:0] s_axil_awaddr,
    input  logic        s_axil_awvalid,
    output logic        s_axil_awready,
    input  logic [63:0] s_axil_wdata,
    input  logic [ 7:0] s_axil_wstrb,
    input  logic        s_axil_wvalid,
    output logic        s_axil_wready,
    output logic [ 1:0] s_axil_bresp,
    output logic        s_axil_bvalid,
    input  logic        s_axil_bready,
    input  logic [24:0] s_axil_araddr,
    input  logic        s_axil_arvalid,
    output logic        s_axil_arready,
    output logic [63:0] s_axil_rdata,
    output logic [ 1:0] s_axil_rresp,
    output logic        s_axil_rvalid,
    input  logic        s_axil_rready
);
  logic [1:0] pg_sel;
  logic pg_wr_en, pg_rd_en;
  logic [31:0] pg_addr;
  logic [63:0] pg_wdata, global_rd, steer_rd, cc_rd;
  logic reset_pulse;
  logic [63:0] now_ns;

  logic [SLOTS-1:0][15:0] m_awaddr, m_araddr;
  logic [SLOTS-1:0] m_awvalid, m_awready, m_wvalid, m_wready, m_bvalid, m_bready;
  logic [SLOTS-1:0] m_arvalid, m_arready, m_rvalid, m_rready;
  logic [SLOTS-1:0][63:0] m_wdata, m_rdata, slot_error;
  logic [SLOTS-1:0][7:0] m_wstrb, arb_weight;
  logic [SLOTS-1:0][1:0] m_bresp, m_rresp;

  scenic_shell_regs #(
      .SCU_SLOTS(SLOTS)
  ) front (
      .aclk(aclk),
      .aresetn(aresetn),
      .s_axil_awaddr(s_axil_awaddr),
      .s_axil_awvalid(s_axil_awvalid),
      .s_axil_awready(s_axil_awready),
      .s_axil_wdata(s_axil_wdata),
      .s_axil_wstrb(s_axil_wstrb),
      .s_axil_wvalid(s_axil_wvalid),
      .s_axil_wready(s_axil_wready),
      .s_axil_bresp(s_axil_bresp),
      .s_axil_bvalid(s_axil_bvalid),
      .s_axil_bready(s_axil_bready),
      .s_axil_araddr(s_axil_araddr),
      .s_axil_arvalid(s_axil_arvalid),
      .s_axil_arready(s_axil_arready),
      .s_axil_rdata(s_axil_rdata),
      .s_axil_rresp(s_axil_rresp),
      .s_axil_rvalid(s_axil_rvalid),
      .s_axil_rready(s_axil_rready),
      .pg_sel(pg_sel),
      .pg_wr_en(pg_wr_en),
      .pg_rd_en(pg_rd_en),
      .pg_addr(pg_addr),
      .pg_wdata(pg_wdata),
      .global_rd_data(global_rd),
      .steer_rd_data(steer_rd),
      .cc_rd_data(cc_rd),
      .m_axil_awaddr(m_awaddr),
      .m_axil_awvalid(m_awvalid),
      .m_axil_awready(m_awready),
      .m_axil_wdata(m_wdata),
      .m_axil_wstrb(m_wstrb),
      .m_axil_wvalid(m_wvalid),
      .m_axil_wready(m_wready),
      .m_axil_bresp(m_bresp),
      .m_axil_bvalid(m_bvalid),
      .m_axil_bready(m_bready),
      .m_axil_araddr(m_araddr),
      .m_axil_arvalid(m_arvalid),
      .m_axil_arready(m_arready),
      .m_axil_rdata(m_rdata),
      .m_axil_rresp(m_rresp),
      .m_axil_rvalid(m_rvalid),
      .m_axil_rready(m_rready),
      .slot_error(slot_error),
      .arb_weight(arb_weight)
  );

  scenic_global_regs #(
      .SCU_SLOTS(SLOTS),
      .CC_SLOTS(2)
  ) global_regs (
      .clk(aclk),
      .rst_n(aresetn),
      .reg_wr_en(pg_wr_en && pg_sel == 2'd0),
      .reg_wr_addr(pg_addr),
      .reg_wr_data(pg_wdata),
      .reg_rd_addr(pg_addr),
      .reg_rd_data(global_rd),
      .err_in_valid(1'b0),
      .err_in_code(16'd0),
      .err_in_addr(32'd0),
      .reset_pulse(reset_pulse),
      .now_ns(now_ns)
  );

  // Blocks not in this build yet answer 0; their CSR windows take nothing.
  assign steer_rd = '0;
  assign cc_rd = '0;
  assign m_awready = '1;
  assign m_wready = '1;
  assign m_bvalid = '1;
  assign m_bresp = '0;
  assign m_arready = '1;
  assign m_rvalid = '1;
  assign m_rresp = '0;
  assign m_rdata = '0;
  assign slot_error = '0;

  wire unused = reset_pulse ^ ^now_ns ^ pg_rd_en ^ ^m_awaddr ^ ^m_araddr ^ ^m_awvalid ^ ^m_wvalid
      ^ ^m_bready ^ ^m_arvalid ^ ^m_rready ^ ^m_wdata ^ ^m_wstrb ^ ^arb_weight;
endmodule
