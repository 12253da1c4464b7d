// The conformance bench: runtime/tests/conformance/*.scn, the register scenarios the emulated NIC
// passes (runtime/tests/conformance.rs), run on the shell glue's register blocks in Verilator.
// A file whose scenarios need blocks this build lacks is listed in SKIPPED with the reason.
#include <cstdio>
#include <memory>
#include <string>

#include "Vtb.h"
#include "scn.hpp"
#include "verilated.h"

namespace {

struct Glue : scn::Device {
    std::unique_ptr<Vtb> top{new Vtb};
    uint64_t cycles = 0;

    void tick() {
        top->aclk = 0;
        top->eval();
        top->aclk = 1;
        top->eval();
        ++cycles;
    }
    void reset() override {
        top->s_axil_awvalid = 0;
        top->s_axil_wvalid = 0;
        top->s_axil_arvalid = 0;
        top->s_axil_bready = 0;
        top->s_axil_rready = 0;
        top->aresetn = 0;
        for (int i = 0; i < 4; ++i) tick();
        top->aresetn = 1;
        tick();
    }
    // One AXI-Lite read: AR, then R.
    uint64_t read(uint64_t addr) override {
        top->s_axil_araddr = uint32_t(addr);
        top->s_axil_arvalid = 1;
        top->s_axil_rready = 1;
        bool taken = false;
        for (int i = 0; i < 10000; ++i) {
            top->eval();
            bool ar = top->s_axil_arvalid && top->s_axil_arready;
            bool r = top->s_axil_rvalid;
            uint64_t data = top->s_axil_rdata;
            tick();
            if (ar) {
                taken = true;
                top->s_axil_arvalid = 0;
            }
            if (taken && r) {
                top->s_axil_rready = 0;
                return data;
            }
        }
        std::printf("FAIL axi-lite: no read response at 0x%llx\n", (unsigned long long)addr);
        return ~0ull;
    }
    // One AXI-Lite write: AW and W together, then B.
    void write(uint64_t addr, uint64_t value) override {
        top->s_axil_awaddr = uint32_t(addr);
        top->s_axil_wdata = value;
        top->s_axil_wstrb = 0xFF;
        top->s_axil_awvalid = 1;
        top->s_axil_wvalid = 1;
        top->s_axil_bready = 1;
        bool taken = false;
        for (int i = 0; i < 10000; ++i) {
            top->eval();
            bool aw = top->s_axil_awvalid && top->s_axil_awready;
            bool b = top->s_axil_bvalid;
            tick();
            if (aw) {
                taken = true;
                top->s_axil_awvalid = 0;
                top->s_axil_wvalid = 0;
            }
            if (taken && b) {
                top->s_axil_bready = 0;
                return;
            }
        }
        std::printf("FAIL axi-lite: no write response at 0x%llx\n", (unsigned long long)addr);
    }
    // §1.3 as the scenarios' `fence`: HOST_FENCE, then DEV_FENCE until it equals it.
    void fence() override {
        uint64_t host = 0, dev = 0;
        for (const scenic_name *n = SCENIC_GLOBAL_REGS; n->name; ++n) {
            if (std::string(n->name) == "HOST_FENCE") host = n->value;
            if (std::string(n->name) == "DEV_FENCE") dev = n->value;
        }
        uint64_t v = read(dev) + 1;
        write(host, v);
        for (int i = 0; i < 1000 && read(dev) != v; ++i) tick();
    }
    std::string load(unsigned, const std::string &) override {
        return "this build has no slots yet";
    }
    bool has(const std::string &) override { return false; }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    const std::string dir = std::string(SCENIC_REPO) + "/runtime/tests/conformance/";
    Glue glue;
    int failed = scn::run_file(dir + "global.scn", glue);
    std::printf("FIGURE conformance_cycles %llu cycles\n", (unsigned long long)glue.cycles);
    return failed == 0 ? 0 : 1;
}
