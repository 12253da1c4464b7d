//! How scenicc prints its own errors: every application-level failure (bad argument combinations,
//! unreadable or unwritable files, missing tools, malformed captures and entries) is a typed error
//! of its command family (`errors`) that implements [`Failure`]: a [`miette::Diagnostic`] with a code
//! (`scenicc::<family>::<what>`), help, the causes beneath it and, where it points into a user file,
//! a labelled snippet of that file, plus the exit code it ends the run with.
//!
//! [`render`] is the one place such an error becomes text, through miette's graphical handler:
//! unicode and colour when colour is on (`--color always`, or `auto` on a terminal without
//! `NO_COLOR`), plain ASCII without escape codes otherwise. Lines are never wrapped, so a message can
//! be searched for whatever the width of the terminal. The compiler's source diagnostics
//! (`error[E0202]`, `--message-format json`) are not failures and are printed by `output` as before.

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};

/// An application-level error: what to print, and the exit code of the run it ends.
pub trait Failure: Diagnostic {
    /// The process exit code (`crate::EXIT_ERRORS`, `EXIT_USAGE` or `EXIT_INTERNAL`).
    fn exit_code(&self) -> u8;
}

/// The report of `err` as miette's graphical handler draws it, styled or plain.
pub fn render(err: &dyn Diagnostic, styled: bool) -> String {
    let theme = if styled {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::none()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_links(false)
        .with_wrap_lines(false);
    let mut text = String::new();
    if handler.render_report(&mut text, err).is_err() {
        // A `Display` impl failed: still say something rather than nothing.
        text = format!("error: {err}\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error, Diagnostic)]
    #[error("cannot read `{path}`")]
    #[diagnostic(code(scenicc::test::read), help("check the path"))]
    struct Read {
        path: String,
        #[source]
        source: std::io::Error,
    }

    fn sample() -> Read {
        Read {
            path: "x.sn".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        }
    }

    #[test]
    fn plain_rendering_has_the_code_message_cause_and_help_and_no_escapes() {
        let text = render(&sample(), false);
        assert!(!text.contains('\u{1b}'), "{text:?}");
        for part in [
            "scenicc::test::read",
            "x cannot read `x.sn`",
            "`-> no such file",
            "help: check the path",
        ] {
            assert!(text.contains(part), "{part:?} in\n{text}");
        }
    }

    #[test]
    fn styled_rendering_uses_colour() {
        let text = render(&sample(), true);
        assert!(text.contains('\u{1b}'), "{text:?}");
        assert!(text.contains("cannot read `x.sn`"), "{text}");
    }
}
