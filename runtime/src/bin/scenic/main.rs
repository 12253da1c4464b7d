//! `scenic`: the runtime's command line (issue 12). This stage: `nic up`, `nic down`, `status`.
//!
//! Exit codes as the compiler's: 0 ok, 1 errors, 2 usage or I/O (a name already up, an interface
//! that cannot be opened, a device that is not there).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use scenic_runtime::nic::{self, NicConfig, PidFile};

mod status;

/// The SCENIC runtime: run the emulated NIC, and drive a SCENIC device.
#[derive(Parser, Debug)]
#[command(name = "scenic", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The emulated NIC.
    Nic {
        #[command(subcommand)]
        action: NicAction,
    },
    /// Slots, ports and counters of a device.
    Status {
        /// The instance (`emu0`).
        name: String,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
enum NicAction {
    /// Runs the emulated NIC NAME (foreground; `--daemon` detaches).
    Up {
        /// The instance name: the map is /dev/shm/scenic-NAME.
        name: String,
        /// The network port: an existing interface (a veth end, a NIC).
        #[arg(long)]
        port: String,
        /// The host side: the TAP netdev to create.
        #[arg(long = "host-tap")]
        host_tap: String,
        /// SCU slots (1-16).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=16))]
        slots: u8,
        /// The TAP's initial MTU (`ip link set TAP mtu N` changes it later, up to 9000).
        #[arg(long, default_value_t = 1500)]
        mtu: u32,
        /// Detach; `scenic nic down NAME` stops it.
        #[arg(long)]
        daemon: bool,
    },
    /// Stops the emulated NIC NAME.
    Down {
        /// The instance name.
        name: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Nic { action } => match action {
            NicAction::Up {
                name,
                port,
                host_tap,
                slots,
                mtu,
                daemon,
            } => {
                let config = NicConfig {
                    name,
                    port,
                    host_tap,
                    slots,
                    mtu,
                };
                if daemon {
                    up_daemon(&config)
                } else {
                    up(&config)
                }
            }
            NicAction::Down { name } => down(&name),
        },
        Command::Status { name, json } => status::show(&name, json),
    };
    ExitCode::from(code)
}

const DAEMON_ENV: &str = "SCENIC_DAEMON_CHILD";

fn already_up(name: &str) -> Option<u8> {
    let pid = nic::running_pid(name)?;
    eprintln!("error: {name} is already up (pid {pid}); `scenic nic down {name}` stops it");
    Some(2)
}

fn up(config: &NicConfig) -> u8 {
    if std::env::var_os(DAEMON_ENV).is_some() {
        nic::detach();
    } else if let Some(code) = already_up(&config.name) {
        return code;
    }
    let stop = nic::stop_on_signals();
    let mut pid_file = None;
    let name = &config.name;
    let out = nic::run(config, stop, || {
        pid_file = PidFile::write(name).ok();
        eprintln!(
            "{name} up: port {} <-> host TAP {}, {} slots (pid {})",
            config.port,
            config.host_tap,
            config.slots,
            std::process::id()
        );
    });
    drop(pid_file);
    match out {
        Ok(()) => {
            eprintln!("{name} down");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code() as u8
        }
    }
}

fn up_daemon(config: &NicConfig) -> u8 {
    if let Some(code) = already_up(&config.name) {
        return code;
    }
    let log = std::path::PathBuf::from(format!("/tmp/scenic-{}.log", config.name));
    let spawned = std::env::current_exe().and_then(|exe| {
        let out = std::fs::File::create(&log)?;
        let err = out.try_clone()?;
        std::process::Command::new(exe)
            .args(["nic", "up", &config.name, "--port", &config.port])
            .args(["--host-tap", &config.host_tap])
            .args(["--slots", &config.slots.to_string()])
            .args(["--mtu", &config.mtu.to_string()])
            .env(DAEMON_ENV, "1")
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
    });
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: starting the daemon: {e}");
            return 2;
        }
    };
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(status)) = child.try_wait() {
            eprint!("{}", std::fs::read_to_string(&log).unwrap_or_default());
            return status.code().map_or(1, |c| c as u8);
        }
        if nic::running_pid(&config.name) == Some(child.id() as i32) {
            println!(
                "{} up (pid {}, log {})",
                config.name,
                child.id(),
                log.display()
            );
            return 0;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!(
        "error: the daemon did not come up within 10 s; see {}",
        log.display()
    );
    1
}

fn down(name: &str) -> u8 {
    let Some(pid) = nic::running_pid(name) else {
        eprintln!("error: {name} is not up (no pid file naming a live process)");
        return 2;
    };
    if let Err(e) = nic::terminate(pid) {
        eprintln!("error: stopping {name} (pid {pid}): {e}");
        return 2;
    }
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if !nic::alive(pid) || nic::running_pid(name).is_none() {
            println!("{name} down");
            return 0;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!("error: {name} (pid {pid}) did not stop within 10 s");
    1
}
