//! `scenic-runtime`: the runtime of the SCENIC SmartNIC, this stage its device-interface layer.
//!
//! `docs/device.md` (v1.0) is the contract; `docs/runtime.md` says what exists and what comes next.
//! Layers, bottom up:
//! - [`abi`]: every offset, field, opcode and code of the interface as typed constants;
//! - [`region`]: the map as shared memory, checked atomic 64-bit accesses;
//! - [`ring`]: the free-running-index ring protocol (producer and consumer sides);
//! - [`command`]: the command/result handshake of `CMD` registers;
//! - [`frame`]: byte layouts of control entries, notification records and CC events;
//! - [`carry`]: which state a hot swap carries, decided from the two units' control layouts;
//! - [`container`]: the model container (image kind 1) and the identity a load is checked against;
//! - [`device`]: [`Device::open`], identity, version check, liveness, scratch, fence, slot commands;
//! - [`emu`]: the device side's minimal server (identity, heartbeat, fences, slot state machine),
//!   which the emulated NIC extends;
//! - [`net`]: the emulated NIC's network side (port, host TAP, steering, datapath, slot engines);
//! - [`nic`]: the emulated NIC as a process (`scenic nic up`).

#![deny(missing_docs)]

pub mod abi;
pub mod carry;
pub mod command;
pub mod container;
pub mod device;
pub mod emu;
pub mod frame;
pub mod net;
pub mod nic;
pub mod region;
pub mod ring;
pub mod slot_state;

pub use device::{Device, DeviceError, Identity};
pub use region::{Region, RegionError};
