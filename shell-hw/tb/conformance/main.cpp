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
        top->clk = 0;
        top->eval();
        top->clk = 1;
        top->eval();
        ++cycles;
    }
    void reset() override {
        top->wr_en = 0;
        top->rd_en = 0;
        top->rst_n = 0;
        for (int i = 0; i < 4; ++i) tick();
        top->rst_n = 1;
        tick();
    }
    uint64_t read(uint64_t addr) override {
        top->addr = uint32_t(addr);
        top->rd_en = 1;
        tick();
        top->rd_en = 0;
        return top->rdata;
    }
    void write(uint64_t addr, uint64_t value) override {
        top->addr = uint32_t(addr);
        top->wdata = value;
        top->wr_en = 1;
        tick();
        top->wr_en = 0;
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
