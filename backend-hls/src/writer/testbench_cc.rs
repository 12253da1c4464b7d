//! The C-simulation testbench of a cc kernel (`<top>_tb.cpp`): links the kernel and speaks a line
//! protocol on stdin/stdout, like the scu testbench ([`crate::writer::testbench`]), so that
//! `scenic_hls_csim::cc_sim::CcSim` (or a person) can drive it.
//!
//! One request per line; every answer ends with `done`:
//!
//! - `time <ns>`: sets `now_ns` and runs the kernel once without an event (the timers due by then
//!   fire) → `update <flow> <value>`* `notify <to_arm> <value>`* `done`
//! - `event <kind> <flow> <ecn> <value> <time_ns> [<hop> <hops> <tx_bytes> <ts_ns> <rate_bps>]`:
//!   one `cc_event_in` record (kinds as [`crate::writer::cc::kind`]; `value` is the acked or sent
//!   bytes, the RTT sample in ns or an INT hop's queue length; the five optional numbers are the
//!   rest of an INT hop, 0 when absent), then one run of the kernel → `update <flow> <value>`*
//!   `notify ...`* `done`
//! - `ctrl <op> <target> <index> <hexdata>`: one control request → `resp <status> <hexdata>` `done`
//! - `quit`
//!
//! Updates come in the order the kernel wrote them; the last one of a flow is its output.
//! Numbers are decimal, control data hexadecimal. Malformed input gives `error <message>` then
//! `done`, never a crash.

use crate::writer::cc::CcWriter;

const TB: &str = r#"#include <iostream>
#include <sstream>
#include <string>

using namespace @NS@;

static hls::stream<ap_uint<@BITS@> > cc_event_in("cc_event_in");
static hls::stream<ap_uint<128> > cc_update_out("cc_update_out");
static hls::stream<ap_uint<64> > notify_out("notify_out");
static hls::stream<ctrl_req_t> ctrl_in("ctrl_in");
static hls::stream<ctrl_resp_t> ctrl_out("ctrl_out");
static ap_uint<64> now = 0;

static void run() {
    @TOP@(cc_event_in, cc_update_out, notify_out, ctrl_in, ctrl_out, now);
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

@NUMBERS@
// Everything the kernel wrote: updates, then notifications.
static void drain() {
    while (!cc_update_out.empty()) {
        ap_uint<128> u = cc_update_out.read();
        std::cout << "update " << (unsigned long long)u.range(31, 0) << " "
                  << (unsigned long long)u.range(127, 64) << "\n";
    }
    while (!notify_out.empty()) {
        ap_uint<64> r = notify_out.read();
        std::cout << "notify " << (unsigned)r[32] << " " << (unsigned long long)r.range(31, 0) << "\n";
    }
}

static void event(std::istringstream& in) {
    std::string k_s, f_s, e_s, v_s, t_s;
    unsigned long long k = 0, f = 0, e = 0, v = 0, t = 0;
    if (!(in >> k_s >> f_s >> e_s >> v_s >> t_s) || !parse_u64(k_s, k) || k > 8 ||
        !parse_u64(f_s, f) || f >= (unsigned long long)FLOWS || !parse_u64(e_s, e) || e > 1 ||
        !parse_u64(v_s, v) || !parse_u64(t_s, t)) {
        std::cout << "error usage: event <kind 0-8> <flow 0-" << FLOWS - 1
                  << "> <ecn 0|1> <value> <time_ns> [<hop> <hops> <tx_bytes> <ts_ns> <rate_bps>]\n";
        return;
    }
    // The rest of an INT hop: all five numbers or none.
    unsigned long long hop[5] = {0, 0, 0, 0, 0};
    std::string s;
    int n = 0;
    bool bad = false;
    while (in >> s) {
        if (n == 5 || !parse_u64(s, hop[n])) {
            bad = true;
            break;
        }
        ++n;
    }
    if (bad || (n != 0 && n != 5) || hop[0] > 255 || hop[1] > 255) {
        std::cout << "error usage: an INT hop is <hop 0-255> <hops 0-255> <tx_bytes> <ts_ns> <rate_bps>\n";
        return;
    }
    ap_uint<@BITS@> r = 0;
    r.range(7, 0) = k;
    r.range(39, 8) = f;
    r[40] = e;
    r.range(55, 48) = hop[0];
    r.range(63, 56) = hop[1];
    r.range(127, 64) = v;
    r.range(191, 128) = t;
    r.range(255, 192) = hop[2];
    r.range(319, 256) = hop[3];
    r.range(383, 320) = hop[4];
    cc_event_in.write(r);
    run();
    drain();
}

static void time_cmd(std::istringstream& in) {
    std::string t_s;
    unsigned long long t = 0;
    if (!(in >> t_s) || !parse_u64(t_s, t)) {
        std::cout << "error usage: time <ns>\n";
        return;
    }
    now = t;
    run();
    drain();
}

static void ctrl(std::istringstream& in) {
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
    req.range(CTRL_DATA_BITS + 31, CTRL_DATA_BITS) = index;
    req.range(CTRL_DATA_BITS + 47, CTRL_DATA_BITS + 32) = target;
    req.range(CTRL_DATA_BITS + 55, CTRL_DATA_BITS + 48) = op;
    ctrl_in.write(req);
    run();
    if (ctrl_out.empty()) {
        std::cout << "error the kernel did not answer the control request\n";
        return;
    }
    ctrl_resp_t resp = ctrl_out.read();
    ap_uint<CTRL_DATA_BITS> out = resp.range(CTRL_DATA_BITS - 1, 0);
    std::cout << "resp " << (unsigned)resp.range(CTRL_DATA_BITS + 7, CTRL_DATA_BITS) << " "
              << hex_wide(out) << "\n";
    drain();
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        if (!(in >> cmd)) {
            std::cout << "error empty line\ndone" << std::endl;
            continue;
        }
        if (cmd == "quit") break;
        if (cmd == "event") event(in);
        else if (cmd == "time") time_cmd(in);
        else if (cmd == "ctrl") ctrl(in);
        else std::cout << "error unknown command `" << cmd << "`\n";
        std::cout << "done" << std::endl;
    }
    return 0;
}
"#;

/// Writes the testbench of a cc kernel.
pub fn write(cw: &CcWriter<'_, '_>) -> String {
    let head = format!(
        "// {}_tb.cpp: C-simulation testbench of cc `{}` ({}), generated by scenicc. Do not edit.\n\
         // Line protocol: see backend-hls/src/writer/testbench_cc.rs.\n#include \"{}.hpp\"\n",
        cw.w.names.top, cw.cc.name, cw.w.module.source_name, cw.w.names.top
    );
    head + &TB
        .replace("@NUMBERS@", crate::writer::testbench::NUMBERS)
        .replace("@NS@", &cw.w.names.ns)
        .replace("@TOP@", &cw.w.names.top)
        .replace("@BITS@", &crate::ports::CC_EVENT_BITS.to_string())
}
