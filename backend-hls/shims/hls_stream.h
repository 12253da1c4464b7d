// hls_stream.h: scenicc's own C-simulation model of Vitis HLS's hls::stream<T>.
//
// Written from scratch for scenicc (Apache-2.0, like the rest of the project); it implements only
// what generated kernels and testbenches use, with the behaviour Vitis documents for C simulation:
// an unbounded FIFO (std::deque) with blocking-style read/write, non-blocking read_nb/write_nb,
// empty/full/size. The optional second template parameter is the depth Vitis 2020.2+ accepts
// (`hls::stream<T, N>`); this model ignores it, as Vitis's own C simulation does (depth is set for
// synthesis with `#pragma HLS STREAM`). Reading an empty stream is a testbench bug: it prints a
// message to stderr and returns a value-initialised T, never blocking (C simulation is
// single-threaded). Under __SYNTHESIS__ the real Vitis header is used instead of this file.
#ifndef SCENIC_HLS_STREAM_SHIM_H
#define SCENIC_HLS_STREAM_SHIM_H

#include <cstddef>
#include <cstdio>
#include <deque>
#include <string>

namespace hls {

template <typename T, std::size_t DEPTH = 0>
class stream {
  public:
    stream() : name_("") {}
    explicit stream(const char* name) : name_(name ? name : "") {}

    // A stream is a channel, not a value: copying one is a bug in the design.
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;

    bool empty() const { return fifo_.empty(); }
    bool full() const { return false; }
    std::size_t size() const { return fifo_.size(); }

    void write(const T& value) { fifo_.push_back(value); }
    bool write_nb(const T& value) {
        fifo_.push_back(value);
        return true;
    }
    void operator<<(const T& value) { write(value); }

    T read() {
        T value = T();
        if (fifo_.empty()) {
            std::fprintf(stderr, "hls::stream '%s': read while empty\n", name_.c_str());
            return value;
        }
        value = fifo_.front();
        fifo_.pop_front();
        return value;
    }
    void read(T& value) { value = read(); }
    bool read_nb(T& value) {
        if (fifo_.empty()) {
            return false;
        }
        value = fifo_.front();
        fifo_.pop_front();
        return true;
    }
    void operator>>(T& value) { value = read(); }

  private:
    std::deque<T> fifo_;
    std::string name_;
};

}  // namespace hls

#endif  // SCENIC_HLS_STREAM_SHIM_H
