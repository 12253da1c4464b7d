//! The device side's minimal server: the part of the emulated NIC that exists in this stage.
//!
//! [`EmuServer`] creates the map file, publishes identity and reset values, and then, on every
//! [`EmuServer::poll`] (the emulator's poll period, `POLL_NS`), does what `docs/device.md` asks of a
//! shared-memory device that does not trap writes (§1.5):
//!
//! 1. reads `HOST_FENCE` first (with `Acquire`: every host write before it is now visible);
//! 2. re-publishes any identity register the host overwrote, recording `E_READ_ONLY` in `ERROR`;
//! 3. takes `RESET` and every slot's `SLOT_CMD` with an atomic swap to 0; slot commands go through
//!    [`SlotMachine`] (one per slot block), so a refused command changes nothing but the result
//!    register; the loaded units are served (CSR windows, control queues, cc events), and only
//!    then are the commands' results published: a host that sees a result sees the window of the
//!    bank it made active, and its next CSR write is never overwritten by the switch-over;
//! 4. counts a draining bank down to `QUIESCED` (`EmuConfig::quiesce_polls` polls: in this stage
//!    nothing is in flight, the knob lets tests see the `DRAINING` window);
//! 5. publishes the fence value read in step 1 in `DEV_FENCE`: everything the host wrote before the
//!    fence has been applied.
//!
//! `HEARTBEAT` and `NOW_NS` are not the poll's: a [`Heartbeat`] advances them on a thread of its
//! own every [`HEARTBEAT_PERIOD`] ([`EmuServer::run`] starts it), so a long command (a load that
//! compiles a model, a reset) never makes the device look gone; §1.6 asks for a beat at least
//! every millisecond.
//!
//! `LOAD` checks what this stage can (image kind supported, image complete) and hands the staged
//! image to [`EmuServer::set_loader`]'s hook; the next stage installs the real loader there (model
//! container parsing, manifest checks, the interpreter), plus rings, steering, ports and TAP.
//! [`EmuServer::shutdown`] clears `STATUS.READY` and stops the heartbeat (§1.6).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::abi::codes::Code;
use crate::abi::global::{self, SlotsWord, EMULATOR_FEATURES};
use crate::abi::slot::{self, Bank, SlotKind, SlotStateWord};
use crate::abi::{self, CommandWord, ErrorWord, ResultWord, MAGIC_WORD, MAP_BYTES};
use crate::device::{resolve, DeviceError};
use crate::region::{Region, RegionError};
use crate::slot_state::{Effect, SlotMachine};

/// The emulator's shape and timing.
#[derive(Debug, Clone)]
pub struct EmuConfig {
    /// Instance name (`INSTANCE`, at most 8 bytes shown).
    pub instance: String,
    /// SCU slots, 1–16.
    pub scu_slots: u8,
    /// CC slots, 0 or 2.
    pub cc_slots: u8,
    /// Flows of a CC slot.
    pub cc_flows: u16,
    /// Network ports, 1–4.
    pub ports: u8,
    /// Poll period (`POLL_NS`).
    pub poll: Duration,
    /// Polls a draining bank takes to become `QUIESCED`.
    pub quiesce_polls: u32,
    /// `VERSION` to publish (tests of version refusal change it).
    pub version: u64,
}

impl Default for EmuConfig {
    fn default() -> Self {
        EmuConfig {
            instance: "emu0".to_string(),
            scu_slots: 4,
            cc_slots: 2,
            cc_flows: 1024,
            ports: 1,
            poll: Duration::from_micros(10),
            quiesce_polls: 0,
            version: abi::VERSION_WORD,
        }
    }
}

/// Clock the emulator models (§2.2 `CLOCK_HZ`).
pub const EMU_CLOCK_HZ: u64 = 391_000_000;
/// Line rate the emulator advertises.
pub const EMU_LINE_RATE_BPS: u64 = 200_000_000_000;
/// Largest image the emulator stages (§3.3: 256 MiB).
pub const EMU_STAGE_MAX: u64 = 256 << 20;
/// Buffer bytes of the host rings (§5.1).
pub const EMU_BUF_BYTES: u64 = 16384;
/// `MTU_MAX` of the emulator (the datapath's).
pub use crate::net::datapath::EMU_MTU_MAX;

/// A load the server asks its loader to perform.
#[derive(Debug)]
pub struct LoadRequest<'a> {
    /// The slot block index.
    pub slot: u8,
    /// The bank being loaded.
    pub bank: Bank,
    /// `STAGE_KIND`.
    pub kind: u64,
    /// The staged image.
    pub image: &'a [u8],
    /// The identity registers and CRC the host staged with it.
    pub staged: model::Staged,
}

/// What a loader found in the image: the identity-block fields the staged identity lacks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadedUnit {
    /// `CSR_WORDS`: CSR words of the unit.
    pub csr_words: u64,
    /// `FLOWS`: flow slots of a cc (0 for an scu).
    pub flows: u64,
    /// `UNIT[16..24)`: attach, 0 `slow_path`, 1 `rdma`, 2 `tcp`, 3 `cc`.
    pub attach: u8,
    /// A cc's output kind (`CC_OUTPUT_KIND`): 0 none, 1 rate, 2 window.
    pub output_kind: u8,
}

/// The loader hook: `Ok` loads the bank (`SHADOW`), `Err(code)` refuses (`EMPTY`, `LOAD_STATUS`).
pub type Loader = Box<dyn FnMut(&LoadRequest<'_>) -> Result<LoadedUnit, Code> + Send>;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The configuration is out of the interface's ranges.
    #[error("bad emulator configuration: {0}")]
    Config(&'static str),
    /// The name is not usable.
    #[error(transparent)]
    Name(#[from] DeviceError),
    /// A live device already serves this map (its heartbeat moves).
    #[error("{0} is already served by a running device (its heartbeat moves); stop it first")]
    InUse(String),
    /// Creating or writing the map failed.
    #[error(transparent)]
    Region(#[from] RegionError),
    /// The in-process server ([`thread::EmuThread`]) did not start.
    #[error("the emulated device did not start: {0}")]
    NotStarted(String),
}

/// The device side of one map.
pub struct EmuServer {
    region: Arc<Region>,
    config: EmuConfig,
    slots: Vec<SlotMachine>,
    drain_left: Vec<u32>,
    images: Vec<Vec<u8>>,
    published: Vec<(u64, u64)>,
    touched: Vec<bool>,
    output_kind: Vec<u8>,
    started: Instant,
    loader: Loader,
    resets: Arc<AtomicU64>,
    fence_gate: Option<Arc<AtomicU64>>,
    fence_waker: Option<Arc<crate::net::sys::Waker>>,
    models: Option<models::Models>,
}

/// How often [`EmuServer::run`]'s heartbeat thread beats.
pub const HEARTBEAT_PERIOD: Duration = Duration::from_micros(200);

/// Advances `HEARTBEAT` and `NOW_NS`; one per server, on its own thread (or in a test's loop).
#[derive(Debug)]
pub struct Heartbeat {
    region: Arc<Region>,
    started: Instant,
    count: u64,
}

impl Heartbeat {
    /// One beat: `HEARTBEAT` + 1, `NOW_NS` = time since the server started.
    pub fn beat(&mut self) -> Result<(), RegionError> {
        self.count = self.count.wrapping_add(1);
        let now = self.started.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.region.store(global::NOW_NS, now, Ordering::Release)?;
        self.region
            .store(global::HEARTBEAT, self.count, Ordering::Release)
    }
}

impl std::fmt::Debug for EmuServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuServer")
            .field("path", &self.region.path())
            .field("config", &self.config)
            .finish()
    }
}

/// What the loader of this stage checks: kind 1 (model container) and a complete image.
pub fn default_loader() -> Loader {
    Box::new(|req: &LoadRequest<'_>| {
        if req.kind != 1 {
            return Err(Code::ImageKind);
        }
        Ok(LoadedUnit::default())
    })
}

impl EmuServer {
    /// Creates `/dev/shm/scenic-NAME` for `emu:NAME`, or the given path, and publishes the map.
    pub fn create(name: &str, config: EmuConfig) -> Result<EmuServer, EmuError> {
        EmuServer::create_path(&resolve(name)?, config)
    }

    /// Creates the map file at `path` and publishes identity and reset values (`READY` last);
    /// refuses a path a running device serves.
    pub fn create_path(path: &Path, config: EmuConfig) -> Result<EmuServer, EmuError> {
        if !(1..=abi::MAX_SCU_SLOTS).contains(&config.scu_slots) {
            return Err(EmuError::Config("SCU slots must be 1-16"));
        }
        if config.cc_slots != 0 && config.cc_slots != 2 {
            return Err(EmuError::Config("CC slots must be 0 or 2"));
        }
        if !(1..=abi::MAX_PORTS).contains(&config.ports) {
            return Err(EmuError::Config("ports must be 1-4"));
        }
        // A second server on a live map would corrupt it: refuse while the old one beats. A stale
        // file (no heartbeat within 100 ms, READY clear, not a map) is replaced.
        if path.exists() && crate::Device::open_path(path).is_ok() {
            return Err(EmuError::InUse(path.display().to_string()));
        }
        let region = Arc::new(Region::create(path, MAP_BYTES)?);
        let slots = (0..abi::SLOT_BLOCKS)
            .map(|k| SlotMachine::new(kind_of(&config, k)))
            .collect();
        let mut server = EmuServer {
            region,
            slots,
            drain_left: vec![0; abi::SLOT_BLOCKS as usize],
            images: vec![Vec::new(); abi::SLOT_BLOCKS as usize],
            published: Vec::new(),
            touched: vec![false; abi::SLOT_BLOCKS as usize],
            output_kind: vec![0; abi::SLOT_BLOCKS as usize],
            started: Instant::now(),
            loader: default_loader(),
            resets: Arc::new(AtomicU64::new(0)),
            fence_gate: None,
            fence_waker: None,
            models: None,
            config,
        };
        server.publish_identity()?;
        server.write_reset_values()?;
        server
            .region
            .store(global::STATUS, global::STATUS_READY, Ordering::Release)?;
        Ok(server)
    }

    /// Replaces the loader hook (the next stage's model loader goes here).
    pub fn set_loader(&mut self, loader: Loader) {
        self.loader = loader;
    }

    /// The map.
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// The map, shared (the datapath thread holds it too).
    pub fn shared_region(&self) -> Arc<Region> {
        Arc::clone(&self.region)
    }

    /// Makes `DEV_FENCE` wait for a second party (the datapath, which owns steering and `MTU`):
    /// a fence value is published only once `gate` holds it too (§1.3 covers every host write).
    pub fn set_fence_gate(&mut self, gate: Arc<AtomicU64>) {
        self.fence_gate = Some(gate);
    }

    /// What the server signals when a fence waits for the gate's owner (the datapath's
    /// [`crate::net::Datapath::waker`]), so an idle datapath applies the host's writes at once.
    pub fn set_fence_waker(&mut self, waker: Arc<crate::net::sys::Waker>) {
        self.fence_waker = Some(waker);
    }

    /// Counts global resets; the datapath clears what it owns (steering, `MTU`) when it moves.
    pub fn reset_generation(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.resets)
    }

    /// The server's heartbeat, to run on a thread of its own ([`EmuServer::run`] does).
    pub fn heartbeat(&self) -> Heartbeat {
        let count = self
            .region
            .load(global::HEARTBEAT, Ordering::Acquire)
            .unwrap_or(0);
        Heartbeat {
            region: Arc::clone(&self.region),
            started: self.started,
            count,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &EmuConfig {
        &self.config
    }

    /// Slot block `k`'s state machine.
    pub fn slot(&self, k: u8) -> Option<&SlotMachine> {
        self.slots.get(k as usize)
    }

    fn publish_identity(&mut self) -> Result<(), RegionError> {
        let c = &self.config;
        let slots = SlotsWord {
            scu_slots: c.scu_slots,
            cc_slots: c.cc_slots,
            cc_flows: c.cc_flows,
            ports: c.ports,
        };
        let mut name = [0u8; 8];
        for (d, s) in name.iter_mut().zip(c.instance.bytes()) {
            *d = s;
        }
        self.published = vec![
            (global::MAGIC, MAGIC_WORD),
            (global::VERSION, c.version),
            (global::SLOTS, slots.encode()),
            (global::CLOCK_HZ, EMU_CLOCK_HZ),
            (global::LINE_RATE_BPS, EMU_LINE_RATE_BPS),
            (global::FEATURES, EMULATOR_FEATURES),
            (
                global::POLL_NS,
                c.poll.as_nanos().min(u64::MAX as u128) as u64,
            ),
            (global::BAR_BYTES, MAP_BYTES),
            (global::INSTANCE, u64::from_le_bytes(name)),
        ];
        for (off, value) in &self.published {
            self.region.store(*off, *value, Ordering::Relaxed)?;
        }
        Ok(())
    }

    /// Every `RW`/`RO` register that has a reset value other than 0, and zero elsewhere (§2.2 reset).
    fn write_reset_values(&mut self) -> Result<(), RegionError> {
        let r = &self.region;
        // Global control (identity, HEARTBEAT and NOW_NS kept), steering, ports, rings, CC: zero,
        // then the non-zero reset values.
        for reg in [
            global::ERROR,
            global::SCRATCH,
            global::HOST_FENCE,
            global::DEV_FENCE,
        ] {
            r.store(reg, 0, Ordering::Relaxed)?;
        }
        r.zero(global::STEER_CAPS, 0x8000 - global::STEER_CAPS)?;
        r.store(global::STEER_CAPS, 4096 | 4096 << 32, Ordering::Relaxed)?;
        r.store(
            global::SLOW_PATH_SLOT,
            global::SLOW_PATH_NONE,
            Ordering::Relaxed,
        )?;
        for p in 0..self.config.ports {
            if let Some(base) = global::port_block(p) {
                r.store(
                    base + global::MAC_ADDR,
                    0x00_00_00_5C_E0_02 | (p as u64) << 40,
                    Ordering::Relaxed,
                )?;
                r.store(base + global::LINK, 1 | 200_000 << 32, Ordering::Relaxed)?;
            }
        }
        let ring_values = [
            (global::RING_MEM_OFFSET, abi::RING_MEM_START),
            (global::RING_MEM_BYTES, abi::RING_MEM_LEN),
            (global::BUF_BYTES, EMU_BUF_BYTES),
            (global::MTU_MAX, EMU_MTU_MAX),
            (global::MTU, 1500),
            (global::RX_SIZE, 512),
            (global::TX_BASE, 0x80_0000),
            (global::TX_SIZE, 512),
            (global::RX_COAL_NS, 20_000),
            (global::RX_COAL_COUNT, 32),
            (global::TX_COAL_COUNT, 64),
            (
                global::EV_INFO,
                global::EV_RING_ENTRIES as u64 | global::EV_ENTRY_BYTES << 16,
            ),
        ];
        for (off, value) in ring_values {
            r.store(off, value, Ordering::Relaxed)?;
        }
        for k in 0..abi::SLOT_BLOCKS {
            self.reset_slot_block(k)?;
        }
        Ok(())
    }

    fn reset_slot_block(&mut self, k: u8) -> Result<(), RegionError> {
        let base = abi::slot_block_unchecked(k);
        let kind = kind_of(&self.config, k);
        // The registers always; the CSR window and CC outputs only where a bank was loaded since the
        // last reset (nothing else writes them). Ring entries and the staging window are plain
        // memory whose contents mean nothing once the indices and STAGE_FILLED are zero.
        self.region.zero(base, 0x1000)?;
        if std::mem::take(&mut self.touched[k as usize]) {
            self.region.zero(
                base + slot::CC_OUTPUTS,
                slot::STAGE_WINDOW - slot::CC_OUTPUTS,
            )?;
        }
        if let Some(m) = self.slots.get_mut(k as usize) {
            m.reset();
        }
        self.images[k as usize] = Vec::new();
        self.drain_left[k as usize] = 0;
        self.output_kind[k as usize] = 0;
        if kind == SlotKind::Absent {
            return Ok(());
        }
        let values = [
            (slot::SLOT_INFO, kind as u64 | (k as u64) << 8),
            (slot::ARB_WEIGHT, 1),
            (slot::STAGE_MAX, EMU_STAGE_MAX),
            (slot::CQ_INFO, slot::CQ_INFO_WORD),
            (slot::NQ_INFO, slot::NQ_INFO_WORD),
        ];
        for (off, value) in values {
            self.region.store(base + off, value, Ordering::Relaxed)?;
        }
        Ok(())
    }

    /// One poll of the device loop (module doc, steps 1–5).
    pub fn poll(&mut self) -> Result<(), RegionError> {
        let fence = self.region.load(global::HOST_FENCE, Ordering::Acquire)?;
        self.guard_read_only()?;
        self.take_reset()?;
        // Command results are published last: a host that sees a result finds the CSR window
        // already showing the new bank, so a CSR write right after it is never overwritten by
        // the window's switch-over later in this poll.
        let mut results = Vec::new();
        if self.config.cc_slots == 2 {
            results.extend(self.take_cc_command()?);
        }
        for k in 0..abi::SLOT_BLOCKS {
            if self.slots[k as usize].kind() != SlotKind::Absent {
                results.extend(self.serve_slot(k)?);
            }
        }
        self.serve_models()?;
        self.serve_cc()?;
        for (reg, word) in results {
            self.region.store(reg, word, Ordering::Release)?;
        }
        if self
            .fence_gate
            .as_ref()
            .is_none_or(|g| g.load(Ordering::Acquire) == fence)
        {
            self.region
                .store(global::DEV_FENCE, fence, Ordering::Release)?;
        } else if let Some(waker) = &self.fence_waker {
            // The datapath has not applied the host's writes yet: end its idle wait.
            waker.wake();
        }
        Ok(())
    }

    /// Polls every `POLL_NS` and beats every [`HEARTBEAT_PERIOD`] (on a second thread) until
    /// `stop` is set, then shuts down (`READY` clear). While `freeze` is set both do nothing, like
    /// a hung device: the heartbeat stops, `READY` stays set.
    pub fn run(&mut self, stop: &AtomicBool, freeze: &AtomicBool) -> Result<(), RegionError> {
        let mut heartbeat = self.heartbeat();
        let halt = AtomicBool::new(false);
        let halt = &halt;
        let beats = move || -> Result<(), RegionError> {
            while !stop.load(Ordering::Acquire) && !halt.load(Ordering::Acquire) {
                if !freeze.load(Ordering::Acquire) {
                    heartbeat.beat()?;
                }
                std::thread::sleep(HEARTBEAT_PERIOD);
            }
            Ok(())
        };
        std::thread::scope(|scope| {
            let beating = scope.spawn(beats);
            let mut served = Ok(());
            while !stop.load(Ordering::Acquire) && served.is_ok() {
                if !freeze.load(Ordering::Acquire) {
                    served = self.poll();
                }
                std::thread::sleep(self.config.poll);
            }
            // A failed poll ends the heartbeat too: the device stops looking alive.
            halt.store(true, Ordering::Release);
            let beaten = beating.join().unwrap_or(Ok(()));
            served.and(beaten)
        })?;
        self.shutdown()
    }

    /// Clears `STATUS.READY`; the heartbeat stops with the polls (§1.6).
    pub fn shutdown(&mut self) -> Result<(), RegionError> {
        self.region.store(global::STATUS, 0, Ordering::Release)
    }

    fn guard_read_only(&mut self) -> Result<(), RegionError> {
        for i in 0..self.published.len() {
            let (off, value) = self.published[i];
            let seen = self.region.load(off, Ordering::Acquire)?;
            if seen != value {
                self.region.store(off, value, Ordering::Release)?;
                self.record_error(global::ERROR, Code::ReadOnly, off)?;
            }
        }
        Ok(())
    }

    fn record_error(&self, reg: u64, code: Code, offset: u64) -> Result<(), RegionError> {
        let old = ErrorWord::decode(self.region.load(reg, Ordering::Acquire)?);
        let word = ErrorWord {
            code: code.number(),
            offset: offset as u32,
            count: old.count.wrapping_add(1),
        };
        self.region.store(reg, word.encode(), Ordering::Release)
    }

    fn answer(&self, reg: u64, status: Code, detail: u32, seq: u16) -> Result<(), RegionError> {
        let word = ResultWord {
            status: status.number(),
            detail,
            seq,
        };
        self.region.store(reg, word.encode(), Ordering::Release)
    }

    fn take_reset(&mut self) -> Result<(), RegionError> {
        let word = self.region.swap(global::RESET, 0, Ordering::AcqRel)?;
        if word == 0 {
            return Ok(());
        }
        let cmd = CommandWord::decode(word);
        let status = if cmd.seq == 0 {
            Code::Seq
        } else if cmd.opcode != global::RESET_OPCODE {
            Code::BadCommand
        } else if cmd.arg != global::RESET_KEY {
            Code::ResetKey
        } else {
            self.region.store(
                global::STATUS,
                global::STATUS_READY | global::STATUS_RESETTING,
                Ordering::Release,
            )?;
            self.write_reset_values()?;
            self.resets.fetch_add(1, Ordering::AcqRel);
            self.region
                .store(global::STATUS, global::STATUS_READY, Ordering::Release)?;
            Code::Ok
        };
        self.answer(global::RESET_RESULT, status, 0, cmd.seq)
    }

    /// Takes slot `k`'s command and advances its drain; returns the result register and word to
    /// publish at the end of the poll.
    fn serve_slot(&mut self, k: u8) -> Result<Option<(u64, u64)>, RegionError> {
        let base = abi::slot_block_unchecked(k);
        let i = k as usize;
        let word = self
            .region
            .swap(base + slot::SLOT_CMD, 0, Ordering::AcqRel)?;
        let answer = match word {
            0 => None,
            w => Some(self.slot_command(k, CommandWord::decode(w))?),
        };
        if self.slots[i].draining_busy() {
            if self.drain_left[i] == 0 {
                self.slots[i].set_quiesced();
            } else {
                self.drain_left[i] -= 1;
            }
        }
        // The state first, then the result: a host that sees the result sees the new state.
        self.publish_state(k)?;
        if answer.is_some() {
            self.follow_units(k);
        }
        Ok(answer.map(|result| (base + slot::SLOT_RESULT, result.encode())))
    }

    fn publish_state(&self, k: u8) -> Result<(), RegionError> {
        let base = abi::slot_block_unchecked(k);
        let word: SlotStateWord = self.slots[k as usize].word();
        self.region
            .store(base + slot::SLOT_STATE, word.encode(), Ordering::Release)
    }

    fn cc_active(&self, k: u8) -> bool {
        let active = self
            .region
            .load(global::CC_ACTIVE, Ordering::Acquire)
            .unwrap_or(0);
        active & 0x100 != 0 && u64::from(k) == u64::from(abi::CC_SLOT_A) + (active & 0xFF)
    }

    /// Performs one slot command; the caller publishes the state, then the returned result.
    fn slot_command(&mut self, k: u8, cmd: CommandWord) -> Result<ResultWord, RegionError> {
        let base = abi::slot_block_unchecked(k);
        let done = |status: Code, detail: u32| ResultWord {
            status: status.number(),
            detail,
            seq: cmd.seq,
        };
        if cmd.seq == 0 {
            return Ok(done(Code::Seq, 0));
        }
        let cc_active = self.cc_active(k);
        let i = k as usize;
        match self.slots[i].apply(cmd.opcode, cmd.arg, cc_active) {
            Err(refusal) => Ok(done(refusal.code, refusal.detail)),
            Ok(Effect::LoadStarted(bank)) => {
                self.touched[i] = true;
                self.publish_state(k)?;
                let status = self.load(k, bank)?;
                Ok(done(status, bank as u32))
            }
            Ok(Effect::Switched(bank)) => {
                self.switch_units(k, bank, cmd.arg & slot::ACTIVATE_CARRY != 0);
                let seq = self.region.load(base + slot::PKT_SEQ, Ordering::Acquire)?;
                self.region
                    .store(base + slot::SWITCH_SEQ, seq, Ordering::Release)?;
                let count = self
                    .region
                    .load(base + slot::SWITCH_COUNT, Ordering::Acquire)?;
                let count = count.wrapping_add(1);
                self.region
                    .store(base + slot::SWITCH_COUNT, count, Ordering::Release)?;
                self.drain_left[i] = self.config.quiesce_polls;
                Ok(done(Code::Ok, bank as u32))
            }
            Ok(Effect::Bank(bank)) => {
                if self.slots[i].bank(bank) == slot::BankState::Empty {
                    let identity = base + slot::identity_block(bank);
                    self.region.zero(identity, slot::IDENTITY_STRIDE)?;
                }
                self.drain_left[i] = self.config.quiesce_polls;
                Ok(done(Code::Ok, bank as u32))
            }
            Ok(Effect::Allowed) => Ok(done(self.staging_or_queue(k, cmd)?, 0)),
        }
    }
}

fn kind_of(config: &EmuConfig, k: u8) -> SlotKind {
    if k < config.scu_slots {
        SlotKind::Scu
    } else if config.cc_slots == 2 && (k == abi::CC_SLOT_A || k == abi::CC_SLOT_B) {
        SlotKind::Cc
    } else {
        SlotKind::Absent
    }
}

pub mod banks;
mod carry;
mod cc;
mod cc_carry;
pub mod cc_events;
pub mod cc_unit;
pub mod model;
mod models;
pub mod serve;
mod staging;
pub mod thread;
pub mod unit;
