//! The font the PNG plots draw their text with: a TrueType font of the system, found and
//! registered with plotters once per process. No font is bundled; the SVGs need none (their text
//! is `<text>` elements, drawn by the viewer).
//!
//! Looked for, in order: the file named by `SCENICC_PLOT_FONT`, then DejaVu Sans where Debian
//! (package `fonts-dejavu-core`), Fedora and Arch install it, then Liberation Sans and macOS's
//! Arial. Invariant: once a font is registered it stays for the process (plotters keeps fonts as
//! `'static` data: the bytes are leaked once).

use plotters::style::{register_font, FontStyle};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The font family every plot's text names.
pub const FAMILY: &str = "sans-serif";

/// The environment variable that names a `.ttf` file to use instead of the system's.
pub const FONT_VAR: &str = "SCENICC_PLOT_FONT";

/// The Debian package that provides the first system candidate.
pub const DEBIAN_PACKAGE: &str = "fonts-dejavu-core";

const SYSTEM_FONTS: [&str; 6] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
];

static REGISTERED: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// Registers the system font for the PNGs (the first call looks; later calls repeat its answer):
/// the font's path, or why there is none.
pub fn system() -> Result<&'static Path, &'static str> {
    let found = REGISTERED.get_or_init(|| register_first(&candidates()));
    match found {
        Ok(path) => Ok(path.as_path()),
        Err(why) => Err(why.as_str()),
    }
}

fn candidates() -> Vec<PathBuf> {
    let chosen = std::env::var_os(FONT_VAR).map(PathBuf::from);
    chosen
        .into_iter()
        .chain(SYSTEM_FONTS.iter().map(PathBuf::from))
        .collect()
}

/// Registers the first of `paths` that reads and parses as a font.
fn register_first(paths: &[PathBuf]) -> Result<PathBuf, String> {
    for path in paths {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        if register_font(FAMILY, FontStyle::Normal, bytes).is_ok() {
            return Ok(path.clone());
        }
    }
    Err(format!(
        "no TrueType font for the PNG plots (install Debian's `{DEBIAN_PACKAGE}`, or set \
         {FONT_VAR} to a .ttf file): wrote the SVG plots only"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_readable_font_says_what_to_install() {
        let missing = [PathBuf::from("/nonexistent/scenicc/NoSuchFont.ttf")];
        let why = register_first(&missing).err().unwrap_or_default();
        assert!(
            why.contains("fonts-dejavu-core") && why.contains(FONT_VAR),
            "{why}"
        );
    }
}
