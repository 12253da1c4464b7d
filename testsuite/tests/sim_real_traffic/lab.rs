//! The lab: two network namespaces joined by a veth pair, the tools run in them, and the capture of
//! the traffic they exchange (ARP, ICMP, neighbour discovery, TCP, UDP) with tcpdump.

use super::*;

/// The prefix of every namespace and interface name this test creates.
pub(crate) const PREFIX: &str = "scnt";

/// Addresses: namespace a (the client, where tcpdump runs) and namespace b, one pair per route of
/// `l3_router.sn` (10.1.0.0/16 → port 2, 192.168.0.0/16 → port 3, 10.0.0.0/8 → port 1, everything
/// else → port 0), with b holding the router's own address 10.0.0.1 in the 10.0.0.0/24 pair.
pub(crate) const V4_PAIRS: [([u8; 4], [u8; 4]); 4] = [
    ([10, 1, 2, 1], [10, 1, 2, 2]),
    ([192, 168, 7, 1], [192, 168, 7, 2]),
    ([172, 16, 9, 1], [172, 16, 9, 2]),
    ([10, 0, 0, 2], [10, 0, 0, 1]),
];
pub(crate) const V6_A: &str = "fd00:5c::1";
pub(crate) const V6_B: &str = "fd00:5c::2";
/// Bytes sent over each TCP connection.
pub(crate) const TCP_BYTES: usize = 20_000;

pub(crate) fn v4(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

pub(crate) fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|euid| euid == "0"))
        })
        .unwrap_or(false)
}

pub(crate) fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Skips (prints the reason and returns) or, under `SCENIC_REQUIRE_NETNS=1`, fails.
pub(crate) fn skip(reason: &str) {
    if std::env::var("SCENIC_REQUIRE_NETNS").is_ok_and(|v| v == "1") {
        panic!("SCENIC_REQUIRE_NETNS=1 but {reason}");
    }
    println!("skipping: {reason}");
    eprintln!("skipping: {reason}");
}

/// Runs a command to completion; its stdout, or an error with its stderr.
pub(crate) fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd:?} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

pub(crate) fn ip(args: &[&str]) -> Result<String, String> {
    run(Command::new("ip").args(args))
}

pub(crate) fn in_ns(ns: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", ns]).args(args);
    cmd
}

/// Kills the processes left in a namespace of ours (only ever processes this test started in it)
/// and deletes it.
pub(crate) fn remove_namespace(ns: &str) {
    if let Ok(pids) = ip(&["netns", "pids", ns]) {
        for pid in pids.split_whitespace() {
            let _ = run(Command::new("kill").args(["-KILL", pid]));
        }
    }
    let _ = ip(&["netns", "del", ns]);
}

/// Removes namespaces and interfaces of earlier runs whose test process no longer exists.
pub(crate) fn remove_stale() {
    let stale = |name: &str| {
        name.strip_prefix(PREFIX)
            .and_then(|rest| rest.strip_suffix(['a', 'b']))
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
    };
    if let Ok(list) = ip(&["netns", "list"]) {
        for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
            if stale(name) {
                remove_namespace(name);
            }
        }
    }
    if let Ok(links) = ip(&["-o", "link", "show"]) {
        for name in links
            .lines()
            .filter_map(|l| l.split(": ").nth(1))
            .map(|n| n.split('@').next().unwrap_or(n))
        {
            if stale(name) {
                let _ = ip(&["link", "del", name]);
            }
        }
    }
}

/// Two namespaces `a` and `b` joined by veth ends of the same names; removed on drop.
pub(crate) struct Lab {
    a: String,
    b: String,
    children: Vec<Child>,
}

impl Lab {
    pub(crate) fn new() -> Result<Lab, String> {
        let id = std::process::id();
        let lab = Lab {
            a: format!("{PREFIX}{id}a"),
            b: format!("{PREFIX}{id}b"),
            children: Vec::new(),
        };
        // A namespace of our pid can only be left over from a run whose pid was reused.
        remove_namespace(&lab.a);
        remove_namespace(&lab.b);
        ip(&["netns", "add", &lab.a])?;
        ip(&["netns", "add", &lab.b])?;
        let (a, b) = (lab.a.clone(), lab.b.clone());
        ip(&["link", "add", &a, "type", "veth", "peer", "name", &b])?;
        ip(&["link", "set", &a, "netns", &a])?;
        ip(&["link", "set", &b, "netns", &b])?;
        for (ns, side) in [(&a, 0), (&b, 1)] {
            for (pa, pb) in V4_PAIRS {
                let addr = if side == 0 { pa } else { pb };
                ip(&[
                    "-n",
                    ns,
                    "addr",
                    "add",
                    &format!("{}/24", v4(addr)),
                    "dev",
                    ns,
                ])?;
            }
            let v6 = if side == 0 { V6_A } else { V6_B };
            // nodad: usable at once (the link-local addresses still do duplicate address detection).
            ip(&[
                "-n",
                ns,
                "addr",
                "add",
                &format!("{v6}/64"),
                "dev",
                ns,
                "nodad",
            ])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
            ip(&["-n", ns, "link", "set", ns, "up"])?;
        }
        Ok(lab)
    }

    pub(crate) fn spawn(&mut self, mut cmd: Command) -> Result<usize, String> {
        let child = cmd
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        self.children.push(child);
        Ok(self.children.len() - 1)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for child in &mut self.children {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
        remove_namespace(&self.a);
        remove_namespace(&self.b);
        // Deleting a namespace deletes the veth end in it, and with it its peer; this is for a veth
        // created but not yet moved when something failed.
        let _ = ip(&["link", "del", &self.a]);
    }
}

/// Waits for a child with a time limit.
pub(crate) fn wait_child(
    child: &mut Child,
    limit: Duration,
    what: &str,
) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                panic!("{what} did not finish within {limit:?}");
            }
        }
    }
}

/// Whether a TCP port is listening in a namespace (from /proc/net/tcp{,6}: state 0A is LISTEN).
pub(crate) fn listening(ns: &str, port: u16) -> bool {
    let needle = format!(":{port:04X} ");
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|file| {
        run(&mut in_ns(ns, &["cat", file])).is_ok_and(|t| {
            t.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 3 && format!("{} ", f[1]).ends_with(&needle) && f[3] == "0A"
            })
        })
    })
}

/// A listener in namespace `ns` on `addr`:`port` that reads one connection and exits.
pub(crate) fn listener(ns: &str, v6: bool, addr: &str, port: u16) -> Command {
    if have("socat") {
        let spec = if v6 {
            format!("TCP6-LISTEN:{port},bind=[{addr}],reuseaddr")
        } else {
            format!("TCP4-LISTEN:{port},bind={addr},reuseaddr")
        };
        let mut cmd = in_ns(ns, &["socat", "-u", &spec, "OPEN:/dev/null"]);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        cmd
    } else {
        // netcat-openbsd: `nc -l [addr] port` serves one connection.
        let family = if v6 { "-6" } else { "-4" };
        let p = port.to_string();
        let mut cmd = in_ns(ns, &["nc", family, "-l", addr, &p]);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        cmd
    }
}

/// Generates the traffic and returns the capture file and tcpdump's count of captured packets.
pub(crate) fn capture(lab: &mut Lab, dir: &Path) -> Result<(PathBuf, u64), String> {
    let (a, b) = (lab.a.clone(), lab.b.clone());
    let pcap = dir.join("real.pcap");
    let pcap_s = pcap.to_string_lossy().into_owned();
    // -U and --immediate-mode: every packet is written as it arrives (without the latter, libpcap's
    // TPACKET_V3 ring hands packets over only when a block fills or a timeout passes, and packets
    // still in the ring when tcpdump stops are lost). -Z root: keep writing into our temp directory.
    let mut cmd = in_ns(
        &a,
        &[
            "tcpdump",
            "-i",
            &a,
            "-n",
            "-U",
            "--immediate-mode",
            "-Z",
            "root",
            "-w",
            &pcap_s,
        ],
    );
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let td = lab.spawn(cmd)?;
    let stderr = lab.children[td].stderr.take().ok_or("no tcpdump stderr")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut td_lines = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(line) => {
                let ready = line.contains("listening on");
                td_lines.push(line);
                if ready {
                    break;
                }
            }
            Err(_) => return Err(format!("tcpdump did not start: {td_lines:?}")),
        }
    }

    let ping = |args: &[&str]| -> Result<String, String> {
        let mut all = vec!["ping", "-n", "-W", "2"];
        all.extend_from_slice(args);
        run(&mut in_ns(&a, &all))
    };
    // ARP and ICMP echo on every IPv4 pair (one route each), 3 echoes on the first.
    ping(&["-c", "3", "-i", "0.2", &v4(V4_PAIRS[0].1)])?;
    for (_, peer) in &V4_PAIRS[1..] {
        ping(&["-c", "1", &v4(*peer)])?;
    }
    // TTL 1: fine for a directly connected peer, dropped by the router.
    ping(&["-c", "1", "-t", "1", &v4(V4_PAIRS[0].1)])?;
    // IPv6 neighbour discovery and ICMPv6 echo.
    ping(&["-6", "-c", "3", "-i", "0.2", V6_B])?;

    // TCP over IPv4 and IPv6: a listener in b, bash's /dev/tcp in a.
    let peer4 = v4(V4_PAIRS[0].1);
    for (v6, addr, port) in [(false, peer4.as_str(), 5001u16), (true, V6_B, 5003)] {
        let l = lab.spawn(listener(&b, v6, addr, port))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !listening(&b, port) {
            if Instant::now() > deadline {
                return Err(format!("nothing listens on port {port} in {b}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let script = format!("head -c {TCP_BYTES} /dev/zero | tr '\\0' s > /dev/tcp/{addr}/{port}");
        run(&mut in_ns(&a, &["bash", "-c", &script]))?;
        wait_child(
            &mut lab.children[l],
            Duration::from_secs(10),
            "the TCP listener",
        );
    }
    // A refused connection to telnet (SYN, RST): the firewall denies it.
    let _ = run(&mut in_ns(
        &a,
        &["bash", "-c", &format!("exec 3<>/dev/tcp/{peer4}/23")],
    ));
    // UDP over IPv4 and IPv6 (nobody listens: ICMP port unreachable comes back), and to the
    // portmapper port, which the firewall denies.
    for target in [
        format!("{peer4}/5002"),
        format!("{V6_B}/5002"),
        format!("{peer4}/111"),
    ] {
        run(&mut in_ns(
            &a,
            &[
                "bash",
                "-c",
                &format!("echo hello-scenic > /dev/udp/{target}"),
            ],
        ))?;
    }
    std::thread::sleep(Duration::from_millis(300));

    // Stop tcpdump with SIGINT, as a user would: it flushes, closes the file and prints its counts.
    let pid = lab.children[td].id().to_string();
    run(Command::new("kill").args(["-INT", &pid]))?;
    let status = wait_child(&mut lab.children[td], Duration::from_secs(10), "tcpdump");
    td_lines.extend(rx.try_iter());
    while let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
        td_lines.push(line);
    }
    if !status.success() {
        return Err(format!("tcpdump ended with {status}: {td_lines:?}"));
    }
    let captured = td_lines
        .iter()
        .find_map(|l| l.strip_suffix(" packets captured"))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("no packet count from tcpdump: {td_lines:?}"))?;
    Ok((pcap, captured))
}
