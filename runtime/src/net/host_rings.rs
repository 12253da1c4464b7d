//! The host side as the §5 host rings in the map's ring memory (`F_RING_DEVMEM`): what a driver
//! (the kmod in a QEMU guest, whose ivshmem BAR 2 is this map) sees instead of a TAP netdev.
//!
//! [`HostRings`] is a [`FrameIo`]: `send` puts a frame for the host into the RX ring (§5.2: a
//! 16-byte tag, then the frame; tag word 0 last, then `RX_PROD`), `recv` takes the next frame the
//! host queued in the TX ring (§5.3) and advances `TX_CONS` once it is copied out. `service`,
//! called once per datapath turn, serves `RING_CTRL` and the ring registers (§5.1):
//!
//! - configuration (`RX_BASE`, `RX_SIZE`, `TX_BASE`, `TX_SIZE`) is taken when a ring is enabled:
//!   a size not a power of two in 64..=4096, a base not 4 KiB aligned, a ring outside ring memory,
//!   or host-memory location (bit 8) is `E_RING_CONFIG` and the enable bit is written back 0;
//! - enabling zeroes the ring's two indices; a configuration write while a ring is enabled is
//!   `E_RING_CONFIG` and the register is written back (the enabled ring keeps its configuration);
//! - a host index that moved backwards or more than the ring ahead (`RX_CONS` past `RX_PROD`,
//!   `TX_PROD` more than `TX_SIZE` past `TX_CONS`) is `E_QUEUE_OVERRUN`: that ring stops (its
//!   enable bit is written back 0) until the host enables it again;
//! - a global reset (the server's reset generation moved) disables both rings.
//!
//! A TX command with `VALID` clear, length 0 or past the buffer, a slot other than `0xFF` or a
//! port other than 0 (the datapath sends host frames out of port 0) is skipped and counted in
//! `HOST_TX_DROPS`. Invariant: `RX_PROD` and `TX_CONS` are only ever published after the bytes
//! they cover (Release), and the host's indices are read with Acquire.

use std::io;
use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Arc;

use super::steer::record_error;
use super::sys::{FrameIo, HostTag};
use crate::abi::codes::Code;
use crate::abi::{self, global};
use crate::region::{Region, RegionError};

/// How often the datapath polls `TX_PROD` when idle (the doorbell is a register).
pub const POLL_PERIOD: std::time::Duration = std::time::Duration::from_micros(20);
/// Bytes of the RX tag and of the TX command before each frame.
pub const TAG_BYTES: u64 = 16;
/// `RING_CTRL` bits.
const RX_EN: u64 = 1;
const TX_EN: u64 = 2;
const LOC_HOST: u64 = 1 << 8;
/// Tag and command flag `VALID`; RX tag flag `FROM_SCU`.
const VALID: u64 = 1;
const FROM_SCU: u64 = 2;

/// One enabled ring's configuration, as taken at enable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RingConf {
    base: u64,
    size: u64,
}

impl RingConf {
    /// The configuration in `(base_reg, size_reg)` if §5.1 accepts it.
    fn read(
        r: &Region,
        base_reg: u64,
        size_reg: u64,
        buf: u64,
    ) -> Result<Option<Self>, RegionError> {
        let base = r.load(base_reg, Ordering::Acquire)?;
        let size = r.load(size_reg, Ordering::Acquire)?;
        let ok = size.is_power_of_two()
            && (64..=4096).contains(&size)
            && base % 4096 == 0
            && base
                .checked_add(size * buf)
                .is_some_and(|end| end <= abi::RING_MEM_LEN);
        Ok(ok.then_some(RingConf { base, size }))
    }

    fn entry(&self, i: u32, buf: u64) -> u64 {
        abi::RING_MEM_START + self.base + (u64::from(i) % self.size) * buf
    }
}

/// The host rings (module doc).
#[derive(Debug)]
pub struct HostRings {
    region: Arc<Region>,
    buf_bytes: u64,
    resets: Arc<AtomicU64>,
    resets_seen: u64,
    ctrl: u64,
    rx: Option<RingConf>,
    tx: Option<RingConf>,
    rx_prod: u32,
    tx_cons: u32,
    now: std::time::Instant,
}

impl HostRings {
    /// Rings over `region` with buffers of `buf_bytes` (`BUF_BYTES`); `resets` is the server's
    /// reset generation (`EmuServer::reset_generation`). Both rings start disabled.
    pub fn new(region: Arc<Region>, buf_bytes: u64, resets: Arc<AtomicU64>) -> HostRings {
        HostRings {
            resets_seen: resets.load(Ordering::Acquire),
            region,
            buf_bytes,
            resets,
            ctrl: 0,
            rx: None,
            tx: None,
            rx_prod: 0,
            tx_cons: 0,
            now: std::time::Instant::now(),
        }
    }

    /// Serves `RING_CTRL` and the configuration registers (module doc).
    pub fn serve(&mut self) -> Result<(), RegionError> {
        let resets = self.resets.load(Ordering::Acquire);
        if resets != self.resets_seen {
            self.resets_seen = resets;
            self.ctrl = 0;
            self.rx = None;
            self.tx = None;
        }
        let r = Arc::clone(&self.region);
        self.guard_config(&r, global::RX_BASE, global::RX_SIZE, self.rx)?;
        self.guard_config(&r, global::TX_BASE, global::TX_SIZE, self.tx)?;
        let want = r.load(global::RING_CTRL, Ordering::Acquire)?;
        if want == self.ctrl {
            return Ok(());
        }
        let mut ctrl = want & (RX_EN | TX_EN | LOC_HOST);
        if want & !(RX_EN | TX_EN | LOC_HOST) != 0 || want & LOC_HOST != 0 {
            // Host-memory rings need F_RING_HOSTMEM, which the emulator does not have.
            record_error(&r, Code::RingConfig, global::RING_CTRL)?;
            ctrl = 0;
        }
        self.rx = self.enable(
            &r,
            ctrl & RX_EN != 0,
            self.rx,
            global::RX_BASE,
            global::RX_SIZE,
        )?;
        self.tx = self.enable(
            &r,
            ctrl & TX_EN != 0,
            self.tx,
            global::TX_BASE,
            global::TX_SIZE,
        )?;
        if self.rx.is_none() {
            ctrl &= !RX_EN;
        }
        if self.tx.is_none() {
            ctrl &= !TX_EN;
        }
        self.ctrl = ctrl;
        r.store(global::RING_CTRL, ctrl, Ordering::Release)
    }

    /// A ring's new state for an enable bit: enabling zeroes its indices and takes the config.
    fn enable(
        &mut self,
        r: &Region,
        on: bool,
        now: Option<RingConf>,
        base_reg: u64,
        size_reg: u64,
    ) -> Result<Option<RingConf>, RegionError> {
        match (on, now) {
            (false, _) => Ok(None),
            (true, Some(conf)) => Ok(Some(conf)),
            (true, None) => {
                let Some(conf) = RingConf::read(r, base_reg, size_reg, self.buf_bytes)? else {
                    record_error(r, Code::RingConfig, global::RING_CTRL)?;
                    return Ok(None);
                };
                if base_reg == global::RX_BASE {
                    self.rx_prod = 0;
                    r.store(global::RX_PROD, 0, Ordering::Relaxed)?;
                    r.store(global::RX_CONS, 0, Ordering::Release)?;
                } else {
                    self.tx_cons = 0;
                    r.store(global::TX_PROD, 0, Ordering::Relaxed)?;
                    r.store(global::TX_CONS, 0, Ordering::Release)?;
                }
                Ok(Some(conf))
            }
        }
    }

    /// A configuration write while the ring is enabled: refused and written back.
    fn guard_config(
        &self,
        r: &Region,
        base_reg: u64,
        size_reg: u64,
        conf: Option<RingConf>,
    ) -> Result<(), RegionError> {
        let Some(conf) = conf else { return Ok(()) };
        for (reg, value) in [(base_reg, conf.base), (size_reg, conf.size)] {
            if r.load(reg, Ordering::Acquire)? != value {
                r.store(reg, value, Ordering::Release)?;
                record_error(r, Code::RingConfig, reg)?;
            }
        }
        Ok(())
    }

    /// A host index broke the ring protocol: the ring stops until re-enabled.
    fn overrun(&mut self, bit: u64, reg: u64) -> Result<(), RegionError> {
        record_error(&self.region, Code::QueueOverrun, reg)?;
        if bit == RX_EN {
            self.rx = None;
        } else {
            self.tx = None;
        }
        self.ctrl &= !bit;
        self.region
            .store(global::RING_CTRL, self.ctrl, Ordering::Release)
    }

    fn count_tx_drop(&self) -> Result<(), RegionError> {
        let old = self.region.load(global::HOST_TX_DROPS, Ordering::Relaxed)?;
        self.region.store(
            global::HOST_TX_DROPS,
            old.wrapping_add(1),
            Ordering::Release,
        )
    }

    fn put_rx(&mut self, frame: &[u8], tag: HostTag) -> Result<bool, RegionError> {
        let Some(conf) = self.rx else {
            return Ok(false);
        };
        let cons = self.region.load(global::RX_CONS, Ordering::Acquire)? as u32;
        let used = u64::from(self.rx_prod.wrapping_sub(cons));
        if used > conf.size {
            self.overrun(RX_EN, global::RX_CONS)?;
            return Ok(false);
        }
        if used == conf.size || frame.len() as u64 > self.buf_bytes - TAG_BYTES {
            return Ok(false);
        }
        let at = conf.entry(self.rx_prod, self.buf_bytes);
        let r = &self.region;
        r.write_bytes(at + TAG_BYTES, frame)?;
        let time = self.now.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
        r.store(at + 8, time, Ordering::Relaxed)?;
        let flags = VALID | if tag.slot == 0xFF { 0 } else { FROM_SCU };
        let word0 = frame.len() as u64
            | flags << 16
            | u64::from(tag.slot) << 24
            | u64::from(tag.port) << 32;
        // The tag's VALID byte is visible no earlier than the frame (§5.2).
        fence(Ordering::Release);
        r.store(at, word0, Ordering::Relaxed)?;
        self.rx_prod = self.rx_prod.wrapping_add(1);
        r.store(global::RX_PROD, u64::from(self.rx_prod), Ordering::Release)?;
        Ok(true)
    }

    /// The next TX command: `Ok(Some(len))` with the frame in `buf`, skipping refused ones.
    fn take_tx(&mut self, buf: &mut [u8]) -> Result<Option<usize>, RegionError> {
        loop {
            let Some(conf) = self.tx else {
                return Ok(None);
            };
            let prod = self.region.load(global::TX_PROD, Ordering::Acquire)? as u32;
            let queued = u64::from(prod.wrapping_sub(self.tx_cons));
            if queued == 0 {
                return Ok(None);
            }
            if queued > conf.size {
                self.overrun(TX_EN, global::TX_PROD)?;
                return Ok(None);
            }
            let at = conf.entry(self.tx_cons, self.buf_bytes);
            let cmd = self.region.load(at, Ordering::Relaxed)?;
            let len = (cmd & 0xFFFF) as usize;
            let ok = (cmd >> 16) & VALID != 0
                && (cmd >> 24) & 0xFF == 0xFF
                && (cmd >> 32) & 0xFF == 0
                && len > 0
                && len as u64 <= self.buf_bytes - TAG_BYTES
                && len <= buf.len();
            if ok {
                self.region.read_bytes(at + TAG_BYTES, &mut buf[..len])?;
            } else {
                self.count_tx_drop()?;
            }
            self.tx_cons = self.tx_cons.wrapping_add(1);
            self.region
                .store(global::TX_CONS, u64::from(self.tx_cons), Ordering::Release)?;
            if ok {
                return Ok(Some(len));
            }
        }
    }
}

fn io_err(e: RegionError) -> io::Error {
    io::Error::other(e.to_string())
}

impl FrameIo for HostRings {
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        self.take_tx(buf).map_err(io_err)
    }

    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        self.send_tagged(frame, HostTag::DIRECT)
    }

    fn send_tagged(&mut self, frame: &[u8], tag: HostTag) -> io::Result<()> {
        match self.put_rx(frame, tag).map_err(io_err)? {
            true => Ok(()),
            false => Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "RX ring full or disabled",
            )),
        }
    }

    fn service(&mut self) -> Result<(), RegionError> {
        self.serve()
    }

    fn poll_period(&self) -> Option<std::time::Duration> {
        Some(POLL_PERIOD)
    }
}

#[cfg(test)]
mod tests {
    //! The host side of §5.1–§5.3 played by the test, as a driver would, against the rules of
    //! device.md (not against this module's output).
    use super::*;

    const BUF: u64 = 16384;

    fn setup() -> (tempfile::TempDir, Arc<Region>, HostRings, Arc<AtomicU64>) {
        let dir = tempfile::tempdir().unwrap();
        let region = Arc::new(Region::create(&dir.path().join("map"), abi::MAP_BYTES).unwrap());
        let resets = Arc::new(AtomicU64::new(0));
        let rings = HostRings::new(Arc::clone(&region), BUF, Arc::clone(&resets));
        (dir, region, rings, resets)
    }

    fn w(r: &Region, off: u64, v: u64) {
        r.store(off, v, Ordering::SeqCst).unwrap();
    }

    fn rd(r: &Region, off: u64) -> u64 {
        r.load(off, Ordering::SeqCst).unwrap()
    }

    /// RX at 0, TX at 0x800000 of ring memory, 64 entries each, both enabled.
    fn enable(r: &Region, rings: &mut HostRings) {
        w(r, global::RX_BASE, 0);
        w(r, global::RX_SIZE, 64);
        w(r, global::TX_BASE, 0x80_0000);
        w(r, global::TX_SIZE, 64);
        w(r, global::RING_CTRL, RX_EN | TX_EN);
        rings.serve().unwrap();
        assert_eq!(rd(r, global::RING_CTRL), RX_EN | TX_EN);
        assert_eq!(rd(r, global::RX_PROD), 0, "enabling zeroes the indices");
    }

    #[test]
    fn rx_tag_then_frame_then_prod() {
        let (_d, r, mut rings, _) = setup();
        enable(&r, &mut rings);
        let frame: Vec<u8> = (0..60u8).collect();
        rings
            .send_tagged(&frame, HostTag { slot: 2, port: 0 })
            .unwrap();
        rings.send(&[7; 1514]).unwrap();
        assert_eq!(rd(&r, global::RX_PROD), 2);
        let at = abi::RING_MEM_START;
        let tag = rd(&r, at);
        assert_eq!(tag & 0xFFFF, 60, "len");
        assert_eq!((tag >> 16) & 0xFF, VALID | FROM_SCU, "flags");
        assert_eq!((tag >> 24) & 0xFF, 2, "slot");
        let mut got = vec![0; 60];
        r.read_bytes(at + 16, &mut got).unwrap();
        assert_eq!(got, frame);
        let tag1 = rd(&r, at + BUF);
        assert_eq!(
            (tag1 & 0xFFFF, (tag1 >> 16) & 0xFF, (tag1 >> 24) & 0xFF),
            (1514, 1, 0xFF)
        );
    }

    #[test]
    fn rx_ring_full_and_disabled_refuse() {
        let (_d, r, mut rings, _) = setup();
        assert!(rings.send(&[1; 60]).is_err(), "disabled");
        enable(&r, &mut rings);
        for _ in 0..64 {
            rings.send(&[1; 60]).unwrap();
        }
        assert!(rings.send(&[1; 60]).is_err(), "full at 64");
        w(&r, global::RX_CONS, 1);
        rings.send(&[1; 60]).unwrap();
        assert_eq!(rd(&r, global::RX_PROD), 65);
    }

    #[test]
    fn rx_cons_past_prod_is_an_overrun() {
        let (_d, r, mut rings, _) = setup();
        enable(&r, &mut rings);
        rings.send(&[1; 60]).unwrap();
        w(&r, global::RX_CONS, 5);
        assert!(rings.send(&[1; 60]).is_err());
        assert_eq!(rd(&r, global::RING_CTRL), TX_EN, "RX stopped");
        assert_eq!(
            rd(&r, global::ERROR) & 0xFFFF,
            u64::from(Code::QueueOverrun.number())
        );
    }

    fn queue_tx(r: &Region, i: u64, cmd: u64, frame: &[u8]) {
        let at = abi::RING_MEM_START + 0x80_0000 + (i % 64) * BUF;
        r.write_bytes(at + 16, frame).unwrap();
        w(r, at, cmd);
        w(r, global::TX_PROD, i + 1);
    }

    #[test]
    fn tx_frames_in_order_and_refused_commands_skipped() {
        let (_d, r, mut rings, _) = setup();
        enable(&r, &mut rings);
        let direct = |len: u64| len | 1 << 16 | 0xFF << 24;
        queue_tx(&r, 0, direct(60), &[0xA; 60]);
        queue_tx(&r, 1, 60 | 1 << 16 | 3 << 24, &[0xB; 60]); // slot 3: refused in 1.0
        queue_tx(&r, 2, direct(60) & !(1 << 16), &[0xC; 60]); // VALID clear
        queue_tx(&r, 3, direct(100), &[0xD; 100]);
        let mut buf = vec![0; 20000];
        assert_eq!(rings.recv(&mut buf).unwrap(), Some(60));
        assert_eq!(buf[..60], [0xA; 60]);
        assert_eq!(rings.recv(&mut buf).unwrap(), Some(100));
        assert_eq!(buf[..100], [0xD; 100]);
        assert_eq!(rings.recv(&mut buf).unwrap(), None);
        assert_eq!(rd(&r, global::TX_CONS), 4);
        assert_eq!(rd(&r, global::HOST_TX_DROPS), 2);
    }

    #[test]
    fn bad_configurations_are_refused() {
        let (_d, r, mut rings, _) = setup();
        for (base, size) in [(0, 48), (0, 8192), (0x100, 64), (0xFF_0000, 512)] {
            w(&r, global::RX_BASE, base);
            w(&r, global::RX_SIZE, size);
            w(&r, global::RING_CTRL, RX_EN);
            rings.serve().unwrap();
            assert_eq!(rd(&r, global::RING_CTRL), 0, "base {base:#x} size {size}");
            assert_eq!(
                rd(&r, global::ERROR) & 0xFFFF,
                u64::from(Code::RingConfig.number())
            );
        }
        w(&r, global::RX_BASE, 0);
        w(&r, global::RX_SIZE, 64);
        w(&r, global::RING_CTRL, RX_EN | LOC_HOST);
        rings.serve().unwrap();
        assert_eq!(
            rd(&r, global::RING_CTRL),
            0,
            "host memory without F_RING_HOSTMEM"
        );
    }

    #[test]
    fn config_change_while_enabled_is_written_back() {
        let (_d, r, mut rings, _) = setup();
        enable(&r, &mut rings);
        w(&r, global::RX_SIZE, 128);
        rings.serve().unwrap();
        assert_eq!(rd(&r, global::RX_SIZE), 64);
        assert_eq!(
            rd(&r, global::ERROR) & 0xFFFF,
            u64::from(Code::RingConfig.number())
        );
    }

    #[test]
    fn enabling_zeroes_indices_and_reset_disables() {
        let (_d, r, mut rings, resets) = setup();
        enable(&r, &mut rings);
        rings.send(&[1; 60]).unwrap();
        w(&r, global::RX_CONS, 1);
        // The server's global reset (§2.2): ring registers to their reset values, then the
        // generation moves.
        for reg in [global::RING_CTRL, global::RX_PROD, global::RX_CONS] {
            w(&r, reg, 0);
        }
        resets.fetch_add(1, Ordering::SeqCst);
        rings.serve().unwrap();
        assert!(rings.send(&[1; 60]).is_err(), "a reset disabled the rings");
        rings.send(&[1; 60]).unwrap_err();
        enable(&r, &mut rings);
        assert_eq!(rd(&r, global::RX_PROD), 0);
        assert_eq!(rd(&r, global::RX_CONS), 0);
        rings.send(&[1; 60]).unwrap();
        assert_eq!(rd(&r, global::RX_PROD), 1);
    }
}
