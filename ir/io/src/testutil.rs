//! Test helpers for the format readers: draws from the repository's PRNG and a robustness driver that
//! feeds a parser every truncation of a valid input and many randomly corrupted copies of it.

/// The repository's one PRNG ([`scenic_ir::rng`]) with the `usize` draws these tests use.
pub(crate) struct Rng(scenic_ir::rng::SplitMix64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(scenic_ir::rng::SplitMix64::new(seed))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number below `n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.index(n)
    }
}

/// Runs `parse` on every prefix of `valid` and on `flips` copies with 1 to 4 random bytes replaced
/// (some by "interesting" values: 0, 0xff, 0x7f, 0x80), then with random byte runs inserted or
/// deleted. `parse` must not panic; whatever it returns is accepted. Returns how many runs it made.
pub(crate) fn robustness(valid: &[u8], flips: usize, mut parse: impl FnMut(&[u8])) -> usize {
    let mut runs = 0;
    for end in 0..=valid.len() {
        parse(&valid[..end]);
        runs += 1;
    }
    let mut rng = Rng::new(0x5eed ^ valid.len() as u64);
    if valid.is_empty() {
        return runs;
    }
    for i in 0..flips {
        let mut v = valid.to_vec();
        let n = 1 + rng.below(4);
        for _ in 0..n {
            let at = rng.below(v.len());
            v[at] = match rng.below(6) {
                0 => 0,
                1 => 0xff,
                2 => 0x7f,
                3 => 0x80,
                _ => rng.next_u64() as u8,
            };
        }
        if i % 8 == 0 {
            let at = rng.below(v.len());
            let len = rng.below(9);
            if i % 16 == 0 {
                let end = (at + len).min(v.len());
                v.drain(at..end);
            } else {
                let junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                v.splice(at..at, junk);
            }
        }
        parse(&v);
        runs += 1;
    }
    runs
}

/// Writes `bytes` to a fresh file in the temporary directory and returns its path.
pub(crate) fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("scenic-io-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs a capture tool, or returns `None` (printing why) when it is not installed.
pub(crate) fn run_tool(tool: &str, args: &[&std::ffi::OsStr]) -> Option<std::process::Output> {
    match std::process::Command::new(tool).args(args).output() {
        Ok(out) => Some(out),
        Err(e) => {
            println!("skipped: `{tool}` is not available ({e})");
            None
        }
    }
}
