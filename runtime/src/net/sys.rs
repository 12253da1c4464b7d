//! The emulated NIC's two kinds of Linux attachment, on `libc` alone:
//!
//! - [`PacketPort`]: an `AF_PACKET` raw socket bound to an existing interface (a veth end, a real
//!   NIC), promiscuous, non-blocking; frames it sent itself (`PACKET_OUTGOING`) are skipped. `recv`
//!   reports a frame's real length (`MSG_TRUNC`), so a frame longer than the buffer is seen as such
//!   and counted as dropped, never silently truncated.
//! - [`Tap`]: a TAP netdev (`/dev/net/tun`, `IFF_TAP | IFF_NO_PI`), non-persistent (it disappears
//!   when the emulator exits), brought up with the MTU asked for.
//!
//! Both implement [`FrameIo`], which the datapath uses; tests use in-memory implementations.
//! This is, with `region.rs`, the crate's only `unsafe` code: each block is one system call on
//! a descriptor this module owns and on buffers whose lengths are passed with them.
//!
//! Frames a local sender left with a partial checksum (`TP_STATUS_CSUMNOTREADY`, veth with
//! checksum offload) get their TCP/UDP checksum completed before anyone sees them.
//!
//! Why no crate: the calls are a handful (`socket`, `bind`, `setsockopt`, `recvmsg`, `send`, `ioctl`),
//! `libc` is already a dependency, and the crates that wrap TAP devices (`tun`, `tun-tap`) bring
//! async runtimes or cover only half of what is needed here (no `AF_PACKET`).

#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A source and sink of Ethernet frames (without FCS).
pub trait FrameIo: Send {
    /// Receives one frame into `buf` without blocking: `Ok(None)` when none is waiting, else its
    /// real length, which is larger than `buf` when the frame did not fit (the caller drops it).
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>>;
    /// Sends one frame.
    fn send(&mut self, frame: &[u8]) -> io::Result<()>;
    /// The descriptor to wait on, if there is one.
    fn fd(&self) -> Option<RawFd> {
        None
    }
    /// The interface's current MTU, if it has one the host may change (a TAP netdev).
    fn mtu(&self) -> Option<u32> {
        None
    }
    /// Sends one frame to the host with the §5.2 tag's metadata; attachments without a tag (a
    /// TAP netdev) ignore it.
    fn send_tagged(&mut self, frame: &[u8], _tag: HostTag) -> io::Result<()> {
        self.send(frame)
    }
    /// Called once per datapath turn: an attachment that is served through registers (the host
    /// rings) applies the host's writes here.
    fn service(&mut self) -> Result<(), crate::region::RegionError> {
        Ok(())
    }
    /// How often an attachment with no descriptor must be polled for input (the host rings:
    /// nothing signals a doorbell), if it must.
    fn poll_period(&self) -> Option<std::time::Duration> {
        None
    }
}

/// What the §5.2 RX tag says of a frame besides its length and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostTag {
    /// The slot that sent it, `0xFF` straight from the slow path.
    pub slot: u8,
    /// The network port it arrived on.
    pub port: u8,
}

impl HostTag {
    /// Straight from the slow path of port 0.
    pub const DIRECT: HostTag = HostTag {
        slot: 0xFF,
        port: 0,
    };
}

const ETH_P_ALL: u16 = 0x0003;
const SOL_PACKET: libc::c_int = 263;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_MR_PROMISC: libc::c_ushort = 1;
const PACKET_OUTGOING: u8 = 4;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_AUXDATA: libc::c_int = 8;
const TP_STATUS_CSUMNOTREADY: u32 = 1 << 3;

/// Whether the frame's `PACKET_AUXDATA` says its L4 checksum is not computed yet (a frame from a
/// local sender with checksum offload, as on a veth: it must be completed before the host sees it).
fn csum_not_ready(msg: &libc::msghdr) -> bool {
    // SAFETY: `msg` was filled by recvmsg; the CMSG macros walk its control buffer within
    // `msg_controllen`, and tp_status is the first u32 of a PACKET_AUXDATA payload.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(msg);
        while !c.is_null() {
            if (*c).cmsg_level == SOL_PACKET && (*c).cmsg_type == PACKET_AUXDATA {
                let status = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<u32>());
                return status & TP_STATUS_CSUMNOTREADY != 0;
            }
            c = libc::CMSG_NXTHDR(msg, c);
        }
    }
    false
}

#[repr(C)]
struct PacketMreq {
    mr_ifindex: libc::c_int,
    mr_type: libc::c_ushort,
    mr_alen: libc::c_ushort,
    mr_address: [u8; 8],
}

pub(super) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn c_name(name: &str) -> io::Result<CString> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(['/', ' ']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{name}` is not an interface name (1-15 bytes, no `/` or space)"),
        ));
    }
    CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in name"))
}

pub(super) fn set_int_opt(
    fd: RawFd,
    level: libc::c_int,
    opt: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    // SAFETY: `value` lives across the call and its size is passed with it.
    let ret = unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    check(ret).map(|_| ())
}

/// An `AF_PACKET` raw socket on an existing interface: the emulated NIC's network port.
#[derive(Debug)]
pub struct PacketPort {
    fd: OwnedFd,
    name: String,
}

impl PacketPort {
    /// Binds to interface `name` (which must exist), promiscuous, non-blocking.
    pub fn bind(name: &str) -> io::Result<PacketPort> {
        let cname = c_name(name)?;
        // SAFETY: a NUL-terminated string.
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no network interface `{name}`"),
            ));
        }
        // Protocol 0 receives nothing until bound: no frame of another interface slips in.
        // SAFETY: plain system call.
        let raw = check(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            )
        })?;
        // SAFETY: `raw` is a descriptor just returned to us and owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: an all-zero sockaddr_ll is valid.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = ETH_P_ALL.to_be();
        sll.sll_ifindex = ifindex as libc::c_int;
        // SAFETY: `sll` lives across the call and its size is passed with it.
        check(unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })?;
        let mreq = PacketMreq {
            mr_ifindex: ifindex as libc::c_int,
            mr_type: PACKET_MR_PROMISC,
            mr_alen: 0,
            mr_address: [0; 8],
        };
        // SAFETY: `mreq` lives across the call and its size is passed with it.
        check(unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                SOL_PACKET,
                PACKET_ADD_MEMBERSHIP,
                (&mreq as *const PacketMreq).cast(),
                std::mem::size_of::<PacketMreq>() as libc::socklen_t,
            )
        })?;
        // The checksum state of each frame (a local sender leaves TCP/UDP checksums to offload).
        set_int_opt(fd.as_raw_fd(), SOL_PACKET, PACKET_AUXDATA, 1)?;
        // Kernels before 4.20 lack it; `recv` skips outgoing frames anyway.
        let _ = set_int_opt(fd.as_raw_fd(), SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
        // Bursts of a TCP transfer: room for a few thousand frames before the kernel drops.
        let _ = set_int_opt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_RCVBUF, 8 << 20);
        let _ = set_int_opt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_SNDBUF, 8 << 20);
        Ok(PacketPort {
            fd,
            name: name.to_string(),
        })
    }

    /// The interface's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

pub(super) fn would_block(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
    )
}

impl FrameIo for PacketPort {
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            // SAFETY: all-zero sockaddr_ll and msghdr are valid.
            let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
            let mut control = [0u64; 16];
            let mut iov = libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: buf.len(),
            };
            // SAFETY: as above.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_name = (&mut sll as *mut libc::sockaddr_ll).cast();
            msg.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = std::mem::size_of_val(&control);
            // SAFETY: every pointer in `msg` is valid for the length given with it; MSG_TRUNC
            // makes the return value the frame's real length.
            let n = unsafe { libc::recvmsg(self.fd.as_raw_fd(), &mut msg, libc::MSG_TRUNC) };
            if n < 0 {
                let e = io::Error::last_os_error();
                return if would_block(&e) { Ok(None) } else { Err(e) };
            }
            if sll.sll_pkttype == PACKET_OUTGOING {
                continue;
            }
            let n = n as usize;
            if csum_not_ready(&msg) && n <= buf.len() {
                super::classify::complete_checksum(&mut buf[..n]);
            }
            return Ok(Some(n));
        }
    }

    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: `frame` is valid for its length.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn fd(&self) -> Option<RawFd> {
        Some(self.fd.as_raw_fd())
    }
}

/// A TAP netdev: the emulated NIC's host side (the slow path's Linux interface).
#[derive(Debug)]
pub struct Tap {
    fd: OwnedFd,
    name: String,
}

fn ifreq_for(name: &CString) -> libc::ifreq {
    // SAFETY: an all-zero ifreq is valid.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(name.as_bytes()) {
        *d = *s as libc::c_char;
    }
    ifr
}

/// One `ioctl` on an `AF_INET` datagram socket (interface flags and MTU).
fn if_ioctl(req: libc::c_ulong, ifr: &mut libc::ifreq) -> io::Result<()> {
    // SAFETY: plain system call.
    let raw =
        check(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    // SAFETY: `raw` is ours.
    let sock = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: `ifr` is a valid ifreq for the request, alive across the call.
    check(unsafe { libc::ioctl(sock.as_raw_fd(), req as _, ifr as *mut libc::ifreq) }).map(|_| ())
}

impl Tap {
    /// Creates TAP `name` (refused if it exists and another process holds it), sets its MTU
    /// and brings it up.
    pub fn create(name: &str, mtu: u32) -> io::Result<Tap> {
        let cname = c_name(name)?;
        let path = c"/dev/net/tun";
        // SAFETY: a NUL-terminated path.
        let raw = check(unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        })
        .map_err(|e| io::Error::new(e.kind(), format!("/dev/net/tun: {e}")))?;
        // SAFETY: `raw` is ours.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut ifr = ifreq_for(&cname);
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: `ifr` is a valid ifreq, alive across the call.
        check(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF as _, &mut ifr) })
            .map_err(|e| io::Error::new(e.kind(), format!("creating TAP `{name}`: {e}")))?;
        let tap = Tap {
            fd,
            name: name.to_string(),
        };
        let mut ifr = ifreq_for(&cname);
        ifr.ifr_ifru.ifru_mtu = mtu as libc::c_int;
        if_ioctl(libc::SIOCSIFMTU, &mut ifr)
            .map_err(|e| io::Error::new(e.kind(), format!("MTU {mtu} on `{name}`: {e}")))?;
        let mut ifr = ifreq_for(&cname);
        if_ioctl(libc::SIOCGIFFLAGS, &mut ifr)?;
        // SAFETY: SIOCGIFFLAGS filled the flags member.
        let flags = unsafe { ifr.ifr_ifru.ifru_flags };
        ifr.ifr_ifru.ifru_flags = flags | libc::IFF_UP as libc::c_short;
        if_ioctl(libc::SIOCSIFFLAGS, &mut ifr)?;
        Ok(tap)
    }

    /// The netdev's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl FrameIo for Tap {
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for its length.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if would_block(&e) { Ok(None) } else { Err(e) };
        }
        Ok(Some(n as usize))
    }

    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: `frame` is valid for its length.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn fd(&self) -> Option<RawFd> {
        Some(self.fd.as_raw_fd())
    }

    fn mtu(&self) -> Option<u32> {
        let cname = CString::new(self.name.as_str()).ok()?;
        let mut ifr = ifreq_for(&cname);
        if_ioctl(libc::SIOCGIFMTU, &mut ifr).ok()?;
        // SAFETY: SIOCGIFMTU filled the mtu member.
        let mtu = unsafe { ifr.ifr_ifru.ifru_mtu };
        u32::try_from(mtu).ok()
    }
}

/// Waits until one of `fds` is readable or `timeout_ms` passed.
pub fn wait_readable(fds: &[RawFd], timeout_ms: i32) {
    wait_readable_for(
        fds,
        std::time::Duration::from_millis(timeout_ms.max(0) as u64),
    );
}

/// Waits until one of `fds` is readable or `timeout` passed (`ppoll`: below a millisecond too).
pub fn wait_readable_for(fds: &[RawFd], timeout: std::time::Duration) {
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: timeout.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `polls` is valid for its length and `ts` for the call; an error only ends the
    // wait early.
    let _ = unsafe {
        libc::ppoll(
            polls.as_mut_ptr(),
            polls.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
}

/// An `eventfd` another thread signals to end the datapath's idle wait: the server wakes it when
/// the host asks for a fence, so `DEV_FENCE` follows within a turn, not after the 1 ms idle poll.
#[derive(Debug)]
pub struct Waker {
    fd: OwnedFd,
}

impl Waker {
    /// A non-blocking eventfd.
    pub fn new() -> io::Result<Waker> {
        // SAFETY: plain system call; the descriptor is owned from here on.
        let raw = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        Ok(Waker {
            fd: unsafe { OwnedFd::from_raw_fd(raw) },
        })
    }

    /// Makes the descriptor readable (a full counter only means it already is).
    pub fn wake(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to our descriptor.
        let _ = unsafe {
            libc::write(
                self.fd.as_raw_fd(),
                (&one as *const u64).cast(),
                std::mem::size_of::<u64>(),
            )
        };
    }

    /// Clears the wake-up.
    pub fn drain(&self) {
        let mut value: u64 = 0;
        // SAFETY: reads at most 8 bytes into a live u64 from our descriptor.
        let _ = unsafe {
            libc::read(
                self.fd.as_raw_fd(),
                (&mut value as *mut u64).cast(),
                std::mem::size_of::<u64>(),
            )
        };
    }

    /// The descriptor to wait on.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
