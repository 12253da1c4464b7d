// scenic/scenic.hpp: the SCENIC runtime for C++ (header-only, over libscenic_c's C API; docs/cpp.md).
//
// scenic::Device, scenic::Thread, scenic::Emulator own their C objects (RAII, movable, not
// copyable); every failure throws scenic::Error with the runtime's message. C++17.
#ifndef SCENIC_HPP
#define SCENIC_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../scenic.h"

namespace scenic {

// A failure of the runtime, with its message.
class Error : public std::runtime_error {
  public:
    explicit Error(const std::string &what) : std::runtime_error(what) {}
};

namespace detail {
inline void check(int rc) {
    if (rc != 0) throw Error(scenic_last_error());
}
template <typename T> T *check(T *p) {
    if (p == nullptr) throw Error(scenic_last_error());
    return p;
}
// C string pointers of `v` (valid while `v` is).
inline std::vector<const char *> c_strings(const std::vector<std::string> &v) {
    std::vector<const char *> out;
    out.reserve(v.size());
    for (const auto &s : v) out.push_back(s.c_str());
    return out;
}
struct EmulatorFree {
    void operator()(ScenicEmulator *p) const { scenic_emulator_stop(p); }
};
struct DeviceFree {
    void operator()(ScenicDevice *p) const { scenic_device_close(p); }
};
struct ThreadFree {
    void operator()(ScenicThread *p) const { scenic_thread_close(p); }
};
}  // namespace detail

// An emulated device served by threads of this process. With ports > 0 its datapath runs over
// in-process wires: send() puts a frame on a network port, receive() takes what the NIC sent.
class Emulator {
  public:
    explicit Emulator(const std::string &map_path, std::uint8_t ports = 0)
        : emu_(detail::check(ports == 0 ? scenic_emulator_start(map_path.c_str())
                                        : scenic_emulator_start_wired(map_path.c_str(), ports))) {}
    std::string device() const { return scenic_emulator_device(emu_.get()); }
    void send(const std::vector<std::uint8_t> &frame, int port = 0) const {
        detail::check(scenic_emulator_send(emu_.get(), port, frame.data(), frame.size()));
    }
    // The next frame to the host (port -1) or out of `port`, or nothing after timeout_ns.
    std::optional<std::vector<std::uint8_t>> receive(std::uint64_t timeout_ns = 0,
                                                     int port = -1) const {
        std::vector<std::uint8_t> buf(16384);
        std::size_t len = 0;
        detail::check(scenic_emulator_receive(emu_.get(), port, timeout_ns, buf.data(), buf.size(),
                                              &len));
        if (len == 0) return std::nullopt;
        buf.resize(len);
        return buf;
    }

  private:
    std::unique_ptr<ScenicEmulator, detail::EmulatorFree> emu_;
};

// The paper's ScenicThread(slot): CSRs by word offset, completed operations.
class Thread {
  public:
    void set_csr(std::uint64_t value, std::uint32_t offset) const {
        detail::check(scenic_set_csr(thread_.get(), value, offset));
    }
    std::uint64_t get_csr(std::uint32_t offset) const {
        std::uint64_t value = 0;
        detail::check(scenic_get_csr(thread_.get(), offset, &value));
        return value;
    }
    std::uint64_t get_completed(const std::string &op) const {
        std::uint64_t value = 0;
        detail::check(scenic_get_completed(thread_.get(), op.c_str(), &value));
        return value;
    }


    // By name, as the package's manifest names them.
    std::uint64_t csr(const std::string &name) const {
        std::uint64_t value = 0;
        detail::check(scenic_csr_get(thread_.get(), name.c_str(), &value));
        return value;
    }
    void set_csr(const std::string &name, std::uint64_t value) const {
        detail::check(scenic_csr_set(thread_.get(), name.c_str(), value));
    }
    // Keys in the table's key order and arguments, in the STF `add` syntax; the entry's handle.
    std::uint32_t table_add(const std::string &table, const std::vector<std::string> &keys,
                            const std::string &action, const std::vector<std::string> &args = {},
                            std::optional<std::uint32_t> priority = std::nullopt) const {
        auto k = detail::c_strings(keys);
        auto a = detail::c_strings(args);
        std::uint32_t handle = 0;
        detail::check(scenic_table_add(thread_.get(), table.c_str(), k.data(), k.size(),
                                       action.c_str(), a.data(), a.size(),
                                       priority ? std::int64_t(*priority) : -1, &handle));
        return handle;
    }
    void table_modify(const std::string &table, std::uint32_t handle, const std::string &action,
                      const std::vector<std::string> &args = {}) const {
        auto a = detail::c_strings(args);
        detail::check(scenic_table_modify(thread_.get(), table.c_str(), handle, action.c_str(),
                                          a.data(), a.size()));
    }
    void table_remove(const std::string &table, std::uint32_t handle) const {
        detail::check(scenic_table_remove(thread_.get(), table.c_str(), handle));
    }
    void table_clear(const std::string &table) const {
        detail::check(scenic_table_clear(thread_.get(), table.c_str()));
    }
    void table_set_default(const std::string &table, const std::string &action,
                           const std::vector<std::string> &args = {}) const {
        auto a = detail::c_strings(args);
        detail::check(scenic_table_set_default(thread_.get(), table.c_str(), action.c_str(),
                                               a.data(), a.size()));
    }
    // Cell `index` of a counter: packets, bytes.
    std::pair<std::uint64_t, std::uint64_t> counter(const std::string &name,
                                                    std::uint64_t index) const {
        std::uint64_t packets = 0, bytes = 0;
        detail::check(scenic_counter_read(thread_.get(), name.c_str(), index, &packets, &bytes));
        return {packets, bytes};
    }
    void counter_reset(const std::string &name, std::optional<std::uint64_t> index = {}) const {
        detail::check(scenic_counter_reset(thread_.get(), name.c_str(),
                                           index ? std::int64_t(*index) : -1));
    }
    std::optional<std::uint64_t> map_get(const std::string &name, std::uint64_t key) const {
        std::uint64_t value = 0;
        int found = 0;
        detail::check(scenic_map_get(thread_.get(), name.c_str(), key, &value, &found));
        if (!found) return std::nullopt;
        return value;
    }
    void map_set(const std::string &name, std::uint64_t key, std::uint64_t value) const {
        detail::check(scenic_map_set(thread_.get(), name.c_str(), key, value));
    }
    bool map_remove(const std::string &name, std::uint64_t key) const {
        int removed = 0;
        detail::check(scenic_map_remove(thread_.get(), name.c_str(), key, &removed));
        return removed != 0;
    }
    // Up to `max` notifications, waiting up to timeout_ns for the first.
    std::vector<ScenicNotification> notifications(std::uint64_t timeout_ns = 0,
                                                  std::size_t max = 64) const {
        std::vector<ScenicNotification> out(max);
        std::size_t n = 0;
        detail::check(scenic_notifications(thread_.get(), timeout_ns, out.data(), max, &n));
        out.resize(n);
        return out;
    }

  private:
    friend class Device;
    explicit Thread(ScenicThread *t) : thread_(t) {}
    std::unique_ptr<ScenicThread, detail::ThreadFree> thread_;
};

// An open device: "emu:NAME" or a map path.
class Device {
  public:
    explicit Device(const std::string &name)
        : dev_(detail::check(scenic_device_open(name.c_str()))) {}
    // The paper's reconfigure_app: a hitless swap when a unit runs in slot, else a load.
    void reconfigure_app(std::uint8_t slot, const std::string &path) const {
        detail::check(scenic_reconfigure_app(dev_.get(), slot, path.c_str()));
    }
    // The slot the slow path goes through; -1: straight to the host.
    void set_slow_path(int slot) const {
        detail::check(scenic_device_set_slow_path(dev_.get(), slot));
    }
    Thread thread(std::uint8_t slot) const {
        return Thread(detail::check(scenic_thread_open(dev_.get(), slot)));
    }

  private:
    std::unique_ptr<ScenicDevice, detail::DeviceFree> dev_;
};

}  // namespace scenic

#endif  // SCENIC_HPP
