//! The figures issue 12 asks for, in one run: three paths from namespace `wire` (10.77.0.2) to
//! namespace `host` (10.77.0.1), and the control plane of the emulated NIC under load.
//!
//! - **A** a plain veth pair (anchor 1);
//! - **B** the same veth pair with nftables in `host` holding `examples/firewall.sn`'s constant
//!   rules and its statistics (`subnets`, `by_pod`, the `limiter` buckets as `limit` rules) (anchor 2);
//! - **C** the emulated NIC (`scenic nic up`): the veth's near end is its port, its TAP in `host`
//!   holds 10.77.0.1, `firewall` runs in slot 0 as the slow-path slot.
//!
//! Per path: ping RTT (wire → host), TCP throughput at MTU 1500 (iperf3, wire → host) and 64-byte
//! UDP frames (iperf3 `-u -l 18 -b 0`: 18 + 8 + 20 + 14 + 4 FCS = 64 bytes) delivered to the
//! receiver, with the loss. On C also: CSR sets (window write + fence) on slot 1 (`xor_cipher`, whose
//! `key` is writable; firewall's CSRs are all readonly), `acl` TableAdd/TableRemove through slot 0's
//! control queue, one request at a time, and the swap call (stage + `LOAD` + `ACTIVATE` with
//! `CARRY`; then `FREE` once drained) of slot 0 while an iperf3 TCP stream runs through it.
//!
//! Every path has `gso_max_segs 1` on the wire-side veth, so the three carry the same packets: the
//! emulator cuts TSO super-frames into segments itself (net/gso.rs) while the anchors would pass
//! them whole, which compares per-packet work with per-super-frame work.
//!
//! Run as root: `cargo bench -p scenic-runtime --bench nic_figures`. Without root or a tool (`ip`,
//! `ping`, `iperf3`, `nft`, `timeout`) it prints why it skips and exits 0. Shorter runs:
//! `SCENIC_FIG_PINGS`, `SCENIC_FIG_TCP_SECS`, `SCENIC_FIG_UDP_SECS`, `SCENIC_FIG_SWAPS`,
//! `SCENIC_FIG_OPS`. The namespaces and every process in them are removed on every exit path that
//! unwinds; a run killed by a signal leaves them to the next run, which removes them first.

// A bench binary: a failed unwrap is a failed run, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{identity_of, packages::example_package, stage_and_load};
use scenic_runtime::abi::slot::{self, SlotOp};
use scenic_runtime::abi::{global, slot_block};
use scenic_runtime::container;
use scenic_runtime::frame::ControlEntry;
use scenic_runtime::ring::{Consumer, Producer, RingLayout};
use scenic_runtime::Device;
use serde_json::{json, Value};

const SCENIC: &str = env!("CARGO_BIN_EXE_scenic");
use netlab::HOST_IP;
/// Namespace and interface names start with this and the process id (stale ones are removed).
const PREFIX: &str = "sb";

mod lab;
#[path = "../../tests/lab/mod.rs"]
mod netlab;
mod report;

use lab::*;
use report::*;

fn main() {
    if let Err(reason) = preflight() {
        println!("nic_figures: skipping: {reason}");
        return;
    }
    remove_stale_labs();
    match run_all() {
        Ok(()) => {}
        Err(e) => {
            eprintln!("nic_figures: failed: {e}");
            std::process::exit(1);
        }
    }
}

fn preflight() -> Result<(), String> {
    if !is_root() {
        return Err("needs root (network namespaces, nftables)".into());
    }
    for tool in ["ip", "ping", "iperf3", "nft", "timeout"] {
        if !have(tool) {
            return Err(format!("`{tool}` is not installed"));
        }
    }
    Ok(())
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Settings {
    pings: u64,
    tcp_secs: u64,
    udp_secs: u64,
    swaps: u64,
    ops: u64,
}

fn run_all() -> Result<(), String> {
    let s = Settings {
        pings: env_or("SCENIC_FIG_PINGS", 200),
        tcp_secs: env_or("SCENIC_FIG_TCP_SECS", 10),
        udp_secs: env_or("SCENIC_FIG_UDP_SECS", 5),
        swaps: env_or("SCENIC_FIG_SWAPS", 50),
        ops: env_or("SCENIC_FIG_OPS", 3000).min(4000),
    };
    let load_before = loadavg();
    println!(
        "nic_figures: load average before: {load_before}; {} cores",
        cores()
    );

    let a = {
        let lab = new_lab("a", false, true).map_err(|e| format!("path A: {e}"))?;
        println!("A: plain veth …");
        traffic(&lab, &s, 5201)?
    };
    // For scale: the same veth with the kernel's default segmentation offload (TSO super-frames).
    let a_tso = {
        let lab = new_lab("t", false, false).map_err(|e| format!("path A (TSO): {e}"))?;
        println!("A': plain veth, default gso_max_segs, TCP only …");
        let tcp = iperf(&lab, 5205, &["-t", &s.tcp_secs.to_string()])?;
        round(
            num(&tcp, &["end", "sum_received", "bits_per_second"])? / 1e9,
            3,
        )
    };
    let (b, nft_check) = {
        let lab = new_lab("b", false, true).map_err(|e| format!("path B: {e}"))?;
        let dir = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
        let rules = dir.path().join("firewall.nft");
        std::fs::write(&rules, NFT_RULES).map_err(|e| format!("{}: {e}", rules.display()))?;
        run(&mut ns(
            &lab.host,
            &["nft", "-f", &rules.display().to_string()],
        ))?;
        println!("B: veth + nftables (firewall.sn's constant rules) …");
        let t = traffic(&lab, &s, 5202)?;
        let check = nft_by_pod(&lab)?;
        (t, check)
    };
    let (c, control, swap) = {
        let mut lab = new_lab("c", true, true).map_err(|e| format!("path C: {e}"))?;
        nic_up(&mut lab)?;
        let dev = Device::open(&format!("emu:{}", lab.name)).map_err(|e| e.to_string())?;
        common::load_example(&dev, 0, "firewall");
        dev.write(global::SLOW_PATH_SLOT, 0)
            .map_err(|e| e.to_string())?;
        dev.fence().map_err(|e| e.to_string())?;
        println!("C: emulated NIC, firewall in slot 0 (slow path) …");
        let seq0 = slot_counter(&dev, 0, slot::PKT_SEQ)?;
        let mut t = traffic(&lab, &s, 5203)?;
        let seq1 = slot_counter(&dev, 0, slot::PKT_SEQ)?;
        let drop_full = slot_counter(&dev, 0, slot::DROP_FULL)?;
        t["slot0_packets"] = json!(seq1 - seq0);
        t["slot0_drop_full"] = json!(drop_full);
        println!("C: swaps under iperf3 …");
        let swap = swaps_under_traffic(&lab, &dev, &s, 5204)?;
        println!("C: control-plane operations …");
        let control = control_ops(&dev, &s)?;
        (t, control, swap)
    };
    let load_after = loadavg();

    let figures = json!({
        "date": date(),
        "machine": {
            "cores": cores(),
            "load_before": load_before,
            "load_after": load_after,
        },
        "mtu": 1500,
        "wire_veth_gso_max_segs": 1,
        "A_veth_default_gso_tcp_gbps": a_tso,
        "paths": { "A_veth": a, "B_veth_nft": b, "C_nic_firewall": c },
        "nft_by_pod": nft_check,
        "control": control,
        "swap": swap,
    });
    print_table(&figures);
    println!("figures: {figures}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Measurements

/// Ping, TCP and 64-byte UDP from wire to host.
fn traffic(lab: &Lab, s: &Settings, port: u16) -> Result<Value, String> {
    // ARP both ways, and the first packets' slow start out of the figures.
    run(&mut ns(
        &lab.wire,
        &["ping", "-c", "3", "-i", "0.1", "-W", "2", HOST_IP],
    ))
    .map_err(|e| format!("warm-up ping: {e}"))?;
    let ping = ping(lab, s.pings)?;
    let tcp = iperf(lab, port, &["-t", &s.tcp_secs.to_string()])?;
    let udp = iperf(
        lab,
        port + 10,
        &["-u", "-l", "18", "-b", "0", "-t", &s.udp_secs.to_string()],
    )?;
    let sent = num(&udp, &["end", "sum_sent", "packets"])?;
    let sent_secs = num(&udp, &["end", "sum_sent", "seconds"])?;
    let seen = num(&udp, &["end", "sum_received", "packets"])?;
    let lost = num(&udp, &["end", "sum_received", "lost_packets"])?;
    let rx_secs = num(&udp, &["end", "sum_received", "seconds"])?;
    let delivered = (seen - lost).max(0.0);
    Ok(json!({
        "ping_ms": ping,
        "tcp_gbps": round(num(&tcp, &["end", "sum_received", "bits_per_second"])? / 1e9, 3),
        "tcp_retransmits": tcp["end"]["sum_sent"]["retransmits"],
        "udp64": {
            "sent_pps": (sent / sent_secs).round() as u64,
            "rx_pps": (delivered / rx_secs).round() as u64,
            "loss_pct": round(if sent > 0.0 { 100.0 * (1.0 - delivered / sent) } else { 0.0 }, 2),
        },
    }))
}

fn ping(lab: &Lab, count: u64) -> Result<Value, String> {
    let out = run(&mut ns(
        &lab.wire,
        &[
            "ping",
            "-q",
            "-c",
            &count.to_string(),
            "-i",
            "0.01",
            "-W",
            "2",
            HOST_IP,
        ],
    ))?;
    let loss = out
        .split(',')
        .find(|p| p.contains("packet loss"))
        .and_then(|p| p.trim().split('%').next())
        .and_then(|v| v.parse::<f64>().ok())
        .ok_or_else(|| format!("no loss in ping's output: {out}"))?;
    let rtt: Vec<f64> = out
        .lines()
        .find(|l| l.starts_with("rtt") || l.starts_with("round-trip"))
        .and_then(|l| l.split('=').nth(1))
        .map(|v| {
            v.trim()
                .trim_end_matches("ms")
                .trim()
                .split('/')
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .ok_or_else(|| format!("no rtt in ping's output: {out}"))?;
    if rtt.len() != 4 {
        return Err(format!("cannot read ping's rtt line: {out}"));
    }
    Ok(json!({
        "count": count, "min": rtt[0], "avg": rtt[1], "max": rtt[2], "mdev": rtt[3], "loss_pct": loss,
    }))
}

/// One iperf3 run from wire to a one-off server in host; the client's JSON.
fn iperf(lab: &Lab, port: u16, args: &[&str]) -> Result<Value, String> {
    let mut server = iperf_server(lab, port)?;
    let port = port.to_string();
    let mut last = String::new();
    // The server may need a moment to listen.
    for _ in 0..20 {
        let out = ns(
            &lab.wire,
            &["timeout", "120", "iperf3", "-J", "-c", HOST_IP],
        )
        .args(["-p", &port])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("iperf3: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // iperf3 -J may exit 0 with an "error" in its JSON: both are checked.
        let json: Option<Value> = serde_json::from_str(&text).ok();
        let error = json.as_ref().and_then(|v| v["error"].as_str());
        if let (true, Some(v), None) = (out.status.success(), &json, error) {
            // The one-off server ends with its client; the next run reuses nothing of it.
            server.wait_up_to(Duration::from_secs(3));
            return Ok(v.clone());
        }
        if !error.is_some_and(|e| e.contains("unable to connect")) {
            return Err(format!("iperf3 {args:?} failed ({}): {text}", out.status));
        }
        last = text;
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!("iperf3 {args:?} failed: {last}"))
}

/// 50 swaps of slot 0 while an iperf3 TCP stream goes through it.
fn swaps_under_traffic(lab: &Lab, dev: &Device, s: &Settings, port: u16) -> Result<Value, String> {
    let (manifest, model) = example_package("firewall");
    let image = container::build(&manifest, &model);
    let identity = identity_of(&manifest, 0);
    let crc = container::crc32(&image);

    // One swap every 100 ms, from 1 s into a TCP stream that lasts 1 s past the last one.
    let pace = Duration::from_millis(100);
    let secs = 2 + (s.swaps * pace.as_millis() as u64).div_ceil(1000);
    let _server = iperf_server(lab, port)?;
    std::thread::sleep(Duration::from_millis(300));
    let client = ns(
        &lab.wire,
        &["timeout", "300", "iperf3", "-J", "-c", HOST_IP],
    )
    .args(["-p", &port.to_string(), "-t", &secs.to_string()])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .map_err(|e| format!("iperf3: {e}"))?;
    let mut client = Proc(Some(client));
    std::thread::sleep(Duration::from_secs(1));

    let (mut call, mut free) = (Vec::new(), Vec::new());
    let seq0 = slot_counter(dev, 0, slot::PKT_SEQ)?;
    let started = Instant::now();
    for i in 0..s.swaps {
        if let Some(wait) = (started + pace * i as u32).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let t = Instant::now();
        stage_and_load(dev, 0, &image, &identity, crc)
            .map_err(|c| format!("LOAD refused: {c:?}"))?;
        dev.slot_command(0, SlotOp::Activate, slot::ACTIVATE_CARRY)
            .map_err(|e| format!("ACTIVATE: {e}"))?;
        call.push(t.elapsed());
        let until = Instant::now() + Duration::from_secs(10);
        while !dev.slot_state(0).map_err(|e| e.to_string())?.quiesced {
            if Instant::now() > until {
                return Err("the old bank never quiesced".into());
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        let t = Instant::now();
        dev.slot_command(0, SlotOp::Free, 1)
            .map_err(|e| format!("FREE: {e}"))?;
        free.push(t.elapsed());
    }
    let swap_secs = started.elapsed().as_secs_f64();
    let packets = slot_counter(dev, 0, slot::PKT_SEQ)? - seq0;
    let running = client
        .0
        .as_mut()
        .is_some_and(|c| matches!(c.try_wait(), Ok(None)));
    let text = client.finish();
    let tcp: Value =
        serde_json::from_str(&text).map_err(|e| format!("iperf3 JSON: {e}: {text}"))?;
    if let Some(e) = tcp["error"].as_str() {
        return Err(format!("iperf3 under swaps: {e}"));
    }
    Ok(json!({
        "swaps": s.swaps,
        "pace_ms": pace.as_millis() as u64,
        "call_ms": quantiles(&mut call),
        "free_ms": quantiles(&mut free),
        "swaps_secs": round(swap_secs, 3),
        "slot0_packets_during": packets,
        "iperf3_running_throughout": running,
        "tcp_secs": secs,
        "tcp_gbps_during": round(num(&tcp, &["end", "sum_received", "bits_per_second"])? / 1e9, 3),
        "tcp_retransmits_during": tcp["end"]["sum_sent"]["retransmits"],
        "switch_count": slot_counter(dev, 0, slot::SWITCH_COUNT)?,
    }))
}

/// CSR sets on slot 1 and `acl` TableAdd/TableRemove on slot 0, one at a time.
fn control_ops(dev: &Device, s: &Settings) -> Result<Value, String> {
    // CSR set: xor_cipher's `key` (firewall's CSRs are all readonly).
    common::load_example(dev, 1, "xor_cipher");
    let (manifest, _) = example_package("xor_cipher");
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest).unwrap())
        .map_err(|e| format!("xor_cipher manifest: {e}"))?;
    let key = m.control.scus[0]
        .csrs
        .iter()
        .find(|c| c.name == "key")
        .ok_or("xor_cipher has no CSR `key`")?;
    let base = slot_block(1).ok_or("no slot 1")?;
    let word = base + slot::CSR_WINDOW + 8 * u64::from(key.offset);
    let n = s.ops;
    let started = Instant::now();
    for i in 0..n {
        dev.write(word, 0x9f3c_7a2b_0000_0000 | i)
            .map_err(|e| e.to_string())?;
        dev.fence().map_err(|e| e.to_string())?;
    }
    let csr_secs = started.elapsed().as_secs_f64();
    // The same writes back to back, one fence at the end: what the window itself costs.
    let started = Instant::now();
    for i in 0..n {
        dev.write(word, 0x9f3c_7a2b_0000_0000 | i)
            .map_err(|e| e.to_string())?;
    }
    dev.fence().map_err(|e| e.to_string())?;
    let unfenced_secs = started.elapsed().as_secs_f64();
    let last = dev.read(word).map_err(|e| e.to_string())?;
    if last != 0x9f3c_7a2b_0000_0000 | (n - 1) {
        return Err(format!("CSR `key` reads {last:#x} after the last set"));
    }
    if dev
        .read(base + slot::SLOT_ERROR)
        .map_err(|e| e.to_string())?
        != 0
    {
        return Err("a CSR set was refused (SLOT_ERROR set)".into());
    }

    // TableAdd / TableRemove of firewall's acl: deny 10.9.x.y/32 (no traffic here comes from there).
    use scenic_ir::program::KeyMatch;
    use scenic_ir::types::Const;
    let (manifest, _) = example_package("firewall");
    let m = scenic_scu_abi::manifest::Manifest::from_json(std::str::from_utf8(&manifest).unwrap())
        .map_err(|e| format!("firewall manifest: {e}"))?;
    let acl = m.control.scus[0]
        .tables
        .iter()
        .find(|t| t.name == "acl")
        .ok_or("firewall has no table `acl`")?;
    let deny = acl
        .actions
        .iter()
        .position(|a| a.name == "deny")
        .ok_or("acl has no action `deny`")? as u32;
    let mut queue = Queue::attach(dev, 0)?;
    let mut handles = Vec::new();
    let started = Instant::now();
    for i in 0..n {
        let keys = [
            KeyMatch::Lpm(Const((0x0A09_0000u32 | i as u32).into()), 32),
            KeyMatch::Any,
            KeyMatch::Any,
            KeyMatch::Any,
        ];
        let record = acl
            .encode_entry(&keys, deny, &[], 1)
            .map_err(|e| format!("acl entry: {e}"))?;
        let words: Vec<u64> = record.iter_u64_digits().collect();
        let add = ControlEntry::new(0x10, 0, acl.target, 0, i as u32)
            .with_data(&words)
            .ok_or("acl record too long")?;
        let rsp = queue.call(dev, &add)?;
        if rsp.op != 0 {
            return Err(format!("TableAdd {i}: status {:#x}", rsp.op));
        }
        handles.push(rsp.data[0]);
    }
    let add_secs = started.elapsed().as_secs_f64();
    let started = Instant::now();
    for (i, h) in handles.iter().enumerate() {
        let rsp = queue.call(
            dev,
            &ControlEntry::new(0x11, 0, acl.target, *h as u32, i as u32),
        )?;
        if rsp.op != 0 {
            return Err(format!("TableRemove {i}: status {:#x}", rsp.op));
        }
    }
    let remove_secs = started.elapsed().as_secs_f64();
    let per_s = |secs: f64| (n as f64 / secs).round() as u64;
    Ok(json!({
        "ops": n,
        "csr_set_per_s": per_s(csr_secs),
        "csr_set_us": round(csr_secs / n as f64 * 1e6, 1),
        "csr_write_one_fence_per_s": per_s(unfenced_secs),
        "table_add_per_s": per_s(add_secs),
        "table_add_us": round(add_secs / n as f64 * 1e6, 1),
        "table_remove_per_s": per_s(remove_secs),
        "table_remove_us": round(remove_secs / n as f64 * 1e6, 1),
    }))
}

/// Slot `k`'s control queue, one request in flight.
struct Queue {
    req: Producer,
    rsp: Consumer,
}

impl Queue {
    fn attach(dev: &Device, k: u8) -> Result<Queue, String> {
        let r = dev.region();
        Ok(Queue {
            req: Producer::attach(r, RingLayout::control_requests(k)).map_err(|e| e.to_string())?,
            rsp: Consumer::attach(r, RingLayout::control_responses(k))
                .map_err(|e| e.to_string())?,
        })
    }

    fn call(&mut self, dev: &Device, entry: &ControlEntry) -> Result<ControlEntry, String> {
        let r = dev.region();
        if !self
            .req
            .push(r, &entry.encode())
            .map_err(|e| e.to_string())?
        {
            return Err("control request ring full".into());
        }
        let mut raw = [0u8; 256];
        let until = Instant::now() + Duration::from_secs(5);
        while !self.rsp.pop(r, &mut raw).map_err(|e| e.to_string())? {
            if Instant::now() > until {
                return Err("no control response within 5 s".into());
            }
            std::thread::yield_now();
        }
        let rsp = ControlEntry::decode(&raw);
        if rsp.tag != entry.tag {
            return Err(format!(
                "response tag {} for request {}",
                rsp.tag, entry.tag
            ));
        }
        Ok(rsp)
    }
}
