//! `scenic`: the runtime's command line (issue 12): `nic up`, `nic down`, `status`, and by name
//! over a loaded package: `load`, `swap`, `csr`, `table`, `counter`, `map`, `notify`, `cc` (bpftool /
//! simple_switch_CLI style; `--json` on every read). One file per command group.
//!
//! Exit codes as the compiler's: 0 ok, 1 errors (a refused name, width or action, a damaged or
//! mismatched package, a device refusal), 2 usage or I/O (a name already up, an interface that
//! cannot be opened, a device or a file that is not there).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use scenic_runtime::nic::{self, HostSide, NicConfig, PidFile};

mod cc;
mod common;
mod counter;
mod csr;
mod load;
mod map;
mod notify;
mod status;
mod steer;
mod swap;
mod table;

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
    /// Loads a package's unit into a slot and activates it (replacing what ran there).
    Load {
        /// The device (`emu0`).
        name: String,
        /// The slot (SCU slots 0-15; CC slots 16 and 17).
        slot: u8,
        /// The package directory (`scenicc build` output).
        package: String,
        /// The unit (scu or cc name) when the package has several.
        #[arg(long)]
        unit: Option<String>,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Replaces a slot's running unit without losing a packet, carrying state where the layouts
    /// agree; prints what was carried and what started fresh.
    Swap {
        /// The device.
        name: String,
        /// The slot.
        slot: u8,
        /// The new package directory.
        package: String,
        /// The unit when the package has several.
        #[arg(long)]
        unit: Option<String>,
        /// Start the new unit fresh: carry nothing.
        #[arg(long)]
        fresh: bool,
        /// Let the new unit see the live inputs for this many milliseconds before the switch.
        #[arg(long, value_name = "MS", default_value_t = 0)]
        warm_up: u64,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Steers RoCE QPNs and TCP flows to slots; sets the slow-path slot.
    Steer {
        /// The device.
        name: String,
        #[command(subcommand)]
        action: steer::SteerAction,
    },
    /// Reads or writes a CSR of a slot, by name or word offset.
    Csr {
        /// The device.
        name: String,
        /// The slot.
        slot: u8,
        #[command(subcommand)]
        action: csr::CsrAction,
    },
    /// Adds, modifies, removes, clears, sets the default of, or dumps a table of a slot.
    Table {
        /// The device.
        name: String,
        /// The slot.
        slot: u8,
        #[command(subcommand)]
        action: table::TableAction,
    },
    /// Reads (or resets) a counter array of a slot.
    Counter {
        /// The device.
        name: String,
        /// The slot.
        slot: u8,
        /// The counter.
        counter: String,
        /// One cell (default: all).
        index: Option<u64>,
        /// Zero the cell (or every cell) instead of reading.
        #[arg(long)]
        reset: bool,
        /// JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Lists a map of a slot, or gets or deletes one key.
    Map {
        /// The device.
        name: String,
        /// The slot.
        slot: u8,
        /// The map.
        map: String,
        #[command(subcommand)]
        action: Option<map::MapAction>,
        /// JSON instead of text.
        #[arg(long, global = true)]
        json: bool,
    },
    /// The dual CC slots: switch the running cc, inject events, read outputs, set params.
    Cc {
        /// The device.
        name: String,
        #[command(subcommand)]
        action: cc::CcAction,
    },
    /// Reads a slot's notifications.
    Notify {
        /// The device.
        name: String,
        /// The slot.
        slot: u8,
        #[command(flatten)]
        args: notify::NotifyArgs,
    },
}

#[derive(Subcommand, Debug)]
enum NicAction {
    /// Runs the emulated NIC NAME (foreground; `--daemon` detaches).
    Up {
        /// The instance name: the map is /dev/shm/scenic-NAME.
        name: String,
        /// A network port: an existing interface (a veth end, a NIC); repeat for ports 1–3.
        #[arg(long = "port", required = true, action = clap::ArgAction::Append)]
        ports: Vec<String>,
        /// The host side: the TAP netdev to create.
        #[arg(
            long = "host-tap",
            required_unless_present = "host_rings",
            conflicts_with = "host_rings"
        )]
        host_tap: Option<String>,
        /// The host side: the host rings in the map's ring memory, for a driver (the kmod in a
        /// QEMU guest mapping the map as ivshmem; docs/kmod.md).
        #[arg(long = "host-rings")]
        host_rings: bool,
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
    nic::default_sigpipe();
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Nic { action } => match action {
            NicAction::Up {
                name,
                ports,
                host_tap,
                host_rings: _,
                slots,
                mtu,
                daemon,
            } => {
                let config = NicConfig {
                    name,
                    ports,
                    host: host_tap.map_or(HostSide::Rings, HostSide::Tap),
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
        Command::Load {
            name,
            slot,
            package,
            unit,
            json,
        } => load::run(&name, slot, &package, unit.as_deref(), json),
        Command::Csr { name, slot, action } => csr::run(&name, slot, &action),
        Command::Table { name, slot, action } => table::run(&name, slot, &action),
        Command::Counter {
            name,
            slot,
            counter,
            index,
            reset,
            json,
        } => counter::run(&name, slot, &counter, index, reset, json),
        Command::Map {
            name,
            slot,
            map,
            action,
            json,
        } => map::run(&name, slot, &map, action.as_ref(), json),
        Command::Notify { name, slot, args } => notify::run(&name, slot, &args),
        Command::Steer { name, action } => steer::run(&name, &action),
        Command::Cc { name, action } => cc::run(&name, &action),
        Command::Swap {
            name,
            slot,
            package,
            unit,
            fresh,
            warm_up,
            json,
        } => swap::run(&name, slot, &package, unit.as_deref(), fresh, warm_up, json),
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
            "{name} up: port {} <-> {}, {} slots (pid {})",
            config.ports.join(", "),
            config.host,
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
            .args(["nic", "up", &config.name])
            .args(config.ports.iter().flat_map(|p| ["--port", p.as_str()]))
            .args(match &config.host {
                HostSide::Tap(tap) => vec!["--host-tap", tap.as_str()],
                HostSide::Rings => vec!["--host-rings"],
            })
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
