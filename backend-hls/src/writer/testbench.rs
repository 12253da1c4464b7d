//! The C-simulation testbench (`<top>_tb.cpp`): links the kernel and speaks a line protocol on
//! stdin/stdout, so that `scenic_hls_csim::CsimDevice` (or a person) can drive it.
//!
//! One request per line; every answer ends with `done`:
//!
//! - `time <ns>`: sets `now_ns`, runs the kernel once (due `every` blocks run) →
//!   `notify <to_arm> <value>`* `done`
//! - `packet <port> <ts_ns> <hex>`: the packet's beats into `net_in`, its record into
//!   `net_in_meta`, `now_ns` = ts; runs the kernel until the packet is consumed, then drains every
//!   output → `out net <port> <hex>` | `out host 0 <hex>` | `out scu <k> <hex>` *,
//!   `notify <to_arm> <value>`*, `done` (`-` is an empty byte string)
//! - `ctrl <op> <target> <index> <hexdata>`: one control request → `resp <status> <hexdata>` `done`
//! - `quit`
//!
//! Numbers are decimal, byte strings and control data hexadecimal (data most significant digit
//! first). Malformed input gives `error <message>` then `done`, never a crash.

pub mod stream;

use crate::writer::ScuWriter;

const TB: &str = r#"#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace @NS@;

static hls::stream<axis512> net_in("net_in");
static hls::stream<ap_uint<128> > net_in_meta("net_in_meta");
static hls::stream<axis512> net_out("net_out");
static hls::stream<ap_uint<64> > net_out_meta("net_out_meta");
static hls::stream<axis512> host_out("host_out");
static hls::stream<axis512> scu_out("scu_out");
static hls::stream<ap_uint<64> > scu_out_meta("scu_out_meta");
static hls::stream<ap_uint<64> > notify_out("notify_out");
static hls::stream<ctrl_req_t> ctrl_in("ctrl_in");
static hls::stream<ctrl_resp_t> ctrl_out("ctrl_out");
static ap_uint<64> now = 0;

static void run() {
    @TOP@(net_in, net_in_meta, net_out, net_out_meta, host_out, scu_out, scu_out_meta, notify_out,
          ctrl_in, ctrl_out, now);
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A byte string; "-" is empty.
static bool parse_bytes(const std::string& s, std::vector<unsigned char>& out) {
    out.clear();
    if (s == "-") return true;
    if (s.empty() || s.size() % 2 != 0) return false;
    for (size_t i = 0; i < s.size(); i += 2) {
        int hi = nibble(s[i]);
        int lo = nibble(s[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out.push_back((unsigned char)(hi * 16 + lo));
    }
    return true;
}

static std::string hex_bytes(const std::vector<unsigned char>& bytes) {
    if (bytes.empty()) return "-";
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < bytes.size(); i++) {
        s += digits[bytes[i] >> 4];
        s += digits[bytes[i] & 15];
    }
    return s;
}

@NUMBERS@
// Drains the packets of one output stream (and its records, if any).
static void drain(hls::stream<axis512>& s, const char* kind, hls::stream<ap_uint<64> >* meta) {
    while (!s.empty()) {
        std::vector<unsigned char> bytes;
        bool last = false;
        for (int guard = 0; !last && guard < 1 << 20 && !s.empty(); guard++) {
            axis512 b = s.read();
            for (int lane = 0; lane < 64; lane++) {
                if (b.keep[lane]) bytes.push_back((unsigned char)(unsigned)ap_uint<8>(b.data.range(8 * lane + 7, 8 * lane)));
            }
            last = b.last == 1;
        }
        unsigned long long n = 0;
        if (meta != 0 && !meta->empty()) n = (unsigned long long)meta->read();
        std::cout << "out " << kind << " " << n << " " << hex_bytes(bytes) << "\n";
    }
}

static void drain_notes() {
    while (!notify_out.empty()) {
        ap_uint<64> r = notify_out.read();
        std::cout << "notify " << (unsigned)r[32] << " " << (unsigned long long)r.range(31, 0) << "\n";
    }
}

static void packet(std::istringstream& in) {
    std::string port_s, ts_s, hex;
    unsigned long long port = 0, ts = 0;
    std::vector<unsigned char> bytes;
    if (!(in >> port_s >> ts_s >> hex) || !parse_u64(port_s, port) || port > 255 ||
        !parse_u64(ts_s, ts) || !parse_bytes(hex, bytes)) {
        std::cout << "error usage: packet <port 0-255> <ts_ns> <hex|->\n";
        return;
    }
    if (bytes.size() > (size_t)MAX_PACKET_BYTES) {
        std::cout << "error packet of " << bytes.size() << " bytes is over the kernel's limit of "
                  << MAX_PACKET_BYTES << " bytes\n";
        return;
    }
    ap_uint<128> meta = 0;
    meta.range(63, 0) = ap_uint<64>(ts);
    meta.range(71, 64) = ap_uint<8>(port);
    net_in_meta.write(meta);
    size_t beats = bytes.empty() ? 1 : (bytes.size() + 63) / 64;
    for (size_t b = 0; b < beats; b++) {
        axis512 beat;
        for (int lane = 0; lane < 64; lane++) {
            size_t i = b * 64 + lane;
            if (i < bytes.size()) {
                beat.data.range(8 * lane + 7, 8 * lane) = bytes[i];
                beat.keep[lane] = 1;
            }
        }
        beat.strb = beat.keep;
        beat.last = b + 1 == beats ? 1 : 0;
        net_in.write(beat);
    }
    now = ap_uint<64>(ts);
    run();
    for (int guard = 0; guard < 16 && !net_in.empty(); guard++) run();
    drain(net_out, "net", &net_out_meta);
    drain(host_out, "host", 0);
    drain(scu_out, "scu", &scu_out_meta);
    drain_notes();
}

@CTRL_AND_MAIN@"#;

/// The decimal and hexadecimal readers and writers every testbench (scu, stream, cc) shares,
/// spliced in at `@NUMBERS@`.
pub(crate) const NUMBERS: &str = r#"static bool parse_u64(const std::string& s, unsigned long long& v) {
    if (s.empty() || s.size() > 20) return false;
    v = 0;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        unsigned long long d = (unsigned long long)(s[i] - '0');
        if (v > (18446744073709551615ULL - d) / 10) return false;
        v = v * 10 + d;
    }
    return true;
}

template <int W>
static bool parse_wide(const std::string& s, ap_uint<W>& v) {
    v = 0;
    if (s.empty() || s.size() > (size_t)((W + 3) / 4)) return false;
    for (size_t i = 0; i < s.size(); i++) {
        int n = nibble(s[i]);
        if (n < 0) return false;
        v = (v << 4) | ap_uint<W>(n);
    }
    return true;
}

template <int W>
static std::string hex_wide(const ap_uint<W>& v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (int i = (W + 3) / 4 - 1; i >= 0; i--) {
        int lo = 4 * i;
        int hi = lo + 3 < W ? lo + 3 : W - 1;
        int n = int(ap_uint<4>(v.range(hi, lo)));
        if (s.empty() && n == 0) continue;
        s += digits[n];
    }
    return s.empty() ? "0" : s;
}
"#;

/// The `ctrl` command and the request loop of the scu and stream testbenches, spliced in at
/// `@CTRL_AND_MAIN@`; `@CMD@` is the kernel's own input command (`packet` or `word`), whose
/// handler has the same name.
const CTRL_AND_MAIN: &str = r#"static void ctrl(std::istringstream& in) {
    std::string op_s, target_s, index_s, data_s;
    unsigned long long op = 0, target = 0, index = 0;
    ap_uint<CTRL_DATA_BITS> data = 0;
    if (!(in >> op_s >> target_s >> index_s >> data_s) || !parse_u64(op_s, op) || op > 255 ||
        !parse_u64(target_s, target) || target > 65535 || !parse_u64(index_s, index) ||
        index > 4294967295ULL || !parse_wide(data_s, data)) {
        std::cout << "error usage: ctrl <op> <target> <index> <hexdata>\n";
        return;
    }
    ctrl_req_t req = 0;
    req.range(CTRL_DATA_BITS - 1, 0) = data;
    req.range(CTRL_DATA_BITS + 31, CTRL_DATA_BITS) = ap_uint<32>(index);
    req.range(CTRL_DATA_BITS + 47, CTRL_DATA_BITS + 32) = ap_uint<16>(target);
    req.range(CTRL_DATA_BITS + 55, CTRL_DATA_BITS + 48) = ap_uint<8>(op);
    ctrl_in.write(req);
    run();
    if (ctrl_out.empty()) {
        std::cout << "error the kernel gave no response\n";
        return;
    }
    ctrl_resp_t resp = ctrl_out.read();
    ap_uint<CTRL_DATA_BITS> out = resp.range(CTRL_DATA_BITS - 1, 0);
    std::cout << "resp " << (unsigned)resp.range(CTRL_DATA_BITS + 7, CTRL_DATA_BITS) << " "
              << hex_wide(out) << "\n";
    drain_notes();
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        in >> cmd;
        if (cmd.empty()) continue;
        if (cmd == "quit") break;
        if (cmd == "time") {
            std::string t;
            unsigned long long ns = 0;
            if (!(in >> t) || !parse_u64(t, ns)) {
                std::cout << "error usage: time <ns>\n";
            } else {
                now = ap_uint<64>(ns);
                run();
                drain_notes();
            }
        } else if (cmd == "@CMD@") {
            @CMD@(in);
        } else if (cmd == "ctrl") {
            ctrl(in);
        } else {
            std::cout << "error unknown command: " << cmd << "\n";
        }
        std::cout << "done" << std::endl;
    }
    return 0;
}
"#;

/// [`CTRL_AND_MAIN`] for a testbench whose input command (and handler) is `command`.
pub(crate) fn ctrl_and_main(command: &str) -> String {
    CTRL_AND_MAIN.replace("@CMD@", command)
}

/// The testbench of one scu's kernel.
pub fn write(w: &ScuWriter<'_>) -> String {
    let head = format!(
        "// {top}_tb.cpp: the C-simulation testbench of kernel `{top}` (scu `{scu}`, {file}),\n\
         // generated by scenicc. Do not edit. Line protocol on stdin/stdout (backend-hls/src/writer/testbench.rs):\n\
         //   time <ns>                        -> notify <to_arm> <value>* done\n\
         //   packet <port> <ts_ns> <hex|->    -> out net|host|scu <n> <hex|->* notify ...* done\n\
         //   ctrl <op> <target> <index> <hex> -> resp <status> <hex> done\n\
         //   quit\n\
         #include \"{top}.hpp\"\n",
        top = w.names.top,
        scu = w.scu.name,
        file = w.module.source_name,
    );
    head + &TB
        .replace("@NUMBERS@", NUMBERS)
        .replace("@CTRL_AND_MAIN@", &ctrl_and_main("packet"))
        .replace("@NS@", &w.names.ns)
        .replace("@TOP@", &w.names.top)
}
