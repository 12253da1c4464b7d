//! The Vitis HLS backend: IR → C++ for one SCU kernel per `scu`, its testbench, and the harness that
//! C-simulates it with g++ against the reference interpreter.
//!
//! (The mapping from IR to the kernel is documented here as the backend grows; see `docs/hls.md`.)
//! [`ports`] is the kernel's boundary: the top function's ports per attach kind.

pub mod package;
pub mod ports;
