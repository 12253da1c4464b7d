//! The bench's figures: slot counters, the nftables anchor's rules and counters, the printed table.

use scenic_runtime::abi::slot_block;
use scenic_runtime::Device;
use serde_json::{json, Value};
use std::time::Duration;

use crate::lab::*;

pub(crate) fn slot_counter(dev: &Device, k: u8, reg: u64) -> Result<u64, String> {
    let base = slot_block(k).ok_or("no such slot")?;
    dev.read(base + reg).map_err(|e| e.to_string())
}

/// The by_pod set's element for pod 77 after path B's traffic: nftables counted like the SCU.
pub(crate) fn nft_by_pod(lab: &Lab) -> Result<Value, String> {
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
pub(crate) const NFT_RULES: &str = "\
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

pub(crate) fn print_table(f: &Value) {
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
         path (the same packets on every path)"
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

pub(crate) fn quantiles(v: &mut [Duration]) -> Value {
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

pub(crate) fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

/// `v[path]` as a number.
pub(crate) fn num(v: &Value, path: &[&str]) -> Result<f64, String> {
    let mut at = v;
    for p in path {
        at = &at[*p];
    }
    at.as_f64()
        .ok_or_else(|| format!("no number at {path:?} in iperf3's JSON: {v:#}"))
}
