//! [`Wire`]: an in-process network cable for the emulated NIC, so that tests, notebooks and the
//! Python and C APIs can put frames on a port and take what comes out without root, veth pairs or
//! a TAP. It is a `socketpair(AF_UNIX, SOCK_SEQPACKET)`: one datagram per frame, boundaries and
//! order kept, and a descriptor the datapath waits on like any port's.
//!
//! The device's end ([`WireDevice`]) is a [`FrameIo`] given to the datapath; the other end
//! ([`Wire`]) belongs to the caller: `send` is a frame arriving at the NIC, `recv` a frame the NIC
//! sent. Invariants: both ends are non-blocking; a frame longer than [`MAX_FRAME`] is refused on
//! `send` (nothing is truncated silently); a wire that stays full is an error on `send` (the
//! caller's, after [`SEND_WAIT`]; the device's at once, counted as a drop), never a silent loss.

// System calls on descriptors this module owns; each block says why it is sound.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use super::sys::{check, set_int_opt, wait_readable, would_block, FrameIo};

/// The longest frame a wire carries: the emulator's buffer less its tag (device.md §5.1).
pub const MAX_FRAME: usize = 16384 - 16;

/// How long [`Wire::send`] waits for room on a full wire.
pub const SEND_WAIT: Duration = Duration::from_secs(1);

/// Socket buffer per end: room for a few hundred full-size frames in flight.
const SOCKET_BUFFER: libc::c_int = 4 << 20;

/// The caller's end of a wire.
#[derive(Debug)]
pub struct Wire {
    fd: OwnedFd,
}

/// The device's end of a wire: a port (or the host side) of the datapath.
#[derive(Debug)]
pub struct WireDevice {
    fd: OwnedFd,
}

/// A new wire: the caller's end and the device's end.
pub fn wire() -> io::Result<(Wire, WireDevice)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` has room for the two descriptors socketpair writes.
    check(unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    })?;
    // SAFETY: both descriptors were just returned to us and are owned by nobody else.
    let (a, b) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    for fd in [&a, &b] {
        let _ = set_int_opt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            SOCKET_BUFFER,
        );
        let _ = set_int_opt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            SOCKET_BUFFER,
        );
    }
    Ok((Wire { fd: a }, WireDevice { fd: b }))
}

/// One datagram into `buf`: `Ok(None)` when none waits, else its real length (`MSG_TRUNC`).
fn recv_one(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: `buf` is valid for its length; MSG_TRUNC makes the result the datagram's length.
    let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_TRUNC) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if would_block(&e) { Ok(None) } else { Err(e) };
    }
    Ok(Some(n as usize))
}

/// Waits until `fd` has room to write or `timeout_ms` passed.
fn wait_writable(fd: RawFd, timeout_ms: i32) {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd; an error only ends the wait early.
    let _ = unsafe { libc::poll(&mut p, 1, timeout_ms) };
}

fn send_one(fd: RawFd, frame: &[u8]) -> io::Result<()> {
    // SAFETY: `frame` is valid for its length.
    let n = unsafe { libc::send(fd, frame.as_ptr().cast(), frame.len(), libc::MSG_NOSIGNAL) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl Wire {
    /// Puts one frame on the wire towards the NIC, waiting up to [`SEND_WAIT`] for room while
    /// the NIC takes earlier frames. Refused: an empty frame, one longer than [`MAX_FRAME`], and a
    /// wire still full after the wait (`WouldBlock`: the NIC is not taking frames).
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        if frame.is_empty() || frame.len() > MAX_FRAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a frame of {} bytes: a wire carries 1 to {MAX_FRAME} bytes",
                    frame.len()
                ),
            ));
        }
        let until = Instant::now() + SEND_WAIT;
        loop {
            match send_one(self.fd.as_raw_fd(), frame) {
                Err(e) if would_block(&e) && Instant::now() < until => {
                    wait_writable(self.fd.as_raw_fd(), 1);
                }
                other => return other,
            }
        }
    }

    /// The next frame the NIC sent on this wire, waiting up to `timeout` (zero: only what is
    /// already there).
    pub fn recv(&self, timeout: Duration) -> io::Result<Option<Vec<u8>>> {
        let until = Instant::now() + timeout;
        let mut buf = vec![0u8; MAX_FRAME];
        loop {
            if let Some(n) = recv_one(self.fd.as_raw_fd(), &mut buf)? {
                buf.truncate(n.min(MAX_FRAME));
                return Ok(Some(buf));
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
            wait_readable(&[self.fd.as_raw_fd()], ms);
        }
    }

    /// Every frame waiting now, in order.
    pub fn drain(&self) -> io::Result<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        while let Some(f) = self.recv(Duration::ZERO)? {
            out.push(f);
        }
        Ok(out)
    }
}

impl FrameIo for WireDevice {
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        recv_one(self.fd.as_raw_fd(), buf)
    }

    /// A full wire (the caller does not read) or a closed one is an error: the datapath counts
    /// the frame in `TX_DROPS` / `HOST_RX_DROPS` as it does for a full TAP queue.
    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        send_one(self.fd.as_raw_fd(), frame)
    }

    fn fd(&self) -> Option<RawFd> {
        Some(self.fd.as_raw_fd())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cross_both_ways_with_their_boundaries() {
        let (user, mut dev) = wire().unwrap();
        user.send(&[1, 2, 3]).unwrap();
        user.send(&[4; 1500]).unwrap();
        let mut buf = [0u8; 2048];
        assert_eq!(dev.recv(&mut buf).unwrap(), Some(3));
        assert_eq!(&buf[..3], &[1, 2, 3]);
        assert_eq!(dev.recv(&mut buf).unwrap(), Some(1500));
        assert_eq!(dev.recv(&mut buf).unwrap(), None);
        dev.send(&[9; 60]).unwrap();
        assert_eq!(user.recv(Duration::ZERO).unwrap(), Some(vec![9; 60]));
        assert_eq!(user.recv(Duration::from_millis(5)).unwrap(), None);
    }

    #[test]
    fn bad_lengths_are_refused_not_truncated() {
        let (user, _dev) = wire().unwrap();
        assert!(user.send(&[]).is_err());
        assert!(user.send(&vec![0; MAX_FRAME + 1]).is_err());
        assert!(user.send(&vec![0; MAX_FRAME]).is_ok());
    }

    #[test]
    fn a_full_wire_is_an_error_for_the_device_not_a_silent_loss() {
        let (_user, mut dev) = wire().unwrap();
        let frame = [1u8; 1500];
        let sent = (0..100_000)
            .take_while(|_| dev.send(&frame).is_ok())
            .count();
        assert!(
            sent > 0 && sent < 100_000,
            "{sent} frames before the wire was full"
        );
        let err = dev.send(&frame).unwrap_err();
        assert!(would_block(&err), "{err}");
    }

    #[test]
    fn a_frame_longer_than_the_device_buffer_reports_its_length() {
        let (user, mut dev) = wire().unwrap();
        user.send(&[7; 100]).unwrap();
        let mut small = [0u8; 10];
        assert_eq!(dev.recv(&mut small).unwrap(), Some(100));
    }
}
