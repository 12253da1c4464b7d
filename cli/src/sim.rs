//! `scenicc sim FILE --in IN.pcap --out OUT.pcap`: run a capture through a program in the reference
//! interpreter, in virtual time taken from the packets' timestamps.
//!
//! `--out` gets every packet that leaves, in order (pcap, readable by tcpdump and Wireshark);
//! `--out-dir` gets one pcap per destination (`port<N>.pcap`, `host.pcap`, `pass.pcap`,
//! `scu-<K>.pcap`) and one file per DMA output (`dma-<out>[-<i>].bin`). `--entries` installs table
//! entries and CSR values first (format: docs/testing.md), `--csr NAME=VALUE` sets CSRs. A summary of
//! packets in and out, drops by reason, counters and CSRs ends the run (on stderr); `--trace` prints
//! each packet's path (parser states, table lookups, actions) before it.
//!
//! The capture is read piece by piece (`sim_capture`) and the files are written while it runs
//! (each opened when the first thing for it comes out, `--out` and the directory in any case), so
//! memory does not grow with the capture. One pass over the capture before any packet runs finds a
//! bad record or a jump of time that would stop the run, so that such a run still writes nothing.
//! What stops a run is a [`SimError`] (exit 2, or 1 when the program refuses the setup), printed
//! by `Output::fail`; the files are written by `sim_output`.

use crate::compile;
use crate::errors::{shown, SimError};
use crate::output::Output;
use crate::sim_capture::Capture;
use crate::sim_output::{port_file, Outputs};
use scenic_io::entries::{self, Entries};
use scenic_sim::capture::{Event, LargestStep, SimOptions, Simulation, StreamError, Summary};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `scenicc sim`.
#[derive(Clone, Debug, clap::Args)]
pub struct SimArgs {
    /// The program: a `.sn` file, or a `.p4` program (v1model or Vitis Networking P4, the subset of
    /// docs/p4.md).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The input capture (pcap or pcapng), read piece by piece; `/dev/stdin` reads a pipe.
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
    let value = scenic_io::value::parse_scalar(value.trim())
        .map_err(|e| format!("bad value `{value}`: {e}"))?;
    Ok((name.trim().to_string(), value))
}

/// Why a run stopped: the front half printed diagnostics (its exit code), or an error to print.
enum Stop {
    Printed(ExitCode),
    Failed(SimError),
}

impl From<SimError> for Stop {
    fn from(err: SimError) -> Stop {
        Stop::Failed(err)
    }
}

/// Runs `scenicc sim`.
pub fn run(args: &SimArgs, out: &Output, deny_warnings: bool) -> ExitCode {
    match simulate(args, out, deny_warnings) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop::Printed(code)) => code,
        Err(Stop::Failed(err)) => out.fail(&err),
    }
}

fn simulate(args: &SimArgs, out: &Output, deny_warnings: bool) -> Result<(), Stop> {
    let capture = Capture::open(&args.input)?;
    let steps = check_capture(&capture)?;
    let entries = args.entries.as_deref().map(read_entries).transpose()?;
    let module = compile::lower(&args.file, out, deny_warnings).map_err(Stop::Printed)?;
    let options = SimOptions {
        scu: args.scu.clone(),
        trace: args.trace,
    };
    // Set up and look for a jump of time before running anything, so that a run refused for
    // either leaves no output files, as when everything was written at the end.
    let mut simulation = Simulation::new(&module, entries.as_ref(), &args.csrs, &options)
        .and_then(|s| s.check_time(steps.get(), capture.timestamps()).map(|()| s))
        .map_err(SimError::setup)?;
    let mut files = Outputs::new(args.out.as_deref(), args.out_dir.as_deref(), &module);
    let mut sink = |event: Event<'_>| files.write(event);
    let mut pass = capture.stream()?;
    while let Some(record) = pass.next() {
        // The capture was checked: an error now means the file changed under us.
        let record = record.map_err(|source| SimError::CaptureChanged {
            path: shown(capture.path()),
            source,
        })?;
        match simulation.packet(record.ts_ns, record.data, &mut sink) {
            Ok(()) => {}
            Err(StreamError::Setup(source)) => return Err(SimError::setup(source).into()),
            Err(StreamError::Sink(err)) => return Err(err.into()),
        }
    }
    let summary = simulation.finish();
    files.finish()?;
    print_summary(&module, &summary);
    Ok(())
}

/// One pass over the whole capture before any packet runs: a bad record is an error before
/// anything is written. Returns the largest step of time between its packets.
fn check_capture(capture: &Capture) -> Result<LargestStep, SimError> {
    let mut steps = LargestStep::default();
    let mut pass = capture.stream()?;
    while let Some(record) = pass.next() {
        let record = record.map_err(|source| SimError::Capture {
            path: shown(capture.path()),
            source,
        })?;
        steps.push(record.ts_ns);
    }
    Ok(steps)
}

/// The `--entries` file, read and parsed.
fn read_entries(path: &Path) -> Result<Entries, SimError> {
    let text = std::fs::read_to_string(path).map_err(|source| SimError::Read {
        path: shown(path),
        source,
    })?;
    match entries::parse(&text) {
        Ok(entries) => Ok(entries),
        Err(err) => Err(SimError::entries(shown(path), text, err)),
    }
}

fn print_summary(module: &scenic_ir::Module, s: &Summary) {
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
            s.words, s.transfers
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

#[cfg(test)]
mod tests {
    //! The files written while simulating against those the collected result gives, written the
    //! way `scenicc sim` wrote them before it streamed: all at the end, grouped by port.

    use super::*;
    use crate::{EXIT_ERRORS, EXIT_USAGE};
    use scenic_io::pcap;
    use scenic_sim::capture::{self, SimResult};
    use std::collections::BTreeMap;

    fn example(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples")
            .join(name)
    }

    fn ipv4(dst: [u8; 4], ttl: u8, len: usize) -> Vec<u8> {
        let mut p = vec![0u8; len];
        p[12] = 0x08;
        p[14] = 0x45;
        p[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
        p[22] = ttl;
        p[23] = 17;
        p[30..34].copy_from_slice(&dst);
        p
    }

    /// A RoCEv2 SEND (`opcode`) to queue pair 7 carrying `payload`.
    fn roce(opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mut p = vec![0u8; 54];
        p[12] = 0x08;
        p[14] = 0x45;
        p[23] = 17;
        p[36..38].copy_from_slice(&4791u16.to_be_bytes());
        p[42] = opcode;
        p[49] = 7;
        p.extend_from_slice(payload);
        p.extend_from_slice(&[0; 4]);
        let ip_len = (p.len() - 14) as u16;
        p[16..18].copy_from_slice(&ip_len.to_be_bytes());
        p
    }

    fn pcap_bytes(packets: &[Vec<u8>]) -> Vec<u8> {
        let mut w = pcap::Writer::new(Vec::new()).unwrap_or_else(|e| panic!("{e}"));
        for (i, p) in packets.iter().enumerate() {
            let ts = 1_000_000_000 + i as u64 * 1_000;
            w.write_packet(ts, p).unwrap_or_else(|e| panic!("{e}"));
        }
        w.into_inner()
    }

    fn args(program: &str, input: &Path, dir: &Path) -> SimArgs {
        SimArgs {
            file: example(program),
            input: input.to_path_buf(),
            out: Some(dir.join("out.pcap")),
            out_dir: Some(dir.join("per-port")),
            entries: None,
            csrs: Vec::new(),
            scu: None,
            trace: false,
        }
    }

    fn quiet() -> Output {
        use crate::output::{Color, MessageFormat};
        Output::new(MessageFormat::Human, Color::Never, true, false)
    }

    /// The `--out` file and the `--out-dir` files (name, bytes) as written from a collected result.
    fn written_at_the_end(
        module: &scenic_ir::Module,
        r: &SimResult,
    ) -> (Vec<u8>, BTreeMap<String, Vec<u8>>) {
        let pcap_of = |packets: &mut dyn Iterator<Item = &capture::OutPacket>| {
            let mut w = pcap::Writer::new(Vec::new()).unwrap_or_else(|e| panic!("{e}"));
            for p in packets {
                w.write_packet(p.ts_ns, &p.data)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            w.into_inner()
        };
        let mut files = BTreeMap::new();
        for port in r.summary.out_per_port.keys() {
            let mut of_port = r.packets.iter().filter(|p| p.port == *port);
            files.insert(port_file(module, *port), pcap_of(&mut of_port));
        }
        for (_, t) in &r.transfers {
            let name = match t.index {
                0 => format!("dma-{}.bin", t.out),
                i => format!("dma-{}-{i}.bin", t.out),
            };
            files
                .entry(name)
                .or_insert_with(Vec::new)
                .extend_from_slice(&t.data);
        }
        (pcap_of(&mut r.packets.iter()), files)
    }

    fn read_dir(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| {
                let e = e.unwrap_or_else(|e| panic!("{e}"));
                let bytes = std::fs::read(e.path()).unwrap_or_else(|e| panic!("{e}"));
                (e.file_name().to_string_lossy().into_owned(), bytes)
            })
            .collect()
    }

    /// Runs `scenicc sim` on `packets` and checks its files against [`written_at_the_end`];
    /// returns the `--out-dir` files.
    fn check(program: &str, packets: &[Vec<u8>]) -> BTreeMap<String, Vec<u8>> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let input = dir.path().join("in.pcap");
        std::fs::write(&input, pcap_bytes(packets)).unwrap_or_else(|e| panic!("{e}"));
        let args = args(program, &input, dir.path());
        assert_eq!(run(&args, &quiet(), false), ExitCode::SUCCESS, "{program}");
        let module = compile::lower(&args.file, &quiet(), false).unwrap_or_else(|_| panic!());
        let capture = std::fs::read(&input).unwrap_or_else(|e| panic!("{e}"));
        let records = scenic_io::read_all(&capture).unwrap_or_else(|e| panic!("{e}"));
        let result = capture::simulate(
            &module,
            records.iter().map(|r| (r.ts_ns, r.data)),
            None,
            &[],
            &SimOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (out, files) = written_at_the_end(&module, &result);
        let written = std::fs::read(dir.path().join("out.pcap")).unwrap_or_else(|e| panic!("{e}"));
        assert!(written == out, "{program}: --out differs");
        let in_dir = read_dir(&dir.path().join("per-port"));
        assert_eq!(
            in_dir.keys().collect::<Vec<_>>(),
            files.keys().collect::<Vec<_>>(),
            "{program}"
        );
        assert!(in_dir == files, "{program}: --out-dir files differ");
        in_dir
    }

    #[test]
    fn the_files_written_while_simulating_are_those_written_at_the_end() {
        let routed: Vec<Vec<u8>> = (0..40u8)
            .map(|i| match i % 5 {
                0 => ipv4([10, 1, i, 1], 64, 60 + usize::from(i)),
                1 => ipv4([10, 2, 0, i], 64, 300),
                2 => ipv4([192, 168, 0, i], 1, 80),
                3 => ipv4([8, 8, 4, i], 9, 1500),
                _ => vec![i; 10],
            })
            .collect();
        let files = check("l3_router.sn", &routed);
        assert!(files.len() >= 3, "{:?}", files.keys());
        let payload: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let streams: Vec<Vec<u8>> = (0..12)
            .map(|i| roce([0x00, 0x01, 0x02][i % 3], &payload[..64 + i * 70]))
            .collect();
        let files = check("partition.sn", &streams);
        assert!(files.keys().any(|k| k.starts_with("dma-")), "{files:?}");
        check("xor_cipher.sn", &streams);
    }

    #[test]
    fn nothing_out_still_writes_an_empty_out_and_makes_the_directory() {
        let expired: Vec<Vec<u8>> = (0..3).map(|_| ipv4([10, 1, 1, 1], 1, 60)).collect();
        let files = check("l3_router.sn", &expired);
        assert!(files.is_empty(), "{:?}", files.keys());
    }

    #[test]
    fn a_run_refused_for_a_jump_of_time_writes_no_files() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let input = dir.path().join("in.pcap");
        let mut w = pcap::Writer::new(Vec::new()).unwrap_or_else(|e| panic!("{e}"));
        // flow_monitor runs `every 10ms` and passes every packet on: the first two come out, the
        // third is 10^7 s later (10^9 runs).
        for ts in [1_000_000_000, 1_000_001_000, 10_000_000_000_000_000] {
            let p = ipv4([10, 1, 1, 1], 64, 60);
            w.write_packet(ts, &p).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&input, w.into_inner()).unwrap_or_else(|e| panic!("{e}"));
        let args = args("flow_monitor.sn", &input, dir.path());
        assert_eq!(run(&args, &quiet(), false), ExitCode::from(EXIT_ERRORS));
        assert!(!dir.path().join("out.pcap").exists());
        assert!(!dir.path().join("per-port").exists());
    }

    /// `--out` naming a file of `--out-dir` would have two writers interleave their records.
    #[test]
    fn an_out_that_is_also_a_port_file_is_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let input = dir.path().join("in.pcap");
        // Not IPv4: the firewall passes it to the host.
        std::fs::write(&input, pcap_bytes(&[vec![0u8; 60]])).unwrap_or_else(|e| panic!("{e}"));
        let mut args = args("firewall.sn", &input, dir.path());
        std::fs::create_dir(dir.path().join("per-port")).unwrap_or_else(|e| panic!("{e}"));
        args.out = Some(dir.path().join("per-port").join("host.pcap"));
        assert_eq!(run(&args, &quiet(), false), ExitCode::from(EXIT_USAGE));
        let mut elsewhere = args.clone();
        elsewhere.out = Some(dir.path().join("out.pcap"));
        assert_eq!(run(&elsewhere, &quiet(), false), ExitCode::SUCCESS);
    }

    /// An `--out` in folders that do not exist yet creates them (as `scenicc build` does); one
    /// whose folder cannot be made (a file is in the way) is a usage error.
    #[test]
    fn an_out_in_a_missing_folder_creates_it_and_one_that_cannot_be_created_is_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let input = dir.path().join("in.pcap");
        let packets = [ipv4([10, 1, 1, 1], 64, 60)];
        std::fs::write(dir.path().join("a-file"), b"x").unwrap_or_else(|e| panic!("{e}"));
        for with_packets in [true, false] {
            let records: &[Vec<u8>] = if with_packets { &packets } else { &[] };
            std::fs::write(&input, pcap_bytes(records)).unwrap_or_else(|e| panic!("{e}"));
            let mut args = args("l3_router.sn", &input, dir.path());
            let made = dir
                .path()
                .join(format!("new-{with_packets}"))
                .join("deeper");
            args.out = Some(made.join("out.pcap"));
            assert_eq!(run(&args, &quiet(), false), ExitCode::SUCCESS);
            assert!(made.join("out.pcap").is_file(), "{with_packets}");
            args.out = Some(dir.path().join("a-file").join("out.pcap"));
            let code = run(&args, &quiet(), false);
            assert_eq!(code, ExitCode::from(EXIT_USAGE), "{with_packets}");
        }
    }
}
