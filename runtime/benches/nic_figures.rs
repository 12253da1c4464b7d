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
//! Every path has `gso_max_segs 1` on the wire-side veth: the emulator does not segment TSO
//! super-frames, and the anchors get the same one-segment-per-skb sender.
//!
//! Run as root: `cargo bench -p scenic-runtime --bench nic_figures`. Without root or a tool (`ip`,
//! `ping`, `iperf3`, `nft`, `timeout`) it prints why it skips and exits 0. Shorter runs:
//! `SCENIC_FIG_PINGS`, `SCENIC_FIG_TCP_SECS`, `SCENIC_FIG_UDP_SECS`, `SCENIC_FIG_SWAPS`,
//! `SCENIC_FIG_OPS`. The namespaces and every process in them are removed on every exit path that
//! unwinds; a run killed by a signal leaves them to the next run, which removes them first.

// A bench binary: a failed unwrap is a failed run, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::Read;
use std::process::{Child, Command, Stdio};
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
const WIRE_IP: &str = "10.77.0.2";
const HOST_IP: &str = "10.77.0.1";
/// Namespace and interface names start with this and the process id (stale ones are removed).
const PREFIX: &str = "sb";

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
        let lab = Lab::new('a', false, true).map_err(|e| format!("path A: {e}"))?;
        println!("A: plain veth …");
        traffic(&lab, &s, 5201)?
    };
    // For scale: the same veth with the kernel's default segmentation offload (TSO super-frames).
    let a_tso = {
        let lab = Lab::new('t', false, false).map_err(|e| format!("path A (TSO): {e}"))?;
        println!("A': plain veth, default gso_max_segs, TCP only …");
        let tcp = iperf(&lab, 5205, &["-t", &s.tcp_secs.to_string()])?;
        round(
            num(&tcp, &["end", "sum_received", "bits_per_second"])? / 1e9,
            3,
        )
    };
    let (b, nft_check) = {
        let lab = Lab::new('b', false, true).map_err(|e| format!("path B: {e}"))?;
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
        let mut lab = Lab::new('c', true, true).map_err(|e| format!("path C: {e}"))?;
        lab.nic_up()?;
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
    let mut server = lab.iperf_server(port)?;
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
    let _server = lab.iperf_server(port)?;
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

fn slot_counter(dev: &Device, k: u8, reg: u64) -> Result<u64, String> {
    let base = slot_block(k).ok_or("no such slot")?;
    dev.read(base + reg).map_err(|e| e.to_string())
}

/// The by_pod set's element for pod 77 after path B's traffic: nftables counted like the SCU.
fn nft_by_pod(lab: &Lab) -> Result<Value, String> {
    let out = run(&mut ns(
        &lab.host,
        &["nft", "list", "set", "ip", "scenic_firewall", "by_pod"],
    ))?;
    let element = out
        .split(['{', '}', ','])
        .map(str::trim)
        .find(|e| e.starts_with("0.77.0.0"))
        .map(str::to_string);
    Ok(json!({ "pod_77": element }))
}

/// firewall.sn's constant rules and statistics as nftables, on the host's input hook.
///
/// `acl` in priority order; `limiter` (16 buckets of 10 Gb/s, 256 KiB burst) as `limit` rules for
/// class 1 and class 0 (everything unmatched); `subnets` and `by_pod` as dynamic sets with
/// per-element counters; `window_packets`, `dropped`, `rate_limited`, `malformed` as named counters.
/// 10 Gb/s = 1.25e9 B/s ≈ 1192 MiB/s (nft's mbytes are MiB).
const NFT_RULES: &str = "\
table ip scenic_firewall {
	counter window_packets {}
	counter dropped {}
	counter rate_limited {}
	counter malformed {}
	set by_pod {
		type ipv4_addr
		size 256
		flags dynamic
		counter
	}
	set subnets {
		type ipv4_addr
		size 16384
		flags dynamic,timeout
		timeout 60s
		counter
	}
	chain input {
		type filter hook input priority filter; policy accept;
		ip hdrlength != 5 counter name malformed counter name dropped drop
		counter name window_packets
		update @subnets { ip saddr & 255.255.255.0 counter }
		update @by_pod { ip saddr & 0.255.0.0 counter }
		ip saddr 10.255.0.0/16 accept
		meta l4proto tcp th dport 23 counter name dropped drop
		meta l4proto udp th dport 111 counter name dropped drop
		ip saddr 10.0.0.0/8 ip daddr 10.200.0.0/16 tcp dport 7000-7099 limit rate over 1192 mbytes/second burst 256 kbytes counter name rate_limited counter name dropped drop
		ip saddr 10.0.0.0/8 ip daddr 10.200.0.0/16 tcp dport 7000-7099 accept
		limit rate over 1192 mbytes/second burst 256 kbytes counter name rate_limited counter name dropped drop
	}
}
";

// ---------------------------------------------------------------------------------------------
// Output

fn print_table(f: &Value) {
    let m = &f["machine"];
    println!();
    println!(
        "nic_figures {} ({} cores; load average {} before, {} after; other work on the machine \
         shares the cores)",
        f["date"].as_str().unwrap_or("?"),
        m["cores"],
        m["load_before"].as_str().unwrap_or("?"),
        m["load_after"].as_str().unwrap_or("?"),
    );
    println!(
        "wire 10.77.0.2 -> host 10.77.0.1, MTU 1500; gso_max_segs 1 on the wire-side veth on every \
         path (the emulator does not segment TSO super-frames)"
    );
    println!();
    println!(
        "{:<32} {:>24} {:>9} {:>13} {:>13} {:>7}",
        "path", "ping ms min/avg/max", "TCP Gb/s", "UDP64 tx pps", "UDP64 rx pps", "loss %"
    );
    for (key, label) in [
        ("A_veth", "A veth"),
        ("B_veth_nft", "B veth + nft firewall rules"),
        ("C_nic_firewall", "C emulated NIC, firewall"),
    ] {
        let p = &f["paths"][key];
        let g = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        let ping = format!(
            "{:.3}/{:.3}/{:.3}",
            g(&p["ping_ms"]["min"]),
            g(&p["ping_ms"]["avg"]),
            g(&p["ping_ms"]["max"])
        );
        println!(
            "{:<32} {:>24} {:>9.3} {:>13} {:>13} {:>7.1}",
            label,
            ping,
            g(&p["tcp_gbps"]),
            p["udp64"]["sent_pps"].as_u64().unwrap_or(0),
            p["udp64"]["rx_pps"].as_u64().unwrap_or(0),
            g(&p["udp64"]["loss_pct"]),
        );
    }
    println!(
        "(A with the default gso_max_segs, TCP only: {} Gb/s)",
        f["A_veth_default_gso_tcp_gbps"]
    );
    let c = &f["control"];
    println!();
    println!(
        "control plane on C, one request at a time, {} operations each:",
        c["ops"]
    );
    println!(
        "  CSR set (window write + fence), slot 1 xor_cipher `key`: {:>7} /s ({} us each); \
         writes with one fence at the end: {} /s",
        c["csr_set_per_s"].as_u64().unwrap_or(0),
        c["csr_set_us"],
        c["csr_write_one_fence_per_s"]
    );
    println!(
        "  acl TableAdd, slot 0 firewall (control queue):          {:>7} /s ({} us each)",
        c["table_add_per_s"].as_u64().unwrap_or(0),
        c["table_add_us"]
    );
    println!(
        "  acl TableRemove:                                        {:>7} /s ({} us each)",
        c["table_remove_per_s"].as_u64().unwrap_or(0),
        c["table_remove_us"]
    );
    let s = &f["swap"];
    println!(
        "swap of slot 0 (stage + LOAD + ACTIVATE with CARRY), {} swaps, one per {} ms under an \
         iperf3 TCP stream:",
        s["swaps"], s["pace_ms"]
    );
    println!(
        "  call ms min {} / median {} / p95 {} / max {}; FREE after QUIESCED median {} ms; \
         TCP during the swaps {} Gb/s ({} retransmits)",
        s["call_ms"]["min"],
        s["call_ms"]["median"],
        s["call_ms"]["p95"],
        s["call_ms"]["max"],
        s["free_ms"]["median"],
        s["tcp_gbps_during"],
        s["tcp_retransmits_during"],
    );
    println!();
}

fn quantiles(v: &mut [Duration]) -> Value {
    v.sort();
    let ms = |d: Duration| round(d.as_secs_f64() * 1e3, 3);
    if v.is_empty() {
        return Value::Null;
    }
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    json!({
        "min": ms(v[0]), "median": ms(at(0.5)), "p95": ms(at(0.95)), "max": ms(v[v.len() - 1]),
    })
}

fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

/// `v[path]` as a number.
fn num(v: &Value, path: &[&str]) -> Result<f64, String> {
    let mut at = v;
    for p in path {
        at = &at[*p];
    }
    at.as_f64()
        .ok_or_else(|| format!("no number at {path:?} in iperf3's JSON: {v:#}"))
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(0, |n| n.get())
}

fn date() -> String {
    run(Command::new("date").args(["-u", "+%Y-%m-%dT%H:%M:%SZ"]))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Namespaces and processes

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

fn run(cmd: &mut Command) -> Result<String, String> {
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

fn ip(args: &[&str]) -> Result<String, String> {
    run(Command::new("ip").args(args))
}

fn ns(name: &str, args: &[&str]) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", name]).args(args);
    c
}

/// A background process, killed on drop.
struct Proc(Option<Child>);

impl Proc {
    /// Its whole stdout, once it exited.
    fn finish(&mut self) -> String {
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
    fn wait_up_to(&mut self, limit: Duration) {
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
struct Lab {
    wire: String,
    host: String,
    name: String,
    near: String,
    tap: String,
    nic: Option<Child>,
}

impl Lab {
    /// `nic`: the near end is left unaddressed for the NIC's port; otherwise it holds 10.77.0.1.
    /// `one_segment`: `gso_max_segs 1` on the wire-side veth.
    fn new(tag: char, nic: bool, one_segment: bool) -> Result<Lab, String> {
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
        // One segment per skb, as on a wire: the emulator does not segment TSO super-frames.
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
        }
        Ok(lab)
    }

    fn nic_up(&mut self) -> Result<(), String> {
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

    fn iperf_server(&self, port: u16) -> Result<Proc, String> {
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
fn remove_namespace(name: &str) {
    if let Ok(pids) = ip(&["netns", "pids", name]) {
        for pid in pids.split_whitespace() {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
    }
    let _ = ip(&["netns", "del", name]);
}

/// Namespaces of an earlier run of this bench whose process is gone (killed by a signal).
fn remove_stale_labs() {
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
