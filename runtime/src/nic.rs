//! The emulated NIC as a process: [`run`] serves the register map ([`EmuServer`]) on one thread and
//! the datapath ([`crate::net::Datapath`]) on another, over a network port (`AF_PACKET` on an existing
//! interface) and a host side, until a stop flag is set. The host side is a TAP netdev, or the
//! §5 host rings in the map's ring memory, which a driver serves (the kmod in a QEMU guest whose
//! ivshmem BAR 2 is the map: docs/kmod.md); [`PidFile`] and
//! [`stop_on_signals`] are what `scenic nic up`/`down` build on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::emu::serve::serve;
use crate::emu::EMU_BUF_BYTES;
use crate::emu::{EmuConfig, EmuError, EmuServer, EMU_MTU_MAX};
use crate::net::{FrameIo, HostRings, PacketPort, Tap};
use crate::region::RegionError;

/// What `scenic nic up` asks for.
#[derive(Debug, Clone)]
pub struct NicConfig {
    /// Instance name (`emu:NAME`).
    pub name: String,
    /// The network ports, port 0 first: existing interfaces (1–4).
    pub ports: Vec<String>,
    /// The host side.
    pub host: HostSide,
    /// SCU slots, 1–16.
    pub slots: u8,
    /// The TAP's initial MTU (the host may change it with `ip link`).
    pub mtu: u32,
}

/// The host side of the emulated NIC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSide {
    /// A TAP netdev of this name, created and brought up (no driver needed).
    Tap(String),
    /// The §5 host rings in the map's ring memory, served by a driver (the kmod).
    Rings,
}

impl std::fmt::Display for HostSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostSide::Tap(name) => write!(f, "host TAP {name}"),
            HostSide::Rings => write!(f, "host rings"),
        }
    }
}

/// Why the NIC could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum NicError {
    /// The map could not be served (in use, bad name, I/O).
    #[error(transparent)]
    Emu(#[from] EmuError),
    /// The port or the TAP could not be opened.
    #[error("{what}: {source}")]
    Attach {
        /// Which attachment.
        what: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// Not 1–4 network ports.
    #[error("{0} network ports given: the emulated NIC has 1 to 4")]
    Ports(usize),
    /// The MTU is outside 68..=MTU_MAX.
    #[error("MTU {0} is outside 68..={EMU_MTU_MAX}")]
    Mtu(u32),
    /// The map failed while running.
    #[error(transparent)]
    Region(#[from] RegionError),
}

impl NicError {
    /// Exit code: 2 for a name in use or an attachment that cannot be opened (usage/IO), 1 else.
    pub fn exit_code(&self) -> i32 {
        match self {
            NicError::Emu(_) | NicError::Attach { .. } | NicError::Mtu(_) | NicError::Ports(_) => 2,
            NicError::Region(_) => 1,
        }
    }
}

/// Runs the NIC until `stop` is set (or the datapath fails); `ready` is called once it serves.
pub fn run(config: &NicConfig, stop: &AtomicBool, ready: impl FnOnce()) -> Result<(), NicError> {
    if !(68..=EMU_MTU_MAX as u32).contains(&config.mtu) {
        return Err(NicError::Mtu(config.mtu));
    }
    if config.ports.is_empty() || config.ports.len() > 4 {
        return Err(NicError::Ports(config.ports.len()));
    }
    let emu = EmuConfig {
        instance: config.name.clone(),
        scu_slots: config.slots,
        ports: config.ports.len() as u8,
        ..EmuConfig::default()
    };
    let mut server = EmuServer::create(&format!("emu:{}", config.name), emu)?;
    let banks = server.enable_models();
    let attach = || -> Result<(Vec<PacketPort>, Box<dyn FrameIo>), NicError> {
        let mut ports = Vec::new();
        for (p, name) in config.ports.iter().enumerate() {
            ports.push(PacketPort::bind(name).map_err(|source| NicError::Attach {
                what: format!("network port {p} `{name}`"),
                source,
            })?);
        }
        let host: Box<dyn FrameIo> =
            match &config.host {
                HostSide::Tap(name) => Box::new(Tap::create(name, config.mtu).map_err(
                    |source| NicError::Attach {
                        what: format!("host TAP `{name}`"),
                        source,
                    },
                )?),
                HostSide::Rings => Box::new(HostRings::new(
                    server.shared_region(),
                    EMU_BUF_BYTES,
                    server.reset_generation(),
                )),
            };
        Ok((ports, host))
    };
    let (ports, host) = match attach() {
        Ok(pair) => pair,
        Err(e) => {
            let _ = server.shutdown();
            return Err(e);
        }
    };
    let ports: Vec<Box<dyn FrameIo>> = ports
        .into_iter()
        .map(|p| Box::new(p) as Box<dyn FrameIo>)
        .collect();
    let ran = serve(&mut server, banks, ports, host, stop, ready);
    // The device is gone: its map file and the slot journals that described its units go too
    // (clients that still map the file keep their mapping and see READY clear).
    let map = std::path::PathBuf::from(server.region().path());
    let _ = std::fs::remove_file(&map);
    crate::state::forget_journals(&map);
    ran?;
    Ok(())
}

/// The pid file of a running NIC: `/run/scenic/NAME.pid`, or `/tmp/scenic-NAME.pid` where
/// `/run/scenic` cannot be created.
#[derive(Debug)]
pub struct PidFile {
    path: PathBuf,
}

/// The places a NIC's pid file may be, in order of preference.
pub fn pid_paths(name: &str) -> [PathBuf; 2] {
    [
        PathBuf::from(format!("/run/scenic/{name}.pid")),
        PathBuf::from(format!("/tmp/scenic-{name}.pid")),
    ]
}

/// The pid in `name`'s pid file, if one names a live process.
pub fn running_pid(name: &str) -> Option<i32> {
    pid_paths(name).iter().find_map(|p| {
        let pid: i32 = std::fs::read_to_string(p).ok()?.trim().parse().ok()?;
        alive(pid).then_some(pid)
    })
}

/// Whether `pid` is a live process (not a zombie).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses: "pid (comm) S ...".
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

impl PidFile {
    /// Writes this process's pid for `name`.
    pub fn write(name: &str) -> std::io::Result<PidFile> {
        let [run, tmp] = pid_paths(name);
        let path = match run.parent().map(std::fs::create_dir_all) {
            Some(Ok(())) => run,
            _ => tmp,
        };
        let pid = std::process::id().to_string();
        match std::fs::write(&path, &pid) {
            Ok(()) => Ok(PidFile { path }),
            Err(_) => {
                let [_, tmp] = pid_paths(name);
                std::fs::write(&tmp, pid)?;
                Ok(PidFile { path: tmp })
            }
        }
    }

    /// Where it is.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for PidFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Release);
}

/// Makes `SIGTERM`, `SIGINT` and `SIGHUP` set the returned flag instead of killing the process,
/// so that the NIC shuts down cleanly (`READY` cleared, TAP removed, pid file removed).
#[allow(unsafe_code)]
pub fn stop_on_signals() -> &'static AtomicBool {
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(
                sig,
                on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
    &STOP
}

/// Restores the default action of `SIGPIPE` (the Rust runtime ignores it): a reader that goes
/// away (`scenic status emu0 | head`) ends the command quietly, as with any Unix tool, instead of
/// a failed write to stdout.
#[allow(unsafe_code)]
pub fn default_sigpipe() {
    // SAFETY: installs the default disposition; no handler code runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Sends `SIGTERM` to `pid`.
#[allow(unsafe_code)]
pub fn terminate(pid: i32) -> std::io::Result<()> {
    // SAFETY: plain system call.
    if unsafe { libc::kill(pid, libc::SIGTERM) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Starts a new session (detaches from the terminal): the daemon's first act.
#[allow(unsafe_code)]
pub fn detach() {
    // SAFETY: plain system call; failure (already a group leader) leaves us attached, harmlessly.
    let _ = unsafe { libc::setsid() };
}
