// scn.hpp: the conformance scenario files of docs/device.md §8.1 (runtime/tests/conformance/*.scn)
// for a C++ bench. The same steps the Rust runner (runtime/tests/conformance.rs) executes on the
// emulated NIC run here on a Verilator model, through `scn::Device`, which a bench implements
// with its register port. Every name resolves through scenic_regs.h, rendered from the Rust ABI.
//
// Usage: `scn::run_file(path, device)` runs every scenario of a file and prints `PASS <id>` or
// `FAIL <id>: file:line: why` per scenario (`skipped <id>: why` for one that needs what the bench
// lacks); it returns the number of failed scenarios.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "scenic_regs.h"

namespace scn {

// What a bench provides: register accesses at device.md byte offsets, and a slot's setup.
struct Device {
    virtual ~Device() = default;
    // Starts a scenario on a freshly reset device.
    virtual void reset() = 0;
    virtual uint64_t read(uint64_t addr) = 0;
    virtual void write(uint64_t addr, uint64_t value) = 0;
    // §1.3's fence pair: returns once every earlier write has been applied.
    virtual void fence() = 0;
    // `load SLOT EXAMPLE`; an empty string if the bench can, else why not.
    virtual std::string load(unsigned slot, const std::string &example) = 0;
    // Whether it has what `scenario ID needs FEATURE` names (`slot-commands`).
    virtual bool has(const std::string &feature) = 0;
};

namespace detail {

inline std::string trim(const std::string &s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

inline std::optional<uint64_t> lookup(const scenic_name *table, const std::string &name) {
    for (const scenic_name *n = table; n->name; ++n)
        if (name == n->name) return n->value;
    return std::nullopt;
}

inline std::optional<uint64_t> number(std::string s) {
    std::string digits;
    for (char c : s)
        if (c != '_') digits += c;
    if (digits.empty()) return std::nullopt;
    try {
        size_t used = 0;
        uint64_t v = digits.rfind("0x", 0) == 0 ? std::stoull(digits.substr(2), &used, 16)
                                                : std::stoull(digits, &used, 10);
        size_t want = digits.rfind("0x", 0) == 0 ? digits.size() - 2 : digits.size();
        if (used != want) return std::nullopt;
        return v;
    } catch (...) {
        return std::nullopt;
    }
}

struct Error {
    std::string why;
};

// `NAME`, `S<k>.NAME`, `S<k>.CSR[n]` (`SA`/`SB` the CC slots): a byte offset in the map.
inline uint64_t address(const std::string &t) {
    if (t.size() > 1 && t[0] == 'S' && t.find('.') != std::string::npos) {
        std::string k = t.substr(1, t.find('.') - 1), name = t.substr(t.find('.') + 1);
        uint64_t slot;
        if (k == "A") slot = SCENIC_CC_SLOT_A;
        else if (k == "B") slot = SCENIC_CC_SLOT_B;
        else if (auto n = number(k)) slot = *n;
        else throw Error{"bad slot in `" + t + "`"};
        uint64_t block = SCENIC_SLOT_BLOCK_BASE + slot * SCENIC_SLOT_BLOCK_STRIDE;
        if (name.rfind("CSR[", 0) == 0 && name.back() == ']') {
            auto n = number(name.substr(4, name.size() - 5));
            if (!n) throw Error{"bad CSR word in `" + t + "`"};
            return block + SCENIC_CSR_WINDOW + 8 * *n;
        }
        if (auto off = lookup(SCENIC_SLOT_REGS, name)) return block + *off;
        throw Error{"no slot register `" + name + "`"};
    }
    if (auto off = lookup(SCENIC_GLOBAL_REGS, t)) return *off;
    throw Error{"no global register `" + t + "`"};
}

// The result register paired with a command register (§1.2).
inline uint64_t result_of(const std::string &t) {
    std::string base = t.substr(t.find('.') == std::string::npos ? 0 : t.find('.') + 1);
    std::string prefix = t.substr(0, t.size() - base.size());
    if (base == "RESET") return address(prefix + "RESET_RESULT");
    if (base.size() > 4 && base.compare(base.size() - 4, 4, "_CMD") == 0)
        return address(prefix + base.substr(0, base.size() - 4) + "_RESULT");
    throw Error{"`" + t + "` is not a command register"};
}

// `a | b<<n | ...` of numbers, `$VAR`s and §6 status names.
inline uint64_t eval(const std::string &text, const std::map<std::string, uint64_t> &vars) {
    uint64_t v = 0;
    std::stringstream terms(text);
    std::string term;
    while (std::getline(terms, term, '|')) {
        std::string atom = trim(term);
        unsigned shift = 0;
        size_t at = atom.find("<<");
        if (at != std::string::npos) {
            auto s = number(trim(atom.substr(at + 2)));
            if (!s || *s > 63) throw Error{"bad shift in `" + term + "`"};
            shift = unsigned(*s);
            atom = trim(atom.substr(0, at));
        }
        uint64_t a;
        if (!atom.empty() && atom[0] == '$') {
            auto it = vars.find(atom.substr(1));
            if (it == vars.end()) throw Error{"`" + atom + "` is not set"};
            a = it->second;
        } else if (auto code = lookup(SCENIC_CODES, atom)) {
            a = *code;
        } else if (auto n = number(atom)) {
            a = *n;
        } else {
            throw Error{"bad value `" + atom + "`"};
        }
        v |= a << shift;
    }
    return v;
}

inline std::pair<std::string, std::string> first_word(const std::string &s) {
    size_t sp = s.find(' ');
    if (sp == std::string::npos) return {s, ""};
    return {s.substr(0, sp), trim(s.substr(sp + 1))};
}

struct Runner {
    Device &dev;
    std::map<std::string, uint64_t> vars;
    uint16_t seq = 0;

    void step(const std::string &line) {
        auto [word, rest] = first_word(line);
        if (word == "fence") {
            dev.fence();
        } else if (word == "load") {
            auto [slot, example] = first_word(rest);
            unsigned k = slot == "A" ? SCENIC_CC_SLOT_A : slot == "B" ? SCENIC_CC_SLOT_B : 0;
            if (slot != "A" && slot != "B") {
                auto n = number(slot);
                if (!n) throw Error{"bad slot `" + slot + "`"};
                k = unsigned(*n);
            }
            std::string why = dev.load(k, example);
            if (!why.empty()) throw Error{"load " + slot + " " + example + ": " + why};
        } else if (word == "write") {
            auto [target, value] = first_word(rest);
            dev.write(address(target), eval(value, vars));
        } else if (word == "read") {
            read(rest);
        } else if (word == "let") {
            let(rest);
        } else if (word == "error") {
            error(rest);
        } else if (word == "cmd") {
            cmd(rest);
        } else {
            throw Error{"unknown step `" + word + "`"};
        }
    }

    void read(const std::string &rest) {
        size_t eq = rest.find("==");
        if (eq == std::string::npos) throw Error{"`read` needs `== VALUE`"};
        std::string left = rest.substr(0, eq);
        uint64_t mask = ~0ull;
        size_t amp = left.find('&');
        if (amp != std::string::npos) {
            mask = eval(left.substr(amp + 1), vars);
            left = left.substr(0, amp);
        }
        uint64_t got = dev.read(address(trim(left))) & mask;
        uint64_t want = eval(rest.substr(eq + 2), vars);
        if (got != want) throw Error{"read " + trim(left) + ": " + hex(got) + ", expected " + hex(want)};
    }

    void let(const std::string &rest) {
        size_t eq = rest.find('=');
        if (eq == std::string::npos) throw Error{"`let` needs `= REG`"};
        std::string def = rest.substr(eq + 1);
        unsigned shift = 0;
        uint64_t mask = ~0ull;
        size_t sh = def.find(">>");
        if (sh != std::string::npos) {
            shift = unsigned(number(trim(def.substr(sh + 2))).value_or(0));
            def = def.substr(0, sh);
        }
        size_t amp = def.find('&');
        if (amp != std::string::npos) {
            mask = number(trim(def.substr(amp + 1))).value_or(~0ull);
            def = def.substr(0, amp);
        }
        vars[trim(rest.substr(0, eq))] = (dev.read(address(trim(def))) & mask) >> shift;
    }

    void error(const std::string &rest) {
        std::stringstream in(rest);
        std::string target, code, offset;
        in >> target >> code >> offset;
        auto want_code = lookup(SCENIC_CODES, code);
        if (!want_code) throw Error{"no status `" + code + "`"};
        uint64_t word = dev.read(address(target));
        uint64_t got_code = word & 0xffff, got_offset = (word >> 16) & 0xffffffffull;
        uint64_t want_offset = eval(offset, vars);
        if (got_code != *want_code || got_offset != want_offset)
            throw Error{target + ": code " + hex(got_code) + " at " + hex(got_offset) + ", expected " +
                        code + " at " + hex(want_offset)};
    }

    // §1.2: opcode [0..8), argument [8..48), seq [48..64); the result's seq must come back.
    void cmd(const std::string &rest) {
        size_t arrow = rest.find("->");
        if (arrow == std::string::npos) throw Error{"`cmd` needs `-> STATUS`"};
        std::stringstream in(rest.substr(0, arrow));
        std::string target, op, arg;
        in >> target >> op >> arg;
        auto opcode = lookup(SCENIC_OPCODES, op);
        if (!opcode) opcode = number(op);
        if (!opcode || *opcode > 0xff) throw Error{"no opcode `" + op + "`"};
        std::string right = trim(rest.substr(arrow + 2));
        std::optional<uint64_t> want_detail;
        size_t d = right.find(" detail ");
        if (d != std::string::npos) {
            want_detail = eval(right.substr(d + 8), vars);
            right = trim(right.substr(0, d));
        }
        auto want = lookup(SCENIC_CODES, right);
        if (!want) throw Error{"no status `" + right + "`"};
        seq = uint16_t(seq + 1 == 0 ? 1 : seq + 1);
        uint64_t word = *opcode | (eval(arg, vars) & 0xffffffffffull) << 8 | uint64_t(seq) << 48;
        dev.write(address(target), word);
        uint64_t result = 0;
        for (int i = 0; i < 100000; ++i) {
            result = dev.read(result_of(target));
            if ((result >> 48) == seq) break;
        }
        if ((result >> 48) != seq) throw Error{"no result for `" + target + "` seq " + std::to_string(seq)};
        uint64_t status = result & 0xffff, detail = (result >> 16) & 0xffffffffull;
        if (status != *want || (want_detail && detail != *want_detail))
            throw Error{"command " + op + ": status " + hex(status) + " detail " + std::to_string(detail) +
                        ", expected " + right};
    }

    static std::string hex(uint64_t v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        return buf;
    }
};

}  // namespace detail

// Runs every scenario of `path`; prints PASS/FAIL lines; returns the failures.
inline int run_file(const std::string &path, Device &dev) {
    std::ifstream in(path);
    if (!in) {
        std::printf("FAIL %s: cannot read the file\n", path.c_str());
        return 1;
    }
    struct Scenario {
        std::string id;
        std::vector<std::string> needs;
        std::vector<std::pair<int, std::string>> steps;
    };
    std::vector<Scenario> scenarios;
    std::string raw;
    for (int line = 1; std::getline(in, raw); ++line) {
        std::string text = detail::trim(raw.substr(0, raw.find('#')));
        if (text.empty()) continue;
        if (text.rfind("scenario ", 0) == 0) {
            std::string rest = text.substr(9);
            std::vector<std::string> needs;
            size_t at = rest.find(" needs ");
            if (at != std::string::npos) {
                std::stringstream in(rest.substr(at + 7));
                for (std::string f; in >> f;) needs.push_back(f);
                rest = rest.substr(0, at);
            }
            scenarios.push_back({detail::trim(rest), needs, {}});
        } else if (scenarios.empty()) {
            std::printf("FAIL %s:%d: a step before any `scenario`\n", path.c_str(), line);
            return 1;
        } else {
            scenarios.back().steps.push_back({line, text});
        }
    }
    int failed = 0;
    for (const Scenario &s : scenarios) {
        std::string missing;
        for (const std::string &f : s.needs)
            if (!dev.has(f)) missing += (missing.empty() ? "" : ", ") + f;
        if (!missing.empty()) {
            std::printf("skipped %s: this implementation has no %s\n", s.id.c_str(), missing.c_str());
            continue;
        }
        dev.reset();
        detail::Runner r{dev, {}, 0};
        std::string why;
        for (const auto &[line, text] : s.steps) {
            try {
                r.step(text);
            } catch (const detail::Error &e) {
                why = path + ":" + std::to_string(line) + ": " + e.why;
                break;
            }
        }
        if (why.empty()) {
            std::printf("PASS %s\n", s.id.c_str());
        } else {
            std::printf("FAIL %s: %s\n", s.id.c_str(), why.c_str());
            ++failed;
        }
    }
    return failed;
}

}  // namespace scn
