//! One running testbench: the child process of a built kernel and its line protocol on
//! stdin/stdout (`scenic_backend_hls::writer::testbench`): one request line, answer lines, `done`.

use crate::compile::{fnv, io, CsimError};
use scenic_sim::device::DeviceError;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// One running testbench (also the cc testbenches of [`crate::cc_sim`]).
pub(crate) struct Tb {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_path: PathBuf,
}

impl Tb {
    pub(crate) fn spawn(exe: &Path) -> Result<Tb, CsimError> {
        let stderr_path = std::env::temp_dir().join(format!(
            "scenicc-tb-{}-{:x}.stderr",
            std::process::id(),
            fnv(exe.to_string_lossy().as_bytes(), 7) ^ u64::from(std::process::id())
        ));
        let stderr = std::fs::File::create(&stderr_path)
            .map_err(io("creating the testbench's stderr file"))?;
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .map_err(io(format!("starting {}", exe.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(CsimError::Io {
                what: "the testbench's pipes".into(),
                source: std::io::Error::other("missing"),
            });
        };
        Ok(Tb {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            stderr_path,
        })
    }

    /// Sends one request line; the answer lines before `done`.
    pub(crate) fn request(&mut self, line: &str) -> Result<Vec<String>, DeviceError> {
        let protocol = |problem: String| DeviceError::Protocol {
            device: "hls-csim",
            problem,
        };
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| DeviceError::Io {
                device: "hls-csim",
                source,
            })?;
        let mut out = Vec::new();
        loop {
            let mut l = String::new();
            let n = self
                .stdout
                .read_line(&mut l)
                .map_err(|source| DeviceError::Io {
                    device: "hls-csim",
                    source,
                })?;
            if n == 0 {
                let err = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
                return Err(protocol(format!(
                    "the testbench exited after `{line}`: {}",
                    err.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
                )));
            }
            let l = l.trim_end().to_string();
            if l == "done" {
                break;
            }
            if let Some(msg) = l.strip_prefix("error ") {
                return Err(protocol(format!("`{line}`: {msg}")));
            }
            out.push(l);
        }
        Ok(out)
    }
}

impl Drop for Tb {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.stderr_path);
    }
}
