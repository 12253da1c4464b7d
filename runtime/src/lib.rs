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
//! - [`steering`]: RoCE QPNs and TCP flows to slots, and the slow-path slot, from the host;
//! - [`mod@swap`]: the hitless replacement of a slot's unit, carrying state where layouts agree;
//! - [`emu`]: the device side's minimal server (identity, heartbeat, fences, slot state machine),
//!   which the emulated NIC extends;
//! - [`net`]: the emulated NIC's network side (port, host TAP, steering, datapath, slot engines);
//! - [`nic`]: the emulated NIC as a process (`scenic nic up`);
//! - [`kmod`]: the kmod's `/dev/scenicN` ioctl ABI (`kmod/scenic_abi.h`) and its slot grants;
//! - [`container`]: the model container (image kind 1) and the staged identity;
//!
//! and the host's API by name over a package (issue 12):
//! - [`package`]: [`Package::open`], a package directory read and verified;
//! - [`state`]: the per-device state directory (slot locks, the journal of loads and entries);
//! - [`control`]: a slot's control queue, one request and its response;
//! - [`notify`]: a slot's notification ring, with loss detection;
//! - [`mod@load`]: staging, loading and activating a package's unit in a slot;
//! - [`scu`]: [`Scu`], a loaded slot driven by name (CSRs, tables, counters, maps, meters);
//! - [`cc`]: [`CcHost`], the dual CC slots: events, outputs, params, the hitless cc switch;
//! - [`handle`]: [`handle::SlotHandle`], an owned slot handle for the Python and C APIs.

#![deny(missing_docs)]

pub mod abi;
pub mod carry;
pub mod cc;
pub mod command;
pub mod container;
pub mod control;
pub mod device;
pub mod emu;
pub mod frame;
pub mod handle;
pub mod kmod;
pub mod load;
pub mod net;
pub mod nic;
pub mod notify;
pub mod package;
pub mod region;
pub mod ring;
pub mod scu;
pub mod slot_state;
pub mod state;
pub mod steering;
pub mod swap;

pub use cc::{CcHost, CcSwitchReport};
pub use device::{Device, DeviceError, Identity};
pub use handle::SlotHandle;
pub use load::{load, LoadReport};
pub use package::{Package, PackageError};
pub use region::{Region, RegionError};
pub use scu::{Scu, ScuError, Which};
pub use swap::{swap, SwapOptions, SwapReport};
