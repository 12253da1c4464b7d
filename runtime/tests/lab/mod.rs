//! Network namespaces for the runtime's root tests (`tests/netns.rs`) and the `nic_figures` bench
//! (`benches/nic_figures/`, which includes this file by path): namespace "wire" holds the far end
//! of a veth pair at 10.77.0.2, namespace "host" the near end, and with the emulated NIC the
//! `scenic nic up` process bound to it and the TAP it creates (10.77.0.1).
//!
//! Invariant: everything a [`Lab`] creates it removes on drop (the NIC process, every process in
//! its namespaces, the namespaces, the NIC's map file), also when a test fails.

#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use scenic_runtime::Device;

/// The wire side's address.
pub const WIRE_IP: &str = "10.77.0.2";
/// The host side's address (the near veth end, or the NIC's TAP).
pub const HOST_IP: &str = "10.77.0.1";

/// Whether this process runs as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

/// Whether `tool` is on `PATH`.
pub fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// Runs `cmd`; its stdout, or what failed with its stderr.
pub fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `ip ARGS`.
pub fn ip(args: &[&str]) -> Result<String, String> {
    run(Command::new("ip").args(args))
}

/// `ip netns exec NAME ARGS`, to be run.
pub fn ns(name: &str, args: &[&str]) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", name]).args(args);
    c
}

/// Kills the processes in namespace `name`, then removes it.
pub fn remove_namespace(name: &str) {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids.split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// How a lab is built.
pub struct LabOptions<'a> {
    /// Start of every name (`sn` for the tests, the bench's own): names are `<prefix>w<pid><tag>`.
    pub prefix: &'a str,
    /// Tells labs of one process apart.
    pub tag: &'a str,
    /// MTU of both veth ends.
    pub mtu: u32,
    /// The NIC will own the near end: it stays unaddressed (else it holds [`HOST_IP`]).
    pub nic: bool,
    /// `gso_max_segs 1` on the wire end: one segment per skb, as on a wire (off: the wire end
    /// sends TSO super-frames whole).
    pub one_segment: bool,
}

/// The two namespaces, the veth pair and (after [`Lab::nic_up`]) the NIC; removed on drop.
pub struct Lab {
    pub wire: String,
    pub host: String,
    /// The NIC's name (`emu:<name>`).
    pub name: String,
    pub near: String,
    pub tap: String,
    /// The `scenic nic up` process and the binary it runs (to say `nic down` on drop).
    pub nic: Option<Child>,
    scenic: String,
}

impl Lab {
    pub fn new(o: &LabOptions<'_>) -> Result<Lab, String> {
        let (p, id) = (o.prefix, format!("{}{}", std::process::id(), o.tag));
        let lab = Lab {
            wire: format!("{p}w{id}"),
            host: format!("{p}h{id}"),
            name: format!("{p}{id}"),
            near: format!("{p}e{id}"),
            tap: format!("{p}t{id}"),
            nic: None,
            scenic: String::new(),
        };
        ip(&["netns", "add", &lab.wire])?;
        ip(&["netns", "add", &lab.host])?;
        let far = format!("{p}f{id}");
        ip(&[
            "link", "add", &lab.near, "type", "veth", "peer", "name", &far,
        ])?;
        ip(&["link", "set", &far, "netns", &lab.wire])?;
        ip(&["link", "set", &lab.near, "netns", &lab.host])?;
        let mtu = o.mtu.to_string();
        for (n, dev) in [(&lab.wire, &far), (&lab.host, &lab.near)] {
            ip(&["-n", n, "link", "set", dev, "mtu", &mtu, "up"])?;
            ip(&["-n", n, "link", "set", "lo", "up"])?;
        }
        if o.one_segment {
            ip(&["-n", &lab.wire, "link", "set", &far, "gso_max_segs", "1"])?;
        }
        let wire_ip = format!("{WIRE_IP}/24");
        ip(&["-n", &lab.wire, "addr", "add", &wire_ip, "dev", &far])?;
        if o.nic {
            // Linux answers ARP for any local address on any interface: without this the host
            // namespace's kernel may answer for the TAP's address on the NIC's port first, and
            // the far host then talks to it directly, past the emulated NIC.
            let arp_ignore = format!("net.ipv4.conf.{}.arp_ignore=8", lab.near);
            ip(&["netns", "exec", &lab.host, "sysctl", "-qw", &arp_ignore])?;
        } else {
            let host_ip = format!("{HOST_IP}/24");
            ip(&["-n", &lab.host, "addr", "add", &host_ip, "dev", &lab.near])?;
        }
        Ok(lab)
    }

    /// Starts `scenic nic up` (binary `scenic`) on the near end with a host TAP and 2 slots, waits
    /// (at most 10 s) for the device and the TAP, and gives the TAP [`HOST_IP`] (and `tap_mtu`).
    pub fn nic_up(&mut self, scenic: &str, tap_mtu: Option<u32>) -> Result<(), String> {
        let child = ns(&self.host, &[scenic, "nic", "up", &self.name])
            .args([
                "--port",
                &self.near,
                "--host-tap",
                &self.tap,
                "--slots",
                "2",
            ])
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting scenic: {e}"))?;
        self.nic = Some(child);
        self.scenic = scenic.to_string();
        let started = Instant::now();
        while Device::open(&format!("emu:{}", self.name)).is_err() || !self.tap_exists() {
            if started.elapsed() > Duration::from_secs(10) {
                return Err("the NIC did not come up within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Some(mtu) = tap_mtu {
            ip(&[
                "-n",
                &self.host,
                "link",
                "set",
                &self.tap,
                "mtu",
                &mtu.to_string(),
            ])?;
        }
        let host_ip = format!("{HOST_IP}/24");
        ip(&["-n", &self.host, "addr", "add", &host_ip, "dev", &self.tap])?;
        Ok(())
    }

    /// Whether the NIC's TAP exists.
    pub fn tap_exists(&self) -> bool {
        ip(&["-n", &self.host, "link", "show", &self.tap]).is_ok()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(mut c) = self.nic.take() {
            let _ = run(Command::new(&self.scenic).args(["nic", "down", &self.name]));
            let _ = c.kill();
            let _ = c.wait();
        }
        // A killed NIC leaves its map file (32 MiB of tmpfs) behind.
        let _ = std::fs::remove_file(format!("/dev/shm/scenic-{}", self.name));
        remove_namespace(&self.wire);
        remove_namespace(&self.host);
    }
}
