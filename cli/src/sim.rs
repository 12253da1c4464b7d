//! `scenicc sim FILE --in IN.pcap --out OUT.pcap`: run a capture through a program in the reference
//! interpreter, in virtual time taken from the packets' timestamps.
//!
//! `--out` gets every packet that leaves, in order (pcap, readable by tcpdump and Wireshark);
//! `--out-dir` gets one pcap per destination (`port<N>.pcap`, `host.pcap`, `pass.pcap`,
//! `scu-<K>.pcap`) and one file per DMA output (`dma-<out>[-<i>].bin`). `--entries` installs table
//! entries and CSR values first (format: docs/testing.md), `--csr NAME=VALUE` sets CSRs. A summary of
//! packets in and out, drops by reason, counters and CSRs ends the run (on stderr); `--trace` prints
//! each packet's path (parser states, table lookups, actions) before it.

use crate::compile;
use crate::output::{self, Output};
use crate::{EXIT_ERRORS, EXIT_USAGE};
use scenic_ir::io::{self, entries, pcap};
use scenic_ir::sim::capture::{self, SimOptions, SimResult};
use scenic_ir::sim::{HOST_PORT, PASS_PORT, SCU_PORT_BASE};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `scenicc sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// The program: a `.sn` file, or a `.p4` program (v1model or Vitis Networking P4, the subset of
    /// docs/p4.md).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The input capture (pcap or pcapng).
    #[arg(long = "in", value_name = "IN.pcap")]
    pub input: PathBuf,
    /// Write every packet that leaves to this pcap file.
    #[arg(long, value_name = "OUT.pcap")]
    pub out: Option<PathBuf>,
    /// Write one pcap per destination (and DMA outputs) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Table entries and CSR values to install first (JSON, see docs/testing.md).
    #[arg(long, value_name = "E.json")]
    pub entries: Option<PathBuf>,
    /// Set a CSR or param before the first packet (`NAME=VALUE`; a cc's param is `cc.param`).
    #[arg(long = "csr", value_name = "NAME=VALUE", value_parser = parse_csr)]
    pub csrs: Vec<(String, u64)>,
    /// The scu to run (default: the first).
    #[arg(long, value_name = "NAME")]
    pub scu: Option<String>,
    /// Print each packet's path through the program.
    #[arg(long)]
    pub trace: bool,
}

fn parse_csr(text: &str) -> Result<(String, u64), String> {
    let (name, value) = text.split_once('=').ok_or("expected NAME=VALUE")?;
    let value = scenic_ir::io::value::parse_scalar(value.trim())
        .map_err(|e| format!("bad value `{value}`: {e}"))?;
    Ok((name.trim().to_string(), value))
}

/// Runs `scenicc sim`.
pub fn run(args: &SimArgs, out: &Output, deny_warnings: bool) -> ExitCode {
    let bytes = match std::fs::read(&args.input) {
        Ok(b) => b,
        Err(err) => {
            return usage(
                out,
                &format!("cannot read `{}`: {err}", args.input.display()),
            )
        }
    };
    let records = match io::read_all(&bytes) {
        Ok(r) => r,
        Err(err) => return usage(out, &format!("`{}`: {err}", args.input.display())),
    };
    let entries = match &args.entries {
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| entries::parse(&t).map_err(|e| e.to_string()))
        {
            Ok(e) => Some(e),
            Err(err) => return usage(out, &format!("`{}`: {err}", path.display())),
        },
        None => None,
    };
    let module = match compile::lower(&args.file, out, deny_warnings) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let options = SimOptions {
        scu: args.scu.clone(),
        trace: args.trace,
    };
    let packets = records.iter().map(|r| (r.ts_ns, r.data));
    let result = match capture::simulate(&module, packets, entries.as_ref(), &args.csrs, &options) {
        Ok(r) => r,
        Err(err) => {
            out.message(output::Level::Error, &err.to_string());
            return ExitCode::from(EXIT_ERRORS);
        }
    };
    for (n, lines) in &result.traces {
        eprintln!("packet {n}:");
        for line in lines {
            eprintln!("  {line}");
        }
    }
    if let Err(err) = write_outputs(args, &module, &result) {
        return usage(out, &err);
    }
    print_summary(&module, &result);
    ExitCode::SUCCESS
}

fn usage(out: &Output, message: &str) -> ExitCode {
    out.message(output::Level::Error, message);
    ExitCode::from(EXIT_USAGE)
}

fn write_outputs(
    args: &SimArgs,
    module: &scenic_ir::Module,
    result: &SimResult,
) -> Result<(), String> {
    if let Some(path) = &args.out {
        write_pcap(
            path,
            result.packets.iter().map(|p| (p.ts_ns, p.data.as_slice())),
        )?;
    }
    let Some(dir) = &args.out_dir else {
        return Ok(());
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let mut by_port: BTreeMap<u32, Vec<(u64, &[u8])>> = BTreeMap::new();
    for p in &result.packets {
        by_port.entry(p.port).or_default().push((p.ts_ns, &p.data));
    }
    for (port, packets) in by_port {
        write_pcap(&dir.join(port_file(module, port)), packets)?;
    }
    let mut dma: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (_, t) in &result.transfers {
        let name = if t.index == 0 {
            format!("dma-{}.bin", t.out)
        } else {
            format!("dma-{}-{}.bin", t.out, t.index)
        };
        dma.entry(name).or_default().extend_from_slice(&t.data);
    }
    for (name, data) in dma {
        let path = dir.join(name);
        std::fs::write(&path, data)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}

fn port_file(module: &scenic_ir::Module, port: u32) -> String {
    match port {
        HOST_PORT => "host.pcap".into(),
        PASS_PORT => "pass.pcap".into(),
        p if p >= SCU_PORT_BASE => {
            let k = (p - SCU_PORT_BASE) as usize;
            let name = module
                .scus
                .values()
                .nth(k)
                .map_or_else(|| k.to_string(), |s| s.name.clone());
            format!("scu-{name}.pcap")
        }
        p => format!("port{p}.pcap"),
    }
}

fn write_pcap<'a>(
    path: &Path,
    packets: impl IntoIterator<Item = (u64, &'a [u8])>,
) -> Result<(), String> {
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create `{}`: {e}", path.display()))?;
    let mut writer = pcap::Writer::new(std::io::BufWriter::new(file)).map_err(|e| e.to_string())?;
    for (ts, data) in packets {
        writer
            .write_packet(ts, data)
            .map_err(|e| format!("`{}`: {e}", path.display()))?;
    }
    writer
        .flush()
        .map_err(|e| format!("`{}`: {e}", path.display()))
}

fn print_summary(module: &scenic_ir::Module, result: &SimResult) {
    let s = &result.summary;
    let out: u64 = s.out_per_port.values().sum();
    let dropped: u64 = s.dropped.values().sum();
    eprintln!(
        "summary: {} packets in, {out} out, {dropped} dropped",
        s.packets_in
    );
    for (port, n) in &s.out_per_port {
        eprintln!(
            "  out {}: {n}",
            port_file(module, *port).trim_end_matches(".pcap")
        );
    }
    for (reason, n) in &s.dropped {
        eprintln!("  dropped ({reason}): {n}");
    }
    if s.words > 0 {
        eprintln!(
            "  payload words: {}, DMA transfers: {}",
            s.words,
            result.transfers.len()
        );
    }
    if s.notifications > 0 {
        eprintln!("  notifications: {}", s.notifications);
    }
    for (name, cell, packets, bytes) in &s.counters {
        eprintln!("  counter {name}[{cell}]: {packets} packets, {bytes} bytes");
    }
    for (name, value) in &s.csrs {
        eprintln!("  csr {name} = {value}");
    }
}
