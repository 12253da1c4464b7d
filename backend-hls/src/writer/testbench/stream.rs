//! The C-simulation testbench of a stream kernel (an scu on `rdma(qp)` or `tcp(flow)`): the line
//! protocol of [`crate::writer::testbench`] with `packet` replaced by `word`.
//!
//! - `time <ns>` → `notify <to_arm> <value>`* `done`
//! - `word <flow> <now_ns> <keep> <last> <data>`: one payload word into `word_in` (`keep` in
//!   hexadecimal, bit i for byte i; `last` 0 or 1; `data` the word's 64 bytes in lane order, byte
//!   0 first, 128 hex digits) and its record into `word_in_meta`; runs the kernel until the word
//!   is consumed and the `dma` stage has been quiet for `MAX_PUSH + SLOTS + 4` invocations (it
//!   sends one beat per invocation), draining every output → `pass <hex|->`* (one per word passed on: its valid
//!   bytes), `dma <out> <element> <hex>`* (one per DMA transfer: its bytes), `notify ...`*, `done`
//! - `ctrl <op> <target> <index> <hexdata>` → `resp <status> <hexdata>` `done`
//! - `quit`
//!
//! Invariants: malformed input gives `error <message>` then `done`, never a crash; a flow wider
//! than the record's 24 bits is refused rather than truncated, so the testbench never runs a word
//! the interpreter would see differently.

use crate::writer::ScuWriter;

const TB: &str = r#"#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace @NS@;

static hls::stream<axis512> word_in("word_in");
static hls::stream<ap_uint<64> > word_in_meta("word_in_meta");
static hls::stream<axis512> pass_out("pass_out");
static hls::stream<axis512> push_out("push_out");
static hls::stream<ap_uint<64> > push_out_meta("push_out_meta");
static hls::stream<ap_uint<64> > notify_out("notify_out");
static hls::stream<ctrl_req_t> ctrl_in("ctrl_in");
static hls::stream<ctrl_resp_t> ctrl_out("ctrl_out");
static ap_uint<64> now = 0;

static void run() {
    @TOP@(word_in, word_in_meta, pass_out, push_out, push_out_meta, notify_out, ctrl_in, ctrl_out,
          now);
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
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
// The 64 bytes of a word in lane order (byte 0 first): 128 hex digits.
static bool parse_word(const std::string& s, ap_uint<512>& w) {
    w = 0;
    if (s.size() != 128) return false;
    for (int lane = 0; lane < 64; lane++) {
        int hi = nibble(s[2 * lane]);
        int lo = nibble(s[2 * lane + 1]);
        if (hi < 0 || lo < 0) return false;
        w.range(8 * lane + 7, 8 * lane) = ap_uint<8>(hi * 16 + lo);
    }
    return true;
}

static void drain_notes() {
    while (!notify_out.empty()) {
        ap_uint<64> r = notify_out.read();
        std::cout << "notify " << (unsigned)r[32] << " " << (unsigned long long)r.range(31, 0) << "\n";
    }
}

// Words passed on: one line each, its valid bytes.
static void drain_pass() {
    while (!pass_out.empty()) {
        axis512 b = pass_out.read();
        std::vector<unsigned char> bytes;
        for (int lane = 0; lane < 64; lane++) {
            if (b.keep[lane]) bytes.push_back((unsigned char)(unsigned)ap_uint<8>(b.data.range(8 * lane + 7, 8 * lane)));
        }
        std::cout << "pass " << hex_bytes(bytes) << "\n";
    }
}

// A DMA transfer being read: its beats may come over several invocations.
static std::vector<unsigned char> dma_bytes;
static unsigned long long dma_out = 0, dma_element = 0;
static bool dma_open = false;

// DMA transfers: the beats up to `last`, the record of a transfer's first beat naming the slot;
// a `dma` line per finished transfer. Whether any beat came.
static bool drain_dma() {
    bool any = false;
    while (!push_out.empty()) {
        any = true;
        axis512 b = push_out.read();
        ap_uint<64> meta = push_out_meta.empty() ? ap_uint<64>(0) : push_out_meta.read();
        if (!dma_open) {
            dma_out = (unsigned long long)meta.range(15, 0);
            dma_element = (unsigned long long)meta.range(31, 16);
            dma_bytes.clear();
            dma_open = true;
        }
        for (int lane = 0; lane < 64; lane++) {
            if (b.keep[lane]) dma_bytes.push_back((unsigned char)(unsigned)ap_uint<8>(b.data.range(8 * lane + 7, 8 * lane)));
        }
        if (b.last == 1) {
            std::cout << "dma " << dma_out << " " << dma_element << " " << hex_bytes(dma_bytes) << "\n";
            dma_open = false;
        }
    }
    return any;
}

static void word(std::istringstream& in) {
    std::string flow_s, now_s, keep_s, last_s, data_s;
    unsigned long long flow = 0, ns = 0, last = 0;
    ap_uint<64> keep = 0;
    ap_uint<512> data = 0;
    if (!(in >> flow_s >> now_s >> keep_s >> last_s >> data_s) || !parse_u64(flow_s, flow) ||
        flow > 0xffffffULL || !parse_u64(now_s, ns) || !parse_wide(keep_s, keep) ||
        !parse_u64(last_s, last) || last > 1 || !parse_word(data_s, data)) {
        std::cout << "error usage: word <flow 0-16777215> <now_ns> <keep hex> <last 0|1> <128 hex digits>\n";
        return;
    }
    axis512 beat;
    beat.data = data;
    beat.keep = keep;
    beat.strb = keep;
    beat.last = last == 1 ? 1 : 0;
    word_in.write(beat);
    word_in_meta.write(ap_uint<64>(flow));
    now = ap_uint<64>(ns);
    run();
    for (int guard = 0; guard < 16 && !word_in.empty(); guard++) run();
    drain_pass();
    // The dma stage sends one beat per invocation: run the kernel until it has been quiet long
    // enough to have taken every push and flush step of this word.
    int quiet = 0;
    for (long guard = 0; quiet < @QUIET@ && guard < (1L << 24); guard++) {
        quiet = drain_dma() ? 0 : quiet + 1;
        run();
    }
    drain_dma();
    drain_notes();
}

@CTRL_AND_MAIN@"#;

/// The testbench of one stream scu's kernel; `quiet` invocations without a beat on `push_out`
/// mean the `dma` stage has taken everything (`MAX_PUSH + SLOTS + 4` of the kernel).
pub fn write(w: &ScuWriter<'_>, quiet: u32) -> String {
    let head = format!(
        "// {top}_tb.cpp: the C-simulation testbench of stream kernel `{top}` (scu `{scu}`, {file}),\n\
         // generated by scenicc. Do not edit. Line protocol on stdin/stdout (backend-hls/src/writer/testbench/stream.rs):\n\
         //   time <ns>                                     -> notify <to_arm> <value>* done\n\
         //   word <flow> <now_ns> <keep> <last> <128 hex>  -> pass <hex|->* dma <out> <element> <hex>* notify ...* done\n\
         //   ctrl <op> <target> <index> <hex>              -> resp <status> <hex> done\n\
         //   quit\n\
         #include \"{top}.hpp\"\n",
        top = w.names.top,
        scu = w.scu.name,
        file = w.module.source_name,
    );
    head + &TB
        .replace("@NUMBERS@", super::NUMBERS)
        .replace("@CTRL_AND_MAIN@", &super::ctrl_and_main("word"))
        .replace("@NS@", &w.names.ns)
        .replace("@TOP@", &w.names.top)
        .replace("@QUIET@", &quiet.to_string())
}
