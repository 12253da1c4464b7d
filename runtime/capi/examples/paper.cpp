// The paper's runtime example in C++ (docs/cpp.md), against an emulated device in this process:
//   paper MAP_PATH PKGDIR     (PKGDIR: `scenicc build examples/xor_cipher.sn -o PKGDIR`)
// Prints what it checks and exits 0 when every check holds, 1 otherwise.
#include <cstdio>
#include <scenic/scenic.hpp>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s MAP_PATH PKGDIR\n", argv[0]);
        return 2;
    }
    try {
        scenic::Emulator emu(argv[1]);
        scenic::Device dev(emu.device());
        dev.reconfigure_app(2, argv[2]);
        scenic::Thread scenic_thread = dev.thread(2);
        scenic_thread.set_csr(0x9f3c7a2b6e41d8c5, 0);  // the encryption key, CSR offset 0
        bool key_ok = scenic_thread.get_csr(0) == 0x9f3c7a2b6e41d8c5;
        bool idle_ok = scenic_thread.get_completed("remote_write") == 0;  // no traffic reached it
        bool refused = false;
        try {
            scenic_thread.set_csr(1, 2);  // words_ciphered: readonly
        } catch (const scenic::Error &e) {
            refused = std::string(e.what()).find("readonly") != std::string::npos;
            std::printf("refused as expected: %s\n", e.what());
        }
        dev.reconfigure_app(2, argv[2]);  // a running slot: a swap that carries the key
        bool carried = scenic_thread.get_csr(0) == 0x9f3c7a2b6e41d8c5;
        std::printf("key %s, remote_write %s, readonly %s, carried %s\n", key_ok ? "ok" : "WRONG",
                    idle_ok ? "ok" : "WRONG", refused ? "ok" : "WRONG", carried ? "ok" : "WRONG");
        return key_ok && idle_ok && refused && carried ? 0 : 1;
    } catch (const scenic::Error &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
