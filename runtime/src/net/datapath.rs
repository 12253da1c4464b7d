//! The datapath loop: frames from the network ports go through the prefilter (§2.3) to a slot's
//! input queue or to the slow path; slots are served round robin, packet-granular, up to
//! `ARB_WEIGHT` packets per turn (§3.8); their outputs leave through a port or to the host. Frames
//! from the host go straight out of port 0 (§5.3: `slot` is `0xFF` in interface 1.0).
//!
//! One thread owns everything here (ports, TAP, engines, queues, steering), so steering changes and
//! engine swaps happen between two packets by construction. Each turn of [`Datapath::run`]:
//!
//! 1. serves the registers the datapath owns: `SLOW_PATH_SLOT`, `STEER_CMD`, `MTU` (and the TAP's
//!    MTU, which the host changes with `ip link`), and reads each slot's `SLOT_STATE` (`HAS_ACTIVE`)
//!    and `ARB_WEIGHT`;
//! 2. receives up to [`BATCH`] frames from each port and from the host;
//! 3. arbitrates until every queue is empty;
//! 4. adds the turn's counts to the map's counters (§2.4, §3.2, §5.1);
//! 5. when nothing arrived, waits (`poll(2)`) up to 1 ms for a descriptor to become readable.
//!
//! Counting: `RX_PKTS`/`RX_BYTES` count every frame a port received, `RX_DROPS` those of them
//! dropped before steering (longer than `MTU + 18`, or a full slow-path queue). A frame larger than
//! the receive buffer is dropped and counted, never truncated. A TCP super-frame (TSO or GRO) is
//! cut into the segments a wire would carry ([`super::gso`]) and they are counted, each a frame.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::classify::{classify, Class};
use super::steer::{record_error, Steering};
use super::sys::{wait_readable_for, FrameIo, HostTag};
use super::{Destination, SlotEngine, SlotInput, Source, Verdict};
use crate::abi::codes::Code;
use crate::abi::{self, global, slot};
use crate::region::{Region, RegionError};

/// `MTU_MAX` of the emulated NIC: jumbo frames up to 9000 bytes of payload.
pub const EMU_MTU_MAX: u64 = 9000;
/// Frames taken from one source per turn.
pub const BATCH: usize = 64;
/// Ethernet header and one VLAN tag: a frame may be `MTU + 18` bytes (§5.4).
pub const L2_OVERHEAD: u64 = 18;
/// Receive buffer: larger than any acceptable frame, so an oversized one is seen whole.
const RX_BUF: usize = 65536 + 64;

/// The datapath's shape.
#[derive(Debug, Clone)]
pub struct DatapathConfig {
    /// SCU slots.
    pub scu_slots: u8,
    /// Inputs a slot's queue holds before `DROP_FULL`.
    pub queue_depth: usize,
    /// `MTU_MAX`.
    pub mtu_max: u64,
    /// How often the TAP's MTU is re-read.
    pub mtu_check: Duration,
}

impl Default for DatapathConfig {
    fn default() -> Self {
        DatapathConfig {
            scu_slots: 4,
            queue_depth: 1024,
            mtu_max: EMU_MTU_MAX,
            mtu_check: Duration::from_millis(50),
        }
    }
}

struct Input {
    data: Vec<u8>,
    port: u8,
    now_ns: u64,
    class: Class,
}

/// The emulated NIC's packet side (module doc).
pub struct Datapath {
    region: Arc<Region>,
    config: DatapathConfig,
    ports: Vec<Box<dyn FrameIo>>,
    host: Box<dyn FrameIo>,
    engines: Vec<Box<dyn SlotEngine>>,
    queues: Vec<VecDeque<Input>>,
    active: Vec<bool>,
    weights: Vec<u64>,
    rr: usize,
    steering: Steering,
    mtu: u64,
    tap_mtu: Option<u32>,
    mtu_checked: Instant,
    started: Instant,
    resets: Arc<AtomicU64>,
    resets_seen: u64,
    fence: Arc<AtomicU64>,
    waker: Option<Arc<super::sys::Waker>>,
    pending: HashMap<u64, u64>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Datapath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Datapath")
            .field("config", &self.config)
            .field("ports", &self.ports.len())
            .finish()
    }
}

impl Datapath {
    /// A datapath over the map, with its ports and host side; every SCU slot gets a
    /// [`super::PassThrough`] engine until [`Datapath::set_engine`] replaces it. `resets` is the
    /// server's reset generation (`EmuServer::reset_generation`).
    pub fn new(
        region: Arc<Region>,
        config: DatapathConfig,
        ports: Vec<Box<dyn FrameIo>>,
        host: Box<dyn FrameIo>,
        resets: Arc<AtomicU64>,
    ) -> Datapath {
        let n = usize::from(config.scu_slots);
        let started = Instant::now();
        Datapath {
            steering: Steering::new(config.scu_slots),
            engines: (0..n)
                .map(|_| Box::new(super::PassThrough) as Box<dyn SlotEngine>)
                .collect(),
            // One queue per SCU slot, and the slow path without an SCU as the last participant.
            queues: (0..=n).map(|_| VecDeque::new()).collect(),
            active: vec![false; n],
            weights: vec![1; n + 1],
            rr: 0,
            mtu: 1500,
            tap_mtu: None,
            mtu_checked: started - config.mtu_check,
            started,
            resets_seen: resets.load(Ordering::Acquire),
            fence: Arc::new(AtomicU64::new(0)),
            waker: super::sys::Waker::new().ok().map(Arc::new),
            resets,
            pending: HashMap::new(),
            buf: vec![0; RX_BUF],
            region,
            config,
            ports,
            host,
        }
    }

    /// Installs slot `k`'s engine (the interpreter's, next stage).
    pub fn set_engine(&mut self, k: u8, engine: Box<dyn SlotEngine>) {
        if let Some(e) = self.engines.get_mut(usize::from(k)) {
            *e = engine;
        }
    }

    /// The last `HOST_FENCE` value whose earlier writes this datapath applied; the server
    /// publishes `DEV_FENCE` only once this holds it (`EmuServer::set_fence_gate`).
    pub fn fence_gate(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.fence)
    }

    /// What ends the datapath's idle wait besides its ports: the server wakes it when the host
    /// asks for a fence (`None` when no eventfd could be made: the 1 ms wait bounds the fence).
    pub fn waker(&self) -> Option<Arc<super::sys::Waker>> {
        self.waker.clone()
    }

    /// Runs turns until `stop` is set; a map error ends it.
    pub fn run(&mut self, stop: &AtomicBool) -> Result<(), RegionError> {
        let mut fds: Vec<_> = self.ports.iter().filter_map(|p| p.fd()).collect();
        fds.extend(self.host.fd());
        let has_io = !fds.is_empty();
        fds.extend(self.waker.as_ref().map(|w| w.fd()));
        // Host rings have no descriptor: their doorbell is a register, polled this often.
        let idle = self
            .host
            .poll_period()
            .map_or(Duration::from_millis(1), |p| {
                p.min(Duration::from_millis(1))
            });
        while !stop.load(Ordering::Acquire) {
            if self.turn()? == 0 {
                if has_io {
                    wait_readable_for(&fds, idle);
                    if let Some(w) = &self.waker {
                        w.drain();
                    }
                } else {
                    std::thread::sleep(Duration::from_micros(100));
                }
            }
        }
        Ok(())
    }

    /// One turn (module doc, steps 1–4); returns the frames received.
    pub fn turn(&mut self) -> Result<usize, RegionError> {
        self.serve_registers()?;
        let got = self.receive();
        self.arbitrate();
        self.flush()?;
        Ok(got)
    }

    fn now_ns(&self) -> u64 {
        self.started.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64
    }

    fn bump(&mut self, offset: u64, n: u64) {
        *self.pending.entry(offset).or_insert(0) += n;
    }

    fn port_bump(&mut self, p: u8, reg: u64, n: u64) {
        if let Some(base) = global::port_block(p) {
            self.bump(base + reg, n);
        }
    }

    fn slot_bump(&mut self, k: usize, reg: u64, n: u64) {
        self.bump(abi::slot_block_unchecked(k as u8) + reg, n);
    }

    fn flush(&mut self) -> Result<(), RegionError> {
        for (off, n) in self.pending.drain() {
            let old = self.region.load(off, Ordering::Relaxed)?;
            self.region
                .store(off, old.wrapping_add(n), Ordering::Release)?;
        }
        Ok(())
    }

    fn serve_registers(&mut self) -> Result<(), RegionError> {
        let fence = self.region.load(global::HOST_FENCE, Ordering::Acquire)?;
        let resets = self.resets.load(Ordering::Acquire);
        if resets != self.resets_seen {
            self.resets_seen = resets;
            self.steering = Steering::new(self.config.scu_slots);
            self.pending.clear();
            self.mtu = 1500;
            self.tap_mtu = None;
        }
        self.steering.serve(&self.region)?;
        self.serve_mtu()?;
        self.host.service()?;
        for k in 0..self.engines.len() {
            let base = abi::slot_block_unchecked(k as u8);
            let state = self
                .region
                .load(base + slot::SLOT_STATE, Ordering::Acquire)?;
            self.active[k] = state & slot::STATE_HAS_ACTIVE != 0;
            let w = self
                .region
                .load(base + slot::ARB_WEIGHT, Ordering::Acquire)?
                & 0xFF;
            self.weights[k] = w.max(1);
        }
        self.fence.store(fence, Ordering::Release);
        Ok(())
    }

    /// `MTU` (RW, §5.1): a host write within 68..=`MTU_MAX` is taken, another is refused
    /// (`E_MTU`, written back). The TAP's own MTU, changed with `ip link`, is the host's write.
    fn serve_mtu(&mut self) -> Result<(), RegionError> {
        if self.mtu_checked.elapsed() >= self.config.mtu_check {
            self.mtu_checked = Instant::now();
            let tap = self.host.mtu();
            if tap != self.tap_mtu {
                self.tap_mtu = tap;
                if let Some(m) = tap {
                    self.region
                        .store(global::MTU, u64::from(m), Ordering::Release)?;
                }
            }
        }
        let seen = self.region.load(global::MTU, Ordering::Acquire)?;
        if seen != self.mtu {
            if (68..=self.config.mtu_max).contains(&seen) {
                self.mtu = seen;
            } else {
                self.region
                    .store(global::MTU, self.mtu, Ordering::Release)?;
                record_error(&self.region, Code::Mtu, global::MTU)?;
            }
        }
        Ok(())
    }

    fn too_long(&self, len: usize) -> bool {
        len as u64 > self.mtu + L2_OVERHEAD || len > RX_BUF
    }

    fn receive(&mut self) -> usize {
        let mut got = 0;
        for p in 0..self.ports.len() {
            for _ in 0..BATCH {
                let Ok(Some(n)) = self.ports[p].recv(&mut self.buf) else {
                    break;
                };
                got += 1;
                self.rx_port(p as u8, n);
            }
        }
        for _ in 0..BATCH {
            let Ok(Some(n)) = self.host.recv(&mut self.buf) else {
                break;
            };
            got += 1;
            self.rx_host(n);
        }
        got
    }

    fn rx_port(&mut self, p: u8, n: usize) {
        if self.too_long(n) && n <= self.buf.len() {
            // A TCP super-frame (TSO from a veth peer, GRO): the segments a wire would carry.
            if let Some(segments) = super::gso::segment_tcp(&self.buf[..n], self.mtu as usize) {
                for seg in segments {
                    self.rx_frame(p, seg);
                }
                return;
            }
        }
        self.port_bump(p, global::RX_PKTS, 1);
        self.port_bump(p, global::RX_BYTES, n as u64);
        if self.too_long(n) || n < 14 {
            self.port_bump(p, global::RX_DROPS, 1);
            return;
        }
        let data = self.buf[..n].to_vec();
        self.steer(p, data);
    }

    /// One frame a port received (a segment of a super-frame): counted, then steered.
    fn rx_frame(&mut self, p: u8, data: Vec<u8>) {
        self.port_bump(p, global::RX_PKTS, 1);
        self.port_bump(p, global::RX_BYTES, data.len() as u64);
        if self.too_long(data.len()) || data.len() < 14 {
            self.port_bump(p, global::RX_DROPS, 1);
            return;
        }
        self.steer(p, data);
    }

    /// The prefilter (§2.3) and the enqueue of one frame from port `p`.
    fn steer(&mut self, p: u8, data: Vec<u8>) {
        let class = classify(&data);
        let (steered, miss_shift) = match class {
            Class::Roce(qpn) => (self.steering.roce.lookup(qpn), Some(0)),
            Class::Tcp(flow) => (self.steering.tcp.lookup(flow), Some(32)),
            Class::Slow => (None, None),
        };
        let input = Input {
            data,
            port: p,
            now_ns: self.now_ns(),
            class,
        };
        let slow = self.config.scu_slots as usize;
        let target = match (steered, miss_shift) {
            (Some(k), _) => {
                self.port_bump(p, global::RX_STEERED, 1);
                if self.active[usize::from(k)] {
                    usize::from(k)
                } else {
                    // Steered to a slot with no active bank: passed on unprocessed, counted.
                    self.slot_bump(usize::from(k), slot::DROP_NO_UNIT, 1);
                    slow
                }
            }
            (None, miss) => {
                if let Some(shift) = miss {
                    self.bump(global::STEER_MISSES, 1 << shift);
                }
                self.port_bump(p, global::RX_SLOW_PATH, 1);
                match usize::from(self.steering.slow_path) {
                    k if k < slow && self.active[k] => k,
                    _ => slow,
                }
            }
        };
        self.enqueue(target, input);
    }

    fn enqueue(&mut self, target: usize, input: Input) {
        if self.queues[target].len() < self.config.queue_depth {
            self.queues[target].push_back(input);
        } else if target < self.engines.len() {
            self.slot_bump(target, slot::DROP_FULL, 1);
        } else {
            self.port_bump(input.port, global::RX_DROPS, 1);
        }
    }

    fn rx_host(&mut self, n: usize) {
        if n == 0 || self.too_long(n) {
            self.bump(global::HOST_TX_DROPS, 1);
            return;
        }
        self.bump(global::HOST_TX_PKTS, 1);
        self.bump(global::HOST_TX_BYTES, n as u64);
        let frame = self.buf[..n].to_vec();
        self.tx_port(0, &frame);
    }

    fn tx_port(&mut self, p: u8, frame: &[u8]) -> bool {
        let sent = !self.too_long(frame.len())
            && self
                .ports
                .get_mut(usize::from(p))
                .is_some_and(|port| port.send(frame).is_ok());
        if sent {
            self.port_bump(p, global::TX_PKTS, 1);
            self.port_bump(p, global::TX_BYTES, frame.len() as u64);
        } else {
            self.port_bump(p, global::TX_DROPS, 1);
        }
        sent
    }

    fn tx_host(&mut self, frame: &[u8], tag: HostTag) -> bool {
        let sent = !self.too_long(frame.len()) && self.host.send_tagged(frame, tag).is_ok();
        if sent {
            self.bump(global::HOST_RX_PKTS, 1);
            self.bump(global::HOST_RX_BYTES, frame.len() as u64);
        } else {
            self.bump(global::HOST_RX_DROPS, 1);
        }
        sent
    }

    /// Round robin over the participants with queued input (§3.8) until all queues are empty.
    fn arbitrate(&mut self) {
        let n = self.queues.len();
        while self.queues.iter().any(|q| !q.is_empty()) {
            for _ in 0..n {
                let k = self.rr;
                self.rr = (self.rr + 1) % n;
                for _ in 0..self.weights[k] {
                    let Some(input) = self.queues[k].pop_front() else {
                        break;
                    };
                    if k < self.engines.len() {
                        self.process(k, input);
                    } else {
                        let tag = HostTag {
                            slot: 0xFF,
                            port: input.port,
                        };
                        self.tx_host(&input.data, tag);
                    }
                }
            }
        }
    }

    /// Hands one input to slot `k`'s engine and sends its outputs.
    fn process(&mut self, k: usize, input: Input) {
        self.slot_bump(k, slot::PKT_SEQ, 1);
        self.slot_bump(k, slot::RX_BYTES, input.data.len() as u64);
        let verdict: Verdict = self.engines[k].packet(SlotInput {
            data: &input.data,
            source: Source::Network(input.port),
            now_ns: input.now_ns,
            class: input.class,
        });
        if verdict.dropped {
            self.slot_bump(k, slot::DROP_PROGRAM, 1);
        }
        if verdict.parser_error {
            self.slot_bump(k, slot::DROP_PARSER, 1);
        }
        if verdict.mirrored {
            self.slot_bump(k, slot::MIRRORED, 1);
        }
        if verdict.unprocessed {
            self.slot_bump(k, slot::DROP_NO_UNIT, 1);
        }
        for (dest, frame) in verdict.outputs {
            let bytes = frame.len() as u64;
            match dest {
                Destination::Network(p) => {
                    if self.tx_port(p, &frame) {
                        self.slot_bump(k, slot::OUT_NET_PKTS, 1);
                        self.slot_bump(k, slot::OUT_NET_BYTES, bytes);
                    }
                }
                Destination::Host => {
                    let tag = HostTag {
                        slot: k as u8,
                        port: input.port,
                    };
                    if self.tx_host(&frame, tag) {
                        self.slot_bump(k, slot::OUT_HOST_PKTS, 1);
                        self.slot_bump(k, slot::OUT_HOST_BYTES, bytes);
                    }
                }
            }
        }
    }
}
