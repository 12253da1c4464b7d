//! Checking one input: the check must not panic, and every diagnostic must carry a real location
//! that the plain and JSON renderings agree on.

use super::*;

// ---------------------------------------------------------------------------------------------------
// Checking one input.

/// What one successful check saw.
#[derive(Default)]
pub(crate) struct Seen {
    pub(crate) diagnostics: usize,
    pub(crate) codes: BTreeMap<&'static str, usize>,
}

thread_local! {
    /// Set while a check runs under `catch_unwind`: the panic hook stores the message here instead of
    /// printing it.
    static CAPTURED_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static CAPTURING: RefCell<bool> = const { RefCell::new(false) };
}

/// Installs (once) a panic hook that records panics on capturing threads and defers to the default
/// hook elsewhere.
pub(crate) fn install_panic_hook() {
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
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
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
pub(crate) fn json_number(line: &str, key: &str) -> Option<i64> {
    let pattern = format!("\"{key}\":");
    let start = line.find(&pattern)? + pattern.len();
    let digits: String = line[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// Every value of `"key":N` in a JSON line (the top-level one and each label's).
pub(crate) fn json_numbers(line: &str, key: &str) -> Vec<Option<i64>> {
    let pattern = format!("\"{key}\":");
    line.match_indices(&pattern)
        .map(|(at, _)| json_number(&line[at..], key))
        .collect()
}

/// Checks one input (in-process, panics caught) and validates every diagnostic. `Err` lists what is
/// wrong: a panic message, or each bad location / rendering.
pub(crate) fn check_input(name: &str, bytes: &[u8], via_bytes: bool) -> Result<Seen, Vec<String>> {
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
pub(crate) fn text_of<'a>(
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

pub(crate) fn validate(
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
