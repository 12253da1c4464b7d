// scenic_hls.hpp — the scenic HLS support library: include this one header.
//
// Project-written (never copied from AMD), header-only, C++11/C++14, synthesizable: static
// sizes, no heap, no run-time recursion, every loop bounded and pragma'd, every variable
// initialised. Warning-free under
//   g++ -std=c++14 -O2 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-maybe-uninitialized
//       -Wno-uninitialized -isystem $AP_TYPES -I<shims> -I<include>
// (and -std=c++11, which Coyote's own HLS flow uses). Semantics: bit-exact with the reference
// interpreter (ir/src/interp/), checked by backend-hls/tests/support_library.rs. Headers include
// each other by bare name, so the package can copy them flat next to the kernel.
//
// Contents (each header documents its API, hardware structure, cost and limits at its top):
//   scenic_common.hpp        zero<T>(), compile-time clog2/bits_for, index_hash, cells<>
//   scenic_intrinsics.hpp    crc32, crc16, murmur3_32, toeplitz, ones_complement,
//                            checksum_update, min, max (+ byte-array forms)
//   scenic_map_array.hpp     scenic::array_map<KW, V, N>    `array<bit<KW>, V>[N]`
//   scenic_map_hash.hpp      scenic::hash_map<KW, V, N>     `hash<bit<KW>, V>[N]`
//   scenic_map_lru.hpp       scenic::lru_map<KW, V, N>      `lru_hash<bit<KW>, V>[N]`
//   scenic_exact_table.hpp   scenic::exact_table<KW, D, N>  large exact-match table storage
//   scenic_counter.hpp       scenic::counter<N, KIND>       `counter c: kind[N]`
//   scenic_meter.hpp         scenic::meter<N, RATE_BPS, BURST_BYTES, HAS_RATE>
//                                                           `meter m: token_bucket[N] ...`
//   scenic_hash_core.hpp     the hashed store under hash_map, lru_map, exact_table
//
// Conventions shared by every class:
//   - State objects are declared `static` in the kernel's process stage; all-zero storage (C++
//     static zero-initialisation, the BRAM's power-on content) is each object's initial state,
//     so no constructor runs. Non-static objects (tests) call clear()/clear_all()/reset_all().
//   - Keys are ap_uint<KW>; values/data any copyable type whose zero is zero<V>() (see
//     scenic_common.hpp for structs).
//   - Methods used by packets are the language's operations; methods named host_*, read,
//     peek, configure, clear* serve the control path and are atomic because the process stage
//     runs one request at a time between packets. Host methods with loops (clear, iteration)
//     run up to SLOTS/N iterations: call them from the control branch, not the packet path.
//   - Pragmas for storage are written inside the member functions that access it.
//
// Typedefs:
//   scenic::axis512    ap_axiu<512, 0, 0, 0>: one 64-byte beat (.data, .keep, .strb, .last);
//                      byte i of the beat is data(8i+7, 8i).
//   scenic::beat_data  ap_uint<512>;  scenic::beat_keep  ap_uint<64>.
// Version: SCENIC_HLS_VERSION (bumped when an API documented here changes incompatibly).

#ifndef SCENIC_HLS_HPP
#define SCENIC_HLS_HPP

#define SCENIC_HLS_VERSION 1

#include "ap_axi_sdata.h"
#include "ap_int.h"
#include "scenic_common.hpp"
#include "scenic_counter.hpp"
#include "scenic_exact_table.hpp"
#include "scenic_hash_core.hpp"
#include "scenic_intrinsics.hpp"
#include "scenic_map_array.hpp"
#include "scenic_map_hash.hpp"
#include "scenic_map_lru.hpp"
#include "scenic_meter.hpp"

namespace scenic {

typedef ap_axiu<512, 0, 0, 0> axis512;
typedef ap_uint<512> beat_data;
typedef ap_uint<64> beat_keep;

}  // namespace scenic

#endif  // SCENIC_HLS_HPP
