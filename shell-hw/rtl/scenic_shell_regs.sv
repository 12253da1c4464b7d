// scenic_shell_regs: the register front of the shell glue. One AXI-Lite slave (64-bit data) that
// takes the host's accesses at docs/device.md byte offsets and hands each to the block that owns
// it, so that the map a host sees on the card is the one the emulator shows.
//
// Owns: the decode of the map (§2.1, §3.1) and, per SCU slot, ARB_WEIGHT (§3.2; reset 1) and
// SLOT_INFO. Everything else belongs to the blocks behind it:
//   - page 0x0000..0x0FFF (identity, status, fence): `pg_*` with pg_sel = 0 (scenic_global_regs);
//   - page 0x1000..0x1FFF (steering): pg_sel = 1 (scenic_steer_table);
//   - page 0x4000..0x4FFF (CC selection): pg_sel = 2 (scenic_cc_switch);
//   - slot block k < SCU_SLOTS, bytes +0x20000..+0x2FFFF: the CSR window, forwarded on the
//     k-th AXI-Lite master `m_axil_*` (address relative to the window, as Coyote's user window)
//     to scenic_csr_bridge k, whose response (SLVERR for a refused write) is passed back;
//   - slot block k, SLOT_ERROR: `slot_error[k]` of that bridge.
//   Unnamed addresses read 0 and ignore writes (§1.2, reserved).
//
// Page port: `pg_wr_en` a one-cycle write; `pg_rd_en` a read strobe, the data taken from the
// selected `*_rd_data` one cycle later (blocks that answer combinationally hold it while the
// address is held; scenic_cc_switch answers one cycle after its strobe).
//
// Invariants: one host access at a time (AW and W are taken together); a write reaches its block
// before its B response, so the fence pair of §1.3 orders every earlier write; a write whose
// strobes are not all set (not an aligned 64-bit write, §1.3) changes nothing and answers SLVERR.
// Timing: a page write 2 cycles to B, a page read 3 cycles to R; a CSR access the bridge's latency
// plus 2.
module scenic_shell_regs
  import scenic_regs_pkg::*;
#(
    parameter int unsigned SCU_SLOTS = 4,
    parameter int unsigned ADDR_W = 25
) (
    input logic aclk,
    input logic aresetn,

    input  logic [ADDR_W-1:0] s_axil_awaddr,
    input  logic              s_axil_awvalid,
    output logic              s_axil_awready,
    input  logic [      63:0] s_axil_wdata,
    input  logic [       7:0] s_axil_wstrb,
    input  logic              s_axil_wvalid,
    output logic              s_axil_wready,
    output logic [       1:0] s_axil_bresp,
    output logic              s_axil_bvalid,
    input  logic              s_axil_bready,
    input  logic [ADDR_W-1:0] s_axil_araddr,
    input  logic              s_axil_arvalid,
    output logic              s_axil_arready,
    output logic [      63:0] s_axil_rdata,
    output logic [       1:0] s_axil_rresp,
    output logic              s_axil_rvalid,
    input  logic              s_axil_rready,

    output logic [ 1:0] pg_sel,
    output logic        pg_wr_en,
    output logic        pg_rd_en,
    output logic [31:0] pg_addr,
    output logic [63:0] pg_wdata,
    input  logic [63:0] global_rd_data,
    input  logic [63:0] steer_rd_data,
    input  logic [63:0] cc_rd_data,

    output logic [SCU_SLOTS-1:0][15:0] m_axil_awaddr,
    output logic [SCU_SLOTS-1:0]       m_axil_awvalid,
    input  logic [SCU_SLOTS-1:0]       m_axil_awready,
    output logic [SCU_SLOTS-1:0][63:0] m_axil_wdata,
    output logic [SCU_SLOTS-1:0][ 7:0] m_axil_wstrb,
    output logic [SCU_SLOTS-1:0]       m_axil_wvalid,
    input  logic [SCU_SLOTS-1:0]       m_axil_wready,
    input  logic [SCU_SLOTS-1:0][ 1:0] m_axil_bresp,
    input  logic [SCU_SLOTS-1:0]       m_axil_bvalid,
    output logic [SCU_SLOTS-1:0]       m_axil_bready,
    output logic [SCU_SLOTS-1:0][15:0] m_axil_araddr,
    output logic [SCU_SLOTS-1:0]       m_axil_arvalid,
    input  logic [SCU_SLOTS-1:0]       m_axil_arready,
    input  logic [SCU_SLOTS-1:0][63:0] m_axil_rdata,
    input  logic [SCU_SLOTS-1:0][ 1:0] m_axil_rresp,
    input  logic [SCU_SLOTS-1:0]       m_axil_rvalid,
    output logic [SCU_SLOTS-1:0]       m_axil_rready,

    input  logic [SCU_SLOTS-1:0][63:0] slot_error,
    output logic [SCU_SLOTS-1:0][ 7:0] arb_weight
);
  typedef enum logic [2:0] {
    IDLE,
    PAGE_READ,
    CSR_WRITE,
    CSR_READ,
    RESP_B,
    RESP_R
  } state_t;

  // Where an address goes.
  typedef enum logic [2:0] {
    T_NONE,
    T_PAGE,
    T_CSR,
    T_SLOT_REG
  } target_t;

  localparam int unsigned SLOT_W = SCU_SLOTS > 1 ? $clog2(SCU_SLOTS) : 1;

  state_t state;
  logic [ADDR_W-1:0] a;
  logic [63:0] data;
  logic [SLOT_W-1:0] slot;
  logic [1:0] resp;
  logic aw_done, w_done;

  // The block an address belongs to, the page select, the slot and the offset in its block.
  function automatic target_t decode(input logic [ADDR_W-1:0] addr);
    logic [ADDR_W-1:0] block;
    if (addr < ADDR_W'(32'h1000)) return T_PAGE;
    if (addr < ADDR_W'(32'h2000)) return T_PAGE;
    if (addr >= ADDR_W'(32'h4000) && addr < ADDR_W'(32'h5000)) return T_PAGE;
    if (addr < ADDR_W'(SLOT_BLOCK_BASE)) return T_NONE;
    if (addr >= ADDR_W'(SLOT_BLOCK_BASE + SCU_SLOTS * SLOT_BLOCK_STRIDE)) return T_NONE;
    block = (addr - ADDR_W'(SLOT_BLOCK_BASE)) % ADDR_W'(SLOT_BLOCK_STRIDE);
    if (block >= ADDR_W'(CSR_WINDOW) && block < ADDR_W'(CSR_WINDOW + 8 * CSR_WINDOW_WORDS))
      return T_CSR;
    if (block < ADDR_W'(32'h1000)) return T_SLOT_REG;
    return T_NONE;
  endfunction

  function automatic logic [SLOT_W-1:0] slot_of(input logic [ADDR_W-1:0] addr);
    return SLOT_W'((addr - ADDR_W'(SLOT_BLOCK_BASE)) / ADDR_W'(SLOT_BLOCK_STRIDE));
  endfunction

  function automatic logic [ADDR_W-1:0] in_block(input logic [ADDR_W-1:0] addr);
    return (addr - ADDR_W'(SLOT_BLOCK_BASE)) % ADDR_W'(SLOT_BLOCK_STRIDE);
  endfunction

  function automatic logic [1:0] page_of(input logic [ADDR_W-1:0] addr);
    if (addr < ADDR_W'(32'h1000)) return 2'd0;
    if (addr < ADDR_W'(32'h2000)) return 2'd1;
    return 2'd2;
  endfunction

  assign s_axil_awready = state == IDLE && s_axil_awvalid && s_axil_wvalid;
  assign s_axil_wready = s_axil_awready;
  assign s_axil_arready = state == IDLE && !(s_axil_awvalid && s_axil_wvalid) && s_axil_arvalid;
  assign s_axil_bvalid = state == RESP_B;
  assign s_axil_bresp = resp;
  assign s_axil_rvalid = state == RESP_R;
  assign s_axil_rresp = resp;
  assign s_axil_rdata = data;

  assign pg_addr = 32'(a);
  assign pg_wdata = data;
  assign pg_sel = page_of(a);

  // The forwarded CSR window access of the slot being served.
  wire [15:0] window_addr = 16'(in_block(a) - ADDR_W'(CSR_WINDOW));
  always_comb begin
    for (int k = 0; k < SCU_SLOTS; k++) begin
      m_axil_awaddr[k] = window_addr;
      m_axil_wdata[k] = data;
      m_axil_wstrb[k] = 8'hFF;
      m_axil_araddr[k] = window_addr;
      m_axil_awvalid[k] = state == CSR_WRITE && SLOT_W'(k) == slot && !aw_done;
      m_axil_wvalid[k] = state == CSR_WRITE && SLOT_W'(k) == slot && !w_done;
      m_axil_bready[k] = state == CSR_WRITE && SLOT_W'(k) == slot && aw_done && w_done;
      m_axil_arvalid[k] = state == CSR_READ && SLOT_W'(k) == slot && !aw_done;
      m_axil_rready[k] = state == CSR_READ && SLOT_W'(k) == slot && aw_done;
    end
  end

  // A slot block's own registers (§3.2) this front answers.
  function automatic logic [63:0] slot_reg(input logic [ADDR_W-1:0] addr,
                                           input logic [SLOT_W-1:0] k);
    logic [ADDR_W-1:0] off;
    off = in_block(addr);
    if (off == ADDR_W'(SLOT_REG_SLOT_INFO)) return {48'd0, 8'(k), 8'd1};
    if (off == ADDR_W'(SLOT_REG_SLOT_ERROR)) return slot_error[k];
    if (off == ADDR_W'(SLOT_REG_ARB_WEIGHT)) return {56'd0, arb_weight[k]};
    return 64'd0;
  endfunction

  always_ff @(posedge aclk) begin
    if (!aresetn) begin
      state <= IDLE;
      a <= '0;
      data <= '0;
      slot <= '0;
      resp <= 2'b00;
      aw_done <= 1'b0;
      w_done <= 1'b0;
      pg_wr_en <= 1'b0;
      pg_rd_en <= 1'b0;
      for (int k = 0; k < SCU_SLOTS; k++) arb_weight[k] <= 8'd1;
    end else begin
      pg_wr_en <= 1'b0;
      pg_rd_en <= 1'b0;
      unique case (state)
        IDLE: begin
          resp <= 2'b00;
          aw_done <= 1'b0;
          w_done <= 1'b0;
          if (s_axil_awvalid && s_axil_wvalid) begin
            a <= s_axil_awaddr;
            data <= s_axil_wdata;
            slot <= slot_of(s_axil_awaddr);
            if (s_axil_wstrb != 8'hFF) begin
              // §1.3: registers take aligned 64-bit writes only; a partial one changes nothing.
              resp <= 2'b10;
              state <= RESP_B;
            end else unique case (decode(s_axil_awaddr))
              T_PAGE: begin
                pg_wr_en <= 1'b1;
                state <= RESP_B;
              end
              T_CSR: state <= CSR_WRITE;
              T_SLOT_REG: begin
                if (in_block(s_axil_awaddr) == ADDR_W'(SLOT_REG_ARB_WEIGHT))
                  arb_weight[slot_of(s_axil_awaddr)] <= s_axil_wdata[7:0];
                state <= RESP_B;
              end
              default: state <= RESP_B;
            endcase
          end else if (s_axil_arvalid) begin
            a <= s_axil_araddr;
            slot <= slot_of(s_axil_araddr);
            unique case (decode(s_axil_araddr))
              T_PAGE: begin
                pg_rd_en <= 1'b1;
                state <= PAGE_READ;
              end
              T_CSR: state <= CSR_READ;
              T_SLOT_REG: begin
                data <= slot_reg(s_axil_araddr, slot_of(s_axil_araddr));
                state <= RESP_R;
              end
              default: begin
                data <= 64'd0;
                state <= RESP_R;
              end
            endcase
          end
        end
        PAGE_READ: begin
          // One cycle after the strobe: every block's answer is there.
          if (!pg_rd_en) begin
            unique case (pg_sel)
              2'd0: data <= global_rd_data;
              2'd1: data <= steer_rd_data;
              default: data <= cc_rd_data;
            endcase
            state <= RESP_R;
          end
        end
        CSR_WRITE: begin
          if (m_axil_awready[slot]) aw_done <= 1'b1;
          if (m_axil_wready[slot]) w_done <= 1'b1;
          if (aw_done && w_done && m_axil_bvalid[slot]) begin
            resp <= m_axil_bresp[slot];
            state <= RESP_B;
          end
        end
        CSR_READ: begin
          if (!aw_done && m_axil_arready[slot]) aw_done <= 1'b1;
          if (aw_done && m_axil_rvalid[slot]) begin
            data <= m_axil_rdata[slot];
            resp <= m_axil_rresp[slot];
            state <= RESP_R;
          end
        end
        RESP_B: if (s_axil_bready) state <= IDLE;
        RESP_R: if (s_axil_rready) state <= IDLE;
        default: state <= IDLE;
      endcase
    end
  end
endmodule
