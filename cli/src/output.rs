//! Everything `scenicc` prints: diagnostics, summary lines and its own messages.
//!
//! Human output goes to stderr, in colour when asked (`--color`) or when stderr is a terminal; stdout is
//! kept for what a pipe wants: JSON diagnostics (`--message-format json`, one object per line and
//! nothing else) and the text of `scenicc explain`. Summary lines follow rustc (`error: could not check
//! ...`), are dropped by `-q` and never appear in JSON mode. Failures to write (a closed pipe) are
//! ignored rather than turned into panics. scenicc's own errors (a file it cannot read, a tool that is
//! missing) are typed [`Failure`]s, printed by [`Output::fail`] through `failure::render` (miette), in
//! every mode, on stderr.

use crate::failure::{self, Failure};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::term;
use codespan_reporting::term::termcolor::{
    Color as TermColor, ColorChoice, ColorSpec, StandardStream, WriteColor,
};
use scenic_frontend::diag::render::SourceMap;
use scenic_frontend::CheckReport;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// `--message-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    /// rustc-style text on stderr.
    Human,
    /// One JSON object per diagnostic per line on stdout.
    Json,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// Colour when stderr is a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The word a message line starts with, and its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `error:` in bold red.
    Error,
    /// `warning:` in bold yellow.
    Warning,
    /// `ok:` in bold green.
    Ok,
}

impl Level {
    fn word(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Ok => "ok",
        }
    }

    fn color(self) -> TermColor {
        match self {
            Level::Error => TermColor::Red,
            Level::Warning => TermColor::Yellow,
            Level::Ok => TermColor::Green,
        }
    }
}

/// Where and how to print, from the global options.
#[derive(Debug)]
pub struct Output {
    format: MessageFormat,
    color: ColorChoice,
    /// Whether failures are drawn with colour (the same choice as `color`, made once).
    styled: bool,
    quiet: bool,
    verbose: bool,
}

impl Output {
    /// Output settings from the global options.
    pub fn new(format: MessageFormat, color: Color, quiet: bool, verbose: bool) -> Output {
        let color = match color {
            Color::Always => ColorChoice::Always,
            Color::Never => ColorChoice::Never,
            // `Auto` also honours `NO_COLOR` and `TERM=dumb`.
            Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
            Color::Auto => ColorChoice::Never,
        };
        Output {
            format,
            color,
            styled: color == ColorChoice::Always
                || (color == ColorChoice::Auto && env_allows_color()),
            quiet,
            verbose,
        }
    }

    fn human(&self) -> bool {
        self.format == MessageFormat::Human
    }

    /// A message of scenicc's own (`error: cannot read ...`), printed in every mode.
    pub fn message(&self, level: Level, text: &str) {
        let stream = StandardStream::stderr(self.color);
        let mut out = stream.lock();
        let _ = write_message(&mut out, level, text);
    }

    /// Prints an application-level error (in every mode, on stderr) and returns its exit code.
    pub fn fail<E: Failure>(&self, err: &E) -> ExitCode {
        let text = failure::render(err, self.styled);
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
        ExitCode::from(err.exit_code())
    }

    /// A summary line: dropped by `-q` and in JSON mode.
    pub fn summary(&self, level: Level, text: &str) {
        if self.human() && !self.quiet {
            self.message(level, text);
        }
    }

    /// Whether a progress bar may be drawn: human mode, no `-q`, stderr a terminal.
    pub fn progress_bar(&self) -> bool {
        self.human() && !self.quiet && std::io::stderr().is_terminal()
    }

    /// A progress line such as `checking FILE`: only with `-v`, only in human mode.
    pub fn progress(&self, text: &str) {
        if self.human() && self.verbose {
            let _ = writeln!(std::io::stderr().lock(), "{text}");
        }
    }

    /// The closing `ok: ...` line: only with `-v`, only in human mode.
    pub fn done(&self, text: &str) {
        if self.human() && self.verbose {
            self.message(Level::Ok, text);
        }
    }

    /// Prints a report's diagnostics: rendered on stderr, or as JSON lines on stdout.
    pub fn diagnostics(&self, report: &CheckReport) {
        match self.format {
            MessageFormat::Human => {
                let stream = StandardStream::stderr(self.color);
                let mut out = stream.lock();
                let _ = scenic_frontend::diag::render::emit(
                    &mut out,
                    &report.diagnostics,
                    &report.sources,
                );
            }
            MessageFormat::Json => {
                let mut out = std::io::stdout().lock();
                for line in report.json_lines() {
                    if writeln!(out, "{line}").is_err() {
                        return;
                    }
                }
                let _ = out.flush();
            }
        }
    }
}

impl Output {
    /// An error of a later stage (a backend) at `span`, printed like a diagnostic without a code:
    /// rustc-style with the source line on stderr, or one JSON object on stdout (`code` null).
    pub fn span_error(&self, sources: &SourceMap, message: &str, span: Option<scenic_ir::Span>) {
        let span = span.filter(|s| s.is_known());
        match self.format {
            MessageFormat::Human => {
                let Some(span) = span else {
                    return self.message(Level::Error, message);
                };
                let label =
                    cs::Label::primary(span.file.0 as usize, span.lo as usize..span.hi as usize);
                let diag = cs::Diagnostic::error()
                    .with_message(message)
                    .with_labels(vec![label]);
                let config = term::Config {
                    chars: term::Chars::ascii(),
                    ..term::Config::default()
                };
                let stream = StandardStream::stderr(self.color);
                let mut out = stream.lock();
                if term::emit_to_write_style(&mut out, &config, sources, &diag).is_err() {
                    drop(out);
                    self.message(Level::Error, message);
                }
            }
            MessageFormat::Json => {
                let file = |s: scenic_ir::Span| scenic_frontend::diag::FileId(s.file.0);
                let at = |off: u32, s: scenic_ir::Span| sources.line_col(file(s), off as usize);
                let located = span.map(|s| {
                    let (a, b) = (at(s.lo, s), at(s.hi, s));
                    let place = serde_json::json!({
                        "file": sources.name(file(s)), "line": a.line, "column": a.column,
                        "end_line": b.line, "end_column": b.column,
                    });
                    place
                });
                let mut obj = serde_json::json!({
                    "severity": "error", "code": null, "message": message,
                    "labels": [], "notes": [], "help": [],
                });
                if let (Some(place), Some(map)) = (located, obj.as_object_mut()) {
                    if let Some(fields) = place.as_object() {
                        for (k, v) in fields {
                            map.insert(k.clone(), v.clone());
                        }
                    }
                    let mut label = place;
                    if let Some(l) = label.as_object_mut() {
                        l.insert("message".into(), "".into());
                        l.insert("primary".into(), true.into());
                    }
                    map.insert("labels".into(), serde_json::Value::Array(vec![label]));
                }
                print_stdout(&format!("{obj}\n"));
            }
        }
    }
}

/// What `ColorChoice::Auto` leaves to the environment: no `NO_COLOR`, and a terminal that is not
/// `dumb` (the rules termcolor applies to the diagnostics).
fn env_allows_color() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    !no_color && !dumb
}

/// Prints `text` to stdout as is (explanations, lists); a closed pipe ends the output quietly.
pub fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn write_message(out: &mut impl WriteColor, level: Level, text: &str) -> std::io::Result<()> {
    out.set_color(ColorSpec::new().set_fg(Some(level.color())).set_bold(true))?;
    write!(out, "{}", level.word())?;
    let emphasised = matches!(level, Level::Error | Level::Warning);
    out.set_color(ColorSpec::new().set_bold(emphasised))?;
    write!(out, ": {text}")?;
    out.reset()?;
    writeln!(out)
}

/// `1 warning`, `2 errors`: a count and a noun, pluralised.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How the summary names what was checked: `` `a.sn` ``, `` `a.sn` and `b.sn` `` or `4 files`.
pub fn describe_files(names: &[String]) -> String {
    match names {
        [one] => format!("`{one}`"),
        [a, b] => format!("`{a}` and `{b}`"),
        _ => count(names.len(), "file"),
    }
}

/// The rustc-like closing line of a check, if there is one to print.
pub fn check_summary(names: &[String], errors: usize, warnings: usize) -> Option<(Level, String)> {
    let what = describe_files(names);
    if errors > 0 {
        let mut text = format!(
            "could not check {what} due to {}",
            count(errors, "previous error")
        );
        if warnings > 0 {
            text.push_str(&format!("; {} emitted", count(warnings, "warning")));
        }
        Some((Level::Error, text))
    } else if warnings > 0 {
        Some((
            Level::Warning,
            format!("{what} generated {}", count(warnings, "warning")),
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn summary_with_errors_and_warnings() {
        let line = check_summary(&names(&["firewall.sn"]), 2, 1);
        let text = "could not check `firewall.sn` due to 2 previous errors; 1 warning emitted";
        assert_eq!(line, Some((Level::Error, text.to_string())));
    }

    #[test]
    fn summary_with_one_error() {
        let line = check_summary(&names(&["a.sn", "b.sn"]), 1, 0);
        let text = "could not check `a.sn` and `b.sn` due to 1 previous error";
        assert_eq!(line, Some((Level::Error, text.to_string())));
    }

    #[test]
    fn summary_with_warnings_only() {
        let line = check_summary(&names(&["firewall.sn"]), 0, 1);
        assert_eq!(
            line,
            Some((
                Level::Warning,
                "`firewall.sn` generated 1 warning".to_string()
            ))
        );
        let line = check_summary(&names(&["a.sn", "b.sn", "c.sn"]), 0, 3);
        assert_eq!(
            line,
            Some((Level::Warning, "3 files generated 3 warnings".to_string()))
        );
    }

    #[test]
    fn no_summary_when_clean() {
        assert_eq!(check_summary(&names(&["firewall.sn"]), 0, 0), None);
    }

    #[test]
    fn plain_messages_have_no_escape_codes() {
        let mut buffer = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
        let written = write_message(&mut buffer, Level::Error, "cannot read `x.sn`");
        assert!(written.is_ok());
        assert_eq!(
            String::from_utf8_lossy(buffer.get_ref()),
            "error: cannot read `x.sn`\n"
        );
    }
}
