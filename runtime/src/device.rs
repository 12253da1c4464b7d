//! The host's handle on one SCENIC device: [`Device::open`] and the register-level operations of
//! this stage (identity, version check, liveness, scratch, fence, slot commands).
//!
//! A device is named `emu:NAME` (the emulator's shared-memory file `/dev/shm/scenic-NAME`) or by a
//! path (a map file; `/dev/scenicN` comes with the kmod). Opening checks, in order: the file holds a
//! whole map, `MAGIC`, the interface major version (§2.5: a different major is refused, naming both
//! versions), `BAR_BYTES`, `STATUS` (`READY` set, `FATAL` clear) and that `HEARTBEAT` moves.
//!
//! Liveness (§1.6): every operation first checks `MAGIC`, `STATUS.READY` and the heartbeat; once the
//! device is seen gone, every later call fails with [`DeviceError::Gone`] and nothing is retried.
//! Commands are serialised per device (one lock), so two threads never collide on a `CMD` register.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::abi::codes::Code;
use crate::abi::global::{self, Feature, SlotsWord};
use crate::abi::slot::{self, SlotOp, SlotStateWord};
use crate::abi::{self, MAGIC_WORD, MAP_BYTES, VERSION_MAJOR};
use crate::command::{self, Channel, CommandError, Completion, SeqCounter};
use crate::region::{Region, RegionError};

/// How long a command may take before [`DeviceError::Command`] with a timeout (a `LOAD` of the
/// card takes tens of ms; the emulator answers within a few poll periods).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an operation on a device failed.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The device name is not `emu:NAME` with a usable name, nor a path.
    #[error(
        "bad device name `{0}`: use `emu:NAME` (letters, digits, `-`, `_`; at most 32) or a path"
    )]
    BadName(String),
    /// Mapping the file or a register access failed.
    #[error(transparent)]
    Region(#[from] RegionError),
    /// `MAGIC` is not `"SCENIC\0\0"`.
    #[error("{path} is not a SCENIC device: MAGIC is {magic:#018x}, expected {MAGIC_WORD:#018x}")]
    NotScenic {
        /// The map's file.
        path: String,
        /// The value read.
        magic: u64,
    },
    /// The device speaks another major version of the interface.
    #[error("device speaks interface {major}.{minor}, this runtime reads {VERSION_MAJOR}.x")]
    Version {
        /// The device's major version.
        major: u16,
        /// The device's minor version.
        minor: u16,
    },
    /// `BAR_BYTES` is not the 32 MiB map.
    #[error("device map is {0:#x} bytes; interface 1.x maps are {MAP_BYTES:#x}")]
    MapSize(u64),
    /// `STATUS.FATAL` is set.
    #[error("device failed: fatal code {0:#06x} (see docs/device.md §6)")]
    Fatal(u16),
    /// The device went away (§1.6).
    #[error("device went away: {0}")]
    Gone(String),
    /// No such slot (beyond `SLOTS`, or not a CC slot index 16/17 where the device has CC slots).
    #[error("no slot {slot}: the device has {scu} SCU slots and {cc} CC slots")]
    NoSlot {
        /// The slot asked for.
        slot: u8,
        /// SCU slots.
        scu: u8,
        /// CC slots.
        cc: u8,
    },
    /// A command failed (refused with a §6 code, timed out, ...).
    #[error(transparent)]
    Command(#[from] CommandError),
}

/// What a device says about itself (§2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Interface major version.
    pub major: u16,
    /// Interface minor version.
    pub minor: u16,
    /// Slot counts and ports.
    pub slots: SlotsWord,
    /// Datapath clock in Hz.
    pub clock_hz: u64,
    /// Line rate in bit/s.
    pub line_rate_bps: u64,
    /// Feature bits.
    pub features: u64,
    /// Poll period in ns (0: the card).
    pub poll_ns: u64,
    /// The instance name (`INSTANCE`).
    pub instance: String,
}

impl Identity {
    /// Whether the device has a feature (§2.2: a client must not use a mechanism whose bit is clear).
    pub fn has(&self, feature: Feature) -> bool {
        self.features & feature.mask() != 0
    }
}

/// The heartbeat rule of §1.6.
#[derive(Debug)]
struct Heartbeat {
    last: u64,
    since: Instant,
}

/// An open device.
#[derive(Debug)]
pub struct Device {
    region: Region,
    identity: Identity,
    heartbeat: Mutex<Heartbeat>,
    gone: AtomicBool,
    commands: Mutex<SeqCounter>,
}

/// The file a device name designates: `emu:NAME` → `/dev/shm/scenic-NAME`, else the path.
pub fn resolve(name: &str) -> Result<PathBuf, DeviceError> {
    match name.strip_prefix("emu:") {
        Some(emu) => {
            let ok = !emu.is_empty()
                && emu.len() <= 32
                && emu
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if ok {
                Ok(PathBuf::from(format!("/dev/shm/scenic-{emu}")))
            } else {
                Err(DeviceError::BadName(name.to_string()))
            }
        }
        None if name.is_empty() => Err(DeviceError::BadName(name.to_string())),
        None => Ok(PathBuf::from(name)),
    }
}

impl Device {
    /// Opens `emu:NAME` or a path, checking identity, version and liveness (module doc).
    pub fn open(name: &str) -> Result<Device, DeviceError> {
        Device::open_path(&resolve(name)?)
    }

    /// Opens the map at `path`.
    pub fn open_path(path: &Path) -> Result<Device, DeviceError> {
        let region = Region::open(path, MAP_BYTES)?;
        let identity = read_identity(&region)?;
        let first = region.load(global::HEARTBEAT, Ordering::Acquire)?;
        let device = Device {
            region,
            identity,
            heartbeat: Mutex::new(Heartbeat {
                last: first,
                since: Instant::now(),
            }),
            gone: AtomicBool::new(false),
            commands: Mutex::new(SeqCounter::default()),
        };
        device.wait_heartbeat(first)?;
        Ok(device)
    }

    fn wait_heartbeat(&self, first: u64) -> Result<(), DeviceError> {
        let started = Instant::now();
        loop {
            let now = self.region.load(global::HEARTBEAT, Ordering::Acquire)?;
            if now != first {
                return Ok(());
            }
            if started.elapsed() > Duration::from_millis(abi::HEARTBEAT_TIMEOUT_MS) {
                return Err(self.mark_gone("HEARTBEAT did not move for 100 ms".to_string()));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn mark_gone(&self, why: String) -> DeviceError {
        self.gone.store(true, Ordering::Release);
        DeviceError::Gone(why)
    }

    /// The identity read at open.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// The register region (raw access, pyCoyote style; offsets are checked, not interpreted).
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// Checks §1.6: `MAGIC`, `STATUS.READY`, `FATAL`, and a heartbeat seen moving in the last 100 ms.
    pub fn check_alive(&self) -> Result<(), DeviceError> {
        if self.gone.load(Ordering::Acquire) {
            return Err(DeviceError::Gone(
                "seen gone before; nothing is retried".to_string(),
            ));
        }
        let magic = self.region.load(global::MAGIC, Ordering::Acquire)?;
        if magic != MAGIC_WORD {
            return Err(self.mark_gone(format!("MAGIC is {magic:#x}")));
        }
        let status = self.region.load(global::STATUS, Ordering::Acquire)?;
        if status & global::STATUS_FATAL != 0 {
            self.gone.store(true, Ordering::Release);
            return Err(DeviceError::Fatal(global::status_fatal_code(status)));
        }
        if status & global::STATUS_READY == 0 {
            return Err(self.mark_gone("STATUS.READY is clear".to_string()));
        }
        let beat = self.region.load(global::HEARTBEAT, Ordering::Acquire)?;
        let mut hb = self
            .heartbeat
            .lock()
            .map_err(|_| self.mark_gone("lock poisoned".into()))?;
        if beat != hb.last {
            hb.last = beat;
            hb.since = Instant::now();
            return Ok(());
        }
        if hb.since.elapsed() > Duration::from_millis(abi::HEARTBEAT_TIMEOUT_MS) {
            drop(hb);
            return Err(self.mark_gone(format!(
                "HEARTBEAT stuck at {beat} for more than {} ms",
                abi::HEARTBEAT_TIMEOUT_MS
            )));
        }
        Ok(())
    }

    /// Reads a register after the liveness check.
    pub fn read(&self, offset: u64) -> Result<u64, DeviceError> {
        self.check_alive()?;
        Ok(self.region.load(offset, Ordering::Acquire)?)
    }

    /// Writes a register after the liveness check (`Release`, so earlier writes are visible first).
    pub fn write(&self, offset: u64, value: u64) -> Result<(), DeviceError> {
        self.check_alive()?;
        Ok(self.region.store(offset, value, Ordering::Release)?)
    }

    /// Writes `SCRATCH`, fences, reads it back (§2.2, conformance `reg.scratch`).
    pub fn scratch_round_trip(&self, value: u64) -> Result<u64, DeviceError> {
        self.write(global::SCRATCH, value)?;
        self.fence()?;
        self.read(global::SCRATCH)
    }

    /// The fence pair (§1.3): returns once the device applied every earlier host write.
    pub fn fence(&self) -> Result<u64, DeviceError> {
        let _guard = self
            .commands
            .lock()
            .map_err(|_| self.mark_gone("lock poisoned".into()))?;
        let previous = self.read(global::DEV_FENCE)?;
        let value = previous.wrapping_add(1).max(1);
        self.write(global::HOST_FENCE, value)?;
        let started = Instant::now();
        loop {
            if self.region.load(global::DEV_FENCE, Ordering::Acquire)? == value {
                return Ok(value);
            }
            self.check_alive()?;
            if started.elapsed() > COMMAND_TIMEOUT {
                return Err(CommandError::Timeout {
                    reg: global::HOST_FENCE,
                    opcode: 0,
                    seq: 0,
                    waited: COMMAND_TIMEOUT,
                }
                .into());
            }
            std::thread::sleep(Duration::from_micros(20));
        }
    }

    /// Issues a command on `channel` and waits for its result.
    pub fn command(
        &self,
        channel: Channel,
        opcode: u8,
        arg: u64,
    ) -> Result<Completion, DeviceError> {
        self.check_alive()?;
        let seqs = self
            .commands
            .lock()
            .map_err(|_| self.mark_gone("lock poisoned".into()))?;
        let mut alive = || {
            self.check_alive()
                .map_err(|e| CommandError::Gone(e.to_string()))
        };
        let done = command::issue(
            &self.region,
            channel,
            opcode,
            arg,
            &seqs,
            COMMAND_TIMEOUT,
            &mut alive,
        );
        match done {
            Err(CommandError::Gone(why)) => Err(DeviceError::Gone(why)),
            other => Ok(other?),
        }
    }

    /// Global reset with the key (§2.2).
    pub fn reset(&self) -> Result<(), DeviceError> {
        let channel = Channel {
            cmd: global::RESET,
            result: global::RESET_RESULT,
        };
        self.command(channel, global::RESET_OPCODE, global::RESET_KEY)
            .map(|_| ())
    }

    /// The block offset of slot `k`, checked against the device's slots.
    pub fn slot_block(&self, k: u8) -> Result<u64, DeviceError> {
        let s = self.identity.slots;
        let present =
            k < s.scu_slots || (s.cc_slots == 2 && (k == abi::CC_SLOT_A || k == abi::CC_SLOT_B));
        match abi::slot_block(k) {
            Some(base) if present => Ok(base),
            _ => Err(DeviceError::NoSlot {
                slot: k,
                scu: s.scu_slots,
                cc: s.cc_slots,
            }),
        }
    }

    /// Reads slot `k`'s `SLOT_STATE`.
    pub fn slot_state(&self, k: u8) -> Result<SlotStateWord, DeviceError> {
        let base = self.slot_block(k)?;
        Ok(SlotStateWord::decode(self.read(base + slot::SLOT_STATE)?))
    }

    /// Issues `SLOT_CMD` `op` with `arg` to slot `k`; `Ok` carries the bank acted on (detail).
    pub fn slot_command(&self, k: u8, op: SlotOp, arg: u64) -> Result<Completion, DeviceError> {
        self.slot_command_raw(k, op as u8, arg)
    }

    /// As [`Device::slot_command`] with any opcode byte (tests of `E_BAD_COMMAND`).
    pub fn slot_command_raw(&self, k: u8, opcode: u8, arg: u64) -> Result<Completion, DeviceError> {
        let base = self.slot_block(k)?;
        let channel = Channel {
            cmd: base + slot::SLOT_CMD,
            result: base + slot::SLOT_RESULT,
        };
        self.command(channel, opcode, arg)
    }
}

impl Device {
    /// Stages an image into slot `k` through the staging window (§3.3): `STAGE_RESET`, `STAGE_KIND`,
    /// `STAGE_LEN`, then one `STAGE_WRITE` per chunk of at most 64 KiB. The identity registers and
    /// `LOAD` are the caller's next steps.
    pub fn stage_image(&self, k: u8, kind: u64, image: &[u8]) -> Result<(), DeviceError> {
        let base = self.slot_block(k)?;
        self.slot_command(k, SlotOp::StageReset, 0)?;
        self.write(base + slot::STAGE_KIND, kind)?;
        self.write(base + slot::STAGE_LEN, image.len() as u64)?;
        let mut offset = 0usize;
        for chunk in image.chunks(slot::STAGE_CHUNK_MAX as usize) {
            self.region.write_bytes(base + slot::STAGE_WINDOW, chunk)?;
            self.write(base + slot::STAGE_OFFSET, offset as u64)?;
            self.write(base + slot::STAGE_CHUNK, chunk.len() as u64)?;
            self.slot_command(k, SlotOp::StageWrite, 0)?;
            offset += chunk.len();
        }
        Ok(())
    }
}

impl DeviceError {
    /// The §6 code when the device refused a command.
    pub fn code(&self) -> Option<Code> {
        match self {
            DeviceError::Command(CommandError::Refused { code, .. }) => Some(*code),
            _ => None,
        }
    }
}

fn read_identity(region: &Region) -> Result<Identity, DeviceError> {
    let r = |off| region.load(off, Ordering::Acquire);
    let magic = r(global::MAGIC)?;
    if magic != MAGIC_WORD {
        return Err(DeviceError::NotScenic {
            path: region.path().to_string(),
            magic,
        });
    }
    let version = r(global::VERSION)?;
    let (major, minor) = ((version >> 16) as u16, version as u16);
    if major != VERSION_MAJOR {
        return Err(DeviceError::Version { major, minor });
    }
    let bar = r(global::BAR_BYTES)?;
    if bar != MAP_BYTES {
        return Err(DeviceError::MapSize(bar));
    }
    let status = r(global::STATUS)?;
    if status & global::STATUS_FATAL != 0 {
        return Err(DeviceError::Fatal(global::status_fatal_code(status)));
    }
    if status & global::STATUS_READY == 0 {
        return Err(DeviceError::Gone("STATUS.READY is clear".to_string()));
    }
    let instance = r(global::INSTANCE)?.to_le_bytes();
    let instance = instance
        .iter()
        .take_while(|b| **b != 0)
        .map(|b| char::from(*b))
        .collect();
    Ok(Identity {
        major,
        minor,
        slots: SlotsWord::decode(r(global::SLOTS)?),
        clock_hz: r(global::CLOCK_HZ)?,
        line_rate_bps: r(global::LINE_RATE_BPS)?,
        features: r(global::FEATURES)?,
        poll_ns: r(global::POLL_NS)?,
        instance,
    })
}
