//! The P4 backends: IR → P4_16 for AMD Vitis Networking P4 (`XilinxPipeline`) and for v1model.
//!
//! (Under construction: the mapping is documented here as the writer lands.)
