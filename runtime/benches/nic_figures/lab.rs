//! The bench's namespaces, processes and system facts: everything it creates, it removes (Drop).

use scenic_runtime::Device;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::*;

pub(crate) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(0, |n| n.get())
}

pub(crate) fn date() -> String {
    run(Command::new("date").args(["-u", "+%Y-%m-%dT%H:%M:%SZ"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Namespaces and processes

pub(crate) fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

pub(crate) fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

pub(crate) fn run(cmd: &mut Command) -> Result<String, String> {
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

pub(crate) fn ip(args: &[&str]) -> Result<String, String> {
    run(Command::new("ip").args(args))
}

pub(crate) fn ns(name: &str, args: &[&str]) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", name]).args(args);
    c
}

/// A background process, killed on drop.
pub(crate) struct Proc(pub(crate) Option<Child>);

impl Proc {
    /// Its whole stdout, once it exited.
    pub(crate) fn finish(&mut self) -> String {
        let mut text = String::new();
        if let Some(mut child) = self.0.take() {
            if let Some(mut out) = child.stdout.take() {
                let _ = out.read_to_string(&mut text);
            }
            let _ = child.wait();
        }
        text
    }

    /// Waits for it to exit by itself, at most `limit`; killed on drop otherwise.
    pub(crate) fn wait_up_to(&mut self, limit: Duration) {
        let until = Instant::now() + limit;
        while let Some(c) = self.0.as_mut() {
            if !matches!(c.try_wait(), Ok(None)) || Instant::now() > until {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Namespaces wire and host, a veth pair between them and (path C) the NIC; removed on drop with
/// every process in them.
pub(crate) struct Lab {
    pub(crate) wire: String,
    pub(crate) host: String,
    pub(crate) name: String,
    pub(crate) near: String,
    pub(crate) tap: String,
    pub(crate) nic: Option<Child>,
}

impl Lab {
    /// `nic`: the near end is left unaddressed for the NIC's port; otherwise it holds 10.77.0.1.
    /// `one_segment`: `gso_max_segs 1` on the wire-side veth.
    pub(crate) fn new(tag: char, nic: bool, one_segment: bool) -> Result<Lab, String> {
        let id = format!("{}{tag}", std::process::id());
        let lab = Lab {
            wire: format!("{PREFIX}w{id}"),
            host: format!("{PREFIX}h{id}"),
            name: format!("{PREFIX}{id}"),
            near: format!("{PREFIX}e{id}"),
            tap: format!("{PREFIX}t{id}"),
            nic: None,
        };
        ip(&["netns", "add", &lab.wire])?;
        ip(&["netns", "add", &lab.host])?;
        let far = format!("{PREFIX}f{id}");
        ip(&[
            "link", "add", &lab.near, "type", "veth", "peer", "name", &far,
        ])?;
        ip(&["link", "set", &far, "netns", &lab.wire])?;
        ip(&["link", "set", &lab.near, "netns", &lab.host])?;
        for (n, dev) in [(&lab.wire, &far), (&lab.host, &lab.near)] {
            ip(&["-n", n, "link", "set", dev, "mtu", "1500", "up"])?;
            ip(&["-n", n, "link", "set", "lo", "up"])?;
        }
        // One segment per skb, as on a wire: every path carries the same packets (the emulator would
        // cut super-frames itself, net/gso.rs; the anchors would pass them whole).
        if one_segment {
            ip(&["-n", &lab.wire, "link", "set", &far, "gso_max_segs", "1"])?;
        }
        ip(&[
            "-n",
            &lab.wire,
            "addr",
            "add",
            &format!("{WIRE_IP}/24"),
            "dev",
            &far,
        ])?;
        if !nic {
            ip(&[
                "-n",
                &lab.host,
                "addr",
                "add",
                &format!("{HOST_IP}/24"),
                "dev",
                &lab.near,
            ])?;
        } else {
            // Linux answers ARP for any local address on any interface: without this the host
            // namespace's kernel answers for the TAP's address on the NIC's port and the far host
            // talks to it directly, past the emulated NIC, and the figures measure the kernel.
            let arp_ignore = format!("net.ipv4.conf.{}.arp_ignore=8", lab.near);
            ip(&["netns", "exec", &lab.host, "sysctl", "-qw", &arp_ignore])?;
        }
        Ok(lab)
    }

    pub(crate) fn nic_up(&mut self) -> Result<(), String> {
        let child = ns(&self.host, &[SCENIC, "nic", "up", &self.name])
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
        let started = Instant::now();
        while Device::open(&format!("emu:{}", self.name)).is_err()
            || ip(&["-n", &self.host, "link", "show", &self.tap]).is_err()
        {
            if started.elapsed() > Duration::from_secs(10) {
                return Err("the NIC did not come up within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        ip(&["-n", &self.host, "link", "set", &self.tap, "mtu", "1500"])?;
        ip(&[
            "-n",
            &self.host,
            "addr",
            "add",
            &format!("{HOST_IP}/24"),
            "dev",
            &self.tap,
        ])?;
        Ok(())
    }

    pub(crate) fn iperf_server(&self, port: u16) -> Result<Proc, String> {
        let child = ns(&self.host, &["iperf3", "-s", "-1", "-B", HOST_IP])
            .args(["-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("iperf3 -s: {e}"))?;
        Ok(Proc(Some(child)))
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(mut c) = self.nic.take() {
            let _ = run(Command::new(SCENIC).args(["nic", "down", &self.name]));
            let _ = c.kill();
            let _ = c.wait();
        }
        // The stopped NIC leaves its map file (32 MiB of tmpfs) behind.
        let _ = std::fs::remove_file(format!("/dev/shm/scenic-{}", self.name));
        remove_namespace(&self.wire);
        remove_namespace(&self.host);
    }
}

/// Kills the processes in namespace `name` (this program's, or a killed earlier run's), removes it.
pub(crate) fn remove_namespace(name: &str) {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids.split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// Namespaces of an earlier run of this bench whose process is gone (killed by a signal).
pub(crate) fn remove_stale_labs() {
    let Ok(list) = ip(&["netns", "list"]) else {
        return;
    };
    for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
        let Some(rest) = name
            .strip_prefix(&format!("{PREFIX}w"))
            .or_else(|| name.strip_prefix(&format!("{PREFIX}h")))
        else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let stale = !digits.is_empty()
            && rest.len() == digits.len() + 1
            && !std::path::Path::new(&format!("/proc/{digits}")).exists();
        if stale {
            println!("nic_figures: removing namespace {name} of an earlier run");
            remove_namespace(name);
            let _ = std::fs::remove_file(format!("/dev/shm/scenic-{PREFIX}{rest}"));
        }
    }
}
