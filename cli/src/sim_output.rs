//! The files `scenicc sim` writes while it runs: `--out` (every packet that leaves) and `--out-dir`
//! (one pcap per destination, one file per DMA output), each created by the first thing written to
//! it. A file that cannot be created or written is a [`SimError`].

use crate::errors::{shown, SimError};
use scenic_interp::stream::DmaTransfer;
use scenic_io::pcap;
use scenic_sim::capture::Event;
use scenic_sim::{HOST_PORT, PASS_PORT, SCU_PORT_BASE};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// An I/O error at `path` while doing `action` (`create`, `write`).
fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SimError {
    let path = shown(path);
    move |source| SimError::Write {
        action,
        path,
        source,
    }
}

/// A pcap writer's error at `path`.
fn pcap_error(path: &Path) -> impl FnOnce(pcap::PcapError) -> SimError {
    let path = shown(path);
    move |source| SimError::Pcap { path, source }
}

/// The files of `--out` and `--out-dir`, written as packets and DMA transfers come out. A file is
/// created by the first thing written to it, so `--out-dir` holds files only for the ports and DMA
/// outputs that had some; `--out` and the directory are created at the end if nothing came out.
pub struct Outputs<'a> {
    module: &'a scenic_ir::Module,
    out_path: Option<&'a Path>,
    out: Option<PcapFile>,
    dir: Option<&'a Path>,
    dir_made: bool,
    ports: BTreeMap<u32, PcapFile>,
    /// Per DMA output and element: the bytes of its transfers, appended.
    dma: Vec<(String, usize, PathBuf, BufWriter<File>)>,
}

impl<'a> Outputs<'a> {
    /// Nothing written yet to `out` (`--out`) and `dir` (`--out-dir`).
    pub fn new(
        out: Option<&'a Path>,
        dir: Option<&'a Path>,
        module: &'a scenic_ir::Module,
    ) -> Self {
        Outputs {
            module,
            out_path: out,
            out: None,
            dir,
            dir_made: false,
            ports: BTreeMap::new(),
            dma: Vec::new(),
        }
    }

    /// Prints a trace, or writes a packet or a transfer where it goes.
    pub fn write(&mut self, event: Event<'_>) -> Result<(), SimError> {
        match event {
            Event::Trace { n, lines } => {
                eprintln!("packet {n}:");
                for line in lines {
                    eprintln!("  {line}");
                }
                Ok(())
            }
            Event::Packet { ts_ns, port, data } => self.packet(ts_ns, port, data),
            Event::Transfer { transfer, .. } => self.transfer(&transfer),
        }
    }

    fn packet(&mut self, ts_ns: u64, port: u32, data: &[u8]) -> Result<(), SimError> {
        if let Some(path) = self.out_path {
            if self.out.is_none() {
                self.out = Some(PcapFile::create(path.to_path_buf())?);
            }
            if let Some(file) = &mut self.out {
                file.write(ts_ns, data)?;
            }
        }
        let Some(dir) = self.dir else {
            return Ok(());
        };
        if !self.ports.contains_key(&port) {
            self.make_dir()?;
            let path = dir.join(port_file(self.module, port));
            if self.out_path == Some(path.as_path()) {
                // Two writers on one file would interleave their records into garbage.
                return Err(SimError::OutCollides { path: shown(&path) });
            }
            self.ports.insert(port, PcapFile::create(path)?);
        }
        match self.ports.get_mut(&port) {
            Some(file) => file.write(ts_ns, data),
            None => Ok(()),
        }
    }

    fn transfer(&mut self, t: &DmaTransfer) -> Result<(), SimError> {
        let Some(dir) = self.dir else {
            return Ok(());
        };
        let known = self.dma.iter().position(|d| d.0 == t.out && d.1 == t.index);
        let at = match known {
            Some(at) => at,
            None => {
                self.make_dir()?;
                let name = if t.index == 0 {
                    format!("dma-{}.bin", t.out)
                } else {
                    format!("dma-{}-{}.bin", t.out, t.index)
                };
                let path = dir.join(name);
                let file = File::create(&path).map_err(io_error("write", &path))?;
                self.dma
                    .push((t.out.clone(), t.index, path, BufWriter::new(file)));
                self.dma.len() - 1
            }
        };
        let (_, _, path, file) = &mut self.dma[at];
        file.write_all(&t.data).map_err(io_error("write", path))
    }

    fn make_dir(&mut self) -> Result<(), SimError> {
        if let (Some(dir), false) = (self.dir, self.dir_made) {
            std::fs::create_dir_all(dir).map_err(io_error("create", dir))?;
            self.dir_made = true;
        }
        Ok(())
    }

    /// Creates what nothing was written to (`--out`, the directory) and flushes every file.
    pub fn finish(mut self) -> Result<(), SimError> {
        if let (Some(path), None) = (self.out_path, &self.out) {
            self.out = Some(PcapFile::create(path.to_path_buf())?);
        }
        self.make_dir()?;
        for file in self.out.iter_mut().chain(self.ports.values_mut()) {
            file.flush()?;
        }
        for (_, _, path, file) in &mut self.dma {
            file.flush().map_err(io_error("write", path))?;
        }
        Ok(())
    }
}

/// A pcap file being written, with its path for messages.
struct PcapFile {
    path: PathBuf,
    writer: pcap::Writer<BufWriter<File>>,
}

impl PcapFile {
    /// Creates the file, and its folder if missing (as `scenicc build` creates its output's).
    fn create(path: PathBuf) -> Result<Self, SimError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_error("create", dir))?;
        }
        let file = File::create(&path).map_err(io_error("create", &path))?;
        // Large writes: one system call per 64 KiB rather than per 8 KiB of packets.
        let writer = pcap::Writer::new(BufWriter::with_capacity(1 << 16, file))
            .map_err(pcap_error(&path))?;
        Ok(PcapFile { path, writer })
    }

    fn write(&mut self, ts_ns: u64, data: &[u8]) -> Result<(), SimError> {
        self.writer
            .write_packet(ts_ns, data)
            .map_err(pcap_error(&self.path))
    }

    fn flush(&mut self) -> Result<(), SimError> {
        self.writer.flush().map_err(pcap_error(&self.path))
    }
}

/// The `--out-dir` file of `port`.
pub fn port_file(module: &scenic_ir::Module, port: u32) -> String {
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
