//! The bench's namespaces, processes and system facts: everything it creates, it removes (Drop).

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
// Namespaces and processes: the labs are the runtime tests' (tests/lab/mod.rs), built here with
// this bench's prefix, MTU 1500 and the paths' choices.

pub(crate) use crate::netlab::{have, ip, is_root, ns, remove_namespace, run, Lab, LabOptions};

/// A lab for one path: `nic` leaves the near end to the NIC's port, `one_segment` makes the wire
/// side send one segment per skb.
pub(crate) fn new_lab(tag: &str, nic: bool, one_segment: bool) -> Result<Lab, String> {
    Lab::new(&LabOptions {
        prefix: PREFIX,
        tag,
        mtu: 1500,
        nic,
        one_segment,
    })
}

/// Starts the emulated NIC of path C in `lab`, its TAP at MTU 1500.
pub(crate) fn nic_up(lab: &mut Lab) -> Result<(), String> {
    lab.nic_up(SCENIC, Some(1500))
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

/// `iperf3 -s -1` on the host side at `port`.
pub(crate) fn iperf_server(lab: &Lab, port: u16) -> Result<Proc, String> {
    let child = ns(&lab.host, &["iperf3", "-s", "-1", "-B", HOST_IP])
        .args(["-p", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("iperf3 -s: {e}"))?;
    Ok(Proc(Some(child)))
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
