// firewall.cpp: examples/firewall.sn driven from C++ by name, on a wired emulated NIC (frames on
// an in-process wire, no root). Usage: firewall MAP_PATH PACKAGE_DIR. It prints each check and
// exits 0 only when every one holds; the expectations are what firewall.sn says it does: every
// IPv4 packet counted in `by_pod` at its source's second octet, a UDP packet to port 5000 sent to
// the host unchanged (no constant entry matches; class 0's bucket is far larger than this
// traffic), a `deny` entry dropping the packet and counting it in `dropped`.
#include <scenic/scenic.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const std::string &what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
    if (!ok) ++failures;
}

// RFC 1071: the one's-complement sum of 16-bit words, complemented.
std::uint16_t checksum(const std::vector<std::uint8_t> &b, std::size_t from, std::size_t n) {
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < n; i += 2) sum += std::uint32_t(b[from + i]) << 8 | b[from + i + 1];
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >> 16);
    return std::uint16_t(~sum);
}

// Ethernet II + IPv4 (RFC 791, header checksum) + UDP (RFC 768, checksum 0) from 10.pod.1.1 to
// 10.200.1.1 port 5000 with 64 bytes of payload: 106 bytes.
std::vector<std::uint8_t> udp_frame(std::uint8_t pod) {
    std::vector<std::uint8_t> f = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00,
                                   0x45, 0, 0, 92, 0, 0, 0, 0, 64, 17, 0, 0,
                                   10, pod, 1, 1, 10, 200, 1, 1,
                                   0x9c, 0x40, 0x13, 0x88, 0, 72, 0, 0};
    f.resize(f.size() + 64, 0);
    std::uint16_t c = checksum(f, 14, 20);
    f[24] = std::uint8_t(c >> 8);
    f[25] = std::uint8_t(c);
    return f;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s MAP_PATH PACKAGE_DIR\n", argv[0]);
        return 2;
    }
    try {
        scenic::Emulator emu(argv[1], 1);
        scenic::Device dev(emu.device());
        dev.reconfigure_app(0, argv[2]);
        dev.set_slow_path(0);
        scenic::Thread fw = dev.thread(0);

        const auto allowed = udp_frame(7);
        for (int i = 0; i < 5; ++i) emu.send(allowed);
        int delivered = 0;
        while (auto f = emu.receive(500000000)) {
            delivered += (*f == allowed);
            if (delivered == 5) break;
        }
        expect(delivered == 5, "five allowed frames reach the host unchanged");
        auto pod7 = fw.counter("by_pod", 7);
        expect(pod7.first == 5 && pod7.second == 5 * 106, "by_pod[7] counts 5 packets, 530 bytes");

        std::uint32_t h = fw.table_add("acl", {"10.3.0.0/16", "_", "_", "_"}, "deny", {}, 10);
        emu.send(udp_frame(3));
        emu.send(allowed);
        auto first = emu.receive(2000000000);
        expect(first && *first == allowed, "the allowed frame still comes out");
        expect(!emu.receive(50000000), "the denied frame does not");
        expect(fw.csr("dropped") == 1, "dropped counts the denied frame");
        expect(fw.counter("by_pod", 3).first == 1, "by_pod counts the denied frame too");

        fw.table_remove("acl", h);
        emu.send(udp_frame(3));
        auto back = emu.receive(2000000000);
        expect(back && *back == udp_frame(3), "removing the entry restores pod 3");

        try {
            fw.table_add("acl", {"10.3.0.0/16", "_", "_", "_"}, "dney");
            expect(false, "an unknown action is refused");
        } catch (const scenic::Error &e) {
            expect(std::string(e.what()).find("dney") != std::string::npos,
                   std::string("an unknown action is refused: ") + e.what());
        }
        try {
            fw.set_csr("dropped", 0);
            expect(false, "a readonly CSR is refused");
        } catch (const scenic::Error &e) {
            expect(std::string(e.what()).find("readonly") != std::string::npos,
                   std::string("a readonly CSR is refused: ") + e.what());
        }
        auto notes = fw.notifications(50000000);
        expect(!notes.empty() && notes[0].target == 1,
               "`every 1ms` notifies the Arm cores (target 1)");
    } catch (const scenic::Error &e) {
        std::printf("FAILED: %s\n", e.what());
        return 1;
    }
    return failures == 0 ? 0 : 1;
}
