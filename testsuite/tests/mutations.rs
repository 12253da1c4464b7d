//! Mutation testing of the frontend: every example in `examples/*.sn` is mutated hundreds of ways and
//! every mutant is checked in-process. For each mutant the check must not panic, must terminate, and
//! every diagnostic must be renderable with a real location: each label is a `Loc::File` whose span
//! lies within that file's text, `render_plain` and `json_lines` work, the `-->` line of the plain
//! rendering agrees with the JSON location, and every JSON line has `line >= 1` and `column >= 1`.
//!
//! Mutants are deterministic: a small xorshift64 generator is seeded from the example's name and the
//! mutant's index, so a failure report (`firewall.sn #123 [SwapLines, InsertBytes]`) is reproducible.
//! Set `SCENIC_MUTANT_DUMP=<dir>` to have failing mutants written to that directory.
//!
//! The mutants run on one worker thread per core. Mutants that may not be UTF-8 go through
//! `add_source_bytes` in a fresh session; of the others, half get a fresh session (`add_source`, as the
//! CLI does) and half replace the text of a session kept across mutants (`set_text`, an incremental
//! check, which also exercises the rebasing of reused chunk results). One incremental check in four is
//! compared with a fresh check of the same text: the diagnostics must be equal.
//!
//! A second test runs fixed nasty inputs (empty file, deep nesting, a 1 MB literal, NUL bytes, ...).
//! Deep nesting can overflow the stack, which aborts the whole process, so each nasty input is checked
//! in a child process (this test binary re-run on `nasty_input_child`) on a thread with a normal 2 MiB
//! stack; a crash is reported with the input's name and the child's stderr. To turn a fuzzer crash into
//! a regression test, add its input to `nasty_inputs` (see `docs/fuzzing.md`).

use scenic_frontend::diag::Loc;
use scenic_frontend::{stdlib, CheckOptions, Session};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Once};
use std::time::{Duration, Instant};

/// Mutants per example (at least 300).
const MUTANTS_PER_EXAMPLE: usize = 320;

/// How long one mutant may take before the check is declared not to terminate.
const MUTANT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long one nasty input may take (in a child process) before it is killed.
const NASTY_TIMEOUT: Duration = Duration::from_secs(120);

/// The stack of the thread that checks a nasty input: the default size of a spawned thread.
const NORMAL_STACK: usize = 2 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------------
// A small deterministic PRNG.

/// xorshift64, seeded through splitmix64 so that nearby seeds give unrelated streams.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// The seed of mutant `index` of the example called `name` (FNV-1a of the name, mixed with the index).
fn seed_for(name: &str, index: usize) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

// ---------------------------------------------------------------------------------------------------
// Mutations.

/// One way of changing a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    DeleteLine,
    DuplicateLine,
    SwapLines,
    DeleteToken,
    DuplicateToken,
    SwapTokens,
    /// Truncate at a random byte, on a char boundary.
    Truncate,
    /// Truncate in the middle of a multi-byte UTF-8 character (checked through the bytes API).
    TruncateMidUtf8,
    InsertAscii,
    /// Insert arbitrary bytes, usually not UTF-8 (checked through the bytes API).
    InsertBytes,
    /// Replace a random range with a copy of another part of the file.
    ReplaceRange,
}

const KINDS: [Kind; 11] = [
    Kind::DeleteLine,
    Kind::DuplicateLine,
    Kind::SwapLines,
    Kind::DeleteToken,
    Kind::DuplicateToken,
    Kind::SwapTokens,
    Kind::Truncate,
    Kind::TruncateMidUtf8,
    Kind::InsertAscii,
    Kind::InsertBytes,
    Kind::ReplaceRange,
];

impl Kind {
    /// Whether the mutant must go through `add_source_bytes` (it may not be UTF-8).
    fn needs_bytes_api(self) -> bool {
        matches!(self, Kind::TruncateMidUtf8 | Kind::InsertBytes)
    }
}

/// The kinds applied to mutant `index`: one kind each for eleven mutants in fourteen, cycling through
/// all kinds, and 2–3 stacked random kinds for the other three.
fn kinds_for(index: usize, rng: &mut Rng) -> Vec<Kind> {
    let slot = index % (KINDS.len() + 3);
    if slot < KINDS.len() {
        vec![KINDS[slot]]
    } else {
        let count = rng.between(2, 3);
        (0..count).map(|_| KINDS[rng.below(KINDS.len())]).collect()
    }
}

/// Line ranges, each including its `\n` (the last one may not have one).
fn lines(buf: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in buf.iter().enumerate() {
        if b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < buf.len() {
        out.push((start, buf.len()));
    }
    out
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Token ranges: maximal runs of identifier characters, maximal runs of non-ASCII bytes (so that
/// characters stay whole), or single punctuation characters. Whitespace is not a token.
fn tokens(buf: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < buf.len() {
        let b = buf[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if is_ident_byte(b) {
            let start = i;
            while i < buf.len() && is_ident_byte(buf[i]) {
                i += 1;
            }
            out.push((start, i));
        } else if b >= 0x80 {
            let start = i;
            while i < buf.len() && buf[i] >= 0x80 {
                i += 1;
            }
            out.push((start, i));
        } else {
            out.push((i, i + 1));
            i += 1;
        }
    }
    out
}

/// Moves `pos` back to the start of a UTF-8 character (a no-op on ASCII and on non-UTF-8 garbage that
/// has no continuation bytes).
fn char_boundary(buf: &[u8], pos: usize) -> usize {
    let mut pos = pos.min(buf.len());
    while pos > 0 && pos < buf.len() && (buf[pos] & 0xC0) == 0x80 {
        pos -= 1;
    }
    pos
}

/// Swaps the non-overlapping ranges `a` and `b` (with `a` before `b`).
fn swap_ranges(buf: &[u8], a: (usize, usize), b: (usize, usize)) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    out.extend_from_slice(&buf[..a.0]);
    out.extend_from_slice(&buf[b.0..b.1]);
    out.extend_from_slice(&buf[a.1..b.0]);
    out.extend_from_slice(&buf[a.0..a.1]);
    out.extend_from_slice(&buf[b.1..]);
    out
}

/// Picks two distinct elements of `ranges` (ordered), often near each other. `None` if there are
/// fewer than two.
fn pick_two(ranges: &[(usize, usize)], rng: &mut Rng) -> Option<((usize, usize), (usize, usize))> {
    if ranges.len() < 2 {
        return None;
    }
    let i = rng.below(ranges.len() - 1);
    let j = if rng.coin() {
        rng.between(i + 1, (i + 8).min(ranges.len() - 1))
    } else {
        rng.between(i + 1, ranges.len() - 1)
    };
    Some((ranges[i], ranges[j]))
}

/// Applies one mutation of `kind` to `buf`.
fn mutate(buf: &[u8], kind: Kind, rng: &mut Rng) -> Vec<u8> {
    let splice = |at: (usize, usize), with: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(buf.len() + with.len());
        out.extend_from_slice(&buf[..at.0]);
        out.extend_from_slice(with);
        out.extend_from_slice(&buf[at.1..]);
        out
    };
    match kind {
        Kind::DeleteLine | Kind::DuplicateLine => {
            let lines = lines(buf);
            if lines.is_empty() {
                return buf.to_vec();
            }
            let line = lines[rng.below(lines.len())];
            if kind == Kind::DeleteLine {
                splice(line, b"")
            } else {
                splice((line.1, line.1), &buf[line.0..line.1])
            }
        }
        Kind::SwapLines => match pick_two(&lines(buf), rng) {
            Some((a, b)) => swap_ranges(buf, a, b),
            None => buf.to_vec(),
        },
        Kind::DeleteToken | Kind::DuplicateToken => {
            let tokens = tokens(buf);
            if tokens.is_empty() {
                return buf.to_vec();
            }
            let token = tokens[rng.below(tokens.len())];
            if kind == Kind::DeleteToken {
                splice(token, b"")
            } else {
                let mut copy = Vec::new();
                if rng.coin() {
                    copy.push(b' ');
                }
                copy.extend_from_slice(&buf[token.0..token.1]);
                splice((token.1, token.1), &copy)
            }
        }
        Kind::SwapTokens => match pick_two(&tokens(buf), rng) {
            Some((a, b)) => swap_ranges(buf, a, b),
            None => buf.to_vec(),
        },
        Kind::Truncate => {
            let at = char_boundary(buf, rng.below(buf.len() + 1));
            buf[..at].to_vec()
        }
        Kind::TruncateMidUtf8 => {
            // Cut inside a multi-byte character: an existing one if there is any, else a `€` inserted
            // at a random place first.
            let starts: Vec<usize> = (0..buf.len()).filter(|&i| buf[i] >= 0xC0).collect();
            if starts.is_empty() {
                let at = char_boundary(buf, rng.below(buf.len() + 1));
                let mut out = buf[..at].to_vec();
                out.extend_from_slice(&"€".as_bytes()[..rng.between(1, 2)]);
                out
            } else {
                let start = starts[rng.below(starts.len())];
                let mut len = 1;
                while start + len < buf.len() && (buf[start + len] & 0xC0) == 0x80 {
                    len += 1;
                }
                buf[..start + rng.between(1, len.max(2) - 1).min(len)].to_vec()
            }
        }
        Kind::InsertAscii => {
            let at = char_boundary(buf, rng.below(buf.len() + 1));
            let count = rng.between(1, 8);
            let bytes: Vec<u8> = (0..count)
                .map(|_| match rng.below(20) {
                    0 => b'\n',
                    1 => b'\t',
                    _ => rng.between(0x20, 0x7E) as u8,
                })
                .collect();
            splice((at, at), &bytes)
        }
        Kind::InsertBytes => {
            let at = rng.below(buf.len() + 1);
            let count = rng.between(1, 8);
            let mut bytes: Vec<u8> = (0..count).map(|_| rng.below(256) as u8).collect();
            // Mostly make sure the result is not UTF-8.
            if rng.below(4) != 0 {
                bytes[0] = rng.between(0x80, 0xFF) as u8;
            }
            splice((at, at), &bytes)
        }
        Kind::ReplaceRange => {
            if buf.is_empty() {
                return buf.to_vec();
            }
            let lo = char_boundary(buf, rng.below(buf.len()));
            let hi = char_boundary(buf, (lo + rng.between(1, 200)).min(buf.len()));
            let src_lo = char_boundary(buf, rng.below(buf.len()));
            let src_hi = char_boundary(buf, (src_lo + rng.between(0, 200)).min(buf.len()));
            let with = buf[src_lo..src_hi].to_vec();
            splice((lo, hi.max(lo)), &with)
        }
    }
}

/// One mutant: its bytes, the kinds applied, and whether it must go through the bytes API.
struct Mutant {
    bytes: Vec<u8>,
    kinds: Vec<Kind>,
    seed: u64,
    via_bytes: bool,
}

/// Mutant `index` of `text` (deterministic).
fn make_mutant(name: &str, text: &str, index: usize) -> Mutant {
    let seed = seed_for(name, index);
    let mut rng = Rng::new(seed);
    let kinds = kinds_for(index, &mut rng);
    let mut bytes = text.as_bytes().to_vec();
    for &kind in &kinds {
        bytes = mutate(&bytes, kind, &mut rng);
    }
    let via_bytes =
        kinds.iter().any(|k| k.needs_bytes_api()) || std::str::from_utf8(&bytes).is_err();
    Mutant {
        bytes,
        kinds,
        seed,
        via_bytes,
    }
}

// ---------------------------------------------------------------------------------------------------
// Checking one input.

/// What one successful check saw.
#[derive(Default)]
struct Seen {
    diagnostics: usize,
    codes: BTreeMap<&'static str, usize>,
}

thread_local! {
    /// Set while a check runs under `catch_unwind`: the panic hook stores the message here instead of
    /// printing it.
    static CAPTURED_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static CAPTURING: RefCell<bool> = const { RefCell::new(false) };
}

/// Installs (once) a panic hook that records panics on capturing threads and defers to the default
/// hook elsewhere.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(|c| *c.borrow()) {
                let location = info
                    .location()
                    .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
                let payload = info.payload();
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "<non-string panic payload>".to_string());
                CAPTURED_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{location}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into `Err(message with location)`.
fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_panic_hook();
    CAPTURING.with(|c| *c.borrow_mut() = true);
    CAPTURED_PANIC.with(|p| *p.borrow_mut() = None);
    let result = catch_unwind(AssertUnwindSafe(f));
    CAPTURING.with(|c| *c.borrow_mut() = false);
    result.map_err(|_| {
        CAPTURED_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panic (no message captured)".to_string())
    })
}

/// The value of the first `"key":N` in a JSON line.
fn json_number(line: &str, key: &str) -> Option<i64> {
    let pattern = format!("\"{key}\":");
    let start = line.find(&pattern)? + pattern.len();
    let digits: String = line[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// Every value of `"key":N` in a JSON line (the top-level one and each label's).
fn json_numbers(line: &str, key: &str) -> Vec<Option<i64>> {
    let pattern = format!("\"{key}\":");
    line.match_indices(&pattern)
        .map(|(at, _)| json_number(&line[at..], key))
        .collect()
}

/// Checks one input (in-process, panics caught) and validates every diagnostic. `Err` lists what is
/// wrong: a panic message, or each bad location / rendering.
fn check_input(name: &str, bytes: &[u8], via_bytes: bool) -> Result<Seen, Vec<String>> {
    let outcome = catch(|| {
        let mut session = Session::new();
        let file = if via_bytes {
            session.add_source_bytes(name, bytes)
        } else {
            let text = String::from_utf8_lossy(bytes).into_owned();
            session.add_source(name, text)
        };
        let report = session.check(CheckOptions::default());
        let my_id = file.id(session.db());
        let my_text = file.text(session.db()).clone();
        let plain = report.render_plain();
        let json = report.json_lines();
        validate(&report, my_id, &my_text, &plain, &json)
    });
    match outcome {
        Ok(result) => result,
        Err(panic) => Err(vec![format!("panicked: {panic}")]),
    }
}

/// The text of the file a label points into: the checked file, or a standard module.
fn text_of<'a>(
    report: &scenic_frontend::CheckReport,
    file: scenic_frontend::diag::FileId,
    my_id: scenic_frontend::diag::FileId,
    my_text: &'a str,
) -> Option<&'a str> {
    if file == my_id {
        return Some(my_text);
    }
    let name = report.sources.name(file);
    stdlib::MODULES
        .iter()
        .find(|(_, display, _)| *display == name)
        .map(|(_, _, text)| *text)
}

fn validate(
    report: &scenic_frontend::CheckReport,
    my_id: scenic_frontend::diag::FileId,
    my_text: &str,
    plain: &str,
    json: &[String],
) -> Result<Seen, Vec<String>> {
    let mut problems = Vec::new();
    let mut seen = Seen::default();
    for diag in &report.diagnostics {
        seen.diagnostics += 1;
        *seen.codes.entry(diag.code.id).or_default() += 1;
        let what = format!("{} `{}`", diag.code.id, diag.message);
        if diag.labels.is_empty() {
            problems.push(format!("{what}: no labels"));
        }
        let primaries = diag.labels.iter().filter(|l| l.primary).count();
        if primaries != 1 {
            problems.push(format!("{what}: {primaries} primary labels"));
        }
        for label in &diag.labels {
            let Loc::File { file, span } = label.loc else {
                problems.push(format!(
                    "{what}: label `{}` is not a file location: {:?}",
                    label.message, label.loc
                ));
                continue;
            };
            let Some(text) = text_of(report, file, my_id, my_text) else {
                problems.push(format!(
                    "{what}: label `{}` points into unexpected file `{}`",
                    label.message,
                    report.sources.name(file)
                ));
                continue;
            };
            let (lo, hi) = (span.lo as usize, span.hi as usize);
            if lo > hi || hi > text.len() {
                problems.push(format!(
                    "{what}: label `{}` span {lo}..{hi} is outside the file (length {})",
                    label.message,
                    text.len()
                ));
                continue;
            }
            let start = report.sources.line_col(file, lo);
            if start.line < 1 || start.column < 1 {
                problems.push(format!("{what}: line_col gave {start:?}"));
            }
        }
        // The `-->` line of the plain rendering names the primary location, like the JSON does.
        if let Some(Loc::File { file, span }) = diag.primary_loc() {
            let at = report.sources.line_col(file, span.lo as usize);
            let arrow = format!(
                "--> {}:{}:{}",
                report.sources.name(file),
                at.line,
                at.column
            );
            if !plain.contains(&arrow) {
                problems.push(format!("{what}: plain rendering lacks `{arrow}`"));
            }
        }
    }
    if json.len() != report.diagnostics.len() {
        problems.push(format!(
            "{} JSON lines for {} diagnostics",
            json.len(),
            report.diagnostics.len()
        ));
    }
    for line in json {
        if !(line.starts_with('{') && line.ends_with('}')) || line.contains('\n') {
            problems.push(format!("not a one-line JSON object: {line}"));
            continue;
        }
        for key in ["line", "column", "end_line", "end_column"] {
            let values = json_numbers(line, key);
            if values.is_empty() || values.iter().any(|v| !v.is_some_and(|n| n >= 1)) {
                problems.push(format!("JSON `{key}` not >= 1: {line}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(seen)
    } else {
        Err(problems)
    }
}

// ---------------------------------------------------------------------------------------------------
// The mutation test.

/// The examples, sorted by name: `(file name, text)`.
fn examples() -> Vec<(String, String)> {
    let dir = Path::new("../examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "sn"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (name, text)
        })
        .collect()
}

/// Messages from the worker threads to the watchdog.
enum Progress {
    /// Worker `.0` started checking the mutant described by `.1`.
    Started(usize, String),
    /// Worker `.0` is done.
    Done(usize, Summary),
}

#[derive(Default)]
struct Summary {
    mutants: usize,
    per_example: BTreeMap<String, usize>,
    fresh: usize,
    incremental: usize,
    compared: usize,
    diagnostics: usize,
    clean: usize,
    codes: BTreeMap<&'static str, usize>,
    /// `(example, mutant index, report)`.
    failures: Vec<(String, usize, String)>,
}

impl Summary {
    fn merge(&mut self, other: Summary) {
        self.mutants += other.mutants;
        for (name, n) in other.per_example {
            *self.per_example.entry(name).or_default() += n;
        }
        self.fresh += other.fresh;
        self.incremental += other.incremental;
        self.compared += other.compared;
        self.diagnostics += other.diagnostics;
        self.clean += other.clean;
        for (code, n) in other.codes {
            *self.codes.entry(code).or_default() += n;
        }
        self.failures.extend(other.failures);
    }

    fn record(&mut self, seen: &Seen) {
        self.diagnostics += seen.diagnostics;
        if seen.diagnostics == 0 {
            self.clean += 1;
        }
        for (code, n) in &seen.codes {
            *self.codes.entry(code).or_default() += n;
        }
    }
}

fn describe(name: &str, index: usize, mutant: &Mutant, how: &str) -> String {
    format!(
        "{name} #{index} {:?} (seed {:#018x}, {} bytes, {how})",
        mutant.kinds,
        mutant.seed,
        mutant.bytes.len(),
    )
}

/// A session kept across mutants of one example: each mutant replaces the file's text, so the check is
/// incremental (salsa reuses the standard library and every unchanged chunk). This exercises the
/// rebasing of reused chunk results to moved positions, and is several times faster than a fresh
/// session.
struct Incremental {
    session: Session,
    file: scenic_frontend::db::SourceFile,
}

/// Checks `text` incrementally in `inc` (created on first use; dropped after a panic, since a panic
/// may leave the database inconsistent). Returns the result and the diagnostics for comparison.
fn check_incremental(
    inc: &mut Option<Incremental>,
    name: &str,
    text: &str,
) -> Result<(Seen, Vec<scenic_frontend::diag::Diagnostic>), Vec<String>> {
    let mut taken = inc.take();
    let outcome = catch(|| {
        let state = taken.get_or_insert_with(|| {
            let mut session = Session::new();
            let file = session.add_source(name, String::new());
            Incremental { session, file }
        });
        state.session.set_text(state.file, text.to_string());
        let report = state.session.check(CheckOptions::default());
        let db = state.session.db();
        let my_id = state.file.id(db);
        let my_text = state.file.text(db).clone();
        let plain = report.render_plain();
        let json = report.json_lines();
        validate(&report, my_id, &my_text, &plain, &json).map(|seen| (seen, report.diagnostics))
    });
    match outcome {
        Ok(result) => {
            *inc = taken;
            result
        }
        Err(panic) => Err(vec![format!("panicked: {panic}")]),
    }
}

/// A share of the work: mutants `range` of example `example`.
struct Job {
    example: usize,
    range: std::ops::Range<usize>,
}

/// Mutants per job; jobs are handed out to the workers one at a time.
const JOB_SIZE: usize = 40;

fn run_job(
    worker: usize,
    (name, text): &(String, String),
    job: &Job,
    tx: &mpsc::Sender<Progress>,
    dump: Option<&Path>,
    summary: &mut Summary,
) {
    let mut inc: Option<Incremental> = None;
    for index in job.range.clone() {
        let mutant = make_mutant(name, text, index);
        // Mutants that need the bytes API, and every other one, get a fresh session (as the CLI
        // does); the rest are checked incrementally, and one in four of those is also checked fresh to
        // compare the diagnostics.
        let utf8 = std::str::from_utf8(&mutant.bytes).ok();
        let incremental = utf8.filter(|_| !mutant.via_bytes && index % 2 == 1);
        let how = if mutant.via_bytes {
            "fresh session, add_source_bytes"
        } else if incremental.is_some() {
            "incremental session, set_text"
        } else {
            "fresh session, add_source"
        };
        let description = describe(name, index, &mutant, how);
        let _ = tx.send(Progress::Started(worker, description.clone()));
        summary.mutants += 1;
        *summary.per_example.entry(name.clone()).or_default() += 1;
        let result = match incremental {
            Some(text) => {
                summary.incremental += 1;
                check_incremental(&mut inc, name, text).and_then(|(seen, diags)| {
                    if index % 8 != 1 {
                        return Ok(seen);
                    }
                    summary.compared += 1;
                    let fresh = catch(|| {
                        let mut session = Session::new();
                        session.add_source(name.as_str(), text.to_string());
                        session.check(CheckOptions::default()).diagnostics
                    })
                    .map_err(|panic| vec![format!("panicked in the fresh check: {panic}")])?;
                    if fresh == diags {
                        Ok(seen)
                    } else {
                        Err(vec![format!(
                            "the incremental check differs from a fresh one:\n      incremental: \
                             {diags:?}\n      fresh: {fresh:?}"
                        )])
                    }
                })
            }
            None => {
                summary.fresh += 1;
                check_input(name, &mutant.bytes, mutant.via_bytes)
            }
        };
        match result {
            Ok(seen) => summary.record(&seen),
            Err(problems) => {
                let mut report = description;
                for problem in problems {
                    let _ = write!(report, "\n    {problem}");
                }
                if let Some(dir) = dump {
                    let path = dir.join(format!("{}-{index}.sn", name.trim_end_matches(".sn")));
                    if std::fs::create_dir_all(dir).is_ok()
                        && std::fs::write(&path, &mutant.bytes).is_ok()
                    {
                        let _ = write!(report, "\n    written to {}", path.display());
                    }
                }
                summary.failures.push((name.clone(), index, report));
            }
        }
    }
}

#[test]
fn mutated_examples_never_panic_and_locate_every_diagnostic() {
    let started = Instant::now();
    let examples = std::sync::Arc::new(examples());
    assert!(
        examples.len() >= 7,
        "expected the seven examples in ../examples, found {}",
        examples.len()
    );
    // Every example must check clean; otherwise its mutants test less than they seem to.
    let mut unclean = Vec::new();
    for (name, text) in examples.iter() {
        match check_input(name, text.as_bytes(), false) {
            Ok(seen) if seen.diagnostics == 0 => {}
            Ok(seen) => unclean.push(format!("{name}: {} diagnostics", seen.diagnostics)),
            Err(problems) => unclean.push(format!("{name}: {}", problems.join("; "))),
        }
    }
    assert!(
        unclean.is_empty(),
        "examples that do not check clean: {unclean:?}"
    );

    let jobs: Vec<Job> = (0..examples.len())
        .flat_map(|example| {
            (0..MUTANTS_PER_EXAMPLE)
                .step_by(JOB_SIZE)
                .map(move |lo| Job {
                    example,
                    range: lo..(lo + JOB_SIZE).min(MUTANTS_PER_EXAMPLE),
                })
        })
        .collect();
    let jobs = std::sync::Arc::new(jobs);
    let next_job = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4));
    let dump = std::env::var_os("SCENIC_MUTANT_DUMP").map(PathBuf::from);
    let (tx, rx) = mpsc::channel();
    for worker in 0..workers {
        let (tx, examples, jobs, next_job, dump) = (
            tx.clone(),
            examples.clone(),
            jobs.clone(),
            next_job.clone(),
            dump.clone(),
        );
        // Worker threads, so that a check that never terminates is caught by the watchdog below (the
        // stuck thread is left behind; the test fails and the process exits).
        std::thread::Builder::new()
            .name(format!("mutants-{worker}"))
            .spawn(move || {
                let mut summary = Summary::default();
                loop {
                    let n = next_job.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(job) = jobs.get(n) else { break };
                    let example = &examples[job.example];
                    run_job(worker, example, job, &tx, dump.as_deref(), &mut summary);
                }
                let _ = tx.send(Progress::Done(worker, summary));
            })
            .expect("spawn a mutant worker");
    }
    drop(tx);

    // The watchdog: every worker's current mutant must finish within MUTANT_TIMEOUT.
    let mut current: Vec<Option<(String, Instant)>> = vec![None; workers];
    let mut done = 0;
    let mut summary = Summary::default();
    while done < workers {
        match rx.recv_timeout(Duration::from_millis(500)) {
            Ok(Progress::Started(worker, description)) => {
                current[worker] = Some((description, Instant::now()));
            }
            Ok(Progress::Done(worker, part)) => {
                current[worker] = None;
                summary.merge(part);
                done += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("a mutant worker died; last mutants: {current:?}")
            }
        }
        for (description, since) in current.iter().flatten() {
            assert!(
                since.elapsed() < MUTANT_TIMEOUT,
                "the check did not terminate within {} s on mutant {description}",
                MUTANT_TIMEOUT.as_secs()
            );
        }
    }

    let elapsed = started.elapsed();
    let per_example: Vec<String> = summary
        .per_example
        .iter()
        .map(|(name, n)| format!("{name}: {n}"))
        .collect();
    let mut top: Vec<(&str, usize)> = summary.codes.iter().map(|(c, n)| (*c, *n)).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let top: Vec<String> = top.iter().map(|(c, n)| format!("{c}×{n}")).collect();
    eprintln!(
        "mutation test: {} mutants ({}) on {workers} threads in {:.1} s; {} in fresh sessions, {} \
         incremental ({} of them compared with a fresh check); {} diagnostics, {} mutants clean; {} \
         distinct codes: {}",
        summary.mutants,
        per_example.join(", "),
        elapsed.as_secs_f64(),
        summary.fresh,
        summary.incremental,
        summary.compared,
        summary.diagnostics,
        summary.clean,
        summary.codes.len(),
        top.join(" "),
    );
    for (name, n) in &summary.per_example {
        assert!(
            *n >= 300,
            "{name}: only {n} mutants (at least 300 per example)"
        );
    }
    summary
        .failures
        .sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    assert!(
        summary.failures.is_empty(),
        "{} of {} mutants failed:\n{}",
        summary.failures.len(),
        summary.mutants,
        summary
            .failures
            .iter()
            .map(|(_, _, report)| report.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ---------------------------------------------------------------------------------------------------
// Fixed nasty inputs, each checked in a child process.

/// `(name, bytes)` of every fixed nasty input. Fuzzer crashes become regression tests here.
fn nasty_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let nest = |open: &str, inner: &str, close: &str, depth: usize| -> String {
        let mut s = open.repeat(depth);
        s.push_str(inner);
        s.push_str(&close.repeat(depth));
        s
    };
    let digits: String = (0..1_000_000)
        .map(|i| char::from(b'0' + (i % 10) as u8))
        .collect();
    let long_ident = "a".repeat(100_000);
    vec![
        ("empty file", Vec::new()),
        ("only whitespace", b" \n\t\r\n   \n".to_vec()),
        (
            "only comments",
            b"// one\n/* two */\n/* three\n spans */ // four\n".to_vec(),
        ),
        (
            "unterminated block comment",
            b"const A: bit<8> = 1;\n/* never closed\nconst B: bit<8> = 2;\n".to_vec(),
        ),
        ("only `/*`", b"/*".to_vec()),
        (
            "10,000 nested `{` unclosed",
            "{".repeat(10_000).into_bytes(),
        ),
        (
            "10,000 nested `{` balanced at top level",
            nest("{", "", "}", 10_000).into_bytes(),
        ),
        (
            "10,000 nested blocks in a control body",
            format!(
                "scu x on slow_path {{\n    control {{\n{}\n    }}\n}}\n",
                nest("{ ", "", " }", 10_000)
            )
            .into_bytes(),
        ),
        (
            "10,000 nested `(` in a const expression",
            format!("const A: bit<8> = {};\n", nest("(", "1", ")", 10_000)).into_bytes(),
        ),
        (
            "10,000 nested `(` unclosed in a const expression",
            format!("const A: bit<8> = {}1;\n", "(".repeat(10_000)).into_bytes(),
        ),
        ("a 1 MB line of digits", digits.clone().into_bytes()),
        (
            "a 1 MB integer literal in a const",
            format!("const A: bit<8> = {digits};\n").into_bytes(),
        ),
        (
            "`scu x on slow_path {` repeated",
            "scu x on slow_path {\n".repeat(2_000).into_bytes(),
        ),
        (
            "a 100,000-character identifier",
            format!("const {long_ident}: bit<8> = 1;\nconst B: bit<8> = {long_ident};\n")
                .into_bytes(),
        ),
        ("NUL bytes only", vec![0u8; 64]),
        // Former stack overflows: nesting that pest accepts but the recursive AST builder could not
        // walk on a 2 MiB stack (in the test profile: `(` from ~531 deep and blocks from ~381 deep;
        // from ~759 and ~940 pest's own stack guard turned them into a syntax error; now E0014), and
        // flat chains that pest parses iteratively but the type checker walked recursively.
        (
            "600 nested `(` in a const expression",
            format!("const A: bit<8> = {};\n", nest("(", "1", ")", 600)).into_bytes(),
        ),
        (
            "600 nested blocks in a control body",
            format!(
                "scu x on slow_path {{\n    control {{\n{}\n    }}\n}}\n",
                nest("{ ", "", " }", 600)
            )
            .into_bytes(),
        ),
        (
            "a sum of 10,000 terms",
            format!("const A: bit<8> = 1{};\n", " + 1".repeat(10_000)).into_bytes(),
        ),
        (
            "10,000 prefix `-`",
            format!("const A: bit<8> = {}1;\n", "-".repeat(10_000)).into_bytes(),
        ),
        (
            "10,000 index postfixes",
            format!("const A: bit<8> = a{};\n", "[0]".repeat(10_000)).into_bytes(),
        ),
        // Known crashes (see KNOWN_CRASHES). An `else if` chain is not bracket nesting (each block is
        // closed before the next `else`), so the E0014 bound does not apply, but the grammar and the
        // AST builder recurse once per arm.
        (
            "600 `else if` arms",
            format!(
                "scu x on slow_path {{\n    control {{\n        if true {{ }}{}\n    }}\n}}\n",
                " else if true { }".repeat(600)
            )
            .into_bytes(),
        ),
        // A valid program: each constant is defined by the next one, so checking the first one asks
        // for the signature of the second, which asks for the third, ... (salsa queries nest).
        (
            "300 constants, each defined by the next",
            consts_defined_by_the_next(300).into_bytes(),
        ),
        (
            "NUL bytes in a program",
            b"const A\0: bit<8> = 1;\0\nscu x on slow_path { control { let a = \0; } }\n\0"
                .to_vec(),
        ),
    ]
}

/// `const A0: bit<8> = A1; const A1: bit<8> = A2; ... const A{n}: bit<8> = 1;`, one per line.
fn consts_defined_by_the_next(n: usize) -> String {
    let mut text: String = (0..n)
        .map(|i| format!("const A{i}: bit<8> = A{};\n", i + 1))
        .collect();
    text.push_str(&format!("const A{n}: bit<8> = 1;\n"));
    text
}

/// The environment variable that tells the child which nasty input to check.
const NASTY_ENV: &str = "SCENIC_NASTY_INPUT";

/// Not a test by itself: the child-process half of `nasty_inputs_never_crash`. Without
/// `SCENIC_NASTY_INPUT` it does nothing.
#[test]
fn nasty_input_child() {
    let Ok(wanted) = std::env::var(NASTY_ENV) else {
        return;
    };
    let Some((name, bytes)) = nasty_inputs().into_iter().find(|(n, _)| *n == wanted) else {
        panic!("no nasty input called `{wanted}`");
    };
    let handle = std::thread::Builder::new()
        .name("nasty".to_string())
        .stack_size(NORMAL_STACK)
        .spawn(move || {
            let started = Instant::now();
            let result = check_input("nasty.sn", &bytes, true);
            (result, started.elapsed())
        })
        .expect("spawn the checking thread");
    let (result, elapsed) = handle
        .join()
        .expect("the checking thread panicked outside the check");
    match result {
        Ok(seen) => eprintln!(
            "nasty input `{name}`: {} diagnostics in {:.2} s",
            seen.diagnostics,
            elapsed.as_secs_f64()
        ),
        Err(problems) => panic!("nasty input `{name}`:\n    {}", problems.join("\n    ")),
    }
}

/// Runs nasty input `name` in a child process; `Err` describes a crash, a failure or a timeout.
fn run_nasty_child(name: &str) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "nasty_input_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(NASTY_ENV, name)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(stderr, &mut text);
        }
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > NASTY_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    let relevant: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            !l.trim().is_empty() && !l.starts_with("running ") && !l.contains("test result")
        })
        .collect();
    match status {
        None => Err(format!(
            "did not terminate within {} s",
            NASTY_TIMEOUT.as_secs()
        )),
        Some(status) if status.success() => Ok(relevant.join(" / ")),
        Some(status) => Err(format!(
            "child exited with {status}:\n      {}",
            relevant.join("\n      ")
        )),
    }
}

#[test]
fn nasty_inputs_never_crash() {
    let mut failures = Vec::new();
    for (name, _) in nasty_inputs() {
        if KNOWN_CRASHES.contains(&name) {
            eprintln!("nasty input `{name}`: skipped (known crash, see its #[ignore]d test)");
            continue;
        }
        match run_nasty_child(name) {
            Ok(output) => eprintln!("{output}"),
            Err(problem) => failures.push(format!("`{name}`: {problem}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} nasty inputs failed:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Checks nasty input `name` in a child process and fails with the child's stderr if it crashed.
fn assert_nasty_input_ok(name: &str) {
    if let Err(problem) = run_nasty_child(name) {
        panic!("nasty input `{name}`: {problem}");
    }
}

/// Nasty inputs that crash today (a stack overflow aborts the process); `nasty_inputs_never_crash`
/// skips them, and each has an `#[ignore]`d test below. Once the frontend bounds its recursion, remove
/// the name from this list and the `#[ignore]` from its test.
const KNOWN_CRASHES: &[&str] = &[];

/// Stack overflow in the AST builder: `parse::Builder::if_stmt` (parse/stmt.rs:129, its closure at
/// :132) and `Builder::stmt` (parse/stmt.rs:41) recurse once per `else if` arm. From 446 arms on a
/// 2 MiB stack in the test profile (`scenicc check`, 8 MiB main thread: from ~2,000); from ~1,085 arms
/// pest's stack guard reports a bogus E0001 on this valid code instead.
#[test]
fn else_if_chains_600_long_do_not_crash() {
    assert_nasty_input_ok("600 `else if` arms");
}

/// Stack overflow through nested salsa queries, on a valid program: `resolve::signature::signature`
/// → `item_sig` (signature.rs:210) → `const_sig` (signature.rs:226) → `typeck::Checker::const_value`
/// (typeck/expr.rs:248) → `expr` → `resolve_path` → `resolve_single` (typeck/name.rs:86) →
/// `note_use` (typeck/mod.rs:328) → the signature of the next constant. From 165 constants on a 2 MiB
/// stack in the test profile; `scenicc check` (8 MiB main thread) aborts from 663.
#[test]
fn constant_chains_300_long_do_not_crash() {
    assert_nasty_input_ok("300 constants, each defined by the next");
}

/// Regression: the AST builder (`parse::Builder::expr`/`primary`) used to recurse once per `(` and
/// overflow the stack from ~531 deep; E0014 now bounds bracket nesting.
#[test]
fn parens_nested_600_deep_do_not_crash() {
    assert_nasty_input_ok("600 nested `(` in a const expression");
}

/// Regression: the AST builder (`parse::Builder::stmt`/`block`) used to recurse once per block and
/// overflow the stack from ~381 deep; E0014 now bounds bracket nesting.
#[test]
fn blocks_nested_600_deep_do_not_crash() {
    assert_nasty_input_ok("600 nested blocks in a control body");
}

/// Regression: `typeck::Checker::binary` used to recurse down the left-deep tree of a flat
/// `1 + 1 + ... + 1` and overflow the stack (≥ ~584 terms on a 2 MiB stack); it now folds the chain.
#[test]
fn sum_of_10000_terms_does_not_crash() {
    assert_nasty_input_ok("a sum of 10,000 terms");
}

/// Regression: `typeck::Checker::unary` used to recurse once per prefix `-` (≥ ~720 on a 2 MiB
/// stack); it now applies a run of prefix operators in a loop.
#[test]
fn prefix_minus_10000_times_does_not_crash() {
    assert_nasty_input_ok("10,000 prefix `-`");
}

/// Regression: `typeck::Checker::index` used to recurse once per `[0]` (≥ ~892 on a 2 MiB
/// stack); it now folds the chain of indices.
#[test]
fn index_postfixes_10000_times_do_not_crash() {
    assert_nasty_input_ok("10,000 index postfixes");
}
