// scenic/scenic.hpp: the SCENIC runtime for C++ (header-only, over libscenic_c's C API; docs/cpp.md).
//
// scenic::Device, scenic::Thread, scenic::Emulator own their C objects (RAII, movable, not
// copyable); every failure throws scenic::Error with the runtime's message. C++17.
#ifndef SCENIC_HPP
#define SCENIC_HPP

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

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

// An emulated device served by a thread of this process (no network ports).
class Emulator {
  public:
    explicit Emulator(const std::string &map_path)
        : emu_(detail::check(scenic_emulator_start(map_path.c_str()))) {}
    std::string device() const { return scenic_emulator_device(emu_.get()); }

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
    Thread thread(std::uint8_t slot) const {
        return Thread(detail::check(scenic_thread_open(dev_.get(), slot)));
    }

  private:
    std::unique_ptr<ScenicDevice, detail::DeviceFree> dev_;
};

}  // namespace scenic

#endif  // SCENIC_HPP
